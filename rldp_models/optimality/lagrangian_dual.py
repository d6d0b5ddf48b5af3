"""The Lagrangian dual of :mod:`.lagrangian` read from a conic solve.

The canonical conic form (:mod:`rldp_models.programs.conic_form`, solved by
``clarabel-direct`` or ``scs-direct``) returns a dual ``z`` per row group. A
group's action on the protocol, ``(A_G^T z_G)[P]``, is what the dual charges
each ``P[x, y]``:

* robust privacy ``[s1, s2]``: ``lambda_y p1(u)`` on ``P[(s1, u), y]`` and
  ``-e^eps lambda_y p2(u)`` on ``P[(s2, u), y]`` — dual feasibility on the
  columns of Theorem 4's ``t`` gives ``sum_u p_i(u) = 1``, on ``c``, ``r``,
  ``q``, ``b`` that ``(p1, p2)`` lies in the pair projection;
* the robust objective's cones act on ``v`` by ``p0`` (Theorem 2), a member of F;
* a nominal privacy row (eq. 6) by its multiplier times the row.

The solver's members are members only up to its tolerance, so each is moved
toward the set's centre (the empirical distribution or conditionals, strictly
inside for ``B > 0``) by the smallest weight in ``10^-12, 10^-11, ... 1`` for
which membership is proved in ball arithmetic, after rounding to
:data:`DIGITS` significant digits (what the record stores). Terms with
``lambda <= DROP_BELOW`` are left out (``lambda = 0`` is a valid multiplier).

The solver's dual is then only a start (:func:`conic_dual`): every member is
first moved to the maximiser of its term at the solver's protocol
(:func:`_argmax_members`: what the KKT conditions pair with the multiplier, which
the solver's member is only up to its tolerance), then one small LP re-weights
the multipliers over the proved members (:func:`polished_weights`).

Without a conic dual — cvxpy solves, and sets other than chi-square, whose
robust privacy is the product of single-secret projections —
:func:`protocol_dual` takes the members at the returned protocol and lets the
same LP choose the multipliers, with cutting planes (see its section below).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import time
import warnings
from typing import Any

import flint
import numpy as np
import scipy.sparse as sp

from rldp_models.optimality.lagrangian import (BITS, Instance, InstanceBalls, LagrangianDual,
                                               claim, normalised, not_claimed)
from rldp_models.optimality.reweighting import LPMethod, ReweightingLP
from rldp_models.optimality.set_members import exact_distribution, proved_member, provable
from rldp_models.programs.protocol_program import ProtocolProgram
from rldp_models.programs.solution import ProtocolSolution
from rldp_models.uncertainty.base import Capability
from rldp_models.uncertainty.kl_ball import KLBallSet
from solvers.conic import ConicProgram
from solvers.registry import UnsupportedModelError

DIGITS = 12
"""Significant digits of the stored weights and members."""
DROP_BELOW = 1e-12
"""Multipliers at or below this are dropped (the bound moves by at most that per term)."""
SHRINK_WEIGHTS = (0.0, *(10.0**-k for k in range(12, 0, -1)), 1.0)
"""Fallback moves toward the set's centre when the projected member is not proved."""
TARGET = 1e-11
"""How far inside its set a member is pulled (the stored digits must keep it inside)."""
NEWTON_STEPS = 4
BACKTRACKS = 20
"""Halvings of a projection step that would leave the simplex (before giving up on it)."""
CLEARLY_OUTSIDE = 1e-9
"""A member whose membership constraint exceeds its bound by this much in floating point is
not offered to the proof (:func:`_proved_member`)."""
ARGMAX_STEPS = 40
"""Newton iterations of :func:`_argmax_members` (each member stops once its residual is below
1e-15; from a tilted start far from the maximiser it takes ~20-40)."""
CONIC_LP_METHOD: LPMethod = "highs-ipm"
"""The re-weighting LP of a conic dual by HiGHS's interior point (with crossover) rather than
its simplex: 10x20 RURP 0.55 s against 0.95 s per LP, education x occupation 0.6 s against
1.0 s, the same proven gap to 1e-9 relative (race x education: identical). The polyhedral
sets' cutting planes (:func:`protocol_dual`) keep the default.

A conic dual's multipliers are not capped in that LP (``bound=inf``): it is bounded without
a cap, since the uniform protocol satisfies every linearised privacy row (``G_k . Q =
(1 - e^eps) / |Y| <= 0``), and IPX is faster without the boxes (10x20 RURP 0.68 -> 0.65 s,
NURP 0.46 -> 0.40 s of CPU over alternating runs; the same proven gaps)."""
MIXED_UP_TO = 1000
"""Up to this many robust privacy terms, each is offered to the re-weighting LP with both the
solver's member and the maximiser at the solver's protocol (:func:`_robust_terms`), and the LP
mixes them; above, the maximiser alone. Where the protocol has ties (small programs solved
to 1e-10 have exact zeros) the maximiser is degenerate and the solver's member is the better
one: the demo's 3x5 RURP proves 2.1e-8 with both, 5.8e-6 with the maximisers alone. On
large programs the maximisers alone prove more than the solver's members (10x20 RURP: 9.0e-6
against 1.5e-5) and both would double the LP (0.73 s against 1.69 s of CPU, 8.8e-6)."""
DROP_RELATIVE = 1e-7
"""Dual terms below this fraction of their pair's largest are left out from the start."""
CONIC_GROUP = "protocol>=0"
"""A row group only the direct conic form has: its presence says the duals are conic."""


NO_CONIC_DUAL = ("the solver's duals are not those of the direct conic form (use "
                 "clarabel-direct or scs-direct for a proven gap)")


class NoConicDual(ValueError):
    """The result carries no dual of the direct conic form (a cvxpy or LP solver)."""


def conic_instance(program: ProtocolProgram) -> Instance:
    """The :class:`Instance` of a protocol program."""
    uncertainty = program.uncertainty
    radius = uncertainty.radius if uncertainty is not None else 0.0
    robust = (bool(program.objective.robust), any(family.robust for family in program.constraints))
    other = None if uncertainty is None or Capability.EXACT_PAIR in uncertainty.capabilities \
        or not any(robust) else uncertainty
    eps = program.eps
    assert eps is not None  # derived from the guarantee blocks in ProtocolProgram.__post_init__
    return Instance(np.asarray(program.crosstab.counts), float(radius), float(eps),
                    np.asarray(program.distortion_matrix, dtype=float), *robust, other)


def conic_dual(program: ProtocolProgram, duals: dict[str, np.ndarray], conic: ConicProgram,
               protocol: np.ndarray | None = None) -> LagrangianDual:
    """The Lagrangian dual of a direct conic solve of ``program``.

    Parameters
    ----------
    program : ProtocolProgram
    duals : dict
        ``SolveResult.dual`` (row groups of ``conic``).
    conic : solvers.ConicProgram
        The program's conic form as solved (``program.to_conic()``).
    protocol : ndarray, optional
        The solver's protocol: each member is moved to the maximiser of its
        term there (:func:`_argmax_members`), Danskin's gradient of the
        constraint at it, before the one re-weighting LP. (This replaced a
        cutting-plane round that added those maximisers beside the solver's
        members and solved the LP a second time: 10x20 RURP, proven gap 1.17e-5
        with it, 9.0e-6 now, with one LP instead of two.)

    Raises
    ------
    NoConicDual
        When the duals are not those of the direct conic form.
    """
    if CONIC_GROUP not in duals:
        raise NoConicDual(NO_CONIC_DUAL)
    instance = conic_instance(program)
    charges = _Charges(conic, duals)
    parts = [_privacy_terms(instance, charges, family, protocol)
             for family in program.constraints]
    terms = np.concatenate([p[0] for p in parts] or [np.zeros((0, 5), np.int64)])
    weights = np.concatenate([p[1] for p in parts] or [np.zeros(0)])
    sides = None
    if instance.robust_privacy:
        sides = np.concatenate([p[2] for p in parts if p[2] is not None]
                               or [np.zeros((0, 2, instance.counts.shape[1]))])
    members = None
    if instance.robust_utility:
        members = _objective_members(instance, charges.on_block(
            program.objective.name, f"{program.objective.name}.v"), None)
        if protocol is not None and members.shape[0]:
            gains = np.sum(protocol * np.tile(instance.distortion, (instance.counts.shape[0], 1)),
                           axis=1)
            members = np.concatenate([members, _objective_members(instance, members[0], gains)])
    weights, shares, _ = polished_weights(instance, terms, weights, sides, members,
                                          CONIC_LP_METHOD, bound=math.inf)
    weights, shares = _rounded(weights), None if shares is None else _rounded(shares)
    keep = weights > 0
    if members is not None and shares is not None:
        members, shares = members[shares > 0], shares[shares > 0]
    return LagrangianDual(terms[keep], weights[keep], None if sides is None else sides[keep],
                          members, shares)


def polished_weights(instance: Instance, terms: np.ndarray, weights: np.ndarray,
                     sides: np.ndarray | None, members: np.ndarray | None,
                     method: LPMethod = "highs", bound: float | None = None
                     ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The best multipliers for the fixed members: the LP
    ``max sum_x t_x  s.t.  t_x <= sum_j a_j p0_j[x] d[x, y] + sum_k lambda_k G_k[x, y]``,
    ``lambda >= 0``, ``a >= 0``, ``sum_j a_j = 1`` (nominal objective: ``Phat`` for
    ``p0``, no ``a``) (:class:`~.reweighting.ReweightingLP`).

    Its value is the Lagrangian bound of :mod:`.lagrangian` with the members
    held fixed, so the solver's multipliers are only a start: an interior-point
    dual's small multipliers of inactive constraints (``mu / slack``, each
    charging ``lambda g < 0``) go to 0 when that pays, and of several members of
    one set the best mixture is taken (valid: each charges at most the support
    function). Any ``lambda, a`` are valid, so the LP needs no certificate of
    its own; the solver's multipliers (and equal shares) are kept if it fails.

    ``method`` is HiGHS's method (:data:`CONIC_LP_METHOD` for a conic dual).
    ``bound`` caps every ``lambda`` (default: ten times the largest start, plus 1).

    Returns
    -------
    weights : ndarray, shape (k,)
    shares : ndarray, shape (m,), or None
        ``a`` per objective member.
    point : ndarray, shape (|X|, |Y|), or None
        The LP's dual: a row-stochastic protocol minimising the Lagrangian (where
        the next members are taken in :func:`protocol_dual`).
    """
    m = 0 if members is None else members.shape[0]
    fallback = (weights, None if members is None else np.full(m, 1.0 / m), None)
    if terms.shape[0] + m == 0:
        return fallback
    lp = reweighting_lp(instance, members is not None, method)
    lp.add(*_float_lagrangian(instance, terms, sides, members))
    found = lp.solve(10.0 * float(np.max(weights, initial=0.0)) + 1.0 if bound is None
                     else bound)
    if found is None:
        return fallback
    return found.weights, found.shares, found.point


def reweighting_lp(instance: Instance, with_members: bool,
                   method: LPMethod = "highs") -> ReweightingLP:
    """An empty re-weighting LP of ``instance`` (:func:`polished_weights` fills it): the
    fixed charges are the nominal objective's ``Phat[x] d[x, y]`` without objective members."""
    n_s = instance.counts.shape[0]
    fixed = np.zeros((instance.counts.size, instance.distortion.shape[1]))
    if not with_members:
        fixed = (instance.counts.ravel() / instance.counts.sum())[:, None] * \
            np.tile(instance.distortion, (n_s, 1))
    return ReweightingLP(fixed, with_members, method)


def _float_lagrangian(instance: Instance, terms: np.ndarray, sides: np.ndarray | None,
                      members: np.ndarray | None) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """The charges in floating point, as rows over ``(x, y)``: the terms' ``G`` (k rows)
    and the objective members' ``p0_j[x] d[x, y]`` (m rows)."""
    counts = instance.counts.astype(float)
    n_s, n_u = counts.shape
    n_y = instance.distortion.shape[1]
    d = np.tile(instance.distortion, (n_s, 1))
    objective = sp.csr_matrix(np.zeros((0, n_s * n_u * n_y)) if members is None else
                              np.stack([(_distribution(p)[:, None] * d).ravel()
                                        for p in members]))
    k = terms.shape[0]
    secrets, u = terms[:, [0, 1]], terms[:, [3, 4]]
    if sides is not None:
        p = _distribution(sides)
    else:  # nominal rows: the conditional, or the unit vector of u for a secret without records
        p = np.where((u >= 0)[:, :, None], np.arange(n_u) == u[:, :, None],
                     _conditionals(instance.counts)[secrets])
    vals = (p * np.array([1.0, -math.exp(instance.eps)])[:, None]).ravel()
    cols = ((secrets[:, :, None] * n_u + np.arange(n_u)) * n_y + terms[:, 2, None, None]).ravel()
    rows = np.repeat(np.arange(k), 2 * n_u)
    charges = sp.csr_matrix((vals, (rows, cols)), shape=(terms.shape[0], n_s * n_u * n_y))
    return charges, objective


class _Charges:
    """``(A_G^T z_G)`` restricted to a variable block, per row group."""

    def __init__(self, conic: ConicProgram, duals: dict[str, np.ndarray]) -> None:
        self.conic, self.duals = conic, duals
        self.protocol = conic.variable_blocks["protocol"]
        self.rows = sp.csr_matrix(conic.A[:, self.protocol.ravel()])

    def on_protocol(self, group: str) -> np.ndarray:
        rows = self.conic.row_blocks[group]
        return (self.rows[rows].T @ self.duals[group]).reshape(self.protocol.shape)

    def on_block(self, group: str, block: str) -> np.ndarray:
        rows, columns = self.conic.row_blocks[group], self.conic.variable_blocks[block]
        return np.asarray(self.conic.A[:, np.ravel(columns)].tocsr()[rows].T
                          @ self.duals[group]).ravel()

    def row_entries(self, group: str) -> list[tuple[float, np.ndarray, np.ndarray]]:
        """Per row of the group: its dual and its protocol columns and entries."""
        block = self.rows[self.conic.row_blocks[group]]
        return [(float(z), block.indices[block.indptr[i]:block.indptr[i + 1]],
                 block.data[block.indptr[i]:block.indptr[i + 1]])
                for i, z in enumerate(self.duals[group])]


def _privacy_terms(instance: Instance, charges: _Charges, family: Any,
                   protocol: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    if family.robust:
        return _robust_terms(instance, charges, family.name, protocol)
    return (*_nominal_terms(instance, charges, family.name), None)


def _robust_terms(instance: Instance, charges: _Charges, name: str,
                  protocol: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Theorem 4's blocks: ``lambda_y`` and the dual's members ``(p1, p2)`` per output (the
    outputs of one pair projected together, each member proved on its own).

    With the solver's ``protocol``, each member is also moved to the maximiser of its term
    there (:func:`_argmax_members`, every term at once): Danskin's gradient of the
    constraint at the protocol, the member the KKT conditions pair with its multiplier
    (the solver's own is that only up to its tolerance). Up to :data:`MIXED_UP_TO` terms
    both members are offered to the LP; above, the maximiser replaces the solver's member
    (which is kept where the maximiser is not proved).
    """
    n_s, n_u = instance.counts.shape
    factor = math.exp(instance.eps)
    centre = _conditionals(instance.counts)
    phat = instance.counts / instance.counts.sum()
    blocks = []
    for s1, s2 in itertools.permutations(range(n_s), 2):
        charge = charges.on_protocol(f"{name}[{s1},{s2}]")
        high = charge[s1 * n_u:(s1 + 1) * n_u]
        low = -charge[s2 * n_u:(s2 + 1) * n_u] / factor
        scale = float(np.max(high.sum(axis=0), initial=0.0))
        outputs = np.flatnonzero(high.sum(axis=0) > max(DROP_BELOW, DROP_RELATIVE * scale))
        if not outputs.size:
            continue
        excess = _pair_excess(instance, s1, s2)
        starts = _distribution(np.stack([high[:, outputs].T, low[:, outputs].T], axis=1))
        blocks.append((s1, s2, outputs, high[:, outputs].sum(axis=0), excess,
                       _projected(starts, excess)))
    refined = [block[5] for block in blocks]
    if protocol is not None and blocks:
        gains = np.concatenate([np.stack([protocol[s1 * n_u:(s1 + 1) * n_u, outputs].T,
                                          -factor * protocol[s2 * n_u:(s2 + 1) * n_u, outputs].T],
                                         axis=1) for s1, s2, outputs, *_ in blocks])
        rows = np.concatenate([np.broadcast_to(np.stack([phat[s1], phat[s2]]), (len(o), 2, n_u))
                               for s1, s2, o, *_ in blocks])
        limits = math.sqrt(instance.radius + 1) - 1 + rows.sum(axis=(1, 2))
        found = _argmax_members(np.concatenate(refined), gains, rows, limits)
        ends = np.cumsum([len(block[2]) for block in blocks])
        refined = [_projected(part, block[4])
                   for part, block in zip(np.split(found, ends[:-1]), blocks)]
    mixed = protocol is not None and sum(len(block[2]) for block in blocks) <= MIXED_UP_TO
    terms, weights, sides = [], [], []
    with flint.ctx.workprec(BITS):
        balls = InstanceBalls(instance)
        for (s1, s2, outputs, charged, excess, starts), moved in zip(blocks, refined):
            prove = functools.partial(balls.in_pair_projection, s1, s2)
            middle = np.stack([centre[s1], centre[s2]])
            for y, weight, start, better in zip(outputs.tolist(), charged.tolist(), starts, moved):
                proved = [_proved_member(better, middle, prove, excess)]
                if protocol is not None and (mixed or proved[0] is None) and \
                        not np.array_equal(start, better):
                    proved.append(_proved_member(start, middle, prove, excess))
                for member in proved if mixed else proved[-1:]:
                    if member is not None:
                        terms.append((s1, s2, int(y), -1, -1))
                        weights.append(float(weight))
                        sides.append(member)
    return (np.asarray(terms, dtype=np.int64).reshape(-1, 5), np.asarray(weights),
            np.asarray(sides).reshape(-1, 2, n_u))


def _pair_excess(instance: Instance, s1: int, s2: int) -> Any:
    """Theorem 3's membership constraint of the pair ``(s1, s2)`` in floats, over a stack of
    members ``(..., 2, |U|)``: ``sum_i sqrt(sum_u Phat_iu^2 / p_iu) - (sqrt(B + 1) - 1 +
    Phat_s1 + Phat_s2)`` (``<= 0`` inside) and its gradient."""
    phat = instance.counts / instance.counts.sum()
    rows = np.stack([phat[s1], phat[s2]])
    limit = math.sqrt(instance.radius + 1) - 1 + rows.sum()
    counted = rows > 0
    squared = rows**2

    def excess(member: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # both sides at once (``where=`` skips no-count cells)
        spread = np.sum(np.divide(squared, member, out=np.zeros_like(member), where=counted),
                        axis=-1)
        roots = np.sqrt(spread)
        slope = -np.divide(squared, member**2, out=np.zeros_like(member), where=counted)
        halved = np.divide(slope, 2 * roots[..., None], out=np.zeros_like(member),
                           where=roots[..., None] > 0)
        return roots.sum(axis=-1) - limit, halved

    return excess


def _pair_member(balls: InstanceBalls, s1: int, s2: int,
                 sides: tuple[np.ndarray, np.ndarray], centre: tuple[np.ndarray, np.ndarray],
                 gains: np.ndarray | None) -> np.ndarray | None:
    """The solver's ``(p1, p2)`` pulled into the pair projection (Theorem 3), proved;
    refined first to the maximiser of ``gains . (p1, p2)`` when gains are given."""
    phat = balls.instance.counts / balls.instance.counts.sum()
    rows = np.stack([phat[s1], phat[s2]])
    limit = math.sqrt(balls.instance.radius + 1) - 1 + rows.sum()
    excess = _pair_excess(balls.instance, s1, s2)
    start = _distribution(np.stack(sides))
    if gains is not None:
        start = _argmax_member(start, gains, rows, limit)
    return _proved_member(_projected(start[None], excess)[0], np.stack(centre),
                          lambda rows: balls.in_pair_projection(s1, s2, rows), excess)


def _argmax_member(start: np.ndarray, gains: np.ndarray, rows: np.ndarray,
                   limit: float) -> np.ndarray:
    """:func:`_argmax_members` of one start (shape ``(rows, |U|)``)."""
    return _argmax_members(start[None], gains[None], rows[None], np.array([limit]))[0]


def _argmax_members(starts: np.ndarray, gains: np.ndarray, rows: np.ndarray,
                    limits: np.ndarray) -> np.ndarray:
    """Newton's method on the optimality conditions of ``max gains . (p1, p2)`` over Theorem
    3's set, ``sum_i sqrt(sum_u w_iu^2 / p_iu) = limit - 2 TARGET``, ``sum_u p_iu = 1``
    (with one row: F itself, ``sqrt(sum_x Phat_x^2 / p_x) = sqrt(B + 1)``), for a stack of
    starts, gains and weights ``w`` (``rows``), all ``(T, rows, |U|)``, and limits ``(T,)``:
    the members whose sides with records are the same sides are iterated together, one
    batched linear solve per Newton step, each member stopping on its own test.

    Only cells with records move (the others keep the start's mass: in the batch they
    have no gain, no weight and no share in their side's sum, so their step is 0). A
    start is returned unchanged if its iteration does not converge (a degenerate
    maximiser, e.g. gains constant in u): it is then only a candidate, as every member
    is until proved.
    """
    members = np.array(starts, dtype=float)
    moving = rows > 0
    shapes, group = np.unique(moving.any(axis=2), axis=0, return_inverse=True)
    for k, sides in enumerate(shapes):
        at = np.flatnonzero(group.ravel() == k)
        if sides.any():
            members[at] = _argmax_group(members[at], gains[at], rows[at], limits[at],
                                        np.flatnonzero(sides))
    return members


@np.errstate(divide="ignore", invalid="ignore", over="ignore")
def _argmax_group(starts: np.ndarray, gains: np.ndarray, rows: np.ndarray, limits: np.ndarray,
                  sides: np.ndarray) -> np.ndarray:
    """:func:`_argmax_members` of members whose rows with records are ``sides``.

    A degenerate member (a cell driven to 0, gains constant on a side) makes the iteration's
    values non-finite; numpy's warnings about it are not shown, because such a member fails
    every test it meets (comparisons with NaN are false): it leaves the iteration and is
    returned as its start, a candidate to be proved like any other."""
    count, n = starts.shape[0], starts[0].size
    moving = (rows > 0).reshape(count, n)
    side_of = np.repeat(np.arange(starts.shape[1]), starts.shape[2])
    sums = (side_of[None, None, :] == sides[None, :, None]) & moving[:, None, :]  # (T, m, n)
    sums = sums.astype(float)
    flat = starts.reshape(count, n)
    g = np.where(moving, gains.reshape(count, n), 0.0)
    p = np.where(moving, flat, 1.0)  # a placeholder where the cell does not move
    squared = np.where(moving, rows.reshape(count, n), 0.0)**2
    target = 1.0 - np.einsum("tin,tn->ti", (side_of[None, :] == sides[:, None]) * 1.0
                             * ~moving[:, None, :], flat)
    bound = limits - 2 * TARGET

    def parts(live: np.ndarray) -> tuple[np.ndarray, np.ndarray, _Hessian]:
        q, w2, s = p[live], squared[live], sums[live]
        spread = np.einsum("tin,tn->ti", s, w2 / q)  # (T, sides)
        root = np.sqrt(spread)
        on_side = np.einsum("tin,ti->tn", s, root)  # each cell's side's root (0: fixed)
        d_spread = -w2 / q**2
        gradient = np.divide(d_spread, 2 * on_side, out=np.zeros_like(q), where=on_side > 0)
        diagonal = np.divide(w2 / q**3, on_side, out=np.ones_like(q), where=on_side > 0)
        return root.sum(axis=1) - bound[live], gradient, _Hessian(diagonal, d_spread,
                                                                  spread * root, s)

    def value_of(q: np.ndarray, live: np.ndarray) -> np.ndarray:
        return np.sqrt(np.einsum("tin,tn->ti", sums[live], squared[live] / q)).sum(axis=-1) \
            - bound[live]

    everyone = np.arange(count)
    inside = np.flatnonzero(value_of(p, everyone) < -1e-6)  # off the boundary: tilt first
    if inside.size:
        p[inside] = _tilted(p[inside], g[inside], sums[inside], target[inside],
                            lambda q: value_of(q, inside))
    gradient = parts(everyone)[1]
    basis = np.concatenate([gradient[:, :, None], sums.transpose(0, 2, 1)], axis=2)
    multipliers = np.einsum("tij,tj->ti", np.linalg.pinv(basis), g)
    live = everyone
    for _ in range(ARGMAX_STEPS):
        value, gradient, hessian = parts(live)
        nu, tau = multipliers[live, 0], multipliers[live, 1:]
        residual = np.concatenate([g[live] - nu[:, None] * gradient
                                   - np.einsum("ti,tin->tn", tau, sums[live]), value[:, None],
                                   np.einsum("tin,tn->ti", sums[live], p[live])
                                   - target[live]], axis=1)
        going = (np.max(np.abs(residual), axis=1) >= 1e-15) & (nu != 0)
        live, residual = live[going], residual[going]
        if not live.size:
            break
        step = _newton_step(nu[going], hessian.of(going), gradient[going], residual)
        scale = np.ones(live.size)
        for _ in range(20):  # halve each member's step until it keeps p > 0 (down to 1e-6)
            leaving = np.any(p[live] + scale[:, None] * step[:, :n] <= 0, axis=1)
            if not leaving.any():
                break
            scale[leaving] /= 2
        stuck = np.any(p[live] + scale[:, None] * step[:, :n] <= 0, axis=1)
        live, step, scale = live[~stuck], step[~stuck], scale[~stuck]
        if not live.size:
            break
        p[live] += scale[:, None] * step[:, :n]
        multipliers[live] += scale[:, None] * step[:, n:]
    found = np.all(p > 0, axis=1) & (np.abs(value_of(p, everyone)) < 1e-12) & \
        (multipliers[:, 0] >= 0)
    members = flat.copy()
    members[found] = np.where(moving[found], p[found], flat[found])
    return members.reshape(starts.shape)


@dataclasses.dataclass(frozen=True)
class _Hessian:
    """The Hessian of ``sum_i sqrt(s_i)``, ``s_i = sum_{u in side i} w_u^2 / p_u``, per member:
    ``diag(diagonal) - sum_i d_i d_i^T / (4 s_i sqrt(s_i))`` with ``d = -w^2 / p^2`` restricted
    to side ``i`` (``sums[i]``; ``cube`` is ``s_i sqrt(s_i)``), applied inverse by
    Sherman-Morrison-Woodbury, whose capacitance ``4 s r - d^T diag^-1 d`` is ``3 s sqrt(s)``
    per side exactly. (A cell that does not move has ``d = 0`` and diagonal 1.)"""

    diagonal: np.ndarray
    d_spread: np.ndarray
    cube: np.ndarray
    sums: np.ndarray

    def of(self, rows: np.ndarray) -> "_Hessian":
        return _Hessian(self.diagonal[rows], self.d_spread[rows], self.cube[rows],
                        self.sums[rows])

    def solve(self, x: np.ndarray) -> np.ndarray:
        """``H^-1 x`` for a stack ``x`` of shape ``(T, n, k)``."""
        scaled = x / self.diagonal[:, :, None]
        along = np.einsum("tin,tnk->tik", self.sums, self.d_spread[:, :, None] * scaled)
        back = np.einsum("tin,tik->tnk", self.sums, along / (3 * self.cube[:, :, None]))
        return scaled + self.d_spread[:, :, None] * back / self.diagonal[:, :, None]


def _newton_step(nu: np.ndarray, hessian: _Hessian, gradient: np.ndarray,
                 residual: np.ndarray) -> np.ndarray:
    """The Newton step ``(dp, dnu, dtau)`` of :func:`_argmax_members`' optimality conditions,
    ``J step = -residual`` with ``J = [[-nu H, -B], [B^T, 0]]``, ``B = [gradient, sums^T]``, by
    its Schur complement ``B^T H^-1 B`` (``1 + sides`` square per member) instead of the dense
    ``(n + 1 + sides)``-square solve."""
    n = gradient.shape[1]
    border = np.concatenate([gradient[:, :, None], hessian.sums.transpose(0, 2, 1)], axis=2)
    first, rest = residual[:, :n], residual[:, n:]
    solved = hessian.solve(np.concatenate([border, first[:, :, None]], axis=2))
    schur = np.einsum("tnj,tnk->tjk", border, solved[:, :, :-1])
    right = np.einsum("tnj,tn->tj", border, solved[:, :, -1]) + nu[:, None] * rest
    multipliers = _solved(schur, right)
    # rows of J: -nu H dp - B z = -first, B^T dp = -rest; so dp = H^-1 (first - B z) / nu
    dp = (solved[:, :, -1] - np.einsum("tnj,tj->tn", solved[:, :, :-1], multipliers)) / \
        nu[:, None]
    return np.concatenate([dp, multipliers], axis=1)


def _solved(matrices: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """``matrices[t]^-1 vectors[t]`` per ``t``; least squares where a matrix is singular."""
    try:
        return np.linalg.solve(matrices, vectors[..., None])[..., 0]
    except np.linalg.LinAlgError:
        return np.stack([np.linalg.lstsq(a, b, rcond=None)[0] for a, b in zip(matrices, vectors)])


def _tilted(p: np.ndarray, gains: np.ndarray, sums: np.ndarray, target: np.ndarray,
            excess: Any) -> np.ndarray:
    """Starts on the set's boundary tilted toward the gains, a stack ``(T, n)``: ``p * exp(c g
    / scale)`` per side, rescaled to its mass, with ``c >= 0`` found by bisection (every
    start at once) so that ``excess = 0`` (it is ``<= 0`` at ``c = 0``, the centre, and grows
    with ``c``); a start itself where none is found. ``sums`` ``(T, sides, n)`` says which
    entries make up each side's mass ``target`` ``(T, sides)`` (entries in none are not
    rescaled); ``excess`` maps a stack to its values."""
    spread = np.maximum(np.ptp(gains, axis=1), 1e-300)
    logits = (gains - gains.max(axis=1, keepdims=True)) / spread[:, None]
    alone = 1.0 - sums.sum(axis=1)

    def at(c: np.ndarray) -> np.ndarray:
        q = p * np.exp(c[:, None] * logits)
        masses = np.einsum("tin,tn->ti", sums, q)
        ratio = target / np.where(masses > 0, masses, 1.0)
        return q * (np.einsum("tin,ti->tn", sums, ratio) + alone)

    low, high = np.zeros(p.shape[0]), np.ones(p.shape[0])
    for _ in range(21):  # doubling up to 2^20 ~ 1e6
        short = (excess(at(high)) < 0) & (high < 1e6)
        if not short.any():
            break
        low, high = np.where(short, high, low), np.where(short, 2 * high, high)
    bracketed = (excess(at(high)) >= 0) & (excess(at(low)) <= 0)
    for _ in range(60):
        middle = 0.5 * (low + high)
        moving = (low < middle) & (middle < high)  # adjacent doubles: ``low`` is final
        if not moving.any():
            break
        below = excess(at(middle)) < 0
        low = np.where(moving & below, middle, low)
        high = np.where(moving & ~below, middle, high)
    return np.where(bracketed[:, None], at(low), p)


def _objective_members(instance: Instance, start: np.ndarray,
                       gains: np.ndarray | None) -> np.ndarray:
    """A member of F (eq. 2) from ``start`` (the dual's charge on ``v``, or an earlier
    member), refined to the maximiser of ``gains . p`` when gains are given, pulled
    inside and proved. Shape (0 or 1, |X|)."""
    counts = instance.counts.ravel().astype(float)
    phat = counts / counts.sum()

    def excess(member: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = member[..., 0, :]
        ratio = np.divide(phat**2, p, out=np.zeros_like(p), where=phat > 0)
        gradient = -np.divide(ratio, p, out=np.zeros_like(p), where=phat > 0)
        return ratio.sum(axis=-1) - (instance.radius + 1), gradient[..., None, :]

    begin = _distribution(start)[None, :]
    if gains is not None:
        begin = _argmax_member(begin, gains[None, :], phat[None, :],
                               math.sqrt(instance.radius + 1) + 2 * TARGET)
    with flint.ctx.workprec(BITS):
        balls = InstanceBalls(instance)
        member = _proved_member(_projected(begin[None], excess)[0], phat[None, :],
                                lambda rows: balls.in_chi_square_set(rows[0]), excess)
    return np.zeros((0, phat.size)) if member is None else member


def _projected(members: np.ndarray, excess: Any) -> np.ndarray:
    """Newton steps on ``excess(member) <= -TARGET`` along its gradient projected onto
    ``sum = 0`` per row: the smallest move, so the bound barely changes (a move toward
    the centre would cost ``1 / margin`` times more).

    ``members`` is a stack ``(T, rows, n)`` and ``excess`` works on stacks; each member
    takes its own steps (the same operations as one at a time) and stops on its own test.
    """
    members = members.copy()
    live = np.arange(members.shape[0])
    for _ in range(NEWTON_STEPS):
        if not live.size:
            break
        value, gradient = excess(members[live])
        direction = gradient - gradient.mean(axis=-1, keepdims=True)
        norm = np.sum(direction.reshape(live.size, -1)**2, axis=1)
        going = np.isfinite(value) & (value > -TARGET) & (norm != 0)
        live, value, direction, norm = live[going], value[going], direction[going], norm[going]
        if not live.size:
            break
        step = (-(value + 2 * TARGET) / norm)[:, None, None] * direction
        moved, kept = step.copy(), np.zeros(live.size, dtype=bool)
        trying = np.arange(live.size)
        for _ in range(BACKTRACKS):  # a full step may leave the simplex: shorten it
            trial = members[live[trying]] + step[trying]
            inside = ~np.any((trial < 0).reshape(trying.size, -1), axis=1)
            moved[trying[inside]], kept[trying[inside]] = trial[inside], True
            trying = trying[~inside]
            if not trying.size:
                break
            step[trying] = step[trying] / 2
        members[live[kept]] = moved[kept]
        live = live[kept]  # a member whose every shortened step leaves the simplex stops
    return members


def _proved_member(start: np.ndarray, centre: np.ndarray, proved: Any,
                   excess: Any) -> np.ndarray | None:
    """``start`` moved toward ``centre`` by the first weight of :data:`SHRINK_WEIGHTS` for
    which ``proved`` holds of the rounded member's rows, normalised to balls.

    A weight whose member ``excess`` (the membership constraint in floats) puts outside by
    more than :data:`CLEARLY_OUTSIDE` is skipped unproved: the proof would fail there (the
    float error and the normalisation move the value by ~1e-12), so the member found is
    the same, for a fraction of the ball arithmetic.
    """
    for weight in SHRINK_WEIGHTS:
        member = (1 - weight) * start + weight * centre
        if excess(member)[0] > CLEARLY_OUTSIDE:  # rounding moves it by ~1e-12: skip unrounded
            continue
        member = _rounded(member)
        rows = [normalised(row) for row in member]
        if all(row is not None for row in rows) and proved(rows):
            return member
    return None


def _nominal_terms(instance: Instance, charges: _Charges,
                   name: str) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (6) rows: ``(s1, s2, y, u1, u2)`` read from each row's entries, and its multiplier."""
    n_s, n_u = instance.counts.shape
    n_y = instance.distortion.shape[1]
    zero = instance.counts.sum(axis=1) == 0
    terms, weights = [], []
    for dual, columns, entries in charges.row_entries(name):
        if dual <= DROP_BELOW:
            continue
        cells = columns // n_y
        high, low = cells[entries > 0], cells[entries < 0]
        s1, s2 = int(high[0] // n_u), int(low[0] // n_u)
        u1 = int(high[0] % n_u) if zero[s1] else -1
        u2 = int(low[0] % n_u) if zero[s2] else -1
        terms.append((s1, s2, int(columns[0] % n_y), u1, u2))
        weights.append(dual)
    return np.asarray(terms, dtype=np.int64).reshape(-1, 5), np.asarray(weights)


def _conditionals(counts: np.ndarray) -> np.ndarray:
    """``Phat_{U|s}`` per secret (uniform for a secret without records)."""
    totals = counts.sum(axis=1, keepdims=True).astype(float)
    uniform = np.full(counts.shape, 1.0 / counts.shape[1])
    return np.where(totals > 0, counts / np.where(totals > 0, totals, 1.0), uniform)


def _distribution(values: np.ndarray) -> np.ndarray:
    """``values`` clipped at 0 and normalised along the last axis (uniform where all are 0)."""
    clipped = np.clip(np.asarray(values, dtype=float), 0.0, None)
    total = clipped.sum(axis=-1, keepdims=True)
    uniform = np.full(clipped.shape, 1.0 / clipped.shape[-1])
    return np.where(total > 0, clipped / np.where(total > 0, total, 1.0), uniform)


def _rounded(values: np.ndarray) -> np.ndarray:
    """``values`` to :data:`DIGITS` significant digits (short in the record)."""
    return np.array([float(f"{v:.{DIGITS}g}") for v in np.ravel(values)]).reshape(
        np.shape(values))



# ---------------------------------------------------------------------- without a solver dual
# Members at a protocol, without a solver dual (:func:`protocol_dual`).
#
# Any multipliers ``lambda >= 0`` and any proved members give a valid lower
# bound (:mod:`.lagrangian`), so a solver's dual is only one way to start. Here
# the members are the maximisers of every robust term at the returned protocol
# ``Q`` (Danskin: the gradients of the constraints there) and the multipliers
# are chosen by the re-weighting LP (:func:`polished_weights`).
# If ``Q`` is optimal and the program's KKT conditions hold there, the
# linearised Lagrangian at those members and the KKT multipliers is minimised by
# ``Q`` with value ``OPT``: the bound is tight up to how far ``Q`` is from
# optimal. This serves
#
# * sets other than chi-square, where robust privacy is the product of
#   single-secret projections (``(**)`` of :mod:`rldp_models.uncertainty.base`):
#   a maximiser of ``q . R`` over ``C_s`` is the conditional at ``s`` of a joint
#   member of the set, found by Dinkelbach's iteration on ``(*)`` with the set's
#   own ``worst_case``; the joint members are stored (the record's ``pool``) and
#   proved to lie in the set (:mod:`.set_members`);
# * chi-square programs solved through cvxpy (``clarabel``, ``ecos``, ``scs``),
#   whose duals are per cvxpy constraint rather than per conic row: the pair
#   members are Theorem 3's maximisers at ``Q`` (:func:`_pair_member`).
DINKELBACH_STEPS = 8
"""Iterations of Dinkelbach's method per conditional supremum (it converges superlinearly)."""
START_WEIGHT = 1e3
"""The start multiplier of every term; the LP may raise each to ten times it."""
LINEAR_ROUNDS = 40
"""Cutting-plane rounds after the first for polyhedral sets (Adult race x education over TV: 40
rounds reach a proven gap of 2.0e-6 in 81 s). The rounds stop by count and by stalling
(:data:`STALLED`, :data:`PATIENCE`), so the proven gap of a record does not depend on how
loaded the machine was."""
SAFETY_SECONDS = 900.0
"""A guard only: no new round starts after this long, and the record says so
(``stopped_early``); the count and the stall test end every run measured here first."""
STALLED = 1e-10
PATIENCE = 3
"""The rounds stop once the bound gained less than STALLED (relative) PATIENCE rounds running
(Kelley's bound plateaus and then moves again)."""
SMOOTH_ROUNDS = 3
"""Cutting-plane rounds after the first (:func:`_rounds`)."""


def protocol_dual(instance: Instance, protocol: np.ndarray,
                  safety_seconds: float | None = None) -> tuple[LagrangianDual, str | None]:
    """Members at ``protocol`` for every term and the objective, weights by the LP; then
    cutting planes: members at the LP's own protocol (the minimiser of the Lagrangian over
    the members so far), re-weighted, for :func:`_rounds` rounds or until the bound stalls
    (:data:`PATIENCE` rounds gaining less than :data:`STALLED`): a deterministic stop.

    Parameters
    ----------
    instance : Instance
        ``instance.uncertainty`` set for the product model, None for chi-square.
    protocol : ndarray, shape (|S||U|, |Y|)
    safety_seconds : float, optional
        The guard (default :data:`SAFETY_SECONDS`): no round starts after this long.

    Returns
    -------
    dual : LagrangianDual
    stopped_early : str or None
        Why the rounds stopped before their count or a stall (the guard fired), else None.
    """
    base = _all_terms(instance)
    cut = _Cuts(instance, base)
    at: np.ndarray | None = protocol
    weights, shares = np.zeros(0), None
    reached, start, stalled = -math.inf, time.perf_counter(), 0
    stopped_early = None
    safety_seconds = SAFETY_SECONDS if safety_seconds is None else safety_seconds
    for done in range(_rounds(instance) + 1):
        if at is None:
            break
        if done and time.perf_counter() - start > safety_seconds:
            stopped_early = (f"cutting planes stopped by the {safety_seconds:g} s safety guard "
                             f"after {done} of {_rounds(instance) + 1} rounds")
            break
        cut.add(at)
        weights, shares, at = polished_weights(
            instance, cut.terms, np.full(cut.terms.shape[0], START_WEIGHT), cut.sides,
            cut.members)
        value = _float_bound(instance, cut, weights, shares)
        stalled = stalled + 1 if value <= reached + STALLED * abs(value) else 0
        if not (instance.robust_privacy or instance.robust_utility) or stalled >= PATIENCE:
            break
        reached = max(reached, value)
    return cut.dual(_rounded(weights), None if shares is None else _rounded(shares)), \
        stopped_early


def _float_bound(instance: Instance, cut: "_Cuts", weights: np.ndarray,
                 shares: np.ndarray | None) -> float:
    """The Lagrangian bound of the weights in floating point (only to see the rounds stall;
    the stored bound is proved by :func:`~.lagrangian.lower_bound`)."""
    charges, objective = _float_lagrangian(instance, cut.terms, cut.sides, cut.members)
    if cut.members is None:
        phat = instance.counts.ravel() / instance.counts.sum()
        total = (phat[:, None] * np.tile(instance.distortion, (instance.counts.shape[0], 1))
                 ).ravel()
    else:
        total = objective.T @ (shares if shares is not None else
                               np.full(objective.shape[0], 1.0 / max(objective.shape[0], 1)))
    total = total + charges.T @ weights
    return float(total.reshape(instance.counts.size, -1).min(axis=1).sum())


def _rounds(instance: Instance) -> int:
    """Cutting-plane rounds after the first: polyhedral sets have many maximisers at an
    optimal protocol (ties), and one member per term cannot express the subgradient the
    KKT conditions mix; strictly convex sets have one."""
    linear = instance.product and Capability.LINEAR in getattr(
        instance.uncertainty, "capabilities", frozenset())
    return LINEAR_ROUNDS if linear else SMOOTH_ROUNDS


class _Cuts:
    """The growing list of terms with their members (``sides`` in floats for the LP)."""

    def __init__(self, instance: Instance, base: np.ndarray) -> None:
        self.instance, self.base = instance, base
        n_u = instance.counts.shape[1]
        robust_product = instance.robust_privacy and instance.product
        self.terms = base if not instance.robust_privacy else np.zeros((0, 5), np.int64)
        self.sides = np.zeros((0, 2, n_u)) if instance.robust_privacy else None
        self.pool = np.zeros((0, instance.counts.size)) if robust_product else None
        self.witnesses = np.zeros((0, 2), np.int64) if robust_product else None
        self.members = np.zeros((0, instance.counts.size)) if instance.robust_utility else None

    def add(self, point: np.ndarray) -> None:
        instance = self.instance
        if instance.robust_privacy and instance.product:
            assert self.pool is not None and self.witnesses is not None
            pool, witnesses = _product_witnesses(instance, point, self.base)
            keep = (witnesses >= 0).all(axis=1)
            sides = [[_conditional(pool[i], s, instance) for i, s in zip(pair, term[:2])]
                     for pair, term in zip(witnesses[keep].tolist(), self.base[keep].tolist())]
            self._extend(self.base[keep], np.asarray(sides))
            self.witnesses = np.concatenate([self.witnesses, witnesses[keep] + len(self.pool)])
            self.pool = np.concatenate([self.pool, pool])
        elif instance.robust_privacy:
            self._extend(*_pair_members(instance, point, self.base))
        if self.members is not None:
            found = _set_objective_members(instance, point) if instance.product else \
                _objective_members(instance, instance.counts.ravel().astype(float),
                                   _cell_distortion(instance, point))
            self.members = np.concatenate([self.members, found])

    def _extend(self, terms: np.ndarray, sides: np.ndarray) -> None:
        assert self.sides is not None
        n_u = self.instance.counts.shape[1]
        self.terms = np.concatenate([self.terms, terms.reshape(-1, 5)])
        self.sides = np.concatenate([self.sides, sides.reshape(-1, 2, n_u)])

    def dual(self, weights: np.ndarray, shares: np.ndarray | None) -> LagrangianDual:
        """The terms with a positive weight (and the pool rows they use)."""
        keep = weights > 0
        members = self.members
        if members is not None and shares is not None:
            members, shares = members[shares > 0], shares[shares > 0]
        if self.pool is not None and self.witnesses is not None:
            pool, witnesses = _compact(self.pool, self.witnesses[keep])
            return LagrangianDual(self.terms[keep], weights[keep], None, members, shares,
                                  pool, witnesses)
        sides = None if self.sides is None else self.sides[keep]
        return LagrangianDual(self.terms[keep], weights[keep], sides, members, shares)


def _all_terms(instance: Instance) -> np.ndarray:
    """Every privacy constraint ``(s1, s2, y, u1, u2)``: robust terms have members on both
    sides (``u = -1``); nominal rows of a secret without records are one per ``u``."""
    n_s, n_u = instance.counts.shape
    n_y = instance.distortion.shape[1]
    without = instance.counts.sum(axis=1) == 0

    def values(s: int) -> list[int]:
        return list(range(n_u)) if without[s] and not instance.robust_privacy else [-1]

    rows = [(s1, s2, y, u1, u2) for s1, s2 in itertools.permutations(range(n_s), 2)
            for y in range(n_y) for u1 in values(s1) for u2 in values(s2)]
    return np.asarray(rows, dtype=np.int64).reshape(-1, 5)


def _cell_distortion(instance: Instance, protocol: np.ndarray) -> np.ndarray:
    """``v_x = sum_y Q[x, y] d[u_x, y]``: the robust objective's gains."""
    return np.sum(protocol * np.tile(instance.distortion, (instance.counts.shape[0], 1)), axis=1)


# ---------------------------------------------------------------------- chi-square
def _pair_members(instance: Instance, protocol: np.ndarray,
                  terms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 3's maximiser of each term at ``protocol``, proved; terms without one dropped."""
    n_u = instance.counts.shape[1]
    factor = math.exp(instance.eps)
    centre = _conditionals(instance.counts)
    kept, sides = [], []
    with flint.ctx.workprec(BITS):
        balls = InstanceBalls(instance)
        for k, (s1, s2, y, _, _) in enumerate(terms.tolist()):
            gains = np.stack([protocol[s1 * n_u:(s1 + 1) * n_u, y],
                              -factor * protocol[s2 * n_u:(s2 + 1) * n_u, y]])
            member = _pair_member(balls, s1, s2, (centre[s1], centre[s2]),
                                  (centre[s1], centre[s2]), gains)
            if member is not None:
                kept.append(k)
                sides.append(member)
    return terms[kept], np.asarray(sides).reshape(-1, 2, n_u)


# ---------------------------------------------------------------------- product model
def _product_witnesses(instance: Instance, protocol: np.ndarray,
                       terms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Joint members attaining ``sup_{C_s1} q1 . R`` and ``inf_{C_s2} q2 . R`` per term
    (one per ``(s, y, direction)``, shared by the terms), and each term's two pool rows
    (``-1`` where no proved member was found)."""
    n_u = instance.counts.shape[1]
    pool: list[np.ndarray] = []
    index: dict[tuple[int, int, int], int] = {}

    def witness(s: int, y: int, sign: int) -> int:
        if (s, y, sign) not in index:
            found = _conditional_maximiser(instance, sign * protocol[s * n_u:(s + 1) * n_u, y], s)
            index[(s, y, sign)] = -1 if found is None else len(pool)
            if found is not None:
                pool.append(found)
        return index[(s, y, sign)]

    witnesses = np.array([[witness(s1, y, 1), witness(s2, y, -1)]
                          for s1, s2, y, _, _ in terms.tolist()], dtype=np.int64).reshape(-1, 2)
    size = instance.counts.size
    return np.asarray(pool).reshape(-1, size), witnesses


def _conditional_maximiser(instance: Instance, q: np.ndarray, s: int) -> np.ndarray | None:
    """A proved joint member ``P`` whose conditional at ``s`` (nearly) maximises ``q . R`` over
    ``C_s``: Dinkelbach on ``(*)``, ``P_{k+1} = argmax_F e_s(q - kappa_k) . P``,
    ``kappa_{k+1} = q . P_{k+1}(. | s)``."""
    uncertainty = instance.uncertainty
    shape = np.asarray(uncertainty.phat).shape
    phat = np.asarray(uncertainty.phat, dtype=float).reshape(shape)
    kappa = float(q @ _conditional(phat.ravel(), s, instance))
    best = phat.ravel()
    for _ in range(DINKELBACH_STEPS):
        gains = np.zeros(shape)
        gains[s] = q - kappa
        point = _set_maximiser(uncertainty, gains.ravel())
        block = point.reshape(shape)[s]
        if not block.sum() > 0:
            break
        value = float(q @ block / block.sum())
        if value <= kappa + 1e-15 * max(1.0, abs(kappa)):
            if value >= kappa:
                best = point
            break
        kappa, best = value, point
    member = _proved(instance, best, phat.ravel())
    if member is None or not member.reshape(shape)[s].sum() > 0:
        return None  # no witness of C_s here (e.g. a secret without records): term left out
    return member


def _set_maximiser(uncertainty: Any, v: np.ndarray) -> np.ndarray:
    """A maximiser of ``v . P`` over the set, as a flat vector (a candidate: proved later).

    The KL ball's in closed form from its one-scalar dual (``P_x`` proportional to
    ``Phat_x / (mu - v_x)`` at the optimal ``mu > max v``: the stationarity condition of the
    Lagrangian), which spares a conic solve per call; otherwise (and when a cell has no
    records: the ball then reaches mass there, which that form misses) the set's own
    ``worst_case``.
    """
    if isinstance(uncertainty, KLBallSet) and np.all(np.asarray(uncertainty.phat) > 0):
        mu = float(np.ravel(uncertainty.support_multipliers(v)["mu"])[0])
        phat = np.asarray(uncertainty.phat, dtype=float).ravel()
        gap = mu - v
        if np.all(gap[phat > 0] > 0):
            weights = np.divide(phat, gap, out=np.zeros_like(phat), where=phat > 0)
            return weights / weights.sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # every member is proved later
        found = uncertainty.worst_case(v)[0]
    return np.clip(np.asarray(found, dtype=float).ravel(), 0.0, None)


def _proved(instance: Instance, point: np.ndarray, centre: np.ndarray) -> np.ndarray | None:
    """``point`` rounded to :data:`DIGITS` digits and moved toward ``centre`` by the first
    weight of :data:`SHRINK_WEIGHTS` at which it is proved to lie in the set."""
    for weight in SHRINK_WEIGHTS:
        member = _rounded((1 - weight) * point + weight * centre)
        exact = exact_distribution(member)
        if exact is not None and proved_member(instance.uncertainty, exact):
            return member
    return None


def _conditional(joint: np.ndarray, s: int, instance: Instance) -> np.ndarray:
    n_u = instance.counts.shape[1]
    block = np.clip(np.asarray(joint, dtype=float)[s * n_u:(s + 1) * n_u], 0.0, None)
    return block / block.sum() if block.sum() > 0 else np.full(n_u, 1.0 / n_u)


def _set_objective_members(instance: Instance, protocol: np.ndarray) -> np.ndarray:
    """The set's maximiser of the robust objective at ``protocol``, proved (0 or 1 rows)."""
    uncertainty = instance.uncertainty
    centre = np.asarray(uncertainty.phat, dtype=float).ravel()
    point = _set_maximiser(uncertainty, _cell_distortion(instance, protocol))
    member = _proved(instance, np.clip(point, 0.0, None), centre)
    return np.zeros((0, centre.size)) if member is None else member[None, :]


def _compact(pool: np.ndarray, witnesses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Only the pool rows some kept term uses, renumbered."""
    used = np.unique(witnesses)
    renumber = {int(old): new for new, old in enumerate(used.tolist())}
    return pool[used], np.vectorize(renumber.__getitem__, otypes=[np.int64])(witnesses) \
        if witnesses.size else witnesses.reshape(-1, 2)



def blocks_outside_the_model(program: ProtocolProgram) -> list[str]:
    """Names of the program's blocks the optimality model does not cover (each block says,
    :meth:`~rldp_models.programs.contract.Block.optimality_modelled`: the four programs'
    objectives and privacy over every output and secret pair), and every guarantee after the
    first (the model has one privacy level)."""
    outside = [] if program.objective.optimality_modelled() else \
        [type(program.objective).__name__]
    outside += [family.name for family in program.constraints
                if not family.optimality_modelled()]
    return list(dict.fromkeys([*outside, *(f.name for f in program.guarantees[1:])]))


def lagrangian_optimality(solution: ProtocolSolution) -> dict[str, Any]:
    """``certificate.optimality`` from the Lagrangian model of the four programs
    (:mod:`rldp_models.optimality.lagrangian`), or why there is none.

    Parameters
    ----------
    solution : ProtocolSolution
        Finished (its protocol and multipliers are the returned ones).
    """
    program, result = solution.program, solution.result
    start = time.perf_counter()
    if solution.protocol is None:
        return not_claimed("the solver returned no protocol")
    outside = blocks_outside_the_model(program)
    if outside:
        return not_claimed(f"the program has blocks the Lagrangian model does not cover "
                           f"({', '.join(outside)}): it covers the four programs' objectives and "
                           "one privacy guarantee over every output and secret pair")
    instance = conic_instance(program)
    if instance.product and not provable(instance.uncertainty):
        return not_claimed(f"membership in the {type(instance.uncertainty).__name__} cannot be "
                           "proved by this certificate (KL, l1/TV, box, polyhedral and power-"
                           "divergence sets can)")
    solver_protocol = np.asarray(result.primal.get("protocol", solution.protocol), dtype=float)
    stopped_early = None
    try:
        if CONIC_GROUP in result.dual and not instance.product:
            dual = conic_dual(program, result.dual, program.to_conic(), solver_protocol)
        else:  # no conic dual (cvxpy path) or the product model: members at the protocol
            dual, stopped_early = protocol_dual(instance, solver_protocol)
    except (NoConicDual, UnsupportedModelError) as exc:
        return not_claimed(str(exc))
    except (KeyError, IndexError, ValueError, np.linalg.LinAlgError) as exc:
        return not_claimed(f"the dual could not be read as this certificate "
                           f"expects ({type(exc).__name__}: {exc})")
    found = claim(instance, dual, solution.protocol, solution.multipliers)
    if isinstance(found, dict):
        return found
    stored = dataclasses.replace(found, seconds=time.perf_counter() - start).to_json()
    return stored if stopped_early is None else {**stored, "stopped_early": stopped_early}
