"""The RLDP level of a product-form protocol, proven from its factors alone.

For secrets ``s1 != s2`` and an output ``y`` of IR, GRR-CR or UE-CR
(:mod:`~rldp_models.rldp_protocols.product_form`),
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
``t >= max c``), evaluated in interval arithmetic from the exact counts, and
clipped to ``[min c, max c]``. Bounding the two secrets' factors separately
drops the coupling of Theorem 3, so the level is an upper bound (the
theorems' own proofs, Thms 15, 17 and 19, bound the factors the same way and
are never tighter). No solver is involved: this is what ``verify`` reruns.

The lower end ("attained") comes from one Dinkelbach search over Theorem 3's
pair set at the worst output found
(:func:`~rldp_models.privacy.worst_case.attained_pair_ratio`), realised as a
distribution in ``F``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from rldp_models.errors import InputError
from rldp_models.exact import exact_stochastic_rows, is_exactly_stochastic, iv, log_up, \
    upper
from rldp_models.privacy.worst_case import attained_pair_ratio
from rldp_models.rldp_protocols.checker import RLDPLevel
from rldp_models.rldp_protocols.product_form import ProductProtocol
from rldp_models.uncertainty.chi_square import ChiSquareSet, chi_square_radius

Interval = Any  # an mpmath.iv.mpf


@dataclass(frozen=True)
class FactorRanges:
    """Proven ranges of ``R.c`` over ``F_{U|s}`` for the columns ``c`` of each own factor.

    ``high[s, j] >= max_R R.c_j`` and ``low[s, j] <= min_R R.c_j`` (doubles
    rounded outwards from the interval enclosures).
    """

    high: np.ndarray
    low: np.ndarray


def _exact_interval(value: float | Fraction) -> Interval:
    value = Fraction(value)
    return iv.mpf(value.numerator) / iv.mpf(value.denominator)


def conditional_radius_plus_one(counts: np.ndarray, radius: float, s: int) -> Interval:
    """``B_s + 1 = (sqrt(B+1) - 1 + Phat_s)^2 / Phat_s^2`` of Lemma 8, enclosed exactly."""
    n = int(counts.sum())
    mass = _exact_interval(Fraction(int(counts[s].sum()), n))
    return (iv.sqrt(_exact_interval(radius) + 1) - 1 + mass) ** 2 / mass ** 2


def theorem2_upper(weights: list[Interval], k_plus: Interval, column: np.ndarray,
                   t: float, c: float) -> float:
    """``t + c K - 2 sqrt(c) sum_u w_u sqrt(t - column_u)``, rounded up (Theorem 2's dual).

    A valid upper bound on ``max {R.column : sum_u w_u^2 / R_u <= K}`` for
    every ``c >= 0`` and ``t >= max column`` (weak duality).
    """
    t = max(float(t), float(np.max(column)))
    c_iv, t_iv = iv.mpf(max(float(c), 0.0)), iv.mpf(t)
    total = iv.mpf(0)
    for weight, value in zip(weights, column):
        gap = t_iv - iv.mpf(float(value))
        total += weight * iv.sqrt(iv.mpf([max(gap.a, 0), gap.b]))
    return upper(t_iv + c_iv * k_plus - 2 * iv.sqrt(c_iv) * total)


def factor_ranges(protocol: ProductProtocol, counts: np.ndarray, radius: float) -> FactorRanges:
    """:class:`FactorRanges` of every secret's own factor (module docstring)."""
    n_s = protocol.shape[0]
    channels = (np.broadcast_to(protocol.factors["public"], (n_s, *protocol.factors[
        "public"].shape)) if protocol.name == "ir" else protocol.factors["own"])
    high, low = channels.max(axis=1), channels.min(axis=1)  # the simplex's own bounds
    for s in range(n_s):
        row = np.asarray(counts[s], dtype=float)
        if row.sum() == 0:
            continue
        n_row = int(row.sum())
        weights = [_exact_interval(Fraction(int(x), n_row)) for x in row]
        k_plus = conditional_radius_plus_one(counts, radius, s)
        closed_form = ChiSquareSet(row / row.sum(), max(float(k_plus.a) - 1.0, 1e-300))
        for j, column in enumerate(channels[s].T):
            up = closed_form.support_certificate(column)
            down = closed_form.support_certificate(-column)
            high[s, j] = min(high[s, j], theorem2_upper(weights, k_plus, column, up.t, up.c))
            low[s, j] = max(low[s, j], -theorem2_upper(weights, k_plus, -column, down.t, down.c))
    return FactorRanges(high, low)


def quotient_up(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """``top / bottom`` rounded up, elementwise: ``inf`` for ``x / 0``, NaN for ``0 / .``.

    NaN marks an output no secret can release with positive probability
    under the numerator (no constraint). IEEE division is correctly rounded,
    so the next double up bounds the exact quotient.
    """
    top, bottom = np.broadcast_arrays(np.asarray(top, float), np.asarray(bottom, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.nextafter(top / np.where(bottom > 0, bottom, 1.0), np.inf)
    return np.where(top <= 0, np.nan, np.where(bottom > 0, ratio, np.inf))


def product_up(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x y`` rounded up for nonnegative factors (NaN stays NaN)."""
    with np.errstate(invalid="ignore"):
        return np.nextafter(np.asarray(x) * np.asarray(y), np.inf)


def _nanmax(values: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """Max and argmax along ``axis`` ignoring NaN (NaN and index 0 where all are NaN)."""
    filled = np.where(np.isnan(values), -np.inf, values)
    where = np.argmax(filled, axis=axis)
    best = np.take_along_axis(filled, np.expand_dims(where, axis), axis).squeeze(axis)
    return np.where(np.isneginf(best), np.nan, best), where


def pair_ratios(protocol: ProductProtocol, ranges: FactorRanges
                ) -> tuple[np.ndarray, dict[tuple[int, int], tuple[int, ...]]]:
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


def worst_ratio(protocol: ProductProtocol, ranges: FactorRanges
                ) -> tuple[float, tuple[int, ...] | None, tuple[int, int]]:
    """The proven bound on ``max_{y, s1 != s2} sup_F P(y|s1) / P(y|s2)``, and where it is."""
    ratios, output = pair_ratios(protocol, ranges)
    if np.all(np.isnan(ratios)):
        return 0.0, None, (0, 1)
    s1, s2 = np.unravel_index(int(np.nanargmax(ratios)), ratios.shape)
    return float(ratios[s1, s2]), output(int(s1), int(s2)), (int(s1), int(s2))


def certified_level(protocol: ProductProtocol, counts: np.ndarray, radius: float
                    ) -> tuple[float, tuple[int, ...] | None, tuple[int, int]]:
    """The proven ``(eps, F)``-RLDP level from the factors (module docstring), and its output."""
    ratio, y, pair = worst_ratio(protocol, factor_ranges(protocol, counts, radius))
    return log_up(ratio), y, pair


def product_rldp_level(protocol: ProductProtocol, counts: np.ndarray, alpha: float) -> RLDPLevel:
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


def _check_shape(protocol: ProductProtocol, counts: np.ndarray) -> None:
    if counts.shape != protocol.shape:
        raise InputError(f"the protocol is on a {protocol.shape[0]} x {protocol.shape[1]} table, "
                         f"the counts are {counts.shape[0]} x {counts.shape[1]}")


# ---------------------------------------------------------------------- records
FACTOR_NAMES = {"ir": ("secret", "public"), "grr-cr": ("secret", "own", "other"),
                "ue-cr": ("own", "other")}


def product_record(protocol: ProductProtocol) -> dict:
    """The tagged ``"product"`` representation: kind, labels and the exact factors.

    Factor entries are dyadic doubles (exact in JSON's shortest repr); every
    row sums to one exactly.
    """
    return {"representation": "product", "kind": protocol.name,
            "S": list(protocol.s_labels), "U": list(protocol.u_labels),
            "factors": {name: protocol.factors[name].tolist()
                        for name in FACTOR_NAMES[protocol.name]},
            "coordinates": list(protocol.coordinate_sizes)}


def protocol_from_record(fields: dict, eps: float, alpha: float) -> ProductProtocol:
    """A :class:`ProductProtocol` from :func:`product_record`'s fields (bad input raises)."""
    kind = fields.get("kind")
    if kind not in FACTOR_NAMES:
        raise InputError(f"unknown product protocol kind {kind!r}")
    try:
        factors = {name: np.asarray(fields["factors"][name], dtype=float)
                   for name in FACTOR_NAMES[kind]}
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"the product factors are malformed ({exc})") from None
    protocol = ProductProtocol(kind, factors, list(fields["S"]), list(fields["U"]), eps, alpha)
    _check_factor_shapes(protocol)
    return protocol


def _check_factor_shapes(protocol: ProductProtocol) -> None:
    n_s, n_u = protocol.shape
    f = protocol.factors
    expected = {"ir": {"secret": (n_s, n_s), "public": (n_u, n_u)},
                "grr-cr": {"secret": (n_s, n_s), "own": (n_s, n_u, n_u), "other": (n_s, n_u)},
                "ue-cr": {"own": (n_s, n_u, n_u + 1), "other": (n_s, n_u + 1)}}[protocol.name]
    for name, shape in expected.items():
        if f[name].shape != shape:
            raise InputError(f"factor {name!r} has shape {f[name].shape}, expected {shape}")


def factor_rows(protocol: ProductProtocol) -> dict[str, np.ndarray]:
    """Every factor as a 2-D matrix of rows (``own`` stacked over secrets)."""
    return {name: matrix.reshape(-1, matrix.shape[-1]) for name, matrix in
            protocol.factors.items()}


@dataclass(frozen=True)
class ProductCheck:
    """The verdict of :func:`check_product_record`: ``holds`` iff every line below holds."""

    holds: bool
    certified: float
    problems: tuple[str, ...]


def check_product_record(fields: dict, counts: np.ndarray, eps: float,
                         alpha: float) -> ProductCheck:
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
        return ProductCheck(False, math.inf, tuple(problems))
    radius = chi_square_radius(int(counts.sum()), counts.size, alpha)
    certified = certified_level(protocol, counts, radius)[0]
    if not certified <= eps:
        problems.append(f"proven level {certified!r} exceeds eps = {eps!r}")
    return ProductCheck(not problems, certified, tuple(problems))


def exact_factor(matrix: np.ndarray) -> np.ndarray:
    """A factor rounded to dyadic rows summing to one exactly (any leading shape)."""
    matrix = np.asarray(matrix, dtype=float)
    return exact_stochastic_rows(matrix.reshape(-1, matrix.shape[-1])).reshape(matrix.shape)
