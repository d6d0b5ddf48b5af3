"""A program whose blocks are all linear, written as a Pyomo model for an LP solver.

Which programs: those whose every block declares the ``LINEAR`` capability
over the program's set (:class:`~rldp_models.uncertainty.base.Capability`):
nominal programs, and robust ones over a set whose robust counterpart is an LP
(box, l1 / total-variation and polyhedral sets, by LP duality; Lemma 1 of the
robust-optimization paper with the set's dual LP). User blocks included.

How. The rows are read from the cvxpy model the blocks built, so there is one
description of each block, not two to keep in step. A linear block adds affine
constraints ``expr == 0`` / ``expr <= 0`` / ``expr >= 0``; for an affine
``expr(x) = J x + a`` cvxpy's ``grad`` is the constant Jacobian ``J^T`` and the
value at ``x = 0`` is ``a``, so each constraint gives sparse rows exactly
(no sampling, no tolerance). Variables keep cvxpy's ``nonneg`` bounds. Rows
of a constraint are in row-major order of its expression, as the cvxpy
backend reports duals, and each named group of the cvxpy model becomes one
Pyomo ``Constraint`` of that name.

Names. ``protocol`` and ``worst_case_distortion`` are reported under those
names; every cvxpy variable also under :func:`variable_key`, so
:func:`load_cvxpy_values` can give the cvxpy model the LP's solution and the
robust blocks' multipliers (variables or expressions of them) are read from it
as after a cvxpy solve.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

import cvxpy as cp
import numpy as np
import pyomo.environ as pyo
import scipy.sparse as sp
from cvxpy.constraints import Equality, Inequality, NonNeg, NonPos, Zero
from pyomo.core.expr.numeric_expr import LinearExpression

import solvers
from rldp_models.programs.conic_form import program_blocks
from rldp_models.programs.contract import block_label
from rldp_models.programs.lp_values import load_cvxpy_values, variable_key
from rldp_models.uncertainty.base import Capability

if TYPE_CHECKING:
    from rldp_models.programs.protocol_program import ProtocolProgram

__all__ = ["LinearRows", "load_cvxpy_values", "missing_linear_form", "pyomo_model",
           "variable_key"]


@dataclass(frozen=True)
class LinearRows:
    """``A x + a (==, <=) 0`` row by row: ``equal[i]`` says which rows are equalities."""

    A: sp.csr_matrix
    a: np.ndarray
    equal: np.ndarray


def missing_linear_form(program: "ProtocolProgram") -> list[str]:
    """Names of the program's blocks without a linear form over its set (empty: it is an LP)."""
    return [block_label(block) for block in program_blocks(program)
            if Capability.LINEAR not in block.capabilities(program.uncertainty)]


def pyomo_model(program: "ProtocolProgram") -> solvers.PyomoModel:
    """The program as a Pyomo LP (module docstring).

    Raises
    ------
    solvers.UnsupportedModelError
        If a block has no linear form over the program's set, or its cvxpy
        constraints turn out not to be affine.
    """
    missing = missing_linear_form(program)
    if missing:
        over = "" if program.uncertainty is None else f" over the {program.uncertainty.name} set"
        raise solvers.UnsupportedModelError(
            f"{program.name}: no linear form for {', '.join(missing)}{over}, so no Pyomo LP; "
            f"use a conic solver: {', '.join(solvers.available('cvxpy'))}")
    model = program.to_cvxpy()
    variables = model.problem.variables()
    offsets = np.cumsum([0] + [v.size for v in variables])
    columns = {v.id: offsets[i] for i, v in enumerate(variables)}
    with _at_zero(variables):
        groups = {name: _stack([_rows(c, columns, int(offsets[-1])) for c in constraints])
                  for name, constraints in model.constraints.items()}
        cost = _rows(model.problem.objective.expr <= 0, columns, int(offsets[-1]))
    return _emit(program, variables, offsets, groups, cost)


@contextmanager
def _at_zero(variables: list[cp.Variable]) -> Iterator[None]:
    """Every variable at zero while the rows are read (their values are restored after)."""
    saved = [v.value for v in variables]
    for v in variables:
        v.value = np.zeros(v.shape)
    try:
        yield
    finally:
        for v, value in zip(variables, saved):
            v.value = value


def _rows(constraint: Any, columns: dict[int, int], n: int) -> LinearRows:
    """The rows of one affine cvxpy constraint, in row-major order of its expression."""
    if isinstance(constraint, (Equality, Zero)):
        expr, sign, equal = constraint.expr, 1.0, True
    elif isinstance(constraint, (Inequality, NonPos)):
        expr, sign, equal = constraint.expr, 1.0, False
    elif isinstance(constraint, NonNeg):
        expr, sign, equal = constraint.expr, -1.0, False
    else:
        raise solvers.UnsupportedModelError(f"{type(constraint).__name__} is not a linear row")
    if not expr.is_affine():
        raise solvers.UnsupportedModelError(f"the constraint {constraint} is not affine")
    m = int(expr.size)
    rows, cols, vals = [], [], []
    for variable, gradient in expr.grad.items():
        block = _coo(gradient)
        rows.append(block.col)  # grad is (variable, expression): transposed
        cols.append(block.row + columns[variable.id])
        vals.append(block.data)
    jacobian = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                             shape=(m, n))
    constant = np.ravel(np.broadcast_to(np.asarray(expr.value, dtype=float), expr.shape),
                        order="F")
    order = np.arange(m).reshape(expr.shape, order="F").ravel() if expr.shape else np.arange(m)
    return LinearRows(sign * sp.csr_matrix(jacobian)[order], sign * constant[order],
                      np.full(m, equal))


def _coo(gradient: Any) -> sp.coo_matrix:
    """One of cvxpy's gradient blocks (sparse, dense or a scalar) in COO form."""
    if isinstance(gradient, np.ndarray) or np.isscalar(gradient):
        return sp.coo_matrix(np.atleast_2d(np.asarray(gradient, dtype=float)))
    return sp.coo_matrix(gradient)


def _stack(parts: list[LinearRows]) -> LinearRows:
    return LinearRows(sp.vstack([p.A for p in parts]).tocsr(), np.concatenate([p.a for p in parts]),
                      np.concatenate([p.equal for p in parts]))


def _emit(program: "ProtocolProgram", variables: list[cp.Variable], offsets: np.ndarray,
          groups: dict[str, LinearRows], cost: LinearRows) -> solvers.PyomoModel:
    model = pyo.ConcreteModel(name=program.name)
    column: list[Any] = []
    components: dict[int, Any] = {}
    for i, variable in enumerate(variables):
        component, data = _variable(variable)
        model.add_component(f"x{i}", component)
        components[variable.id] = component
        column.extend(data(component))
    model.objective = pyo.Objective(expr=_affine(cost.A, cost.a, 0, column), sense=pyo.minimize)
    constraints = {}
    for name, rows in groups.items():
        component = pyo.Constraint(pyo.RangeSet(0, rows.A.shape[0] - 1), rule=(
            lambda m, r, rows=rows: (_affine(rows.A, rows.a, r, column) == 0) if rows.equal[r]
            else (_affine(rows.A, rows.a, r, column) <= 0)))
        model.add_component(name, component)
        constraints[name] = component
    assert program._context is not None  # built by to_cvxpy
    named = {name: components[v.id] for name, v in program._context.variables.items()}
    named.update({variable_key(v): components[v.id] for v in variables})
    return solvers.PyomoModel(model, named, constraints)


def _variable(variable: cp.Variable) -> tuple[Any, Any]:
    """A Pyomo variable shaped like ``variable`` and the map to its entries in cvxpy's order."""
    if any(value for key, value in variable.attributes.items()
           if key != "nonneg" and isinstance(value, bool)):
        raise solvers.UnsupportedModelError(f"variable {variable.name()} has attributes an LP "
                                            f"cannot keep")
    domain = pyo.NonNegativeReals if variable.attributes.get("nonneg") else pyo.Reals
    shape = variable.shape
    if len(shape) == 0:
        return pyo.Var(domain=domain), lambda c: [c]
    if len(shape) == 1:
        return pyo.Var(pyo.RangeSet(0, shape[0] - 1), domain=domain), \
            lambda c: [c[k] for k in range(shape[0])]
    rows, cols = shape
    return pyo.Var(pyo.RangeSet(0, rows - 1), pyo.RangeSet(0, cols - 1), domain=domain), \
        lambda c: [c[k % rows, k // rows] for k in range(rows * cols)]  # column-major, as cvxpy


def _affine(A: sp.csr_matrix, a: np.ndarray, row: int, column: list[Any]) -> Any:
    start, end = A.indptr[row], A.indptr[row + 1]
    return LinearExpression(constant=float(a[row]),
                            linear_coefs=[float(v) for v in A.data[start:end]],
                            linear_vars=[column[j] for j in A.indices[start:end]])
