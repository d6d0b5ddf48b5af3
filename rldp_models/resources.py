"""What a command's sizes imply in memory and time, estimated before any work.

Several commands grow much faster than their input: UE-CR has ``(|U|+1)^|S|``
outputs (Thms 19-20 of ``rldp-privacy-utility-tradeoff.txt``), the closed-form
``rr`` mechanism a ``k x k`` matrix, ``ue``/``urap`` ``2^k`` outputs, the
staircase LP ``2^k`` patterns, PolyOpt's cone Gamma has dimension ``|S||U|``
and the robust programs ``|S|^2 |U|^2`` cone entries. An :class:`Estimate` is
computed from the sizes alone (no allocation), and :func:`check` refuses with
one line naming the size, the estimate and the limit when it would not fit.

Every constant below is calibrated on this code as it stands (measurements
cited beside each); estimates are meant to be right within a small factor, which is
all a refusal needs: the refused cases are many orders of magnitude beyond.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from rldp_models.errors import InputError

MEMORY_FRACTION = 0.5
"""Default ``--max-memory``: this share of the machine's memory (the rest is for others)."""

DEFAULT_TIME_CEILING = 6 * 3600.0
"""Without ``--time-limit``, work estimated to take longer than this is refused up front."""

LONG_WORK_SECONDS = 10.0
"""Work estimated to take longer than this announces its estimate on stderr."""

BASELINE_BYTES = 220e6
"""Resident size of a command before its work (interpreter, numpy, scipy, cvxpy): 206-212 MB
peak for ``rldp protocol ue-cr`` on 2x4 and ``rldp solve RURP`` on Adult sex x race."""

BYTES_PER_WRITTEN_ENTRY = 51.0
"""Peak bytes per entry of a matrix written as JSON (float64 array, Python list of floats,
checker copies): 5.8 GB for UE-CR's 80 x 17^5 = 113.6M entries on Adult race x education."""

SECONDS_PER_CHECKED_ENTRY = 2e-6
"""Building, checking and writing one entry of a closed-form matrix (JSON ~1M entries/s)."""

SECONDS_PER_RLDP_COLUMN_PAIR = 0.02
"""The (eps, F)-RLDP checker of ``rldp protocol``: per output column and ordered pair of
secrets, 0.015-0.022 s (UE-CR on 2x4, 3x3, 3x5 tables: 25, 64, 216 outputs in 1.1-18.5 s)."""

POLYOPT_ENUMERATION_SECONDS = 5.0
"""PolyOpt with Gamma enumerated (``|X| <= 12``): seconds (block lemma 0.4-1.5 s, LPs)."""

POLYOPT_BYTES = 100e6
"""PolyOpt's rays beyond the baseline: at most ~26k rays of 12 entries, or a generated few."""

POLYOPT_PRICING_SECONDS_AT_16 = 69.0
POLYOPT_PRICING_GROWTH = 1.93
"""PolyOpt by column generation: 69 s at ``|X| = 16`` (4x4), ~5 s at 12 (3x4): a factor
~1.93 per extra input symbol, the branch-and-bound pricing over Gamma being exponential."""

ROBUST_CONE_ENTRIES_AT_CALIBRATION = 6400.0
ROBUST_SECONDS_AT_CALIBRATION = 13.0
ROBUST_TIME_EXPONENT = 1.6
ROBUST_BYTES_AT_CALIBRATION = 64e6
ROBUST_MEMORY_EXPONENT = 1.5
"""Robust programs grow with their ``|S|^2 |U|^2`` cone entries as a power law through two
Adult measurements (``rldp solve NURP --distortion hamming``, default solver, about half a
core free): race x education (5x16, 6,400 entries) 26 s and 287 MB peak, education x
occupation (16x15, 57,600) 874 s and 2,053 MB; a free core halves the times (RURP 5x16
alone: 15 s). So 13 s x (entries / 6400)^1.6 and 64 MB x (entries / 6400)^1.5 above the
baseline."""

NOMINAL_TIME_SHARE = 0.3
NOMINAL_MEMORY_SHARE = 0.05
"""NUNP (no robust block) against NURP at 16x15: 280 s and 283 MB peak (63 MB above the
baseline) against 874 s and 2,053 MB."""

DIRECT_OVERHEAD_SECONDS = 1.7
DIRECT_BASELINE_BYTES = 110e6
"""``rldp solve RURP`` on a 2x2 table (direct conic path): 1.74 s CPU and 110 MB peak, the
start-up and the smallest program; the laws below add to these."""


@dataclass(frozen=True)
class CostLaw:
    """``scale * n_s^s_exponent * n_u^u_exponent``, fitted to measured runs.

    The direct path's cost is not a function of the cone entries ``n_s^2 n_u^2`` alone:
    at equal entries a table with more outputs (``n_u``) costs more CPU time.
    """

    scale: float
    s_exponent: float
    u_exponent: float

    def __call__(self, n_s: int, n_u: int) -> float:
        return self.scale * float(n_s) ** self.s_exponent * float(n_u) ** self.u_exponent


DIRECT_TIME_LAW = CostLaw(0.0005971, 3.131, 1.246)
DIRECT_MEMORY_LAW = CostLaw(6.171e+04, 2.584, 0.936)
DIRECT_SQUARED_FACTORS = (1.477, 1.198)
"""CPU seconds above :data:`DIRECT_OVERHEAD_SECONDS` and peak bytes above
:data:`DIRECT_BASELINE_BYTES` of ``rldp solve`` on the direct conic path (RURP, Hamming
distortion, eps 1, chi-square set, end to end: build, solve, exact finish, certificate,
record), and the factors of squared (or absolute) distortion on the whole estimate (the
geometric mean of measured / Hamming estimate over its fitted rows).

Fitted by ``benchmarks/robust_costs.py fit`` on the rows of ``benchmarks/robust_costs.csv``
marked ``fit`` (CPU seconds and peak resident memory of ``/usr/bin/time -v``, synthetic
Jeffreys tables of 10,000 records and Adult education x native-country, on a shared
2-core machine at load 5-11): 3x5 1.5-1.9 s, 8x8 7.3 s, 10x20 22.9 s and 401 MB, Adult
16x42 470 s and 2.8 GB. ``benchmarks/bench_robust_costs.py`` checks that every row lands
within 2x, the held-out ones included: 2x3, 8x16, 7x27 (24.5 s), 12x24 (80 s, 704 MB),
Adult race x education, squared 5x10 and 5x16 (0.72-1.16 of the measured), and 16x30
(issue 38: 181.8 s CPU and 1,829 MB end to end at load 6-8; estimated 245 s and 1,941 MB,
1.35x and 1.06x). The time grows
as ``n_s^3.1 n_u^1.2``, not as the cone entries ``(n_s n_u)^2``: the ordered pairs of
secrets cost more than the outputs. The previous law, entries^0.8 through two shapes, was
2-7x off (issue 38). Squared distortion costs a growing multiple of Hamming (1.1x at 8x8,
3.6x at 10x20: 83 s, 497 MB), which one factor only averages: its large tables are
underestimated (0.63x at 10x20). CPU time itself grows with the machine's load: the same
16x42 run took 200 s CPU near idle (issue 38), so on an idle machine these estimates are
high by up to ~2x; far beyond 16x42 (41x41: 1.9 h, 27 GiB) they are extrapolations."""


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


@dataclass(frozen=True)
class Estimate:
    """Peak memory and time a piece of work implies, and the sizes it follows from.

    Attributes
    ----------
    what : str
        The work and its sizes, e.g. ``"ue-cr on 5x16: 1,419,857 outputs"``.
    bytes : float
        Estimated peak resident memory.
    seconds : float
        Estimated wall time on one core.
    """

    what: str
    bytes: float
    seconds: float


def machine_memory() -> int:
    """Physical memory in bytes, or the cgroup limit when that is smaller."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        with open("/sys/fs/cgroup/memory.max") as handle:
            limit = handle.read().strip()
    except OSError:
        return total
    return min(total, int(limit)) if limit.isdigit() else total


def default_memory_limit() -> int:
    """The default of ``--max-memory``: :data:`MEMORY_FRACTION` of :func:`machine_memory`."""
    return int(MEMORY_FRACTION * machine_memory())


def parse_size(text: str) -> int:
    """Bytes from ``"8G"``, ``"512M"``, ``"1.5GiB"`` or a plain byte count (binary units)."""
    match = _SIZE.match(text)
    if not match:
        raise InputError(f"not a memory size: {text!r} (examples: 8G, 512M, 1.5GiB)")
    value = float(match.group(1)) * _UNITS[match.group(2).lower()]
    if value < 1:
        raise InputError(f"memory size must be positive, got {text!r}")
    return int(value)


def format_bytes(size: float) -> str:
    """``size`` in binary units with three significant digits (``"5.41 GiB"``)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if size < 1024 or unit == "PiB":
            return f"{size:.3g} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def format_seconds(seconds: float) -> str:
    """A duration a person reads at a glance (``"4.2 min"``, ``"3.1 days"``, ``"> 1000 years"``)."""
    for unit, length in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= length:
            count = seconds / length
            return "> 1000 years" if unit == "years" and count > 1000 else f"{count:.2g} {unit}"
    return f"{seconds:.2g} s"


def check(estimate: Estimate, max_memory: int, time_limit: float | None) -> None:
    """Refuse ``estimate`` in one line if it exceeds the memory or the time allowed.

    ``time_limit`` None means the :data:`DEFAULT_TIME_CEILING`.

    Raises
    ------
    InputError
        Naming the work, its sizes, the estimate and the limit.
    """
    if estimate.bytes > max_memory:
        raise InputError(f"{estimate.what} needs about {format_bytes(estimate.bytes)} of "
                         f"memory, more than the limit of {format_bytes(max_memory)} "
                         "(--max-memory); use a smaller table or alphabet")
    ceiling = DEFAULT_TIME_CEILING if time_limit is None else time_limit
    if estimate.seconds > ceiling:
        how = ("--time-limit SECONDS raises this" if time_limit is None else "--time-limit")
        raise InputError(f"{estimate.what} would take {_about(estimate.seconds)}, "
                         f"more than the limit of {format_seconds(ceiling)} ({how}); "
                         "use a smaller table or alphabet")


def protocol_estimate(name: str, n_s: int, n_u: int) -> Estimate:
    """``rldp protocol NAME`` on an ``n_s x n_u`` crosstab.

    SRR and GRR write and check a dense ``|X| x |X|`` matrix, each output column over
    every ordered pair of secrets. IR, GRR-CR and UE-CR are built and proven in product
    form (:func:`product_protocol_estimate`). PolyOpt is dominated by the rays of Gamma
    (dimension ``|X|``): enumerated up to 12, priced beyond.
    """
    inputs = n_s * n_u
    if name == "polyopt":
        return Estimate(f"polyopt on {n_s}x{n_u} (Gamma of dimension {inputs})",
                        BASELINE_BYTES + POLYOPT_BYTES,
                        _polyopt_seconds(inputs))
    if name in PRODUCT_PROTOCOLS:
        return product_protocol_estimate(name, n_s, n_u)
    return Estimate(f"{name} on {n_s}x{n_u} ({inputs} inputs x {inputs} outputs)",
                    *dense_protocol_cost(n_s, inputs, inputs))


def dense_protocol_cost(n_s: int, inputs: int, outputs: int) -> tuple[float, float]:
    """Bytes and seconds of writing and checking a dense protocol matrix."""
    entries = inputs * outputs
    return (BASELINE_BYTES + _float(entries) * BYTES_PER_WRITTEN_ENTRY,
            _float(entries) * SECONDS_PER_CHECKED_ENTRY
            + _float(outputs) * n_s * (n_s - 1) * SECONDS_PER_RLDP_COLUMN_PAIR)


PRODUCT_PROTOCOLS = ("ir", "grr-cr", "ue-cr")
DENSE_ENTRY_BUDGET = 4096
"""A product protocol's dense matrix (``|X| * |Y|`` entries, 32 KiB of doubles) is written
beside its factors and checked too up to this size
(:mod:`rldp_models.results.factored_result`)."""

PRODUCT_SECONDS = 2.0
"""IR and GRR-CR in product form, build + proof + level: 0.17-0.62 s on Adult (5x16, 16x15)."""

UE_PATTERN_SECONDS = 1.4e-4
UE_PATTERN_BYTES = 2.5e3
"""UE-CR's parameter search and utility run over the ``2^|S|`` report patterns: 8.95 s and
165 MB peak at ``|S| = 16`` (Adult education x occupation), 0.67 s and 1 MB at ``|S| = 5``."""


def product_protocol_estimate(name: str, n_s: int, n_u: int) -> Estimate:
    """IR, GRR-CR or UE-CR built and proven from their factors (``|S|^2 + |S||U|^2`` entries
    at most), plus the dense matrix and its check when it is within the dense budget."""
    inputs = n_s * n_u
    outputs = (n_u + 1) ** n_s if name == "ue-cr" else inputs
    patterns = _float(2 ** min(n_s, 1000)) if name == "ue-cr" else 0.0
    memory = BASELINE_BYTES + patterns * UE_PATTERN_BYTES
    seconds = PRODUCT_SECONDS + patterns * UE_PATTERN_SECONDS
    if inputs * outputs <= DENSE_ENTRY_BUDGET:
        dense_memory, dense_seconds = dense_protocol_cost(n_s, inputs, outputs)
        memory, seconds = max(memory, dense_memory), seconds + dense_seconds
    return Estimate(f"{name} on {n_s}x{n_u} in product form ({inputs} inputs x "
                    f"{_count(outputs)} outputs)", memory, seconds)


def _polyopt_seconds(inputs: int) -> float:
    if inputs <= 12:
        return POLYOPT_ENUMERATION_SECONDS
    exponent = min(inputs - 16, 1000)  # beyond, the estimate is infinite in all but name
    return POLYOPT_PRICING_SECONDS_AT_16 * POLYOPT_PRICING_GROWTH ** exponent


def mechanism_estimate(name: str, inputs: int) -> Estimate:
    """``rldp mechanism NAME`` on ``inputs`` symbols (``--k``, prior rows or crosstab cells).

    Outputs: ``k`` for rr, geometric, urr and srr; ``2^k`` for ue and urap; 2 for binary;
    staircase prices ``2^k`` patterns of ``k`` entries when enumerated.
    """
    outputs = {"binary": 2, "quaternary": 4, "ue": _power_of_two(inputs),
               "urap": _power_of_two(inputs), "staircase": _power_of_two(inputs)}
    columns = outputs.get(name, inputs)
    entries = inputs * columns
    what = (f"{name} with k = {inputs:,} ({inputs:,} x {_count(columns)} matrix)"
            if name != "staircase" else f"staircase with k = {inputs} ({_count(columns)} patterns)")
    return Estimate(what, BASELINE_BYTES + _float(entries) * BYTES_PER_WRITTEN_ENTRY,
                    _float(entries) * SECONDS_PER_CHECKED_ENTRY)


def _power_of_two(exponent: int) -> int:
    return 2 ** min(exponent, 1000)


def robust_program_estimate(problem: str, n_s: int, n_u: int, robust: bool,
                            direct: bool = False, distortion: str = "squared") -> Estimate:
    """``rldp solve PROBLEM`` (and each solver of ``compare-solvers``) on ``n_s x n_u``.

    The program has ``n_s n_u^2`` variables; robust blocks add ``n_s (n_s - 1) n_u`` cones
    of ``n_u`` entries (Theorem 4), about ``n_s^2 n_u^2`` cone entries. The cvxpy path's
    cost follows its power law in the cone entries (:data:`ROBUST_TIME_EXPONENT`); with
    ``direct``, the direct conic path's follows the laws fitted in ``n_s`` and ``n_u``
    (:data:`DIRECT_TIME_LAW`), times :data:`DIRECT_SQUARED_FACTORS` unless ``distortion``
    is ``"hamming"`` (the CLI's default distortion is ``"squared"``, the costlier).
    """
    entries = float(n_s * n_s * n_u * n_u)
    what = f"{problem} on {n_s}x{n_u} ({int(entries):,} cone entries)"
    if direct:
        share = 1.0 if robust else NOMINAL_TIME_SHARE
        time_factor, memory_factor = (1.0, 1.0) if distortion == "hamming" \
            else DIRECT_SQUARED_FACTORS
        return Estimate(what, memory_factor * (DIRECT_BASELINE_BYTES
                                               + share * DIRECT_MEMORY_LAW(n_s, n_u)),
                        time_factor * (DIRECT_OVERHEAD_SECONDS
                                       + share * DIRECT_TIME_LAW(n_s, n_u)))
    time_share, memory_share = (1.0, 1.0) if robust else (NOMINAL_TIME_SHARE,
                                                         NOMINAL_MEMORY_SHARE)
    scale = entries / ROBUST_CONE_ENTRIES_AT_CALIBRATION
    return Estimate(what, BASELINE_BYTES + memory_share * ROBUST_BYTES_AT_CALIBRATION
                    * scale ** ROBUST_MEMORY_EXPONENT,
                    time_share * ROBUST_SECONDS_AT_CALIBRATION * scale ** ROBUST_TIME_EXPONENT)


def verify_estimate(result_bytes: int) -> Estimate:
    """``rldp verify`` on a result file of ``result_bytes``: read as Python floats (~20 bytes
    of JSON per number, 51 bytes each in memory) and checked column by column."""
    numbers = result_bytes / 20
    return Estimate(f"verify of a {format_bytes(result_bytes)} result",
                    BASELINE_BYTES + numbers * BYTES_PER_WRITTEN_ENTRY,
                    numbers * SECONDS_PER_CHECKED_ENTRY)


def _count(value: int) -> str:
    """An exact count grouped in thousands, or in scientific notation when astronomical."""
    return f"{value:,}" if value < 10**15 else f"{float(min(value, 10**300)):.3g}"


def _float(value: int) -> float:
    """``value`` as a float, capped far beyond any machine so that it never overflows."""
    return float(min(value, 10**300))


def _about(seconds: float) -> str:
    text = format_seconds(seconds)
    return text if text.startswith(">") else f"about {text}"
