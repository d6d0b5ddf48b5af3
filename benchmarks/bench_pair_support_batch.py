"""Vectorised Theorem 4 with per-row stopping against the all-rows iteration, same process.

:func:`~rldp_models.uncertainty.pair_support_batch.pair_support_batch` on every
``(pair, y)`` of a solved RURP protocol (what ``rldp verify`` batches), timed as
it is today (each row of the inner Newton iteration and of the outer envelope
root stops on its own test) and with the previous loops as the baseline: every
row stepped until the slowest had converged (a frozen copy of them below,
patched in). Upper bounds must agree to 1e-13 absolute, and today's maximisers
must be at least as close to them. The ratio is baseline CPU over today's.
Race x education (5x16) runs by default, the synthetic RURP 10x20 is ``slow``.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.privacy.guarantees import pair_rows
from rldp_models.programs import preset
from rldp_models.uncertainty import pair_support_batch as module

from instances import race_education, synthetic_10x20
from timing import cpu_seconds



def _all_rows_block_t(c, v, p, k, start):
    """The inner iteration before per-row stopping (every row until all are done)."""
    top = v.max(axis=1)
    mass = p.sum(axis=1)
    target = 3.0 / (2.0 * k * np.maximum(c, 1e-300) ** (2.0 / 3.0))
    h, h1, _ = module._h_terms(top, v, p)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        at_top = np.where(h > 0, h1 * h ** (-1.0 / 3.0), np.inf)
    clamped = (mass == 0) | (at_top <= target)
    span = np.maximum(mass * k**1.5 * c / 3**1.5, 1e-300)
    hi = np.log(span) + 1.0
    resolution = np.log(np.maximum(16 * np.spacing(np.abs(top)), 1e-300))
    lo = np.minimum(np.maximum(np.log(span) - 80.0, resolution), hi - 1e-9)
    x = np.clip(np.log(np.maximum(start - top, 1e-300)), lo, hi) if start is not None \
        else hi - 1.5
    for _ in range(module.INNER_STEPS):
        h, h1, h2 = module._h_terms(top + np.exp(x), v, p)
        with np.errstate(divide="ignore", invalid="ignore"):
            psi = np.log(h1) - np.log(h) / 3.0 - np.log(target)
            slope = np.exp(x) * (h2 / h1 - h1 / (3.0 * h))
        lo = np.where(psi > 0, x, lo)
        hi = np.where(psi > 0, hi, x)
        step = x - psi / slope
        done = clamped | ~np.isfinite(psi) | (np.abs(step - x) < 1e-8) | (hi - lo < 1e-8)
        if np.all(done):
            break
        x = np.where(np.isfinite(step) & (step > lo) & (step < hi), step, 0.5 * (lo + hi))
    return np.where(clamped, top, top + np.exp(x))


def _all_rows_envelope_root(slope_at, lo, hi):
    """The outer iteration before per-row stopping (every row until all have converged)."""
    every = np.arange(lo.size)
    f_lo, t1, t2 = slope_at(np.exp(lo), [None, None], every)
    f_hi, t1, t2 = slope_at(np.exp(hi), [t1, t2], every)
    side = np.zeros(lo.shape)
    unbracketed = (f_lo >= 0) | (f_hi <= 0)
    x = np.where(f_lo >= 0, lo, hi)
    for step in range(module.OUTER_STEPS):
        with np.errstate(divide="ignore", invalid="ignore"):
            secant = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
        usable = np.isfinite(secant) & (secant > lo) & (secant < hi) & \
            (step >= module.BISECTIONS)
        x = np.where(unbracketed, x, np.where(usable, secant, 0.5 * (lo + hi)))
        f, t1, t2 = slope_at(np.exp(x), [t1, t2], every)
        below = f < 0
        f_hi = np.where(below & (side < 0), 0.5 * f_hi, f_hi)
        f_lo = np.where(~below & (side > 0), 0.5 * f_lo, f_lo)
        lo, f_lo = np.where(below, x, lo), np.where(below, f, f_lo)
        hi, f_hi = np.where(below, hi, x), np.where(below, f_hi, f)
        side = np.where(below, -1.0, 1.0)
        converged = (hi - lo < 1e-10) | (np.abs(f) <= 1e-12 * np.abs(f_lo - f_hi))
        if np.all(converged | unbracketed):
            break
    return np.exp(x)


def _compare(benchmark: Any, record_ratio: Any, crosstab: Crosstab, monkeypatch: Any) -> None:
    program = preset("RURP", crosstab, 1.0, 0.05, distortion="hamming")
    solution = program.solve(solver="clarabel-direct")
    uncertainty = program.uncertainty
    pairs = list(itertools.permutations(range(crosstab.counts.shape[0]), 2))
    rows = pair_rows(np.asarray(solution.protocol, dtype=float), uncertainty, 1.0, pairs)
    inputs = (rows.v1, rows.v2, rows.p1, rows.p2, rows.rho)

    def batch() -> Any:
        module._RECENT.clear()  # time the computation, not the repeat
        return module.pair_support_batch(*inputs)

    with monkeypatch.context() as patch:
        patch.setattr(module, "_block_t", _all_rows_block_t)
        patch.setattr(module, "_envelope_root", _all_rows_envelope_root)
        start = time.perf_counter()
        before, before_cpu = cpu_seconds(batch)
        before_wall = time.perf_counter() - start
    now, now_cpu = benchmark.pedantic(lambda: cpu_seconds(batch), rounds=1, iterations=1)
    assert np.max(np.abs(now.upper - before.upper)) < 1e-13
    assert np.max(now.upper - now.lower) <= np.max(before.upper - before.lower)
    benchmark.extra_info.update(
        rows=int(rows.v1.shape[0]), cpu_before=before_cpu, cpu_now=now_cpu,
        cpu_ratio=before_cpu / now_cpu,
        largest_gap_before=float(np.max(before.upper - before.lower)),
        largest_gap_now=float(np.max(now.upper - now.lower)))
    record_ratio("every row until all converge", before_wall)


def test_race_education_5x16(benchmark, record_ratio, monkeypatch) -> None:
    _compare(benchmark, record_ratio, race_education(), monkeypatch)


@pytest.mark.slow
def test_rurp_10x20(benchmark, record_ratio, monkeypatch) -> None:
    _compare(benchmark, record_ratio, synthetic_10x20(), monkeypatch)
