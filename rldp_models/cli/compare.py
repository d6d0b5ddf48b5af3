"""``rldp compare``: results side by side on one table of counts.

For each RESULT.json and the counts (Phat, and F its (1 - alpha) chi-square
set): I_Phat(X;Y)/H(X); the expected distortion (--distortion, of the U value
each output releases; n/a when outputs release no single u, as UE-CR's) at
Phat and its certified worst case over F (Theorem 2); eps at Phat (exact) and
the certified (eps, F)-RLDP level; the output alphabet size; the producer's
recorded time. Prints one table, at most 100 characters wide unless --wide;
--out writes it as CSV with a PNG beside it (worst-case expected distortion,
what the programs minimise, against the certified eps). Python:
rldp_models.compare.
"""

from __future__ import annotations

import argparse
import sys

from rldp_models.cli.common import add_data_arguments, load_crosstab, significance
from rldp_models.cli import ExitCode
from rldp_models.distortion import NAMED_DISTORTIONS
from rldp_models.safe_io import atomic_output


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("compare", help="compare results on common measures",
                                   description=__doc__)
    parser.add_argument("results", metavar="RESULT.json", nargs="+", help="result records")
    add_data_arguments(parser)
    parser.add_argument("--distortion", choices=NAMED_DISTORTIONS, default="hamming",
                        help="distortion of the released U value (default hamming)")
    parser.add_argument("--alpha", type=significance, default=0.05,
                        help="significance of F (default 0.05)")
    parser.add_argument("--out", metavar="FILE.csv", help="write the table (and a PNG beside)")
    parser.add_argument("--wide", action="store_true",
                        help="print every column on one line (wider than 100 characters)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rldp_models.api import compare
    from rldp_models.disclosure.comparison import format_table
    from rldp_models.cli.common import figure_path
    from rldp_models.disclosure.records import refuse_released

    png = figure_path(args.out) if args.out else None
    refuse_released(args.data, "--data")
    refuse_released(args.counts, "--counts")
    outcome = compare(args.results, load_crosstab(args), distortion=args.distortion,
                      alpha=args.alpha)
    if outcome.designed_elsewhere:
        sys.stderr.write(f"rldp: warning: {', '.join(outcome.designed_elsewhere)} designed on "
                         "other counts than these: 'eps over F' is their level over this "
                         "table's F, not the level their guarantee certifies (over their "
                         "design counts' F)\n")
    print(outcome.title)
    print(format_table(outcome.table, wide=args.wide))
    if args.out and png:
        with atomic_output(args.out, newline="") as handle:  # renamed once the figure is
            outcome.table.to_csv(handle, index=False)          # written: both, or neither
            outcome.plot(png)
        sys.stdout.write(f"  wrote {args.out}, {png}\n")
    return ExitCode.OK
