"""``rldp solve PROBLEM``: solve NUNP, NURP, RUNP or RURP on a crosstab and write the result.

``--uncertainty chi2|kl|tv|box|power|renyi [--radius R]`` picks the uncertainty
set of the robust blocks (``power`` with ``--lambda L``, ``renyi`` with ``--order A``;
:mod:`rldp_models.uncertainty.named`; default chi2 with its
alpha-calibrated radius); ``--radius-from bootstrap`` calibrates the radius by
a parametric bootstrap instead (:mod:`rldp_models.uncertainty.calibration`;
``--bootstrap-draws``, ``--bootstrap-seed``). The result records the set, with
every parameter and, for a bootstrap, its ``radius_source`` (draws, seed), in
its declaration; ``rldp verify`` draws the bootstrap again and compares.
OUT.json is the one result record (``rldp schema``); it is written only when
every guarantee holds (exit 0), with the counts embedded unless
``--no-embed-counts`` (then only their digest). When the solver returns no
protocol (every preset is feasible: the uniform protocol meets every eps), the
exit code is 3 (inconclusive), with one line naming the solver's status and the
solvers that also take the model; nothing is written.
"""

from __future__ import annotations

import argparse
import math
import sys
from fractions import Fraction
from typing import TYPE_CHECKING

from rldp_models.cli.exit_codes import ExitCode
from rldp_models.cli.common import (
    add_data_arguments,
    epsilon,
    finite_float,
    load_crosstab,
    significance,
    write_result,
)
from rldp_models.cli.schema import add_embed_argument

from rldp_models.distortion import NAMED_DISTORTIONS
from rldp_models.problem_kinds import PRESETS, UNCERTAINTY_SETS

WIDE_EPSILON = 20.0
"""Above this eps a solver's give-up is explained by the privacy rows themselves: they hold
``e^eps`` beside 1 (``e^20 = 4.9e8``), a spread double-precision interior-point methods
resolve less and less reliably (on Adult sex x race, RURP by clarabel-direct, clarabel and ECOS
fails from eps 30 and NURP from eps 45, while SCS's first-order method still solves eps 30)."""


if TYPE_CHECKING:
    from rldp_models.data import Crosstab
    from rldp_models.finish import Repair
    from rldp_models.programs import ProtocolProgram


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("solve", help="solve a robust protocol program",
                                   description=__doc__)
    add_program_arguments(parser)
    parser.add_argument("--solver", default=None,
                        help="solver name (default: the fastest the program's blocks allow, "
                             "clarabel-direct where they all have direct conic rows, else "
                             "clarabel; see 'rldp solvers')")
    parser.add_argument("--out", required=True, metavar="OUT.json")
    add_embed_argument(parser)
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
    parser.add_argument("--lambda", dest="lam", type=number_or_fraction, default=None,
                        metavar="L", help="power-divergence (Cressie-Read) lambda of "
                        "--uncertainty power, e.g. 2/3 (1: chi-square, 0: KL)")
    parser.add_argument("--order", type=number_or_fraction, default=None, metavar="A",
                        help="order a > 0 of --uncertainty renyi, D_a(Phat || P) <= rho "
                             "(2: chi-square)")
    add_radius_arguments(parser)


def number_or_fraction(text: str) -> float:
    """An argparse type: a finite number, also written as a fraction ``p/q`` (``--lambda 2/3``)."""
    try:
        return float(Fraction(text.strip()))
    except (ValueError, ZeroDivisionError):
        return finite_float(text)


def add_radius_arguments(parser: argparse.ArgumentParser) -> None:
    """``--radius-from``, ``--bootstrap-draws``, ``--bootstrap-seed`` (imported when used:
    :mod:`rldp_models.cli.radius_option` pulls in the uncertainty sets)."""
    from rldp_models.cli.radius_option import add_radius_arguments as add

    add(parser)


def program_from_args(args: argparse.Namespace, crosstab: Crosstab) -> ProtocolProgram:
    """The preset named by the arguments, over the requested uncertainty set."""
    from rldp_models.cli.radius_option import uncertainty_from_args
    from rldp_models.programs import preset

    uncertainty = uncertainty_from_args(args, crosstab)
    return preset(args.problem, crosstab, args.eps, args.alpha, uncertainty=uncertainty,
                  distortion=args.distortion)


def radius_from(args: argparse.Namespace) -> str:
    """How the set's radius was chosen, as the declaration records it."""
    if args.radius_from == "bootstrap":
        return "bootstrap"
    return "--radius" if args.radius is not None else "alpha"


def run(args: argparse.Namespace) -> int:
    from rldp_models.programs.backend_choice import default_solver
    from rldp_models.results.program_result import solution_result

    import solvers

    if args.solver is not None:
        solvers.get(args.solver)  # fail fast on an unknown or unavailable solver
    crosstab = load_crosstab(args)
    program = program_from_args(args, crosstab)
    args.solver = args.solver or default_solver(program)
    solution = program.solve(solver=args.solver)
    if solution.protocol is None:  # a preset is always feasible: the solver gave up
        why = f" ({solution.result.log})" if solution.result.log else ""
        sys.stderr.write(f"rldp: {args.problem}: solver {args.solver} returned "
                         f"{solution.status.value}{why}; no protocol, nothing written"
                         f"{_wide_eps_hint(args.eps)}\n")
        return ExitCode.INCONCLUSIVE
    result = solution_result(solution, radius_from(args))
    print(f"{args.problem}: {solution.status.value}, objective {solution.objective:.6g} "
          f"({args.solver}, {solution.result.timings.total_seconds:.2f} s)")
    for check in solution.checks:
        print("  " + check.summary())
    if solution.repair is not None:
        print(f"  repaired: {_repair_description(solution.repair)}; "
              f"objective cost {solution.repair.cost:.3g}")
    return write_result(result, args.out, args.problem, not args.no_embed_counts)


def _wide_eps_hint(eps: float) -> str:
    """Why a solver may have given up at a large eps (:data:`WIDE_EPSILON`), or nothing."""
    if eps <= WIDE_EPSILON:
        return ""
    return (f"; at eps {eps:g} the privacy rows hold e^eps = {math.exp(eps):.1e} beside 1, "
            "beyond what interior-point solvers resolve reliably: try --solver scs or a "
            "smaller eps")


def _repair_description(repair: "Repair") -> str:
    """What the repair of a solved program did, in words (:class:`~rldp_models.finish.Repair`)."""
    if repair.method == "fallback":
        return "replaced by the best protocol that ignores its input (eps = 0)"
    toward = {"uniform": "the uniform protocol",
              "tightened": "the program's solution at eps (1 - 1e-4)"}.get(
        str(repair.reference), str(repair.reference))
    then = f", then with the uniform protocol, weight {repair.uniform_weight:.3g}" \
        if repair.uniform_weight else ""
    return f"mixed with {toward}, weight {repair.weight:.3g}{then}"
