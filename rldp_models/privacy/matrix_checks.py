"""Exact privacy checkers for a mechanism matrix ``Q[x, y] = P(Y=y | X=x)``.

Each ``*_epsilon`` function returns the smallest level at which ``Q`` meets a
notion, computed in floating point; ``certify_*`` functions decide a given
level exactly (doubles are exact rationals, ``e^eps`` is enclosed by
:mod:`mpmath.iv`, see :mod:`rldp_models.exact`). For the notions
w.r.t. a secret the probabilities ``P(s)``, ``P(s, y)``, ``P(y|s)`` and their
ratios are exact :class:`~fractions.Fraction` values computed from the doubles
of ``Q`` and ``p_{S,X}``, which are taken as the exact probabilities (their
sums need only be 1 within the validation tolerance).

Conventions for a ratio ``Q[x,y] / Q[x',y]``: ``0/0`` imposes no constraint
and ``positive/0`` is ``inf``.

Notions (paper files in ``shared/papers``):

* eps-LDP, ``Q[x,y] <= e^eps Q[x',y]`` for all ``x, x', y``
  (``extremal-mechanisms-ldp.txt`` eq. (7); ``rldp-privacy-utility-tradeoff.txt``
  Definition 2). With ``groups`` only pairs in different groups count: for
  ``X = S x U`` grouped by ``s`` this is ``(eps, P_X)``-RLDP (RLDP paper,
  Proposition 4).
* (eps, delta)-LDP, ``Q(A|x) <= e^eps Q(A|x') + delta`` for all sets ``A``
  (extremal paper eq. (23)).
* LDP w.r.t. a secret ``S``: ``P(y|s) <= e^eps P(y|s')``
  (``privacy-funnel-ldp-lip.txt`` Definition 1, eq. (1)).
* LIP: ``e^-eps <= P(y|s) / P(y) <= e^eps``, i.e. the posterior ``P(s|y)``
  stays within a factor ``e^eps`` of the prior ``P(s)`` (privacy funnel,
  Definition 2, eq. (2)).
* SRLIP: LIP w.r.t. every conditional prior ``p_{S,X | x^J}`` (privacy funnel,
  Definition 3, eq. (12)); per attribute, the hypotheses of Theorem 3
  (eqs. (15)-(16)).
* ULDP: ``Q[x,y] <= e^eps Q[x',y]`` for all ``x, x'`` and all protected
  outputs ``y`` (``utility-optimized-ldp.txt`` Definition 2).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from rldp_models.errors import InputError
from rldp_models.exact import compare_with_exp, log_up, ratio_at_most_exp
from rldp_models.validation import (as_epsilon, as_nonnegative_array, as_probability,
                                    as_probability_vector, as_stochastic_matrix)

NEAR_WORST_LOG_MARGIN = 1e-9
"""Candidates for the exact worst ratio: float log-ratios within this of the float maximum."""


class Certification(NamedTuple):
    """Verdict of an exact check.

    Attributes
    ----------
    holds : bool
        The guarantee holds exactly.
    worst_pair : tuple of int or None
        Where the guarantee is tightest: ``(x, x', y)`` maximising
        ``Q[x,y] / Q[x',y]`` for ratio checks, ``(x, x')`` for (eps, delta)
        checks, ``(s, s', y)`` maximising ``P(y|s) / P(y|s')`` for LDP w.r.t.
        ``S``, ``(s, y)`` maximising ``|log P(y|s) / P(y)|`` for LIP, and
        ``(s, y, v^1, ..., v^m)`` for SRLIP, where the conditioning is
        ``X^j = v^j`` for ``v^j >= 0`` and attribute ``j`` is not in ``J``
        for ``v^j = -1``; ``None`` when no pair constrains anything.
    """

    holds: bool
    worst_pair: tuple[int, ...] | None


# --- eps-LDP and RLDP over the whole simplex ---------------------------------------

def ldp_epsilon(Q: ArrayLike, groups: ArrayLike | None = None) -> float:
    """Smallest ``eps`` with ``Q[x,y] <= e^eps Q[x',y]`` for all pairs (float arithmetic).

    Parameters
    ----------
    Q : array_like, shape (k, m)
        Row-stochastic mechanism.
    groups : array_like, shape (k,), optional
        Group label of each input; only pairs in different groups are
        constrained (RLDP paper, Proposition 4, with ``groups = s``).
    """
    Q = as_stochastic_matrix(Q)
    return _worst_log_ratio(Q, *_candidate_pairs(Q, _as_groups(groups, Q.shape[0])))


def certify_ldp(Q: ArrayLike, eps: float, groups: ArrayLike | None = None) -> Certification:
    """Decide exactly whether ``Q[x,y] <= e^eps Q[x',y]`` for all constrained pairs.

    The worst pair is found among the float candidates within
    ``NEAR_WORST_LOG_MARGIN`` of the float maximum by comparing the ratios as
    exact fractions, and that one ratio is compared with ``e^eps`` exactly.
    """
    Q = as_stochastic_matrix(Q)
    eps = as_epsilon(eps)
    return _certify_ratios(Q, eps, *_candidate_pairs(Q, _as_groups(groups, Q.shape[0])))


def ldp_level_up(Q: ArrayLike, groups: ArrayLike | None = None) -> float:
    """The exact LDP level of ``Q`` (with ``groups``: Proposition 4's), rounded up to a double.

    The worst ratio is found exactly as in :func:`certify_ldp` and its log is
    enclosed in interval arithmetic and rounded up
    (:func:`~rldp_models.exact.log_up`), so ``ldp_level_up(Q) <= eps`` iff
    ``Q`` is exactly ``eps``-LDP, for every double ``eps``.
    """
    Q = as_stochastic_matrix(Q)
    rows, others, cols = _candidate_pairs(Q, _as_groups(groups, Q.shape[0]))
    logs = _log_ratios(Q, rows, others, cols)
    if logs.size == 0 or logs.max() == -np.inf:
        return 0.0
    top = logs.max()
    if top == np.inf:
        return math.inf
    near = np.flatnonzero(logs >= top - NEAR_WORST_LOG_MARGIN)
    return log_up(max(_exact_ratio(Q[rows[i], cols[i]], Q[others[i], cols[i]]) for i in near))


def _as_groups(groups: ArrayLike | None, k: int) -> np.ndarray | None:
    if groups is None:
        return None
    groups = np.asarray(groups)
    if groups.shape != (k,):
        raise InputError(f"groups must have one label per input ({k}), got shape {groups.shape}")
    return groups


def _candidate_pairs(Q: np.ndarray, groups: np.ndarray | None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows ``(x, x')`` and columns ``y`` that contain the worst ratio of every column.

    Without groups the worst ratio of column ``y`` is its maximum over its
    minimum. With groups it is the largest ``max_g / min_g'`` over ``g != g'``.
    """
    k, m = Q.shape
    if groups is None:
        return Q.argmax(axis=0), Q.argmin(axis=0), np.arange(m)
    _, group_of = np.unique(groups, return_inverse=True)
    n_groups = group_of.max() + 1
    arg_max = np.empty((n_groups, m), dtype=int)
    arg_min = np.empty((n_groups, m), dtype=int)
    for g in range(n_groups):
        rows = np.flatnonzero(group_of == g)
        arg_max[g] = rows[Q[rows].argmax(axis=0)]
        arg_min[g] = rows[Q[rows].argmin(axis=0)]
    g1, g2 = np.nonzero(~np.eye(n_groups, dtype=bool))
    return arg_max[g1].ravel(), arg_min[g2].ravel(), np.tile(np.arange(m), len(g1))


def _log_ratios(Q: np.ndarray, rows: np.ndarray, others: np.ndarray,
                cols: np.ndarray) -> np.ndarray:
    """``log(Q[rows, cols] / Q[others, cols])``; ``-inf`` when the numerator is 0."""
    numerator, denominator = Q[rows, cols], Q[others, cols]
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(numerator) - np.log(denominator)
    return np.where(numerator > 0, logs, -np.inf)


def _worst_log_ratio(Q: np.ndarray, rows: np.ndarray, others: np.ndarray,
                     cols: np.ndarray) -> float:
    logs = _log_ratios(Q, rows, others, cols)
    return float(max(0.0, logs.max(initial=0.0)))


def _certify_ratios(Q: np.ndarray, eps: float, rows: np.ndarray, others: np.ndarray,
                    cols: np.ndarray) -> Certification:
    logs = _log_ratios(Q, rows, others, cols)
    if logs.size == 0 or logs.max() == -np.inf:
        return Certification(True, None)
    top = logs.max()
    if top == np.inf:
        near = np.flatnonzero(logs == np.inf)[:1]
    else:
        near = np.flatnonzero(logs >= top - NEAR_WORST_LOG_MARGIN)
    worst = max(near, key=lambda i: _exact_ratio(Q[rows[i], cols[i]], Q[others[i], cols[i]]))
    pair = (int(rows[worst]), int(others[worst]), int(cols[worst]))
    return Certification(ratio_at_most_exp(Q[pair[0], pair[2]], Q[pair[1], pair[2]], eps), pair)


def _exact_ratio(numerator: float, denominator: float) -> Fraction | float:
    if denominator == 0:
        return float("inf")
    return Fraction(float(numerator)) / Fraction(float(denominator))


# --- (eps, delta)-LDP ----------------------------------------------------------------

def approximate_ldp_delta(Q: ArrayLike, eps: float) -> float:
    """Smallest ``delta`` making ``Q`` (eps, delta)-LDP (extremal paper eq. (23)).

    ``max_{x, x'} max_A Q(A|x) - e^eps Q(A|x')``; the inner maximum is attained
    at ``A = {y : Q[x,y] > e^eps Q[x',y]}``, giving the hockey-stick divergence
    ``sum_y (Q[x,y] - e^eps Q[x',y])_+``.
    """
    Q = as_stochastic_matrix(Q)
    eps = as_epsilon(eps)
    excess = np.clip(Q[:, None, :] - np.exp(eps) * Q[None, :, :], 0.0, None).sum(axis=2)
    return float(excess.max())


def certify_approximate_ldp(Q: ArrayLike, eps: float, delta: float) -> Certification:
    """Decide exactly whether ``Q`` is (eps, delta)-LDP.

    For each ordered pair ``(x, x')`` the maximising set ``A`` is found by exact
    comparisons; with ``a = Q(A|x)`` and ``b = Q(A|x')`` (exact fractions) the
    condition ``a - e^eps b <= delta`` is ``(a - delta) / b <= e^eps``, decided by
    :func:`~rldp_models.exact.compare_with_exp`.
    """
    Q = as_stochastic_matrix(Q)
    eps = as_epsilon(eps)
    delta = as_probability(delta, "delta")
    excess = np.clip(Q[:, None, :] - np.exp(eps) * Q[None, :, :], 0.0, None).sum(axis=2)
    worst = np.unravel_index(np.argmax(excess), excess.shape)
    holds = all(_pair_within_delta(Q[x], Q[x_other], eps, delta)
                for x, x_other in itertools.permutations(range(Q.shape[0]), 2))
    return Certification(holds, (int(worst[0]), int(worst[1])))


def _pair_within_delta(row: np.ndarray, other: np.ndarray, eps: float, delta: float) -> bool:
    in_set = [y for y in range(row.size) if not ratio_at_most_exp(row[y], other[y], eps)]
    a = sum((Fraction(float(row[y])) for y in in_set), Fraction(0)) - Fraction(delta)
    b = sum((Fraction(float(other[y])) for y in in_set), Fraction(0))
    if b == 0:
        return a <= 0
    return compare_with_exp(a / b, eps) <= 0


# --- privacy w.r.t. a secret: LDP, LIP, SRLIP -------------------------------------------

def secret_channel(Q: ArrayLike, p_sx: ArrayLike) -> np.ndarray:
    """``P(Y=y | S=s)`` for the secrets with positive mass (rows), from ``p_{S,X}[s, x]``."""
    Q, p_sx = _mechanism_and_joint(Q, p_sx)
    joint_sy, p_s = _output_joints(Q, p_sx[None])
    keep = p_s[0] > 0
    return joint_sy[0, keep] / p_s[0, keep, None]


def ldp_wrt_secret_epsilon(Q: ArrayLike, p_sx: ArrayLike) -> float:
    """Smallest ``eps`` with ``P(y|s) <= e^eps P(y|s')`` (privacy funnel eq. (1)).

    Secrets of zero mass have no conditional and are left out.
    """
    channel = secret_channel(Q, p_sx)
    return _worst_log_ratio(channel, *_candidate_pairs(channel, None))


def certify_ldp_wrt_secret(Q: ArrayLike, p_sx: ArrayLike, eps: float) -> Certification:
    """Decide exactly whether ``P(y|s) <= e^eps P(y|s')`` for all ``y, s, s'``.

    Privacy funnel Definition 1, eq. (1), with ``P(y|s) = sum_x p(s,x) Q[x,y] / p(s)``
    in exact rationals. Conventions of :func:`ldp_wrt_secret_epsilon`: secrets
    of zero mass are left out, ``0/0`` imposes no constraint and ``positive/0``
    violates every ``eps``. The worst pair is ``(s, s', y)``, rows of ``p_sx``.
    """
    Q, p_sx = _mechanism_and_joint(Q, p_sx)
    eps = as_epsilon(eps)
    joint = _exact(p_sx)
    return _exact_verdict(_secret_ldp_candidates(joint @ _exact(Q), joint.sum(axis=1)), eps)


def lip_epsilon(Q: ArrayLike, p_sx: ArrayLike) -> float:
    """Smallest ``eps`` with ``e^-eps <= P(y|s) / P(y) <= e^eps`` (privacy funnel eq. (2)).

    Pairs with ``P(s) = 0`` or ``P(y) = 0`` are left out; ``P(y|s) = 0 < P(y)``
    gives ``inf``.
    """
    Q, p_sx = _mechanism_and_joint(Q, p_sx)
    return _lip_level(Q, p_sx[None])


def certify_lip(Q: ArrayLike, p_sx: ArrayLike, eps: float) -> Certification:
    """Decide exactly whether ``e^-eps <= P(y|s) / P(y) <= e^eps`` for all ``s, y``.

    Privacy funnel Definition 2, eq. (2), in exact rationals. Conventions of
    :func:`lip_epsilon`: pairs with ``P(s) = 0`` or ``P(y) = 0`` are left out
    and ``P(y|s) = 0 < P(y)`` violates every ``eps``. The worst pair is
    ``(s, y)`` maximising ``max(r, 1/r)``, ``r = P(y|s) / P(y)``.
    """
    Q, p_sx = _mechanism_and_joint(Q, p_sx)
    eps = as_epsilon(eps)
    joint = _exact(p_sx)
    candidates = _lip_candidates((joint @ _exact(Q))[None], joint.sum(axis=1)[None])
    return _exact_verdict(((ratio, (s, y)) for ratio, (_, s, y) in candidates), eps)


def srlip_epsilon(Q: ArrayLike, p_sx: ArrayLike, attribute_sizes: Sequence[int]) -> float:
    """Smallest ``eps`` for which ``Q`` is eps-SRLIP (privacy funnel Definition 3, eq. (12)).

    The maximum of the LIP level of ``Q`` w.r.t. ``p_{S,X | X^J = x^J}`` over all
    subsets ``J`` of the attributes and all ``x^J`` of positive mass.

    Parameters
    ----------
    Q : array_like, shape (a, m)
        Mechanism on ``X = X^1 x ... x X^m``, inputs in row-major order.
    p_sx : array_like, shape (c, a)
        Joint distribution of ``(S, X)``.
    attribute_sizes : sequence of int
        ``(|X^1|, ..., |X^m|)``, with product ``a``.
    """
    Q, p_sx = _mechanism_and_joint(Q, p_sx)
    sizes = _attribute_sizes(attribute_sizes, p_sx.shape[1])
    coordinates = np.unravel_index(np.arange(p_sx.shape[1]), sizes)
    levels = [_lip_level(Q, _joints_given(p_sx, coordinates, sizes, subset))
              for subset in _subsets(range(len(sizes)))]
    return float(max(levels))


def certify_srlip(Q: ArrayLike, p_sx: ArrayLike, attribute_sizes: Sequence[int],
                  eps: float) -> Certification:
    """Decide exactly whether ``Q`` is eps-SRLIP (privacy funnel Definition 3, eq. (12)).

    Eq. (2) w.r.t. ``p_{S,X | X^J = x^J}`` for every subset ``J`` of the
    attributes (``J`` empty is LIP) and every ``x^J``, in exact rationals.
    Conventions of :func:`srlip_epsilon`: conditionings ``x^J`` of zero mass
    and pairs with ``P(s, x^J) = 0`` or ``P(y | x^J) = 0`` are left out;
    ``P(y | s, x^J) = 0 < P(y | x^J)`` violates every ``eps``. The worst pair is
    ``(s, y, v^1, ..., v^m)``: ``v^j`` is ``x^j`` for ``j`` in ``J``, else ``-1``.

    Parameters
    ----------
    Q : array_like, shape (a, b)
        Mechanism on ``X = X^1 x ... x X^m``, inputs in row-major order.
    p_sx : array_like, shape (c, a)
        Joint distribution of ``(S, X)``.
    attribute_sizes : sequence of int
        ``(|X^1|, ..., |X^m|)``, with product ``a``.
    eps : float
    """
    Q, p_sx = _mechanism_and_joint(Q, p_sx)
    eps = as_epsilon(eps)
    sizes = _attribute_sizes(attribute_sizes, p_sx.shape[1])
    joint = _exact(p_sx)
    weights = joint.reshape(-1, *sizes)
    products = (joint[:, :, None] * _exact(Q)[None]).reshape(*weights.shape, Q.shape[1])
    candidates = itertools.chain.from_iterable(
        _conditioned_candidates(products, weights, subset)
        for subset in _subsets(range(len(sizes))))
    return _exact_verdict(candidates, eps)


def srlip_epsilons(mechanisms: Sequence[ArrayLike], p_sx: ArrayLike) -> np.ndarray:
    """Per-attribute levels ``eps^j`` of Theorem 3's hypotheses (privacy funnel eqs. (15)-(16)).

    ``eps^j`` is the largest LIP level of ``Q^j`` w.r.t. ``p_{S, X^j | X^J = x^J}``
    over ``J`` not containing ``j`` and ``x^J`` of positive mass. By Theorem 3 the
    product mechanism ``Q^1 x ... x Q^m`` is then ``sum_j eps^j``-SRLIP.

    Parameters
    ----------
    mechanisms : sequence of array_like
        ``Q^j`` of shape ``(|X^j|, |Y^j|)``.
    p_sx : array_like, shape (c, prod |X^j|)
        Joint distribution of ``(S, X)``, ``X`` in row-major order.
    """
    matrices = [as_stochastic_matrix(Qj, f"mechanisms[{j}]") for j, Qj in enumerate(mechanisms)]
    sizes = tuple(Qj.shape[0] for Qj in matrices)
    p_sx = _joint(p_sx)
    _attribute_sizes(sizes, p_sx.shape[1])
    tensor = p_sx.reshape(p_sx.shape[0], *sizes)
    return np.array([max(_lip_level(Qj, _attribute_joints(tensor, j, subset))
                         for subset in _subsets(i for i in range(len(sizes)) if i != j))
                     for j, Qj in enumerate(matrices)])


def _output_joints(Q: np.ndarray, joints: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``P(s, y)`` and ``P(s)`` for a batch of joints ``[n, s, x]``, in one product.

    ``P(s)`` comes from a column of ones appended to ``Q``, so it is summed in
    the same product as ``P(s, y)``: a column of ones in ``Q`` (the one-output
    eps = 0 mechanism) then gives ``P(y|s) = 1`` exactly, not within an ulp.
    """
    both = joints @ np.column_stack([Q, np.ones(Q.shape[0])])
    return both[..., :-1], both[..., -1]


def _lip_level(Q: np.ndarray, joints: np.ndarray) -> float:
    """Largest ``|log P(y|s) / P(y)|`` over a batch of (unnormalised) joints ``[n, s, x]``.

    ``P(y|s)`` and ``P(y)`` are formed before the logarithms, so equal
    probabilities give exactly 0.
    """
    joint_sy, p_s = _output_joints(Q, joints)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_y = joint_sy.sum(axis=1) / p_s.sum(axis=1)[:, None]
        valid = (p_s[:, :, None] > 0) & (p_y[:, None, :] > 0)
        logs = np.log(joint_sy / p_s[:, :, None]) - np.log(p_y[:, None, :])
    return float(np.abs(logs[valid]).max(initial=0.0))


def _exact(array: np.ndarray) -> np.ndarray:
    """``array`` as an object array of :class:`~fractions.Fraction`, each double exactly."""
    return np.vectorize(Fraction, otypes=[object])(array)


_Candidate = tuple[Fraction | float | None, tuple[int, ...]]
"""An exact ratio (``inf`` for ``positive/0``, ``None`` for no constraint) and where it is."""


def _quotient(numerator: Fraction, denominator: Fraction) -> Fraction | float | None:
    """``numerator / denominator``; ``0/0`` is ``None`` (no constraint), ``positive/0`` ``inf``."""
    if denominator == 0:
        return None if numerator == 0 else math.inf
    return numerator / denominator


def _exact_verdict(candidates: Iterable[_Candidate], eps: float) -> Certification:
    """Whether the largest ratio is ``<= e^eps`` (exactly), and where it is attained."""
    constrained = [(ratio, pair) for ratio, pair in candidates if ratio is not None]
    if not constrained:
        return Certification(True, None)
    ratio, pair = max(constrained, key=lambda candidate: candidate[0])
    holds = isinstance(ratio, Fraction) and compare_with_exp(ratio, eps) <= 0  # inf fails
    return Certification(holds, tuple(int(i) for i in pair))


def _secret_ldp_candidates(joint_sy: np.ndarray, p_s: np.ndarray) -> Iterator[_Candidate]:
    """Per output ``y``: ``max_s P(y|s) / min_s' P(y|s')`` over secrets of positive mass."""
    secrets = [s for s in range(p_s.size) if p_s[s] > 0]
    for y in range(joint_sy.shape[1]):
        given = {s: joint_sy[s, y] / p_s[s] for s in secrets}
        high = max(secrets, key=lambda s: given[s])
        low = min(secrets, key=lambda s: given[s])
        yield _quotient(given[high], given[low]), (high, low, y)


def _lip_candidates(joint_sy: np.ndarray, p_s: np.ndarray) -> Iterator[_Candidate]:
    """``max(r, 1/r)``, ``r = P(y|s) / P(y)``, at ``(n, s, y)`` for exact joints ``[n, s, y]``.

    ``p_s[n, s]`` is the mass of secret ``s`` in joint ``n``; pairs with
    ``P(s) = 0`` or ``P(y) = 0`` are left out and ``r = 0`` gives ``inf``.
    """
    p_y, totals = joint_sy.sum(axis=1), p_s.sum(axis=1)
    for n, s, y in np.ndindex(joint_sy.shape):
        if p_s[n, s] > 0 and p_y[n, y] > 0:
            ratio = joint_sy[n, s, y] * totals[n] / (p_s[n, s] * p_y[n, y])
            yield (max(ratio, 1 / ratio) if ratio > 0 else math.inf), (n, s, y)


def _conditioned_candidates(products: np.ndarray, weights: np.ndarray,
                            subset: tuple[int, ...]) -> Iterator[_Candidate]:
    """LIP candidates w.r.t. ``p_{S,X | X^J = x^J}`` for every ``x^J``, ``J = subset``.

    ``products[s, x^1, ..., x^m, y] = p(s, x) Q[x, y]`` and ``weights[s, x^1, ..., x^m]
    = p(s, x)``, exact. Pairs are ``(s, y, v^1, ..., v^m)`` as in :func:`certify_srlip`.
    """
    c, sizes = weights.shape[0], weights.shape[1:]
    dropped = tuple(1 + i for i in range(len(sizes)) if i not in subset)
    joint_sy = products.sum(axis=dropped).reshape(c, -1, products.shape[-1]).transpose(1, 0, 2)
    p_s = weights.sum(axis=dropped).reshape(c, -1).T
    for ratio, (z, s, y) in _lip_candidates(joint_sy, p_s):
        values = [-1] * len(sizes)
        for i, value in zip(subset, np.unravel_index(z, tuple(sizes[i] for i in subset))):
            values[i] = int(value)
        yield ratio, (s, y, *values)


def _joints_given(p_sx: np.ndarray, coordinates: tuple[np.ndarray, ...],
                  sizes: tuple[int, ...], subset: tuple[int, ...]) -> np.ndarray:
    """``p(s, x) 1[x^J = z]`` for every value ``z`` of ``x^J``, shape ``(n_z, c, a)``."""
    sub_sizes = tuple(sizes[i] for i in subset)
    key = np.ravel_multi_index(tuple(coordinates[i] for i in subset), sub_sizes)
    joints = np.zeros((int(np.prod(sub_sizes)), p_sx.shape[0], p_sx.shape[1]))
    joints[key, :, np.arange(p_sx.shape[1])] = p_sx.T
    return joints


def _attribute_joints(tensor: np.ndarray, j: int, subset: tuple[int, ...]) -> np.ndarray:
    """``p(s, x^j, x^J = z)`` for every ``z``, shape ``(n_z, c, |X^j|)``."""
    kept = sorted((j, *subset))
    dropped = tuple(1 + i for i in range(tensor.ndim - 1) if i not in kept)
    marginal = np.moveaxis(tensor.sum(axis=dropped), 1 + kept.index(j), -1)
    c, a_j = marginal.shape[0], marginal.shape[-1]
    return marginal.reshape(c, -1, a_j).transpose(1, 0, 2)


def _subsets(items) -> list[tuple[int, ...]]:
    items = tuple(items)
    return [subset for r in range(len(items) + 1) for subset in itertools.combinations(items, r)]


def _joint(p_sx: ArrayLike) -> np.ndarray:
    p_sx = as_nonnegative_array(p_sx, 2, "p_sx")
    as_probability_vector(p_sx.ravel(), "p_sx")
    return p_sx


def _mechanism_and_joint(Q: ArrayLike, p_sx: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    Q, p_sx = as_stochastic_matrix(Q), _joint(p_sx)
    if p_sx.shape[1] != Q.shape[0]:
        raise InputError(f"p_sx has {p_sx.shape[1]} inputs but Q has {Q.shape[0]} rows")
    return Q, p_sx


def _attribute_sizes(attribute_sizes: Sequence[int], a: int) -> tuple[int, ...]:
    sizes = tuple(int(size) for size in attribute_sizes)
    if not sizes or min(sizes) < 1 or int(np.prod(sizes)) != a:
        raise InputError(f"attribute sizes {sizes} do not multiply to |X| = {a}")
    return sizes


# --- ULDP ------------------------------------------------------------------------------

def protected_outputs(Q: ArrayLike, sensitive: ArrayLike) -> np.ndarray:
    """Boolean mask of the protected outputs ``Y_P`` (ULDP paper, Definition 2).

    An output is *invertible* (condition (4)) when exactly one input reaches it
    and that input is non-sensitive; every other output is protected. This is
    the smallest valid ``Y_P``, hence the one giving the smallest ULDP level.
    """
    Q = as_stochastic_matrix(Q)
    sensitive = _sensitive_mask(sensitive, Q.shape[0])
    positive = Q > 0
    invertible = (positive.sum(axis=0) == 1) & ~sensitive[positive.argmax(axis=0)]
    return ~invertible


def uldp_epsilon(Q: ArrayLike, sensitive: ArrayLike) -> float:
    """Smallest ``eps`` for ``(X_S, Y_P, eps)``-ULDP; ``Y_P`` from :func:`protected_outputs`."""
    Q = as_stochastic_matrix(Q)
    block = Q[:, protected_outputs(Q, sensitive)]
    return _worst_log_ratio(block, *_candidate_pairs(block, None))


def certify_uldp(Q: ArrayLike, sensitive: ArrayLike, eps: float) -> Certification:
    """Decide exactly whether ``Q`` is ``(X_S, Y_P, eps)``-ULDP (the pair's ``y`` indexes ``Q``)."""
    Q = as_stochastic_matrix(Q)
    eps = as_epsilon(eps)
    columns = np.flatnonzero(protected_outputs(Q, sensitive))
    rows, others, cols = _candidate_pairs(Q[:, columns], None)
    return _certify_ratios(Q, eps, rows, others, columns[cols])


def _sensitive_mask(sensitive: ArrayLike, k: int) -> np.ndarray:
    mask = np.asarray(sensitive)
    if mask.dtype != bool or mask.shape != (k,):
        raise InputError(f"sensitive must be a boolean mask of length {k}")
    return mask
