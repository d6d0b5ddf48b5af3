"""A pricing oracle for polyhedral cones and mutual information: concave minimisation by B&B.

Column generation (:mod:`rldp_models.conelp.pricing`) asks, at a master dual
``lam``, for the largest reduced cost per unit mass ``(mu(v) - lam.v) / (1.v)``
over the rays of a pointed polyhedral cone ``C = {v >= 0 : A v >= 0}``. For
mutual information (``extremal-mechanisms-ldp.txt``, the display after eq. (18))
``mu(v) = sum_x p_x v_x log v_x - (p.v) log(p.v)``; on the slice
``P = {v in C : p.v = 1}`` (bounded when ``p > 0``) the last term vanishes and

``h(v) = mu(v) - lam.v = sum_x (p_x v_x log v_x - lam_x v_x)``

is convex and *separable*. Maximising it over the polytope ``P`` is a concave
minimisation, whose optimum is a vertex of ``P`` (an extreme ray of ``C``).
:class:`ConcavePricing` solves it by spatial branch and bound over boxes
``l <= v <= u`` (Horst and Tuy, *Global Optimization*, Ch. VI-VII): on a box
each ``p_x v_x log v_x`` lies below its secant, so the LP of the secants over
``P`` and the box bounds the node from above. Bounds are *proven*: each is
recomputed from the LP's row multipliers by weak duality with the box (any
multipliers give a valid bound, so the LP solver's rounding cannot make it
too small), plus a rounding allowance. Nodes are split at the relaxation's
point on the coordinate with the largest secant gap (omega-subdivision),
moved a quarter of the way towards the interval's middle (see :data:`MIDPOINT_WEIGHT`).

The bound ``H >= max_P h`` becomes one on the reduced cost per unit mass
through the range ``[m_lo, m_hi]`` of ``1.v`` on ``P`` (proven the same way):
``h(v) / (1.v) <= H / m_lo`` if ``H > 0``, else ``<= H / m_hi``. Candidates
are pushed to a vertex of ``P`` (an LP along the gradient of ``h``, which
cannot decrease a convex ``h`` when the gradient is finite) and polished onto
their tight constraints (:func:`~rldp_models.conelp.double_description.polish_rays`).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import highspy
import numpy as np
from scipy.special import xlogy

from rldp_models.conelp.double_description import FloatDoubleDescriptionError, polish_rays
from rldp_models.conelp.engine import PRICING_TOLERANCE
from rldp_models.conelp.pricing import PricingResult
from rldp_models.conelp.pricing_proof_record import ProofRecorder
from rldp_models.conelp.scip_pricing import scip_available, scip_point
from rldp_models.conelp.settled_shift import settled_shift
from rldp_models.errors import InputError
from solvers.backends.highs import silence_highs_banner

ROUNDING_ALLOWANCE = 1e-12
"""Added to every node bound for the float evaluation of the secants (the weak-duality
minimum gets its own allowance, scaled to its terms: :func:`weak_duality_allowance`)."""

GAP_TOLERANCE = 2e-10
"""A node whose bound exceeds the best value found (or 0) by at most this is closed
(a certificate needs ``<= 1e-9`` per unit mass, and ``1.v >= 1`` on ``p.v = 1``)."""

SEED_ROUNDING = 1e-14
"""A unit row of the cone may be this far below ``0`` on ``1 / sqrt(d)`` for ``1`` to seed
the master (:meth:`ConcavePricing.seed`): rounding of rows that are exactly ``0`` on it."""

EARLY_STOP_FACTOR = 2.0
"""Pricing stops early only once it holds a ray whose reduced cost per unit mass is
above this multiple of ``entering`` (column generation's threshold), so that the ray
enters the master. (Stopping on ``h > GAP_TOLERANCE`` alone, a ray under the threshold
could end the search, enter nothing and leave column generation with the loose bound of
an unfinished search.)"""

GOOD_ENOUGH = 0.5
"""Pricing stops early once a ray reaches this fraction of the proven bound on ``h``."""

EARLY_NODES = 8
"""Once a ray of positive reduced cost is known, pricing stops after this many nodes per
input: column generation gains more from a new master than from the best ray. (PolyOpt
3x4, idle: 8 against 4 takes eps 2 from 2.6 to 2.2 s and eps 0.5 from 20.2 to 19.0 s,
equal elsewhere; 4x4 eps 2 unchanged, 88 s.)"""

BATCH = 16
"""Nodes expanded together: the numpy work on a stack of boxes costs about what it costs on
one. (A complete search bounds the same boxes in any order. PolyOpt 3x4, seeds 0-5, idle:
eps 1 mean 11.7 -> 8.8 s, eps 2 4.4 -> 3.6 s against one node at a time while a ray is
sought; the final proof at eps 0.5, seed 0: 14.0 -> 10.4 s.)"""

MIDPOINT_WEIGHT = 0.25
"""A box is cut at ``(1 - w) point + w middle`` of its split coordinate. Pure
omega-subdivision (``w = 0``) makes the relaxation exact at the point, so the point
becomes a corner of both children and keeps being re-found there. (Final pricing proof,
PolyOpt 3x4, seed 0: eps 0.5 33,158 -> 11,464 nodes, eps 1 4,470 -> 2,686, eps 2 3,606 ->
3,234; pure bisection, ``w = 1``, takes 15,726 at eps 0.5 and 4,712 at eps 2.)"""

LOCAL_STEPS = 10
"""Gradient steps per start of the local search that precedes branch and bound."""

REBOUND_CHUNK = 4096
"""Kept boxes re-bounded together at a new dual: the stacked multipliers of a whole
frontier (PolyOpt 5x5: over a million boxes of 501 rows) would be gigabytes at once."""

PROPAGATION_PASSES = 1
"""Passes of row propagation (:meth:`ConcavePricing._propagated`) per child box."""

PROPAGATION_GAIN = 0.05
"""A row cuts a coordinate's interval only when it removes at least this fraction of it
(smaller cuts barely tighten the secants but each is a split and a drop in a proof)."""

PROPAGATION_MARGIN = 64.0
"""A row's cut stops short of its exact value by this many times the float error bound of
the row's maximum over the box (:meth:`ConcavePricing._row_cuts`), so that the exact
checker's Farkas test of the cut-off piece is strict."""

MAX_NODES = 2_000_000
"""Nodes per pricing call; the bound returned is valid whenever it stops. (Cutting at the
point itself, ``MIDPOINT_WEIGHT = 0``, PolyOpt 4x4 at eps 0.5 needed 1.22 million in its
final proof.)"""

_INF = highspy.kHighsInf

_EMPTY = (highspy.HighsModelStatus.kInfeasible, highspy.HighsModelStatus.kUnboundedOrInfeasible,
          highspy.HighsModelStatus.kUnbounded)
"""Statuses proving an LP has no minimum (with bounded variables: that it is infeasible)."""


Multipliers = tuple[np.ndarray, np.ndarray]
"""Row multipliers kept without their zeros: ``(index, value)``. An LP's basic solution
has at most ``d`` nonzero ones among its ``m + 1`` rows (PolyOpt 5x5: 12 of 501), and a
box keeps them for as long as it stays open."""


def compressed(multipliers: np.ndarray) -> Multipliers:
    """``multipliers`` without its zeros."""
    index = np.flatnonzero(multipliers).astype(np.int32)
    return index, multipliers[index]


def expanded(kept: list[Multipliers], width: int) -> np.ndarray:
    """The dense ``(len(kept), width)`` stack of compressed multipliers."""
    dense = np.zeros((len(kept), width))
    if kept:
        counts = [index.size for index, _ in kept]
        dense[np.repeat(np.arange(len(kept)), counts),
              np.concatenate([index for index, _ in kept])] = np.concatenate(
            [value for _, value in kept])
    return dense


@dataclass(order=True)
class _Node:
    """A box ``lower <= v <= upper`` of the branch-and-bound frontier.

    ``priority`` is minus its bound, ``point`` its LP point, ``multipliers``
    the LP's row multipliers, compressed (they bound the box at *any* dual by
    weak duality), ``fresh`` whether the bound comes from an LP at the current
    dual rather than from multipliers kept from an earlier one, ``basis``
    the LP's optimal basis (its children's LPs start from it) and ``earlier``
    the multipliers its box, or the ancestor it was split from, had when the
    search moved on to the current dual (:meth:`ConcavePricing._rebounded`; a
    pricing proof settles each leaf on the better of the two:
    :meth:`ConcavePricing.proof`).
    """

    priority: float
    lower: np.ndarray = field(compare=False)
    upper: np.ndarray = field(compare=False)
    point: np.ndarray = field(compare=False, default_factory=lambda: np.zeros(0))
    multipliers: Multipliers = field(compare=False,
                                     default_factory=lambda: compressed(np.zeros(0)))
    fresh: bool = field(compare=False, default=True)
    basis: highspy.HighsBasis | None = field(compare=False, default=None)
    earlier: Multipliers | None = field(compare=False, default=None)


class ConcavePricing:
    """Pricing oracle (:class:`~rldp_models.conelp.pricing.PricingOracle`) for ``I(X;Y)`` on a cone.

    Parameters
    ----------
    rows : ndarray, shape (m, d)
        ``A``: the cone is ``{v >= 0 : A v >= 0}`` (the convention of
        :func:`~rldp_models.conelp.double_description.extreme_rays`); it must
        be pointed and contain a nonzero vector.
    prior : ndarray, shape (d,)
        ``p >= 0``: ``mu`` is the mutual-information column utility under ``p``.
    max_nodes : int
        Branch-and-bound nodes per :meth:`price` call.
    entering : float
        The reduced cost per unit mass above which column generation takes a
        ray (``tolerance`` of
        :func:`~rldp_models.conelp.column_generation.solve_by_pricing`); a
        search stops early only on a ray above it (:data:`EARLY_STOP_FACTOR`).
    propagate : bool
        Shrink every child box by the cone's rows (:meth:`_propagated`). Off by
        default: it saves 15-23% of the boxes of a final proof at 3x4 and 4x4 but
        costs 30% more time per box at 5x5, where it did not move the bound
        (``benchmarks/bench_polyopt.py``), and a proof holds about three times as
        many boxes.
    stop : callable, optional
        Asked between batches of boxes (:data:`BATCH`); when it returns True the
        search ends there with the bound of its open boxes, which is valid
        wherever it stops (anytime column generation:
        :class:`~rldp_models.conelp.pricing_progress.RoundWatch`).
    scip_seconds : float
        When positive (and ``pyscipopt`` is installed), SCIP's incumbent for
        ``max h`` within this many seconds (:func:`~rldp_models.conelp.scip_pricing.scip_point`)
        starts the local search of every search and proof, next to the kept rays.
        Only its point is used, re-evaluated here; no bound comes from SCIP.

    Raises
    ------
    InputError
        If the slice ``p.v = 1`` is empty or unbounded (a ray of ``C`` lives
        on inputs of zero prior).
    """

    def __init__(self, rows: np.ndarray, prior: np.ndarray, *, max_nodes: int = MAX_NODES,
                 entering: float = PRICING_TOLERANCE, propagate: bool = False,
                 stop: Callable[[], bool] | None = None, scip_seconds: float = 0.0) -> None:
        rows = np.asarray(rows, dtype=float)
        norms = np.linalg.norm(rows, axis=1)
        self.rows = rows[norms > 0] / norms[norms > 0, None]
        self.row_source = (np.flatnonzero(norms > 0), norms[norms > 0])
        self._row_magnitudes = np.abs(self.rows)
        self.row_count = rows.shape[0]
        self.prior = np.asarray(prior, dtype=float)
        if self.rows.shape[1:] != self.prior.shape:
            raise InputError(f"the cone rows have {rows.shape[1]} columns, the prior "
                             f"{self.prior.size} entries")
        if np.any(self.prior < 0) or not np.any(self.prior > 0):
            raise InputError("the prior must be nonnegative and not all zero")
        if not entering >= 0:
            raise InputError(f"entering must be a nonnegative reduced cost, got {entering}")
        self.max_nodes, self.entering = max_nodes, float(entering)
        self.propagate = propagate
        self.stop = stop
        self.scip_seconds = scip_seconds if scip_available() else 0.0
        self._columns = np.arange(self.prior.size, dtype=np.int32)
        self._highs = self._model()
        self.root_lower, self.root_upper, self.vertices = self._root_box()
        self._mass = self._mass_range()
        self._recent = self.vertices
        self._frontier: list[_Node] = []
        self._recorder: ProofRecorder | None = None

    # ------------------------------------------------------------- protocol
    @property
    def dimension(self) -> int:
        return self.prior.size

    def seed(self) -> np.ndarray:
        """The vertices of ``P`` found while bounding each coordinate, plus ``1`` if in ``C``.

        ``1`` (exactly, a multiple of the right-hand side of a mechanism's
        master, so the master is feasible in floating point too) is taken when
        no row is below ``-SEED_ROUNDING`` on it: the rows of a ratio cone at
        ``eps = 0`` are ``0`` on ``1`` exactly, but about ``-3e-17`` in doubles,
        and without ``1`` the vertices alone need not hold ``1`` in their cone
        (``ldp-s`` on ``5 x 11`` secrets and inputs: the master was Infeasible).
        """
        columns = [self.vertices]
        ones = np.ones((self.dimension, 1))
        if np.all(self.rows @ ones >= -SEED_ROUNDING * np.sqrt(self.dimension)):
            columns.append(ones)
        return _distinct(np.hstack(columns))

    def price(self, dual: np.ndarray, count: int) -> PricingResult:
        """Rays of largest ``(mu(v) - dual.v) / (1.v)`` and a proven bound over all rays.

        Stops early once a ray of positive reduced cost is found (see
        :data:`GOOD_ENOUGH`), so the bound is tight only near ``<= 0``, the
        case that certifies the master; :meth:`tight_bound` tightens it anywhere.
        """
        return self._search(np.asarray(dual, dtype=float), count, complete=False)

    def tight_bound(self, dual: np.ndarray, tolerance: float = 1e-10) -> tuple[float, float]:
        """``(low, high)`` with ``low <= max_v (mu(v) - dual.v) / (1.v) <= high``, proven, tight.

        Dinkelbach's method on a shift ``delta``: the largest reduced cost at
        ``dual + delta 1`` is the one at ``dual`` minus ``delta``. Each round
        runs branch and bound to the end at the shift ``delta`` = the best
        reduced cost found so far, which bounds all rays near ``0``, where the
        bound is tight. ``low`` is attained by a ray found; ``high - low <=
        tolerance`` unless 50 rounds did not suffice.
        """
        dual = np.asarray(dual, dtype=float)
        delta = -math.inf
        high = math.inf
        shift = 0.0
        for _ in range(50):
            result = self._search(dual + shift, 1, complete=True)
            ray = result.rays[:, 0]
            found = (result.utilities[0] - (dual + shift) @ ray) / ray.sum()
            delta = max(delta, shift + found)
            high = min(high, shift + result.upper_bound)
            if high - delta <= tolerance:
                break
            shift = delta
        return float(delta), float(high)

    def found_reduced_cost(self, dual: np.ndarray, starts: np.ndarray) -> float:
        """The largest ``(mu(v) - dual.v) / (1.v)`` reached by the local search from the
        columns of ``starts`` and the kept rays: a quick estimate, no branch and bound."""
        dual = np.asarray(dual, dtype=float)
        found = self._local_search(dual, list(starts.T) + list(self._recent.T))
        return max(value / float(point.sum()) for value, point in found)

    def proof(self, dual: np.ndarray, shifts: tuple[float, ...] = (0.0,),
              progress: Callable[[float, float], None] | None = None, *, settle: bool = False
              ) -> dict[str, np.ndarray]:
        """Branch and bound from the root box at ``dual``, recorded as a proof.

        The arrays (splits, boxes dropped as empty with their Farkas rays, the
        root box's weak-duality proofs, the leaves' multipliers) are checked by
        :func:`rldp_models.certificates.pricing_proof.check_pricing_proof`
        without any search; ``claimed`` is this search's bound on ``h``. The
        frontier kept for :meth:`price` is left as it was.

        The search runs at ``dual + t 1`` for each shift ``t`` of ``shifts`` in
        turn (decreasing; the last ``0`` proves the largest value at ``dual``
        itself), closing a box once its bound on ``h`` there is at most
        ``max(best, 0)``. At ``dual + t 1`` that proves ``h <= t (1.v)`` at
        ``dual``, a reduced cost per unit mass ``<= t`` (Dinkelbach's parametric
        form, :mod:`.settled_shift`): far fewer boxes than the same bound asked
        of ``h`` at ``dual`` through the crude ``1.v >= 1 / max(p)``
        (HairEyeColor 4x4 at eps 2, 40 CPU s at a 12-s column generation's
        dual: settled bound 1.1439 against 1.2361 with that target; 10% of the
        bound closed in 4.6 s against over 40). The tree goes on from shift to
        shift (the open boxes re-bounded from their multipliers,
        :meth:`_rebounded`), and ``progress(t, bound)`` is called after each.
        Ended early by :attr:`stop`, it is the proof of the bound of the boxes
        still open at the last shift, which checks all the same.

        With ``settle`` the tree is re-expressed at ``dual + (t + s) 1``, ``s``
        the smallest further shift at which every leaf proves ``h <= 0``
        (:func:`~rldp_models.conelp.settled_shift.settled_shift`), each leaf on
        the better of its multipliers and those that closed its box or an
        ancestor's at the shift before (a box solved again at a smaller shift
        gets multipliers tight there, possibly loose where it had closed: on
        HairEyeColor 4x4 at eps 2 a bound 1.1371 proven at one shift settled at
        1.1475 when stopped at the next): the proof's ``dual`` is then
        that shifted dual and ``claimed <= 0``, so the reduced cost per unit
        mass it proves there is ``<= 0`` instead of the checker's ``H max(p)``
        of a positive ``H``.
        """
        if not shifts:
            raise InputError("a pricing proof needs at least one shift of the dual")
        recorder = ProofRecorder(self)
        kept, self._frontier, self._recorder = self._frontier, [], recorder
        dual = np.asarray(dual, dtype=float)
        try:
            heap: list[_Node] = []
            for shift in shifts:
                at = dual + shift
                heap = self._complete(at, self._rebounded(heap, at) if heap
                                      else self._start(at))
                if progress is not None:
                    progress(shift, max(-n.priority for n in heap))
                if self.stop is not None and self.stop():
                    break
            leaves, dual = heap, at
            top = max((-n.priority for n in leaves), default=-math.inf)
        finally:
            self._frontier, self._recorder = kept, None
        multipliers = self.multipliers(leaves)
        if settle and leaves:
            earlier = expanded([n.earlier if n.earlier is not None else n.multipliers
                                for n in leaves], multipliers.shape[1])
            shift, multipliers, bounds = settled_shift(
                self, dual, np.array([n.lower for n in leaves]),
                np.array([n.upper for n in leaves]), multipliers, top, earlier)
            dual, top = dual + shift, float(bounds.max())
        return recorder.finish(leaves, dual, top, multipliers)

    def _complete(self, dual: np.ndarray, heap: list[_Node]) -> list[_Node]:
        """Expand ``heap`` until every box's bound is at most ``max(best, 0)`` (or
        :attr:`stop`); the boxes are kept, so the search can go on at another dual."""
        best = max(value for value, _ in self._local_search(dual, [heap[0].point]
                                                            + self._guided(dual)))

        def done(bound: float, best: float, nodes: int) -> bool:
            return bound <= max(best, 0.0) + GAP_TOLERANCE or nodes >= self.max_nodes

        self._branch(dual, heap, best, done)
        return heap

    def _branch(self, dual: np.ndarray, heap: list[_Node], best: float,
                done: Callable[[float, float, int], bool], pool: list | None = None
                ) -> tuple[float, int]:
        """Expand the best boxes of ``heap`` a batch (:data:`BATCH`) at a time until
        ``done(bound, best, nodes)`` holds for the box leading the queue (or :attr:`stop`).

        ``best`` is the largest ``h`` seen at a box's point (each goes into ``pool`` too,
        when given); the boxes left open stay in ``heap``. Returns ``best`` and the
        number of boxes bounded.
        """
        nodes = 0
        while heap:
            batch: list[_Node] = []
            while heap and len(batch) < BATCH:
                node = heapq.heappop(heap)
                value = self.objective(node.point, dual)
                best = max(best, value)
                if pool is not None:
                    pool.append((value, node.point))
                if done(-node.priority, best, nodes) or (self.stop is not None and self.stop()):
                    heapq.heappush(heap, node)
                    break
                batch.append(node)
            if not batch:
                break
            lower, upper, parent, bases, earlier = self._expanded(batch)
            for found in self._nodes(dual, lower, upper, parent, bases, earlier):
                heapq.heappush(heap, found)
            nodes += parent.size
        return best, nodes

    def _search(self, dual: np.ndarray, count: int, complete: bool) -> PricingResult:
        """Branch and bound from the kept frontier; ``complete``: until the bound meets the best.

        Every box still open when a call stops stays in the frontier, so the
        next call (at the next master's dual) resumes from those boxes instead
        of the root: each kept box is first re-bounded at the new dual from its
        stored multipliers (:meth:`_rebounded`, valid for any dual) and its LP
        is solved again only when that bound leads the queue.
        """
        early = GOOD_ENOUGH if not complete else math.inf
        entering_value = EARLY_STOP_FACTOR * self.entering * self._mass[1]
        heap = self._start(dual)
        pool = self._local_search(dual, [heap[0].point] + list(self._recent.T)
                                  + self._guided(dual))

        def done(bound: float, best: float, nodes: int) -> bool:
            return bound <= max(best, 0.0) + GAP_TOLERANCE or nodes >= self.max_nodes or (
                not complete and best > entering_value and (
                    best >= early * bound or nodes >= EARLY_NODES * self.dimension))

        best, nodes = self._branch(dual, heap, max(value for value, _ in pool), done, pool)
        self._frontier = heap
        top = max([best] + [-n.priority for n in heap])
        per_mass = top / self._mass[0] if top > 0 else top / self._mass[1]
        rays = self._candidates(pool, dual, count)
        self._recent = np.hstack([rays, self.vertices])
        return PricingResult(rays, self.utility(rays), float(per_mass), nodes)

    def _guided(self, dual: np.ndarray) -> list[np.ndarray]:
        """SCIP's incumbent point at ``dual`` as a start, if :attr:`scip_seconds` asks for it."""
        if self.scip_seconds <= 0:
            return []
        found = scip_point(self.rows, self.prior, dual, seconds=self.scip_seconds)
        return [] if found is None else [found.point]

    def _start(self, dual: np.ndarray) -> list[_Node]:
        """The queue at ``dual``: the root box, or the kept frontier re-bounded."""
        if self._frontier:
            return self._rebounded(self._frontier, dual)
        root = self._node(dual, self.root_lower, self.root_upper, math.inf)
        if root is None:
            raise InputError("no LP solution on the cone's slice p.v = 1")
        return [root]

    def _rebounded(self, frontier: list[_Node], dual: np.ndarray) -> list[_Node]:
        """The boxes of ``frontier`` with proven bounds at ``dual`` from their kept multipliers.

        Weak duality (:meth:`proven_minimum`) holds for any multipliers, so
        the bounds are valid without solving an LP; they are marked stale, and
        their multipliers kept as :attr:`_Node.earlier`.
        Boxes are taken :data:`REBOUND_CHUNK` at a time.
        """
        heap: list[_Node] = []
        for start in range(0, len(frontier), REBOUND_CHUNK):
            chunk = frontier[start:start + REBOUND_CHUNK]
            lower = np.array([n.lower for n in chunk])
            upper = np.array([n.upper for n in chunk])
            slope, constant = self.secants(lower, upper)
            bounds = constant - self.proven_minimum(dual - slope, self.multipliers(chunk),
                                                     lower, upper)
            heap.extend(_Node(-float(b), n.lower, n.upper, n.point, n.multipliers, False,
                              n.basis, n.multipliers) for b, n in zip(bounds, chunk))
        heapq.heapify(heap)
        return heap

    def multipliers(self, nodes: list[_Node]) -> np.ndarray:
        """The nodes' row multipliers, dense: one row of ``m + 1`` each (the slice row last)."""
        return expanded([n.multipliers for n in nodes], self.rows.shape[0] + 1)

    # ----------------------------------------------------------- the utility
    def utility(self, V: np.ndarray) -> np.ndarray:
        """``mu`` of each column of ``V`` (mutual information's column utility)."""
        t = self.prior @ V
        return self.prior @ xlogy(V, V) - xlogy(t, t)

    def objective(self, v: np.ndarray, dual: np.ndarray) -> float:
        """``h(v) = sum_x (p_x v_x log v_x - dual_x v_x)`` (``mu(v) - dual.v`` when ``p.v = 1``)."""
        return float(self.prior @ xlogy(v, v) - dual @ v)

    def reduced(self, v: np.ndarray, dual: np.ndarray) -> float:
        """``(mu(v) - dual.v) / (1.v)`` for any nonzero ``v`` of the cone."""
        return float(self.utility(v[:, None])[0] - dual @ v) / float(v.sum())

    # ------------------------------------------------------------ the model
    def _model(self) -> highspy.Highs:
        """Variables ``v``; rows ``A v >= 0`` and ``p.v = 1``."""
        d = self.prior.size
        silence_highs_banner()
        highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        highs.setOptionValue("primal_feasibility_tolerance", 1e-10)
        highs.setOptionValue("dual_feasibility_tolerance", 1e-10)
        highs.addVars(d, np.zeros(d), np.full(d, _INF))
        for row in self.rows:
            index = np.flatnonzero(row)
            highs.addRow(0.0, _INF, index.size, index.astype(np.int32), row[index])
        highs.addRow(1.0, 1.0, d, np.arange(d, dtype=np.int32), self.prior)
        return highs

    def _run(self, cost: np.ndarray, lower: np.ndarray, upper: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray] | None:
        """Minimise ``cost.v`` over ``P`` in the box; the point and the row multipliers.

        ``None`` only when HiGHS proves there is no minimum: the box holds no
        point of ``P`` (the box is then dropped), or, for :meth:`_maximum`'s
        unbounded trial, the slice is unbounded. Any other failure is retried
        once from scratch and then raised: dropping a box it could not solve
        would lose rays.
        """
        d, index = self.prior.size, self._columns
        self._highs.changeColsCost(d, index, cost)
        self._highs.changeColsBounds(d, index, lower, upper)
        for _ in range(2):
            self._highs.run()
            status = self._highs.getModelStatus()
            if status == highspy.HighsModelStatus.kOptimal:
                break
            if status in _EMPTY:
                return None
            self._highs.clearSolver()
        else:
            raise RuntimeError(f"HiGHS could not solve a pricing LP (status {status})")
        solution = self._highs.getSolution()
        return np.maximum(solution.col_value, 0.0), np.asarray(solution.row_dual)

    def proven_minimum(self, cost: np.ndarray, multipliers: np.ndarray,
                        lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
        """A lower bound on ``min cost.v`` over ``P`` in the box, by weak duality.

        For any row multipliers ``y`` (the cone rows' clipped to ``>= 0``, the
        only sign valid for ``a.v >= 0``), ``cost.v >= sum_j min(r_j l_j, r_j u_j)
        + y_p`` with ``r = cost - A^T y_A - y_p p``: exact algebra, whatever the
        solver's accuracy; :func:`weak_duality_allowance` covers this evaluation's
        rounding (and the proof checker's rescaling of ``y`` to the unnormalised rows).
        Works on one box or on a stack of boxes (leading axis).
        """
        cone = np.maximum(multipliers[..., :-1], 0.0)
        simplex = multipliers[..., -1]
        reduced = cost - cone @ self.rows - np.multiply.outer(simplex, self.prior)
        box = np.minimum(reduced * lower, reduced * upper)
        magnitude = (np.abs(cost) + cone @ self._row_magnitudes
                     + np.multiply.outer(np.abs(simplex), self.prior))
        reach = np.maximum(np.abs(lower), np.abs(upper))
        allowance = weak_duality_allowance(
            (magnitude * reach).sum(axis=-1) + np.abs(simplex),
            np.count_nonzero(cone, axis=-1) + self.dimension)
        return box.sum(axis=-1) + simplex - allowance - ROUNDING_ALLOWANCE

    def farkas_ray(self, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
        """Row multipliers proving the box just found empty by weak duality at cost 0 (zeros
        if none).

        HiGHS's dual ray of the LP just solved, with presolve off if the first solve gave
        none; the sign with the larger float bound is kept, even when that bound is within
        its rounding allowance of 0 (the checker decides, exactly).
        """
        highs = self._highs
        _, has_ray, ray = highs.getDualRay()  # type: ignore[attr-defined]  # in highspy 1.16, not its stubs
        if not has_ray:
            highs.setOptionValue("presolve", "off")
            highs.clearSolver()
            highs.run()
            _, has_ray, ray = highs.getDualRay()  # type: ignore[attr-defined]  # in highspy 1.16, not its stubs
            highs.setOptionValue("presolve", "choose")
        ray = np.asarray(ray, dtype=float)
        if not has_ray:
            return np.zeros(ray.size)
        zero = np.zeros(self.dimension)
        return max((ray, -ray),
                   key=lambda y: float(self.proven_minimum(zero, y, lower, upper)))

    def _node(self, dual: np.ndarray, lower: np.ndarray, upper: np.ndarray,
              parent_bound: float) -> _Node | None:
        """The box with a proven bound on ``h`` over it (at most its parent's); None if empty."""
        found = self._nodes(dual, lower[None], upper[None], np.array([parent_bound]), [None])
        return found[0] if found else None

    def _nodes(self, dual: np.ndarray, lower: np.ndarray, upper: np.ndarray,
               parent: np.ndarray, bases: list, earlier: list | None = None) -> list[_Node]:
        """The boxes (stacked along the first axis) with proven bounds, empty ones left out.

        One LP per box, started from its parent's basis when given (a child
        differs from its parent in a few bounds and costs: 1.6 simplex
        iterations per LP instead of 5.8, PolyOpt 3x4); the secants and the
        weak-duality bounds are computed for the whole stack at once. A box's
        bound is at most its parent's. ``earlier`` is each box's
        :attr:`_Node.earlier` (None: none).
        """
        slope, constant = self.secants(lower, upper)
        cost = dual - slope
        kept, points, multipliers, solved_bases = [], [], [], []
        for k in range(parent.size):
            if bases[k] is not None:
                self._highs.setBasis(bases[k])
            solved = self._run(cost[k], lower[k], upper[k])
            if solved is None:
                if self._recorder is not None:
                    self._recorder.drop(lower[k], upper[k])
                continue
            kept.append(k)
            points.append(solved[0])
            multipliers.append(solved[1])
            solved_bases.append(self._highs.getBasis())
        if not kept:
            return []
        stacked = np.array(multipliers)
        bounds = constant[kept] - self.proven_minimum(cost[kept], stacked, lower[kept],
                                                       upper[kept])
        bounds = np.minimum(bounds, parent[kept])
        earlier = earlier if earlier is not None else [None] * parent.size
        return [_Node(-float(b), lower[k], upper[k], point, compressed(y), True, basis,
                      earlier[k])
                for b, k, point, y, basis in zip(bounds, kept, points, stacked,
                                                 solved_bases)]

    def _expanded(self, batch: list[_Node]
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list, list]:
        """The boxes to bound next for ``batch``: its fresh nodes' children, its stale nodes.

        A stale node (bounded from multipliers kept from an earlier dual) is
        solved again as it is before it is split. Returns the stacked lower and
        upper bounds, each box's parent bound, the basis to start its LP from and
        its :attr:`_Node.earlier` (a child's is its parent's).
        """
        fresh = [n for n in batch if n.fresh]
        stale = [n for n in batch if not n.fresh]
        lower = [n.lower for n in stale]
        upper = [n.upper for n in stale]
        parent = [-n.priority for n in stale]
        bases = [n.basis for n in stale]
        earlier = [n.earlier for n in stale]
        if fresh:
            children = self._split(fresh)
            lower.extend(children[0])
            upper.extend(children[1])
            parent.extend(-n.priority for n in fresh for _ in range(2))
            bases.extend(n.basis for n in fresh for _ in range(2))
            earlier.extend(n.earlier for n in fresh for _ in range(2))
        return np.array(lower), np.array(upper), np.array(parent), bases, earlier

    def secants(self, lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Slopes and summed intercepts of the secants of ``p_x v log v`` on ``[lower, upper]``.

        Per box: ``lower`` and ``upper`` may stack boxes along a leading axis.
        """
        slope, intercept = self._secant_lines(lower, upper)
        return slope, intercept.sum(axis=-1)

    def _secant_lines(self, lower: np.ndarray, upper: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
        """Slope and intercept of each coordinate's secant of ``p_x v log v`` on its interval."""
        f_low = self.prior * xlogy(lower, lower)
        f_high = self.prior * xlogy(upper, upper)
        width = upper - lower
        slope = np.divide(f_high - f_low, width, out=np.zeros_like(width), where=width > 0)
        return slope, f_low - slope * lower

    def _split(self, nodes: list[_Node]) -> tuple[np.ndarray, np.ndarray]:
        """Each node's box split in two near its point on the coordinate of largest secant gap.

        Returns the children's lower and upper bounds, stacked as ``left_0,
        right_0, left_1, ...``, each tightened by :meth:`_tightened`.
        """
        lower = np.array([n.lower for n in nodes])
        upper = np.array([n.upper for n in nodes])
        point = np.clip(np.array([n.point for n in nodes]), lower, upper)
        slope, intercept = self._secant_lines(lower, upper)
        gap = intercept + slope * point - self.prior * xlogy(point, point)
        rows = np.arange(len(nodes))
        x = np.argmax(gap, axis=1)
        middle = 0.5 * (lower[rows, x] + upper[rows, x])
        cut = (1.0 - MIDPOINT_WEIGHT) * point[rows, x] + MIDPOINT_WEIGHT * middle
        inside = (lower[rows, x] < cut) & (cut < upper[rows, x])
        cut = np.where(inside, cut, middle)
        child_lower, child_upper = np.repeat(lower, 2, axis=0), np.repeat(upper, 2, axis=0)
        child_upper[2 * rows, x] = cut
        child_lower[2 * rows + 1, x] = cut
        child_lower, child_upper = self._tightened(child_lower, child_upper)
        if self._recorder is not None:
            for k, node in enumerate(nodes):
                pair = slice(2 * k, 2 * k + 2)
                self._recorder.split(node.lower, node.upper, int(x[k]), float(cut[k]),
                                     (child_lower[pair], child_upper[pair]))
        if not self.propagate:
            return child_lower, child_upper
        return self._propagated(child_lower, child_upper)

    def _propagated(self, lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The boxes shrunk by the cone's rows ``a.v >= 0`` (interval propagation).

        For a row ``a`` and ``M`` the maximum of ``a.v`` over the box, every
        point of the cone in the box has ``a_x v_x >= a_x b_x - M`` (``b_x`` the
        end of the box where ``a_x v_x`` is largest): on ``P`` in the box,
        ``v_x >= u_x - M / a_x`` if ``a_x > 0`` and ``v_x <= l_x + M / |a_x|`` if
        ``a_x < 0``. The piece cut off is empty, and one row proves it: its
        multiplier ``1`` gives weak duality ``-max_piece a.v > 0`` at cost 0 (the
        Farkas test of step (d) of :mod:`rldp_models.certificates.pricing_proof`),
        so a proof records each cut as a split whose cut-off half is dropped with
        that row as its ray (:meth:`ProofRecorder.cut_off`), and the checker is
        unchanged. For PolyOpt's Gamma these rows are the block coupling
        ``r1.T_{s1} <= e^eps r2.T_{s2}``: propagating them is the tightening that
        boxes on the block lemma's ``(min g_s, max g_s)`` would give. (Final pricing
        proof at the optimal dual, seed 0: 3x4 eps 0.5 11,464 -> 8,858 boxes; 4x4
        eps 2 49,992 -> 40,318 with two passes and cuts down to 0.1% of an interval.)
        """
        for _ in range(PROPAGATION_PASSES):
            cuts = self._row_cuts(lower, upper)
            if self._recorder is not None:
                record_cuts(self._recorder, lower, upper, *cuts)
            lower, upper = cuts[0], cuts[2]
        return lower, upper

    def _row_cuts(self, lower: np.ndarray, upper: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """New bounds from one propagation pass and the row behind each (``-1``: none).

        Returns ``(lower, lower_row, upper, upper_row)``. A cut stops short by
        :data:`PROPAGATION_MARGIN` times ``(d + 2) u sum_j |a_j| max(|l_j|, |u_j|)``,
        a bound on the float error of ``M`` (Higham, eq. (3.5)) and of the exact rows
        against these normalised floats, and is kept only when it removes
        :data:`PROPAGATION_GAIN` of the interval. A cut never crosses the other end
        (a box left a point there is then dropped by its LP).
        """
        rows = self.rows
        top = lower @ np.minimum(rows, 0.0).T + upper @ np.maximum(rows, 0.0).T
        reach = np.maximum(np.abs(lower), np.abs(upper))
        margin = PROPAGATION_MARGIN * (self.dimension + 2) * np.finfo(float).eps * (
            reach @ self._row_magnitudes.T)
        slack = (top + margin)[:, :, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            raised = np.where(rows > 0, upper[:, None, :] - slack / rows, -np.inf)
            lowered = np.where(rows < 0, lower[:, None, :] - slack / rows, np.inf)
        width = (upper - lower) * PROPAGATION_GAIN
        low_row, high_row = np.argmax(raised, axis=1), np.argmin(lowered, axis=1)
        low = np.take_along_axis(raised, low_row[:, None, :], axis=1)[:, 0]
        high = np.take_along_axis(lowered, high_row[:, None, :], axis=1)[:, 0]
        low_used = low > lower + width
        new_lower = np.where(low_used, np.minimum(low, upper), lower)
        high_used = high < upper - width
        new_upper = np.where(high_used, np.maximum(high, new_lower), upper)
        return (new_lower, np.where(low_used, low_row, -1),
                new_upper, np.where(high_used, high_row, -1))

    def _tightened(self, lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The boxes shrunk by ``p.v = 1``: ``p_x v_x = 1 - sum_{y != x} p_y v_y`` (one pass).

        Exact consequences of the slice's equation, rounded outward by
        :func:`tightening_slack`, a bound on their float error, so that each
        box contains the exact one the proof checker recomputes (step (b) of
        :mod:`rldp_models.certificates.pricing_proof`). Boxes stack along the
        first axis; a box whose float bounds cross is empty (the slack is
        rigorous) and is returned with its bounds swapped.
        """
        positive = self.prior > 0
        low_mass, high_mass = lower @ self.prior, upper @ self.prior
        with np.errstate(divide="ignore", invalid="ignore"):
            top = (1.0 - (low_mass[:, None] - self.prior * lower)) / self.prior
            bottom = (1.0 - (high_mass[:, None] - self.prior * upper)) / self.prior
            mass = (np.abs(lower) + np.abs(upper)) @ self.prior
            new_upper = top + tightening_slack(top, mass, self.prior)
            new_lower = bottom - tightening_slack(bottom, mass, self.prior)
        new_upper = np.where(positive, np.minimum(upper, new_upper), upper)
        new_lower = np.where(positive, np.maximum(lower, new_lower), lower)
        return np.minimum(new_lower, new_upper), np.maximum(new_lower, new_upper)

    def _root_box(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Proven bounds on each ``v_x`` over ``P`` (2d LPs) and the vertices found.

        ``p_x v_x <= p.v = 1`` caps the inputs of positive prior (``1/p_x`` rounded
        up); the others get twice their LP maximum plus 1 as a trial cap. The box
        is then proven to contain ``P``: every bound of ``P`` in the capped box is
        proven strictly inside the cap, and a convex ``P`` meeting the box without
        reaching its boundary lies inside it. The cap and the LPs' multipliers are
        kept in ``root_proof`` for :meth:`proof`.
        """
        d = self.prior.size
        cap = np.array([np.nextafter(1.0 / p, np.inf) if p > 0 else 2.0 * self._maximum(x) + 1.0
                        for x, p in enumerate(self.prior)])
        lower, upper, vertices = np.zeros(d), cap.copy(), []
        self.root_proof: tuple[np.ndarray, list[np.ndarray]] = (cap, [])
        for x in range(d):
            for sign in (1.0, -1.0):
                cost = np.zeros(d)
                cost[x] = sign
                solved = self._run(cost, np.zeros(d), cap)
                if solved is None:
                    raise InputError("the cone's slice p.v = 1 is empty")
                vertices.append(solved[0])
                self.root_proof[1].append(solved[1])
                proven = sign * self.proven_minimum(cost, solved[1], np.zeros(d), cap)
                if sign > 0:
                    lower[x] = min(max(proven, 0.0), solved[0][x])
                else:
                    upper[x] = max(proven, solved[0][x])
        if np.any((self.prior == 0) & (upper >= cap)):
            raise InputError("could not bound the cone's slice p.v = 1")
        return lower, np.minimum(upper, cap), self._exact_vertices(np.array(vertices).T)

    def _maximum(self, x: int) -> float:
        """``max v_x`` over ``P`` by the LP without a box (a trial value, not a proof)."""
        d = self.prior.size
        cost = np.zeros(d)
        cost[x] = -1.0
        solved = self._run(cost, np.zeros(d), np.full(d, _INF))
        if solved is None:
            raise InputError("the cone's slice p.v = 1 is empty or unbounded (a ray of the "
                             "cone lives on inputs of zero prior)")
        return float(solved[0][x])

    def _mass_range(self) -> tuple[float, float]:
        """Proven ``m_lo <= 1.v <= m_hi`` on ``P`` (``m_lo >= 1 / max p > 0``)."""
        ones = np.ones(self.dimension)
        bounds = []
        for sign in (1.0, -1.0):
            solved = self._run(sign * ones, self.root_lower, self.root_upper)
            if solved is None:
                raise InputError("no LP solution on the cone's slice p.v = 1")
            bounds.append(sign * float(self.proven_minimum(sign * ones, solved[1], self.root_lower,
                                                            self.root_upper)))
        return max(bounds[0], 1.0 / self.prior.max()), bounds[1]

    # ------------------------------------------------------------ candidates
    def _candidates(self, pool: list, dual: np.ndarray, count: int) -> np.ndarray:
        """Up to ``count`` distinct vertices of ``P`` from the best points found, sum 1."""
        pool.sort(key=lambda item: item[0], reverse=True)
        rays = [self._vertex_from(point, dual) for _, point in pool[:max(count, 1)]]
        V = self._exact_vertices(np.array(rays).T)
        order = np.argsort([-self.reduced(v, dual) for v in V.T])
        return V[:, order[:count]]

    def _local_search(self, dual: np.ndarray, starts: list[np.ndarray]) -> list:
        """``(h, vertex)`` pairs reached by gradient ascent from each start (on ``p.v = 1``).

        Each step is :meth:`_vertex_from`; a convex ``h`` never decreases, so
        the walk ends at a vertex that is a local maximum, usually in a few steps.
        """
        found = []
        for start in starts:
            point = start / float(self.prior @ start)
            for _ in range(LOCAL_STEPS):
                step = self._vertex_from(point, dual)
                improved = self.objective(step, dual) > self.objective(point, dual) + 1e-15
                point = step
                if not improved:
                    break
            found.append((self.objective(point, dual), point))
        return found

    def _vertex_from(self, point: np.ndarray, dual: np.ndarray) -> np.ndarray:
        """A vertex of ``P`` no worse than ``point``: the LP along the gradient of ``h``.

        ``h`` is convex, so ``w`` maximising its gradient at ``point`` over ``P``
        has ``h(w) >= h(point)`` when the gradient is finite; zero coordinates
        get a steep negative slope instead of ``-inf``, so the better of ``w``
        and ``point`` is kept.
        """
        gradient = self.prior * (np.log(np.maximum(point, 1e-30)) + 1.0) - dual
        solved = self._run(-gradient, self.root_lower, self.root_upper)
        if solved is None or self.objective(solved[0], dual) < self.objective(point, dual):
            return point
        return solved[0]

    def _exact_vertices(self, V: np.ndarray) -> np.ndarray:
        """Columns scaled to sum 1, polished onto their tight constraints where that works."""
        V = V / V.sum(axis=0)
        polished = []
        for column in V.T:
            try:
                polished.append(polish_rays(self.rows, column[:, None])[:, 0])
            except FloatDoubleDescriptionError:
                polished.append(column)
        return _distinct(np.array(polished).T)


def record_cuts(recorder: ProofRecorder, lower: np.ndarray, upper: np.ndarray,
                new_lower: np.ndarray, lower_row: np.ndarray, new_upper: np.ndarray,
                upper_row: np.ndarray) -> None:
    """Each box's cuts (:meth:`ConcavePricing._row_cuts`) as a chain of splits in ``recorder``.

    Each split cuts off a piece that one row proves empty (:meth:`ProofRecorder.cut_off`).
    """
    for k in range(lower.shape[0]):
        low, high = lower[k].copy(), upper[k].copy()
        for x in np.flatnonzero(lower_row[k] >= 0):
            low, high = recorder.cut_off(low, high, int(x), float(new_lower[k, x]),
                                         int(lower_row[k, x]), below=True)
        for x in np.flatnonzero(upper_row[k] >= 0):
            low, high = recorder.cut_off(low, high, int(x), float(new_upper[k, x]),
                                         int(upper_row[k, x]), below=False)


def weak_duality_allowance(size: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """Twice a bound on the float error of :meth:`ConcavePricing.proven_minimum`'s sum.

    ``r_j = c_j - sum_i y_i a_ij - y_p p_j`` errs by at most ``gamma_{k+2}`` times the
    sum of its terms' absolute values (``k`` nonzero ``y_i``), and the sum of ``r_j t_j``
    (``t_j`` an end of the box) and ``y_p`` by ``gamma_{d+2}`` times its terms' (Higham,
    *Accuracy and Stability of Numerical Algorithms*, 2nd ed., eq. (3.5)); the checker's
    ``y_i / n_i`` against our ``a_ij / n_i`` (normalised rows) adds two roundings a term.
    With ``size = sum_j (|c_j| + sum_i |y_i a_ij| + |y_p| p_j) max(|l_j|, |u_j|) + |y_p|``
    and ``terms = k + d`` the error is below ``(terms + 6) u size``. The error is relative
    to ``size``, not to the result: a tiny prior (Adult: 2 records in 32,561) gives caps
    ``1/p_x`` in the tens of thousands, and a fixed ``1e-12`` was not enough.
    """
    return (terms + 6) * np.finfo(float).eps * size


def tightening_slack(bound: np.ndarray, mass: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """Twice a bound on the float error of ``(1 - (sum_j p_j w_j - p_x w_x)) / p_x``.

    The dot product errs by at most ``gamma_d sum_j p_j |w_j|`` (Higham, *Accuracy
    and Stability of Numerical Algorithms*, 2nd ed., eq. (3.5)); the subtraction of
    ``p_x w_x``, that from 1 and the division add three roundings, so the bound is
    ``(d + 5) u (1 + S) / p_x + u |bound|`` with ``u = 2^-53`` and ``S = sum_j p_j
    (|l_j| + |u_j|)`` (``mass``, per box) covering both ends. The error is relative to 1,
    not to the result: divided by a tiny ``p_x`` (Adult: one record in 32,561) it is
    far above a few ulps of the result. The factor 2 covers this bound's own rounding
    and that of adding it.
    """
    eps = np.finfo(float).eps  # 2u
    return (prior.size + 6) * eps * (1.0 + mass[:, None]) / prior + eps * np.abs(bound)


def _distinct(V: np.ndarray) -> np.ndarray:
    """Columns of ``V`` without repeats (to 12 digits), in their first order."""
    _, first = np.unique(np.round(V, 12), axis=1, return_index=True)
    return V[:, np.sort(first)]
