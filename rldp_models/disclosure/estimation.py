"""Estimating ``M P_X`` from released records: their counts, EM and inversion, bootstrap
intervals.

The released CSV is read back as the counts of each output of the result's channel
(:func:`released_counts`; its provenance lines are skipped), and the estimates are
drawn with their intervals by :func:`plot_estimate` (``rldp estimate``'s figure).
Only the identifiable rows of ``M`` are estimated
(:mod:`rldp_models.disclosure.identifiability`); the others are reported with why.

* **EM / iterative Bayesian update**, i.e. the maximum likelihood estimate
  (``utility-optimized-ldp.txt`` Sec. 2.5): the fixed point of
  ``p <- p * A^T (f / (A p))``, ``A[y, x] = Q[x, y]`` (``A^T``, not ``A``),
  reached by SQUAREM-accelerated EM from the uniform ``p``
  (:func:`rldp_models.estimators.em_batch`) and then, if still short, Newton's
  method on the simplex (:func:`rldp_models.estimators.newton_batch`) until the
  likelihood
  gap (a bound on ``L* - L``) is at most :data:`POINT_GAP`. Plain EM, linear
  with a rate near 1 on privatising channels, ran into its iteration limit on
  every table here. Where ``P_X`` is not identified the law of ``Y`` still
  is, and identifiable targets are functions of it.
* **Inversion**: the least-squares solution of ``Q^T p = f`` over the simplex
  (:func:`rldp_models.estimators.simplex_least_squares`). Where the channel is rank
  deficient it is one of many minimisers, which share ``Q^T p`` and hence every
  identifiable target; where ``pinv(Q^T) f`` lies in the simplex it is that.

Intervals: **parametric bootstrap, percentile method**. ``B`` tables of ``n``
outputs are drawn from the multinomial law ``Q^T p_EM`` fitted by EM, both
estimators are rerun on each, and the ``(1 - level)/2`` and ``(1 + level)/2``
quantiles of ``M p*`` are each coordinate's interval. Every table's fit starts
from the point estimate (the tables lie within ``O(n^-1/2)`` of the observed
one, where Newton's method converges quadratically), all tables run as one
batch, and each stops once its likelihood gap is at most
``BOOTSTRAP_PRECISION^2 / (2 n)``: near the maximum ``2 n (L* - L)`` is the
squared distance to the maximum in the metric of the sampling covariance, so
every replicate lies within :data:`BOOTSTRAP_PRECISION` standard errors of its
own maximum, far below the spread the percentiles measure.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rldp_models.disclosure.identifiability import Identifiability, Target
from rldp_models.disclosure.records import RELEASED_COLUMN, released_header
from rldp_models.errors import InputError
from rldp_models.estimators import BatchEM, em_batch, newton_batch, simplex_least_squares
from rldp_models.safe_io import save_figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes


WARM_UP_GAP = 1e-6
"""Likelihood gap at which the point fit's EM hands over to Newton's method."""
POINT_GAP = 1e-14
"""Likelihood gap of the point estimate (rounding of ``L`` lies near 1e-16)."""
WARM_UP_ROUNDS = 50
"""SQUAREM rounds a table gets before Newton's method takes over, past
:data:`NEWTON_FIRST_INPUTS` inputs."""
NEWTON_FIRST_INPUTS = 128
"""Up to this many inputs :func:`refit` starts with Newton's method."""
BOOTSTRAP_PRECISION = 0.1
"""Distance of every bootstrap fit to its own maximum, in standard errors (module docstring)."""
BOOTSTRAP_DRAWS = 400
MAX_DRAWS = 100_000
"""Most bootstrap tables: percentile intervals are stable long before; 10^8 ran for minutes
towards tens of GiB before anything was refused."""
LEVEL = 0.95
METHOD = "parametric bootstrap (multinomial from the EM fit), percentile intervals"


def point_estimate(Q: np.ndarray, frequencies: np.ndarray) -> BatchEM:
    """The maximum likelihood ``P_X`` of one table of output ``frequencies`` (module
    docstring): EM to :data:`WARM_UP_GAP`, then Newton's method to :data:`POINT_GAP`."""
    warm = em_batch(Q, frequencies, WARM_UP_GAP, WARM_UP_ROUNDS)
    return refit(Q, frequencies, warm.estimates[0], POINT_GAP)


def refit(Q: np.ndarray, tables: np.ndarray, start: np.ndarray, gap: float) -> BatchEM:
    """Every table's maximum likelihood ``P_X`` from ``start`` to likelihood ``gap``.

    Newton's method (:func:`~rldp_models.estimators.newton_batch`) converges in a few steps
    but each costs a Hessian, ``|X|`` passes over ``Q``; a SQUAREM EM round costs one. Up to
    :data:`NEWTON_FIRST_INPUTS` inputs Newton starts at once (on Adult race x education at 1M
    records, 50 EM rounds first made the bootstrap 2.3x slower, none of them converging);
    beyond, :data:`WARM_UP_ROUNDS` EM rounds go first and Newton takes the tables still short
    of ``gap``.
    """
    tables = np.atleast_2d(tables)
    rounds = 0 if Q.shape[0] <= NEWTON_FIRST_INPUTS else WARM_UP_ROUNDS
    warm = em_batch(Q, tables, gap, rounds, start)
    late = ~warm.converged
    if not late.any():
        return warm
    fit = newton_batch(Q, tables[late], warm.estimates[late], gap)
    estimates, converged, gaps = warm.estimates.copy(), warm.converged.copy(), warm.gaps.copy()
    estimates[late], converged[late], gaps[late] = fit.estimates, fit.converged, fit.gaps
    return BatchEM(estimates, warm.iterations + fit.iterations, converged, gaps)


@dataclass(frozen=True)
class EstimateTable:
    """The estimate of every target coordinate, with intervals and what was not estimable."""

    frame: pd.DataFrame
    converged: bool
    iterations: int
    draws: int
    level: float


def estimate(Q: np.ndarray, counts: np.ndarray, target: Target, verdict: Identifiability,
             draws: int = BOOTSTRAP_DRAWS, level: float = LEVEL,
             seed: int | None = None) -> EstimateTable:
    """Estimate the identifiable coordinates of ``target`` from output ``counts``.

    Parameters
    ----------
    Q : ndarray, shape (|X|, |Y|)
        The channel.
    counts : ndarray, shape (|Y|,)
        Released outputs' counts.
    target, verdict
        The target and its identifiability verdict.
    draws, level, seed
        Bootstrap tables, interval level and the bootstrap's seed.
    """
    n = int(counts.sum())
    used = Q.sum(axis=0) > 0
    Q, counts = Q[:, used], counts[used]
    fit = point_estimate(Q, counts / n)
    point = fit.estimates[0]
    inversion = simplex_least_squares(Q, counts / n)
    rng = np.random.default_rng(seed)
    law = np.clip(point @ Q, 0.0, None)
    tables = rng.multinomial(n, law / law.sum(), size=draws) / n
    boot_em = refit(Q, tables, point, BOOTSTRAP_PRECISION**2 / (2 * n))
    boot_inv = simplex_least_squares(Q, tables)
    quantiles = [(1 - level) / 2, (1 + level) / 2]
    em_low, em_high = np.quantile(target.of(boot_em.estimates), quantiles, axis=0)
    inv_low, inv_high = np.quantile(target.of(boot_inv), quantiles, axis=0)
    ok = np.array(verdict.estimable)
    hide = np.where(ok, 1.0, np.nan)
    frame = pd.DataFrame({
        "target": target.names, "estimable": ok,
        "em": target.of(point) * hide, "em_low": em_low * hide,
        "em_high": em_high * hide,
        "inversion": target.of(inversion[0]) * hide, "inversion_low": inv_low * hide,
        "inversion_high": inv_high * hide, "reason": list(verdict.reasons)})
    converged = bool(fit.converged.all() and boot_em.converged.mean() >= 0.99)
    return EstimateTable(frame, converged, fit.iterations, draws, level)


def released_counts(path: str | Path, outputs: list[str],
                    column: str = RELEASED_COLUMN) -> tuple[np.ndarray, bool]:
    """Counts of every output (label texts ``outputs``) in the released CSV ``path``, and
    whether the file is marked not for release (its ``#`` first line). The comment lines
    before the header (:mod:`rldp_models.disclosure.records`) are skipped.

    Raises
    ------
    InputError
        Unreadable file, no ``column``, or values that are not outputs of the channel.
    """
    header = released_header(path)
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, skiprows=header.lines,
                            usecols=lambda name: name == column)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError,
            pd.errors.EmptyDataError) as exc:
        raise InputError(f"{path}: cannot read released records "
                         f"({' '.join(str(exc).split())})") from None
    if column not in frame.columns:
        raise InputError(f"{path}: no column {column!r} (the released values)")
    return output_counts(frame[column], outputs, str(path)), header.not_for_release


def output_counts(values: pd.Series, outputs: list[str], source: str) -> np.ndarray:
    """Counts of every output (label texts ``outputs``) among the released ``values`` (compared
    as text, as released files write them); ``source`` names them in errors.

    Raises
    ------
    InputError
        No values, or values that are not outputs of the channel.
    """
    codes = pd.Index(outputs).get_indexer(pd.Index(values.astype(str)))
    if np.any(codes < 0):
        unknown = values[codes < 0].iloc[0]
        raise InputError(f"{source}: {int(np.sum(codes < 0))} released values are not outputs "
                         f"of the result (first: {unknown!r}); was it released with another "
                         "result?")
    if codes.size == 0:
        raise InputError(f"{source}: no released records")
    return np.bincount(codes, minlength=len(outputs))


MAX_FIGURE_INCHES = 30.0
"""Widest estimate figure; beyond it the coordinates' labels shrink instead (PNG stays openable)."""


def plot_estimate(frame: pd.DataFrame, path: str | Path, title: str = "",
                  level: float = 0.95) -> None:
    """Each estimable coordinate: EM and projected inversion with ``level`` intervals, and the
    truth. With nothing estimable the figure says so instead of showing empty axes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = frame[frame["estimable"]]
    width = min(MAX_FIGURE_INCHES, max(8.0, 0.7 * len(shown) + 2))
    figure, axes = plt.subplots(figsize=(width, 4))
    missing = int((~frame["estimable"]).sum())
    axes.set_title(title + (f" ({missing} not estimable, not shown)" if missing else ""))
    if shown.empty:
        axes.text(0.5, 0.5, "no coordinate of the target is estimable from this release\n"
                  "(see the reason column of the CSV)", ha="center", va="center",
                  transform=axes.transAxes)
        axes.set_axis_off()
    else:
        _plot_intervals(axes, shown, level)
    figure.tight_layout()
    try:
        save_figure(figure, path, dpi=120)
    finally:
        plt.close(figure)


def _plot_intervals(axes: Axes, shown: pd.DataFrame, level: float) -> None:
    x = np.arange(len(shown))
    for offset, method, colour in ((-0.12, "em", "tab:blue"),
                                   (0.12, "inversion", "tab:orange")):
        values = shown[method].to_numpy()
        errors = np.vstack([values - shown[f"{method}_low"], shown[f"{method}_high"] - values])
        axes.errorbar(x + offset, values, yerr=np.clip(errors, 0, None), fmt="o", capsize=3,
                      color=colour, label="EM" if method == "em" else "projected inversion")
    if "truth" in shown:
        axes.scatter(x, shown["truth"], marker="x", color="black", zorder=3, label="truth")
    fits = 0.7 * len(shown) + 2 <= MAX_FIGURE_INCHES
    axes.set_xticks(x, shown["target"], rotation=35 if fits else 90, ha="right" if fits else
                    "center", fontsize=None if fits else 5)
    axes.set_ylabel(f"estimate ({level:.0%} bootstrap interval)")
    axes.legend()
