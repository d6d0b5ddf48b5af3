"""A program whose blocks are all linear, emitted as a Pyomo model for an LP solver.

Which programs: those whose every block declares the ``LINEAR`` capability
over the program's set (:class:`~rldp_models.uncertainty.base.Capability`):
nominal programs, and robust ones over a set whose robust counterpart is an LP
(box, l1 / total-variation and polyhedral sets, by LP duality; Lemma 1 of the
robust-optimization paper with the set's dual LP). User blocks included.

How. The LP is emitted from a conic statement ``A x + s = b``, ``s`` in a zero
cone and a nonnegative orthant (:class:`LinearStatement`), with named row groups
and named variables. The statement is

* the blocks' own direct rows when every block states them
  (:meth:`~rldp_models.programs.contract.Block.build_conic`; the nominal programs):
  no cvxpy model is built;
* otherwise cvxpy's canonicalisation of the program's cvxpy model
  (``Problem.get_problem_data``), so a block written in cvxpy reaches the LP by
  cvxpy's own reductions, not by a translation of its rows. Which columns are a
  variable's entries and which rows a constraint's is read by cvxpy's ``invert``
  of those reductions applied to the column and row numbers themselves
  (:func:`_column_and_row_numbers`): every entry of a variable's value is then
  its column, every entry of a constraint's dual its row, in the shapes and
  orders cvxpy reports values and duals.

A zero row is written ``A x == b``, a nonnegative one ``A x <= b``; each named
group is one Pyomo ``Constraint`` of that name (rows in the order the cvxpy
backend reports duals), rows of no group (cvxpy's variable bounds) one more.

Names. ``protocol`` and ``worst_case_distortion`` are reported under those
names; from a canonicalised model every cvxpy variable also under
:func:`variable_key`, so :func:`load_cvxpy_values` can give the cvxpy model
the LP's solution and the robust blocks' multipliers (variables or expressions
of them) are read from it as after a cvxpy solve.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import cvxpy as cp
import numpy as np
import pyomo.environ as pyo
import scipy.sparse as sp
from cvxpy.reductions.chain import Chain
from cvxpy.reductions.solution import Solution
from pyomo.core.expr.numeric_expr import LinearExpression

import solvers
from rldp_models.programs.conic_builder import ConicBuilder
from rldp_models.programs.conic_form import program_blocks
from rldp_models.programs.contract import block_label
from rldp_models.programs.lp_values import load_cvxpy_values, variable_key
from rldp_models.uncertainty.base import Capability

if TYPE_CHECKING:
    from rldp_models.programs.protocol_program import ProtocolProgram

__all__ = ["LinearStatement", "load_cvxpy_values", "missing_linear_form", "pyomo_model",
           "variable_key"]

OTHER_ROWS = "_unnamed_rows"
"""The Pyomo constraint holding the rows of no named group (not reported)."""


@dataclass
class LinearStatement:
    """``min c.x + offset``, ``A x + s = b`` with ``s = 0`` on the first ``zero`` rows and
    ``s >= 0`` on the others.

    ``columns`` maps a variable's name to its columns, shaped as the variable
    (entry ``[i, j]`` is the column of entry ``[i, j]``); ``nonneg`` marks the
    columns bounded below by 0; ``groups`` maps a group's name to its rows.
    """

    A: sp.csr_matrix
    b: np.ndarray
    c: np.ndarray
    zero: int
    columns: dict[str, np.ndarray]
    groups: dict[str, np.ndarray]
    offset: float = 0.0
    nonneg: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))


def missing_linear_form(program: "ProtocolProgram") -> list[str]:
    """Names of the program's blocks without a linear form over its set (empty: it is an LP)."""
    return [block_label(block) for block in program_blocks(program)
            if Capability.LINEAR not in block.capabilities(program.uncertainty)]


def pyomo_model(program: "ProtocolProgram") -> solvers.PyomoModel:
    """The program as a Pyomo LP (module docstring).

    Raises
    ------
    solvers.UnsupportedModelError
        If a block has no linear form over the program's set, or its rows turn
        out not to be linear.
    """
    missing = missing_linear_form(program)
    if missing:
        over = "" if program.uncertainty is None else f" over the {program.uncertainty.name} set"
        raise solvers.UnsupportedModelError(
            f"{program.name}: no linear form for {', '.join(missing)}{over}, so no Pyomo LP; "
            f"use a conic solver: {', '.join(solvers.available('cvxpy'))}")
    if Capability.DIRECT_CONIC in program.capabilities():
        return emit(program.name, stated(program))
    return emit(program.name, canonicalised(program))


def stated(program: "ProtocolProgram") -> LinearStatement:
    """The blocks' own direct rows, written plainly (``P >= 0`` as bounds)."""
    builder = ConicBuilder(program, program.problem_data(), linking="plain")
    for block in program_blocks(program):
        block.build_conic(builder)
    if builder.counts["soc"] or builder.counts["power"]:
        raise solvers.UnsupportedModelError(f"{program.name}: its rows have cones, not an LP")
    conic, _ = builder.assemble()
    if conic.folded_groups:  # duals would be those of the folded rows, not the declared ones
        raise solvers.UnsupportedModelError(f"{program.name}: its rows fold one group into "
                                            f"another, which a stated LP does not undo")
    nonneg = np.zeros(builder.n, dtype=bool)
    nonneg[builder.protocol.ravel()] = True
    columns = dict(builder.blocks)
    if builder.objective_name is not None:
        raise solvers.UnsupportedModelError(f"{program.name}: a named objective needs its own "
                                            f"variable, which a stated LP does not have")
    return LinearStatement(conic.A.tocsr(), conic.b, conic.c, conic.cones.zero, columns,
                           dict(conic.row_blocks), nonneg=nonneg)


def canonicalised(program: "ProtocolProgram") -> LinearStatement:
    """cvxpy's canonicalisation of the program's cvxpy model (module docstring)."""
    model = program.to_cvxpy()
    problem = model.problem
    data, chain, inverse = problem.get_problem_data(cp.CLARABEL)
    dims = data["dims"]
    if dims.exp or dims.soc or dims.psd or dims.p3d or getattr(dims, "pnd", None):
        raise solvers.UnsupportedModelError(f"{program.name}: its cvxpy model has cones, "
                                            f"not an LP")
    columns, rows = _column_and_row_numbers(problem, chain, inverse, data["A"].shape)
    groups = {}
    for name, constraints in model.constraints.items():
        missing = [c for c in constraints if c.id not in rows]
        if missing:
            raise solvers.UnsupportedModelError(f"the constraint {missing[0]} is not a "
                                                f"linear row")
        groups[name] = np.concatenate([np.ravel(rows[c.id]) for c in constraints]
                                      or [np.zeros(0, dtype=np.int64)])
    named = {variable_key(v): columns[v.id] for v in problem.variables()}
    named.update({name: columns[v.id] for name, v in model.variables.items()
                  if isinstance(v, cp.Variable)})
    offset = float(np.ravel(inverse[-1].inverse_data["offset"])[0]) \
        if hasattr(inverse[-1], "inverse_data") else 0.0
    return LinearStatement(sp.csr_matrix(data["A"]), np.asarray(data["b"], dtype=float),
                           np.asarray(data["c"], dtype=float), dims.zero, named, groups,
                           offset=offset)


def _column_and_row_numbers(problem: cp.Problem, chain: Chain, inverse: list[Any],
                            shape: tuple[int, int]) -> tuple[dict[int, np.ndarray],
                                                             dict[int, np.ndarray]]:
    """Columns of each cvxpy variable and rows of each constraint, by cvxpy's ``invert``.

    The solution handed to the inverse reductions has ``x = 1, 2, ..., n`` and row
    duals ``1, 2, ..., m``; the values it maps back are those numbers (``- 1``),
    placed where the reductions place a variable's entries and a constraint's
    dual (an equality's dual may come back negated: the absolute value is taken).
    """
    solver = inverse[-1].inverse_data
    m, n = shape
    duals, start = {}, 1
    for constraint in [*solver["eq_constr"], *solver["other_constr"]]:
        duals[constraint.id] = np.arange(start, start + constraint.size, dtype=float)
        start += constraint.size
    numbered = Solution("optimal", 0.0, {solver["var_id"]: np.arange(1.0, n + 1.0)}, duals, {})
    back = Chain(problem, chain.reductions[:-1]).invert(numbered, inverse[:-1])
    columns = {vid: np.rint(np.abs(value)).astype(np.int64) - 1
               for vid, value in back.primal_vars.items()}
    rows = {cid: np.rint(np.abs(np.asarray(value, dtype=float))).astype(np.int64) - 1
            for cid, value in back.dual_vars.items() if value is not None}
    return columns, rows


def emit(name: str, statement: LinearStatement) -> solvers.PyomoModel:
    """The Pyomo model of ``statement``: its named variables and row groups as components."""
    model = pyo.ConcreteModel(name=name)
    n = statement.A.shape[1]
    column: list[Any] = [None] * n
    variables: dict[str, Any] = {}
    nonneg = statement.nonneg if statement.nonneg.size else np.zeros(n, dtype=bool)
    components: dict[tuple, Any] = {}  # one component per distinct set of columns
    for label, index in statement.columns.items():
        key = (index.shape, index.tobytes())
        if key not in components:
            component = _variable(index, bool(index.size) and bool(np.all(nonneg[index])))
            model.add_component(f"x{len(components)}", component)
            components[key] = component
            for at in itertools.product(*map(range, index.shape)):
                column[index[at]] = component[at] if at else component
        variables[label] = components[key]
    extra = [j for j in range(n) if column[j] is None]
    if extra:  # columns of no named variable (cvxpy's auxiliary variables)
        model.auxiliary = pyo.Var(pyo.RangeSet(0, len(extra) - 1), domain=pyo.Reals)
        for k, j in enumerate(extra):
            column[j] = model.auxiliary[k]
    cost = sp.csr_matrix(statement.c[None, :])
    model.objective = pyo.Objective(expr=_affine(cost, 0, column, statement.offset),
                                    sense=pyo.minimize)
    named = set(np.concatenate([*statement.groups.values(), np.zeros(0, dtype=np.int64)]))
    groups = {**statement.groups,
              OTHER_ROWS: np.array([r for r in range(statement.A.shape[0]) if r not in named],
                                   dtype=np.int64)}
    constraints = {}
    for label, rows in groups.items():
        if rows.size == 0:
            continue
        component = pyo.Constraint(pyo.RangeSet(0, rows.size - 1), rule=(
            lambda m, k, rows=rows: _row(statement, int(rows[k]), column)))
        model.add_component(label, component)
        constraints[label] = component
    constraints.pop(OTHER_ROWS, None)
    return solvers.PyomoModel(model, variables, constraints)


def _row(statement: LinearStatement, row: int, column: list[Any]) -> Any:
    """Row ``row`` of the statement: ``A x == b`` on a zero row, ``A x <= b`` otherwise."""
    lhs = _affine(statement.A, row, column)
    return (lhs == float(statement.b[row])) if row < statement.zero \
        else (lhs <= float(statement.b[row]))


def _variable(index: np.ndarray, nonneg: bool) -> Any:
    """A Pyomo variable shaped like ``index``."""
    domain = pyo.NonNegativeReals if nonneg else pyo.Reals
    if index.ndim == 0:
        return pyo.Var(domain=domain)
    return pyo.Var(*(pyo.RangeSet(0, size - 1) for size in index.shape), domain=domain)


def _affine(A: sp.csr_matrix, row: int, column: list[Any], constant: float = 0.0) -> Any:
    """``A[row] x + constant`` as a Pyomo expression."""
    start, end = A.indptr[row], A.indptr[row + 1]
    return LinearExpression(constant=float(constant),
                            linear_coefs=[float(v) for v in A.data[start:end]],
                            linear_vars=[column[j] for j in A.indices[start:end]])
