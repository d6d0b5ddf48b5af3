"""Certificates in result files: what they certify (``kind``), versioned, to and from JSON.

A certificate record is the ``certificate`` object of a result file:

``{"kind": KIND, "version": 1, ...}`` with the fields of its kind:

* ``"chi-square-conic"`` (``rldp solve``): ``multipliers`` (per robust
  constraint group, see :mod:`rldp_models.privacy.pair_certificate`) and
  ``duals`` (the solver's duals, for information);
* ``"set-conic"`` (``rldp solve --uncertainty kl|tv|box``): the same fields,
  robust privacy in product form (:mod:`rldp_models.privacy.set_privacy`) and
  the objective's multipliers under the set's own names;
* ``"lp-dual"`` (cone-LP mechanisms, and PolyOpt protocols with ``cone``
  ``"polyopt-gamma"`` and ``finer``): ``dual`` (one number per input),
  ``rhs``, ``cone`` (:data:`LP_CONES`), ``utility`` (``measure`` and its
  ``parameters``), ``solver_dual`` (the LP's own dual before
  :func:`~rldp_models.conelp.exact_lp_dual.corrected_dual`), ``correction`` and the
  engine's own figures (``max_violation``, ``duality_gap``, ``upper_bound``,
  ``verified``); for ``srlip`` every field is a list over the attributes;
* ``"none"``: closed-form mechanisms and protocols, which claim no optimality.

Files written before the field existed are read by the keys present.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rldp_models.errors import InputError
from rldp_models.results.json_ready import jsonable
from rldp_models.uncertainty.base import Capability, UncertaintySet

VERSION = 1
KINDS = ("chi-square-conic", "set-conic", "lp-dual", "none")
LP_CONES = {"staircase": "ldp", "ldp-s": "ldp-wrt-secret", "lip": "lip", "srlip": "srlip"}
"""The privacy cone of each cone-LP mechanism's LP (the ``cone`` field)."""


def conic_kind(uncertainty: UncertaintySet | None) -> str:
    """A solve result's certificate kind: ``chi-square-conic`` without a set or over one with
    exact pair projections (robust privacy by eq. 30), else ``set-conic`` (product form)."""
    if uncertainty is None or Capability.EXACT_PAIR in uncertainty.capabilities:
        return "chi-square-conic"
    return "set-conic"


@dataclass(frozen=True)
class CertificateRecord:
    """A certificate as stored in a result file.

    Attributes
    ----------
    kind : str
        One of :data:`KINDS`.
    fields : dict
        The kind's fields (see the module docstring).
    version : int
    """

    kind: str
    fields: dict[str, Any] = field(default_factory=dict)
    version: int = VERSION

    def to_json(self) -> dict[str, Any]:
        """The JSON object (made JSON-ready by :func:`rldp_models.results.json_ready.jsonable`)."""
        return jsonable({"kind": self.kind, "version": self.version, **self.fields})

    @classmethod
    def from_json(cls, value: Any) -> "CertificateRecord":
        """Read a ``certificate`` object, inferring ``kind`` for files that lack it."""
        if value is None:
            return cls("none")
        if not isinstance(value, dict):
            raise InputError("the result's certificate is not a JSON object")
        kind = value.get("kind") or _inferred_kind(value)
        if kind not in KINDS:
            raise InputError(f"unknown certificate kind {kind!r}; known: {', '.join(KINDS)}")
        version = value.get("version", VERSION)
        if version != VERSION:
            raise InputError(f"certificate version {version} is not supported (only {VERSION})")
        fields = {k: v for k, v in value.items() if k not in ("kind", "version")}
        return cls(kind, fields, VERSION)


def _inferred_kind(value: dict[str, Any]) -> str:
    if "multipliers" in value or "duals" in value:
        return "chi-square-conic"
    if "dual" in value:
        return "lp-dual"
    return "none"
