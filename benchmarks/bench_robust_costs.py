"""The preflight estimates of ``rldp solve`` against measured runs (issue 38, item 4).

``robust_costs.csv`` holds CPU seconds and peak memory of ``rldp solve`` on the direct conic
path (``robust_costs.py measure``). The laws in :mod:`rldp_models.resources` are fitted on
the rows marked ``fit`` (``robust_costs.py fit``); here every row, and above all the held-out
ones, must land within 2x of the estimate, and the constants written in ``resources`` must
be the fit's. The slow case measures a held-out shape again, in a child process.

Run::

    python -m pytest benchmarks/bench_robust_costs.py -m 'slow or not slow'
"""

from __future__ import annotations

import pytest

from rldp_models import resources
from robust_costs import fit, measure, rows

LAWS = ("hamming", "squared")
WITHIN = 2.0


def _ratios(row: dict[str, object]) -> tuple[float, float]:
    """Estimate / measured, for CPU seconds and peak memory."""
    estimate = resources.robust_program_estimate(
        str(row["problem"]), int(str(row["n_s"])), int(str(row["n_u"])), True, direct=True,
        distortion=str(row["distortion"]))
    return (estimate.seconds / float(str(row["cpu_seconds"])),
            estimate.bytes / (float(str(row["peak_mb"])) * 2**20))


def test_the_written_laws_are_the_fit() -> None:
    fitted = fit("RURP")
    for kind, law in (("time", resources.DIRECT_TIME_LAW),
                      ("memory", resources.DIRECT_MEMORY_LAW)):
        assert (law.scale, law.s_exponent, law.u_exponent) == pytest.approx(fitted[kind],
                                                                            rel=0.02), kind
    assert resources.DIRECT_SQUARED_FACTORS == pytest.approx(fitted["squared"], rel=0.02)


@pytest.mark.parametrize("distortion", LAWS)
def test_measured_runs_land_within_2x_of_the_estimate(distortion: str) -> None:
    measured = rows("RURP", distortion)
    held_out = [row for row in measured if row["fit"] == "0"]
    assert held_out, "no held-out measurement"
    for row in measured:
        seconds, memory = _ratios(row)
        assert 1 / WITHIN <= seconds <= WITHIN, (row["table"], "time", seconds)
        assert 1 / WITHIN <= memory <= WITHIN, (row["table"], "memory", memory)


@pytest.mark.slow
@pytest.mark.parametrize(("distortion", "table"), [("hamming", "7x27"), ("squared", "8x16")])
def test_a_held_out_shape_measured_again_lands_within_2x(distortion: str, table: str) -> None:
    seconds, memory = _ratios(measure("RURP", distortion, table))
    assert 1 / WITHIN <= seconds <= WITHIN and 1 / WITHIN <= memory <= WITHIN
