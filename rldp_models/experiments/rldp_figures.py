"""Plots and table summaries shared by the RLDP paper's experiments (:mod:`.rldp_paper`).

Every figure of Sec. VIII of ``rldp-privacy-utility-tradeoff.txt`` plots a
utility averaged over the drawn distributions against ``eps`` (horizontal
axis "eps-LDP", vertical axis ``I(X;Y)/H(X)``), one line per protocol (or per
``alpha`` in Fig. 8), one panel per instance shape or parameter.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.artist import Artist  # noqa: E402
import pandas as pd  # noqa: E402

from rldp_models.experiments.rldp_methods import COLOURS, LABELS  # noqa: E402

TOLERANCE = 1e-8
"""Slack when comparing utilities ``I/H(X)`` the toolkit computed: above the precision of the
least precise of them, far below any effect the paper describes.

* PolyOpt's protocol is certified optimal up to its dual certificate
  (:data:`~rldp_models.conelp.engine.CERTIFICATE_TOLERANCE`: relative duality gap and dual
  infeasibility per unit mass 1e-9): its ``I/H(X)`` lay up to 5.0e-9 below the certified
  bound on 3x3 Jeffreys instances at eps 8 (3e-16 to 9e-14 at eps 0.5).
* IR's and GRR-CR's ``eps_2`` search
  (:func:`~rldp_models.rldp_protocols.components.maximise_on_interval`) evaluates the end
  points exactly and stops Brent's bounded search within ``2 (sqrt(eps_mach) eps_2 +
  xatol / 3) <= 2.4e-7`` (eps <= 8) of an interior maximiser, where the utility is flat to
  second order: ``|f''| Delta^2 / 2 <= 3e-15`` with ``|f''| <= 0.093`` (per nat^2 of
  ``I/H(X)``), the largest over rldp-fig8's 200 full-form instances, 11 eps, alpha 1e-4 and
  0.1; there the default search and a 401-point grid refined to ``xatol = 1e-14`` agree
  within 3.3e-16 (``tests/experiments/test_rldp_verdicts.py`` checks it against brute force).
* UE-CR's Powell search stops at a relative change ``ftol = 1e-12``; rounding of a mutual
  information adds ~1e-15.
* The uniform mix that keeps the guarantees strict in doubles
  (:func:`~rldp_models.rldp_protocols.components.with_privacy_margin`) lowers a utility by at
  most ``theta I``, ``theta <= 1e-10 m / (1 - e^-eps)``: the same for one method at one eps and
  shape, and across methods a real (tiny) difference of the returned protocols.

The smallest real effect a verdict rests on is 3.6e-6 (Fig. 6's closest pair of different
utilities); IR's change with alpha on rldp-fig8's seed 25 is 3.6e-4 to 4.9e-4."""


def mean_curves(table: pd.DataFrame, keys: Sequence[str], value: str = "normalised"
                ) -> pd.Series:
    """``value`` averaged over the seeds, indexed by ``(*keys, eps)``."""
    return table.groupby([*keys, "eps"])[value].mean()


def panel_figure(table: pd.DataFrame, panel: Sequence[str], line: str, value: str,
                 ylabel: str, legend: dict[str, str] | None = None) -> plt.Figure:
    """One panel per value of ``panel``, one line per value of ``line``, mean ``value`` vs eps.

    The legend sits below the panels, never over the data.
    """
    means = mean_curves(table, [*panel, line], value).reset_index()
    groups = list(means.groupby(list(panel), sort=True)) if panel else [((), means)]
    columns = min(4, len(groups))
    rows = math.ceil(len(groups) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(3.6 * columns, 3.0 * rows),
                                squeeze=False)
    for ax, (key, group) in zip(axes.flat, groups):
        names = legend or LABELS
        present = set(group[line])
        for name in [k for k in names if k in present] + sorted(present - set(names)):
            curve = group[group[line] == name]
            label = names.get(name, str(name))
            ax.plot(curve.eps, curve[value], marker=".", label=label,
                    color=COLOURS.get(name))
        key = key if isinstance(key, tuple) else (key,)
        ax.set_title(", ".join(LABELS[str(v)] if k == "method" else f"{k} = {v}"
                               for k, v in zip(panel, key)), fontsize=9)
        ax.set_xlabel("ε (ε-LDP)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(groups):]:
        ax.set_visible(False)
    entries: dict[str, Artist] = {}
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    order = list((legend or LABELS).values())
    labels = sorted(entries, key=lambda k: order.index(k) if k in order else len(order))
    legend_rows = math.ceil(len(labels) / 6)
    figure.legend([entries[k] for k in labels], labels, loc="lower center",
                  ncol=min(6, len(labels)), fontsize=9, frameon=False)
    figure.tight_layout(rect=(0, 0.35 * legend_rows / figure.get_figheight(), 1, 1))
    return figure


def winners(table: pd.DataFrame, keys: Sequence[str]) -> pd.Series:
    """The method with the highest mean normalised utility at each ``(*keys, eps)``."""
    means = mean_curves(table, [*keys, "method"]).dropna()
    return means.groupby(level=[*range(len(keys)), len(keys) + 1]).idxmax().map(
        lambda index: index[len(keys)])


def best_of(means: pd.Series, method: str, others: Sequence[str]) -> bool:
    """True when ``method``'s mean is at least every other's (``means`` indexed by method)."""
    rivals = [means[m] for m in others if m in means and m != method and not math.isnan(means[m])]
    return all(means[method] >= r - TOLERANCE for r in rivals)


def first_winning_eps(means: pd.DataFrame, method: str) -> float:
    """Smallest eps from which ``method`` stays best, ties within :data:`TOLERANCE` included
    (``means``: eps rows, method columns)."""
    best = means.apply(lambda row: best_of(row, method, list(means.columns)), axis=1)
    tail = best[::-1].cummin()[::-1]
    return float(tail[tail].index.min()) if tail.any() else math.inf


def format_means(means: pd.Series) -> str:
    """A compact ``key: value`` listing for summaries."""
    return "; ".join(f"{k}: {v:.3g}" for k, v in means.items())
