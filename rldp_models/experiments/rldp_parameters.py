"""Figs. 5 and 6 of ``rldp-privacy-utility-tradeoff.txt`` (Secs. VIII-C, VIII-D).

* Fig. 5: the optimal parameters of IR and GRR-CR (``eps_2 / eps``, the share
  of the budget spent on ``U``) and of UE-CR (``kappa``, ``lambda``) against
  ``eps``, 5x5 Jeffreys instances with ``n = 1000``: two distributions and the
  average over 200.
* Fig. 6: ``(I_IR - I_GRR-CR) / H(X)`` against ``H(X)`` for 2000 distributions,
  5x5, ``eps = 4`` (``n = 1000``, ``alpha = 0.05``: the paper's defaults).

The parameters are the protocols' own searches
(:mod:`rldp_models.rldp_protocols`); UE-CR's come from
:func:`~rldp_models.rldp_protocols.ue_conditional.ue_cr_parameters` without
building its matrix.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from scipy.stats import entropy

from rldp_models.experiments.base import (Claim, ClaimOutcome, Finding, Row, Task,
                                          every_instance_claim, interval_sign_claim, mean_interval,
                                          rate_claim)
from rldp_models.experiments.rldp_tasks import FULL_EPS, TOLERANCE
from rldp_models.datasets import jeffreys_instance
from rldp_models.rldp_protocols import grr_conditional, independent_reporting
from rldp_models.rldp_protocols.ue_conditional import ue_cr_parameters

ALPHA = 0.05
"""Significance level of ``F`` (the paper's default)."""

EXTREME = 1e-6
"""``eps_2 / eps`` (or ``kappa``, ``lambda``) within this of 0 or 1 counts as "all the budget
on one component": above the searches' location precision, so a parameter the search put at
an end counts as the end, and nothing looser. IR's and GRR-CR's search
(:func:`~rldp_models.rldp_protocols.components.maximise_on_interval`) returns the end points
of ``[0, eps]`` exactly (they are grid points) and an interior point within
``2 (sqrt(eps_mach) eps_2 + xatol / 3) <= 3e-8 eps`` of a maximiser; UE-CR's Powell search
clips ``kappa`` to ``[0, 1]`` and stops at ``xtol = 1e-8``. Rldp-fig5's full form has every
share within 1e-15 of an end or more than 1e-3 away from both."""

FIG6_BLOCK = 50
"""Distributions per Fig. 6 task."""

PARAMETERS = {"ir": "eps_2/eps (IR)", "grr-cr": "eps_2/eps (GRR-CR)",
              "kappa": "κ (UE-CR)", "lambda": "λ (UE-CR)"}
"""Fig. 5's four curves, in the caption's order."""


PROTOCOL = {"ir": "ir", "grr-cr": "grr-cr", "kappa": "ue-cr", "lambda": "ue-cr"}
"""The protocol each of Fig. 5's parameters belongs to (the table's ``method``)."""


def fig5_tasks(quick: bool) -> list[Task]:
    """One task per 5x5 distribution; quick: 12 distributions at 5 eps."""
    eps = (0.2, 0.5, 2.0, 4.0, 8.0) if quick else FULL_EPS
    return [{"seed": seed, "eps": list(eps)} for seed in range(12 if quick else 200)]


def run_parameters(task: Task) -> list[Row]:
    """The optimal ``eps_2 / eps`` of IR and GRR-CR and ``(kappa, lambda)`` of UE-CR."""
    crosstab = jeffreys_instance(5, 5, 1000, task["seed"]).crosstab
    rows = []
    for eps in task["eps"]:
        _, _, kappa, lam = ue_cr_parameters(crosstab, eps, ALPHA)
        values = {"ir": independent_reporting(crosstab, eps, ALPHA).parameters["eps_2"] / eps,
                  "grr-cr": grr_conditional(crosstab, eps, ALPHA).parameters["eps_2"] / eps,
                  "kappa": kappa, "lambda": lam}
        rows += [{"seed": task["seed"], "eps": eps, "method": PROTOCOL[name],
                  "parameter": name, "value": value} for name, value in values.items()]
    return rows


def plot_parameters(table: pd.DataFrame) -> Any:
    """Fig. 5: two distributions and the average, one line per parameter."""
    import matplotlib.pyplot as plt

    seeds = sorted(table["seed"].unique())[:2]
    panels = [(f"distribution {s}", table[table["seed"] == s]) for s in seeds]
    panels.append((f"average over {table['seed'].nunique()} distributions", table))
    figure, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), sharey=True)
    for ax, (title, part) in zip(np.atleast_1d(axes), panels):
        means = part.groupby(["parameter", "eps"])["value"].mean()
        for name, label in PARAMETERS.items():
            ax.plot(means[name].index, means[name].values, marker=".", label=label)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("ε")
        ax.grid(alpha=0.3)
    np.atleast_1d(axes)[0].set_ylabel("parameter value")
    np.atleast_1d(axes)[-1].legend(fontsize=8, loc="center right")
    figure.tight_layout()
    return figure


def _all_distributions(claim: str, holds: pd.Series) -> Claim:
    """"For every distribution": refuted by one, confirmed only over the paper's 200."""
    failing = holds[~holds]
    return every_instance_claim(claim, len(failing), int(holds.size), 200,
                                f"first: seed {failing.index[0]}" if len(failing) else "")


def fig5_verdict(table: pd.DataFrame) -> Finding:
    """Fig. 5 (Sec. VIII-C): the budget goes to one component at low eps; GRR-CR spends it on
    ``U`` below eps 1 and on ``S`` between 1 and 3 for every P; IR's average is near 0.5;
    UE-CR has ``kappa = lambda = 1`` at low eps."""
    wide = table.pivot_table(index=["seed", "eps"], columns="parameter", values="value")
    eps = wide.index.get_level_values("eps")
    low = wide[eps < 1]
    extreme = lambda s: (s < EXTREME) | (s > 1 - EXTREME)  # noqa: E731
    checks: dict[str, Claim] = {}
    share = extreme(low[["ir", "grr-cr"]]).all(axis=1).groupby(level="seed").all()
    checks["budget on one component at low eps"] = _all_distributions(
        "for low eps (< 1) IR and GRR-CR spend the whole budget on S or on U "
        "(eps_2 / eps = 0 or 1)", share)
    below_one = (low["grr-cr"] > 1 - EXTREME).groupby(level="seed").all()
    checks["GRR-CR on U below eps 1"] = _all_distributions(
        "for GRR-CR, for any P, the whole budget goes to U (eps_2 = eps) for eps < 1",
        below_one)
    middle = wide[(eps > 1) & (eps < 3)]
    if len(middle):
        on_s = (middle["grr-cr"] < EXTREME).groupby(level="seed").all()
        checks["GRR-CR on S for 1 < eps < 3"] = _all_distributions(
            "for GRR-CR, for any P, the whole budget goes to S (eps_2 = 0) for 1 < eps < 3",
            on_s)
    checks["IR average near 0.5"] = _near_half(wide["ir"])
    smallest = wide.xs(eps.min(), level="eps")
    no_leak = (smallest["kappa"] > 1 - EXTREME) & (smallest["lambda"] > 1 - EXTREME)
    checks["UE-CR kappa = lambda = 1 at low eps"] = _all_distributions(
        f"for low eps UE-CR takes kappa = lambda = 1 (no leakage about S), at eps = "
        f"{eps.min():g}", no_leak)
    means = table.groupby(["parameter", "eps"])["value"].mean().unstack("eps")
    text = (f"Mean parameters over {table['seed'].nunique()} 5x5 distributions (rows: "
            f"parameter; columns: eps): "
            + "; ".join(f"{PARAMETERS[str(p)]}: "
                        + ", ".join(f"{e:g}: {v:.2f}" for e, v in row.items())
                        for p, row in means.iterrows()) + ".")
    return Finding.from_checks(text, checks)


NEAR_HALF = (0.35, 0.65)
"""Band read as "close to 0.5" for IR's average ``eps_2 / eps``."""


def _near_half(ir: pd.Series) -> Claim:
    """IR's average ``eps_2 / eps`` close to 0.5 at every eps: every eps's 95% interval of
    the mean inside :data:`NEAR_HALF` (reproduced), or one outside it (not reproduced)."""
    intervals = {e: mean_interval(ir.xs(e, level="eps").to_numpy())
                 for e in sorted(set(ir.index.get_level_values("eps")))}
    claim = (f"the average eps_2 / eps of IR is close to 0.5 regardless of eps (read: in "
             f"[{NEAR_HALF[0]}, {NEAR_HALF[1]}])")
    measured = "; ".join(f"eps {e:g}: {m:.2f} [{lo:.2f}, {hi:.2f}]"
                         for e, (m, lo, hi) in intervals.items())
    if any(hi < NEAR_HALF[0] or lo > NEAR_HALF[1] for _, lo, hi in intervals.values()):
        return Claim(claim, measured, ClaimOutcome.NOT_REPRODUCED,
                     "at some eps the 95% interval of the mean lies outside the band")
    if all(NEAR_HALF[0] <= lo and hi <= NEAR_HALF[1] for _, lo, hi in intervals.values()):
        return Claim(claim, measured, ClaimOutcome.REPRODUCED)
    return Claim(claim, measured, ClaimOutcome.NOT_RESOLVED,
                 "some 95% interval straddles the band's edge")


def fig6_tasks(quick: bool) -> list[Task]:
    """Blocks of :data:`FIG6_BLOCK` distributions; quick: 200 distributions, full: 2000."""
    count = 200 if quick else 2000
    return [{"seed": first, "count": FIG6_BLOCK} for first in range(0, count, FIG6_BLOCK)]


def run_ir_against_grr_cr(task: Task) -> list[Row]:
    """``(I_IR - I_GRR-CR) / H(X)`` and ``H(X)`` (under ``Phat``) at eps 4, 5x5, n 1000."""
    rows = []
    for seed in range(task["seed"], task["seed"] + task["count"]):
        crosstab = jeffreys_instance(5, 5, 1000, seed).crosstab
        h = float(entropy(crosstab.phat.ravel()))
        ir = independent_reporting(crosstab, 4.0, ALPHA)
        grr = grr_conditional(crosstab, 4.0, ALPHA)
        rows.append({"seed": seed, "method": "ir - grr-cr", "entropy_hat": h, "eps": 4.0,
                     "difference": (ir.utility_hat - grr.utility_hat) / h,
                     "ir_eps_2": ir.parameters["eps_2"], "grr_cr_eps_2": grr.parameters["eps_2"]})
    return rows


EQUAL = TOLERANCE
"""``|I_IR - I_GRR-CR| / H(X)`` below this counts as equal utility: the two protocols
coincide (Sec. VIII-D: the whole budget on ``S``), up to the precision of the searches
(:data:`~rldp_models.experiments.rldp_tasks.TOLERANCE`). Rldp-fig6's full form has 433
differences below 1e-15 and none between 1e-15 and 3.6e-6, which a looser threshold would
count as equal although the protocols differ."""


def plot_difference_against_entropy(table: pd.DataFrame) -> Any:
    """Fig. 6: one point per distribution."""
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(6.4, 4.2))
    ax.scatter(table["entropy_hat"], table["difference"], s=6, alpha=0.5)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("H(X) (nats)")
    ax.set_ylabel("(I_IR − I_GRR-CR) / H(X)")
    ax.set_title(f"{len(table)} Jeffreys distributions, 5x5, ε = 4", fontsize=10)
    ax.grid(alpha=0.3)
    figure.tight_layout()
    return figure


MANY = 0.10
"""Share of distributions read as "many" with equal utility."""


def fig6_verdict(table: pd.DataFrame) -> Finding:
    """Fig. 6 (Sec. VIII-D): many distributions with equal utility; among the others a
    downward trend in ``H(X)`` (GRR-CR ahead for large ``H(X)``)."""
    equal = table["difference"].abs() < EQUAL
    others = table[~equal]
    if len(others) < 3:
        return Finding(f"{len(others)} distributions with different utility: no trend to fit.")
    slope = stats.linregress(others["entropy_hat"], others["difference"])
    half = slope.stderr * stats.t.ppf(0.975, len(others) - 2)
    claims = {
        "many distributions with equal utility": rate_claim(
            f"many distributions (read: more than {MANY:.0%}) have equal IR and GRR-CR utility",
            int(equal.sum()), len(table), MANY, True, "distributions with equal utility"),
        "downward trend": interval_sign_claim(
            "among the other distributions the difference IR - GRR-CR falls with H(X) "
            "(GRR-CR ahead for large H(X))", slope.slope - half, slope.slope + half, True,
            f"least-squares slope {slope.slope:.3g}, 95% interval [{slope.slope - half:.3g}, "
            f"{slope.slope + half:.3g}] over {len(others)} distributions",
            f"{len(others)} distributions"),
    }
    spent_on_s = (table["ir_eps_2"] < EXTREME) & (table["grr_cr_eps_2"] < EXTREME)
    text = (f"{len(table)} distributions at eps = 4: {equal.mean():.0%} with equal utility "
            f"(both spend the whole budget on S in {spent_on_s.mean():.0%}); slope of the "
            f"difference against H(X) over the others {slope.slope:.3g} +- {half:.2g}.")
    return Finding.from_checks(text, claims)
