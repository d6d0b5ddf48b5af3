"""IR, GRR-CR and UE-CR built directly in factored form (no dense matrix).

The parameters come from the same searches as the dense builders
(:func:`~rldp_models.rldp_protocols.rr_protocols.ir_parameters`,
:func:`~rldp_models.rldp_protocols.rr_protocols.grr_cr_parameters`,
:func:`~rldp_models.rldp_protocols.ue_conditional.ue_cr_parameters`); the
factors are then built at levels lowered by :data:`PRODUCT_MARGIN` and
rounded to exact dyadic rows, and the guarantee is proven from the factors
(:func:`~rldp_models.rldp_protocols.factored_check.certified_level`). If the
rounding ever beat the margin, the margin grows tenfold and the factors are
rebuilt; a protocol is returned only with its guarantee proven.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.exact import exact_stochastic_rows
from rldp_models.rldp_protocols.components import (chi_square_set, conditional_radii, grr,
                                                   theorem17_levels)
from rldp_models.rldp_protocols.rr_protocols import (grr_cr_parameters, grr_cr_utility,
                                                     ir_parameters, ir_utility, theorem15_level,
                                                     theorem15_spread)
from rldp_models.rldp_protocols.factored_check import certified_level, exact_factor
from rldp_models.rldp_protocols.factored_form import FactoredProtocol
from rldp_models.rldp_protocols.ue_conditional import (lambda_floor, ue_cr_parameters,
                                                       ue_cr_utility)
from rldp_models.validation import as_epsilon

PRODUCT_MARGIN = 1e-10
"""Log-ratio margin each level is lowered by before rounding the factors (ulps are ~1e-16)."""

MARGIN_ATTEMPTS = 4
"""Times the margin may grow tenfold before the builder gives up (never seen)."""


def _lowered(level: float, margin: float) -> float:
    return max(level - margin, 0.0)


def exact_decoys(counts: np.ndarray, reports: list[np.ndarray]) -> np.ndarray:
    """``Phat_{U|t} R^t`` per secret in exact rationals, rounded to dyadic rows.

    Uniform for a secret without records. Computed from the exact counts so
    that identical rows of ``R^t`` (``delta_t = 0``) give a decoy equal to them.
    """
    rows = []
    for row, report in zip(np.asarray(counts), reports):
        total = int(row.sum())
        weights = ([Fraction(int(c), total) for c in row] if total else
                   [Fraction(1, row.size)] * row.size)
        exact = [sum((w * Fraction(float(report[u, v])) for u, w in enumerate(weights)),
                     Fraction(0)) for v in range(report.shape[1])]
        rows.append([float(x) for x in exact])
    return exact_stochastic_rows(np.array(rows))


def _proven(build, crosstab: Crosstab, eps: float, alpha: float) -> FactoredProtocol:
    """``build(margin)`` with the smallest margin whose factors prove level ``eps``."""
    radius = chi_square_set(crosstab, alpha).radius
    margin = PRODUCT_MARGIN
    for _ in range(MARGIN_ATTEMPTS):
        protocol = build(margin)
        level = certified_level(protocol, crosstab.counts, radius)[0]
        if level <= eps:
            protocol.parameters["certified_eps"] = level
            return protocol
        margin *= 10
    raise RuntimeError(f"the {protocol.name} factors prove only eps = {level!r} > {eps!r}")


def _labels(crosstab: Crosstab) -> tuple[list, list]:
    return list(crosstab.s_labels), list(crosstab.u_labels)


def ir_factored(crosstab: Crosstab, eps: float, alpha: float) -> FactoredProtocol:
    """The best ``(eps, F)``-RLDP IR (Theorems 15-16) as its two factors."""
    eps = as_epsilon(eps)
    eps1, eps2 = ir_parameters(crosstab, eps, alpha)
    spread = theorem15_spread(crosstab, alpha)
    n_s, n_u = crosstab.shape

    def build(margin: float) -> FactoredProtocol:
        low1, delta2 = _lowered(eps1, margin), theorem15_level(_lowered(eps2, margin), spread)
        factors = {"secret": exact_factor(grr(low1, n_s)), "public": exact_factor(grr(delta2, n_u))}
        parameters = {"eps_1": eps1, "eps_2": eps2, "delta_2": delta2, "d": spread,
                      "margin": margin, "utility_theorem": ir_utility(crosstab.phat, eps1,
                                                                      theorem15_level(eps2,
                                                                                      spread))}
        return FactoredProtocol("ir", factors, *_labels(crosstab), eps, alpha, parameters)

    return _proven(build, crosstab, eps, alpha)


def grr_cr_factored(crosstab: Crosstab, eps: float, alpha: float) -> FactoredProtocol:
    """The best ``(eps, F)``-RLDP GRR-CR (Theorems 17-18) as its factors."""
    eps = as_epsilon(eps)
    eps1, eps2 = grr_cr_parameters(crosstab, eps, alpha)
    radii = conditional_radii(chi_square_set(crosstab, alpha))
    n_s, n_u = crosstab.shape

    def build(margin: float) -> FactoredProtocol:
        levels = theorem17_levels(_lowered(eps2, margin), radii)
        own = np.stack([exact_factor(grr(level, n_u)) for level in levels])
        factors = {"secret": exact_factor(grr(_lowered(eps1, margin), n_s)), "own": own,
                   "other": exact_decoys(crosstab.counts, list(own))}
        parameters = {"eps_1": eps1, "eps_2": eps2, "delta": levels.tolist(), "margin": margin,
                      "utility_theorem": grr_cr_utility(crosstab.phat, eps1,
                                                        theorem17_levels(eps2, radii))}
        return FactoredProtocol("grr-cr", factors, *_labels(crosstab), eps, alpha, parameters)

    return _proven(build, crosstab, eps, alpha)


def ue_cr_factored(crosstab: Crosstab, eps: float, alpha: float) -> FactoredProtocol:
    """The best ``(eps, F)``-RLDP UE-CR (Theorems 19-20) as its per-secret factors."""
    eps = as_epsilon(eps)
    eps1, eps2, kappa, lam = ue_cr_parameters(crosstab, eps, alpha)
    radii = conditional_radii(chi_square_set(crosstab, alpha))
    n_s, n_u = crosstab.shape

    def build(margin: float) -> FactoredProtocol:
        levels = theorem17_levels(_lowered(eps2, margin), radii)
        reports = [exact_factor(grr(level, n_u)) for level in levels]
        floor = float(lambda_floor(kappa, _lowered(eps1, margin)))
        lowered_lam = min(kappa, max(lam, floor))
        own = np.stack([exact_factor(np.hstack([np.full((n_u, 1), 1 - kappa), kappa * r]))
                        for r in reports])
        decoys = exact_decoys(crosstab.counts, reports)
        other = exact_factor(np.hstack([np.full((n_s, 1), 1 - lowered_lam),
                                        lowered_lam * decoys]))
        parameters = {"eps_1": eps1, "eps_2": eps2, "kappa": kappa, "lambda": lowered_lam,
                      "delta": levels.tolist(), "margin": margin,
                      "utility_theorem": ue_cr_utility(crosstab.phat, kappa, lam,
                                                       theorem17_levels(eps2, radii))}
        return FactoredProtocol("ue-cr", factors={"own": own, "other": other},
                               s_labels=_labels(crosstab)[0], u_labels=_labels(crosstab)[1],
                               eps=eps, alpha=alpha, parameters=parameters)

    return _proven(build, crosstab, eps, alpha)


PRODUCT_BUILDERS = {"ir": ir_factored, "grr-cr": grr_cr_factored, "ue-cr": ue_cr_factored}
"""The factored builder of each protocol name of ``rldp protocol``."""


def factored_protocol(name: str, crosstab: Crosstab, eps: float, alpha: float) -> FactoredProtocol:
    """The best ``(eps, F)``-RLDP ``name`` (``ir``, ``grr-cr`` or ``ue-cr``) in factored form."""
    return PRODUCT_BUILDERS[name](crosstab, eps, alpha)
