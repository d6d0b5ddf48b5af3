"""Pluggable solver backends behind one registry and one result type.

>>> import solvers
>>> solvers.available()                       # doctest: +SKIP
['clarabel', 'ecos', 'highs', 'highspy', 'scs']
>>> result = solvers.solve(model, solver="scs")  # doctest: +SKIP

Swapping the solver is one argument. Third-party backends register through
the ``rldp_models.solvers`` entry-point group or :func:`register`.
"""

from solvers.backends.clarabel_direct import ClarabelDirectBackend
from solvers.backends.cvxpy_backend import ECOS_CAVEATS, CvxpyBackend, mosek_availability
from solvers.backends.highs import HighspyBackend, PyomoHighsBackend
from solvers.backends.scs_direct import ScsDirectBackend
from solvers.conic import ConeDims, ConicProgram
from solvers.model import CvxpyModel, LinearProgram, PyomoModel
from solvers.registry import (
    DEFAULT_SOLVER,
    SolverError,
    SolverUnavailableError,
    UnknownSolverError,
    UnsupportedModelError,
    Availability,
    Backend,
    available,
    backends,
    describe,
    get,
    register,
    registered,
    solve,
)
from solvers.result import SolveResult, Status, Timings

register(CvxpyBackend("clarabel", "CLARABEL", "Clarabel interior-point conic solver (default)",
                      defaults={"direct_solve_method": "qdldl"}))
register(CvxpyBackend("scs", "SCS", "SCS first-order conic solver",
                      defaults={"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 200_000}))
register(CvxpyBackend("ecos", "ECOS", "ECOS interior-point SOC/exponential-cone solver",
                      caveats=ECOS_CAVEATS))
register(CvxpyBackend("mosek", "MOSEK", "MOSEK conic solver (needs a licence)",
                      licence_check=mosek_availability))
register(PyomoHighsBackend())
register(HighspyBackend())
register(ClarabelDirectBackend())
register(ScsDirectBackend())

__all__ = [
    "DEFAULT_SOLVER", "Availability", "Backend", "CvxpyBackend", "CvxpyModel", "HighspyBackend",
    "LinearProgram", "PyomoHighsBackend", "PyomoModel", "SolveResult", "SolverError",
    "SolverUnavailableError", "Status", "Timings", "UnknownSolverError", "UnsupportedModelError",
    "ClarabelDirectBackend", "ConeDims", "ConicProgram", "ScsDirectBackend",
    "available", "backends", "describe", "get", "register", "registered", "solve",
]
