"""cvxpy-driven conic solvers: Clarabel, SCS, ECOS and MOSEK.

One adapter class serves every cvxpy solver; the differences are the cvxpy
solver name, default options and (for MOSEK) a licence check.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from solvers.model import CvxpyModel
from solvers.registry import Availability
from solvers.result import SolveResult, Status, Timings

_STATUS = {
    "optimal": Status.OPTIMAL,
    "optimal_inaccurate": Status.OPTIMAL_INACCURATE,
    "infeasible": Status.INFEASIBLE,
    "infeasible_inaccurate": Status.INFEASIBLE,
    "unbounded": Status.UNBOUNDED,
    "unbounded_inaccurate": Status.UNBOUNDED,
    "user_limit": Status.ITERATION_LIMIT,
    "solver_error": Status.ERROR,
}


@dataclass
class CvxpyBackend:
    """A solver reached through ``cvxpy.Problem.solve(solver=...)``.

    Parameters
    ----------
    name : str
        Registry name.
    cvxpy_solver : str
        cvxpy's name for the solver (``"CLARABEL"``, ...).
    description : str
        One line for listings.
    defaults : dict
        Options passed to cvxpy unless the caller overrides them.
    licence_check : callable, optional
        Returns an :class:`Availability`; used for licensed solvers.
    """

    name: str
    cvxpy_solver: str
    description: str
    defaults: dict[str, Any] = field(default_factory=dict)
    licence_check: Callable[[], Availability] | None = None
    form: str = "cvxpy"

    def availability(self) -> Availability:
        try:
            import cvxpy
        except ImportError:
            return Availability(False, "cvxpy is not installed")
        if self.licence_check is not None:
            licence = self.licence_check()
            if not licence.ok:
                return licence
        if self.cvxpy_solver not in cvxpy.installed_solvers():
            return Availability(False, f"cvxpy cannot find {self.cvxpy_solver}")
        return Availability(True)

    def solve(self, model: CvxpyModel, /, **options: Any) -> SolveResult:
        import cvxpy

        problem = model.problem
        start = time.perf_counter()
        try:
            with warnings.catch_warnings():
                # the status OPTIMAL_INACCURATE says the same in the result, on no stream
                warnings.filterwarnings("ignore", message="Solution may be inaccurate")
                problem.solve(solver=self.cvxpy_solver, **{**self.defaults, **options})
        except cvxpy.error.SolverError as exc:
            elapsed = time.perf_counter() - start
            return SolveResult(Status.ERROR, None, solver=self.name,
                               timings=Timings(0.0, elapsed), log=str(exc))
        elapsed = time.perf_counter() - start
        status = _STATUS.get(problem.status, Status.ERROR)
        compile_seconds = float(getattr(problem, "compilation_time", 0.0) or 0.0)
        return SolveResult(
            status=status,
            objective=float(problem.value) if status.has_solution else None,
            primal=_primal(model) if status.has_solution else {},
            dual=_dual(model) if status.has_solution else {},
            solver=self.name,
            timings=Timings(compile_seconds, max(elapsed - compile_seconds, 0.0)),
            log=f"cvxpy status {problem.status}; {problem.solver_stats.solver_name}",
        )


def _primal(model: CvxpyModel) -> dict[str, np.ndarray]:
    return {name: np.asarray(var.value, dtype=float) for name, var in model.variables.items()}


def _dual(model: CvxpyModel) -> dict[str, np.ndarray]:
    duals = {}
    for name, group in model.constraints.items():
        values = [np.ravel(np.asarray(_first_dual(c), dtype=float)) for c in group]
        duals[name] = np.concatenate(values) if values else np.zeros(0)
    return duals


def _first_dual(constraint: Any) -> Any:
    """The dual of a constraint; for a cone constraint with several parts, all parts stacked."""
    value = constraint.dual_value
    if isinstance(value, list):
        return np.concatenate([np.ravel(v) for v in value])
    return value if value is not None else np.nan
