"""PolyOpt with and without SCIP's guidance of the pricing search (issue 37, item 4).

Runs ``polyopt_protocol(..., time_limit=S)`` with
:data:`rldp_models.rldp_protocols.polyopt.SCIP_SECONDS` at ``0`` (today's oracle)
and at ``GUIDED`` CPU seconds per pricing call, in the same
process, and prints CPU seconds (``time.process_time``, SCIP's included), the proven
relative gap and the utility. ``LIMIT`` is in CPU seconds. Run (the machine is shared;
pick instances)::

    PYTHONPATH=. python benchmarks/bench_polyopt_scip.py 3x4 15 2 1 5
    PYTHONPATH=. python benchmarks/bench_polyopt_scip.py hair 30 2
    PYTHONPATH=. python benchmarks/bench_polyopt_scip.py hair 20 1 5 8
    PYTHONPATH=. python benchmarks/bench_polyopt_scip.py hair 30 5
    PYTHONPATH=. python benchmarks/bench_polyopt_scip.py 5x5 120 2
"""

from __future__ import annotations

import sys
import time
from types import SimpleNamespace

import numpy as np

from rldp_models.conelp import pricing_progress
from rldp_models.data import Crosstab
from rldp_models.datasets import jeffreys_instance
from rldp_models.rldp_protocols import polyopt as polyopt_module

GUIDED = 1.0
"""SCIP's seconds per pricing call in the guided runs."""

HAIR_EYE = Crosstab(np.array([[68, 20, 15, 5], [119, 84, 54, 29], [26, 17, 14, 14],
                              [7, 94, 10, 16]]),
                    ("Black", "Brown", "Red", "Blond"), ("Brown", "Blue", "Hazel", "Green"))
"""The HairEyeColor 4x4 of issue 37 (hair x eye, n = 592)."""


def instance(name: str) -> Crosstab:
    """``hair``, or a seeded Jeffreys draw ``RxC`` (seed 0, n = 1000) as in bench_polyopt."""
    if name == "hair":
        return HAIR_EYE
    rows, columns = (int(k) for k in name.split("x"))
    return jeffreys_instance(rows, columns, 1000, seed=0).crosstab


def run(table: Crosstab, eps: float, limit: float, scip_seconds: float
        ) -> tuple[float, float, float]:
    """CPU seconds, proven relative gap and utility of one time-limited run."""
    polyopt_module.SCIP_SECONDS = scip_seconds
    start = time.process_time()
    result = polyopt_module.polyopt_protocol(table, eps, proof=True, time_limit=limit)
    return time.process_time() - start, result.relative_gap, result.utility_hat


def main(argv: list[str]) -> None:
    """``NAME LIMIT EPS...``: one line per eps and setting.

    The limit is counted in CPU seconds (the run's clock is switched to
    ``time.process_time``): on the shared machine a wall-clock limit gives each
    setting whatever share of a core it happened to get.
    """
    pricing_progress.time = SimpleNamespace(monotonic=time.process_time)  # type: ignore[assignment]
    table, limit = instance(argv[0]), float(argv[1])
    for eps in (float(e) for e in argv[2:]):
        for scip_seconds in (0.0, GUIDED):
            cpu, gap, utility = run(table, eps, limit, scip_seconds)
            print(f"{argv[0]} eps {eps:g} scip {scip_seconds:g}: cpu {cpu:.1f} s, "
                  f"gap {100 * gap:.2f}%, utility {utility:.6f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
