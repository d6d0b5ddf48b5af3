"""What a mechanism record declares: its name, the notion it guarantees, and ``certify``.

Every mechanism ``rldp mechanism`` writes (the closed forms of this package and
the cone-LP optima of :mod:`rldp_models.conelp`) is declared here once, with
the exact check of its notion (:mod:`rldp_models.privacy.matrix_checks`).
``certify(Q, eps, data)`` receives the matrix, the declared eps and the
record's data (``delta``; ``sensitive``; ``S`` and ``U``; the ``joint``;
``attribute_sizes``), so ``rldp verify`` calls it without knowing any
mechanism by name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from rldp_models import privacy
from rldp_models.errors import InputError
from rldp_models.privacy import Certification

Certify = Callable[[np.ndarray, float, Mapping[str, Any]], Certification]
Level = Callable[[np.ndarray, Mapping[str, Any]], float]


@dataclass(frozen=True)
class MechanismDeclaration:
    """A mechanism as its record declares it.

    Attributes
    ----------
    name : str
        As ``rldp mechanism NAME`` and the record's ``declaration.name`` spell it.
    notion : str
        The guarantee its exact check decides (``LDP``, ``ULDP``, ...).
    certify : callable
        ``certify(Q, eps, data)``: the notion's exact verdict on ``Q``.
    cone : str or None
        A cone-LP optimum's privacy cone, whose LP dual its certificate holds (the
        certificate's ``cone`` field); None for a closed form, which claims no optimality.
    per_attribute : bool
        The certificate holds one dual per attribute (SRLIP, privacy funnel Thm 3).
    level : callable or None
        ``level(Q, data)``: the notion's float level of ``Q``, for information (a cone-LP
        optimum's record states it).
    joint_dual : bool
        The LP's dual is over inputs of positive mass and is recorded in joint form
        (``lam_x p_x`` on all inputs; LIP).
    staircase_pattern : bool
        Beyond the rays an exact check enumerates, its dual is checked by the staircase
        pattern checker (:mod:`rldp_models.certificates.staircase_check`; the LDP cone).
    """

    name: str
    notion: str
    certify: Certify
    cone: str | None = None
    per_attribute: bool = False
    level: Level | None = None
    joint_dual: bool = False
    staircase_pattern: bool = False


def _recorded(data: Mapping[str, Any], key: str, name: str) -> Any:
    if data.get(key) is None:
        raise InputError(f"this {name} result does not record its {key}; re-run rldp "
                         "mechanism to write one that does")
    return data[key]


def _ldp(Q: np.ndarray, eps: float, data: Mapping[str, Any]) -> Certification:
    return privacy.certify_ldp(Q, eps)


def _approximate_ldp(Q: np.ndarray, eps: float, data: Mapping[str, Any]) -> Certification:
    return privacy.certify_approximate_ldp(Q, eps, float(_recorded(data, "delta", "quaternary")))


def _uldp(Q: np.ndarray, eps: float, data: Mapping[str, Any]) -> Certification:
    sensitive = np.asarray(_recorded(data, "sensitive", "utility-optimized"), bool)
    return privacy.certify_uldp(Q, sensitive, eps)


def _ldp_across_secrets(Q: np.ndarray, eps: float, data: Mapping[str, Any]) -> Certification:
    groups = np.repeat(np.arange(len(_recorded(data, "S", "srr"))),
                       len(_recorded(data, "U", "srr")))
    return privacy.certify_ldp(Q, eps, groups)


def _joint(data: Mapping[str, Any], name: str) -> np.ndarray:
    return np.asarray(_recorded(data, "joint", name), dtype=float)


def _ldp_wrt_secret(Q: np.ndarray, eps: float, data: Mapping[str, Any]) -> Certification:
    return privacy.certify_ldp_wrt_secret(Q, _joint(data, "ldp-s"), eps)


def _lip(Q: np.ndarray, eps: float, data: Mapping[str, Any]) -> Certification:
    return privacy.certify_lip(Q, _joint(data, "lip"), eps)


def _srlip(Q: np.ndarray, eps: float, data: Mapping[str, Any]) -> Certification:
    return privacy.certify_srlip(Q, _joint(data, "srlip"),
                                 _recorded(data, "attribute_sizes", "srlip"), eps)


DECLARATIONS: dict[str, MechanismDeclaration] = {d.name: d for d in (
    *(MechanismDeclaration(name, "LDP", _ldp) for name in ("binary", "rr", "geometric", "ue")),
    MechanismDeclaration("staircase", "LDP", _ldp, cone="ldp",
                         level=lambda Q, data: privacy.ldp_epsilon(Q), staircase_pattern=True),
    MechanismDeclaration("quaternary", "(eps, delta)-LDP", _approximate_ldp),
    MechanismDeclaration("urr", "ULDP", _uldp),
    MechanismDeclaration("urap", "ULDP", _uldp),
    MechanismDeclaration("srr", "LDP across secrets", _ldp_across_secrets),
    MechanismDeclaration("ldp-s", "LDP w.r.t. S", _ldp_wrt_secret, cone="ldp-wrt-secret",
                         level=lambda Q, data: privacy.ldp_wrt_secret_epsilon(
                             Q, _joint(data, "ldp-s"))),
    MechanismDeclaration("lip", "LIP w.r.t. S", _lip, cone="lip",
                         level=lambda Q, data: privacy.lip_epsilon(Q, _joint(data, "lip")),
                         joint_dual=True),
    MechanismDeclaration("srlip", "SRLIP w.r.t. S", _srlip, cone="srlip", per_attribute=True),
)}


def declared_mechanism(name: str) -> MechanismDeclaration:
    """The declaration of the mechanism a record names.

    Raises
    ------
    InputError
        If no mechanism of that name is declared.
    """
    try:
        return DECLARATIONS[name]
    except KeyError:
        raise InputError(f"the result declares the mechanism {name!r}; known: "
                         f"{', '.join(DECLARATIONS)}") from None
