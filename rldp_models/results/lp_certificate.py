"""The ``lp-dual`` certificate fields of cone-LP results, their duals corrected exactly.

A cone-LP writer (a mechanism of :mod:`rldp_models.conelp`, or PolyOpt's
protocol) stores the LP's dual as a certificate record
(:mod:`rldp_models.results.certificate_record`). Where the cone's extreme rays
can be enumerated, the stored dual is first made feasible on all of them
(:func:`rldp_models.conelp.exact_lp_dual.corrected_dual`), so that
``rldp verify`` checks a dual of the stated cone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rldp_models.conelp.exact_lp_dual import (
    IntervalUtility,
    Ray,
    Vector,
    attribute_cone_rays,
    cone_rays,
    corrected_dual,
    gamma_cone_rays,
    interval_utility,
    outer_ratio,
)
from rldp_models.errors import InputError
from rldp_models.results.certificate_record import VERSION
from rldp_models.utility import FDivergence, MutualInformation, SublinearUtility


def utility_parameters(utility: SublinearUtility) -> dict[str, list[float]]:
    """What :func:`interval_utility` needs to rebuild ``mu`` (the priors of the utility)."""
    if isinstance(utility, FDivergence):
        return {"prior0": list(map(float, utility.prior0)),
                "prior1": list(map(float, utility.prior1))}
    if isinstance(utility, MutualInformation):
        return {"prior": list(map(float, utility.prior))}
    raise InputError(f"no exact form of the utility {type(utility).__name__}")


def writer_fields(cone: str, measure: str, utility: SublinearUtility, eps: float,
                  dual: Vector,
                  joint: np.ndarray | None = None) -> dict[str, Any]:
    """The ``lp-dual`` certificate fields a cone-LP writer adds (see :mod:`.certificate_record`).

    For an enumerable cone (:func:`cone_rays`) the dual is replaced
    by :func:`corrected_dual` (the LP's own dual is kept as ``solver_dual``),
    so the stored dual is feasible for the stated cone; ``correction`` is the
    largest change (``None`` when the cone was not enumerated).
    """
    parameters = utility_parameters(utility)
    fields = {"kind": "lp-dual", "version": VERSION, "cone": cone,
              "rhs": [1.0] * len(dual), "solver_dual": list(map(float, dual)),
              "utility": {"measure": measure, "parameters": parameters},
              "correction": None}
    mu = interval_utility(measure, parameters)
    return _with_corrected_dual(fields, dual, mu,
                                lambda: cone_rays(cone, len(dual), outer_ratio(eps), joint))


def _with_corrected_dual(fields: dict[str, Any], dual: Vector, mu: IntervalUtility,
                         rays_of_cone: Callable[[], list[Ray]]) -> dict[str, Any]:
    """``fields`` with ``dual`` corrected over the cone's rays (:func:`corrected_dual`)
    and ``correction`` its largest change; unchanged when the rays cannot be enumerated."""
    try:
        rays = rays_of_cone()
    except InputError:
        return fields
    corrected = corrected_dual(dual, rays, mu)
    fields.update(dual=corrected.tolist(),
                  correction=float(np.max(corrected - np.asarray(dual, dtype=float))))
    return fields


def attribute_writer_fields(joint: np.ndarray, j: int, eps: float,
                            dual: Vector) -> dict[str, Any]:
    """SRLIP attribute ``j``'s dual corrected over the rays of ``C_j`` (see writer_fields)."""
    fields = {"solver_dual": list(map(float, dual)), "correction": None}
    prior = joint.sum(axis=tuple(axis for axis in range(joint.ndim) if axis != j + 1))
    return _with_corrected_dual(fields, dual, interval_utility("mi", {"prior": prior}),
                                lambda: attribute_cone_rays(joint, j, outer_ratio(eps)))


def polyopt_writer_fields(counts: np.ndarray, alpha: float, eps: float, finer: bool,
                          dual: Vector) -> dict[str, Any]:
    """The ``lp-dual`` fields of a PolyOpt result: the LP maximises ``I_Phat(X;Y)`` over Gamma.

    As :func:`writer_fields`: the dual is corrected over Gamma's rays at
    ``R >= e^eps`` when the table is small enough to enumerate them.
    """
    prior = (np.asarray(counts, dtype=float) / np.sum(counts)).ravel()
    fields = {"kind": "lp-dual", "version": VERSION, "cone": "polyopt-gamma", "finer": finer,
              "rhs": [1.0] * len(dual), "solver_dual": list(map(float, dual)),
              "utility": {"measure": "mi", "parameters": {"prior": prior.tolist()}},
              "correction": None}
    return _with_corrected_dual(fields, dual, interval_utility("mi", {"prior": prior}),
                                lambda: gamma_cone_rays(counts, alpha, outer_ratio(eps), finer))
