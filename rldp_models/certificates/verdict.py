"""Verdicts of ``rldp verify``: one for the guarantee, one for the certificate."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import mpmath

from rldp_models.exact import digits_text
from rldp_models.results.json_ready import jsonable


@dataclass(frozen=True)
class Verdict:
    """Whether one claim of a result holds, a one-line headline and detail lines.

    A verdict is in one of three states: it *holds*, it *fails* (the check found
    the claim false), or it is *inconclusive* (``holds`` is false and
    ``inconclusive`` true: the check could not be completed, e.g. a cone with
    more rays than are enumerated; nothing was shown to fail). The headline of
    an inconclusive verdict says why, in one line. ``data`` keeps what the
    check found (bounds, worst-case distributions) for callers that want more
    than the text.
    """

    holds: bool
    headline: str
    details: tuple[str, ...] = ()
    data: dict = field(default_factory=dict, compare=False)
    inconclusive: bool = False

    def __post_init__(self) -> None:
        if self.holds and self.inconclusive:
            raise ValueError("a verdict that holds is not inconclusive")

    @classmethod
    def could_not_check(cls, reason: str, details: tuple[str, ...] = ()) -> "Verdict":
        """An inconclusive verdict: ``reason`` (one line) says what could not be checked."""
        return cls(False, reason, details, inconclusive=True)

    @classmethod
    def all_of(cls, parts: Sequence["Verdict"], headline: str, details: tuple[str, ...] = (),
               data: dict | None = None) -> "Verdict":
        """One verdict for several checks: it fails if one fails, else it is inconclusive if
        one is, else it holds."""
        return cls(all(part.holds for part in parts), headline, details, data or {},
                   inconclusive=not any(part.fails for part in parts)
                   and any(part.inconclusive for part in parts))

    @property
    def fails(self) -> bool:
        """The check found the claim false (not merely unable to check it)."""
        return not self.holds and not self.inconclusive

    @property
    def state(self) -> str:
        """``"holds"``, ``"FAILS"`` or ``"INCONCLUSIVE"``, as the report prints it."""
        return "holds" if self.holds else "INCONCLUSIVE" if self.inconclusive else "FAILS"

    def lines(self, label: str) -> list[str]:
        return [f"{label}: {self.state} -- {self.headline}",
                *(f"  {line}" for line in self.details)]


@dataclass(frozen=True)
class VerificationReport:
    """Both verdicts on a result file."""

    result_type: str
    guarantee: Verdict
    certificate: Verdict

    @property
    def holds(self) -> bool:
        return self.guarantee.holds and self.certificate.holds

    @property
    def fails(self) -> bool:
        """A check found a claim false."""
        return self.guarantee.fails or self.certificate.fails

    def lines(self) -> list[str]:
        """The printed report; the last line names what failed, or else what could not be
        checked, if anything."""
        verdicts = (("guarantee", self.guarantee), ("certificate", self.certificate))
        lines = [*self.guarantee.lines("guarantee"), *self.certificate.lines("certificate")]
        failed = [name for name, v in verdicts if v.fails]
        unchecked = [name for name, v in verdicts if v.inconclusive]
        if failed:
            lines.append(f"FAIL: the {' and the '.join(failed)} check failed")
        elif unchecked:
            lines.append(f"INCONCLUSIVE: the {' and the '.join(unchecked)} check could not "
                         "be completed; nothing was shown to fail")
        return lines


def report_to_json(report: VerificationReport) -> dict[str, Any]:
    """The report as JSON-ready data: both verdicts with everything their checks found.

    Bounds computed in high precision are written as decimal strings of 30
    significant digits; per robust constraint the data hold the certified
    bound, its violation, the attained value, the gap and the worst-case
    distribution in ``F``.
    """
    def verdict(v: Verdict) -> dict[str, Any]:
        return {"holds": v.holds, "inconclusive": v.inconclusive, "headline": v.headline,
                "details": list(v.details), "data": _plain(v.data)}

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
