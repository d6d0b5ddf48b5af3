"""The RLDP level of a factored protocol, proven from its factors alone.

For secrets ``s1 != s2`` and an output ``y`` of IR, GRR-CR or UE-CR
(:mod:`~rldp_models.rldp_protocols.factored_form`),
``P(y|s) = R_s . c_s(y)`` times constants, with ``R_s = P_{U|s}`` and
``c_s(y)`` a column of the secret's own factor. The ratio
``P(y|s1) / P(y|s2)`` over ``F`` is therefore at most a product of exact
constants (entries of ``secret`` / ``other``) and of

``high_s(c) >= max_{R in F_{U|s}} R.c`` over ``low_s(c) <= min_{R in F_{U|s}} R.c``,

where ``F_{U|s}`` is Lemma 8's projection
``{R : sum_u Phat_{U|s}(u)^2 / R(u) <= (sqrt(B+1) - 1 + Phat_s)^2 / Phat_s^2}``
(the whole simplex when ``Phat_s = 0``). Both ends are Theorem 2's dual
expression at multipliers ``(t, c)`` of the closed form
(``max R.c <= t + c K - 2 sqrt(c) sum_u w_u sqrt(t - c_u)`` for any ``c >= 0``,
``t >= max c``), evaluated in ball arithmetic from the exact counts, and
clipped to ``[min c, max c]`` (:mod:`rldp_models.privacy.chi_square_bounds`).
Bounding the two secrets' factors separately drops the coupling of Theorem
3, so the level is an upper bound (the theorems' own proofs, Thms 15, 17
and 19, bound the factors the same way and are never tighter). No solver
is involved: this is what ``verify`` reruns.

The lower end ("attained") comes from one Dinkelbach search over Theorem 3's
pair set at the worst output found
(:func:`~rldp_models.privacy.worst_case.attained_pair_ratio`), realised as a
distribution in ``F``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rldp_models.errors import InputError
from rldp_models.exact import exact_stochastic_rows, is_exactly_stochastic, log_up
from rldp_models.privacy.chi_square_bounds import (ColumnRanges, column_ranges, product_up,
                                                    quotient_up)
from rldp_models.privacy.worst_case import attained_pair_ratio
from rldp_models.rldp_protocols.checker import RLDPLevel
from rldp_models.rldp_protocols.factored_form import FactoredProtocol
from rldp_models.uncertainty.chi_square import ChiSquareSet, chi_square_radius



def factor_ranges(protocol: FactoredProtocol, counts: np.ndarray, radius: float) -> ColumnRanges:
    """Proven ranges of ``R.c`` over ``F_{U|s}`` for every column ``c`` of each own factor."""
    n_s = protocol.shape[0]
    if protocol.name == "ir":
        public = protocol.factors["public"]
        channels = np.broadcast_to(public, (n_s, *public.shape))
    else:
        channels = protocol.factors["own"]
    return column_ranges(counts, radius, channels)


def _nanmax(values: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """Max and argmax along ``axis`` ignoring NaN (NaN and index 0 where all are NaN)."""
    filled = np.where(np.isnan(values), -np.inf, values)
    where = np.argmax(filled, axis=axis)
    best = np.take_along_axis(filled, np.expand_dims(where, axis), axis).squeeze(axis)
    return np.where(np.isneginf(best), np.nan, best), where


def pair_ratios(protocol: FactoredProtocol, ranges: ColumnRanges
                ) -> tuple[np.ndarray, Callable[[int, int], tuple[int, ...]]]:
    """Proven ``sup_F P(y|s1) / P(y|s2)`` bounds per pair ``(s1, s2)`` and the output reaching each.

    Returns the ``(|S|, |S|)`` matrix (NaN on the diagonal and for pairs with
    nothing released) and a function of the pair giving its worst output.
    """
    n_s = protocol.shape[0]
    f = protocol.factors
    off = ~np.eye(n_s, dtype=bool)
    if protocol.name == "ir":
        secret = f["secret"]
        scale, r = _nanmax(quotient_up(secret[:, None, :], secret[None, :, :]), axis=2)
        inner, v = _nanmax(quotient_up(ranges.high[:, None, :], ranges.low[None, :, :]), axis=2)
        ratios = np.where(off, product_up(scale, inner), np.nan)
        return ratios, lambda s1, s2: (int(r[s1, s2]), int(v[s1, s2]))
    up, o1 = _nanmax(quotient_up(ranges.high, f["other"]), axis=1)  # own over decoy, per s1
    down, o2 = _nanmax(quotient_up(f["other"], ranges.low), axis=1)  # decoy over own, per s2
    likely = np.argmax(f["other"], axis=1)
    if protocol.name == "ue-cr":
        ratios = np.where(off, product_up(up[:, None], down[None, :]), np.nan)

        def ue_output(s1: int, s2: int) -> tuple[int, ...]:
            y = [int(o) for o in likely]
            y[s1], y[s2] = int(o1[s1]), int(o2[s2])
            return tuple(y)
        return ratios, ue_output
    secret = f["secret"]
    scale = quotient_up(secret[:, None, :], secret[None, :, :])  # (s1, s2, t)
    inner = np.ones((n_s, n_s, n_s))
    index = np.arange(n_s)
    inner[index, :, index] = up[:, None]  # t = s1
    inner[:, index, index] = down[None, :]  # t = s2
    ratios, t = _nanmax(product_up(scale, inner), axis=2)
    ratios = np.where(off, ratios, np.nan)

    def grr_cr_output(s1: int, s2: int) -> tuple[int, ...]:
        chosen = int(t[s1, s2])
        value = o1[s1] if chosen == s1 else o2[s2] if chosen == s2 else likely[chosen]
        return chosen, int(value)
    return ratios, grr_cr_output


def worst_ratio(protocol: FactoredProtocol, ranges: ColumnRanges
                ) -> tuple[float, tuple[int, ...] | None, tuple[int, int]]:
    """The proven bound on ``max_{y, s1 != s2} sup_F P(y|s1) / P(y|s2)``, and where it is."""
    ratios, output = pair_ratios(protocol, ranges)
    if np.all(np.isnan(ratios)):
        return 0.0, None, (0, 1)
    s1, s2 = np.unravel_index(int(np.nanargmax(ratios)), ratios.shape)
    return float(ratios[s1, s2]), output(int(s1), int(s2)), (int(s1), int(s2))


def certified_level(protocol: FactoredProtocol, counts: np.ndarray, radius: float
                    ) -> tuple[float, tuple[int, ...] | None, tuple[int, int]]:
    """The proven ``(eps, F)``-RLDP level from the factors (module docstring), and its output."""
    ratio, y, pair = worst_ratio(protocol, factor_ranges(protocol, counts, radius))
    return log_up(ratio), y, pair


def factored_rldp_level(protocol: FactoredProtocol, counts: np.ndarray, alpha: float) -> RLDPLevel:
    """Bracket the RLDP level of ``protocol`` over the ``(1 - alpha)`` chi-square set of ``counts``.

    ``certified`` is :func:`certified_level`; ``attained`` is reached by
    ``witness``, a distribution in ``F`` found by one Dinkelbach search at the
    worst output (0 and no witness if that search finds nothing: the bracket
    is then honest but wide). ``worst_at`` holds the dense column of the
    worst output, which may exceed 64 bits for UE-CR.
    """
    counts = np.asarray(counts, dtype=float)
    _check_shape(protocol, counts)
    uncertainty = ChiSquareSet.from_counts(counts, alpha)
    certified, y, (s1, s2) = certified_level(protocol, counts, uncertainty.radius)
    if y is None:
        return RLDPLevel(certified, 0.0, (0, s1, s2), uncertainty.phat.copy())
    column = protocol.column(y)
    attained, witness = attained_pair_ratio(uncertainty, s1, s2, column[s1], column[s2])
    return RLDPLevel(certified, min(attained, certified), (protocol.output_index(y), s1, s2),
                     witness)


def _check_shape(protocol: FactoredProtocol, counts: np.ndarray) -> None:
    if counts.shape != protocol.shape:
        raise InputError(f"the protocol is on a {protocol.shape[0]} x {protocol.shape[1]} table, "
                         f"the counts are {counts.shape[0]} x {counts.shape[1]}")


# ---------------------------------------------------------------------- records
FACTOR_NAMES = {"ir": ("secret", "public"), "grr-cr": ("secret", "own", "other"),
                "ue-cr": ("own", "other")}


def factored_record(protocol: FactoredProtocol) -> dict:
    """The tagged ``"product"`` representation: kind, labels and the exact factors.

    Factor entries are dyadic doubles (exact in JSON's shortest repr); every
    row sums to one exactly.
    """
    return {"representation": "product", "kind": protocol.name,
            "S": list(protocol.s_labels), "U": list(protocol.u_labels),
            "factors": {name: protocol.factors[name].tolist()
                        for name in FACTOR_NAMES[protocol.name]},
            "coordinates": list(protocol.coordinate_sizes)}


def protocol_from_record(fields: dict, eps: float, alpha: float) -> FactoredProtocol:
    """A :class:`FactoredProtocol` from :func:`factored_record`'s fields (bad input raises)."""
    kind = fields.get("kind")
    if kind not in FACTOR_NAMES:
        raise InputError(f"unknown product protocol kind {kind!r}")
    try:
        factors = {name: np.asarray(fields["factors"][name], dtype=float)
                   for name in FACTOR_NAMES[kind]}
        labels = list(fields["S"]), list(fields["U"])
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"the product record is malformed (missing or bad {exc})") from None
    protocol = FactoredProtocol(kind, factors, *labels, eps, alpha)
    _check_factor_shapes(protocol)
    return protocol


def _check_factor_shapes(protocol: FactoredProtocol) -> None:
    n_s, n_u = protocol.shape
    f = protocol.factors
    shapes: dict[str, dict[str, tuple[int, ...]]] = {
        "ir": {"secret": (n_s, n_s), "public": (n_u, n_u)},
        "grr-cr": {"secret": (n_s, n_s), "own": (n_s, n_u, n_u), "other": (n_s, n_u)},
        "ue-cr": {"own": (n_s, n_u, n_u + 1), "other": (n_s, n_u + 1)}}
    expected = shapes[protocol.name]
    for name, shape in expected.items():
        if f[name].shape != shape:
            raise InputError(f"factor {name!r} has shape {f[name].shape}, expected {shape}")


def factor_rows(protocol: FactoredProtocol) -> dict[str, np.ndarray]:
    """Every factor as a 2-D matrix of rows (``own`` stacked over secrets)."""
    return {name: matrix.reshape(-1, matrix.shape[-1]) for name, matrix in
            protocol.factors.items()}


@dataclass(frozen=True)
class FactoredCheck:
    """The verdict of :func:`check_factored_record`: ``holds`` iff every line below holds."""

    holds: bool
    certified: float
    problems: tuple[str, ...]


def check_factored_record(fields: dict, counts: np.ndarray, eps: float,
                         alpha: float) -> FactoredCheck:
    """Verify a ``"product"`` record from its factors alone: exact rows, then the proven level.

    1. every factor row is nonnegative and sums to exactly 1 (rationals);
    2. :func:`certified_level` (interval arithmetic, no solver) is ``<= eps``.
    """
    counts = np.asarray(counts, dtype=float)
    protocol = protocol_from_record(fields, eps, alpha)
    _check_shape(protocol, counts)
    problems = []
    for name, rows in factor_rows(protocol).items():
        exact, why = is_exactly_stochastic(rows)
        if not exact:
            problems.append(f"factor {name}: {why}")
    if problems:
        return FactoredCheck(False, math.inf, tuple(problems))
    radius = chi_square_radius(int(counts.sum()), counts.size, alpha)
    certified = certified_level(protocol, counts, radius)[0]
    if not certified <= eps:
        problems.append(f"proven level {certified!r} exceeds eps = {eps!r}")
    return FactoredCheck(not problems, certified, tuple(problems))


def exact_factor(matrix: np.ndarray) -> np.ndarray:
    """A factor rounded to dyadic rows summing to one exactly (any leading shape)."""
    matrix = np.asarray(matrix, dtype=float)
    return exact_stochastic_rows(matrix.reshape(-1, matrix.shape[-1])).reshape(matrix.shape)
