"""Regenerate docs/choosing/adult-curve.{csv,png}: the worked example of docs/choosing.md.

Run from the repository root with the Adult data:
``python docs/choosing/make_figure.py /path/to/adult.data`` (about two CPU minutes).
"""

from __future__ import annotations

import sys
from pathlib import Path

from rldp_models.data import Crosstab
from rldp_models.executors import executor_from_spec
from rldp_models.experiments.curve import curve, plot_curve

HERE = Path(__file__).resolve().parent
EPS = (0.25, 0.5, 1.0, 2.0, 4.0)


def main(adult: str) -> None:
    crosstab = Crosstab.from_records(adult, "race", "education")
    result = curve(crosstab, EPS, alpha=0.05, executor=executor_from_spec("joblib", 2),
                   coverage_draws=1000, seed=0)
    print(result.summary())
    result.frame.to_csv(HERE / "adult-curve.csv", index=False)
    plot_curve(result, str(HERE / "adult-curve.png"), "Adult race x education")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/data/adult/adult.data")
