"""HiGHS through Pyomo (``appsi_highs``): for LP models emitted as Pyomo."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from solvers.banners import silence_highs_banner
from solvers.model import PyomoModel
from solvers.registry import Availability
from solvers.result import SolveResult, Status, Timings


@dataclass
class PyomoHighsBackend:
    """HiGHS via Pyomo's APPSI interface.

    Duals come from Pyomo's ``dual`` suffix and are converted to the registry's
    sign convention (nonnegative for the ``<=`` rows of a minimisation).
    """

    name: str = "highs"
    form: str = "pyomo"
    description: str = "HiGHS LP/MIP solver through Pyomo (appsi_highs)"

    def availability(self) -> Availability:
        try:
            import pyomo.environ as pyo
        except ImportError:
            return Availability(False, "pyomo is not installed")
        if not pyo.SolverFactory("appsi_highs").available(exception_flag=False):
            return Availability(False, "highspy is not installed")
        return Availability(True)

    def solve(self, model: PyomoModel, /, **options: Any) -> SolveResult:
        import pyomo.environ as pyo
        from pyomo.opt import TerminationCondition

        m = model.model
        if not hasattr(m, "dual"):
            m.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
        silence_highs_banner()
        solver = pyo.SolverFactory("appsi_highs")
        for key, value in options.items():
            solver.highs_options[key] = value
        start = time.perf_counter()
        outcome = solver.solve(m, load_solutions=False)
        elapsed = time.perf_counter() - start
        condition = outcome.solver.termination_condition
        status = {
            TerminationCondition.optimal: Status.OPTIMAL,
            TerminationCondition.infeasible: Status.INFEASIBLE,
            TerminationCondition.unbounded: Status.UNBOUNDED,
            TerminationCondition.maxIterations: Status.ITERATION_LIMIT,
        }.get(condition, Status.ERROR)
        if not status.has_solution:
            return SolveResult(status, None, solver=self.name, timings=Timings(0.0, elapsed),
                               log=str(condition))
        m.solutions.load_from(outcome)
        objective = next(m.component_data_objects(pyo.Objective, active=True))
        sense = 1.0 if objective.sense == pyo.minimize else -1.0
        return SolveResult(
            status=status,
            objective=float(pyo.value(objective)),
            primal={name: _values(var) for name, var in model.variables.items()},
            dual={name: -sense * _duals(m, con) for name, con in model.constraints.items()},
            solver=self.name,
            timings=Timings(0.0, elapsed),
            log=str(condition),
        )


def _values(component: Any) -> np.ndarray:
    """Values in index order, shaped like the index set when it is a product of sets."""
    import pyomo.environ as pyo

    values = np.array([pyo.value(component[i]) for i in component], dtype=float)
    if component.is_indexed() and component.index_set().dimen > 1:
        shape = tuple(len(s) for s in component.index_set().subsets())
        if int(np.prod(shape)) == values.size:
            return values.reshape(shape)
    return values


def _duals(model: Any, component: Any) -> np.ndarray:
    return np.array([model.dual.get(component[i], np.nan) for i in component], dtype=float)
