"""Model representations a backend may accept.

A model builder in :mod:`rldp_models` hands the registry an object that can
emit one or more of these forms (``to_cvxpy()``, ``to_pyomo()``,
``to_linear_program()``); each backend says which form it needs. Constraint
and variable *names* are what duals and primal values are keyed by in
:class:`solvers.result.SolveResult`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp


@dataclass
class CvxpyModel:
    """A cvxpy problem with named variables and named constraint groups."""

    problem: Any  # cvxpy.Problem
    variables: dict[str, Any]
    constraints: dict[str, list[Any]] = field(default_factory=dict)


@dataclass
class PyomoModel:
    """A Pyomo ``ConcreteModel`` with its variable and constraint components by name."""

    model: Any  # pyomo.environ.ConcreteModel
    variables: dict[str, Any]
    constraints: dict[str, Any] = field(default_factory=dict)


@dataclass
class LinearProgram:
    """``min/max c.x  s.t.  A_ub x <= b_ub,  A_eq x = b_eq,  lb <= x <= ub`` in matrix form.

    ``variable_blocks`` and ``row_blocks`` map names to slices of the variable
    vector and of the stacked rows ``[A_ub; A_eq]``, so results can be keyed
    by the model's own names.
    """

    c: np.ndarray
    A_ub: sp.csr_matrix
    b_ub: np.ndarray
    A_eq: sp.csr_matrix
    b_eq: np.ndarray
    lb: np.ndarray
    ub: np.ndarray
    maximize: bool = False
    variable_blocks: dict[str, slice] = field(default_factory=dict)
    row_blocks: dict[str, slice] = field(default_factory=dict)


@runtime_checkable
class SupportsCvxpy(Protocol):
    def to_cvxpy(self) -> CvxpyModel: ...


@runtime_checkable
class SupportsPyomo(Protocol):
    def to_pyomo(self) -> PyomoModel: ...


@runtime_checkable
class SupportsLinearProgram(Protocol):
    def to_linear_program(self) -> LinearProgram: ...
