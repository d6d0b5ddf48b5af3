"""Coverage study: vectorised membership against one ``named_set(...).contains`` per draw.

Issue 24 asks that 10^4 draws take seconds. The benchmark times
:func:`rldp_models.uncertainty.coverage.coverage_study` on a sparse 16 x 15
table (the shape of Adult education x occupation, drawn here from a Jeffreys
prior so no data file is needed) with all four sets, and records the ratio to
the obvious loop — build each set around each simulated table with
:func:`~rldp_models.uncertainty.named.named_set` and ask its ``contains`` —
timed in the same process on :data:`BASELINE_DRAWS` draws and scaled to the
same number of draws. Measure::

    python -m pytest benchmarks/bench_coverage.py --benchmark-enable
"""

from __future__ import annotations

import numpy as np

from benchmarks.timing import best_of
from rldp_models.data import Crosstab
from rldp_models.uncertainty.coverage import MEMBERSHIP_TOL, coverage_study
from rldp_models.uncertainty.named import named_set

SETS = ("chi2", "kl", "tv", "box")
DRAWS = 10_000
BASELINE_DRAWS = 100
"""Draws of the per-draw loop (scaled to :data:`DRAWS`; it costs ~1 ms per set and draw)."""


def _table() -> np.ndarray:
    rng = np.random.default_rng(240)
    return rng.multinomial(32_561, rng.dirichlet(np.full(240, 0.3))).reshape(16, 15)


def _per_draw_loop(counts: np.ndarray, draws: int) -> int:
    rng = np.random.default_rng(0)
    n, phat = int(counts.sum()), counts.ravel() / counts.sum()
    hits = 0
    for _ in range(draws):
        table = Crosstab.from_array(rng.multinomial(n, phat).reshape(counts.shape))
        hits += sum(named_set(name, table, 0.05).contains(phat, tol=MEMBERSHIP_TOL)
                    for name in SETS)
    return hits


def test_coverage_ten_thousand_draws(benchmark, record_ratio) -> None:
    counts = _table()
    loop = best_of(lambda: _per_draw_loop(counts, BASELINE_DRAWS), repeats=1)
    benchmark.pedantic(coverage_study, args=(counts, SETS, (0.05,), DRAWS),
                       kwargs={"progress": False}, rounds=1, iterations=1)
    record_ratio(f"named_set(...).contains per draw, {BASELINE_DRAWS} draws scaled",
                 loop * DRAWS / BASELINE_DRAWS)
