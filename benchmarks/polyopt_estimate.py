"""Measure PolyOpt as ``rldp protocol polyopt`` runs it, fit its time estimate, check held out.

Issue 37: the preflight estimate must come from measured runs and land within 3x of the
measured time on instances it was not fitted on, or say "unknown: may take hours". Each
run is ``polyopt_protocol(..., method="auto", proof=True, time_limit=LIMIT)`` on a Jeffreys
draw (Sec. VIII-A of the RLDP paper, ``n = 1000``), timed in CPU seconds
(``time.process_time``: the machine is shared). Seeds :data:`FIT_SEEDS` fit
``log t = a + b cells + c log eps`` by least squares in two regimes: up to 8 cells (Gamma
enumerated, no pricing proof) and 9-12 (enumerated, plus the pricing proof ``rldp verify``
needs); seeds :data:`HELD_OUT_SEEDS` are predicted and their ratios measured/predicted
reported. The coefficients are :data:`rldp_models.cli.preflight.POLYOPT_SECONDS`. Run::

    python benchmarks/polyopt_estimate.py [OUT.json]
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from rldp_models.datasets import jeffreys_instance
from rldp_models.rldp_protocols.polyopt import polyopt_protocol

SHAPES = [(2, 3), (2, 4), (3, 3), (2, 6), (3, 4)]
EPS = [0.5, 2.0, 8.0]
FIT_SEEDS = [0]
HELD_OUT_SEEDS = [1]
LIMIT = 240.0
"""Wall seconds per run; a run stopped there is reported, not fitted."""


def measure(n_s: int, n_u: int, eps: float, seed: int) -> dict:
    crosstab = jeffreys_instance(n_s, n_u, 1000, seed).crosstab
    started = time.process_time()
    result = polyopt_protocol(crosstab, eps, proof=True, time_limit=LIMIT)
    return {"shape": [n_s, n_u], "cells": n_s * n_u, "eps": eps, "seed": seed,
            "method": result.method, "cpu_seconds": time.process_time() - started,
            "stopped": result.stopped_early, "relative_gap": result.relative_gap}


REGIMES = [(1, 8), (9, 12)]
"""Cells per fitted regime: Gamma enumerated without, then with, the pricing proof."""


def fit(runs: list[dict]) -> np.ndarray:
    """``(a, b, c)`` of ``log t = a + b cells + c log eps`` over ``runs``."""
    X = np.array([[1.0, r["cells"], np.log(r["eps"])] for r in runs])
    y = np.log([r["cpu_seconds"] for r in runs])
    return np.linalg.lstsq(X, y, rcond=None)[0]


def predict(coefficients: np.ndarray, cells: int, eps: float) -> float:
    return float(np.exp(coefficients @ [1.0, cells, np.log(eps)]))


def main(out: str) -> None:
    runs = []
    for seed in FIT_SEEDS + HELD_OUT_SEEDS:
        for n_s, n_u in SHAPES:
            for eps in EPS:
                runs.append(measure(n_s, n_u, eps, seed))
                print(json.dumps(runs[-1]), flush=True)
    report: dict = {"runs": runs, "regimes": []}
    for low, high in REGIMES:
        inside = [r for r in runs if low <= r["cells"] <= high and not r["stopped"]]
        coefficients = fit([r for r in inside if r["seed"] in FIT_SEEDS])
        for r in inside:
            r["predicted"] = predict(coefficients, r["cells"], r["eps"])
            r["ratio"] = r["cpu_seconds"] / r["predicted"]
        ratios = {name: [min(x), max(x)] for name, x in (
            ("fitted", [r["ratio"] for r in inside if r["seed"] in FIT_SEEDS]),
            ("held_out", [r["ratio"] for r in inside if r["seed"] in HELD_OUT_SEEDS]))}
        report["regimes"].append({"cells": [low, high], "coefficients": coefficients.tolist(),
                                  "ratio_ranges": ratios})
        print(f"cells {low}-{high}: coefficients {coefficients}, ratios {ratios}")
    with open(out, "w") as handle:
        json.dump(report, handle, indent=1)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/polyopt_estimate.json")
