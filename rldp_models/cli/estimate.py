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
unless --unchecked-release.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from rldp_models.cli.exit_codes import ExitCode
from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.release.channel import ReleaseChannel
from rldp_models.release.estimation import METHOD, EstimateTable, estimate
from rldp_models.release.figures import figure_path, plot_estimate
from rldp_models.release.identifiability import identifiability
from rldp_models.release.loading import load_result
from rldp_models.release.provenance import check_released_with, refuse_released
from rldp_models.release.released import released_counts
from rldp_models.release.targets import Target, target
from rldp_models.safe_io import atomic_output


MAX_DRAWS = 100_000
"""Most bootstrap tables: percentile intervals are stable long before; 10^8 ran for minutes
towards tens of GiB before anything was refused."""


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
    parser.add_argument("--draws", type=int, default=400, metavar="B",
                        help=f"bootstrap tables, 2..{MAX_DRAWS} (default 400)")
    parser.add_argument("--level", type=float, default=0.95, metavar="L",
                        help="interval level (default 0.95)")
    parser.add_argument("--seed", type=int, metavar="N", help="seed of the bootstrap")
    parser.add_argument("--unchecked-release", action="store_true",
                        help="read RELEASED.csv even if it does not record RESULT.json's "
                             "digest (a warning instead of a refusal)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    png = _check(args)
    unchecked = check_released_with(args.released, args.result, args.unchecked_release)
    if unchecked is not None:
        sys.stderr.write(f"rldp: warning: {unchecked}\n")
    result, _ = load_result(args.result)
    channel = ReleaseChannel.from_result(result)
    counts, marked = released_counts(args.released, channel.output_texts())
    goal = target(args.target, channel.input_labels)
    truth = _truth(args, channel, goal) if args.truth else None
    verdict = identifiability(channel, goal.rows, goal.names)
    table = estimate(channel.matrix(), counts, goal, verdict, args.draws, args.level, args.seed)
    frame = table.frame
    if truth is not None:
        frame.insert(len(frame.columns) - 1, "truth", truth)
    _report(frame, verdict.rank, verdict.inputs, table, marked, METHOD)
    with atomic_output(args.out, newline="") as handle:
        frame.to_csv(handle, index=False)
    plot_estimate(frame, png, f"{Path(args.released).name} with {result.declaration.name}",
                  table.level)
    print(f"  wrote {args.out}, {png}")
    return ExitCode.OK if frame["estimable"].any() else ExitCode.FAILED


def _truth(args: argparse.Namespace, channel: ReleaseChannel, goal: Target) -> np.ndarray:
    """``M P_X`` of the --truth records (InputError naming the file if a record is not covered)."""
    refuse_released(args.truth, "--truth")
    truth = Crosstab.from_records(args.truth, args.sensitive, args.public)
    try:
        return goal.of(channel.distribution(truth))
    except InputError as exc:
        raise InputError(f"--truth {args.truth}: {exc}") from None


def _check(args: argparse.Namespace) -> Path:
    """Refuse bad options up front; the path of the figure."""
    if not 2 <= args.draws <= MAX_DRAWS:
        raise InputError(f"--draws must lie in [2, {MAX_DRAWS}], got {args.draws} (each table "
                         "is kept in memory and refitted by EM)")
    if not 0 < args.level < 1:
        raise InputError(f"--level must lie in (0, 1), got {args.level}")
    if args.truth and not (args.sensitive and args.public):
        raise InputError("--truth needs --sensitive COL and --public COL")
    inputs = {Path(p).resolve() for p in (args.released, args.result, args.truth) if p}
    for option, path in (("--out", args.out), ("--plot", args.plot)):
        if path and Path(path).resolve() in inputs:
            raise InputError(f"{option} {path} is an input file; choose another name")
    return figure_path(args.out, args.plot)


def _listed(names: list[str], shown: int = 8) -> str:
    """``names`` joined, the first ``shown`` of them and a count of the rest (all are in --out)."""
    more = f", and {len(names) - shown} more (see --out)" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def _report(frame: pd.DataFrame, rank: int, inputs: int, table: EstimateTable, marked: bool,
            method: str) -> None:
    if marked:
        sys.stderr.write("rldp: warning: the released file is marked NOT FOR RELEASE "
                         "(seeded)\n")
    missing = frame[~frame["estimable"]]
    if len(missing):
        sys.stderr.write(f"rldp: note: not estimable (channel rank {rank} of {inputs} inputs): "
                         f"{_listed(list(missing['target']))}; {missing['reason'].iloc[0]}\n")
    if not table.converged and frame["estimable"].any():
        sys.stderr.write("rldp: warning: the maximum likelihood fit did not reach its "
                         "tolerance on the point estimate or 1% of the bootstrap tables; its "
                         "intervals may be off\n")
    shown = frame[frame["estimable"]].drop(columns=["estimable", "reason"])
    if len(shown):
        print(f"intervals: {table.level:.0%}, {method}, {table.draws} tables")
        print(shown.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
