"""Exact check of robust secret privacy against any uncertainty set, in product form.

The guarantee certified for sets other than chi-square is (**) of
:mod:`rldp_models.uncertainty.base`: for every ``y`` and ``s1 != s2``,
``sup_{R in C_{s1}} q_{s1,y}.R - e^eps inf_{R in C_{s2}} q_{s2,y}.R <= 0`` with
``q_{s,y} = P(y | s, .)``. It implies eq. (23) for every ``P`` in the set.

Each supremum is bounded above by a ``kappa`` that is *proved*:
``delta*(e_s(q - kappa) | F) <= 0`` in interval arithmetic
(:func:`~rldp_models.uncertainty.base.certify_conditional`); each infimum is
``-sup(-q)``. A set with the ``CONDITIONAL_DUAL`` capability (a set from conic
data) proves its own ``kappa`` with one solve of the Charnes-Cooper dual
(``conditional_bound``, :mod:`rldp_models.uncertainty.conditional_dual`). For
any other set, candidates for ``kappa`` are the solver's own bounds when given,
else (or when they do not certify) the bisection of
:func:`~rldp_models.uncertainty.base.conditional_upper_bound`.
"""

from __future__ import annotations

import itertools
from typing import Any, cast

import mpmath
import numpy as np

from rldp_models.exact import interval, iv, upper
from rldp_models.privacy.guarantees import GuaranteeCheck
from rldp_models.uncertainty.base import (
    Capability,
    ConditionalDualSet,
    UncertaintySet,
    certify_conditional,
    conditional_upper_bound,
)

NUDGES = (0.0, 1e-10, 1e-8)
"""Relative amounts a candidate bound is raised by before it is certified: first none (a
record's stored bound, proved when written, proves as it is; raised again, it could fail
the pair inequalities it was written to meet), then a solver's is raised."""


def certified_conditional_sup(uncertainty: UncertaintySet, v: np.ndarray, s: int,
                              candidate: float | None = None,
                              proof: np.ndarray | None = None) -> float:
    """A proved upper bound on ``sup_{R in C_s} v.R``: the set's own (``CONDITIONAL_DUAL``,
    trying ``candidate`` with its ``proof``, the solver's ``y``, first), else trying
    ``candidate`` first."""
    if Capability.CONDITIONAL_DUAL in uncertainty.capabilities:
        start = None if candidate is None or proof is None else (candidate, proof)
        return float(cast(ConditionalDualSet, uncertainty).conditional_bound(v, s, start).kappa)
    top = float(np.max(v))
    if candidate is not None and np.isfinite(candidate):
        scale = max(float(np.abs(v).max()), 1e-300)
        for nudge in NUDGES:
            kappa = candidate + nudge * scale
            if kappa >= top:
                return top  # the simplex bound: R is a distribution
            if certify_conditional(uncertainty, v, s, kappa) <= 0:
                return kappa
    return conditional_upper_bound(uncertainty, v, s, candidate).kappa


def conditional_bounds(protocol: np.ndarray, uncertainty: UncertaintySet,
                       candidates: dict[tuple[str, int], Any] | None = None
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Proved ``hi[s, y] >= sup_{C_s} P(y|s,.).R`` and ``lo[s, y] <= inf_{C_s} P(y|s,.).R``.

    ``candidates``: the solver's ``{("sup", s): hi[s, :], ("inf", s): lo[s, :]}`` and, for a
    ``CONDITIONAL_DUAL`` set, ``{("sup proof", s): Y, ("inf proof", s): Y}``, the derived
    dual's ``y`` of each bound (one column per output).
    """
    candidates = candidates or {}
    n_s, n_u = uncertainty.phat.shape
    blocks = protocol.reshape(n_s, n_u, -1)
    n_y = blocks.shape[2]
    hi, lo = np.empty((n_s, n_y)), np.empty((n_s, n_y))
    for s, y in itertools.product(range(n_s), range(n_y)):
        q = blocks[s, :, y]
        hi[s, y] = certified_conditional_sup(uncertainty, q, s,
                                             *_candidate(candidates, "sup", s, y, 1.0))
        lo[s, y] = -certified_conditional_sup(uncertainty, -q, s,
                                              *_candidate(candidates, "inf", s, y, -1.0))
    return hi, lo


def _candidate(candidates: dict[tuple[str, int], Any], side: str, s: int, y: int,
               sign: float) -> tuple[float | None, np.ndarray | None]:
    """The solver's bound of output ``y`` as a supremum's (``sign`` times it) and its proof."""
    guess, proof = candidates.get((side, s)), candidates.get((f"{side} proof", s))
    kappa = None if guess is None else sign * float(np.ravel(guess)[y])
    column = None
    if proof is not None and np.ndim(proof) == 2 and y < np.shape(proof)[1] \
            and np.all(np.isfinite(np.asarray(proof, dtype=float)[:, y])):
        column = np.asarray(proof, dtype=float)[:, y]
    return kappa, column


def check_product_privacy(protocol: np.ndarray, uncertainty: UncertaintySet, eps: float,
                          candidates: dict[tuple[str, int], Any] | None = None
                          ) -> GuaranteeCheck:
    """Verdict on (**) for every ``y`` and ``s1 != s2``, margins as interval upper ends.

    Parameters
    ----------
    protocol : ndarray, shape (|S||U|, |Y|)
    uncertainty : UncertaintySet
        Its ``phat`` has the crosstab's shape.
    eps : float
    candidates : dict, optional
        ``{("sup", s): hi[s, :], ("inf", s): lo[s, :]}`` from the solver.
    """
    hi, lo = conditional_bounds(protocol, uncertainty, candidates)
    n_s, n_y = hi.shape
    factor = iv.exp(interval(eps))
    margins = np.full((n_s, n_s, n_y), np.nan)
    for (s1, s2), y in itertools.product(itertools.permutations(range(n_s), 2), range(n_y)):
        margins[s1, s2, y] = upper(interval(float(hi[s1, y]))
                                   - factor * interval(float(lo[s2, y])))
    masked = np.where(np.isnan(margins), -np.inf, margins)
    top_s1, top_s2, top_y = (int(i) for i in np.unravel_index(int(np.argmax(masked)),
                                                                masked.shape))
    worst = float(masked[top_s1, top_s2, top_y]) if n_s > 1 else float(mpmath.mpf(0))
    return GuaranteeCheck(worst <= 0.0, "robust", eps, worst,
                          (top_y, top_s1, top_s2), margins,
                          {})


def certified_expectation_bounds(protocol: np.ndarray, uncertainty: UncertaintySet
                                 ) -> tuple[np.ndarray, np.ndarray]:
    """Proved ``up[y] >= sup_{P in F} P(y)`` and ``low[y] <= inf_{P in F} P(y)``.

    ``P(y) = sum_x P(x) protocol[x, y]`` is linear in ``P``: its supremum is
    the support function at the column, bounded by the set's certified bound.
    """
    up: list[float] = []
    low: list[float] = []
    for column in protocol.T:
        for sign, out in ((1.0, up), (-1.0, low)):
            v = sign * column
            bound = uncertainty.certified_support_bound(v, uncertainty.support_multipliers(v))
            out.append(sign * upper(iv.mpf(bound)))  # up: rounded up; low: minus a rounded-up
    return np.array(up), np.array(low)


def check_product_lip(protocol: np.ndarray, uncertainty: UncertaintySet, eps: float,
                      candidates: dict[tuple[str, int], Any] | None = None) -> GuaranteeCheck:
    """Robust local information privacy in product form, with proved bounds.

    For every ``s`` and ``y``: ``sup_{C_s} P(y|s) <= e^eps inf_F P(y)`` and
    ``sup_F P(y) <= e^eps inf_{C_s} P(y|s)``, which imply
    ``e^-eps <= P(y|s) / P(y) <= e^eps`` for every ``P`` in the set.
    ``margins[s, 0, y]`` and ``margins[s, 1, y]`` hold the two constraints.
    """
    hi, lo = conditional_bounds(protocol, uncertainty, candidates)
    up, low = certified_expectation_bounds(protocol, uncertainty)
    n_s, n_y = hi.shape
    factor = iv.exp(interval(eps))
    margins = np.empty((n_s, 2, n_y))
    for s, y in itertools.product(range(n_s), range(n_y)):
        margins[s, 0, y] = upper(interval(float(hi[s, y])) - factor * interval(float(low[y])))
        margins[s, 1, y] = upper(interval(float(up[y])) - factor * interval(float(lo[s, y])))
    top_s, side, top_y = (int(i) for i in np.unravel_index(int(np.argmax(margins)),
                                                            margins.shape))
    worst = float(margins[top_s, side, top_y])
    return GuaranteeCheck(worst <= 0.0, "robust LIP", eps, worst, (top_y, top_s, side),
                          margins, {})
