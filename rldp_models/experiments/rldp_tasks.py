"""Tasks, task runners and plots of the RLDP paper's experiments (:mod:`.rldp_paper`).

A synthetic task is one Jeffreys instance (``seed``, ``a1 x a2``, ``n``) run
at every ``eps`` and ``alpha`` it lists; an Adult task is one attribute pair at
one ``eps``. Rows: ``seed, a1, a2, n, alpha, eps, method, utility_hat,
entropy_hat, normalised`` (+ ``utility_star``, ``difference`` for Fig. 9).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from rldp_models.datasets import ADULT_PAIRS, adult_crosstab, default_adult_path
from rldp_models.experiments.base import Row, Task
from rldp_models.experiments.rldp_figures import panel_figure
from rldp_models.experiments.rldp_methods import BUILDERS, LOW_COMPLEXITY, utility_rows
from rldp_models.datasets import jeffreys_instance

FULL_EPS = (0.2, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0)
"""The paper's ``eps in [0.2, 8]`` (its grid is not listed)."""

FULL_SEEDS = range(200)
"""200 distributions, as in Secs. VIII-A, VIII-E and VIII-F."""

ADULT_N = 32561
"""Records of the Adult training file (Sec. VIII-G)."""

POLYOPT_MAX_INPUTS = 16
"""PolyOpt runs for ``a1 a2 <= 16``: 3x4 takes 1-2 s, 4x4 about a minute (the paper's MPT3
vertex enumeration: 72 s at 3x4, stopped after 12 h at 4x4); Adult's 16x15 and 6x42 stay out."""

POLYOPT_TIMING = {"quick": ((3, 4), range(1), (2.0,)),
                  "full": ((3, 4), range(10), (0.5, 2.0, 8.0)),
                  "full-4x4": ((4, 4), range(2), (0.5, 4.0))}
"""Fig. 2's timing points beyond 3x3 (shape, distributions, eps), PolyOpt with SRR as the
side-by-side reference; the paper reports PolyOpt's times at 3x4 and 4x4 in Sec. VIII-A."""

CONDITIONAL = ("ir", "grr-cr", "ue-cr")
"""The protocols that use ``F`` (Figs. 8 and 9)."""


def _synthetic(seeds: range, shapes: list[tuple[int, int]], eps: tuple[float, ...],
               methods: tuple[str, ...], *, ns: tuple[int, ...] = (1000,),
               alphas: tuple[float, ...] = (0.05,), with_star: bool = False) -> list[Task]:
    """One task per seed, shape and ``n``."""
    return [{"seed": seed, "a1": a1, "a2": a2, "n": n, "alphas": list(alphas), "eps": list(eps),
             "methods": [m for m in methods if m != "polyopt" or a1 * a2 <= POLYOPT_MAX_INPUTS],
             "with_star": with_star}
            for (a1, a2) in shapes for n in ns for seed in seeds]


def run_synthetic(task: Task) -> list[Row]:
    """Draw the task's Jeffreys instance and run its methods at every ``alpha`` and ``eps``."""
    instance = jeffreys_instance(task["a1"], task["a2"], task["n"], task["seed"])
    p_star = instance.p_star if task.get("with_star") else None
    base = {"seed": task["seed"], "a1": task["a1"], "a2": task["a2"], "n": task["n"]}
    rows = [{**base, **row}
            for alpha in task["alphas"] for eps in task["eps"]
            for row in utility_rows(instance.crosstab, eps, alpha, task["methods"], p_star)]
    for row in rows:
        if p_star is not None:
            row["difference"] = (row["utility_hat"] - row["utility_star"]) / row["entropy_hat"]
    return rows


def run_adult(task: Task) -> list[Row]:
    """Run the task's methods on the Adult crosstab of ``(task["s"], task["u"])``."""
    crosstab = adult_crosstab(task["data"], task["s"], task["u"])
    a1, a2 = crosstab.shape
    base = {"seed": task["seed"], "pair": f"{task['s']}/{task['u']}", "a1": a1, "a2": a2,
            "n": crosstab.n}
    return [{**base, **row}
            for row in utility_rows(crosstab, task["eps"], 0.05, task["methods"])]


def fig2_tasks(quick: bool) -> list[Task]:
    """3x3, all six protocols, plus PolyOpt's timing points (:data:`POLYOPT_TIMING`);
    quick: 3 distributions at eps 0.5 and 2, one 3x4 distribution at eps 2."""
    timing = [POLYOPT_TIMING["quick"]] if quick else [POLYOPT_TIMING["full"],
                                                      POLYOPT_TIMING["full-4x4"]]
    extra = [task for shape, seeds, eps in timing
             for task in _synthetic(seeds, [shape], eps, ("polyopt", "srr"))]
    if quick:
        return _synthetic(range(3), [(3, 3)], (0.5, 2.0), tuple(BUILDERS)) + extra
    return _synthetic(FULL_SEEDS, [(3, 3)], FULL_EPS, tuple(BUILDERS)) + extra


def fig3_tasks(quick: bool) -> list[Task]:
    """``a_1 in {3,5}``, ``a_2 in {3,5,7,9}``; quick: 3x3 and 5x5, 3 distributions."""
    if quick:
        return _synthetic(range(3), [(3, 3), (5, 5)], (0.5, 2.0, 5.0, 8.0), LOW_COMPLEXITY)
    shapes = [(a1, a2) for a1 in (3, 5) for a2 in (3, 5, 7, 9)]
    return _synthetic(FULL_SEEDS, shapes, FULL_EPS, LOW_COMPLEXITY)


def fig4_tasks(quick: bool) -> list[Task]:
    """``a_1 in {7,9}``, ``a_2 in {3,5,7,9}``; quick: 7x3 and 9x5, 2 distributions."""
    if quick:
        return _synthetic(range(2), [(7, 3), (9, 5)], (0.5, 2.0, 5.0, 8.0), LOW_COMPLEXITY)
    shapes = [(a1, a2) for a1 in (7, 9) for a2 in (3, 5, 7, 9)]
    return _synthetic(FULL_SEEDS, shapes, FULL_EPS, LOW_COMPLEXITY)


def fig7_tasks(quick: bool) -> list[Task]:
    """5x5 at several ``n`` (same ``P*`` per seed); quick: n 100 and 10000, 2 distributions."""
    if quick:
        return _synthetic(range(2), [(5, 5)], (0.5, 2.0), LOW_COMPLEXITY, ns=(100, 10000))
    return _synthetic(FULL_SEEDS, [(5, 5)], FULL_EPS, LOW_COMPLEXITY,
                      ns=(100, 1000, 10000, 100000))


def fig8_tasks(quick: bool) -> list[Task]:
    """5x5, n = 1000, ``alpha in {1e-4, 1e-3, 1e-2, 1e-1}``; quick: 4x4, 2 distributions, 2 eps."""
    alphas = (1e-4, 1e-3, 1e-2, 1e-1)
    if quick:
        return _synthetic(range(2), [(4, 4)], (0.1, 1.0), CONDITIONAL, alphas=alphas)
    return _synthetic(FULL_SEEDS, [(5, 5)], (0.1, *FULL_EPS), CONDITIONAL, alphas=alphas)


FIG9_QUICK_SEEDS = {100: range(40), 10000: range(8)}
"""Fig. 9's quick form: 5x5 distributions per ``n``; 40 at n = 100 for the 95% interval of
the mean difference at eps = 4 to exclude 0 (4 at 4x4 could not, 24 did not), 8 at n = 10000
(paired with the first 8) for the shrinking difference."""


def fig9_tasks(quick: bool) -> list[Task]:
    """5x5, IR/GRR-CR/UE-CR with ``I_P*``; quick: eps 4, :data:`FIG9_QUICK_SEEDS`."""
    if quick:
        return [task for n, seeds in FIG9_QUICK_SEEDS.items()
                for task in _synthetic(seeds, [(5, 5)], (4.0,), CONDITIONAL, ns=(n,),
                                       with_star=True)]
    return _synthetic(FULL_SEEDS, [(5, 5)], FULL_EPS, CONDITIONAL, ns=(100, 1000, 10000),
                      with_star=True)


def fig10_tasks(quick: bool, data: str | None = None) -> list[Task]:
    """One task per Adult pair and eps; quick: (sex, race) and (relationship, native-country).

    ``data`` defaults to :func:`rldp_models.datasets.default_adult_path`.
    """
    path = str(data if data is not None else default_adult_path())
    pairs = [ADULT_PAIRS[0], ADULT_PAIRS[2]] if quick else list(ADULT_PAIRS)
    eps_values = (0.5, 4.0) if quick else FULL_EPS
    small = {ADULT_PAIRS[0]}  # 2 x 5: the only pair PolyOpt can take
    return [{"seed": 0, "data": path, "s": s, "u": u, "eps": eps,
             "methods": list(BUILDERS) if (s, u) in small else list(LOW_COMPLEXITY)}
            for (s, u) in pairs for eps in eps_values]


def fig11_tasks(quick: bool) -> list[Task]:
    """Jeffreys instances of the Adult shapes with n = 32561; quick: 2x5 and 6x42."""
    if quick:
        return _synthetic(range(2), [(2, 5), (6, 42)], (0.5, 4.0), tuple(BUILDERS),
                          ns=(ADULT_N,))
    return _synthetic(FULL_SEEDS, [(2, 5), (16, 15), (6, 42)], FULL_EPS, tuple(BUILDERS),
                      ns=(ADULT_N,))


def plot_by_shape(table: pd.DataFrame) -> Any:
    """Figs. 2-4 and 11: one panel per ``(a1, a2)``, one line per protocol."""
    return panel_figure(table, ["a1", "a2"], "method", "normalised", "I(X;Y)/H(X)")


def plot_adult(table: pd.DataFrame) -> Any:
    """Fig. 10: one panel per attribute pair with its ``(a1, a2)``, one line per protocol."""
    return panel_figure(table, ["pair", "a1", "a2"], "method", "normalised", "I(X;Y)/H(X)")


def plot_by_n(table: pd.DataFrame) -> Any:
    """Fig. 7: one panel per ``n``, one line per protocol."""
    return panel_figure(table, ["n"], "method", "normalised", "I(X;Y)/H(X)")


def plot_by_alpha(table: pd.DataFrame) -> Any:
    """Fig. 8: one panel per protocol, one line per ``alpha``."""
    legend = {alpha: f"α = {alpha:g}" for alpha in table["alpha"].unique()}
    return panel_figure(table, ["method"], "alpha", "normalised", "I(X;Y)/H(X)", legend)


def plot_difference(table: pd.DataFrame) -> Any:
    """Fig. 9: mean ``(I_Phat - I_P*)/H(X)`` per protocol, one panel per ``n``."""
    return panel_figure(table, ["n"], "method", "difference", "(I_P̂ − I_P*)/H(X)")
