"""The files of one experiment run: ``<id>.csv``, ``<id>.png``, ``<id>.svg``, ``<id>.md``.

The CSV holds the raw table (one row per instance and method, with its seed);
the PNG (100 dpi, small enough to commit) and SVG are the experiment's figure,
saved without time stamps so reruns give the same files; the Markdown summary
states the paper's claim, the finding, each claim with what was measured and its verdict
(reproduced, not reproduced, not resolved at this size), the sizes,
the wall time, the executor and the versions of the main packages.
"""

from __future__ import annotations

import platform
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING

from rldp_models import safe_io

if TYPE_CHECKING:
    from rldp_models.experiments.base import Finding, RunResult

PNG_DPI = 100
"""Resolution of the PNG figures (the gallery commits them)."""

VERSIONED_PACKAGES = ("rldp-models", "numpy", "scipy", "pandas", "cvxpy", "clarabel",
                      "matplotlib")
"""Packages whose versions the summary records."""


def write_outputs(result: "RunResult", out: Path) -> dict[str, Path]:
    """Write the four files of ``result`` under ``out`` and return their paths by suffix."""
    out.mkdir(parents=True, exist_ok=True)
    stem = out / result.experiment.id
    paths = {suffix: stem.with_suffix(f".{suffix}") for suffix in ("csv", "png", "svg", "md")}
    with safe_io.atomic_output(paths["csv"], newline="") as handle:
        result.table.to_csv(handle, index=False)
    save_figure(result, paths["png"], paths["svg"])
    safe_io.write_text(paths["md"], summary_markdown(result))
    return paths


def save_figure(result: "RunResult", png: Path, svg: Path) -> None:
    """Draw ``experiment.plot(table)`` and save it as PNG and SVG without time stamps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context({"svg.hashsalt": result.experiment.id}):
        figure = result.experiment.plot(result.table)
        try:
            safe_io.save_figure(figure, png, dpi=PNG_DPI, metadata={"Software": None})
            safe_io.save_figure(figure, svg, metadata={"Date": None})
        finally:
            plt.close(figure)


def summary_markdown(result: "RunResult") -> str:
    """The Markdown summary of a run."""
    experiment, finding = result.experiment, result.finding
    form = "quick (CI)" if result.quick else "full (paper's sizes)"
    lines = [
        f"# {experiment.id}: {experiment.title}",
        "",
        f"- Paper: {experiment.paper}",
        f"- Paper's claim: {experiment.claim}",
        f"- Verdicts: {verdict_counts(finding)}",
        "",
        "## Finding",
        "",
        finding.text,
        "",
        "## Claims",
        "",
        *claims_table(finding),
        "",
        "## Run",
        "",
        f"- Form: {form}",
        f"- Sizes: {result.table['task'].nunique() if len(result.table) else 0} tasks, "
        f"{len(result.table)} rows",
        f"- Wall time of the tasks: {result.seconds:.1f} s",
        f"- Executor: {result.executor.label}",
        f"- Versions: {versions()}",
        "",
    ]
    return "\n".join(lines)


def verdict_counts(finding: "Finding") -> str:
    """``3 reproduced, 1 not reproduced, 0 not resolved at this size``."""
    return ", ".join(f"{count} {verdict}" for verdict, count in finding.counts.items())


def claims_table(finding: "Finding") -> list[str]:
    """Markdown rows: the paper's claim, what was measured, the verdict and its reason."""
    def cell(text: str) -> str:
        return text.replace("|", r"\|")

    return ["| paper's claim | measured | verdict |", "|---|---|---|",
            *[f"| {cell(c.claim)} | {cell(c.measured) or 'see the finding'} | "
              f"**{c.verdict.value}**{': ' + cell(c.reason) if c.reason else ''} |"
              for c in finding.claims]]


def versions() -> str:
    """``python 3.x, rldp-models 0.1.0, numpy ...`` for the packages that are installed."""
    found = [f"python {platform.python_version()}"]
    for package in VERSIONED_PACKAGES:
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            continue
    return ", ".join(found)
