"""``rldp solve PROBLEM``: solve NUNP, NURP, RUNP or RURP on a crosstab and write the result."""

from __future__ import annotations

import argparse
import sys

import solvers
from rldp_models.cli.common import add_data_arguments, epsilon, load_crosstab, significance
from rldp_models.distortion import NAMED_DISTORTIONS
from rldp_models.problem_kinds import PRESETS


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("solve", help="solve a robust protocol program",
                                   description=__doc__)
    parser.add_argument("problem", type=str.upper, choices=list(PRESETS), metavar="PROBLEM",
                        help="one of " + ", ".join(PRESETS))
    add_data_arguments(parser)
    parser.add_argument("--eps", type=epsilon, required=True, help="privacy level eps >= 0")
    parser.add_argument("--alpha", type=significance, default=0.05,
                        help="significance level of the chi-square set (default 0.05)")
    parser.add_argument("--solver", default=solvers.DEFAULT_SOLVER,
                        help=f"solver name (default {solvers.DEFAULT_SOLVER}; see 'rldp solvers')")
    parser.add_argument("--distortion", choices=NAMED_DISTORTIONS, default="squared")
    parser.add_argument("--out", required=True, metavar="OUT.json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rldp_models.programs import preset
    from rldp_models.results_io import solution_to_dict, write_json

    solvers.get(args.solver)  # fail fast on an unknown or unavailable solver
    crosstab = load_crosstab(args)
    program = preset(args.problem, crosstab, args.eps, args.alpha, distortion=args.distortion)
    solution = program.solve(solver=args.solver)
    write_json(solution_to_dict(solution), args.out)
    if solution.protocol is None:
        sys.stderr.write(f"rldp: {args.problem}: solver {args.solver} returned "
                         f"{solution.status.value}; no protocol\n")
        return 1
    print(f"{args.problem}: {solution.status.value}, objective {solution.objective:.6g} "
          f"({args.solver}, {solution.result.timings.total_seconds:.2f} s)")
    for check in solution.checks:
        print("  " + check.summary())
    if solution.repair is not None:
        how = ("mixed with the uniform protocol, weight "
               f"{solution.repair.weight:.3g}" if solution.repair.method == "mix-uniform"
               else "replaced by the best protocol that ignores its input (eps = 0)")
        print(f"  repaired: {how}; objective cost {solution.repair.utility_cost:.3g}")
    print(f"  wrote {args.out}")
    return 0 if solution.guarantee_holds else 1
