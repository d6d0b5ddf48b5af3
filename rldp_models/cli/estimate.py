"""``rldp estimate``: estimate M P_X from released records, only where the release determines it.

The target M is U (the marginal of U), S (of S), X (the joint P_X) or a CSV
file (header: a name column then one column per input, named s|u, in any
order; one row per coordinate). A coordinate is estimable iff its row
of M lies in the row space of the channel Q^T, decided exactly (integer
kernel of Q^T); the others are reported with a direction of P_X that changes
them but not the released law, and are not estimated. The rest is estimated
by EM (iterative Bayesian update) and by projected inversion, each with
per-coordinate intervals from a parametric bootstrap (multinomial tables from
the EM fit, percentile method). Writes --out (CSV) and a PNG beside it (or
at --plot); --truth records.csv adds the records' own M P_X. Exit 0 when at
least one coordinate was estimated, 1 when none is estimable. RESULT.json must
be the file the records were released with: its digest (covering the output
labels and their order) is checked against the one rldp release wrote in
RELEASED.csv, and a file whose digest differs or is missing is refused (exit 2)
unless --unchecked-release. From Python: rldp_models.estimate, which gives the same table.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from rldp_models.cli.common import figure_path, seed
from rldp_models.cli import ExitCode
from rldp_models.cli.release import print_warnings
from rldp_models.errors import InputError
from rldp_models.disclosure.estimation import BOOTSTRAP_DRAWS, LEVEL, MAX_DRAWS
from rldp_models.disclosure.records import refuse_released
from rldp_models.safe_io import atomic_output


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("estimate", help="estimate distributions from released "
                                   "records", description=__doc__)
    parser.add_argument("released", metavar="RELEASED.csv", help="output of rldp release")
    parser.add_argument("--result", metavar="RESULT.json", required=True,
                        help="the result the records were released with")
    parser.add_argument("--target", metavar="U|S|X|FILE", default="U",
                        help="what to estimate (default U)")
    parser.add_argument("--out", metavar="FILE.csv", required=True, help="the estimates")
    parser.add_argument("--plot", metavar="FILE.png", help="figure (default beside --out)")
    parser.add_argument("--truth", metavar="RECORDS.csv",
                        help="the true records, to show their own M P_X")
    parser.add_argument("--sensitive", metavar="COL", help="column of S in --truth")
    parser.add_argument("--public", metavar="COL", help="column of U in --truth")
    parser.add_argument("--draws", type=int, default=BOOTSTRAP_DRAWS, metavar="B",
                        help=f"bootstrap tables, 2..{MAX_DRAWS} (default {BOOTSTRAP_DRAWS})")
    parser.add_argument("--level", type=float, default=LEVEL, metavar="L",
                        help=f"interval level (default {LEVEL})")
    parser.add_argument("--seed", type=seed, metavar="N", help="seed of the bootstrap")
    parser.add_argument("--unchecked-release", action="store_true",
                        help="read RELEASED.csv even if it does not record RESULT.json's "
                             "digest (a warning instead of a refusal)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rldp_models.api.estimation import estimate

    png = _check(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimated = estimate(args.released, args.result, target=args.target,
                             truth=args.truth, sensitive=args.sensitive, public=args.public,
                             draws=args.draws, level=args.level, seed=args.seed,
                             unchecked_release=args.unchecked_release)
    print_warnings(caught)
    note = estimated.note(listed_in="--out")
    if note is not None:
        sys.stderr.write(f"rldp: note: {note}\n")
    if estimated.table_text():
        print(estimated.table_text())
    with atomic_output(args.out, newline="") as handle:  # renamed once the figure is written
        estimated.frame.to_csv(handle, index=False)
        estimated.plot(png)
    print(f"  wrote {args.out}, {png}")
    return ExitCode.OK if estimated.estimable else ExitCode.FAILED


def _check(args: argparse.Namespace) -> Path:
    """Refuse bad options up front; the path of the figure."""
    if args.truth and not (args.sensitive and args.public):
        raise InputError("--truth needs --sensitive COL and --public COL")
    refuse_released(args.truth, "--truth")
    inputs = {Path(p).resolve() for p in (args.released, args.result, args.truth) if p}
    for option, path in (("--out", args.out), ("--plot", args.plot)):
        if path and Path(path).resolve() in inputs:
            raise InputError(f"{option} {path} is an input file; choose another name")
    return figure_path(args.out, args.plot)
