"""HiGHS: its two backends, through Pyomo (``appsi_highs``) for LP models emitted as Pyomo and
directly through highspy for large sparse LPs in matrix form, and its once-per-process banner.

Both backends convert HiGHS's duals to the registry's sign convention
(nonnegative for the ``<=`` rows of a minimisation).

Solver banners stay off standard output, which carries results only. HiGHS
prints its copyright banner to the C ``stdout`` when the first
``highspy.Highs`` object of a process is constructed, before any option can
turn it off, and never again. :func:`silence_highs_banner` constructs that
first object with file descriptor 1 pointed at the null device, so every
later ``Highs()`` (direct, through Pyomo's ``appsi_highs`` or the cone-LP
engine) is silent. (``rldp solvers`` names the HiGHS version.)
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from solvers.model import LinearProgram, PyomoModel
from solvers.registry import Availability
from solvers.result import SolveResult, Status, Timings

_done = False


def silence_highs_banner() -> None:
    """Spend HiGHS's once-per-process banner on the null device (a no-op without highspy)."""
    global _done
    if _done:
        return
    try:
        import highspy
    except ImportError:
        return
    sys.stdout.flush()
    try:
        saved = os.dup(1)
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(null, 1)
        highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)
    _done = True


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


@dataclass
class HighspyBackend:
    """HiGHS on a :class:`~solvers.model.LinearProgram`, no modelling layer in between.

    Row duals are converted to the registry's convention: nonnegative for
    ``<=`` rows of a minimisation, and for a maximisation the multipliers of
    the equivalent minimisation of ``-c.x``.
    """

    name: str = "highspy"
    form: str = "linear_program"
    description: str = "HiGHS called directly (highspy) on a matrix-form LP"

    def availability(self) -> Availability:
        try:
            import highspy  # noqa: F401
        except ImportError:
            return Availability(False, "highspy is not installed")
        return Availability(True)

    def solve(self, lp: LinearProgram, /, **options: Any) -> SolveResult:
        import highspy

        build_start = time.perf_counter()
        silence_highs_banner()
        highs = highspy.Highs()
        highs.setOptionValue("output_flag", bool(options.pop("verbose", False)))
        for key, value in options.items():
            highs.setOptionValue(key, value)
        highs.passModel(_to_highs_lp(lp, highspy))
        build = time.perf_counter() - build_start
        start = time.perf_counter()
        highs.run()
        elapsed = time.perf_counter() - start
        model_status = highs.getModelStatus()
        status = {
            highspy.HighsModelStatus.kOptimal: Status.OPTIMAL,
            highspy.HighsModelStatus.kInfeasible: Status.INFEASIBLE,
            highspy.HighsModelStatus.kUnbounded: Status.UNBOUNDED,
            highspy.HighsModelStatus.kIterationLimit: Status.ITERATION_LIMIT,
        }.get(model_status, Status.ERROR)
        log = highs.modelStatusToString(model_status)
        if not status.has_solution:
            return SolveResult(status, None, solver=self.name, timings=Timings(build, elapsed),
                               log=log)
        solution = highs.getSolution()
        x = np.asarray(solution.col_value)
        sign = 1.0 if lp.maximize else -1.0
        row_dual = sign * np.asarray(solution.row_dual)
        return SolveResult(
            status=status,
            objective=float(lp.c @ x),
            primal={name: x[s] for name, s in lp.variable_blocks.items()} or {"x": x},
            dual={name: row_dual[s] for name, s in lp.row_blocks.items()} or {"rows": row_dual},
            solver=self.name,
            timings=Timings(build, elapsed),
            log=log,
        )


def _to_highs_lp(lp: LinearProgram, highspy: Any) -> Any:
    A = sp.vstack([lp.A_ub, lp.A_eq]).tocsc()
    n_ub = lp.A_ub.shape[0]
    inf = highspy.kHighsInf
    model = highspy.HighsLp()
    model.num_col_ = A.shape[1]
    model.num_row_ = A.shape[0]
    model.col_cost_ = np.asarray(lp.c, dtype=float)
    model.col_lower_ = np.where(np.isfinite(lp.lb), lp.lb, -inf)
    model.col_upper_ = np.where(np.isfinite(lp.ub), lp.ub, inf)
    model.row_lower_ = np.concatenate([np.full(n_ub, -inf), lp.b_eq])
    model.row_upper_ = np.concatenate([lp.b_ub, lp.b_eq])
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = A.indptr
    model.a_matrix_.index_ = A.indices
    model.a_matrix_.value_ = A.data
    model.sense_ = highspy.ObjSense.kMaximize if lp.maximize else highspy.ObjSense.kMinimize
    return model
