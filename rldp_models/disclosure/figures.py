"""The figures of ``rldp estimate`` and ``rldp compare``."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from rldp_models.errors import InputError  # noqa: E402
from rldp_models.safe_io import save_figure  # noqa: E402


def figure_path(out: str, plot: str | None = None) -> Path:
    """Where the PNG of a table written to ``out`` goes: ``plot``, else beside ``out``.

    Checked before any work, so that a bad path is one line and not a late failure
    after the table was written.

    Raises
    ------
    InputError
        The path does not end in ``.png``, is ``out`` itself (``--out table.png``
        would be overwritten by its figure), or lies in a directory that does not exist.
    """
    png = Path(plot) if plot else Path(out).with_suffix(".png")
    option = "--plot" if plot else "the PNG beside --out"
    if png.suffix.lower() != ".png":
        raise InputError(f"{option} {png}: a figure name must end in .png")
    if png.resolve() == Path(out).resolve():
        raise InputError(f"{option} {png} is the --out table itself; give --out a .csv name")
    if not png.resolve().parent.is_dir():
        raise InputError(f"{option} {png}: directory {png.parent} does not exist "
                         "(create it first)")
    return png


MAX_FIGURE_INCHES = 30.0
"""Widest estimate figure; beyond it the coordinates' labels shrink instead (PNG stays openable)."""


def plot_estimate(frame: pd.DataFrame, path: str | Path, title: str = "",
                  level: float = 0.95) -> None:
    """Each estimable coordinate: EM and projected inversion with ``level`` intervals, and the
    truth. With nothing estimable the figure says so instead of showing empty axes."""
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


def _plot_intervals(axes: plt.Axes, shown: pd.DataFrame, level: float) -> None:
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

