"""``rldp compare-solvers PROBLEM``: solve one model with every available solver and compare.

Each solver that accepts the model solves a fresh copy of it; those that cannot
(a conic model for an LP solver, MOSEK without a licence) are listed with the
reason. The default solver goes first; each other solver may take ``--budget``
seconds of solving (default: 20x the default's time, at least 10 s), one line on
stderr says so. The printed table is at most 100 characters wide (status and
proven gaps; differences against the reference; bounds; then each solver's
note) unless ``--wide``. Columns: :mod:`rldp_models.api.solver_comparison`;
Python: ``rldp_models.compare_solvers``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rldp_models.cli.common import load_crosstab
from rldp_models.cli.preflight import seconds
from rldp_models.cli.solve import add_program_arguments, program_options
from rldp_models.errors import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("compare-solvers", help="solve one model with every solver",
                                   description=__doc__)
    add_program_arguments(parser)
    parser.add_argument("--reference", default=None,
                        help="solver the others are compared with (default: the first that "
                             "solves, preferring clarabel)")
    parser.add_argument("--out", default=None, metavar="FILE.csv|FILE.json",
                        help="also write the table (format from the suffix)")
    parser.add_argument("--budget", type=seconds, default=None, metavar="SECONDS",
                        help="seconds of solving each solver after the default may take "
                             "(default: 20x the default solver's time, at least 10 s); a "
                             "solver stopped there says so")
    parser.add_argument("--wide", action="store_true",
                        help="print every column on one line (wider than 100 characters)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rldp_models.api.solver_comparison import compare_solvers

    if args.out is not None and Path(args.out).suffix.lower() not in (".csv", ".json"):
        raise InputError(f"--out must end in .csv or .json, got {args.out!r}")
    outcome = compare_solvers(args.problem, load_crosstab(args), **program_options(args),
                              reference=args.reference, budget=args.budget,
                              announce=not getattr(args, "quiet", False))
    print(outcome.summary(wide=args.wide))
    if args.out is not None:
        outcome.write(args.out)
        print(f"wrote {args.out}")
    return 0
