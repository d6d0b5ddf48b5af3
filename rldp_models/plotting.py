"""Figures: the eps*-against-D* scatter of Fig. 2a/2b of the robust-optimization paper."""

from __future__ import annotations

from pathlib import Path
from typing import IO, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PROGRAM_STYLE = {"NUNP": ("tab:red", "o"), "NURP": ("tab:blue", "s"),
                 "RUNP": ("tab:orange", "^"), "RURP": ("tab:green", "D")}


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
