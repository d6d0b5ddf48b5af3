"""Measure and fit what ``rldp solve`` costs on the direct conic path (issue 38, item 4).

Each measurement runs ``python -m rldp_models.cli solve PROBLEM --eps 1`` in a child
process under ``/usr/bin/time -v`` and records its CPU seconds (user + system: the machine
is shared, so wall time says little) and peak resident memory, end to end (build, solve,
exact finish, optimality certificate, record written), in ``robust_costs.csv`` beside
this file. Synthetic tables are :func:`rldp_models.datasets.jeffreys_instance` draws with
``n = 10,000`` and seed 7 (``benchmarks/instances.py``); Adult ones name their columns.

:func:`fit` fits, per problem and distortion, the law of
:func:`rldp_models.resources.robust_program_estimate`:
``cpu = T0 + A n_s^a n_u^b`` and ``peak = baseline + B n_s^c n_u^d`` for Hamming
distortion, by least squares on the logarithms over the rows chosen for fitting, and the
factors that make squared distortion's estimate; ``bench_robust_costs.py`` asserts that
the held-out rows land within 2x of the law as written in ``resources``.

Measure (appends one row per shape)::

    PYTHONPATH=. python benchmarks/robust_costs.py measure RURP hamming 3x5 5x10 8x8
    PYTHONPATH=. python benchmarks/robust_costs.py measure RURP hamming \
        adult:education:native-country
    PYTHONPATH=. python benchmarks/robust_costs.py fit
"""

from __future__ import annotations

import csv
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares

from rldp_models import resources
from rldp_models.datasets import jeffreys_instance

HERE = Path(__file__).resolve().parent
CSV = HERE / "robust_costs.csv"
ADULT = HERE.parents[1] / "shared" / "data" / "adult" / "adult.data"
FIELDS = ("problem", "distortion", "table", "n_s", "n_u", "cpu_seconds", "peak_mb", "fit")


def _table_args(table: str, folder: Path) -> tuple[list[str], int, int]:
    """CLI data arguments for ``"8x8"`` (synthetic) or ``"adult:S:U"``, and the shape."""
    if table.startswith("adult:"):
        from rldp_models.data import Crosstab

        _, sensitive, public = table.split(":")
        n_s, n_u = Crosstab.from_records(ADULT, sensitive, public).shape
        return ["--data", str(ADULT), "--sensitive", sensitive, "--public", public], n_s, n_u
    n_s, n_u = (int(v) for v in table.split("x"))
    counts = jeffreys_instance(n_s, n_u, 10_000, seed=7).crosstab.counts
    path = folder / f"{table}.csv"
    lines = ["s," + ",".join(str(u) for u in range(n_u))]
    lines += [f"{s}," + ",".join(str(int(c)) for c in row) for s, row in enumerate(counts)]
    path.write_text("\n".join(lines) + "\n")
    return ["--counts", str(path)], n_s, n_u


def measure(problem: str, distortion: str, table: str) -> dict[str, object]:
    """One child run of ``rldp solve``: its CPU seconds and peak resident MB."""
    with tempfile.TemporaryDirectory() as folder:
        data, n_s, n_u = _table_args(table, Path(folder))
        command = ["/usr/bin/time", "-v", sys.executable, "-m", "rldp_models.cli", "solve",
                   problem, "--eps", "1", "--distortion", distortion, *data, "-q",
                   "--out", str(Path(folder) / "out.json")]
        run = subprocess.run(command, capture_output=True, text=True, cwd=HERE.parent)
    if "Exit status: 0" not in run.stderr:  # /usr/bin/time itself was seen to die of SIGBUS
        raise RuntimeError(f"{table}: exit {run.returncode}: {run.stderr[-500:]}")
    seconds = sum(float(re.search(rf"{kind} time \(seconds\): ([\d.]+)", run.stderr)[1])
                  for kind in ("User", "System"))
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr)[1]) / 1024
    return {"problem": problem, "distortion": distortion, "table": table, "n_s": n_s,
            "n_u": n_u, "cpu_seconds": round(seconds, 2), "peak_mb": round(peak), "fit": 1}


def rows(problem: str = "RURP", distortion: str = "hamming") -> list[dict[str, str]]:
    """The measured rows of one problem and distortion."""
    with CSV.open() as handle:
        return [row for row in csv.DictReader(handle)
                if row["problem"] == problem and row["distortion"] == distortion]


def fit_power_law(n_s: np.ndarray, n_u: np.ndarray, values: np.ndarray,
                  offset: float) -> tuple[float, float, float]:
    """``(A, a, b)`` of ``values ~ offset + A n_s^a n_u^b``, least squares on logarithms."""
    def law(params: np.ndarray) -> np.ndarray:
        return np.exp(params[0]) * n_s ** params[1] * n_u ** params[2]

    def residual(params: np.ndarray) -> np.ndarray:
        return np.log(offset + law(params)) - np.log(values)

    design = np.stack([np.ones_like(n_s), np.log(n_s), np.log(n_u)], axis=1)
    above = np.log(np.maximum(values - offset, 1e-3 * values))
    start = np.linalg.lstsq(design, above, rcond=None)[0]  # a start: the offset taken off
    params = least_squares(residual, start).x
    return float(np.exp(params[0])), float(params[1]), float(params[2])


def fit(problem: str = "RURP") -> dict[str, tuple[float, ...]]:
    """The Hamming laws fitted on the rows marked ``fit``, and squared distortion's factors.

    Squared distortion, measured on fewer and noisier shapes (its repair is tightened on
    some), gets the geometric mean of measured / Hamming estimate, for time and memory.
    """
    chosen = [row for row in rows(problem, "hamming") if row["fit"] == "1"]
    n_s, n_u = (np.array([float(row[key]) for row in chosen]) for key in ("n_s", "n_u"))
    cpu = np.array([float(row["cpu_seconds"]) for row in chosen])
    peak = np.array([float(row["peak_mb"]) * 2**20 for row in chosen])
    laws = {"time": fit_power_law(n_s, n_u, cpu, resources.DIRECT_OVERHEAD_SECONDS),
            "memory": fit_power_law(n_s, n_u, peak, resources.DIRECT_BASELINE_BYTES)}
    squared = [row for row in rows(problem, "squared") if row["fit"] == "1"]
    estimates = [resources.robust_program_estimate(problem, int(row["n_s"]), int(row["n_u"]),
                                                   True, direct=True, distortion="hamming")
                 for row in squared]
    laws["squared"] = tuple(float(np.exp(np.mean(np.log(
        [float(row[key]) * unit / getattr(estimate, attribute)
         for row, estimate in zip(squared, estimates)]))))
        for key, unit, attribute in (("cpu_seconds", 1.0, "seconds"),
                                     ("peak_mb", 2.0**20, "bytes")))
    return laws


def main(argv: list[str]) -> None:
    if argv[0] == "measure":
        problem, distortion, *tables = argv[1:]
        new = not CSV.exists()
        with CSV.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, FIELDS, lineterminator="\n")
            if new:
                writer.writeheader()
            for table in tables:
                row = measure(problem, distortion, table)
                writer.writerow(row)
                handle.flush()
                print(row, flush=True)
    else:
        print(fit(*argv[1:]))


if __name__ == "__main__":
    main(sys.argv[1:])
