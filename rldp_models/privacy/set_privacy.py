"""Robust secret privacy against any uncertainty set, in product form: the exact check,
the certificate a solve result stores, and its re-check at the stored multipliers.

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

The certificate
---------------
For a set without exact pair projections the toolkit certifies (**) of
:mod:`rldp_models.uncertainty.base`:
``hi[s1, y] <= e^eps lo[s2, y]`` for all ``y`` and ``s1 != s2``, with
``hi[s, y] >= sup_{R in C_s} P(y|s,.).R`` and ``lo[s, y] <= inf_{R in C_s} P(y|s,.).R``.
Each bound is proved by (*) of that module: ``delta*(e_s(q - hi) | F) <= 0`` and
``delta*(e_s(lo - q) | F) <= 0``.

A result keeps, per secret ``s`` and side, the group ``<name>/sup[s]`` or
``<name>/inf[s]`` of ``certificate.multipliers`` with ``bound`` (``hi[s, :]`` or
``lo[s, :]``) and ``per_output`` (per ``y`` the set's multipliers of ``delta*``
at that argument; for the KL ball ``mu`` and ``gamma``, for the box ``lam`` and
``mu``; for a set from conic data the ``y`` of its one Charnes-Cooper solve, or nothing
when the bound is ``max q``). :func:`product_multipliers` writes them (the bounds proved by
:func:`conditional_bounds`, starting from the
solver's); :func:`product_check` re-evaluates every stored multiplier with the
set's ``certified_support_bound`` (60-digit intervals, rounding of ``q - kappa``
covered; a bound at least ``max q`` needs none, as ``C_s`` holds distributions)
and the pair inequalities in interval arithmetic, without a solver.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Mapping, Sequence, cast

import mpmath
import numpy as np

from rldp_models.exact import DIGITS, high_precision, interval, iv, upper, upper_mpf
from rldp_models.privacy.guarantees import GuaranteeCheck
from rldp_models.privacy.stored_bounds import ConstraintBound, StoredCheck, label
from rldp_models.progress import progress
from rldp_models.uncertainty.base import (Capability, ConditionalDualSet, UncertaintySet,
                                          certify_conditional, conditional_upper_bound, embed)

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


SIDES = (("sup", 1.0), ("inf", -1.0))
"""The two bounds per secret, and the sign that makes each a supremum."""


def group_name(group: str, side: str, s: int | str) -> str:
    """``<group>/sup[s]`` or ``<group>/inf[s]`` (``s`` an index, or a label in messages)."""
    return f"{group}/{side}[{s}]"


def product_multipliers(protocol: np.ndarray, uncertainty: UncertaintySet, group: str,
                        candidates: dict[tuple[str, int], Any] | None = None) -> dict[str, dict]:
    """The groups of the module docstring for ``protocol``, proved bounds and their multipliers.

    ``candidates`` are the solver's bounds (``{("sup", s): hi[s], ("inf", s): lo[s]}``).
    """
    hi, lo = conditional_bounds(protocol, uncertainty, candidates)
    n_s, n_u = uncertainty.phat.shape
    blocks = protocol.reshape(n_s, n_u, -1)
    groups = {}
    for s, (side, sign) in itertools.product(range(n_s), SIDES):
        bound = hi[s] if side == "sup" else lo[s]
        per_output = [_multipliers(uncertainty, sign * blocks[s, :, y], s, sign * bound[y])
                      for y in range(blocks.shape[2])]
        groups[group_name(group, side, s)] = {"bound": bound, "per_output": per_output}
    return groups


def stored_candidates(multipliers: Mapping[str, Any], group: str
                      ) -> dict[tuple[str, int], Any]:
    """A record's stored bounds of ``group`` as the candidates
    :func:`~rldp_models.privacy.set_privacy.conditional_bounds` starts from: ``hi[s]``,
    ``lo[s]`` and, where an output stores a derived dual's ``y``, those as the columns of
    ``(side + " proof", s)`` (NaN columns for the others, which
    :func:`~rldp_models.privacy.set_privacy.conditional_bounds` skips). Hints only: every
    bound is proved afresh or replaced."""
    found: dict[tuple[str, int], Any] = {}
    prefix = f"{group}/"
    for name, values in multipliers.items():
        side, _, rest = name.removeprefix(prefix).partition("[")
        if not name.startswith(prefix) or side not in dict(SIDES) or not rest.endswith("]") \
                or not isinstance(values, Mapping) or "bound" not in values:
            continue
        s = int(rest[:-1])
        found[side, s] = np.asarray(values["bound"], dtype=float).ravel()
        proofs = [output.get("y") if isinstance(output, Mapping) else None
                  for output in values.get("per_output") or []]
        sizes = {np.size(y) for y in proofs if y is not None}
        if len(sizes) == 1:
            size = sizes.pop()
            found[f"{side} proof", s] = np.column_stack(
                [np.full(size, np.nan) if y is None else np.ravel(np.asarray(y, dtype=float))
                 for y in proofs])
    return found


def _multipliers(uncertainty: UncertaintySet, v: np.ndarray, s: int,
                 kappa: float) -> Mapping[str, Any]:
    """The set's multipliers proving ``kappa``: a ``CONDITIONAL_DUAL`` set's own (none when
    ``kappa`` is the simplex bound ``max v``), else its ``support_multipliers`` at
    ``e_s(v - kappa)``."""
    if Capability.CONDITIONAL_DUAL in uncertainty.capabilities:
        return cast(ConditionalDualSet, uncertainty).conditional_bound(v, s).multipliers or {}
    return uncertainty.support_multipliers(embed(v - kappa, s, uncertainty.phat.shape))


def product_check(protocol: np.ndarray, uncertainty: UncertaintySet, eps: float,
                  multipliers: dict, group: str, secrets: Sequence[Any] | None = None,
                  outputs: Sequence[Any] | None = None) -> StoredCheck:
    """Every stored conditional bound and pair inequality, re-checked (module docstring);
    constraints named by the secrets' and outputs' labels."""
    n_s, n_u = uncertainty.phat.shape
    blocks = protocol.reshape(n_s, n_u, -1)
    n_y = blocks.shape[2]
    stored, missing, constraints = {}, [], []
    sides = list(itertools.product(range(n_s), SIDES))
    for s, (side, sign) in progress(sides, desc="rldp verify: conditional bounds", unit="side"):
        values = multipliers.get(group_name(group, side, s)) or {}
        bound, per_output = values.get("bound"), values.get("per_output")
        if bound is None or per_output is None or len(per_output) != n_y or \
                np.size(bound) != n_y:
            missing.append(group_name(group, side, s))
            continue
        stored[side, s] = np.asarray(bound, dtype=float).ravel()
        for y in range(n_y):
            v, kappa = sign * blocks[s, :, y], sign * stored[side, s][y]
            check = _simplex_bound(v, kappa)
            if check > 0:
                check = certify_conditional(uncertainty, v, s, kappa, per_output[y])
            constraints.append(ConstraintBound(
                f"{group_name(group, side, label(secrets, s))} y={label(outputs, y)}", check, 0.0))
    with high_precision():
        factor = iv.exp(interval(eps))
        for (s1, s2), y in itertools.product(itertools.permutations(range(n_s), 2), range(n_y)):
            if ("sup", s1) in stored and ("inf", s2) in stored:
                margin = interval(float(stored["sup", s1][y])) \
                    - factor * interval(float(stored["inf", s2][y]))
                constraints.append(ConstraintBound(
                    f"{group}/pair[{label(secrets, s1)},{label(secrets, s2)}] "
                    f"y={label(outputs, y)}", upper_mpf(margin), 0.0))
    return StoredCheck(tuple(constraints), tuple(missing), (), ("privacy in product form",))


def _simplex_bound(v: np.ndarray, kappa: float) -> mpmath.mpf:
    """``max v - kappa`` exactly (as an mpf): ``<= 0`` proves ``kappa`` with no multipliers,
    as every ``R`` in ``C_s`` is a distribution (the writer's fallback bound)."""
    gap = max(Fraction(float(x)) for x in v) - Fraction(float(kappa))
    with mpmath.workdps(DIGITS):
        return mpmath.mpf(gap.numerator) / gap.denominator
