"""``rldp release``: privatise records with a certified result, drawing every value exactly.

Each record's (s, u) selects a row of RESULT.json's matrix (or, for IR, GRR-CR
and UE-CR, the rows of its factors); the released Y is drawn from the row's
dyadic probabilities k / 2^m with m uniform random bits from the operating
system's cryptographic source (DESIGN.md "Exact release"), so the guarantee
proven for the matrix holds for the released values. The output keeps the
records' order and has one column Y (and the --keep columns, which are
outside the guarantee). Records whose (s, u) the result does not cover are
refused before anything is written. --seed N uses a seeded generator, for
tests and reproductions only: the output's first line marks it NOT FOR RELEASE.
The output's header is preceded by a line '# result sha256:...' with the
digest of RESULT.json's bytes (what sha256sum prints); rldp estimate refuses
another result.
Large files are streamed in chunks. Before releasing, the result's guarantee
is re-checked exactly from the record and its embedded counts, as rldp verify
does (exit 1 and nothing written if it fails; --no-verify skips it).
"""

from __future__ import annotations

import argparse
import sys
import warnings

from rldp_models.cli.common import seed
from rldp_models.cli import ExitCode


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("release", help="privatise records with a result, exactly",
                                   description=__doc__)
    parser.add_argument("result", metavar="RESULT.json", help="a result record (solve, "
                        "protocol or mechanism over a crosstab)")
    parser.add_argument("--data", metavar="FILE", required=True,
                        help="records CSV with a header row")
    parser.add_argument("--sensitive", metavar="COL", required=True, help="column of S")
    parser.add_argument("--public", metavar="COL", required=True, help="column of U")
    parser.add_argument("--out", metavar="FILE.csv", required=True, help="released records")
    parser.add_argument("--keep", metavar="COL", nargs="+", default=[],
                        help="columns copied as they are (outside the guarantee)")
    parser.add_argument("--seed", type=seed, metavar="N",
                        help="seeded generator: reproducible, marked NOT FOR RELEASE")
    parser.add_argument("--no-verify", action="store_true",
                        help="skip re-checking the result's guarantee before releasing")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rldp_models.api import release
    from rldp_models.disclosure.channel import GuaranteeNotVerified
    from rldp_models.disclosure.records import refuse_released

    refuse_released(args.data, "--data")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            released = release(args.result, args.data, sensitive=args.sensitive,
                               public=args.public, keep=args.keep, seed=args.seed,
                               out=args.out, check=not args.no_verify)
        except GuaranteeNotVerified as exc:
            sys.stderr.write(f"rldp: release: {exc}\n")
            return ExitCode.FAILED
    if released.checked:
        (print if released.checked.startswith("guarantee") else _warn)(released.checked)
    print_warnings(caught)
    print(released.summary())
    return ExitCode.OK


def _warn(message: str) -> None:
    sys.stderr.write(f"rldp: warning: {message}\n")


def print_warnings(caught: list[warnings.WarningMessage]) -> None:
    """Each caught warning as one ``rldp: warning:`` line on stderr."""
    for warning in caught:
        sys.stderr.write(f"rldp: warning: {' '.join(str(warning.message).split())}\n")
