"""The record contract on the command line: ``rldp verify`` checks a result record,
``rldp schema`` prints the JSON Schema every record follows.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rldp_models.cli.common import add_data_arguments
from rldp_models.cli import ExitCode
from rldp_models.errors import InputError

if TYPE_CHECKING:
    from rldp_models.certificates.verdict import VerificationReport


VERIFY_DESCRIPTION = """\
``rldp verify OUT.json [--counts FILE | --data FILE ...]``: check a result record.

Works on every record the toolkit writes (``rldp solve``, ``rldp mechanism``,
``rldp protocol``, ``CertifiedResult.to_record`` from Python) and on round-1
files, which are migrated on read. In order:

1. the file is read defensively (size, nesting depth, huge integers,
   non-finite numbers) and validated against the result schema (``rldp schema``);
2. the counts: ``--counts``/``--data`` if given, else those embedded in the
   record; the SHA-256 digest checked against is always printed, and must
   equal the record's;
3. two verdicts, each on its own line:

   * **guarantee**: the matrix meets its stated guarantee, checked exactly
     and independently of the certificate; a program is rebuilt from its
     declaration (library blocks, and third-party blocks registered through
     the ``rldp_models.blocks`` entry points or loaded from a file with
     ``--plugins FILE.py``, whose verdicts are marked as plug-in code); every
     set a block names itself is rebuilt from its declaration; the rows of a
     record written by this release must be dyadic and sum to exactly 1;
   * **certificate**: the stored multipliers or LP duals prove what the
     result claims, re-checked without the solver.

Exit codes (:class:`rldp_models.cli.ExitCode`): 0 both hold; 1 one fails
(named); 2 bad input (one line); 3 inconclusive (a check could not be
completed and none failed, named in one line: an inner solve failed, a cone
has more rays than are enumerated, or the RLDP checker could not prove any
finite level and says which ratio); 4 internal error (a bug, one line; ``RLDP_DEBUG=1`` for the
traceback). ``--report FILE`` also writes both verdicts as JSON.
"""

SCHEMA_DESCRIPTION = """\
``rldp schema``: print the JSON Schema of result records (the versioned record contract).

Every result the toolkit writes (``rldp solve``, ``rldp mechanism``, ``rldp
protocol``, or ``CertifiedResult.to_record`` in Python) follows it; ``rldp
verify`` validates a record against it before any check.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("verify", help="check a result's guarantee and certificate",
                                   description=VERIFY_DESCRIPTION)
    parser.add_argument("result", metavar="OUT.json")
    add_data_arguments(parser)
    parser.add_argument("--plugins", metavar="FILE.py", action="append", default=[],
                        help="a Python file defining blocks the record declares (repeatable); "
                        "their verdicts are marked as plug-in code")
    parser.add_argument("--report", metavar="REPORT.json",
                        help="also write both verdicts with every bound, attained value, gap "
                        "and worst-case distribution found")
    parser.set_defaults(func=run)
    schema = subparsers.add_parser("schema", help="print the JSON Schema of result records",
                                   description=SCHEMA_DESCRIPTION)
    schema.set_defaults(func=run_schema)


def run_schema(args: argparse.Namespace) -> int:
    from rldp_models.results.schema import schema_text

    print(schema_text(), end="")
    return 0


def run(args: argparse.Namespace) -> int:
    from rldp_models.results.blocks import load_plugin_file
    from rldp_models.results.files import read_record
    from rldp_models.results.record import migrate
    from rldp_models.results.schema import validate

    for plugin in args.plugins:
        load_plugin_file(plugin)
    record = migrate(read_record(args.result))
    validate(record)
    record = _with_proof_beside(record, args.result)
    crosstab = _counts(args, record)
    try:
        report = _checked(record, crosstab)
    except InputError:
        raise
    except Exception as exc:  # a bug or a failed inner solve, never the input's fault
        return _not_completed(exc)
    print("\n".join(report.lines()))
    if args.report:
        from rldp_models.certificates.verdict import report_to_json
        from rldp_models.results.files import write_record

        write_record(report_to_json(report), args.report)
    return _exit_code(report)


def _exit_code(report: VerificationReport) -> ExitCode:
    """OK when both verdicts hold, FAILED when one fails, INCONCLUSIVE (with the reason in
    one line on stderr) when a check could not be completed and none failed."""
    if report.holds:
        return ExitCode.OK
    if report.fails:
        return ExitCode.FAILED
    unchecked = next(v for v in (report.guarantee, report.certificate) if v.inconclusive)
    sys.stderr.write(f"rldp: inconclusive: {unchecked.headline}; nothing was shown to fail\n")
    return ExitCode.INCONCLUSIVE


def _checked(record: dict, crosstab):
    """Both verdicts (the long loops show progress bars: :mod:`rldp_models.progress`)."""
    from rldp_models.certificates.verification import verify_record

    return verify_record(record, crosstab)


def _counts(args: argparse.Namespace, record: dict):
    """The counts to check against (given, else embedded); prints their digest."""
    from rldp_models.cli.common import load_crosstab
    from rldp_models.results.counts import counts_digest, embedded_crosstab, recorded_digest

    given = args.counts is not None or args.data is not None
    if not given and record["result_type"] == "mechanism":
        return None
    crosstab = load_crosstab(args) if given else embedded_crosstab(record)
    if crosstab is None:
        raise InputError(f"verifying a {record['result_type']} result needs the counts: the "
                         "record does not embed them; give --counts FILE or --data FILE "
                         "--sensitive COL --public COL")
    digest, recorded = counts_digest(crosstab), recorded_digest(record)
    print(f"counts: {digest} ({'given' if given else 'embedded in the record'})")
    if recorded is not None and recorded != digest:
        raise InputError(f"the counts given (digest {digest}) are not the ones the result was "
                         f"made from (digest {recorded})")
    return crosstab


def _not_completed(exc: Exception) -> int:
    """Exit 3 when an inner solve failed (the check named), 4 for anything else (a bug)."""
    message = " ".join(str(exc).split())[:300]
    if os.environ.get("RLDP_DEBUG"):
        raise exc
    if type(exc).__name__ == "SolverError":
        sys.stderr.write(f"rldp: inconclusive: an inner solve of the verification failed "
                         f"({message}); nothing was shown to fail\n")
        return ExitCode.INCONCLUSIVE
    sys.stderr.write(f"rldp: internal error: {type(exc).__name__}: {message} (a bug in rldp, "
                     "not in the input; RLDP_DEBUG=1 shows the traceback)\n")
    return ExitCode.INTERNAL_ERROR


def _with_proof_beside(record: dict, result: str) -> dict:
    """A relative ``certificate.pricing_proof`` resolved against OUT.json's directory."""
    certificate = record.get("certificate")
    if not isinstance(certificate, dict):
        return record
    proof = certificate.get("pricing_proof")
    if isinstance(proof, str) and not Path(proof).is_absolute():
        certificate["pricing_proof"] = str(Path(result).parent / proof)
    return record
