"""``rldp mechanism NAME``: write a closed-form or optimal mechanism, its utility and privacy check.

For the closed-form names the input alphabet X comes from ``--k`` (labels
``0..k-1``), ``--prior FILE`` (CSV: a header row, then
``label,probability-or-count`` per row) or ``--counts FILE`` (an S x U
crosstab; x = (s, u) in row-major order). With a prior (the file's, or the
crosstab's empirical distribution) the output holds the mutual information
``I(X;Y)`` in nats as ``utility``. Rows are rounded to dyadic rationals summing
to exactly 1 and the mechanism's notion is re-checked exactly on them (a
repair by mixing if rounding broke it); OUT.json, the one result record
(``rldp schema``), is written only when the check holds.

The optimal names staircase, ldp-s, lip and srlip solve a cone LP and take
their own options (see :mod:`rldp_models.cli.mechanism_optimal`): staircase
reads --prior (or --prior0/--prior1 for --utility kl|tv|chi2); ldp-s, lip and
srlip read an S x X --joint crosstab; lip and srlip maximise I(X;Y). Their
OUT.json is written only when the LP dual also proves ``Q`` optimal, as
``rldp verify`` checks it.

Exit codes (:class:`rldp_models.cli.ExitCode`): 0 written; 1 the guarantee or,
for an optimal name, the certificate is not verified (named; nothing written);
2 bad input; 3 the cone LP's solver gave up on valid input (nothing written).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from rldp_models.cli import mechanism_optimal
from rldp_models.cli.common import epsilon, finite_float
from rldp_models.cli.mechanism_io import read_prior, write_and_report
from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.validation import as_size

if TYPE_CHECKING:
    from rldp_models.mechanisms import Mechanism

UE_SETTINGS = ("symmetric", "optimized", "fair-others")
"""The unary-encoding settings (:data:`rldp_models.mechanisms.unary_encoding.SETTINGS`)."""

CLOSED_FORM_NAMES = ("binary", "rr", "geometric", "quaternary", "srr", "ue", "urr", "urap")
NAMES = CLOSED_FORM_NAMES + mechanism_optimal.OPTIMAL_NAMES


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("mechanism", help="write a closed-form or optimal mechanism",
                                   description=__doc__)
    parser.add_argument("name", choices=NAMES, metavar="NAME", help="one of " + ", ".join(NAMES))
    parser.add_argument("--eps", type=epsilon, required=True, help="privacy level eps >= 0")
    alphabet = parser.add_argument_group("input alphabet (one of)")
    alphabet.add_argument("--k", type=int, help="number of symbols, labelled 0..k-1")
    alphabet.add_argument("--prior", metavar="FILE",
                          help="CSV: header, then label,value rows (also staircase's prior)")
    alphabet.add_argument("--counts", metavar="FILE", help="S x U crosstab CSV (needed by srr)")
    parser.add_argument("--delta", type=finite_float, help="delta in [0, 1] (quaternary)")
    parser.add_argument("--sensitive", nargs="+", metavar="LABEL",
                        help="sensitive symbols for urr/urap (S labels with --counts)")
    parser.add_argument("--setting", choices=UE_SETTINGS, default="optimized",
                        help="unary-encoding setting (ue; default optimized)")
    mechanism_optimal.add_arguments(parser)
    parser.add_argument("--out", required=True, metavar="OUT.json")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.name in mechanism_optimal.OPTIMAL_NAMES:
        return mechanism_optimal.run(args)
    mechanism_optimal.reject_options(args)
    if args.delta is not None and args.name != "quaternary":
        raise InputError("--delta only applies to quaternary")
    from rldp_models.mechanisms import (BinaryMechanism, UtilityOptimizedRAPPOR,
                                        UtilityOptimizedRR)
    from rldp_models.results.mechanism_result import ClosedForm, closed_form_result

    alphabet = _alphabet(args)
    mechanism = _mechanism(args, alphabet)
    notion, certify, level = _notion(args, mechanism)
    extra: dict[str, Any] = {key: alphabet[key] for key in ("S", "U") if key in alphabet}
    if alphabet["prior"] is not None:  # what verify re-evaluates the stated utility at
        extra["prior"] = np.asarray(alphabet["prior"], dtype=float).tolist()
    if args.name == "quaternary":
        extra["delta"] = args.delta
    reference = None
    if isinstance(mechanism, (UtilityOptimizedRR, UtilityOptimizedRAPPOR)):
        extra["sensitive"] = list(mechanism.sensitive)
        reference = type(mechanism)(0.0, mechanism.sensitive).matrix()
    if isinstance(mechanism, BinaryMechanism):
        extra["T"] = [label for label, in_t in zip(alphabet["labels"], mechanism.in_t) if in_t]
    labels = {"X": alphabet["labels"], "Y": _output_labels(args.name, mechanism, alphabet)}
    result = closed_form_result(ClosedForm(args.name, mechanism.matrix(), args.eps, notion,
                                           certify, level, labels, alphabet["prior"], extra,
                                           reference))
    return write_and_report(result, args)


def _alphabet(args: argparse.Namespace) -> dict[str, Any]:
    """Labels of X, the prior (or None) and, for a crosstab, the S and U labels."""
    given = [name for name in ("k", "prior", "counts") if getattr(args, name) is not None]
    if len(given) != 1:
        raise InputError("give exactly one of --k, --prior FILE, --counts FILE")
    if args.k is not None:
        return {"labels": [str(x) for x in range(as_size(args.k))], "prior": None}
    if args.prior is not None:
        labels, prior = read_prior(args.prior)
        return {"labels": labels, "prior": prior}
    crosstab = Crosstab.from_csv(args.counts)
    pairs = [[s, u] for s in crosstab.s_labels for u in crosstab.u_labels]
    return {"labels": pairs, "prior": crosstab.phat.ravel(), "S": list(crosstab.s_labels),
            "U": list(crosstab.u_labels)}


def _mechanism(args: argparse.Namespace, alphabet: dict[str, Any]) -> "Mechanism":
    from rldp_models.mechanisms import (BinaryMechanism, Quaternary, RandomizedResponse,
                                        SecretRandomizedResponse, TruncatedGeometric,
                                        UnaryEncoding, UtilityOptimizedRAPPOR, UtilityOptimizedRR)

    k = len(alphabet["labels"])
    if args.name == "binary":
        prior = alphabet["prior"] if alphabet["prior"] is not None else np.full(k, 1 / k)
        return BinaryMechanism.for_mutual_information(args.eps, prior)
    if args.name == "rr":
        return RandomizedResponse(args.eps, k)
    if args.name == "geometric":
        return TruncatedGeometric(args.eps, k)
    if args.name == "quaternary":
        if k != 2 or args.delta is None:
            raise InputError("quaternary needs a binary input (k = 2) and --delta")
        return Quaternary(args.eps, args.delta)
    if args.name == "srr":
        if "S" not in alphabet:
            raise InputError("srr needs --counts FILE (X = S x U)")
        return SecretRandomizedResponse(args.eps, len(alphabet["S"]), len(alphabet["U"]))
    if args.name == "ue":
        return UnaryEncoding.from_setting(args.setting, args.eps, k)
    sensitive = _sensitive_mask(args, alphabet)
    if args.name == "urr":
        return UtilityOptimizedRR(args.eps, sensitive)
    return UtilityOptimizedRAPPOR(args.eps, sensitive)


def _sensitive_mask(args: argparse.Namespace, alphabet: dict[str, Any]) -> tuple[bool, ...]:
    if not args.sensitive:
        raise InputError(f"{args.name} needs --sensitive LABEL [LABEL ...]")
    wanted = {label.strip() for item in args.sensitive for label in item.split(",")
              if label.strip()}
    keys = alphabet["S"] if "S" in alphabet else alphabet["labels"]
    unknown = sorted(wanted - set(keys))
    if unknown:
        raise InputError(f"unknown sensitive labels: {', '.join(unknown)}")
    of_x = [x[0] for x in alphabet["labels"]] if "S" in alphabet else alphabet["labels"]
    return tuple(label in wanted for label in of_x)


def _notion(args: argparse.Namespace, mechanism: "Mechanism"
            ) -> tuple[str, Callable[[np.ndarray], Any], Callable[[np.ndarray], float]]:
    """The notion the mechanism meets, its exact certifier and its float level."""
    from rldp_models.mechanisms import (SecretRandomizedResponse, UtilityOptimizedRAPPOR,
                                        UtilityOptimizedRR)
    from rldp_models.privacy import (approximate_ldp_delta, certify_approximate_ldp, certify_ldp,
                                     certify_uldp, ldp_epsilon, uldp_epsilon)

    eps = args.eps
    if args.name == "quaternary":
        return ("(eps, delta)-LDP", lambda Q: certify_approximate_ldp(Q, eps, args.delta),
                lambda Q: approximate_ldp_delta(Q, eps))
    if isinstance(mechanism, (UtilityOptimizedRR, UtilityOptimizedRAPPOR)):
        sensitive = np.array(mechanism.sensitive)
        return ("ULDP", lambda Q: certify_uldp(Q, sensitive, eps),
                lambda Q: uldp_epsilon(Q, sensitive))
    if isinstance(mechanism, SecretRandomizedResponse):
        groups = mechanism.secret_of()
        return ("RLDP over the whole simplex (LDP across secrets)",
                lambda Q: certify_ldp(Q, eps, groups), lambda Q: ldp_epsilon(Q, groups))
    return "LDP", lambda Q: certify_ldp(Q, eps), ldp_epsilon


def _output_labels(name: str, mechanism: "Mechanism", alphabet: dict[str, Any]) -> list[Any]:
    if name in ("rr", "geometric", "srr", "urr"):
        return alphabet["labels"]
    if name == "binary":
        return ["0", "1"]
    if name == "quaternary":
        return ["0", "1", "2", "3"]
    from rldp_models.mechanisms import bit_labels

    return bit_labels(len(alphabet["labels"]))
