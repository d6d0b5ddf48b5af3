"""``uldp-tv``: uRR and uRAP against RR and RAPPOR, TV error against eps.

From ``utility-optimized-ldp.txt``. The paper's copy lacks its experimental
section (Sec. 6) and its data sets, so the setting here is synthetic and stated
in full: ``|X| = 50`` symbols with a Zipf(1) distribution in a seeded random
order, ``|X_S| = 5`` sensitive symbols chosen at random (so about 90 % of the
data are non-sensitive, the regime the paper's claims are about), ``n`` users,
each eps in a grid from 0.1 to 10. Each task draws the users' data from its seed,
releases it through

* RR, the ``(X, eps)``-RR (eq. (2), :class:`~rldp_models.mechanisms.RandomizedResponse`);
* RAPPOR, the basic one-time RAPPOR, i.e. symmetric unary encoding
  (:class:`~rldp_models.mechanisms.UnaryEncoding`, ``setting="symmetric"``);
* uRR and uRAP (Definitions 3-4, :mod:`rldp_models.mechanisms.utility_optimized`);

and estimates the distribution by empirical inversion (eq. (3), the raw
solution, as in Sec. 2.5) and by EM (the maximum-likelihood estimate on the
simplex). The error is the total variation ``TV = ||p_hat - p||_1 / 2`` (Sec.
2.3). A non-private baseline (the users' own empirical distribution) is row
``method = "none"``.

EM stops when an update moves the estimate by at most ``EM_TOLERANCE`` (L1)
or after ``EM_MAX_ITERATIONS`` updates (reached at the smallest eps only).
Above ``eps = LOW_PRIVACY_FROM`` every mechanism is within sampling noise of the
non-private error, so the mechanisms are compared at ``eps <= 5`` and the low
privacy regime is judged against the non-private baseline.

RR and uRR use :mod:`rldp_models.estimators` on output counts. RAPPOR and uRAP
release ``|X|`` bits (their matrices would have ``2^|X|`` columns), so they are
estimated per bit (empirical) and by EM on the users' bit vectors, whose
likelihood ``P(y | x) = prod_j P(y_j | x)`` (eq. (6)) is formed in logs.
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np
import pandas as pd

from rldp_models.estimators import em_estimate, empirical_estimate
from rldp_models.experiments.base import Claim, Experiment, Finding, Row, Task, measured_claim
from rldp_models.mechanisms import (
    BitVectorMechanism,
    RandomizedResponse,
    UnaryEncoding,
    UtilityOptimizedRAPPOR,
    UtilityOptimizedRR,
)


class Setting(TypedDict):
    """The population of the experiment (see :data:`SETTING`)."""

    k: int
    sensitive: int
    zipf: float
    seed: int


class Size(TypedDict):
    """One form of the experiment (see :data:`SIZES`)."""

    n: int
    repeats: int
    eps: tuple[float, ...]


SETTING: Setting = {"k": 50, "sensitive": 5, "zipf": 1.0, "seed": 2019}
"""Alphabet size, number of sensitive symbols, Zipf exponent, base seed."""

METHODS = ("RR", "RAPPOR", "uRR", "uRAP")
"""The mechanisms compared (``"none"`` is the non-private baseline)."""

ESTIMATORS = ("empirical", "EM")
"""Distribution estimators."""

SIZES: dict[str, Size] = {"full": {"n": 50_000, "repeats": 10,
                  "eps": (0.1, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)},
         "quick": {"n": 5_000, "repeats": 2, "eps": (0.1, 1.0, 4.0, 10.0)}}
"""Users, repetitions and eps grid of each form."""

EM_TOLERANCE = 1e-6
"""L1 change at which EM stops."""

EM_MAX_ITERATIONS = 1_000
"""Cap on EM updates (reached only at the smallest eps)."""

LOW_PRIVACY_FROM = 5.0
"""eps above this is the low privacy regime, where every mechanism nears the non-private error
and the comparisons between mechanisms are within sampling noise."""

LOG_ZERO = -1e4
"""Stand-in for ``log 0`` in bit-vector likelihoods: ``exp`` of it is 0 in doubles."""


def population() -> tuple[np.ndarray, np.ndarray]:
    """The true distribution ``p`` over ``X`` and the mask of sensitive symbols ``X_S``."""
    rng = np.random.default_rng(SETTING["seed"])
    weights = 1.0 / np.arange(1, SETTING["k"] + 1) ** SETTING["zipf"]
    p = rng.permutation(weights / weights.sum())
    sensitive = np.zeros(SETTING["k"], dtype=bool)
    sensitive[rng.choice(SETTING["k"], SETTING["sensitive"], replace=False)] = True
    return p, sensitive


def tv_tasks(quick: bool) -> list[Task]:
    """One task per eps and repetition, each with its own seed."""
    size = SIZES["quick" if quick else "full"]
    return [{"eps": eps, "repeat": r, "n": size["n"],
             "seed": int(np.random.SeedSequence([SETTING["seed"], i, r]).generate_state(1)[0])}
            for i, eps in enumerate(size["eps"]) for r in range(size["repeats"])]


def run_tv(task: Task) -> list[Row]:
    """TV error of every mechanism and estimator on one draw of ``n`` users."""
    p, sensitive = population()
    eps, n = float(task["eps"]), int(task["n"])
    rng = np.random.default_rng(int(task["seed"]))
    x = rng.choice(p.size, size=n, p=p)
    base = {"eps": eps, "repeat": task["repeat"], "n": n}
    rows = [{**base, "method": "none", "estimator": "empirical",
             "tv": total_variation(np.bincount(x, minlength=p.size) / n, p)}]
    mechanisms = {"RR": RandomizedResponse(eps, p.size),
                  "RAPPOR": UnaryEncoding.from_setting("symmetric", eps, p.size),
                  "uRR": UtilityOptimizedRR(eps, tuple(sensitive)),
                  "uRAP": UtilityOptimizedRAPPOR(eps, tuple(sensitive))}
    for method in METHODS:
        estimates = _estimates(mechanisms[method], x, rng)
        rows += [{**base, "method": method, "estimator": name, "tv": total_variation(est, p)}
                 for name, est in estimates.items()]
    return rows


def total_variation(estimate: np.ndarray, p: np.ndarray) -> float:
    """``||estimate - p||_1 / 2`` (the paper's TV; ``estimate`` may have negative entries)."""
    return 0.5 * float(np.abs(estimate - p).sum())


def _estimates(mechanism: Any, x: np.ndarray, rng: np.random.Generator) -> dict[str, np.ndarray]:
    if isinstance(mechanism, BitVectorMechanism):
        bits = mechanism.sample_bits(x, rng)
        ones, zeros = mechanism.bit_probabilities()
        return {"empirical": bitwise_empirical(bits, ones),
                "EM": bitwise_em(bits, ones, zeros)}
    Q = mechanism.matrix()
    counts = np.bincount(mechanism.sample(x, rng), minlength=Q.shape[1])
    return {"empirical": empirical_estimate(Q, counts, correction="none"),
            "EM": em_estimate(Q, counts, tol=EM_TOLERANCE, max_iter=EM_MAX_ITERATIONS).estimate}


def bitwise_empirical(bits: np.ndarray, ones: np.ndarray) -> np.ndarray:
    """Per-bit inversion of eq. (3) for one-hot bit mechanisms.

    Bit ``j`` is 1 with probability ``a_j = ones[j, j]`` when ``x = j`` and
    ``b_j = ones[i, j]`` (the same for every ``i != j``) otherwise, so
    ``E[mean bit j] = b_j + (a_j - b_j) p_j``.
    """
    own = np.diag(ones)
    other = ones[np.roll(np.arange(ones.shape[0]), 1), np.arange(ones.shape[1])]
    return (bits.mean(axis=0) - other) / (own - other)


def bitwise_em(bits: np.ndarray, ones: np.ndarray, zeros: np.ndarray) -> np.ndarray:
    """EM on bit vectors: ``p <- mean_users posterior(x | y)``, ``P(y|x) = prod_j P(y_j|x)``.

    Sums are numpy reductions, not BLAS products, so the result does not depend
    on how many threads BLAS uses (serial and pooled runs agree to the last bit).
    """
    with np.errstate(divide="ignore"):
        log_one = np.where(ones > 0, np.log(ones), LOG_ZERO)
        log_zero = np.where(zeros > 0, np.log(zeros), LOG_ZERO)
    log_likelihood = np.zeros((bits.shape[0], ones.shape[0]))
    for j in range(bits.shape[1]):
        log_likelihood += np.where(bits[:, j, None], log_one[None, :, j], log_zero[None, :, j])
    likelihood = np.exp(log_likelihood - log_likelihood.max(axis=1, keepdims=True))
    p = np.full(ones.shape[0], 1.0 / ones.shape[0])
    for _ in range(EM_MAX_ITERATIONS):
        weights = 1.0 / (likelihood * p).sum(axis=1)
        updated = p * (likelihood * weights[:, None]).sum(axis=0) / likelihood.shape[0]
        change = np.abs(updated - p).sum()
        p = updated
        if change <= EM_TOLERANCE:
            break
    return p


def mean_tv(table: pd.DataFrame) -> pd.DataFrame:
    """Mean TV per method, estimator and eps (over the repetitions)."""
    means = table.groupby(["method", "estimator", "eps"])["tv"].mean()
    return means.reset_index()


STYLE = {"RR": ("tab:red", "o"), "RAPPOR": ("tab:orange", "^"),
         "uRR": ("tab:blue", "s"), "uRAP": ("tab:green", "D"), "none": ("grey", "")}


def plot_tv(table: pd.DataFrame) -> Any:
    """TV against eps, one panel per estimator, log-log, as the paper's TV figures."""
    import matplotlib.pyplot as plt

    stats = mean_tv(table)
    figure, panels = plt.subplots(1, 2, figsize=(9, 3.8), sharey=True)
    for axes, estimator in zip(panels, ESTIMATORS):
        for method in (*METHODS, "none"):
            colour, marker = STYLE[method]
            chosen = "empirical" if method == "none" else estimator
            line = stats[(stats["method"] == method) & (stats["estimator"] == chosen)]
            axes.plot(line["eps"], line["tv"], color=colour, marker=marker or None,
                      linestyle="--" if method == "none" else "-",
                      label="no privacy" if method == "none" else method)
        axes.set_xscale("log")
        axes.set_yscale("log")
        axes.set_xlabel("eps")
        axes.set_title(f"{estimator} estimation")
    panels[0].set_ylabel("TV")
    panels[0].legend()
    figure.suptitle(f"|X| = {SETTING['k']}, |X_S| = {SETTING['sensitive']}, "
                    f"n = {int(table['n'].iloc[0]):,}")
    figure.tight_layout()
    return figure


def summarise_tv(table: pd.DataFrame) -> Finding:
    """uRR/uRAP beat RR/RAPPOR; at the largest eps they approach the non-private error."""
    stats = mean_tv(table).set_index(["method", "estimator", "eps"])["tv"]
    grid = sorted(table["eps"].unique())
    top = grid[-1]
    private = stats["none", "empirical", top]
    compared = [e for e in grid if e <= LOW_PRIVACY_FROM]
    checks: dict[str, bool | Claim] = {}
    for estimator in ESTIMATORS:
        for ours, theirs in (("uRR", "RR"), ("uRAP", "RAPPOR")):
            claim = (f"{ours} TV < {theirs} TV at every eps <= {LOW_PRIVACY_FROM:g} "
                     f"({estimator})")
            ratio = max(stats[ours, estimator, e] / stats[theirs, estimator, e]
                        for e in compared)
            checks[claim] = measured_claim(
                claim, all(stats[ours, estimator, e] < stats[theirs, estimator, e]
                           for e in compared),
                f"largest ratio of mean TV {ours} / {theirs} over those eps: {ratio:.3g}")
    worst = max(stats[m, "EM", top] / private for m in ("uRR", "uRAP"))
    claim = "uRR and uRAP within 1.5x the non-private TV at the largest eps (EM)"
    checks[claim] = measured_claim(
        claim, worst <= 1.5, f"larger of uRR's and uRAP's mean TV over the non-private at "
                             f"eps = {top:g}: {worst:.3g}")
    ratios = ", ".join(f"{e:g}: RR/uRR {stats['RR', 'EM', e] / stats['uRR', 'EM', e]:.2g}, "
                       f"RAPPOR/uRAP {stats['RAPPOR', 'EM', e] / stats['uRAP', 'EM', e]:.2g}"
                       for e in grid)
    text = (
        "The paper: uRR and uRAP give much higher utility (lower TV) than RR and RAPPOR when "
        "there are many non-sensitive data, and in the low privacy regime almost the same "
        "utility as the non-private mechanism. The paper's data sets are not in its copy; this "
        "run is synthetic (Zipf over |X| = 50, |X_S| = 5). Ratio of mean TV (EM) by eps: "
        f"{ratios}. At eps = {top:g}: TV uRR {stats['uRR', 'EM', top]:.3g}, uRAP "
        f"{stats['uRAP', 'EM', top]:.3g}, non-private {private:.3g}."
    )
    return Finding.from_checks(text, checks)


EXPERIMENTS: tuple[Experiment, ...] = (
    Experiment(
        id="uldp-tv", title="uRR and uRAP against RR and RAPPOR: TV error against eps",
        paper="utility-optimized-ldp.txt, Sec. 6 (TV against eps; not in this copy)",
        claim="uRR and uRAP give much lower TV than RR and RAPPOR when most data are "
              "non-sensitive, and almost the non-private TV in the low privacy regime.",
        tasks=tv_tasks, run_task=run_tv, plot=plot_tv, summarise=summarise_tv),
)
"""The ULDP experiment."""
