"""Does ``F`` hold the truth? Coverage of the uncertainty sets against ``n`` and ``alpha``.

Not a figure of the papers but the caveat under all of them: the robust
guarantee holds for every distribution in ``F``, and ``F`` holds the true
distribution with probability ``1 - alpha`` only in the chi-square limit
(eq. 3 of the robust-optimization paper). Settings:

* the robust-optimization paper's Section V instances, ``3x3`` and ``3x5``:
  ``P* ~ Dirichlet(1/2)`` (Jeffreys, as
  :func:`~rldp_models.datasets.jeffreys_instance`), a table of ``n`` records
  from ``P*``, and whether ``P*`` lies in ``F`` (reference ``jeffreys``);
* the Adult pairs sex x race, race x education and education x occupation
  (:func:`~rldp_models.datasets.adult_crosstab`): tables of ``n`` records
  drawn from ``Phat`` and from the Jeffreys posterior ``Dirichlet(N + 1/2)``
  (references ``phat`` and ``dirichlet``), ``n`` up to the data's 32,561.

Every set (chi2, kl, tv, box; whatever :mod:`rldp_models.uncertainty.set_statistics`
registers) is judged on the same simulated tables with its asymptotic radius
(:mod:`rldp_models.uncertainty.coverage`). A task is one block of draws for
one setting, ``n`` and reference, seeded by its position only.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

import numpy as np
import pandas as pd

from rldp_models.datasets import adult_crosstab
from rldp_models.experiments.base import Experiment, Finding, Row, Task, measured_claim
from rldp_models.uncertainty.coverage import (
    DRAWS_PER_TASK,
    CoverageSpec,
    run_coverage_task,
    summarise_blocks,
)
from rldp_models.uncertainty.set_statistics import registered

JEFFREYS_SHAPES = {"3x3 Jeffreys": (3, 3), "3x5 Jeffreys": (3, 5)}
"""The paper settings (Section V uses 3x5; 3x3 as in the RLDP paper's small examples)."""

ADULT_SETTINGS = {"Adult sex x race": ("sex", "race"),
                  "Adult race x education": ("race", "education"),
                  "Adult education x occupation": ("education", "occupation")}
"""The Adult pairs ``(S, U)``."""

class Size(TypedDict):
    """One form of the experiment (see :data:`SIZES`)."""

    multiples: tuple[int, ...]
    adult_n: tuple[int, ...]
    alphas: tuple[float, ...]
    draws: int


SIZES: dict[str, Size] = {
    "quick": {"multiples": (5, 50, 1000), "adult_n": (1000, 32_561), "alphas": (0.05,),
              "draws": 2000},
    "full": {"multiples": (5, 10, 20, 50, 100, 1000), "adult_n": (500, 2000, 8000, 32_561),
             "alphas": (0.01, 0.05, 0.1), "draws": 10_000},
}
"""Per form: ``n = N |X|`` for the Jeffreys settings, ``n`` for Adult, alphas, draws."""

SEED = 2024
"""Base seed of every block."""

PLOT_ALPHA = 0.05
"""The level the figure shows (the CSV holds every alpha)."""


def tasks(quick: bool) -> list[Task]:
    """One task per block of draws, setting, ``n`` and reference."""
    size = SIZES["quick" if quick else "full"]
    found: list[Task] = []
    for index, (setting, (n_s, n_u)) in enumerate(JEFFREYS_SHAPES.items()):
        for multiple in size["multiples"]:
            found += _blocks(setting, index, None, n_s * n_u, multiple * n_s * n_u, "jeffreys",
                             size)
    for index, (setting, pair) in enumerate(ADULT_SETTINGS.items(), start=len(JEFFREYS_SHAPES)):
        for n in size["adult_n"]:
            for reference in ("phat", "dirichlet"):
                found += _blocks(setting, index, pair, 0, n, reference, size)
    return found


def _blocks(setting: str, index: int, pair: tuple[str, str] | None, cells: int, n: int,
            reference: str, size: Size) -> list[Task]:
    """The blocks of one setting, ``n`` and reference; the seed is ``SEED + setting index``."""
    draws = size["draws"]
    return [{"setting": setting, "pair": pair, "cells": cells, "n": n, "reference": reference,
             "alphas": size["alphas"], "seed": SEED + index, "block": first // DRAWS_PER_TASK,
             "draws": min(DRAWS_PER_TASK, draws - first)}
            for first in range(0, draws, DRAWS_PER_TASK)]


def run_task(task: Task) -> list[Row]:
    """The block's counts of covered draws, per set and alpha, labelled with the setting."""
    if task["pair"] is not None:
        counts = adult_crosstab(task["data"], *task["pair"]).counts.ravel()
    else:
        counts = np.ones(task["cells"])  # only the shape matters for the prior
    spec = CoverageSpec(tuple(counts), registered(), tuple(task["alphas"]), int(task["n"]),
                        task["reference"])
    rows = run_coverage_task({**task, "spec": spec})
    return [{"setting": task["setting"], **row} for row in rows]


def coverage_table(table: pd.DataFrame) -> pd.DataFrame:
    """The raw blocks added up: coverage and Clopper-Pearson interval per combination."""
    return summarise_blocks(table.drop(columns=["experiment", "task", "seed"], errors="ignore"))


def plot_coverage(table: pd.DataFrame) -> Any:
    """Coverage against ``n`` at ``alpha = 0.05`` (or the smallest alpha), one panel per setting.

    ``table`` is raw blocks or an added-up table; lines are sets, line styles
    the references, bars the Clopper-Pearson intervals, the dashed line
    ``1 - alpha``.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    summary = table if "coverage" in table.columns else coverage_table(table)
    if "setting" not in summary.columns:
        summary = summary.assign(setting="table")
    alpha = PLOT_ALPHA if np.isclose(summary["alpha"], PLOT_ALPHA).any() \
        else float(summary["alpha"].min())
    summary = summary[np.isclose(summary["alpha"], alpha)]
    settings = list(dict.fromkeys(summary["setting"]))
    figure, axes = plt.subplots(1, len(settings), figsize=(3.6 * len(settings), 3.4),
                                squeeze=False, sharey=True)
    styles: dict[str, Literal["-", "--", ":"]] = {"phat": "-", "dirichlet": "--",
                                                   "jeffreys": ":"}
    colours = {name: f"C{i}" for i, name in enumerate(dict.fromkeys(summary["set"]))}
    for axis, setting in zip(axes[0], settings):
        part = summary[summary["setting"] == setting]
        for (name, reference), line in part.groupby(["set", "reference"], sort=False):
            line = line.sort_values("n")
            axis.errorbar(line["n"], line["coverage"],
                          yerr=[line["coverage"] - line["low"], line["high"] - line["coverage"]],
                          color=colours[name], linestyle=styles.get(reference, "-"),
                          marker="o", markersize=3, capsize=2, label=f"{name} ({reference})")
        axis.axhline(1 - alpha, color="black", linestyle="--", linewidth=0.8)
        axis.set_xscale("log")
        axis.set_title(setting, fontsize=9)
        axis.set_xlabel("n")
    axes[0][0].set_ylabel(f"coverage of F (alpha = {alpha:g})")
    handles = [Line2D([], [], color=colour, label=name) for name, colour in colours.items()]
    handles += [Line2D([], [], color="black", linestyle=styles.get(reference, "-"),
                       label=reference) for reference in dict.fromkeys(summary["reference"])]
    axes[0][-1].legend(handles=handles, fontsize=7, loc="lower right")
    figure.tight_layout()
    return figure


def summarise(table: pd.DataFrame) -> Finding:
    """Coverage at the largest ``n`` per setting, and the checks of the docstring's claim."""
    summary = coverage_table(table)
    at = summary[np.isclose(summary["alpha"], PLOT_ALPHA)]
    largest = at[at["n"] == at.groupby("setting")["n"].transform("max")]
    parts = [f"{setting} ({reference}, n = {group['n'].iloc[0]}): "
             + ", ".join(f"{row.set} {row.coverage:.3f} [{row.low:.3f}, {row.high:.3f}]"
                         for row in group.itertuples())
             for (setting, reference), group in largest.groupby(["setting", "reference"],
                                                                sort=False)]
    wide = summary.pivot_table(index=["setting", "alpha", "n", "reference"], columns="set",
                               values="covered")
    chi2 = largest[largest["set"] == "chi2"]
    dense = chi2[chi2["setting"] == "Adult sex x race"]
    shortfall = (wide["chi2"] - wide[["tv", "box"]].min(axis=1)).max()
    contains = "tv and box cover at least as often as chi2 (they contain it)"
    nominal = "chi2 at the data's n on sex x race: 1 - alpha inside the interval"
    intervals = ", ".join(f"{row.coverage:.3f} [{row.low:.3f}, {row.high:.3f}] against "
                          f"{row.target:.2f}" for row in dense.itertuples())
    checks = {
        contains: measured_claim(
            contains, bool(shortfall <= 0),
            f"largest count of draws covered by chi2 minus by the lesser of tv and box, over "
            f"{len(wide)} points: {shortfall:.3g}",
            "a set containing chi2 must cover whenever chi2 does: a bug"),
        nominal: measured_claim(
            nominal, not dense.empty and bool(((dense["low"] <= dense["target"])
                                               & (dense["target"] <= dense["high"])).all()),
            f"chi2 coverage {intervals or 'not measured'}",
            "the Clopper-Pearson interval excludes 1 - alpha"),
    }
    text = ("Coverage of F at alpha = 0.05 and the largest n of each setting "
            "(Clopper-Pearson 95% intervals): " + "; ".join(parts) + ".")
    return Finding.from_checks(text, checks)


EXPERIMENTS = (
    Experiment(
        id="coverage", title="coverage of the uncertainty sets against n and alpha",
        paper="robust-optimization-ldp.txt, eq. (3) (the radius) — a caveat, not a figure",
        claim="F contains the true distribution with probability 1 - alpha asymptotically "
              "(the chi-square limit of the statistic); on small or sparse tables the actual "
              "coverage may differ.",
        tasks=tasks, run_task=run_task, plot=plot_coverage, summarise=summarise,
        needs_data=True),
)
"""The coverage study."""
