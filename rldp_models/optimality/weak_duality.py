"""A proven lower bound on ``min c.x + offset  s.t.  A x + s = b,  s in K`` by weak duality.

For ``y`` in the dual cone ``K*`` and any feasible ``x`` (``s = b - A x in K``, so
``y.s >= 0``), ``c.x >= c.x - y.(b - A x) = r.x - b.y`` with ``r = c + A^T y``: the
dual of this form is ``max -b.y  s.t.  A^T y + c = 0, y in K*``, Clarabel's and
cvxpy's convention (Clarabel's documentation, "Problem format"). With a box
``l_j <= x_j <= u_j`` that every feasible point satisfies (protocol entries lie in
``[0, 1]``), ``r_j x_j >= min(r_j l_j, r_j u_j)``; a column without a finite box needs
``r_j = 0`` exactly. So, for any ``y`` in ``K*`` that is exactly feasible on the free
columns,

    ``optimum >= offset - b.y + sum_{j bounded} min(r_j l_j, r_j u_j)``

and where columns ``J`` lie in the probability simplex (a protocol's row), their terms
are replaced by ``min_{j in J} r_j``, the least value of ``r.x`` over the simplex

(Neumaier and Shcherbina, "Safe bounds in linear and mixed-integer linear
programming", Math. Program. 99, 2004, eq. 5, for linear programs; Jansson, "Rigorous
lower and upper bounds in linear programming", SIAM J. Optim. 14, 2004, Theorem 1, with
free variables; the same argument holds for any closed convex cone).

:func:`proven_lower_bound` turns an approximate dual into such a ``y``: it projects it
into ``K*`` (:func:`~rldp_models.optimality.cones.project`), zeroes the negligible
duals of inactive groups (:mod:`~rldp_models.optimality.inactive`), cancels the residual on
the free columns exactly (:mod:`~rldp_models.optimality.cancellation`), proves that the
whole enclosure of the corrected dual lies in ``K*``
(:func:`~rldp_models.optimality.cones.violations`) and, where it does not, moves the
offending cones along an interior direction of ``K*`` and starts the correction again
(the next round's least change takes the move's effect on the free columns back from
the moves with room). Where that proves nothing, it starts again from the dual with the
second-order cones whose rows carry no ``b`` lifted inside (:func:`lifted`, :data:`LIFTED`).
Every quantity is enclosed (:mod:`~rldp_models.optimality.enclosure`); the last sums
are python-flint ``arb`` balls. Each round checks the caller's time limit
(:func:`solvers.deadline.check`). The bound is for the program with exactly the given
floating point data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction

import flint
import numpy as np
import scipy.sparse as sp

from rldp_models.optimality.cancellation import NoPivots, choose_pivots, solve
from rldp_models.optimality.cones import KINDS, SOC, ConeBlocks, DualCones, interior_direction, \
    project, tail_norms, violations
from rldp_models.optimality.enclosure import Enclosure, dot, total, transpose_product
from rldp_models.optimality.inactive import AFFORDABLE, zero_inactive
from rldp_models.optimality.least_change import least_change
from rldp_models.optimality.lineality import implied_columns
from rldp_models.optimality.moves import moves
from rldp_models.optimality.simple_bounds import implied_box
from solvers import deadline

MOVES = 12
"""Rounds of moving offending cones inward before giving up (each at least doubles)."""
REFINEMENTS = 2
"""Floating point corrections (:mod:`~rldp_models.optimality.least_change`) per round."""
STALL = 3
"""Rounds without fewer cones outside ``K*`` after which an attempt gives up."""
SIGN_ROUNDS = 3
"""Tries of a domain whose one-sided columns' residual signs fail, each with those columns
cancelled exactly instead (:func:`_attempt`)."""
MOVE_FLOOR = 1e-14
"""A move is at least this fraction of the cone's largest dual entry (or of 1)."""
LIFT = 1e-10
"""How far :func:`lifted` raises a second-order cone's dual inside (Clarabel's tolerance in
the toolkit's solves). V3 on the hair x eye table (4x4): not proved without it (rank
deficient); proved with relative gap 8.6e-9 at 1e-11, 2.6e-8 at 1e-10, 1.9e-7 at 1e-9,
1.9e-6 at 1e-8 (the gap grows as the lift); not proved at 1e-12."""
LIFTED = (0.0, 1e-8, np.inf)
"""Which cones :func:`lifted` raises, tried in turn: none (RURP 3x5's direct form proves
only so), those whose dual entries are all below 1e-8 (inactive: the solver's noise), then
every one. On Adult race x age in 11 bands, lifting every cone at once lost V4's proof
(7.9e-6) and lifting only the inactive ones V5's (1.1e-5); on race x workclass the last
proves V1 (2e-6, not proved otherwise); V3 on the hair table proves 1.1e-8 at the second."""


@dataclass(frozen=True)
class _Domain:
    """What every feasible ``x`` satisfies: ``lower <= x <= upper`` (infinite: free), and
    each row of ``simplices`` (column indices) lies in the probability simplex."""

    lower: np.ndarray
    upper: np.ndarray
    simplices: np.ndarray


@dataclass(frozen=True)
class LowerBound:
    """A proven lower bound on the optimum, or why there is none.

    ``value`` is an ``arb`` ball containing a number that is at most the optimum, so
    every point of the ball from its lower end up is a valid claim only at that end:
    :attr:`lower` is the proven bound as a float (rounded down). ``reason`` is ``None``
    when proved, else a sentence naming the column or cone block that failed.
    ``moves`` counts the rounds of inward moves; ``free`` and ``core`` the columns
    cancelled exactly and those solved densely; ``details`` the bound's two terms
    (``offset - b.y`` and the box and simplex term) and the largest correction.
    ``fixed`` names the column blocks held at 0 along a lineality of the data read as
    their rationals (:mod:`~rldp_models.optimality.lineality`): the bound is then on the
    program with those columns fixed (None: on the program itself).
    """

    value: flint.arb | None
    reason: str | None = None
    moves: int = 0
    free: int = 0
    core: int = 0
    details: dict[str, float] = field(default_factory=dict)
    fixed: str | None = None

    @property
    def proved(self) -> bool:
        return self.value is not None

    @property
    def lower(self) -> float:
        """The proven bound as a float at or below it (``-inf`` when not proved)."""
        if self.value is None:
            return -np.inf
        return float(np.nextafter(float(self.value.lower()), -np.inf))

    def relative_gap(self, upper: float) -> float:
        """``(upper - lower) / max(1, |upper|)``, rounded up (``inf`` when not proved)."""
        if self.value is None:
            return np.inf
        gap = (flint.arb(upper) - self.value) / max(1.0, abs(upper))
        return float(np.nextafter(float(gap.upper()), np.inf))


def proven_lower_bound(c: np.ndarray, A: sp.spmatrix, b: np.ndarray, cones: DualCones,
                       y: np.ndarray, lower: np.ndarray | None = None,
                       upper: np.ndarray | None = None, offset: float = 0.0,
                       names: dict[str, np.ndarray] | None = None,
                       simplices: np.ndarray | None = None,
                       exact: Mapping[float, Fraction] | None = None) -> LowerBound:
    """A lower bound on ``min c.x + offset, A x + s = b, s in K`` proved from the dual ``y``.

    Parameters
    ----------
    c, A, b, cones
        The program (``cones`` in row order, :class:`~rldp_models.optimality.cones.DualCones`).
    y
        An approximate dual (``A^T y + c ~ 0``, ``y ~ in K*``), e.g. Clarabel's ``z``.
    lower, upper
        A box every feasible ``x`` satisfies (default: none, every column free);
        infinite entries mark free columns, whose residual is cancelled exactly.
    offset
        The objective's constant.
    names
        Column blocks by name (e.g. ``ConicProgram.variable_blocks``), for the reason
        when the bound is not proved.
    simplices
        Groups of columns (rows of a 2-d index array) that lie in the probability simplex
        at every feasible point (a protocol's rows). A group contributes ``min_j r_j``
        instead of the box's ``sum_j min(0, r_j)``: the solver's residual costs once
        per row, not once per entry.
    exact
        The rationals some data are roundings of (a double to its rational, e.g. each
        ``counts / n``): a free direction of the data read so is fixed at 0
        (:mod:`~rldp_models.optimality.lineality`).

    Returns
    -------
    LowerBound
        Proved (module docstring), or with a reason and no number.
    """
    A = sp.csc_matrix(A, dtype=float, copy=True)
    A.eliminate_zeros()
    n = A.shape[1]
    c, b = np.asarray(c, dtype=float), np.asarray(b, dtype=float)
    lower = np.full(n, -np.inf) if lower is None else np.array(lower, dtype=float)
    upper = np.full(n, np.inf) if upper is None else np.array(upper, dtype=float)
    groups = np.zeros((0, 1), dtype=np.int64) if simplices is None \
        else np.atleast_2d(np.asarray(simplices, dtype=np.int64))
    lower[groups.ravel()] = np.maximum(lower[groups.ravel()], 0.0)
    upper[groups.ravel()] = np.minimum(upper[groups.ravel()], 1.0)
    if A.shape != (b.size, c.size) or cones.rows != b.size or np.shape(y) != b.shape:
        raise ValueError(f"inconsistent program: A {A.shape}, c {c.shape}, b {b.shape}, "
                         f"cones cover {cones.rows} rows, y {np.shape(y)}")
    blocks = ConeBlocks.of(cones)
    tight_lower, tight_upper, held = implied_box(A, b, blocks, lower, upper)
    attempts = [(lower, upper, np.zeros(b.size, dtype=bool))]
    if held.any():  # the rows of one entry as a box, where the rows' own duals fail
        attempts.append((tight_lower, tight_upper, held))
    for box_lower, box_upper, rows in attempts:
        domain = _Domain(box_lower, box_upper, groups)
        bound = _attempt(A, c, b, blocks, np.asarray(y, float), domain, rows, offset, names,
                         exact)
        if bound.proved:
            return bound
    return bound


def _attempt(A: sp.csc_matrix, c: np.ndarray, b: np.ndarray, blocks: ConeBlocks,
             y: np.ndarray, domain: "_Domain", held: np.ndarray, offset: float,
             names: dict[str, np.ndarray] | None,
             exact: Mapping[float, Fraction] | None) -> LowerBound:
    """The bound over ``domain`` with the duals of the ``held`` rows (its simple bounds)
    at 0: columns without a finite side cancelled exactly, after zeroing negligible
    inactive groups at each affordable cost (:data:`AFFORDABLE`) in turn."""
    wrong = np.zeros(0, dtype=np.int64)
    for _ in range(SIGN_ROUNDS):
        try:
            return _over(A, c, b, blocks, y, domain, held, offset, names, exact)
        except _WrongSign as error:  # cancel those columns' residual exactly instead
            wrong = error.columns
            lower, upper = domain.lower.copy(), domain.upper.copy()
            lower[wrong], upper[wrong] = -np.inf, np.inf
            domain = _Domain(lower, upper, domain.simplices)
    return _not_proved(f"{_label(wrong, names)}: bounded on one side, with a residual of "
                       "the sign that leaves them unbounded below", 0)


class _WrongSign(ValueError):
    """Columns bounded on one side whose residual is not proved of the sign the bound
    needs: their box is dropped (a relaxation, so any bound stands) and their residual
    cancelled exactly."""

    def __init__(self, columns: np.ndarray) -> None:
        super().__init__(f"{columns.size} columns with a residual of the wrong sign")
        self.columns = columns


def _over(A: sp.csc_matrix, c: np.ndarray, b: np.ndarray, blocks: ConeBlocks, y: np.ndarray,
          domain: "_Domain", held: np.ndarray, offset: float,
          names: dict[str, np.ndarray] | None,
          exact: Mapping[float, Fraction] | None) -> LowerBound:
    """One try of :func:`_attempt` over a fixed ``domain``."""
    lower, upper = domain.lower, domain.upper
    free = np.flatnonzero(~np.isfinite(lower) & ~np.isfinite(upper))
    free, unreachable = _split_empty(A, c, free)
    if unreachable.size:
        return _not_proved(f"{_label(unreachable, names)}: an unbounded column with a cost "
                           f"and no constraint", free.size)
    projected = np.where(held, 0.0, project(blocks, y))
    reach = np.where(np.isfinite(lower) & np.isfinite(upper),
                     np.maximum(np.abs(lower), np.abs(upper)), 0.0)
    for affordable in AFFORDABLE:
        start, cancel, frozen = zero_inactive(A, b, c, blocks, projected, free, reach,
                                              affordable)
        bound = _cancelled(A, c, b, blocks, start, cancel, frozen | held, domain, offset,
                           names, exact)
        if bound.proved:
            return bound
    return bound


def _cancelled(A: sp.csc_matrix, c: np.ndarray, b: np.ndarray, blocks: ConeBlocks,
               y: np.ndarray, cancel: np.ndarray, frozen: np.ndarray, domain: "_Domain",
               offset: float, names: dict[str, np.ndarray] | None,
               exact: Mapping[float, Fraction] | None) -> LowerBound:
    """:func:`_moved_until_inside`; where the free columns admit no square system, again
    without the columns whose residual the others' implies, or that a lineality of the
    data read as ``exact``'s rationals fixes at 0
    (:mod:`~rldp_models.optimality.lineality`), while there are such columns. The
    lineality is of the rows not frozen: the dual is 0 on the frozen ones, so they add
    nothing to any residual (two multipliers that differ only in their own sign rows)."""
    fixed = np.zeros(0, dtype=np.int64)
    while True:
        try:
            bound = _moved_until_inside(A, c, b, blocks, y, cancel, frozen, domain, offset)
            return replace(bound, fixed=_label(fixed, names)) if fixed.size else bound
        except NoPivots as error:
            active = sp.csc_matrix(sp.diags((~frozen).astype(float)) @ A)  # y is 0 on frozen
            active.eliminate_zeros()
            implied, held = implied_columns(active, c, error.columns, exact)
            if implied.size + held.size == 0:
                return _not_proved(f"{_label(error.columns, names)}: {error}", cancel.size)
            cancel, fixed = np.setdiff1d(cancel, np.union1d(implied, held)), \
                np.union1d(fixed, held)


def lifted(blocks: ConeBlocks, b: np.ndarray, y: np.ndarray, below: float) -> np.ndarray:
    """``y`` with the head of every second-order cone whose rows have ``b = 0`` and whose
    dual entries are all below ``below`` raised to at least :data:`LIFT` above its tail's
    norm.

    Such a cone's dual adds nothing to ``b.y``, and where the solver left it at its
    boundary with entries of order its tolerance (an inactive cone: the dual of ``y in K*``
    for a set's derived dual ``y`` strictly inside), its only moves scale or rotate
    entries of 1e-10, so the free columns it touches had no well-conditioned square
    system ("rank deficient"), or the cancellation pushed it out again at every inward
    move. Lifted, it offers unit moves with room ``LIFT``.
    """
    soc = blocks.of_kind(SOC)
    if soc.size == 0:
        return y
    carries_b = np.bincount(blocks.block, weights=(b != 0).astype(float),
                            minlength=blocks.starts.size)[soc] > 0
    heads, norms = blocks.starts[soc], tail_norms(blocks, y)[soc]
    low = ~carries_b & (y[heads] - norms < LIFT) & (np.maximum(np.abs(y[heads]), norms) < below)
    lifted_y = y.copy()
    lifted_y[heads[low]] = norms[low] + LIFT
    return lifted_y


def _moved_until_inside(A: sp.csc_matrix, c: np.ndarray, b: np.ndarray, blocks: ConeBlocks,
                        y: np.ndarray, free: np.ndarray, frozen: np.ndarray,
                        domain: _Domain, offset: float) -> LowerBound:
    """:func:`_inside_after_moves` from ``y`` :func:`lifted` as each of :data:`LIFTED` says,
    until one proves a bound (a pass whose free columns admit no square system gives way to
    the next; the last one's reaches the caller)."""
    for k, below in enumerate(LIFTED):
        try:
            bound = _inside_after_moves(A, c, b, blocks, lifted(blocks, b, y, below), free,
                                        frozen, domain, offset)
        except NoPivots:
            if k == len(LIFTED) - 1:
                raise
            continue
        if bound.proved:
            break
    return bound


def _inside_after_moves(A: sp.csc_matrix, c: np.ndarray, b: np.ndarray, blocks: ConeBlocks,
                        y: np.ndarray, free: np.ndarray, frozen: np.ndarray,
                        domain: _Domain, offset: float) -> LowerBound:
    """Cancel, prove membership, move the offending cones inward; repeat (module docstring)."""
    direction = interior_direction(blocks)
    history: list[int] = []
    scale = np.maximum.reduceat(np.maximum(np.abs(y), 1.0), blocks.starts) \
        if blocks.starts.size else np.zeros(0)
    for round_ in range(MOVES + 1):
        deadline.check("the weak-duality bound")
        for _ in range(REFINEMENTS):
            y = _refined(A, c, blocks, y, free, frozen)
        residual = Enclosure.exact(c) + transpose_product(A, Enclosure.exact(y))
        directions = moves(blocks, y, frozen)
        pivots = choose_pivots(A, free, directions, residual.mid)
        theta = solve(pivots, residual[free])
        delta = transpose_product(directions.V.T, theta)
        dual = Enclosure.exact(y) + delta
        outside = violations(blocks, dual)
        if not outside.any():
            found = _bound(A, b, domain, residual, delta, dual, offset)
            if isinstance(found, np.ndarray):
                raise _WrongSign(found)
            bound, terms = found
            terms["largest correction"] = float(np.abs(delta.mid).max(initial=0.0))
            return LowerBound(bound, moves=round_, free=free.size,
                              core=pivots.core_columns.size, details=terms)
        history.append(int(np.count_nonzero(outside)))
        if len(history) > STALL and history[-1] >= history[-1 - STALL]:
            break
        step = np.where(outside > 0, 2.0**round_ * (2.0 * outside + MOVE_FLOOR * scale), 0.0)
        y = y + step[blocks.block] * direction
    worst = int(np.argmax(outside))
    return _not_proved(f"the dual stays outside K* after {len(history)} inward moves: "
                       f"{int(np.count_nonzero(outside))} cones, the worst a "
                       f"{KINDS[blocks.block_kind[worst]]} cone at row {blocks.starts[worst]}",
                       free.size)


def _refined(A: sp.csc_matrix, c: np.ndarray, blocks: ConeBlocks, y: np.ndarray,
             free: np.ndarray, frozen: np.ndarray) -> np.ndarray:
    """``y`` after one least change and projection, if that lowered the largest residual
    on the free columns (projecting a large change back can raise it: 10x20 RURP)."""
    residual = c + A.T @ y
    moved = project(blocks, y + least_change(A, free, moves(blocks, y, frozen), residual))
    before = np.abs(residual[free]).max(initial=0.0)
    return moved if np.abs((c + A.T @ moved)[free]).max(initial=0.0) < before else y


def _bound(A: sp.csc_matrix, b: np.ndarray, domain: "_Domain", residual: Enclosure,
           delta: Enclosure, dual: Enclosure, offset: float
           ) -> tuple[flint.arb, dict[str, float]] | np.ndarray:
    """``offset - b.y + sum_{j boxed} min_box r_j x_j + sum_{simplices} min_j r_j``, as
    an ``arb`` ball (module docstring), and its two terms as floats. A column bounded on
    one side only (:mod:`~rldp_models.optimality.simple_bounds`) contributes ``r_j l_j``
    when ``r_j >= 0`` is proved (``r_j u_j`` when ``r_j <= 0``); where that sign is not
    proved those columns are returned instead of a bound."""
    lower, upper = domain.lower, domain.upper
    bounded = np.flatnonzero(np.isfinite(lower) | np.isfinite(upper))
    moved = np.flatnonzero((delta.mid != 0) | (delta.rad != 0))
    r = residual[bounded] + transpose_product(A[moved][:, bounded], delta[moved])
    low, high = r.lower(), r.upper()
    below, above = lower[bounded], upper[bounded]
    wrong = (~np.isfinite(below) & (high > 0)) | (~np.isfinite(above) & (low < 0))
    if wrong.any():
        return bounded[wrong]
    below, above = np.where(np.isfinite(below), below, above), \
        np.where(np.isfinite(above), above, below)
    products = np.stack([low * below, low * above, high * below, high * above])
    smallest = np.nextafter(products.min(axis=0), -np.inf)
    boxed = ~np.isin(bounded, domain.simplices)
    at = np.searchsorted(bounded, domain.simplices)  # simplex columns are all bounded
    terms = np.concatenate([smallest[boxed], low[at].min(axis=1)])
    box_term, objective = total(Enclosure.exact(terms)), dot(b, dual)
    parts = {"dual objective": float(offset - objective.mid[0]),
             "box term": float(box_term.mid[0])}
    return flint.arb(offset) + _ball(box_term) - _ball(objective), parts


def _ball(value: Enclosure) -> flint.arb:
    return flint.arb(float(value.mid[0]), float(value.rad[0]))


def _split_empty(A: sp.csc_matrix, c: np.ndarray,
                 free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Free columns with rows, and those without rows but with a cost (never cancellable);
    a free column with neither is left out (its residual is exactly zero)."""
    empty = np.diff(A.indptr)[free] == 0
    return free[~empty], free[empty & (c[free] != 0)]


def _label(columns: np.ndarray, names: dict[str, np.ndarray] | None) -> str:
    """The names of the column blocks holding ``columns`` (else the first column indices)."""
    if names:
        hit = [name for name, index in names.items()
               if np.isin(np.ravel(index), columns).any()]
        if hit:
            return ", ".join(hit)
    return "columns " + ", ".join(str(j) for j in columns[:5]) + \
        (" ..." if columns.size > 5 else "")


def _not_proved(reason: str, n_free: int) -> LowerBound:
    return LowerBound(None, reason=reason, free=n_free)
