"""Verdicts of ``rldp verify``: one for the guarantee, one for the certificate."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import mpmath

from rldp_models.precision import digits_text
from rldp_models.results.json_ready import jsonable


@dataclass(frozen=True)
class Verdict:
    """Whether one claim of a result holds, a one-line headline and detail lines.

    ``data`` keeps what the check found (bounds, worst-case distributions) for
    callers that want more than the text.
    """

    holds: bool
    headline: str
    details: tuple[str, ...] = ()
    data: dict = field(default_factory=dict, compare=False)

    def lines(self, label: str) -> list[str]:
        state = "holds" if self.holds else "FAILS"
        return [f"{label}: {state} -- {self.headline}", *(f"  {line}" for line in self.details)]


@dataclass(frozen=True)
class VerificationReport:
    """Both verdicts on a result file."""

    result_type: str
    guarantee: Verdict
    certificate: Verdict

    @property
    def holds(self) -> bool:
        return self.guarantee.holds and self.certificate.holds

    def lines(self) -> list[str]:
        """The printed report; the last line names what failed, if anything."""
        lines = [*self.guarantee.lines("guarantee"), *self.certificate.lines("certificate")]
        failed = [name for name, v in (("guarantee", self.guarantee),
                                       ("certificate", self.certificate)) if not v.holds]
        if failed:
            lines.append(f"FAIL: the {' and the '.join(failed)} check failed")
        return lines


def report_to_json(report: VerificationReport) -> dict[str, Any]:
    """The report as JSON-ready data: both verdicts with everything their checks found.

    Bounds computed in high precision are written as decimal strings of 30
    significant digits; per robust constraint the data hold the certified
    bound, its violation, the attained value, the gap and the worst-case
    distribution in ``F``.
    """
    def verdict(v: Verdict) -> dict[str, Any]:
        return {"holds": v.holds, "headline": v.headline, "details": list(v.details),
                "data": _plain(v.data)}

    return jsonable({"result_type": report.result_type, "holds": report.holds,
                     "guarantee": verdict(report.guarantee),
                     "certificate": verdict(report.certificate)})


def _plain(value: Any) -> Any:
    """Dataclasses (with their properties), mpmath numbers and containers as plain data."""
    if isinstance(value, mpmath.mpf):
        return digits_text(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        plain = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        plain.update({name: getattr(value, name) for name, member in vars(type(value)).items()
                      if isinstance(member, property)})
        return {key: _plain(item) for key, item in plain.items()}
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value
