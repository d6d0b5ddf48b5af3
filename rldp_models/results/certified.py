"""``CertifiedResult``: the one result every producer of a protocol or mechanism returns.

Robust programs (:class:`~rldp_models.programs.solution.ProtocolSolution`),
cone-LP optima (:class:`~rldp_models.conelp.mechanism.OptimalMechanism`,
:class:`~rldp_models.conelp.srlip.SRLIPMechanism`), closed-form mechanisms,
RLDP protocols (:class:`~rldp_models.rldp_protocols.base.RLDPProtocol`) and
PolyOpt (:class:`~rldp_models.rldp_protocols.polyopt.PolyOptResult`) keep their
own types as internals; :mod:`rldp_models.results.producers` turns each into
this one, whose JSON record (:func:`rldp_models.results.record.to_record`, written by
:func:`rldp_models.results.files.write_result`; schema in
:mod:`rldp_models.results.schema`) is what ``rldp verify`` checks. This module
imports neither: the serialiser and the writer build on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from rldp_models.finish import Repair

if TYPE_CHECKING:
    from rldp_models.data import Crosstab

RESULT_TYPES = ("solve", "mechanism", "protocol")
REPRESENTATIONS = ("dense", "product")
"""How the matrix is stored: ``dense`` rows, or ``product`` factors (IR, GRR-CR, UE-CR;
:mod:`rldp_models.results.factored_result`), with dense rows too when they are small."""


@dataclass(frozen=True)
class GuaranteeVerdict:
    """One guarantee the result was built to meet, with the exact verdict on its matrix.

    Attributes
    ----------
    notion : str
        What is guaranteed, e.g. ``"robust"`` (eq. 23 over F), ``"nominal"``
        (eq. 6 at Phat), ``"LDP"``, ``"(eps, F)-RLDP"``.
    eps : float
    holds : bool
        The exact verdict (rationals and interval refinement), not a float test.
    detail : str
        One line: the worst margin or level, where it is attained.
    block : str or None
        The declared block the guarantee comes from (programs).
    source : str
        ``"library"`` or ``"plugin:<distribution>"`` for a third-party block.
    """

    notion: str
    eps: float
    holds: bool
    detail: str = ""
    block: str | None = None
    source: str = "library"


@dataclass(frozen=True)
class SolverRecord:
    """The solver's name, status and timings (seconds)."""

    name: str
    status: str
    timings: dict[str, float | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Declaration:
    """What produced the result, enough for ``rldp verify`` to re-check it.

    Attributes
    ----------
    producer : str
        ``"program"``, ``"mechanism"`` or ``"protocol"``.
    name : str
        The preset or producer name (``RURP``, ``staircase``, ``polyopt``, or a
        user's name for a custom program).
    blocks : list of dict
        Programs: ``{"block", "role" (objective|constraint), "parameters",
        "source"}`` per block (:mod:`rldp_models.results.blocks`).
    uncertainty : dict or None
        The set: ``set`` (its name), ``radius``, and every other parameter the
        set declares (:func:`rldp_models.uncertainty.declared.set_declaration`).
    parameters : dict
        The producer's own parameters (eps, alpha, distortion, outputs, ...).
    """

    producer: str
    name: str
    blocks: list[dict[str, Any]] = field(default_factory=list)
    uncertainty: dict[str, Any] | None = None
    parameters: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CertifiedResult:
    """A protocol or mechanism with everything needed to trust it.

    Attributes
    ----------
    result_type : {"solve", "mechanism", "protocol"}
    matrix : ndarray, shape (|X|, |Y|), or None
        ``P(Y=y | X=x)``, rows of dyadic rationals summing to exactly 1; ``None``
        for a product whose dense matrix is too large to write.
    inputs, outputs : list
        Labels of the rows (``[s, u]`` pairs over a crosstab) and columns.
    value : dict
        ``measure`` (what the value measures), ``value`` and ``sense``
        (``"min"`` or ``"max"``).
    guarantees : tuple of GuaranteeVerdict
    certificate : dict
        The certificate record (:mod:`rldp_models.results.certificate_record`).
    repair : Repair
        The one repair record (method, weight, cost).
    solver : SolverRecord or None
    declaration : Declaration
    crosstab : Crosstab or None
        The counts the result was made from (embedded, or kept as a digest).
    details : dict
        The producer's further fields the verifier reads (eps, alpha, n,
        radius_B, the RLDP bracket, the joint, ...).
    representation : str
        ``"dense"`` or ``"product"`` (see :data:`REPRESENTATIONS`).
    product : dict or None
        The product representation (``kind``, ``S``, ``U``, ``factors``,
        ``coordinates``; :func:`rldp_models.rldp_protocols.factored_record`).
    attachments : dict
        Files written beside the record, not inside it: ``pricing_proof``
        (PolyOpt's branch-and-bound proof, saved as ``OUT.proof.npz`` and named
        in ``certificate.pricing_proof``).
    """

    result_type: str
    matrix: np.ndarray | None
    inputs: list[Any]
    outputs: list[Any]
    value: dict[str, Any]
    guarantees: tuple[GuaranteeVerdict, ...]
    certificate: dict[str, Any]
    repair: Repair
    declaration: Declaration
    solver: SolverRecord | None = None
    crosstab: "Crosstab | None" = None
    details: dict[str, Any] = field(default_factory=dict)
    representation: str = "dense"
    product: dict[str, Any] | None = None
    attachments: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def holds(self) -> bool:
        """Whether every guarantee holds (exactly)."""
        return bool(self.guarantees) and all(g.holds for g in self.guarantees)

    @property
    def failed(self) -> list[GuaranteeVerdict]:
        return [g for g in self.guarantees if not g.holds]
