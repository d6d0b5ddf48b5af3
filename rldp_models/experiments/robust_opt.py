"""Fig. 2 (a-d) of ``robust-optimization-ldp.txt`` (Section V), and ``rldp demo``, one instance.

Setting (Section V): ``S = {0, 1, 2}``, ``U = {0, ..., 4}``, ``d(u, y) = (u - y)^2``,
``alpha = 0.05``, ``eps = 0.5``; ``P*_{SU}`` drawn from the Jeffreys prior
(Dirichlet(1/2), :func:`~rldp_models.datasets.jeffreys_instance`), ``n``
records drawn from ``P*``, the four programs NUNP, NURP, RUNP, RURP (eqs. 7-10)
solved on the sample, and each protocol scored under ``P*`` by ``D*`` (eq. 31)
and ``eps*`` (eq. 32).

* Fig. 2a/2b: ``eps*`` against ``D*`` for ``K = 30`` instances at ``n = 75`` and
  ``n = 15,000``; instances with ``eps* = inf`` are left out of the plot.
* Fig. 2c/2d: mean and standard deviation of ``eps*`` (2c) and ``D*`` (2d)
  against ``n = N |S| |U|`` over ``K = 1000`` instances per ``n``, after removing
  outliers by the 1.5 IQR rule. The caption assigns ``eps*`` to 2c and ``D*`` to
  2d; the text says the reverse ("mean D* and eps* ... in Figures 2c and 2d,
  respectively"); the caption is followed here. The paper does not list its
  ``N``; ``N`` in {5, 10, 20, 50, 100, 200, 500, 1000} spans its two scatter sizes.

Instance ``k`` at size ``n`` has the seed ``SeedSequence([seed, n, k])``, so an
instance does not depend on how the instances are split into tasks; a task
solves a block of consecutive instances with the sweep fast path
(:func:`~rldp_models.programs.sweep`), one compiled model per program (so a
protocol may differ at solver tolerance when the blocks are cut differently;
the blocks are fixed, so every executor gives the same table).

The built-in demonstration (:func:`run_demo`, ``rldp demo``) is one seeded
instance of Fig. 2a (``n = 75``, :data:`DEMO_SETTING`): the four programs
solved and scored at ``P*``, drawn by :func:`scatter_eps_distortion`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Sequence, TypedDict

import numpy as np
import pandas as pd

from rldp_models.experiments.base import (Claim, Experiment, Finding, Row, Task, existence_claim,
                                          measured_claim, rate_claim)
from rldp_models.datasets import Instance, jeffreys_instance
from rldp_models.privacy.metrics import distortion_star, epsilon_star
from rldp_models.problem_kinds import PRESETS
from rldp_models.programs import preset, sweep

if TYPE_CHECKING:
    from rldp_models.programs import ProtocolSolution

PROGRAM_STYLE = {"NUNP": ("tab:red", "o"), "NURP": ("tab:blue", "s"),
                 "RUNP": ("tab:orange", "^"), "RURP": ("tab:green", "D")}
"""Colour and marker of each program in every figure of this module."""


class Setting(TypedDict):
    """Section V's setting (see :data:`SETTING`)."""

    n_s: int
    n_u: int
    eps: float
    alpha: float
    seed: int


SETTING: Setting = {"n_s": 3, "n_u": 5, "eps": 0.5, "alpha": 0.05, "seed": 2022}
"""Section V's setting and the base seed of every instance."""

PROGRAMS = tuple(PRESETS)
"""NUNP, NURP, RUNP, RURP."""

SCATTER_SIZES = {"2a": 75, "2b": 15_000}
"""``n`` of Fig. 2a and 2b (``5 |S||U|`` and ``1000 |S||U|``)."""

FULL_N_MULTIPLES = (5, 10, 20, 50, 100, 200, 500, 1000)
"""``N`` of Fig. 2c/2d in the full form (``n = N |S||U|``)."""

QUICK_N_MULTIPLES = (5, 50, 1000)
"""``N`` of the quick form."""

SIZES = {"full": {"scatter_k": 30, "curve_k": 1000, "block": 25},
         "quick": {"scatter_k": 8, "curve_k": 8, "block": 4}}
"""Instances per point and instances per task."""


def instance_seed(seed: int, n: int, k: int) -> int:
    """The seed of instance ``k`` at sample size ``n``, independent of the task split."""
    return int(np.random.SeedSequence([seed, n, k]).generate_state(1)[0])


def block_tasks(sizes: list[int], count: int, block: int) -> list[Task]:
    """Tasks solving instances ``0..count-1`` at each ``n`` in ``sizes``, ``block`` at a time."""
    return [{"n": n, "first": first, "count": min(block, count - first),
             "seed": SETTING["seed"]}
            for n in sizes for first in range(0, count, block)]


def run_block(task: Task) -> list[Row]:
    """Solve the four programs on the task's instances; one row per instance and program."""
    n = int(task["n"])
    seeds = [instance_seed(int(task["seed"]), n, k)
             for k in range(task["first"], task["first"] + task["count"])]
    instances = [jeffreys_instance(SETTING["n_s"], SETTING["n_u"], n, s) for s in seeds]
    rows = []
    for program in PROGRAMS:
        rows += _score_program(program, instances, task["first"])
    return rows


def _score_program(program: str, instances: list[Any], first: int) -> list[Row]:
    solutions = sweep(program, [i.crosstab for i in instances], SETTING["eps"], SETTING["alpha"])
    rows = []
    for k, (instance, solution) in enumerate(zip(instances, solutions), start=first):
        protocol = solution.protocol
        rows.append({
            "method": program, "n": instance.crosstab.n, "instance": k, "seed": instance.seed,
            "D_star": np.nan if protocol is None else distortion_star(
                protocol, instance.p_star, solution.program.distortion_matrix),
            "eps_star": np.nan if protocol is None else epsilon_star(protocol, instance.p_star),
            "objective": np.nan if protocol is None else solution.objective,
            "status": solution.status.value,
            "repaired": solution.repair is not None,
            "guarantee_holds": solution.guarantee_holds,
        })
    return rows


def iqr_inliers(values: pd.Series) -> pd.Series:
    """Finite values inside ``[Q1 - 1.5 IQR, Q3 + 1.5 IQR]`` (the paper's 1.5 IQR rule).

    ``eps* = inf`` is dropped before the quartiles are taken.
    """
    finite = values[np.isfinite(values)]
    q1, q3 = finite.quantile(0.25), finite.quantile(0.75)
    spread = 1.5 * (q3 - q1)
    return finite[(finite >= q1 - spread) & (finite <= q3 + spread)]


def mean_and_spread(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Mean and standard deviation of ``metric`` per program and ``n`` after the 1.5 IQR rule."""
    records = []
    for (program, n), group in table.groupby(["method", "n"], sort=True):
        kept = iqr_inliers(group[metric])
        records.append({"method": program, "n": n, "mean": kept.mean(), "std": kept.std(ddof=1),
                        "kept": len(kept), "total": len(group)})
    return pd.DataFrame.from_records(records)


def _plot_scatter(table: pd.DataFrame, n: int) -> Any:
    import matplotlib.pyplot as plt


    figure, axes = plt.subplots(figsize=(5.5, 4))
    for program in PROGRAMS:
        colour, marker = PROGRAM_STYLE[program]
        shown = table[(table["method"] == program) & np.isfinite(table["eps_star"])]
        axes.scatter(shown["D_star"], shown["eps_star"], c=colour, marker=marker,
                     label=program, alpha=0.8)
    axes.axhline(SETTING["eps"], color="grey", linestyle="--", linewidth=1,
                 label=f"eps = {SETTING['eps']:g}")
    axes.set_yscale("log")
    axes.set_xlabel("D*")
    axes.set_ylabel("eps*")
    k = table["instance"].nunique()
    axes.set_title(f"Impact of robustness on utility (K = {k}, n = {n:,})")
    axes.legend()
    figure.tight_layout()
    return figure


def _plot_curves(table: pd.DataFrame, metric: str, label: str) -> Any:
    import matplotlib.pyplot as plt


    stats = mean_and_spread(table, metric)
    figure, axes = plt.subplots(figsize=(5.5, 4))
    for program in PROGRAMS:
        colour, marker = PROGRAM_STYLE[program]
        line = stats[stats["method"] == program]
        axes.plot(line["n"], line["mean"], color=colour, marker=marker, linewidth=2,
                  label=program)
        axes.fill_between(line["n"], line["mean"] - line["std"], line["mean"] + line["std"],
                          color=colour, alpha=0.2)
    if metric == "eps_star":
        axes.axhline(SETTING["eps"], color="grey", linestyle="--", linewidth=1,
                     label=f"eps = {SETTING['eps']:g}")
    axes.set_xscale("log")
    axes.set_xlabel("n = N |S| |U|")
    axes.set_ylabel(label)
    k = table["instance"].nunique()
    axes.set_title(f"{label} against n (K = {k}, mean ± 1 sd after 1.5 IQR)")
    axes.legend()
    figure.tight_layout()
    return figure


def _medians(table: pd.DataFrame, metric: str) -> dict[str, float]:
    return {p: float(table.loc[table["method"] == p, metric].median()) for p in PROGRAMS}


COVERAGE_AT_75 = "0.9245 [0.919, 0.930]"
"""Chi-square coverage of ``F`` at 3x5, n = 75, alpha = 0.05 (Jeffreys ``P*``), measured by
``rldp reproduce coverage`` (full form, 10,000 draws): ``P*`` lies outside ``F`` in ~7.5% of
instances, not 5%, the paper's explanation of NURP's outliers, quantified."""


def robust_leak_claims(table: pd.DataFrame, n: int) -> dict[str, Claim]:
    """Sec. V, Fig. 2a: "even with robust privacy we do not always get eps* <= eps" and
    "NURP has more than the expected number of outliers" at ``n`` (read: instances with
    ``eps* > eps``, expected at most ``alpha`` of them since ``P* in F`` implies ``eps* <= eps``).
    """
    eps, alpha = SETTING["eps"], SETTING["alpha"]
    at_n = table[table["n"] == n]
    robust = at_n[at_n["method"].isin(["NURP", "RURP"])]
    nurp = at_n[at_n["method"] == "NURP"]["eps_star"]
    return {
        "robust privacy does not always keep eps* <= eps": existence_claim(
            f"even with robust privacy (NURP, RURP) eps* <= eps does not always hold (n = {n})",
            int((robust["eps_star"] > eps).sum()), len(robust),
            "NURP and RURP protocols with eps* > eps"),
        "NURP has more outliers than expected": rate_claim(
            f"NURP has more than the expected number (alpha = {alpha:g}) of instances with "
            f"eps* > eps at n = {n}; the chi-square set is only asymptotically a "
            f"{1 - alpha:.0%} confidence set (its coverage here: {COVERAGE_AT_75})",
            int((nurp > eps).sum()), len(nurp), alpha, True, "NURP instances with eps* > eps"),
    }


def summarise_scatter(table: pd.DataFrame) -> Finding:
    """Fig. 2a/2b: non-robust privacy leaks (median ``eps* > eps``), robust privacy holds."""
    eps = SETTING["eps"]
    leak, cost = _medians(table, "eps_star"), _medians(table, "D_star")
    share = {p: float((table.loc[table["method"] == p, "eps_star"] > eps).mean())
             for p in PROGRAMS}
    checks: dict[str, bool | Claim] = {
        f"{p} median eps* {'<=' if p.endswith('RP') else '>'} eps": measured_claim(
            f"{p} median eps* {'<=' if p.endswith('RP') else '>'} eps",
            leak[p] <= eps if p.endswith("RP") else leak[p] > eps,
            f"median eps* {leak[p]:.3g} (eps = {eps:g}); eps* > eps in {share[p]:.0%} of "
            f"{int((table['method'] == p).sum())} instances")
        for p in PROGRAMS
    }
    robust_cost, plain_cost = min(cost["NURP"], cost["RURP"]), max(cost["NUNP"], cost["RUNP"])
    checks["robust privacy costs utility (median D*)"] = measured_claim(
        "robust privacy costs utility (median D*)",
        robust_cost > plain_cost,
        f"least robust median D* {robust_cost:.3g}, largest non-robust {plain_cost:.3g}")
    checks["robust utility changes little once privacy is robust"] = measured_claim(
        "robust utility changes little once privacy is robust",
        abs(cost["RURP"] - cost["NURP"]) < cost["NURP"] - cost["NUNP"],
        f"|median D* RURP - NURP| = {abs(cost['RURP'] - cost['NURP']):.3g} against the cost of "
        f"robust privacy NURP - NUNP = {cost['NURP'] - cost['NUNP']:.3g}")
    if SCATTER_SIZES["2a"] in set(table["n"]):
        checks.update(robust_leak_claims(table, SCATTER_SIZES["2a"]))
    text = (
        "The paper: without robust privacy (NUNP, RUNP) almost all instances have eps* >> eps; "
        "robust privacy costs utility; NURP and RURP are very similar; eps* <= eps mostly but "
        "not always (P* lies in F only with probability 1 - alpha). Measured medians of eps*: "
        + ", ".join(f"{p} {leak[p]:.3g}" for p in PROGRAMS)
        + f" (eps = {eps:g}); share of instances with eps* > eps: "
        + ", ".join(f"{p} {share[p]:.0%}" for p in PROGRAMS)
        + "; medians of D*: " + ", ".join(f"{p} {cost[p]:.3g}" for p in PROGRAMS) + "."
    )
    return Finding.from_checks(text, checks)


def summarise_eps_curves(table: pd.DataFrame) -> Finding:
    """Fig. 2c: ``eps*`` against ``n``; NUNP leaks at every n, RURP is conservative at small n.

    Also Fig. 2a's two claims on robust leaks (:func:`robust_leak_claims`) at the smallest
    ``n``, where the full form has 1000 instances instead of 30.
    """
    eps = SETTING["eps"]
    stats = mean_and_spread(table, "eps_star").set_index(["method", "n"])["mean"]
    sizes = sorted(table["n"].unique())
    small, large = sizes[0], sizes[-1]
    def at(p: str) -> str:
        return ", ".join(f"{stats[p, n]:.3g}" for n in sizes)

    def least_margin(first: str, second: str) -> float:
        return min(abs(stats[first, n] - stats["NUNP", n]) - abs(stats[first, n]
                   - stats[second, n]) for n in sizes)

    at_n = f"at n = {', '.join(f'{n:,}' for n in sizes)}"
    checks: dict[str, bool | Claim] = {
        "NUNP mean eps* > eps at every n": measured_claim(
            "NUNP mean eps* > eps at every n", all(stats["NUNP", n] > eps for n in sizes),
            f"NUNP mean eps* {at('NUNP')} {at_n} (eps = {eps:g})"),
        "RURP mean eps* <= eps at every n": measured_claim(
            "RURP mean eps* <= eps at every n", all(stats["RURP", n] <= eps for n in sizes),
            f"RURP mean eps* {at('RURP')} {at_n} (eps = {eps:g})"),
        "RURP very conservative at the smallest n (mean eps* < eps/2)": measured_claim(
            "RURP very conservative at the smallest n (mean eps* < eps/2)",
            bool(stats["RURP", small] < eps / 2),
            f"RURP mean eps* {stats['RURP', small]:.3g} at n = {small:,} (eps/2 = {eps / 2:g})"),
        "RURP mean eps* grows towards eps with n": measured_claim(
            "RURP mean eps* grows towards eps with n",
            bool(stats["RURP", large] > stats["RURP", small]),
            f"RURP mean eps* {stats['RURP', small]:.3g} at n = {small:,}, "
            f"{stats['RURP', large]:.3g} at n = {large:,}"),
        "robust utility has little impact (|NURP - RURP| < |NUNP - NURP| at every n)":
            measured_claim(
                "robust utility has little impact (|NURP - RURP| < |NUNP - NURP| at every n)",
                all(abs(stats["NURP", n] - stats["RURP", n])
                    < abs(stats["NUNP", n] - stats["NURP", n]) for n in sizes),
                "least margin |NUNP - NURP| - |NURP - RURP| of mean eps* over n: "
                f"{least_margin('NURP', 'RURP'):.3g} (must be > 0)"),
    }
    checks.update(robust_leak_claims(table, small))
    text = (
        "The paper: for small n, due to the large uncertainty on P_SU, RURP is very conservative "
        "with eps* << eps, and imposing robustness in utility has relatively little impact. "
        "Measured mean eps* (after the 1.5 IQR rule) at n = " + f"{small:,} / {large:,}: "
        + ", ".join(f"{p} {stats[p, small]:.3g} / {stats[p, large]:.3g}" for p in PROGRAMS)
        + f" (eps = {eps:g})."
    )
    return Finding.from_checks(text, checks)


def summarise_distortion_curves(table: pd.DataFrame) -> Finding:
    """Fig. 2d: ``D*`` against ``n``; robust privacy costs utility, less so as n grows."""
    stats = mean_and_spread(table, "D_star").set_index(["method", "n"])["mean"]
    sizes = sorted(table["n"].unique())
    small, large = sizes[0], sizes[-1]

    def gap(n: int) -> float:
        return stats["RURP", n] - stats["NUNP", n]

    least_cost = min(min(stats["NURP", n] - stats["NUNP", n], stats["RURP", n] - stats["RUNP", n])
                     for n in sizes)
    least_margin = min(stats["NURP", n] - stats["NUNP", n] - abs(stats["RURP", n]
                       - stats["NURP", n]) for n in sizes)
    checks = {
        "robust privacy costs utility at every n (NURP > NUNP, RURP > RUNP)": measured_claim(
            "robust privacy costs utility at every n (NURP > NUNP, RURP > RUNP)",
            least_cost > 0, f"least difference of mean D* over n: {least_cost:.3g} (must be > 0)"),
        "the cost of robust privacy shrinks with n": measured_claim(
            "the cost of robust privacy shrinks with n", bool(gap(large) < gap(small)),
            f"mean D* RURP - NUNP: {gap(small):.3g} at n = {small:,}, {gap(large):.3g} at "
            f"n = {large:,}"),
        "robust utility has little impact (|RURP - NURP| < NURP - NUNP at every n)":
            measured_claim(
                "robust utility has little impact (|RURP - NURP| < NURP - NUNP at every n)",
                least_margin > 0, "least margin (NURP - NUNP) - |RURP - NURP| of mean D* over "
                f"n: {least_margin:.3g} (must be > 0)"),
    }
    text = (
        "The paper: robust privacy costs utility, most for small n where the uncertainty on P_SU "
        "is large; imposing robustness in utility has relatively little impact. Measured mean D* "
        f"(after the 1.5 IQR rule) at n = {small:,} / {large:,}: "
        + ", ".join(f"{p} {stats[p, small]:.3g} / {stats[p, large]:.3g}" for p in PROGRAMS) + "."
    )
    return Finding.from_checks(text, checks)


def _scatter_tasks(figure: str) -> Any:
    def tasks(quick: bool) -> list[Task]:
        size = SIZES["quick" if quick else "full"]
        return block_tasks([SCATTER_SIZES[figure]], size["scatter_k"], size["block"])
    return tasks


def curve_tasks(quick: bool) -> list[Task]:
    """Fig. 2c/2d: ``K`` instances at each ``n = N |S||U|``."""
    size = SIZES["quick" if quick else "full"]
    multiples = QUICK_N_MULTIPLES if quick else FULL_N_MULTIPLES
    cells = SETTING["n_s"] * SETTING["n_u"]
    return block_tasks([m * cells for m in multiples], size["curve_k"], size["block"])


PAPER = "robust-optimization-ldp.txt"

EXPERIMENTS: tuple[Experiment, ...] = (
    Experiment(
        id="robust-opt-fig2a", title="eps* against D*, K = 30 instances at n = 75",
        paper=f"{PAPER}, Fig. 2a",
        claim="Without robust privacy (NUNP, RUNP) almost all instances have eps* >> eps; "
              "robust privacy (NURP, RURP) costs utility; NURP and RURP are very similar.",
        tasks=_scatter_tasks("2a"), run_task=run_block,
        plot=lambda table: _plot_scatter(table, SCATTER_SIZES["2a"]),
        summarise=summarise_scatter),
    Experiment(
        id="robust-opt-fig2b", title="eps* against D*, K = 30 instances at n = 15,000",
        paper=f"{PAPER}, Fig. 2b",
        claim="As in Fig. 2a at a large sample: the non-robust-privacy programs still exceed "
              "eps; some large eps* of NURP at n = 75 were small-sample artifacts.",
        tasks=_scatter_tasks("2b"), run_task=run_block,
        plot=lambda table: _plot_scatter(table, SCATTER_SIZES["2b"]),
        summarise=summarise_scatter),
    Experiment(
        id="robust-opt-fig2c", title="mean and spread of eps* against n, K = 1000",
        paper=f"{PAPER}, Fig. 2c",
        claim="For small n RURP is very conservative (eps* << eps); robust utility has "
              "relatively little impact.",
        tasks=curve_tasks, run_task=run_block,
        plot=lambda table: _plot_curves(table, "eps_star", "eps*"),
        summarise=summarise_eps_curves),
    Experiment(
        id="robust-opt-fig2d", title="mean and spread of D* against n, K = 1000",
        paper=f"{PAPER}, Fig. 2d",
        claim="Robust privacy costs utility, the more so the smaller n; robust utility has "
              "relatively little impact.",
        tasks=curve_tasks, run_task=run_block,
        plot=lambda table: _plot_curves(table, "D_star", "D*"),
        summarise=summarise_distortion_curves),
)
"""Fig. 2a-2d."""


class DemoSetting(TypedDict):
    """The demo instance's sizes, privacy level, significance and seed."""

    n_s: int
    n_u: int
    n: int
    eps: float
    alpha: float
    seed: int


DEMO_SETTING: DemoSetting = {"n_s": 3, "n_u": 5, "n": 75, "eps": 0.5, "alpha": 0.05,
                             "seed": 2022}
"""The demo's instance: Section V's :data:`SETTING` at Fig. 2a's ``n = 75``."""


@dataclass
class DemoRow:
    """One program's outcome on the demo instance."""

    problem: str
    solution: "ProtocolSolution"
    d_star: float
    eps_star: float
    seconds: float


def run_demo(seed: int = DEMO_SETTING["seed"], solver: str | None = None
             ) -> tuple[Instance, list[DemoRow]]:
    """Solve NUNP, NURP, RUNP and RURP on the seeded instance and score them at ``P*``.

    ``solver=None`` lets each program choose its fastest backend (the direct conic path).
    """
    instance = jeffreys_instance(DEMO_SETTING["n_s"], DEMO_SETTING["n_u"], DEMO_SETTING["n"],
                                 seed)
    rows = []
    for problem in PRESETS:
        start = time.perf_counter()
        program = preset(problem, instance.crosstab, DEMO_SETTING["eps"], DEMO_SETTING["alpha"])
        solution = program.solve(solver=solver)
        seconds = time.perf_counter() - start
        protocol = solution.protocol
        if protocol is None:
            raise RuntimeError(f"{problem}: the solver returned no protocol ({solution.status})")
        rows.append(DemoRow(problem, solution,
                            distortion_star(protocol, instance.p_star, program.distortion_matrix),
                            epsilon_star(protocol, instance.p_star), seconds))
    return instance, rows


def scatter_eps_distortion(points: Sequence[tuple[str, float, float]], eps: float,
                           path: str | Path | IO[bytes], title: str = "") -> None:
    """Scatter ``eps*`` (y) against ``D*`` (x), one colour per program, a line at ``eps``.

    Parameters
    ----------
    points : sequence of (program, D*, eps*)
        Points with ``eps* = inf`` are left out, as in the paper.
    path : str, Path or binary file
        Where the PNG goes (a file object: :func:`rldp_models.safe_io.atomic_output`'s).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(5.5, 4))
    for program, (colour, marker) in PROGRAM_STYLE.items():
        xs = [d for p, d, e in points if p == program and e != float("inf")]
        ys = [e for p, d, e in points if p == program and e != float("inf")]
        if xs:
            axes.scatter(xs, ys, c=colour, marker=marker, label=program, alpha=0.8)
    axes.axhline(eps, color="grey", linestyle="--", linewidth=1, label=f"eps = {eps:g}")
    axes.set_xlabel("D* (expected distortion under P*)")
    axes.set_ylabel("eps* (privacy leakage under P*)")
    axes.set_title(title)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120, format="png")
    plt.close(figure)
