"""What both halves of ``rldp mechanism`` share: the prior file, the summary and the write.

The closed forms (:mod:`rldp_models.cli.mechanism`) and the cone-LP optima
(:mod:`rldp_models.cli.mechanism_optimal`) read a prior the same way and
report and write their result the same way.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rldp_models.cli.common import write_result
from rldp_models.cli import ExitCode
from rldp_models.errors import InputError

if TYPE_CHECKING:
    from rldp_models.certificates.verdict import Verdict
    from rldp_models.results.certified import CertifiedResult


def read_prior(path: str | Path) -> tuple[list[str], np.ndarray]:
    """Labels and normalised weights from a CSV with a header row and ``label,value`` rows."""
    try:
        with open(path, newline="") as handle:
            rows = [row for row in csv.reader(handle) if row]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{path}: cannot read the prior ({str(exc).splitlines()[0]})") from None
    body = rows[1:]
    if len(body) < 2:
        raise InputError(f"{path}: a prior needs a header row and at least 2 label,value rows")
    if any(len(row) != 2 for row in body):
        raise InputError(f"{path}: every row after the header must be label,value")
    labels = [row[0].strip() for row in body]
    if len(set(labels)) != len(labels):
        raise InputError(f"{path}: duplicate labels")
    try:
        weights = np.array([float(row[1]) for row in body])
    except ValueError:
        raise InputError(f"{path}: values must be numbers") from None
    if not np.all(np.isfinite(weights)) or np.any(weights < 0) or weights.sum() <= 0:
        raise InputError(f"{path}: values must be finite, >= 0, and not all 0")
    return labels, weights / weights.sum()


def write_and_report(result: "CertifiedResult", args: argparse.Namespace) -> int:
    """Print the summary of a mechanism result and write it when it is verified.

    A result is written (exit ``OK``) only when its guarantee holds and, for
    a cone LP's optimum, its certificate passes the check ``rldp verify``
    makes (:func:`optimality_verdict`); otherwise nothing is written and the
    exit code is ``FAILED`` (:class:`rldp_models.cli.ExitCode`), with one
    line on stderr naming what failed, or ``INCONCLUSIVE`` when the check could
    not be completed (the line says why). A written certificate's ``verified`` is
    that check's verdict, not the producer's float test
    (:func:`~rldp_models.results.mechanism_result.returned_verdict`), which can
    differ from it within rounding of a tolerance.
    """
    if result.matrix is None:  # closed forms and cone LPs always write their dense matrix
        raise TypeError(f"{args.name}: the result has no dense matrix")
    check = result.details["privacy_check"]
    value = result.value["value"]
    utility = "" if value is None else f", {result.value['measure']} utility = {value:.6g}"
    certificate = optimality_verdict(result) if result.holds else None
    verified = "" if certificate is None else "; certificate " + (
        "verified" if certificate.holds else
        "could not be checked" if certificate.inconclusive else "NOT verified")
    print(f"{args.name}: |X| = {result.matrix.shape[0]}, |Y| = {result.matrix.shape[1]}"
          f"{utility}; {check['notion']} at eps = {args.eps} "
          f"{'holds' if result.holds else 'FAILS'}{verified}")
    if result.repair.method != "none":
        print(f"  repaired to pass the exact check: Q: {_repair_name(result)} (weight "
              f"{result.repair.weight:.3g})")
    if certificate is not None and certificate.inconclusive:
        print("\n".join("  " + line for line in certificate.lines("certificate")))
        sys.stderr.write(f"rldp: {args.name}: not written: {check['notion']} holds but the "
                         f"certificate of optimality could not be checked "
                         f"({certificate.headline})\n")
        return ExitCode.INCONCLUSIVE
    if certificate is not None and not certificate.holds:
        print("\n".join("  " + line for line in certificate.lines("certificate")))
        reason = "its check above fails" if certificate.details else certificate.headline
        sys.stderr.write(f"rldp: {args.name}: not written: {check['notion']} holds but the "
                         f"certificate of optimality is not verified ({reason}; rldp verify "
                         f"would reject it){_why_unproven(result)}\n")
        return ExitCode.FAILED
    if certificate is not None:  # one verdict: the exact check's, not the float test's
        claimed = result.certificate.get("verified")
        holds = [True] * len(claimed) if isinstance(claimed, list) else True  # srlip: each
        result = dataclasses.replace(result, certificate={**result.certificate,
                                                          "verified": holds})
    return write_result(result, args.out, args.name)


def optimality_verdict(result: "CertifiedResult") -> "Verdict | None":
    """What ``rldp verify`` finds of the result's certificate; ``None`` when it claims nothing.

    The same check on the same record (:func:`rldp_models.certificates.verification.
    mechanism_certificate`: a cone LP's dual over every ray in exact rationals,
    staircases past 12 inputs by the independent pattern checker), so a
    written mechanism is one ``rldp verify`` accepts.
    """
    if result.certificate.get("kind", "none") == "none":  # closed forms claim no optimality
        return None
    from rldp_models.certificates.verification import mechanism_certificate
    from rldp_models.results.migration import producer_fields
    from rldp_models.results.record import to_record

    return mechanism_certificate(producer_fields(to_record(result)))


def _why_unproven(result: "CertifiedResult") -> str:
    """The likely reason, when the repair explains it."""
    if result.repair.method == "fallback":
        return ("; the LP's optimum failed the exact check and was replaced by the one-output "
                "mechanism (at eps = 0 its exact rationals need more than doubles: try eps > 0)")
    if result.repair.method != "none":
        return "; the repair that made Q pass the exact check cost more than the tolerance"
    return ""


def _repair_name(result: "CertifiedResult") -> str:
    """The repair of ``Q`` (for SRLIP the product's), the fallback named for what it is."""
    return "constant" if result.repair.method == "fallback" else result.repair.label
