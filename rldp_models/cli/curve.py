"""``rldp curve``: the privacy-utility curve of a table, to choose a program, eps and alpha.

For each eps of --eps and each method of --methods: the programs NUNP, NURP,
RUNP, RURP report their optimal expected distortion (minimised; worst case
over the chi-square set for the robust ones), the RLDP protocols IR, GRR-CR,
UE-CR their normalised utility I_Phat(X;Y)/H_Phat(X) (maximised); beside it the
simulated coverage of the chi-square set at --alpha on this table (tables
redrawn from Phat). Writes --out (CSV, one row per method and eps) and a PNG
beside it (or at --plot). The points run in parallel over --executor. Work
estimated to exceed --max-memory or --time-limit is refused before anything
runs. A point whose solve fails is a row with an empty value and its error.
"""

from __future__ import annotations

import argparse
import sys

from rldp_models.cli.common import (add_data_arguments, epsilon, load_crosstab, seed,
                                     significance)
from rldp_models.cli import ExitCode
from rldp_models.cli.reproduce import EXECUTOR_SPECS
from rldp_models.errors import InputError
from rldp_models.safe_io import atomic_output

DEFAULT_EPS = "0.25,0.5,1,2,4"
DEFAULT_METHODS = "NUNP,NURP,RUNP,RURP,ir,grr-cr,ue-cr"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("curve", help="privacy-utility curve of a table",
                                   description=__doc__)
    add_data_arguments(parser)
    parser.add_argument("--eps", default=DEFAULT_EPS, metavar="E[,E...]",
                        help=f"privacy levels (default {DEFAULT_EPS})")
    parser.add_argument("--alpha", type=significance, default=0.05,
                        help="significance level of the chi-square set (default 0.05)")
    parser.add_argument("--methods", default=DEFAULT_METHODS, metavar="M[,M...]",
                        help=f"programs and protocols (default {DEFAULT_METHODS})")
    parser.add_argument("--distortion", default="hamming",
                        help="the programs' distortion (default hamming)")
    parser.add_argument("--coverage-draws", type=int, default=1000, metavar="N",
                        help="tables simulated for the set's coverage (0: none; default 1000)")
    parser.add_argument("--seed", type=seed, default=0, help="seed of the coverage simulation")
    parser.add_argument("--out", required=True, metavar="FILE.csv", help="the curve")
    parser.add_argument("--plot", metavar="FILE.png", help="figure (default beside --out)")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="worker processes (default: the number of cores)")
    parser.add_argument("--executor", default="joblib", metavar="SPEC",
                        help=f"one of {EXECUTOR_SPECS} (default joblib)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rldp_models.executors import executor_from_spec
    from rldp_models.experiments.curve import curve, plot_curve
    from rldp_models.cli.common import figure_path

    eps = _numbers(args.eps)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if not 0 <= args.coverage_draws <= 10**6:
        raise InputError(f"--coverage-draws must lie in [0, 1000000], got {args.coverage_draws}")
    png = figure_path(args.out, args.plot)
    crosstab = load_crosstab(args)
    executor = executor_from_spec(args.executor, args.workers)
    _refuse_what_would_not_fit(args, crosstab.shape, methods, len(eps), executor.workers)
    result = curve(crosstab, eps, args.alpha, methods, args.distortion, executor,
                   args.coverage_draws, args.seed)
    print(result.summary())
    with atomic_output(args.out, newline="") as handle:  # renamed once the figure is written
        result.frame.to_csv(handle, index=False)
        plot_curve(result, str(png), f"{crosstab.shape[0]}x{crosstab.shape[1]} table")
    failed = result.frame[result.frame["error"] != ""]
    if len(failed):
        sys.stderr.write(f"rldp: warning: {len(failed)} points failed (first: "
                         f"{failed['method'].iloc[0]} at eps {failed['eps'].iloc[0]:g}: "
                         f"{failed['error'].iloc[0]})\n")
    print(f"  wrote {args.out}, {png}")
    return ExitCode.OK


def _numbers(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise InputError(f"--eps must be numbers separated by commas, got {text!r}") from None
    if not values:
        raise InputError(f"--eps needs one or more numbers, got {text!r}")
    try:
        return [epsilon(repr(v)) for v in values]
    except argparse.ArgumentTypeError as exc:
        raise InputError(f"--eps: {exc}") from None


def _refuse_what_would_not_fit(args: argparse.Namespace, shape: tuple[int, int],
                               methods: list[str], points: int, workers: int) -> None:
    """The costliest point's estimate, its memory times the points run at once, against
    --max-memory; the summed time over the workers against --time-limit."""
    from rldp_models import resources
    from rldp_models.experiments.curve import PROGRAMS, PROTOCOLS
    from rldp_models.problem_kinds import PRESETS

    unknown = [m for m in methods if m not in PROGRAMS + PROTOCOLS]
    if unknown:
        raise InputError(f"--methods: unknown method {unknown[0]!r}; choose from "
                         f"{', '.join(PROGRAMS + PROTOCOLS)}")
    n_s, n_u = shape
    estimates = [resources.robust_program_estimate(m, n_s, n_u, any(PRESETS[m]), direct=True,
                                                   distortion=args.distortion)
                 if m in PROGRAMS else resources.protocol_estimate(m, n_s, n_u)
                 for m in methods]
    at_once = max(1, min(workers or 1, points * len(methods)))
    total = resources.Estimate(
        f"rldp curve on {n_s}x{n_u} ({len(methods)} methods x {points} eps, {at_once} at once)",
        max(e.bytes for e in estimates) * at_once,
        sum(e.seconds for e in estimates) * points / at_once)
    max_memory = getattr(args, "max_memory", None) or resources.default_memory_limit()
    resources.check(total, max_memory, getattr(args, "time_limit", None))
