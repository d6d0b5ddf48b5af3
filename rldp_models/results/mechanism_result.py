"""Mechanisms as :class:`~rldp_models.results.certified.CertifiedResult`: cone-LP optima
(staircase, LDP w.r.t. S, LIP, SRLIP) and the closed forms.

Python callers get the same result (and record) as ``rldp mechanism``::

    result = lip_result(conelp.lip_mechanism(joint, eps), joint, eps)
    write_result(result, "lip.json")  # results.files.write_result; rldp verify accepts it

Closed-form matrices are computed in floating point; they go through the one
finish path (:func:`rldp_models.finish.finish`): dyadic rows, the
notion's exact check, a repair by mixing with the uniform mechanism if the
rounding broke it. Cone-LP mechanisms come finished from
:mod:`rldp_models.conelp.mechanism`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rldp_models.conelp.exact_lp_dual import FEASIBILITY_TOLERANCE, GAP_TOLERANCE
from rldp_models.errors import InputError
from rldp_models.finish import GuaranteeError, Repair, finish
from rldp_models.mechanisms.declarations import declared_mechanism
from rldp_models.privacy import certify_srlip, srlip_epsilon, srlip_epsilons
from rldp_models.results.certificate_record import VERSION as CERTIFICATE_VERSION
from rldp_models.results.certificate_record import CertificateRecord
from rldp_models.results.certified import CertifiedResult, Declaration, GuaranteeVerdict
from rldp_models.results.json_ready import jsonable
from rldp_models.results.lp_certificate import attribute_writer_fields, writer_fields
from rldp_models.utility import MutualInformation

if TYPE_CHECKING:
    from rldp_models.conelp import DualCertificate, OptimalMechanism, SRLIPMechanism
    from rldp_models.privacy import Certification
    from rldp_models.utility import SublinearUtility


@dataclass(frozen=True)
class MechanismInputs:
    """What a cone LP's result record needs besides the mechanism.

    Attributes
    ----------
    x_labels : list of str
    prior : ndarray
        A distribution of X (the prior, ``P_0`` or the joint's X marginal).
    utility : SublinearUtility
    measure : str
        ``mi``, ``kl``, ``tv`` or ``chi2``.
    s_labels : list of str or None
    joint : ndarray or None
        ``P(S=s, X=x)`` (LDP w.r.t. S, LIP, SRLIP).
    """

    x_labels: list[str]
    prior: np.ndarray
    utility: "SublinearUtility"
    measure: str
    s_labels: list[str] | None = None
    joint: np.ndarray | None = None

    @property
    def secret_joint(self) -> np.ndarray:
        """``joint``, which LDP w.r.t. S, LIP and SRLIP cannot do without."""
        if self.joint is None:
            raise InputError("this mechanism needs the joint P(S, X)")
        return self.joint

    @classmethod
    def from_joint(cls, joint: np.ndarray, x_labels: list[str] | None = None,
                   s_labels: list[str] | None = None) -> "MechanismInputs":
        """Inputs of LIP or SRLIP (mutual information under the joint's X marginal)."""
        joint = np.asarray(joint, dtype=float)
        prior = joint.sum(axis=0)
        return cls(x_labels or [str(x) for x in range(joint.shape[1])], prior,
                   MutualInformation(prior), "mi",
                   s_labels or [str(s) for s in range(joint.shape[0])], joint)


def optimal_mechanism_result(name: str, result: "OptimalMechanism", inputs: MechanismInputs,
                             eps: float) -> CertifiedResult:
    """``staircase``, ``ldp-s`` or ``lip`` with its LP dual as certificate."""
    certificate = result.solution.certificate
    declared = declared_mechanism(name)
    if declared.cone is None:
        raise InputError(f"{name} is a closed form, not a cone-LP optimum")
    dual = _joint_dual(certificate, inputs.prior) if declared.joint_dual else certificate.dual
    outputs = [str(y) for y in range(result.Q.shape[1])]
    data = {"joint": inputs.joint}
    level = None if declared.level is None else declared.level(result.Q, data)
    fields = {**_common_fields(name, inputs, result.Q, result.utility, outputs, eps),
              "repair_method": result.repair.method, "repair_weight": result.repair.weight,
              "certificate": {**_certificate_fields(certificate, dual, result.utility),
                              **writer_fields(declared.cone, inputs.measure, inputs.utility,
                                              eps, dual, inputs.joint)},
              "privacy_check": check_fields(declared.notion,
                                            declared.certify(result.Q, eps, data), level)}
    return _mechanism_result(fields, result.repair)


def lip_result(result: "OptimalMechanism", joint: np.ndarray, eps: float,
               x_labels: list[str] | None = None,
               s_labels: list[str] | None = None) -> CertifiedResult:
    """The result of :func:`rldp_models.conelp.lip_mechanism` on ``joint`` at ``eps``."""
    return optimal_mechanism_result("lip", result,
                                    MechanismInputs.from_joint(joint, x_labels, s_labels), eps)


def srlip_result(result: "SRLIPMechanism", inputs: MechanismInputs, sizes: tuple[int, ...],
                 eps: float) -> CertifiedResult:
    """SRLIP: the product, its attributes and per-attribute certificates."""
    outputs = [[str(y) for y in ys] for ys in
               itertools.product(*(range(a.Q.shape[1]) for a in result.attributes))]
    joint = inputs.secret_joint.reshape(-1, *sizes)
    per_attribute = [{**_certificate_fields(a.solution.certificate, a.solution.certificate.dual,
                                            a.utility),
                      **attribute_writer_fields(joint, j, a.eps, a.solution.certificate.dual)}
                     for j, a in enumerate(result.attributes)]
    fields = {**_common_fields("srlip", inputs, result.Q, result.utility, outputs, eps),
              "repair_method": [a.repair.method for a in result.attributes],
              "repair_weight": [a.repair.weight for a in result.attributes],
              "product_repair": {"method": result.repair.method, "weight": result.repair.weight},
              "certificate": {"kind": "lp-dual", "version": CERTIFICATE_VERSION, "cone": "srlip",
                              **{key: [c[key] for c in per_attribute]
                                 for key in per_attribute[0]}},
              "privacy_check": _srlip_check(result, inputs, sizes),
              "attribute_sizes": list(sizes), "split": list(result.split),
              "attributes": [{"Q": a.Q.tolist(), "eps": a.eps, "utility": a.utility}
                             for a in result.attributes]}
    return _mechanism_result(fields, result.repair)


DECLARED = ("eps", "delta", "split", "attribute_sizes", "utility_measure")
"""What a mechanism's declaration states (its parameters), once: the details do not repeat it."""


def _mechanism_result(fields: dict[str, Any], repair: Repair) -> CertifiedResult:
    """The result of a mechanism: its matrix and labels, its declaration (name and
    parameters), the exact verdict of its notion; the rest of ``fields`` (the joint, the
    attributes, the repair per attribute, ...) as the details the verifier reads."""
    fields = jsonable(fields)
    check, labels = fields["privacy_check"], fields["labels"]
    stated = {key: fields[key] for key in DECLARED if fields.get(key) is not None}
    return CertifiedResult(
        "mechanism", np.asarray(fields["Q"], dtype=float), list(labels["X"]), list(labels["Y"]),
        {"measure": str(fields.get("utility_measure", "mi")), "value": fields.get("utility"),
         "sense": "max"},
        (GuaranteeVerdict(str(check["notion"]), float(fields["eps"]), bool(check["holds"]),
                          f"level {check.get('level')}"),),
        CertificateRecord.from_json(fields.get("certificate")).to_json(), repair,
        Declaration("mechanism", str(fields["mechanism"]), [], None, stated),
        details={key: value for key, value in fields.items()
                 if key not in (*stated, "Q", "certificate", "result_type")})


def _common_fields(name: str, inputs: MechanismInputs, Q: np.ndarray, utility: float,
                   outputs: list[Any], eps: float) -> dict[str, Any]:
    labels: dict[str, Any] = {"X": inputs.x_labels, "Y": outputs}
    if inputs.s_labels is not None:
        labels = {"S": inputs.s_labels, **labels}
    fields = {"result_type": "mechanism", "mechanism": name, "eps": eps,
              "utility_measure": inputs.measure, "utility": utility, "labels": labels,
              "Q": Q.tolist()}
    if inputs.joint is not None:
        fields["joint"] = inputs.joint.tolist()
    return fields


def _joint_dual(certificate: "DualCertificate", p_x: np.ndarray) -> np.ndarray:
    """The joint-form dual ``lam`` (inputs of positive mass) as ``lam_x p_x`` on all inputs."""
    dual = np.zeros(p_x.size)
    dual[p_x > 0] = certificate.dual * p_x[p_x > 0]
    return dual


def _certificate_fields(certificate: "DualCertificate", dual: np.ndarray,
                        returned_utility: float) -> dict[str, Any]:
    return {"dual": np.asarray(dual).tolist(), "max_violation": certificate.max_violation,
            "duality_gap": certificate.duality_gap, "upper_bound": certificate.upper_bound,
            "verified": returned_verdict(certificate.max_violation, certificate.upper_bound,
                                         returned_utility)}


def returned_verdict(max_violation: float, upper_bound: float, returned_utility: float) -> bool:
    """What ``rldp verify`` will find of an LP-dual certificate for the *returned* ``Q``.

    The two tests of :class:`~rldp_models.conelp.exact_lp_dual.LPCheck`, with
    its tolerances, on the matrix after any repair (not the LP's own optimum):
    the dual feasible to ``FEASIBILITY_TOLERANCE`` per unit ray mass, and
    ``U(Q)`` within ``GAP_TOLERANCE (1 + |bound|)`` of the bound. ``rldp
    verify`` redoes both exactly; these floats decide the same way except
    within rounding of a tolerance.
    """
    return bool(float(max_violation) <= FEASIBILITY_TOLERANCE
                and float(upper_bound) - float(returned_utility)
                <= GAP_TOLERANCE * (1.0 + abs(float(upper_bound))))


def _srlip_check(result: "SRLIPMechanism", inputs: MechanismInputs, sizes: tuple[int, ...]
                 ) -> dict[str, Any]:
    """Exact SRLIP verdict of the product, its float level and Theorem 3's per-attribute levels."""
    verdict = certify_srlip(result.Q, inputs.secret_joint, sizes, result.eps)
    attribute_levels = srlip_epsilons([a.Q for a in result.attributes], inputs.secret_joint)
    return {**check_fields("SRLIP w.r.t. S", verdict,
                           srlip_epsilon(result.Q, inputs.secret_joint, sizes)),
            "attribute_levels": attribute_levels.tolist()}


def check_fields(notion: str, verdict: "Certification", level: float | None) -> dict[str, Any]:
    """``privacy_check`` of a mechanism record: the exact verdict, its level, worst pair."""
    worst_pair = None if verdict.worst_pair is None else list(verdict.worst_pair)
    return {"notion": notion, "holds": bool(verdict.holds), "level": level, "exact": True,
            "worst_pair": worst_pair}


@dataclass(frozen=True)
class ClosedForm:
    """A closed-form mechanism's matrix and what its record says about it.

    Attributes
    ----------
    name : str
    Q : ndarray
        In floating point, before finishing.
    eps : float
    notion : str
        The notion its exact check decides.
    certify : callable
        ``certify(Q)``: the notion's exact verdict (a ``Certification``).
    level : callable
        ``level(Q)``: the notion's float level, for information.
    labels : dict
        ``X`` and ``Y`` labels.
    prior : ndarray or None
        For ``I(X;Y)``.
    extra : dict
        Further fields the verifier reads (``delta``, ``sensitive``, ``S``, ``U``, ``T``).
    reference : ndarray or None
        Strictly feasible matrix to mix with if rounding broke the notion
        (default uniform; ULDP needs its own structure kept: the mechanism
        at eps = 0, whose sensitive outputs have ratio 1 and whose
        non-sensitive outputs stay unreachable).
    """

    name: str
    Q: np.ndarray
    eps: float
    notion: str
    certify: Any
    level: Any
    labels: dict[str, Any]
    prior: np.ndarray | None = None
    extra: dict[str, Any] | None = None
    reference: np.ndarray | None = None


def closed_form_result(mechanism: ClosedForm) -> CertifiedResult:
    """A closed-form mechanism finished to dyadic rows and checked exactly (module docstring)."""
    prior = mechanism.prior
    utility = None if prior is None else MutualInformation(prior).total

    try:
        finished = finish(mechanism.Q, lambda Q, weight: mechanism.certify(Q), lambda v: v.holds,
                          value=utility,
                          reference=mechanism.reference,
                          first_weight=2.0**-40 if mechanism.eps > 0 else None)
    except GuaranteeError as failure:  # reported as a failed guarantee, and not written
        if failure.unrepaired is None:
            raise
        finished = failure.unrepaired
    Q = finished.matrix
    fields = {"result_type": "mechanism", "mechanism": mechanism.name, "eps": mechanism.eps,
              "delta": (mechanism.extra or {}).get("delta"), "labels": mechanism.labels,
              "Q": Q.tolist(), "utility": None if utility is None else utility(Q),
              "privacy_check": check_fields(mechanism.notion, finished.verdict,
                                            mechanism.level(Q)),
              **{k: v for k, v in (mechanism.extra or {}).items() if k != "delta"}}
    return _mechanism_result(fields, finished.repair)
