"""SCIP's spatial branch and bound as a heuristic for the pricing problem (issue 37, item 4).

Pricing maximises the convex ``h(v) = sum_x (p_x v_x log v_x - dual_x v_x)`` over
the polytope ``P = {v >= 0 : A v >= 0, p.v = 1}`` (:mod:`rldp_models.conelp.concave_pricing`).
SCIP (through ``pyscipopt``, the optional ``scip`` extra) solves this nonconvex
program by spatial branch and bound on the epigraph ``t <= h(v)``. Its answers are
floating point and prove nothing: :func:`scip_point` returns only a *point*, which
the caller re-evaluates with its own ``h``, pushes to a vertex of ``P`` and polishes
onto its tight rows, and SCIP's dual bound is returned for reporting only. Every
bound the project relies on is still proved by its own branch and bound.

``v log v`` is undefined at ``0`` for SCIP's ``log``, so the variables are bounded
below by :data:`FLOOR`; the point is a heuristic, so this costs at most a slightly
worse start (the caller's vertex step moves it to the exact face).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

import numpy as np

FLOOR = 1e-9
"""Lower bound of every variable in SCIP's model (``log 0`` is undefined)."""

SCIP_TIME = 2.0
"""Default CPU seconds SCIP is given per pricing call."""


def scip_available() -> bool:
    """Whether ``pyscipopt`` is installed (the optional ``scip`` extra)."""
    return importlib.util.find_spec("pyscipopt") is not None


@dataclass(frozen=True)
class ScipPoint:
    """SCIP's best point of ``P`` for ``max h`` and its (unproven) floating-point dual bound."""

    point: np.ndarray
    value: float
    dual_bound: float


def scip_point(rows: np.ndarray, prior: np.ndarray, dual: np.ndarray, *,
               seconds: float = SCIP_TIME) -> ScipPoint | None:
    """SCIP's incumbent for ``max h(v)`` over ``P`` within ``seconds``; None if it has none.

    Parameters
    ----------
    rows : ndarray, shape (m, d)
        ``A`` of the cone ``{v >= 0 : A v >= 0}``.
    prior : ndarray, shape (d,)
        ``p``, positive.
    dual : ndarray, shape (d,)
        The master's dual ``lam`` (``h = mu - lam.v`` on ``p.v = 1``).
    seconds : float
        SCIP's time limit in CPU seconds (so that a loaded machine does not starve it).
    """
    from pyscipopt import Model, log, quicksum

    d = prior.size
    model = Model()
    model.hideOutput()
    model.setParam("timing/clocktype", 1)
    model.setParam("limits/time", float(seconds))
    model.setParam("randomization/randomseedshift", 0)
    scale = 1.0 / max(float(prior.min()), FLOOR)
    v = [model.addVar(lb=FLOOR, ub=scale, name=f"v{x}") for x in range(d)]
    t = model.addVar(lb=None, ub=None, name="t")
    for row in rows:
        index = np.flatnonzero(row)
        model.addCons(quicksum(float(row[j]) * v[j] for j in index) >= 0)
    model.addCons(quicksum(float(prior[j]) * v[j] for j in range(d)) == 1)
    model.addCons(t <= quicksum(float(prior[j]) * v[j] * log(v[j]) - float(dual[j]) * v[j]
                                for j in range(d)))
    model.setObjective(t, "maximize")
    model.optimize()
    if model.getNSols() == 0:
        return None
    solution = model.getBestSol()
    point = np.maximum(np.array([model.getSolVal(solution, var) for var in v]), 0.0)
    return ScipPoint(point, float(model.getSolObjVal(solution)), float(model.getDualbound()))
