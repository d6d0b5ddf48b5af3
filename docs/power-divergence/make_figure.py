"""RURP's worst-case distortion against lambda on the ``rldp demo`` instance (docs figure).

Run from the repository root: ``python docs/power-divergence/make_figure.py``.
Writes ``rurp-vs-lambda.csv`` and ``rurp-vs-lambda.png`` next to this file.
Every protocol is checked exactly by the solve (robust privacy over its set);
the script stops if one is not.
"""

from __future__ import annotations

import csv
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from rldp_models.experiments.robust_opt import DEMO_SETTING  # noqa: E402
from rldp_models.datasets import jeffreys_instance  # noqa: E402
from rldp_models.privacy.metrics import distortion_star  # noqa: E402
from rldp_models.programs import preset  # noqa: E402
from rldp_models.uncertainty import ChiSquareSet  # noqa: E402
from rldp_models.uncertainty.power_divergence import PowerDivergenceSet  # noqa: E402

HERE = Path(__file__).resolve().parent
LAMBDAS = (-3.0, -2.0, -1.5, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 2 / 3, 1.0, 1.5, 2.0,
           3.0)


def solve(instance, uncertainty) -> tuple[float, float, bool]:
    """RURP's objective (worst case over the set), its distortion at P*, P* in the set."""
    program = preset("RURP", instance.crosstab, DEMO_SETTING["eps"], DEMO_SETTING["alpha"],
                     uncertainty=uncertainty)
    solution = program.solve()
    if not all(check.holds for check in solution.checks):
        raise SystemExit(f"{uncertainty}: a guarantee does not hold")
    at_truth = distortion_star(solution.protocol, instance.p_star, program.distortion_matrix)
    return solution.objective, at_truth, bool(uncertainty.contains(instance.p_star, tol=1e-12))


def main() -> None:
    warnings.simplefilter("ignore")
    instance = jeffreys_instance(DEMO_SETTING["n_s"], DEMO_SETTING["n_u"], DEMO_SETTING["n"],
                                 DEMO_SETTING["seed"])
    counts = instance.crosstab.counts
    rows = []
    for lam in LAMBDAS:
        uncertainty = PowerDivergenceSet.from_counts(counts, DEMO_SETTING["alpha"], lam)
        rows.append(("product", lam, *solve(instance, uncertainty)))
        print(rows[-1])
    exact = ("exact pair (chi2)", 1.0,
             *solve(instance, ChiSquareSet.from_counts(counts, DEMO_SETTING["alpha"])))
    rows.append(exact)
    print(exact)
    with open(HERE / "rurp-vs-lambda.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["privacy form", "lambda", "worst-case distortion", "distortion at P*",
                         "P* in the set"])
        writer.writerows(rows)
    product = [row for row in rows if row[0] == "product"]
    figure, axis = plt.subplots(figsize=(6.4, 4.0))
    axis.plot([r[1] for r in product], [r[2] for r in product], "o-",
              label="RURP objective (worst case over F_lambda), product form")
    axis.plot([r[1] for r in product], [r[3] for r in product], "s--", alpha=0.7,
              label="its distortion at the true P*")
    axis.plot([1.0], [exact[2]], "r*", markersize=14,
              label="lambda = 1: chi-square set, exact pair form (Thms 3-4)")
    axis.axvspan(min(LAMBDAS) - 0.2, -1.0, color="0.9",
                 label="lambda <= -1: unseen cells get the simplex")
    axis.set_xlim(min(LAMBDAS) - 0.2, max(LAMBDAS) + 0.2)
    axis.set_xlabel("lambda (Cressie-Read)")
    axis.set_ylabel("expected squared distortion")
    axis.set_title(f"rldp demo instance (3x5, n = {DEMO_SETTING['n']}), eps = "
                   f"{DEMO_SETTING['eps']}, alpha = {DEMO_SETTING['alpha']}", fontsize=10)
    axis.legend(fontsize=7.5)
    figure.tight_layout()
    figure.savefig(HERE / "rurp-vs-lambda.png", dpi=120)


if __name__ == "__main__":
    main()
