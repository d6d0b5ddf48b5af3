"""The four programs of the robust-optimization paper (eqs. 7-10) as presets.

=====  ==================  ==================
name   utility             privacy
=====  ==================  ==================
NUNP   nominal (at Phat)   nominal (at Phat)
NURP   nominal             robust (all of F)
RUNP   robust (worst F)    nominal
RURP   robust              robust
=====  ==================  ==================
"""

from __future__ import annotations

from typing import Any, Callable

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.problem_kinds import PRESETS
from rldp_models.programs.components import (
    NominalDistortion,
    NominalSecretPrivacy,
    RobustDistortion,
    RobustSecretPrivacy,
)
from rldp_models.programs.protocol_program import ProtocolProgram
from rldp_models.uncertainty.base import UncertaintySet
from rldp_models.uncertainty.chi_square import ChiSquareSet



def preset(name: str, crosstab: Crosstab, eps: float, alpha: float = 0.05,
           uncertainty: UncertaintySet | None = None, **options: Any) -> ProtocolProgram:
    """Build NUNP, NURP, RUNP or RURP.

    Parameters
    ----------
    name : {"NUNP", "NURP", "RUNP", "RURP"}
    crosstab : Crosstab
    eps : float
        Privacy level, ``>= 0``.
    alpha : float
        Significance level of the chi-square set (eqs. 2-3), in (0, 1).
    uncertainty : UncertaintySet, optional
        Overrides the chi-square set built from ``crosstab`` and ``alpha``:
        any set of :mod:`rldp_models.uncertainty` (chi-square, KL ball, l1
        ball, box, polyhedron; see :func:`rldp_models.uncertainty.named_set`).
    **options
        ``distortion``, ``outputs``, ``parametric`` (see :class:`ProtocolProgram`).
    """
    key = name.upper()
    if key not in PRESETS:
        raise InputError(f"unknown problem {name!r}; choose one of {', '.join(PRESETS)}")
    if uncertainty is None:
        uncertainty = ChiSquareSet.from_counts(crosstab.counts, alpha)
    robust_utility, robust_privacy = PRESETS[key]
    objective = RobustDistortion() if robust_utility else NominalDistortion()
    privacy = RobustSecretPrivacy(eps) if robust_privacy else NominalSecretPrivacy(eps)
    return ProtocolProgram(crosstab, objective, [privacy], uncertainty=uncertainty, eps=eps,
                           name=key, **options)


def _named(name: str) -> Callable[..., ProtocolProgram]:
    def build(crosstab: Crosstab, eps: float, alpha: float = 0.05,
              **options: Any) -> ProtocolProgram:
        return preset(name, crosstab, eps, alpha, **options)

    build.__name__ = name.lower()
    build.__doc__ = f"The {name} program (see :func:`preset`)."
    return build


nunp = _named("NUNP")
nurp = _named("NURP")
runp = _named("RUNP")
rurp = _named("RURP")
