"""The one result type every backend returns.

Modelled on :class:`scipy.optimize.OptimizeResult` and Pyomo's
``TerminationCondition``: one status enum that means the same thing for every
solver, the primal values keyed by the model's own variable names, and the
duals keyed by the model's own constraint names.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np


class Status(enum.Enum):
    """Termination status, normalised across backends."""

    OPTIMAL = "optimal"
    OPTIMAL_INACCURATE = "optimal_inaccurate"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    ITERATION_LIMIT = "iteration_limit"
    ERROR = "error"

    @property
    def has_solution(self) -> bool:
        """True when primal values were returned and may be used."""
        return self in (Status.OPTIMAL, Status.OPTIMAL_INACCURATE)


@dataclass
class Timings:
    """Wall-clock seconds spent building the solver's input and solving it."""

    build_seconds: float = 0.0
    solve_seconds: float = 0.0

    @property
    def total_seconds(self) -> float:
        return self.build_seconds + self.solve_seconds


@dataclass
class SolveResult:
    """Outcome of :func:`solvers.solve`.

    Attributes
    ----------
    status : Status
        Normalised termination status.
    objective : float or None
        Objective value in the model's own sense (min or max).
    primal : dict of str to ndarray
        Values of the model's named variables.
    dual : dict of str to ndarray
        Multipliers of the model's named constraint groups, with the sign
        convention of cvxpy: a multiplier of ``g(x) <= 0`` is ``>= 0`` and
        the Lagrangian is ``f(x) + y * g(x)`` for a minimisation.
    solver : str
        Registry name of the backend that produced the result.
    timings : Timings
        Build and solve seconds.
    log : str
        Status text or log reported by the solver.
    compiled_dual : ndarray or None
        The solver's dual of the rows of the form it was given (Clarabel's ``z``) when
        that form is not the model's own (cvxpy's compiled problem data): what a proof of
        a lower bound by weak duality on the compiled data starts from.
    """

    status: Status
    objective: float | None
    primal: dict[str, np.ndarray] = field(default_factory=dict)
    dual: dict[str, np.ndarray] = field(default_factory=dict)
    solver: str = ""
    timings: Timings = field(default_factory=Timings)
    log: str = ""
    compiled_dual: np.ndarray | None = None
