"""``rldp protocol NAME``: build an (eps, F)-RLDP release protocol and check it.

NAME is one of polyopt (Thms 11-12), srr (Def. 5), ir (Thms 15-16),
grr-cr (Thms 17-18), ue-cr (Thms 19-20) or grr (eq. 16) of
``rldp-privacy-utility-tradeoff.txt``; F is the (1 - alpha) chi-square set of
the crosstab (eq. 3). OUT.json holds ``Q`` as ``[x][y]`` with x = (s, u) in
row-major order, ``utility_hat`` = I_Phat(X;Y) in nats, the labels, eps,
alpha, n, radius_B, the chosen ``parameters`` and ``rldp`` (certified and
attained eps over F from the checker); polyopt adds ``lower_bound`` and
``certificate``. Exit 0 when the certified eps is <= --eps, 1 otherwise.
"""

from __future__ import annotations

import argparse
from typing import Any

from rldp_models.cli.common import add_data_arguments, epsilon, load_crosstab, significance
from rldp_models.errors import InputError

NAMES = ("polyopt", "srr", "ir", "grr-cr", "ue-cr", "grr")
DEFAULT_ALPHA = 0.05


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("protocol", help="build and check an (eps, F)-RLDP protocol",
                                   description=__doc__)
    parser.add_argument("name", choices=NAMES, metavar="NAME", help="one of " + ", ".join(NAMES))
    add_data_arguments(parser)
    parser.add_argument("--eps", type=epsilon, required=True, help="privacy level eps >= 0")
    parser.add_argument("--alpha", type=significance, default=DEFAULT_ALPHA,
                        help=f"significance level of F in (0, 1) (default {DEFAULT_ALPHA})")
    parser.add_argument("--finer", action="store_true", help="polyopt: finer polyhedron D")
    parser.add_argument("--solver", help="polyopt: LP solver (default highspy)")
    parser.add_argument("--out", required=True, metavar="OUT.json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rldp_models.rldp_protocols.checker import rldp_epsilon
    from rldp_models.results_io import write_json

    if args.name != "polyopt" and (args.finer or args.solver is not None):
        raise InputError("--finer and --solver only apply to polyopt")
    crosstab = load_crosstab(args)
    record = _polyopt_record(args, crosstab) if args.name == "polyopt" else \
        _closed_form_record(args, crosstab)
    level = rldp_epsilon(record["Q"], crosstab, args.alpha)
    record["rldp"] = {
        "certified": level.certified, "attained": level.attained,
        "worst_at": {"y": level.worst_at[0], "s1": crosstab.s_labels[level.worst_at[1]],
                     "s2": crosstab.s_labels[level.worst_at[2]]},
        "witness": level.witness,
    }
    write_json(record, args.out)
    holds = level.certified <= args.eps
    print(f"{args.name}: |X| = {len(record['Q'])}, |Y| = {len(record['Q'][0])}, "
          f"I_Phat(X;Y) = {record['utility_hat']:.6g} nats; (eps, F)-RLDP level in "
          f"[{level.attained:.6g}, {level.certified:.6g}] "
          f"{'<=' if holds else 'EXCEEDS'} eps = {args.eps}")
    print(f"  wrote {args.out}")
    return 0 if holds else 1


def _closed_form_record(args: argparse.Namespace, crosstab) -> dict[str, Any]:
    from rldp_models import rldp_protocols

    build = {"srr": rldp_protocols.srr_protocol, "ir": rldp_protocols.independent_reporting,
             "grr-cr": rldp_protocols.grr_conditional, "ue-cr": rldp_protocols.ue_conditional,
             "grr": rldp_protocols.grr_protocol}[args.name]
    result = build(crosstab, args.eps, args.alpha)
    return {"result_type": "protocol", "protocol": args.name, "eps": args.eps,
            "alpha": args.alpha, "n": result.n,
            "radius_B": result.radius_B, "labels": result.labels, "Q": result.Q,
            "utility_hat": result.utility_hat, "utility_theorem": result.utility_theorem,
            "parameters": result.parameters}


def _polyopt_record(args: argparse.Namespace, crosstab) -> dict[str, Any]:
    from rldp_models.certificates.lp import polyopt_writer_fields
    from rldp_models.results_io import jsonable
    from rldp_models.rldp_protocols.components import chi_square_set
    try:
        from rldp_models.rldp_protocols.polyopt import polyopt_protocol
    except ImportError as exc:
        raise InputError(f"polyopt is not available in this installation ({exc})") from None

    options = {"finer": args.finer}
    if args.solver is not None:
        options["solver"] = args.solver
    result = polyopt_protocol(crosstab, args.eps, args.alpha, **options)
    return {"result_type": "protocol", "protocol": "polyopt", "eps": args.eps,
            "alpha": args.alpha, "n": crosstab.n,
            "radius_B": chi_square_set(crosstab, args.alpha).radius, "labels": result.labels,
            "Q": result.Q, "utility_hat": result.utility_hat,
            "parameters": {"finer": args.finer, "solver": args.solver or "highspy",
                           "rldp_certified_eps": result.rldp_certified_eps},
            "lower_bound": result.lower_bound, "Q2": result.Q2,
            "certificate": {**jsonable(result.certificate),
                            **polyopt_writer_fields(crosstab.counts, args.alpha, args.eps,
                                                    args.finer, result.certificate.dual)}}
