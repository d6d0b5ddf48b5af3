"""Certificates of the toolkit's results and their verification (issue 5, DESIGN core idea 4).

Every robust constraint keeps its multipliers and every LP its duals; this
package re-checks them without the solver that produced them:
:mod:`~rldp_models.certificates.conic` (chi-square programs, 60-digit
interval arithmetic), :mod:`~rldp_models.conelp.exact_lp_dual` (cone-LP duals in
exact rationals), :mod:`~rldp_models.certificates.worst_case` (independent
inner solves),
:mod:`~rldp_models.certificates.sets` (the :class:`CertifiableSet` protocol)
and :mod:`~rldp_models.certificates.verification` (both verdicts of ``rldp verify``).

The names below are imported on first use, so that importing one checker
does not pull in the solvers the others need.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "CertifiableSet": "sets", "ChiSquareCertifiable": "sets",
    "Verdict": "verdict", "VerificationReport": "verdict",
    "result_type": "verification", "verify": "verification",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
