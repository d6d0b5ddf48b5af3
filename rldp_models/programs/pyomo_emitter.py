"""Write a linear protocol program (NUNP and linear variants) as a Pyomo model.

The Pyomo model mirrors the cvxpy one block by block: variable
``protocol[x, y] >= 0``, constraint ``stochastic[x]``, constraint
``privacy[s1, s2, y, i, j]`` (``i``, ``j`` index the sides of a secret
without records, else 0), objective the nominal expected distortion.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

import solvers
from rldp_models.programs.components import (
    NominalDistortion,
    NominalSecretPrivacy,
    ordered_secret_pairs,
)


def emit_pyomo(program: Any) -> solvers.PyomoModel:
    """The Pyomo form of a program whose blocks are nominal distortion and nominal privacy."""
    import pyomo.environ as pyo

    if not isinstance(program.objective, NominalDistortion) or not all(
            isinstance(c, NominalSecretPrivacy) for c in program.constraints):
        raise solvers.UnsupportedModelError(
            "only nominal-distortion / nominal-privacy programs have a Pyomo form")
    n_s, n_u = program.crosstab.shape
    n_x, n_y = n_s * n_u, len(program.outputs)
    phat = program.crosstab.phat.ravel()
    d = np.tile(program.distortion_matrix, (n_s, 1))
    model = pyo.ConcreteModel(name=program.name)
    model.X = pyo.RangeSet(0, n_x - 1)
    model.Y = pyo.RangeSet(0, n_y - 1)
    model.protocol = pyo.Var(model.X, model.Y, domain=pyo.NonNegativeReals)
    model.objective = pyo.Objective(
        expr=sum(phat[x] * d[x, y] * model.protocol[x, y]
                 for x in range(n_x) for y in range(n_y) if phat[x] * d[x, y] != 0),
        sense=pyo.minimize)
    model.stochastic = pyo.Constraint(
        model.X, rule=lambda m, x: sum(m.protocol[x, y] for y in m.Y) == 1)
    constraints = {"stochastic": model.stochastic}
    for family in program.constraints:
        component = pyo.Constraint(pyo.Any)
        model.add_component(family.name, component)
        for key, expression in _privacy_rows(program, family.eps, model.protocol):
            component[key] = expression
        constraints[family.name] = component
    return solvers.PyomoModel(model, {"protocol": model.protocol}, constraints)


def _sides(program: Any, protocol: Any, s: int, y: int) -> list[Any]:
    n_u = program.crosstab.shape[1]
    counts = program.crosstab.counts[s]
    if counts.sum() == 0:
        return [protocol[s * n_u + u, y] for u in range(n_u)]
    weights = counts / counts.sum()
    return [sum(weights[u] * protocol[s * n_u + u, y] for u in range(n_u) if weights[u] > 0)]


def _privacy_rows(program: Any, eps: float, protocol: Any) -> Any:
    factor = float(np.exp(eps))
    for (s1, s2), y in itertools.product(ordered_secret_pairs(program.crosstab.shape[0]),
                                         range(len(program.outputs))):
        highs, lows = _sides(program, protocol, s1, y), _sides(program, protocol, s2, y)
        for (i, high), (j, low) in itertools.product(enumerate(highs), enumerate(lows)):
            yield (s1, s2, y, i, j), high <= factor * low
