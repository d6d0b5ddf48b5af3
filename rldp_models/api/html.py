"""Notebook display of results: a protocol as a labelled heatmap, tables as styled HTML.

Plain HTML with inline styles (no JavaScript, no matplotlib), so a result shows
in Jupyter, VS Code and GitHub's notebook viewer alike, and building it costs
no plotting import. A protocol larger than :data:`MAX_HEATMAP_CELLS` is shown by
its first rows and columns, with a line saying how many were left out.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

MAX_HEATMAP_ROWS = 40
MAX_HEATMAP_COLUMNS = 30
MAX_HEATMAP_CELLS = MAX_HEATMAP_ROWS * MAX_HEATMAP_COLUMNS


def heatmap(matrix: np.ndarray, rows: Sequence[str], columns: Sequence[str],
            caption: str) -> str:
    """``matrix`` as an HTML table whose cells are shaded by value in [0, 1]."""
    shown = matrix[:MAX_HEATMAP_ROWS, :MAX_HEATMAP_COLUMNS]
    head = "".join(f"<th style='{_HEAD}'>{escape(str(c))}</th>"
                   for c in columns[:MAX_HEATMAP_COLUMNS])
    body = []
    for label, values in zip(rows[:MAX_HEATMAP_ROWS], shown):
        cells = "".join(_cell(float(v)) for v in values)
        body.append(f"<tr><th style='{_HEAD}'>{escape(str(label))}</th>{cells}</tr>")
    left = _left_out(matrix.shape, shown.shape)
    return (f"<table style='border-collapse:collapse;font-size:11px'>"
            f"<caption style='caption-side:top;text-align:left'>{escape(caption)}</caption>"
            f"<tr><th></th>{head}</tr>{''.join(body)}</table>{left}")


def frame_table(frame: "pd.DataFrame", caption: str = "") -> str:
    """A DataFrame as a compact HTML table (pandas' own rendering) under a caption."""
    title = f"<p><b>{escape(caption)}</b></p>" if caption else ""
    return title + frame.to_html(index=False, na_rep="n/a", float_format=lambda v: f"{v:.4g}",
                                 border=0)


def lines(text: str) -> str:
    """Text lines as a preformatted block."""
    return f"<pre style='margin:0'>{escape(text)}</pre>"


_HEAD = "padding:2px 4px;text-align:right;font-weight:normal"


def _cell(value: float) -> str:
    light = int(round(255 - 200 * min(max(value, 0.0), 1.0)))
    ink = "#fff" if value > 0.6 else "#000"
    return (f"<td title='{value:.6g}' style='background:rgb({light},{light},255);color:{ink};"
            f"padding:2px 4px;text-align:right'>{value:.2f}</td>")


def _left_out(full: tuple[int, ...], shown: tuple[int, ...]) -> str:
    if full == shown:
        return ""
    return (f"<p><i>showing {shown[0]} of {full[0]} inputs and {shown[1]} of {full[1]} "
            "outputs; to_frame() has them all</i></p>")
