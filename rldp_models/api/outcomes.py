"""What the Python calls of :mod:`rldp_models.api` return: results that describe themselves.

Every outcome has :meth:`Outcome.summary` (the lines the command line prints)
and ``_repr_html_`` (a notebook shows the protocol as a labelled heatmap, the
guarantees with their verdicts and the proven optimality gap, or the table).
Secrets and outputs are named by their labels, never by an index.

The HTML is plain, with inline styles (no JavaScript, no matplotlib), so a result
shows in Jupyter, VS Code and GitHub's notebook viewer alike, and building it costs
no plotting import. A protocol larger than :data:`MAX_HEATMAP_CELLS` is shown by
its first rows and columns, with a line saying how many were left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import json

import numpy as np

from rldp_models.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from rldp_models.certificates.verdict import VerificationReport
    from rldp_models.results.certified import CertifiedResult


class Outcome:
    """Base of every outcome: ``repr`` is the summary, a notebook shows the HTML."""

    def summary(self) -> str:
        """The lines the command line prints."""
        raise NotImplementedError

    def _repr_html_(self) -> str:
        return html_lines(self.summary())

    def __repr__(self) -> str:
        return self.summary()


@dataclass(frozen=True, repr=False)
class Protocol(Outcome):
    """A certified protocol or mechanism (:class:`~rldp_models.results.certified.CertifiedResult`).

    Attributes
    ----------
    result : CertifiedResult
        The record's content; :meth:`write` writes it for ``rldp verify``.
    """

    result: "CertifiedResult"

    @property
    def holds(self) -> bool:
        """Whether every guarantee holds (the exact verdicts)."""
        return self.result.holds

    @property
    def gap(self) -> dict[str, Any] | None:
        """The proven optimality claim (``lower``, ``upper``, ``relative_gap``), if any."""
        claim = self.result.certificate.get("optimality")
        return claim if isinstance(claim, dict) and claim.get("claimed") else None

    def to_frame(self) -> "pd.DataFrame":
        """``P(y | x)`` with labels: one row per input (``S``, ``U`` levels over a crosstab),
        one column per output.

        Raises
        ------
        InputError
            For a product protocol too large for a dense matrix.
        """
        import pandas as pd

        if self.result.matrix is None:
            raise InputError("this product protocol is too large for a dense matrix; its "
                             "factors are in result.product")
        matrix = np.asarray(self.result.matrix, dtype=float)
        pairs = [(label_text(x[0]), label_text(x[1])) for x in self.result.inputs
                 if isinstance(x, (list, tuple)) and len(x) == 2]
        index = pd.MultiIndex.from_tuples(pairs, names=["S", "U"]) \
            if len(pairs) == len(self.result.inputs) else \
            pd.Index([label_text(x) for x in self.result.inputs], name="X")
        columns = pd.Index([label_text(y) for y in self.result.outputs] or
                           [str(j) for j in range(matrix.shape[1])], name="Y")
        return pd.DataFrame(matrix, index=index, columns=columns)

    def guarantees(self) -> "pd.DataFrame":
        """One row per guarantee: ``notion``, ``eps``, ``holds`` (exact), ``block``, ``source``,
        ``detail``."""
        import pandas as pd

        return pd.DataFrame([{"notion": g.notion, "eps": g.eps, "holds": g.holds,
                              "covers": self.covers(g.block), "block": g.block,
                              "source": g.source, "detail": g.detail}
                             for g in self.result.guarantees],
                            columns=["notion", "eps", "holds", "covers", "block", "source",
                                     "detail"])

    def covers(self, block: str | None) -> str:
        """What the guarantee of ``block`` covers: ``"all"``, or its ordered secret pairs and
        outputs by label (a block declared with ``pairs=``/``outputs=``)."""
        blocks = self.result.declaration.blocks
        parameters: dict[str, Any] = next((b.get("parameters", {}) for b in blocks
                                           if b.get("parameters", {}).get("name") == block), {})
        pairs, outputs = parameters.get("pairs"), parameters.get("outputs")
        if pairs is None and outputs is None:
            return "all"
        crosstab = self.result.crosstab
        secrets = crosstab.s_labels if crosstab is not None else None
        named = []
        if pairs is not None:
            named.append("pairs " + ", ".join(
                f"({secrets[a]}, {secrets[b]})" if secrets else f"({a}, {b})"
                for a, b in pairs))
        if outputs is not None:
            labels = [label_text(y) for y in self.result.outputs]
            named.append("outputs " + ", ".join(labels[y] if y < len(labels) else str(y)
                                                 for y in outputs))
        return "; ".join(named)

    def write(self, path: str | Path, embed_counts: bool = True) -> None:
        """Write the record (refused, no file, when a guarantee fails)."""
        from rldp_models.results.files import write_result

        write_result(self.result, path, embed_counts=embed_counts)

    def summary(self) -> str:
        return "\n".join([self._headline(), *self._guarantee_lines(), *self._gap_lines()])

    def _headline(self) -> str:
        value = self.result.value
        return (f"{self.result.declaration.name}: {value.get('measure', 'value')} "
                f"{float(value.get('value', float('nan'))):.6g}")

    def _guarantee_lines(self) -> list[str]:
        return [f"  {g.notion} eps = {g.eps:g}: {'holds' if g.holds else 'FAILS'}"
                + ("" if self.covers(g.block) == "all" else f" (only {self.covers(g.block)})")
                for g in self.result.guarantees]

    def _gap_lines(self) -> list[str]:
        claim = self.gap
        if claim is None:
            return []
        return [f"  proven optimal within {claim['relative_gap']:.3g} (relative; lower bound "
                f"{claim['lower']:.10g}, upper {claim['upper']:.10g})"]

    def _repr_html_(self) -> str:
        parts = [html_lines(self.summary())]
        if self.result.matrix is not None:
            frame = self.to_frame()
            rows = [" / ".join(x) if isinstance(x, tuple) else str(x) for x in frame.index]
            parts.append(html_heatmap(frame.to_numpy(), rows, list(frame.columns),
                                      "P(y | input): rows are inputs, columns outputs"))
        parts.append(html_table(self.guarantees(), "guarantees (exact verdicts)"))
        return "".join(parts)


@dataclass(frozen=True, repr=False)
class Solved(Protocol):
    """A solved program: the certified protocol and how the solve went.

    Attributes
    ----------
    status : str
        The solver's status.
    objective : float
    solver : str
    wall_seconds, cpu_seconds : float
        The whole solve (building, solving, finishing and certifying), as
        measured around it: wall clock and this process's CPU (all threads).
    solver_seconds : float
        The solver's own build and solve time.
    checks : tuple of str
        Each exact check's line, secrets and outputs named by label.
    repair : str or None
        What the repair did, in words.
    """

    status: str = ""
    objective: float = float("nan")
    solver: str = ""
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    solver_seconds: float = 0.0
    checks: tuple[str, ...] = ()
    repair: str | None = None

    def summary(self) -> str:
        head = (f"{self.result.declaration.name}: {self.status}, objective "
                f"{self.objective:.6g} ({self.solver}; whole solve {self.wall_seconds:.2f} s "
                f"wall, {self.cpu_seconds:.2f} s CPU; the solver's own {self.solver_seconds:.2f}"
                " s wall)")
        lines = [head, *(f"  {line}" for line in self.checks)]
        if self.repair is not None:
            lines.append(f"  repaired: {self.repair}")
        return "\n".join([*lines, *self._gap_lines()])


@dataclass(frozen=True, repr=False)
class Verification(Outcome):
    """Both verdicts of ``rldp verify`` on a record, and the counts they were checked against.

    Attributes
    ----------
    report : VerificationReport
    counts_digest : str or None
        The SHA-256 digest of the counts used (None for a mechanism without counts).
    counts_given : bool
        Whether the counts were given (else embedded in the record).
    """

    report: "VerificationReport"
    counts_digest: str | None = None
    counts_given: bool = False

    @property
    def holds(self) -> bool:
        return self.report.holds

    @property
    def fails(self) -> bool:
        return self.report.fails

    @property
    def exit_code(self) -> int:
        """``rldp verify``'s exit code: 0 both hold, 1 one fails, 3 inconclusive."""
        return 0 if self.holds else 1 if self.fails else 3

    def summary(self) -> str:
        head = [] if self.counts_digest is None else [
            f"counts: {self.counts_digest} "
            f"({'given' if self.counts_given else 'embedded in the record'})"]
        return "\n".join([*head, *self.report.lines()])

    def _repr_html_(self) -> str:
        colour = {0: "#2a7a2a", 1: "#b00020", 3: "#a06000"}[self.exit_code]
        verdict = {0: "verified", 1: "FAILS", 3: "inconclusive"}[self.exit_code]
        return f"<p style='color:{colour}'><b>{verdict}</b></p>" + html_lines(self.summary())


@dataclass(frozen=True, repr=False)
class Table(Outcome):
    """A table outcome (compare, compare_solvers, coverage): :meth:`to_frame` and text.

    Attributes
    ----------
    table : pandas.DataFrame
    title : str
        The line printed above the table.
    text : str
        The table as the command line prints it.
    """

    table: "pd.DataFrame"
    title: str = ""
    text: str = ""

    def to_frame(self) -> "pd.DataFrame":
        return self.table.copy()

    def summary(self) -> str:
        return "\n".join(line for line in (self.title, self.text) if line)

    def _repr_html_(self) -> str:
        return html_table(self.table, self.title)


@dataclass(frozen=True, repr=False)
class Released(Outcome):
    """Released records: in memory (:meth:`to_frame`) or written to ``out``.

    Attributes
    ----------
    records : int
    seeded : bool
        Drawn with a seeded generator: not for release.
    name : str
        The result's name (``RURP``, ``grr-cr``, ...).
    frame : pandas.DataFrame or None
        The released frame (in-memory release).
    out : Path or None
        The file written (CSV release).
    checked : str
        What was re-checked before releasing.
    """

    records: int
    seeded: bool
    name: str
    frame: "pd.DataFrame | None" = None
    out: Path | None = None
    checked: str = ""

    def to_frame(self) -> "pd.DataFrame":
        """The released records (read back from ``out`` for a CSV release)."""
        import pandas as pd

        if self.frame is not None:
            return self.frame
        assert self.out is not None
        return pd.read_csv(self.out, comment="#", dtype=str, keep_default_na=False)

    def summary(self) -> str:
        marked = " (seeded: NOT FOR RELEASE)" if self.seeded else ""
        lines = [f"released {self.records} records with {self.name}{marked}"]
        if self.out is not None:
            lines.append(f"  wrote {self.out}")
        return "\n".join(lines)


def label_text(label: Any) -> str:
    """A label as text: a string as is, anything else (an ``[s, u]`` pair) as JSON, as
    released files write it (:func:`rldp_models.disclosure.channel.label_text`)."""
    if isinstance(label, str):
        return label
    return json.dumps(label, ensure_ascii=False, separators=(",", ":"))


MAX_HEATMAP_ROWS = 40
MAX_HEATMAP_COLUMNS = 30
MAX_HEATMAP_CELLS = MAX_HEATMAP_ROWS * MAX_HEATMAP_COLUMNS


def html_heatmap(matrix: np.ndarray, rows: Sequence[str], columns: Sequence[str],
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


def html_table(frame: "pd.DataFrame", caption: str = "") -> str:
    """A DataFrame as a compact HTML table (pandas' own rendering) under a caption."""
    title = f"<p><b>{escape(caption)}</b></p>" if caption else ""
    return title + frame.to_html(index=False, na_rep="n/a", float_format=lambda v: f"{v:.4g}",
                                 border=0)


def html_lines(text: str) -> str:
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
