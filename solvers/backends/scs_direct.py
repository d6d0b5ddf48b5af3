"""SCS called directly on a :class:`~solvers.conic.ConicProgram` (one factorisation per solve)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from solvers.conic import ConicProgram
from solvers.registry import Availability
from solvers.result import SolveResult, Status, Timings

_STATUS = {
    1: Status.OPTIMAL,
    2: Status.OPTIMAL_INACCURATE,
    -1: Status.UNBOUNDED,
    -6: Status.UNBOUNDED,
    -2: Status.INFEASIBLE,
    -7: Status.INFEASIBLE,
}
"""SCS's ``status_val`` (its integer status; cvxpy's ``SCS.STATUS_MAP`` reads the same) to ours;
the text ``status`` varies ("solved (inaccurate - reached max_iters)") and is only logged.
Any other value (failed, indeterminate, interrupted) is an error."""


def scs_cones(program: ConicProgram) -> dict[str, Any]:
    """SCS's cone dictionary; the row order of :class:`ConicProgram` is SCS's own."""
    dims = program.cones
    return {"z": dims.zero, "l": dims.nonneg, "q": list(dims.soc), "p": list(dims.power)}


@dataclass
class ScsDirectBackend:
    """SCS's Python API on the canonical conic form.

    SCS factors its linear system once and then iterates, so an answer to
    moderate accuracy is cheap; the log states the primal and dual
    objectives (their gap is the optimality gap of the answer).
    """

    name: str = "scs-direct"
    form: str = "conic"
    description: str = "SCS on a directly assembled conic form (first-order, moderate accuracy)"
    defaults: dict[str, Any] = field(default_factory=lambda: {
        "eps_abs": 1e-6, "eps_rel": 1e-6, "max_iters": 50_000})

    def availability(self) -> Availability:
        try:
            import scs  # noqa: F401
        except ImportError:
            return Availability(False, "scs is not installed")
        return Availability(True)

    def solve(self, program: ConicProgram, /, **options: Any) -> SolveResult:
        import scs

        build_start = time.perf_counter()
        settings = {"verbose": False, **self.defaults, **options}
        if "time_limit" in settings:  # the registry's common name (solvers.solve)
            settings["time_limit_secs"] = settings.pop("time_limit")
        data = {"A": program.A.tocsc(), "b": program.b, "c": program.c}
        solver = scs.SCS(data, scs_cones(program), **settings)
        build = time.perf_counter() - build_start
        start = time.perf_counter()
        solution = solver.solve()
        elapsed = time.perf_counter() - start
        info = solution["info"]
        status = _STATUS.get(int(info["status_val"]), Status.ERROR)
        primal, dual = (program.sign * (info[k] + program.offset) for k in ("pobj", "dobj"))
        log = (f"scs {info['status']}: {info['iter']} iterations, "
               f"primal {primal:.10g}, dual {dual:.10g}")
        if not status.has_solution:
            return SolveResult(status, None, solver=self.name, timings=Timings(build, elapsed),
                               log=log)
        x, y = np.asarray(solution["x"]), np.asarray(solution["y"])
        return SolveResult(status, program.objective(x),
                           primal=program.named_primal(x), dual=program.named_dual(y),
                           solver=self.name, timings=Timings(build, elapsed), log=log)
