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

from rldp_models.cli import ExitCode
from rldp_models.cli.common import (
    add_data_arguments,
    add_embed_argument,
    add_radius_arguments,
    epsilon,
    finite_float,
    load_crosstab,
    significance,
    write_result,
)
from rldp_models.distortion import NAMED_DISTORTIONS
from rldp_models.problem_kinds import PRESETS, UNCERTAINTY_SETS

WIDE_EPSILON = 20.0
"""Above this eps a solver's give-up is explained by the privacy rows themselves: they hold
``e^eps`` beside 1 (``e^20 = 4.9e8``), a spread double-precision interior-point methods
resolve less and less reliably (on Adult sex x race, RURP by clarabel-direct, clarabel and ECOS
fails from eps 30 and NURP from eps 45, while SCS's first-order method still solves eps 30)."""



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
    parser.add_argument("--lambda", dest="lam", type=power_lambda, default=None,
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
    except OverflowError:
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}") from None
    except (ValueError, ZeroDivisionError):
        return finite_float(text)


MAX_LAMBDA = 100.0
"""Largest ``|lambda|`` of ``--lambda``: the power-divergence set's terms ``q^-lambda``
leave the doubles' range beyond it (1e308 gave NaN in the solver's data)."""

LAMBDA_RESOLUTION = 1e-9
"""``--lambda`` within this of 0 or -1 (and not equal) is refused: the set is then KL or
reverse KL (give 0 or -1), and its cone exponent ``1 / (lambda + 1)`` rounds to 1."""


def power_lambda(text: str) -> float:
    """An argparse type: the Cressie-Read lambda, ``|lambda| <= MAX_LAMBDA``, 0 and -1 exact."""
    value = number_or_fraction(text)
    if abs(value) > MAX_LAMBDA:
        raise argparse.ArgumentTypeError(f"lambda must lie in [-{MAX_LAMBDA:g}, {MAX_LAMBDA:g}], "
                                         f"got {text}")
    for limit in (0.0, -1.0):
        if value != limit and abs(value - limit) < LAMBDA_RESOLUTION:
            raise argparse.ArgumentTypeError(f"lambda {text} is within {LAMBDA_RESOLUTION:g} of "
                                             f"{limit:g}: give {limit:g} for that set")
    return value


def program_options(args: argparse.Namespace) -> dict:
    """The program's keyword arguments of :func:`rldp_models.solve` (eps to the bootstrap)."""
    return {"eps": args.eps, "alpha": args.alpha, "distortion": args.distortion,
            "uncertainty": args.uncertainty, "radius": args.radius, "lam": args.lam,
            "order": args.order, "radius_from": args.radius_from,
            "bootstrap_draws": args.bootstrap_draws, "bootstrap_seed": args.bootstrap_seed}


def run(args: argparse.Namespace) -> int:
    from rldp_models.api import NoProtocol, solve
    from rldp_models.progress import note, phase
    from solvers.backends.clarabel_direct import observed

    def iteration(count: int, objective: float, gap: float) -> None:
        note("iteration", f"iteration {count}, objective {objective:.6g}, gap {gap:.1e}")

    try:
        with phase(f"rldp solve {args.problem}"), observed(iteration):
            solved = solve(args.problem, load_crosstab(args), solver=args.solver,
                           **program_options(args))
    except NoProtocol as exc:  # a preset is always feasible: the solver gave up
        why = f" ({exc.log})" if exc.log else ""
        sys.stderr.write(f"rldp: {exc}{why}; no protocol, nothing written"
                         f"{_wide_eps_hint(args.eps)}\n")
        return ExitCode.INCONCLUSIVE
    print(solved.summary())
    return write_result(solved.result, args.out, args.problem, not args.no_embed_counts)


def _wide_eps_hint(eps: float) -> str:
    """Why a solver may have given up at a large eps (:data:`WIDE_EPSILON`), or nothing."""
    if eps <= WIDE_EPSILON:
        return ""
    return (f"; at eps {eps:g} the privacy rows hold e^eps = {math.exp(eps):.1e} beside 1, "
            "beyond what interior-point solvers resolve reliably: try --solver scs or a "
            "smaller eps")
