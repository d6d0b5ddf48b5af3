"""Proof that a set from conic data is not empty: ``Phat`` or a stored member, checked in
rationals.

An empty set makes every robust constraint vacuous (its dual is unbounded, so
stored multipliers could "prove" anything), so ``rldp verify`` proves
``Phat in F`` before it trusts a set from data, or, for a set that excludes ``Phat``
(or where it is not provable), a member the record stores: the whole point ``x``
(``P`` and the auxiliary variables) as rationals (:func:`member_point` finds one,
:func:`is_member` checks it by step 3). The data are
``b - A x in K`` with ``P = x[columns]`` (:mod:`.derived_form`), ``b`` exact
rationals (:meth:`~.set_data.SetData.exact_b`, or the doubles as they are).

1. A float point: a solve of ``b - A x in K``, ``x[columns] = Phat`` (an
   interior-point solver's point sits well inside the cones where it can).
2. Exact: ``x`` becomes rationals, ``x[columns] = counts / n`` exactly, auxiliary
   entries below :data:`SNAP` of the largest become exact zeros (entries the
   equations force to zero), and the other auxiliary entries take the
   minimal correction ``dx = M^T z``, ``(M M^T) z = r`` (``M``: the zero rows on
   those columns, ``r``: their residual; solved by exact row reduction,
   python-flint ``fmpq_mat``, redundant rows allowed) so every zero row holds exactly.
3. Every cone is checked at ``s = b - A x`` exactly: zero rows ``= 0``, nonnegative
   rows ``>= 0``, second-order heads ``>= 0`` with ``head^2 >= |tail|^2``;
   exponential and power blocks in ball arithmetic at the exact point.

Any failure is "not proved", never "empty".
"""

from __future__ import annotations

import warnings
from fractions import Fraction
from typing import Sequence

import flint
import numpy as np
import scipy.sparse as sparse

from rldp_models.uncertainty.derived_certificate import BITS
from rldp_models.uncertainty.derived_form import (
    CANONICAL_SOLVER,
    ConicDescription,
    cone_constraints,
)
from rldp_models.uncertainty.scalar_search import direct_solver_options

SNAP = 1e-9
"""Auxiliary entries below this fraction of the largest become exact zeros."""


def phat_is_member(description: ConicDescription, exact_b: Sequence[Fraction],
                   phat: Sequence[Fraction]) -> bool:
    """Whether ``phat`` (exact) is proved a member of the data's set (module docstring)."""
    point = float_point(description, np.array([float(p) for p in phat]))
    if point is None:
        return False
    x = exact_point(description, exact_b, point, phat)
    return x is not None and in_cones(description, slack(description, exact_b, x))


def member_point(description: ConicDescription,
                 exact_b: Sequence[Fraction]) -> list[Fraction] | None:
    """A rational member ``x`` of the data's set (steps 1-3 with ``P`` free), or None."""
    point = float_point(description, None)
    if point is None:
        return None
    x = exact_point(description, exact_b, point, None)
    return x if x is not None and is_member(description, exact_b, x) else None


def is_member(description: ConicDescription, exact_b: Sequence[Fraction],
              x: Sequence[Fraction]) -> bool:
    """Whether the rational point ``x`` (every column) is proved in the set (step 3)."""
    return len(x) == description.a_matrix.shape[1] and \
        in_cones(description, slack(description, exact_b, list(x)))


def float_point(description: ConicDescription, phat: np.ndarray | None) -> np.ndarray | None:
    """Step 1: a float ``x`` with ``x[columns] = phat`` (any ``P`` if None) in the set, or None."""
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

    x = cp.Variable(description.a_matrix.shape[1])
    fixed = [] if phat is None else [x[description.columns] == phat]
    problem = cp.Problem(cp.Minimize(0), [*fixed, *cone_constraints(description, x)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            problem.solve(solver=CANONICAL_SOLVER, **direct_solver_options("clarabel"))
        except cp.error.SolverError:
            return None
    return None if x.value is None else np.asarray(x.value, dtype=float)


def exact_point(description: ConicDescription, exact_b: Sequence[Fraction], point: np.ndarray,
                phat: Sequence[Fraction] | None) -> list[Fraction] | None:
    """Step 2: rational ``x`` meeting every zero row exactly, or None if the rows disagree
    (``P = phat`` fixed; with None, ``P``'s entries are corrected like the auxiliaries)."""
    x = [Fraction(float(v)) for v in point]
    cutoff = SNAP * max(float(np.abs(point).max(initial=0.0)), 1.0)
    for j in range(len(x)):
        if abs(point[j]) < cutoff:
            x[j] = Fraction(0)
    for column, value in zip(description.columns, phat or ()):
        x[int(column)] = Fraction(value)
    zero = [int(i) for kind, rows in description.cones if kind == "zero" for i in rows]
    if not zero:
        return x
    rows = sparse.csr_matrix(description.a_matrix)[zero]
    residual = [exact_b[i] - _row_dot(rows, k, x) for k, i in enumerate(zero)]
    if not any(residual):
        return x
    fixed = set() if phat is None else set(int(c) for c in description.columns)
    free = [j for j in range(len(x)) if j not in fixed and x[j] != 0]
    if not free:
        return None
    dense = rows[:, free].toarray()
    m = flint.fmpq_mat([[_fmpq(Fraction(float(a))) for a in row] for row in dense])
    gram = m * m.transpose()
    augmented = flint.fmpq_mat([[gram[i, j] for j in range(gram.ncols())] + [_fmpq(residual[i])]
                                for i in range(gram.nrows())])
    reduced, rank = augmented.rref()
    z = [flint.fmpq(0)] * gram.nrows()
    for i in range(gram.nrows()):
        pivots = [j for j in range(gram.ncols()) if reduced[i, j] != 0]
        if not pivots:
            if reduced[i, gram.ncols()] != 0:
                return None  # the zero rows are inconsistent on these columns
            continue
        z[pivots[0]] = reduced[i, gram.ncols()]
    step = m.transpose() * flint.fmpq_mat([[value] for value in z])
    for k, j in enumerate(free):
        entry = step[k, 0]
        x[j] += Fraction(int(entry.p), int(entry.q))
    return x


def _fmpq(value: Fraction) -> flint.fmpq:
    return flint.fmpq(value.numerator, value.denominator)


def _row_dot(rows: sparse.csr_matrix, k: int, x: list[Fraction]) -> Fraction:
    start, end = rows.indptr[k], rows.indptr[k + 1]
    return sum((Fraction(float(a)) * x[int(j)]
                for a, j in zip(rows.data[start:end], rows.indices[start:end])), Fraction(0))


def slack(description: ConicDescription, exact_b: Sequence[Fraction],
          x: list[Fraction]) -> list[Fraction]:
    """``s = b - A x`` exactly."""
    rows = sparse.csr_matrix(description.a_matrix)
    return [exact_b[i] - _row_dot(rows, i, x) for i in range(rows.shape[0])]


def in_cones(description: ConicDescription, s: list[Fraction]) -> bool:
    """Step 3: ``s in K`` proved (module docstring)."""
    alphas = iter(description.alphas)
    for kind, rows in description.cones:
        values = [s[int(i)] for i in rows]
        if kind == "zero" and any(values):
            return False
        if kind == "nonneg" and min(values) < 0:
            return False
        if kind == "soc" and (values[0] < 0 or values[0] ** 2 < sum(v * v for v in values[1:])):
            return False
        if kind == "exp" and not all(_exp_member(values[i:i + 3])
                                     for i in range(0, len(values), 3)):
            return False
        if kind == "pow" and not _pow_member(values, next(alphas)):
            return False
    return True


def _ball(value: Fraction) -> flint.arb:
    return flint.arb(_fmpq(value))


def _exp_member(values: list[Fraction]) -> bool:
    """``(x, y, z)`` with ``y > 0``, ``y e^(x/y) <= z`` (or ``x <= 0 = y``, ``z >= 0``)."""
    x, y, z = values
    if y == 0:
        return x <= 0 and z >= 0
    with flint.ctx.workprec(BITS):
        return bool(y > 0 and _ball(z) - _ball(y) * (_ball(x) / _ball(y)).exp() >= 0)


def _pow_member(values: list[Fraction], alpha: float) -> bool:
    """``(x, y, z)`` with ``x, y >= 0``, ``x^a y^(1-a) >= |z|``."""
    x, y, z = values
    if x < 0 or y < 0:
        return False
    if x == 0 or y == 0:
        return z == 0
    with flint.ctx.workprec(BITS):
        a = _ball(Fraction(alpha))
        return bool(_ball(x) ** a * _ball(y) ** (1 - a) - abs(_ball(z)) >= 0)
