"""A certified upper bound on ``sup_{P in F} v.P`` from the derived dual's floating multipliers.

The set is cvxpy's canonical conic form of its membership
(:func:`rldp_models.uncertainty.derived.conic_description`)::

    (1)  A x + s = b,   s in K,   p = E^T x  (the columns of p among those of x),

with ``F`` a set of distributions (``p >= 0``, ``sum p = 1``). (1) is the set
itself when cvxpy represents every atom of the membership exactly (second-order,
exponential and 3-d power cones, as every set of this package does); an atom that
cvxpy approximates (``power`` with an irrational exponent) would make (1) a
different set, and the bound would be that set's. For any ``y``
write ``r = A^T y - E v`` (``E v`` puts ``v`` on the ``p`` columns). Then for every
feasible ``x``::

    (2)  v.p = (A^T y - r).x = y.(b - s) - r.x = b.y - y.s - r.x.

If ``y in K*`` then ``y.s >= 0``; if moreover ``r`` vanishes on every auxiliary
column (those not in ``p``) then ``r.x = r_p.p`` and, ``p`` lying in the simplex,

    (3)  v.p <= b.y - r_p.p <= b.y + max_j (-r_p)_j.

The solver's ``y`` satisfies neither exactly, and cvxpy's auxiliaries may be
unbounded, so a residual on them cannot be absorbed. Instead ``y`` is changed,
provably, into one that satisfies both:

(a) **Exact cancellation on the auxiliary columns** (4): ``y' = y + A_aux w`` with
    ``(A_aux^T A_aux) w = -A_aux^T y``, so ``A_aux^T y' = 0`` exactly. The system is
    solved in ball arithmetic (python-flint ``arb``, :data:`BITS` bits): the balls
    enclose the exact ``w`` and hence the exact ``y'`` (refused if ``A_aux^T A_aux``
    is not proved nonsingular). ``y'`` is within the solver's residual of ``y``.
(b) **An interior direction** ``e`` (5): ``A_aux^T e = 0`` and ``e - t 1_K in K*``
    with ``t > 0`` (:func:`interior_direction`, a small conic solve; ``1_K`` is
    :func:`cone_identity`). Its float solution gets the same exact cancellation
    (a); it is not trusted, only used.
(c) **Into K***: ``y'' = y' + delta e'`` for ``delta = 1e-13 max|y|, 4 times that,
    ...`` until every point of the balls of ``y''`` is proved in ``K*`` (nonnegative
    rows ``>= 0``; second-order heads ``>= ||tail||``; exponential dual blocks
    ``(u, v, w)``: ``u < 0``, ``-u e^(v/u) <= e w``; power dual blocks:
    ``u, v > 0``, ``(u/a)^a (v/(1-a))^(1-a) >= |w|``; zero rows are free). Since
    ``A_aux^T y'' = 0`` exactly, (3) holds at ``y''`` and is evaluated on its balls,
    its upper end returned. ``y'`` misses ``K*`` by about the solver's cone residual,
    so ``delta`` is about that residual over ``t``.

If nothing proves (no interior direction, a singular system, a ``y`` too far out
of ``K*``), the bound is refused and the simplex bound ``max v`` (valid on every
set of distributions) returned. The result is the smaller of (3) and ``max v``:
any ``y`` -- a solver's, a tampered one -- gives a valid upper bound, at worst the
trivial one; a good ``y`` gives one within about the solver's tolerance.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

import flint
import mpmath
import numpy as np

from rldp_models.exact import ExactVector, exact_entries
from rldp_models.uncertainty.derived_form import ConicDescription, dual_cone_constraints

BITS = 128
"""Precision of the balls."""

STEPS = tuple(4.0 ** k * 1e-13 for k in range(28))
"""Multiples ``delta`` of the interior direction tried in step (c), relative to ``max |y|``."""


def ball(value: float | Fraction) -> flint.arb:
    """The exact rational a double or fraction is, as a point ball."""
    exact = value if isinstance(value, Fraction) else Fraction(float(value))
    return flint.arb(flint.fmpq(exact.numerator, exact.denominator))


def mpf_above(value: flint.arb) -> mpmath.mpf:
    """The upper end of a ball as an :class:`mpmath.mpf` (exact: a dyadic rational)."""
    mantissa, exponent = value.upper().man_exp()
    return mpmath.mpf((int(mantissa), int(exponent)))


def cone_identity(description: ConicDescription) -> np.ndarray:
    """A point deep inside ``K*``: 1 on nonnegative rows, ``(1, 0..)`` on second-order
    blocks, ``(-1, 0, 1)`` on exponential and ``(1, 1, 0)`` on power blocks; 0 on zero rows."""
    identity = np.zeros(description.a_matrix.shape[0])
    for kind, rows in description.cones:
        if kind == "nonneg":
            identity[rows] = 1.0
        elif kind == "soc":
            identity[rows[0]] = 1.0
        elif kind == "exp":
            identity[rows[0::3]], identity[rows[2::3]] = -1.0, 1.0
        elif kind == "pow":
            identity[rows[:2]] = 1.0
    return identity


def interior_direction(description: ConicDescription,
                       solver: str = "CLARABEL") -> np.ndarray | None:
    """Step (b)'s ``e``: ``A_aux^T e = 0`` and ``e - t 1_K in K*`` with ``t > 0`` maximal (floats).

    None when the solver finds no such ``e`` (no strictly feasible dual).
    """
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

    m, n = description.a_matrix.shape
    auxiliary = np.setdiff1d(np.arange(n), description.columns)
    e, t = cp.Variable(m), cp.Variable()
    inside = cp.reshape(e - t * cone_identity(description), (m, 1), order="F")
    constraints = [*dual_cone_constraints(description, inside), cp.abs(e) <= 1, t <= 1]
    if auxiliary.size:
        constraints.append(description.a_matrix[:, auxiliary].T @ e == 0)
    problem = cp.Problem(cp.Maximize(t), constraints)
    try:
        problem.solve(solver=solver)
    except cp.error.SolverError:
        return None
    if problem.status != cp.OPTIMAL or t.value is None or float(t.value) <= 0:
        return None
    return np.asarray(e.value, dtype=float)


def proved_in_dual_cone(description: ConicDescription, y: Sequence[flint.arb]) -> bool:
    """Every point of the balls ``y`` lies in ``K*`` (step (c))."""
    alphas = iter(description.alphas)
    e = flint.arb.const_e()
    for kind, rows in description.cones:
        if kind == "nonneg" and not all(y[i] >= 0 for i in rows):
            return False
        if kind == "soc":
            tail = sum((y[i] * y[i] for i in rows[1:]), flint.arb(0))
            if not y[rows[0]] - tail.sqrt() >= 0:
                return False
        if kind == "exp":
            for first in rows[::3]:
                u, v, w = y[first], y[first + 1], y[first + 2]
                if not (u < 0 and -u * (v / u).exp() - e * w <= 0):
                    return False
        if kind == "pow":
            alpha = ball(next(alphas))
            u, v, w = (y[i] for i in rows)
            if not (u > 0 and v > 0 and
                    (u / alpha) ** alpha * (v / (1 - alpha)) ** (1 - alpha) - abs(w) >= 0):
                return False
    return True


def dense_balls(description: ConicDescription) -> flint.arb_mat:
    """``A`` as an exact ball matrix."""
    dense = description.a_matrix.toarray()
    return flint.arb_mat([[ball(x) for x in row] for row in dense])


def cancelled(a_balls: flint.arb_mat, auxiliary: np.ndarray,
              y: np.ndarray) -> list[flint.arb] | None:
    """Balls around the exact ``y + A_aux w`` with ``A_aux^T (y + A_aux w) = 0`` (4).

    None if ``A_aux^T A_aux`` is not proved nonsingular.
    """
    m = a_balls.nrows()
    y_balls = flint.arb_mat([[ball(x)] for x in y])
    if auxiliary.size == 0:
        return [y_balls[i, 0] for i in range(m)]
    a_aux = flint.arb_mat([[a_balls[i, int(j)] for j in auxiliary] for i in range(m)])
    try:
        w = (a_aux.transpose() * a_aux).solve(-(a_aux.transpose() * y_balls))
    except ZeroDivisionError:
        return None
    corrected = y_balls + a_aux * w
    return [corrected[i, 0] for i in range(m)]


def simplex_bound(values: list[Fraction]) -> mpmath.mpf:
    """``max v``: the support of the simplex, valid on every set of distributions."""
    return mpf_above(ball(max(values)))


def derived_certified_bound(description: ConicDescription, v: ExactVector, y: np.ndarray,
                            direction: np.ndarray | None = None) -> mpmath.mpf:
    """An upper bound on ``sup_{P in F} v.P`` proved from any multipliers ``y`` (module docstring).

    Parameters
    ----------
    description
        The set's canonical conic form (1).
    v
        The objective, doubles or fractions taken exactly.
    y
        Multipliers of the derived dual, one per row of ``A`` (a solver's floats).
    direction
        Step (b)'s ``e`` (:func:`interior_direction`; found here when not given).
        Not trusted: everything it gives is proved.

    Returns
    -------
    mpmath.mpf
        The smaller of (3) at the proved ``y''`` and ``max v``.
    """
    values = exact_entries(v)
    fallback = simplex_bound(values)
    y = np.asarray(y, dtype=float).ravel()
    m, n = description.a_matrix.shape
    if y.size != m or not np.all(np.isfinite(y)):
        return fallback
    if direction is None:
        direction = interior_direction(description)
    if direction is None:
        return fallback
    auxiliary = np.setdiff1d(np.arange(n), description.columns)
    scale = max(float(np.abs(y).max(initial=0.0)), 1e-300)
    with flint.ctx.workprec(BITS):
        a_balls = dense_balls(description)
        base, inward = cancelled(a_balls, auxiliary, y), cancelled(a_balls, auxiliary, direction)
        if base is None or inward is None:
            return fallback
        for step in STEPS:
            delta = ball(step * scale)
            shifted = [b + delta * e for b, e in zip(base, inward)]
            if proved_in_dual_cone(description, shifted):
                bound = dual_bound(description, a_balls, shifted, values)
                return min(mpf_above(bound), fallback) if bound.is_finite() else fallback
    return fallback


def dual_bound(description: ConicDescription, a_balls: flint.arb_mat,
               y: list[flint.arb], values: list[Fraction]) -> flint.arb:
    """(3): ``b.y + max_j (-r_p)_j`` with ``r_p = A_p^T y - v``, on balls."""
    m = len(y)
    objective = sum((ball(description.b_vector[i]) * y[i] for i in range(m)), flint.arb(0))
    worst: flint.arb | None = None
    for column, value in zip(description.columns, values):
        applied = sum((a_balls[i, int(column)] * y[i] for i in range(m)), flint.arb(0))
        excess = (ball(value) - applied).upper()  # -r_p, rounded up to a point
        worst = excess if worst is None or excess > worst else worst
    return objective + worst if worst is not None else objective
