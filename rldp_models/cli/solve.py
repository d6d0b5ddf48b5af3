"""``rldp solve PROBLEM``: solve NUNP, NURP, RUNP or RURP on a crosstab and write the result.

``--uncertainty chi2|kl|tv|box [--radius R]`` picks the uncertainty set of the
robust blocks (:mod:`rldp_models.uncertainty.named`; default chi2 with its
alpha-calibrated radius); the result JSON records it under ``uncertainty``.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

import solvers
from rldp_models.cli.common import (
    add_data_arguments,
    epsilon,
    finite_float,
    load_crosstab,
    significance,
)
from rldp_models.distortion import NAMED_DISTORTIONS
from rldp_models.problem_kinds import PRESETS, UNCERTAINTY_SETS


if TYPE_CHECKING:
    from rldp_models.data import Crosstab
    from rldp_models.programs import ProtocolProgram


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("solve", help="solve a robust protocol program",
                                   description=__doc__)
    add_program_arguments(parser)
    parser.add_argument("--solver", default=solvers.DEFAULT_SOLVER,
                        help=f"solver name (default {solvers.DEFAULT_SOLVER}; see 'rldp solvers')")
    parser.add_argument("--out", required=True, metavar="OUT.json")
    parser.set_defaults(func=run)


def add_program_arguments(parser: argparse.ArgumentParser) -> None:
    """PROBLEM, the data, ``--eps``, ``--alpha``, ``--distortion``, ``--uncertainty``, ``--radius``.

    Shared by ``rldp solve`` and ``rldp compare-solvers``.
    """
    parser.add_argument("problem", type=str.upper, choices=list(PRESETS), metavar="PROBLEM",
                        help="one of " + ", ".join(PRESETS))
    add_data_arguments(parser)
    parser.add_argument("--eps", type=epsilon, required=True, help="privacy level eps >= 0")
    parser.add_argument("--alpha", type=significance, default=0.05,
                        help="significance level of the uncertainty set (default 0.05)")
    parser.add_argument("--distortion", choices=NAMED_DISTORTIONS, default="squared")
    parser.add_argument("--uncertainty", choices=UNCERTAINTY_SETS, default="chi2",
                        help="uncertainty set of the robust blocks (default chi2)")
    parser.add_argument("--radius", type=finite_float, default=None, metavar="R",
                        help="radius of the set (default: calibrated from --alpha)")


def program_from_args(args: argparse.Namespace, crosstab: Crosstab) -> ProtocolProgram:
    """The preset named by the arguments, over the requested uncertainty set."""
    from rldp_models.programs import preset
    from rldp_models.uncertainty.named import named_set

    uncertainty = named_set(args.uncertainty, crosstab, args.alpha, args.radius)
    return preset(args.problem, crosstab, args.eps, args.alpha, uncertainty=uncertainty,
                  distortion=args.distortion)


def uncertainty_record(args: argparse.Namespace, program: ProtocolProgram) -> dict[str, Any]:
    """What the result JSON says about the set: its name, radius and how the radius was set."""
    return {"set": args.uncertainty, "radius": float(program.uncertainty.radius),
            "radius_from": "--radius" if args.radius is not None else f"alpha={args.alpha}",
            "robust_privacy": "exact (Theorem 4)" if args.uncertainty == "chi2"
            else "product of conditional projections (sufficient)"}


def run(args: argparse.Namespace) -> int:
    from rldp_models.results_io import solution_to_dict, write_json

    solvers.get(args.solver)  # fail fast on an unknown or unavailable solver
    crosstab = load_crosstab(args)
    program = program_from_args(args, crosstab)
    solution = program.solve(solver=args.solver)
    record = solution_to_dict(solution)
    record["uncertainty"] = uncertainty_record(args, program)
    write_json(record, args.out)
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
