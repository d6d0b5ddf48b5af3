"""``rldp verify OUT.json [--counts FILE | --data FILE ...]``: check a result and its certificate.

Works on every result the toolkit writes: ``rldp solve``, ``rldp mechanism``
and ``rldp protocol`` (told apart by ``result_type``, or for older files by
their keys). Two verdicts are printed, each on its own line:

* **guarantee**: the protocol or mechanism meets its stated privacy
  guarantee, checked exactly and independently of the certificate —
  nominal (at ``Phat``) or robust (over the chi-square set, or in product
  form over the KL, TV or box set the result names) for solve results, the
  mechanism's own notion for mechanisms, (eps, F)-RLDP for protocols — with
  the worst-case eps it achieves;
* **certificate**: the stored multipliers or LP duals prove what the result
  claims, re-checked without the solver (see :mod:`rldp_models.certificates`).

Exit 0 only if both hold; 1 otherwise, saying which failed; 2 on bad input.
``--report FILE`` also writes both verdicts as JSON with, per robust
constraint, the certified bound, the attained worst case, the gap and the
worst-case distribution in F.
Solve and protocol results need the counts; mechanism results do not.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rldp_models.certificates import verify
from rldp_models.certificates.verdict import report_to_json
from rldp_models.certificates.verification import needs_counts
from rldp_models.cli.common import add_data_arguments, load_crosstab
from rldp_models.results_io import read_record, write_json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("verify", help="check a result's guarantee and certificate",
                                   description=__doc__)
    parser.add_argument("result", metavar="OUT.json")
    add_data_arguments(parser)
    parser.add_argument("--report", metavar="REPORT.json",
                        help="also write both verdicts with every bound, attained value, gap "
                        "and worst-case distribution found")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    record = _with_proof_beside(read_record(args.result), args.result)
    report = verify(record, load_crosstab(args) if needs_counts(record) else None)
    print("\n".join(report.lines()))
    if args.report:
        write_json(report_to_json(report), args.report)
    return 0 if report.holds else 1


def _with_proof_beside(record: dict, result: str) -> dict:
    """A relative ``certificate.pricing_proof`` resolved against OUT.json's directory."""
    certificate = record.get("certificate")
    proof = certificate.get("pricing_proof") if isinstance(certificate, dict) else None
    if isinstance(proof, str) and not Path(proof).is_absolute():
        certificate["pricing_proof"] = str(Path(result).parent / proof)
    return record
