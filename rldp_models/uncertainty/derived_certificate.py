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

(a) **Exact cancellation on the auxiliary columns** (4), in two kinds. An auxiliary
    column ``j`` with a *private row* ``i`` (a zero or nonnegative row whose only
    entry is in column ``j``, e.g. a bound ``x_j >= 0``) is cancelled by setting
    ``y_i = -(sum_{k != i} A_kj y_k) / A_ij``. The other auxiliary columns ``S`` get
    ``y' = y + A_S w`` with ``(A_S^T A_S) w = -A_S^T y`` (no private row has an
    entry in ``S``, so the two steps do not interfere). Everything is computed in
    ball arithmetic (python-flint ``arb``, :data:`BITS` bits, ``A`` kept sparse and
    ``(A_S^T A_S)^-1`` enclosed once per set): the balls enclose the exact ``y'``,
    for which ``A_aux^T y' = 0`` (refused if ``A_S^T A_S`` is not proved
    nonsingular). ``y'`` is within the solver's residual of ``y``.
(b) **An interior direction** ``e`` (5): ``A_aux^T e = 0`` and ``e - t 1_K in K*``
    with ``t > 0`` largest per unit of the cost of moving along ``e`` in (3)
    (:func:`interior_direction`, a small conic solve; ``1_K`` is
    :func:`cone_identity`). Its float solution gets the same exact cancellation
    (a); it is not trusted, only used.
(c) **Into K***: ``y'' = y' + delta e'`` for ``delta = 1e-13 max|y|, twice that,
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
import scipy.sparse as sparse

from rldp_models.exact import ExactVector, exact_entries
from rldp_models.uncertainty.derived_form import ConicDescription, dual_cone_constraints

BITS = 128
"""Precision of the balls."""

DIRECTION_LIMIT = 1e6
"""Bound on the entries of step (b)'s ``e`` (its cost normalisation bounds it already on sets
with a member off every cone's apex)."""

STEPS = tuple(2.0 ** k * 1e-13 for k in range(56))
"""Multiples ``delta`` of the interior direction tried in step (c), relative to ``max |y|``."""

BISECTIONS = 3
"""Halvings of step (c)'s ``delta`` (in doubles) between the first step whose midpoints lie in
``K*`` and the one before."""


def ball(value: float | Fraction) -> flint.arb:
    """The exact rational a double or fraction is, as a point ball (a double converts to an
    ``arb`` exactly: its midpoint is the double, its radius 0)."""
    if isinstance(value, Fraction):
        return flint.arb(flint.fmpq(value.numerator, value.denominator))
    return flint.arb(float(value))


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
    """Step (b)'s ``e``: ``A_aux^T e = 0`` and ``e - t 1_K in K*`` with ``t > 0`` maximal per unit
    of what moving along ``e`` costs in (3), ``b.e + max_j (-A_p^T e)_j <= 1`` (floats).

    None when the solver finds no such ``e`` (no strictly feasible dual).
    """
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

    m, n = description.a_matrix.shape
    auxiliary = np.setdiff1d(np.arange(n), description.columns)
    e, t = cp.Variable(m), cp.Variable()
    inside = cp.reshape(e - t * cone_identity(description), (m, 1), order="F")
    cost = description.b_vector @ e - description.a_matrix[:, description.columns].T @ e
    constraints = [*dual_cone_constraints(description, inside), cost <= 1,
                   cp.abs(e) <= DIRECTION_LIMIT, t <= 1]
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


def float_in_dual_cone(description: ConicDescription, y: np.ndarray) -> bool:
    """:func:`proved_in_dual_cone`'s test in doubles (a guess: nothing is proved by it)."""
    alphas = iter(description.alphas)
    for kind, rows in description.cones:
        block = y[rows]
        if kind == "nonneg" and block.min(initial=0.0) < 0:
            return False
        if kind == "soc" and block[0] < np.linalg.norm(block[1:]):
            return False
        if kind == "exp":
            u, v, w = block[0::3], block[1::3], block[2::3]
            with np.errstate(all="ignore"):
                if not np.all((u < 0) & (-u * np.exp(v / u) <= np.e * w)):
                    return False
        if kind == "pow":
            alpha = next(alphas)
            u, v, w = block
            if not (u > 0 and v > 0 and
                    (u / alpha) ** alpha * (v / (1 - alpha)) ** (1 - alpha) >= abs(w)):
                return False
    return True


def simplex_bound(values: list[Fraction]) -> mpmath.mpf:
    """``max v``: the support of the simplex, valid on every set of distributions."""
    return mpf_above(ball(max(values)))




class DualCertifier:
    """Steps (a)-(c) for one set, its sparse ``A`` in balls and step (a)'s inverse kept.

    Parameters
    ----------
    description
        The set's canonical conic form (1).
    direction
        Step (b)'s ``e`` (:func:`interior_direction`; found here when not given).
        Not trusted: everything it gives is proved.
    exact_b
        ``b`` as exact rationals when the doubles of ``description`` round them (a set
        from data at ``Phat = counts / n``); default the doubles themselves.
    """

    def __init__(self, description: ConicDescription, direction: np.ndarray | None = None,
                 exact_b: Sequence[Fraction] | None = None) -> None:
        self.description = description
        matrix = sparse.csc_matrix(description.a_matrix)
        self.size = matrix.shape[0]
        self.entries = [[(int(i), ball(a)) for i, a in
                         zip(matrix.indices[matrix.indptr[j]:matrix.indptr[j + 1]],
                             matrix.data[matrix.indptr[j]:matrix.indptr[j + 1]]) if a != 0]
                        for j in range(matrix.shape[1])]
        b = description.b_vector if exact_b is None else exact_b
        self.b_balls = [(int(i), ball(x)) for i, x in enumerate(b) if x != 0]
        auxiliary = np.setdiff1d(np.arange(matrix.shape[1]), description.columns)
        self.private = private_rows(description, matrix, auxiliary)
        self.shared = [int(j) for j in auxiliary if int(j) not in self.private]
        self.inverse = self._shared_inverse()
        found = interior_direction(description) if direction is None else direction
        self.direction = None if found is None else self.cancel(found)

    def _shared_inverse(self) -> flint.arb_mat | None:
        """``(A_S^T A_S)^-1`` in balls (None if not proved nonsingular)."""
        if not self.shared:
            return flint.arb_mat(0, 0)
        with flint.ctx.workprec(BITS):
            columns = [dict(self.entries[j]) for j in self.shared]
            gram = flint.arb_mat([[sum((a * other[i] for i, a in first.items() if i in other),
                                       flint.arb(0)) for other in columns] for first in columns])
            try:
                return gram.inv()
            except ZeroDivisionError:
                return None

    def applied(self, y: Sequence[flint.arb], column: int) -> flint.arb:
        """``(A^T y)_column`` on balls."""
        return sum((a * y[i] for i, a in self.entries[column]), flint.arb(0))

    def cancel(self, y: np.ndarray) -> list[flint.arb] | None:
        """Balls around the exact ``y'`` of step (a) (None if it cannot be proved)."""
        if self.inverse is None:
            return None
        with flint.ctx.workprec(BITS):
            balls = [ball(x) for x in np.asarray(y, dtype=float).ravel()]
            if self.shared:
                residual = flint.arb_mat([[self.applied(balls, j)] for j in self.shared])
                w = -(self.inverse * residual)
                for k, j in enumerate(self.shared):
                    for i, a in self.entries[j]:
                        balls[i] += a * w[k, 0]
            for j, i in self.private.items():
                own = dict(self.entries[j])[i]
                balls[i] = -(self.applied(balls, j) - own * balls[i]) / own
            return balls

    def bound(self, v: ExactVector, y: np.ndarray) -> mpmath.mpf:
        """The smaller of (3) at the proved ``y''`` and ``max v`` (module docstring)."""
        values = exact_entries(v)
        fallback = simplex_bound(values)
        y = np.asarray(y, dtype=float).ravel()
        if y.size != self.size or not np.all(np.isfinite(y)) or self.direction is None:
            return fallback
        base = self.cancel(y)
        if base is None:
            return fallback
        scale = max(float(np.abs(y).max(initial=0.0)), 1e-300)
        with flint.ctx.workprec(BITS):
            shifted = self._into_dual_cone(base, scale)
            if shifted is None:
                return fallback
            found = self.dual_bound(shifted, values)
            return min(mpf_above(found), fallback) if found.is_finite() else fallback

    def _into_dual_cone(self, base: list[flint.arb], scale: float) -> list[flint.arb] | None:
        """``y'' = y' + delta e'`` proved in ``K*`` (step (c)): first at the ``delta`` that
        :meth:`_float_step` finds, then at each of :data:`STEPS` (times ``scale``) from the
        first whose midpoints lie in ``K*``, until one proves; None if none does."""
        assert self.direction is not None  # bound() returns before
        first, found = self._float_step(base, scale)
        for delta in (found, *(step * scale for step in STEPS[first:])):
            shifted = [b + ball(delta) * e for b, e in zip(base, self.direction)]
            if proved_in_dual_cone(self.description, shifted):
                return shifted
        return None

    def _float_step(self, base: list[flint.arb], scale: float) -> tuple[int, float]:
        """The index of the first of :data:`STEPS` at which the balls' midpoints lie in ``K*``
        in doubles (:func:`float_in_dual_cone`), and a ``delta`` halved :data:`BISECTIONS`
        times between it and the step before, still inside in doubles. Only a shortcut (the
        proof decides, and goes on past it if needed): in balls, each try is a pass over
        every row; and each step costs its ``delta`` times the cost of ``e`` in (3), so a
        step twice too long spent up to half of a certificate's excess (V3 on Adult race x
        marital-status: 1e-10 of a bound where 1e-10 / P(s) is the bound's loss)."""
        assert self.direction is not None  # bound() returns before
        middle = np.array([float(b.mid()) for b in base])
        direction = np.array([float(e.mid()) for e in self.direction])

        def inside(delta: float) -> bool:
            return float_in_dual_cone(self.description, middle + delta * scale * direction)

        first = next((index for index, step in enumerate(STEPS) if inside(step)), 0)
        low, high = (STEPS[first - 1] if first > 0 else 0.0), STEPS[first]
        for _ in range(BISECTIONS):
            low, high = (low, (low + high) / 2) if inside((low + high) / 2) else \
                ((low + high) / 2, high)
        return first, high * scale

    def dual_bound(self, y: list[flint.arb], values: list[Fraction]) -> flint.arb:
        """(3): ``b.y + max_j (-r_p)_j`` with ``r_p = A_p^T y - v``, on balls."""
        objective = sum((b * y[i] for i, b in self.b_balls), flint.arb(0))
        worst: flint.arb | None = None
        for column, value in zip(self.description.columns, values):
            excess = (ball(value) - self.applied(y, int(column))).upper()  # -r_p, rounded up
            worst = excess if worst is None or excess > worst else worst
        return objective + worst if worst is not None else objective


def private_rows(description: ConicDescription, matrix: sparse.csc_matrix,
                 auxiliary: np.ndarray) -> dict[int, int]:
    """Step (a)'s private row of each auxiliary column that has one (zero rows first)."""
    rows = sparse.csr_matrix(matrix)
    counts = np.diff(rows.indptr)
    kinds = {int(i): kind for kind, block in description.cones for i in block
             if kind in ("zero", "nonneg")}
    wanted = set(int(j) for j in auxiliary)
    private: dict[int, int] = {}
    for i in sorted(kinds, key=lambda r: kinds[r] != "zero"):
        if counts[i] == 1:
            j = int(rows.indices[rows.indptr[i]])
            if j in wanted and j not in private and rows.data[rows.indptr[i]] != 0:
                private[j] = i
    return private


def derived_certified_bound(description: ConicDescription, v: ExactVector, y: np.ndarray,
                            direction: np.ndarray | None = None) -> mpmath.mpf:
    """An upper bound on ``sup_{P in F} v.P`` proved from any multipliers ``y`` (module docstring).

    One-off form of :meth:`DualCertifier.bound` (a set keeps its certifier).

    Parameters
    ----------
    description
        The set's canonical conic form (1).
    v
        The objective, doubles or fractions taken exactly.
    y
        Multipliers of the derived dual, one per row of ``A`` (a solver's floats).
    direction
        Step (b)'s ``e`` (found when not given).

    Returns
    -------
    mpmath.mpf
        The smaller of (3) at the proved ``y''`` and ``max v``.
    """
    return DualCertifier(description, direction).bound(v, y)
