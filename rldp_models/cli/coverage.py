"""``rldp coverage``: how often does the uncertainty set hold the truth, on this table?

Simulates tables of ``n`` records from a reference distribution (``phat``: the
table's own; ``dirichlet``: draws from the Jeffreys posterior
``Dirichlet(N + 1/2)``), builds each set around every simulated table exactly as
the toolkit does, and prints how often the reference lies inside, with a
Clopper-Pearson interval, per set, reference and ``n``
(:mod:`rldp_models.uncertainty.coverage`). ``--out`` writes the table as CSV
and, beside it (or at ``--plot``), the figure as PNG.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from rldp_models.cli.common import (add_data_arguments, load_crosstab, positive_count, seed,
                                     whole_number)
from rldp_models.cli import ExitCode
from rldp_models.errors import InputError
from rldp_models.executors import SPECS
from rldp_models.safe_io import atomic_output, save_figure


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("coverage", help="simulated coverage of the uncertainty sets",
                                   description=__doc__)
    add_data_arguments(parser)
    parser.add_argument("--alpha", default="0.05", metavar="A[,A...]",
                        help="significance level(s) of the sets (default 0.05)")
    parser.add_argument("--uncertainty", default="chi2,kl,tv,box", metavar="SET[,SET...]",
                        help="sets to study (default chi2,kl,tv,box)")
    parser.add_argument("--draws", type=draw_count, default=10_000, metavar="N",
                        help="simulated tables per n and reference (default 10000, at most "
                             f"{MAX_DRAWS:,})")
    parser.add_argument("--seed", type=seed, default=0, metavar="S", help="seed (default 0)")
    parser.add_argument("--reference", default="phat,dirichlet", metavar="R[,R...]",
                        help="phat, dirichlet (Jeffreys posterior) and/or jeffreys (the prior, "
                             "whatever the table; default phat,dirichlet)")
    parser.add_argument("--n", default=None, metavar="N[,N...]",
                        help="records per simulated table (default: the table's n)")
    parser.add_argument("--radius-from", choices=("asymptotic", "bootstrap"),
                        default="asymptotic",
                        help="radius of each simulated table's set: the chi-square quantile "
                             "(default) or a bootstrap recalibrated on every simulated table")
    parser.add_argument("--inner-draws", type=positive_count, default=500, metavar="N",
                        help="bootstrap tables per simulated table with --radius-from "
                             "bootstrap (default 500)")
    parser.add_argument("--confidence", type=float, default=0.95, metavar="C",
                        help="level of the Clopper-Pearson interval (default 0.95)")
    parser.add_argument("--executor", default="serial", metavar="SPEC",
                        help=f"one of {', '.join(SPECS)} (default serial)")
    parser.add_argument("--workers", type=int, metavar="N", help="worker processes")
    parser.add_argument("--out", metavar="FILE.csv", help="write the table as CSV")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="write the figure (default: beside --out, as .png)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rldp_models.api import coverage

    outcome = coverage(load_crosstab(args), alpha=number_list(args.alpha, float, "--alpha"),
                       uncertainty=text_list(args.uncertainty), draws=args.draws,
                       seed=args.seed, reference=text_list(args.reference),
                       n=number_list(args.n, int, "--n") if args.n else None,
                       radius_from=args.radius_from, inner_draws=args.inner_draws,
                       confidence=args.confidence, executor=args.executor,
                       workers=args.workers)
    print(outcome.text)
    png = args.plot or (str(Path(args.out).with_suffix(".png")) if args.out else None)
    with atomic_output(args.out, newline="") if args.out else contextlib.nullcontext() as handle:
        if handle is not None:
            outcome.table.to_csv(handle, index=False)
        if png:  # written before the CSV is renamed into place: both, or neither
            write_plot(outcome.table, png)
    for path in (args.out, png):
        if path:
            sys.stderr.write(f"rldp: wrote {path}\n")
    return ExitCode.OK


MAX_DRAWS = 10_000_000
"""The most simulated tables ``--draws`` takes (a larger count runs for days)."""


def draw_count(text: str) -> int:
    """An argparse type: ``--draws``, a whole number from 1 to :data:`MAX_DRAWS`."""
    return whole_number(text, 1, MAX_DRAWS)


def number_list(text: str, kind: type, option: str) -> list:
    """``"0.01,0.05"`` as numbers; a one-line :class:`InputError` if one is not."""
    try:
        return [kind(item) for item in text_list(text)]
    except ValueError:
        raise InputError(f"{option} takes comma-separated numbers, got {text!r}") from None


def text_list(text: str) -> list[str]:
    """``"a, b"`` as ``["a", "b"]``."""
    return [item.strip() for item in text.split(",") if item.strip()]


def write_plot(table, path: str) -> None:
    """The figure of :func:`rldp_models.experiments.coverage.plot_coverage` as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rldp_models.experiments.coverage import plot_coverage

    figure = plot_coverage(table)
    try:
        save_figure(figure, path, dpi=100, metadata={"Software": None})
    finally:
        plt.close(figure)
