"""Measure PolyOpt as ``rldp protocol polyopt`` runs it, fit its time estimate, check held out.

Issue 37: the preflight estimate must come from measured runs and land within 3x of the
measured time on instances it was not fitted on, or say "unknown: may take hours". Each
run is ``polyopt_protocol(..., method="auto", proof=True, time_limit=LIMIT)`` on a Jeffreys
draw (Sec. VIII-A of the RLDP paper, ``n = 1000``), timed in CPU seconds
(``time.process_time``: the machine is shared). Seeds :data:`FIT_SEEDS` fit
``log t = a + b cells + c log eps`` per method by least squares; seeds :data:`HELD_OUT_SEEDS`
are predicted and their ratios measured/predicted reported. Run::

    python benchmarks/polyopt_estimate.py [OUT.json]
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from rldp_models.instances import jeffreys_instance
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
    finished = [r for r in runs if not r["stopped"]]
    coefficients = fit([r for r in finished if r["seed"] in FIT_SEEDS])
    for r in runs:
        r["predicted"] = predict(coefficients, r["cells"], r["eps"])
        r["ratio"] = r["cpu_seconds"] / r["predicted"]
    held = [r["ratio"] for r in finished if r["seed"] in HELD_OUT_SEEDS]
    report = {"coefficients": coefficients.tolist(), "runs": runs,
              "held_out_ratio_range": [min(held), max(held)] if held else None}
    with open(out, "w") as handle:
        json.dump(report, handle, indent=1)
    print("coefficients", coefficients, "held-out ratios", sorted(held))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/polyopt_estimate.json")
