"""cvxpy-driven conic solvers: Clarabel, SCS, ECOS and MOSEK.

One adapter class serves every cvxpy solver; the differences are the cvxpy
solver name, default options, (for MOSEK) a licence check
(:func:`mosek_availability`), and known weak spots by cone (``caveats``).

Before solving, :meth:`CvxpyBackend.refusal` asks cvxpy's own test
(``Solver.can_solve`` on the problem's ``ProblemForm``) whether the solver
takes the cones the model needs: ECOS has no power cone, so a
power-divergence program is refused up front with the cones it lacks
(:func:`solvers.solve` raises :class:`~solvers.UnsupportedModelError` and
names the solvers that take it), instead of a bare ``error`` after compiling.
"""

from __future__ import annotations

import functools
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from solvers.backends.highs import silence_highs_banner
from solvers.model import CvxpyModel
from solvers.registry import Availability
from solvers.result import SolveResult, Status, Timings

TIME_LIMIT_OPTIONS = {"CLARABEL": "time_limit", "SCS": "time_limit_secs"}
"""cvxpy solver name to its own name of the option :func:`solvers.solve` calls ``time_limit``
(seconds of solving; MOSEK's is its parameter ``MSK_DPAR_OPTIMIZER_MAX_TIME``); a solver
without one (ECOS) runs to its own iteration limit."""

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
    caveats : dict
        cvxpy cone name (``"ExpCone"``) to what is known to go wrong with this
        solver on it; added to the log of a failed solve of a model with that cone.
    """

    name: str
    cvxpy_solver: str
    description: str
    defaults: dict[str, Any] = field(default_factory=dict)
    licence_check: Callable[[], Availability] | None = None
    caveats: dict[str, str] = field(default_factory=dict)
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

    def refusal(self, model: CvxpyModel) -> str | None:
        """Why this solver cannot take ``model`` (cones it lacks), or ``None`` when it can."""
        lacking = sorted(set(model_cones(model)) - set(self._supported_cones()))
        if not lacking:
            return None
        return f"{self.name} has no {', '.join(_CONE_WORDS.get(c, c) for c in lacking)}"

    def _supported_cones(self) -> list[str]:
        """cvxpy's cone names this solver takes natively (``Solver.SUPPORTED_CONSTRAINTS``)."""
        from cvxpy.reductions.solvers.defines import SOLVER_MAP_CONIC

        solver = SOLVER_MAP_CONIC.get(self.cvxpy_solver)
        if solver is None:  # not a conic solver of this cvxpy: let cvxpy decide
            return list(_CONE_WORDS)
        return [cone.__name__ for cone in solver.SUPPORTED_CONSTRAINTS]

    def solve(self, model: CvxpyModel, /, **options: Any) -> SolveResult:
        import cvxpy

        problem = model.problem
        options = _renamed_time_limit(self.cvxpy_solver, options)
        if self.cvxpy_solver == "HIGHS":
            silence_highs_banner()
        start = time.perf_counter()
        try:
            with warnings.catch_warnings():
                # the status OPTIMAL_INACCURATE says the same in the result, on no stream
                warnings.filterwarnings("ignore", message="Solution may be inaccurate")
                problem.solve(solver=_dual_keeping(self.cvxpy_solver),
                              **{**self.defaults, **options})
        except cvxpy.error.SolverError as exc:
            elapsed = time.perf_counter() - start
            return SolveResult(Status.ERROR, None, solver=self.name,
                               timings=Timings(0.0, elapsed), log=self._failure(model, exc))
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
            log="; ".join([f"cvxpy status {problem.status}; {problem.solver_stats.solver_name}",
                           *(self._caveats(model) if status in _STOPPED else [])]),
            compiled_dual=_kept_dual(problem) if status.has_solution else None,
        )


    def _failure(self, model: CvxpyModel, exc: Exception) -> str:
        """The log of a failed solve: cvxpy's message and the caveats of the model's cones."""
        said = " ".join(str(exc).split()).split(". ")[0].rstrip(".")
        return "; ".join([f"{self.name} stopped without a solution (cvxpy: {said})",
                          *self._caveats(model)])

    def _caveats(self, model: CvxpyModel) -> list[str]:
        """What is known to go wrong with this solver on the cones ``model`` needs."""
        return [self.caveats[cone] for cone in model_cones(model) if cone in self.caveats]


ECOS_CAVEATS = {"ExpCone": (
    "ECOS's exponential-cone method is known to stall beyond a few dozen cells "
    "(Adult over kl: 2x6 solves, 2x15 and 5x16 fail)")}
"""What goes wrong with ECOS by cone (embotech/ecos#134: its nonsymmetric exponential-cone
steps stall in the line search; measured in NURP, RUNP and RURP over kl: sex x relationship
solves, sex x occupation and race x education stop with numerical problems, as do some
random 3x5 tables and most 5x16 ones)."""

_STOPPED = (Status.ERROR, Status.ITERATION_LIMIT)
"""Statuses of a solver that stopped without an answer (not a verdict on the model)."""

_CONE_WORDS = {"Zero": "equality rows", "NonNeg": "inequality rows", "SOC": "second-order cone",
               "ExpCone": "exponential cone", "PowCone3D": "power cone",
               "PowConeND": "n-dimensional power cone", "PSD": "semidefinite cone"}
"""cvxpy's cone names as a user reads them."""


def _renamed_time_limit(cvxpy_solver: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with ``time_limit`` under the solver's own name (dropped if it has none)."""
    options = dict(options)
    limit = options.pop("time_limit", None)
    name = TIME_LIMIT_OPTIONS.get(cvxpy_solver)
    if limit is not None and name is not None:
        options[name] = limit
    elif limit is not None and cvxpy_solver == "MOSEK":
        options["mosek_params"] = {**options.get("mosek_params", {}),
                                   "MSK_DPAR_OPTIMIZER_MAX_TIME": float(limit)}
    return options


def model_cones(model: CvxpyModel) -> list[str]:
    """cvxpy's names of the cones ``model`` needs after canonicalisation (``ProblemForm``)."""
    from cvxpy.problems.problem_form import ProblemForm

    return sorted(cone.__name__ for cone in ProblemForm(model.problem).cones())


def _primal(model: CvxpyModel) -> dict[str, np.ndarray]:
    return {name: np.asarray(var.value, dtype=float) for name, var in model.variables.items()}


KEPT_DUAL = "compiled_dual"
"""Key of :func:`_dual_keeping`'s ``z`` in cvxpy's ``solver_stats.extra_stats``."""


def _dual_keeping(cvxpy_solver: str) -> Any:
    """cvxpy's solver ``cvxpy_solver``, as an instance that also keeps the solver's raw dual
    ``z`` of the compiled rows (cvxpy's inversion keeps only the duals of the user's
    constraints) for Clarabel; the name itself for any other solver.

    The subclass changes nothing but its name and what ``invert`` keeps. cvxpy requires a
    custom solver's name to differ from its own solvers' and prints it in its messages and
    ``solver_stats`` ("Solver '...' failed"), so the name is the registry's ``clarabel``
    (cvxpy's is ``CLARABEL``), the name a user chose it by. Otherwise the same reductions
    compile the same data, the data ``problem.get_problem_data(cvxpy.CLARABEL)`` returns.
    """
    if cvxpy_solver != "CLARABEL":
        return cvxpy_solver
    from cvxpy import settings
    from cvxpy.reductions.solvers.conic_solvers.clarabel_conif import CLARABEL

    class DualKeepingClarabel(CLARABEL):
        def name(self) -> str:
            return "clarabel"

        def invert(self, solution: Any, inverse_data: Any) -> Any:
            inverted = super().invert(solution, inverse_data)
            z = getattr(solution, "z", None)
            inverted.attr[settings.EXTRA_STATS] = {
                KEPT_DUAL: None if z is None else np.array(z, dtype=float)}
            return inverted

    return DualKeepingClarabel()


def _kept_dual(problem: Any) -> np.ndarray | None:
    extra = getattr(problem.solver_stats, "extra_stats", None)
    return extra.get(KEPT_DUAL) if isinstance(extra, dict) else None


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


@functools.lru_cache(maxsize=1)
def mosek_availability() -> Availability:
    """Availability of MOSEK, with the reason when absent.

    The licence is checked by checking out the base feature, the same thing
    MOSEK does before its first optimisation; no model is solved.
    """
    try:
        import mosek
    except ImportError:
        return Availability(False, "the mosek package is not installed (pip install mosek)")
    try:
        with mosek.Env() as env:
            env.checkoutlicense(mosek.feature.pts)
    except mosek.Error as exc:
        return Availability(False, f"no MOSEK licence found ({str(exc).splitlines()[0]})")
    return Availability(True)
