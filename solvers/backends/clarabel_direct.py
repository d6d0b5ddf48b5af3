"""Clarabel called directly on a :class:`~solvers.conic.ConicProgram` (no cvxpy compile)."""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from solvers.conic import ConicProgram
from solvers.registry import Availability
from solvers.result import SolveResult, Status, Timings

# Above this many nonzeros in A the supernodal, multithreaded faer factorisation beats
# qdldl (RURP 10x20, 2.2M nonzeros: 35 s against 62 s of CPU time); below, qdldl's
# lower overhead wins.
SUPERNODAL_FROM_NNZ = 200_000
# ... and iterative refinement is left off: with faer each refinement step costs about
# as much as the factorisation's share of an iteration (RURP 10x20: 47 iterations,
# 33 s of CPU time with refinement; 49 iterations, 19-20 s without, same objective
# to 1e-5 relative; the exact finishing repairs the slightly larger residuals).
# Large programs stop at 1e-9, not Clarabel's 1e-8: the robust programs' multipliers
# are large (Theorem 4's c and t reach 20-100 where one secret holds most records), so
# at 1e-8 the objective is still ~1e-3 above the optimum. At 1e-9 (RURP, Hamming, eps 1)
# the proven relative gap is 7.8e-5 against 1.3e-3 on Adult race x education (66
# iterations against 60, the same CPU time end to end: the optimality certificate works
# less), 1.2e-3 against 5.3e-3 on education x occupation (68 against 62 iterations,
# 28.2 s against 28.9 s of CPU), 4.3e-5 against 3.5e-4 on synthetic 10x20 (49 against 45,
# +6% CPU); 1e-10 proves 1.4e-6 at 10x20 but needs 62 iterations and 2.4x the CPU.
LARGE_PROGRAM_SETTINGS = {"direct_solve_method": "faer", "iterative_refinement_enable": False,
                          "tol_gap_abs": 1e-9, "tol_gap_rel": 1e-9, "tol_feas": 1e-9}
# A program whose linking rows are mixed by blocks (rldp_models.programs.conic_form,
# "Sparse ordering") is large whatever its nonzeros, and qdldl factors it: its KKT factor has
# short columns, where faer's supernodal factorisation spends its time setting up tiny dense
# blocks. RURP 10x20, Clarabel CPU s: 6.3 with qdldl against 9.0 with faer, which picks its
# simplicial or supernodal factorisation by a flop ratio that these forms straddle (5.7 or
# 9.0 s); education x occupation 16.3 against 20.7; the fully mixed form with qdldl: 18.0.
# Each of its KKT solves is checked (one product with the unregularised KKT matrix) and refined
# once when its residual exceeds 1e-7 of the right-hand side. Unrefined, the solves' error
# stalls Clarabel's dual residual at ~1.2e-8 against 1e-9 on education x occupation (boosted
# side cones; the protocol entries of the last linking block keep a dual residual of ~1e-6, the
# others ~1e-8) and the step dies: AlmostSolved, RURP after 61 iterations, NURP after 63.
# Refined late, both end Solved (59 and 60 iterations; about +1 s of CPU end to end, proven
# gaps 5.8e-4 -> 4.7e-4). At RURP 10x20 no solve trips the check (45 iterations, the same
# iterates bit for bit) and the check costs 1-6% of Clarabel's CPU; refining every solve
# (Clarabel's default tolerances) costs 25% there; reltol 1e-6 is too loose (RURP 16x15 stalls).
GROUPED_PROGRAM_SETTINGS = {**LARGE_PROGRAM_SETTINGS, "direct_solve_method": "qdldl",
                            "iterative_refinement_enable": True,
                            "iterative_refinement_max_iter": 1,
                            "iterative_refinement_reltol": 1e-7}
# Past about 30 outputs the grouped form's KKT factor has long columns again, and faer's
# supernodal factorisation wins: Clarabel's set-up and first four iterations (RURP, Hamming,
# eps 1, one thread, s) take 19.7 with faer against 45.5 with qdldl on Adult education x
# native-country (16 x 42, 6.7M nonzeros; a whole solve ~10 min with qdldl), 2.5 against 4.4
# on marital-status x native-country (7 x 42), 1.9 against 2.4 on synthetic 8 x 30; below,
# qdldl stays ahead or level: 0.47 against 0.60 at 5 x 30 (0.37M nonzeros), 2.0 against 2.0 at
# 10 x 26, 1.6 against 2.0 on education x occupation (16 x 15), 7.4 against 10.0 s for the
# whole solve at 10 x 20.
WIDE_GROUPED_OUTPUTS = 30
WIDE_GROUPED_FROM_NNZ = 500_000
WIDE_GROUPED_SETTINGS = {**GROUPED_PROGRAM_SETTINGS, "direct_solve_method": "faer"}
# Small programs are solved to 1e-10 instead of Clarabel's 1e-8: the dual then proves the
# optimum to ~1e-8 (rldp_models.certificates.optimality; at 1e-8 the interior point's
# slack mu / lambda on nearly active constraints costs ~1e-6), and the returned protocols
# are better (NURP, RURP 3x5, 20 Jeffreys instances at n = 15,000: median 4e-7 lower
# objective after the exact finish, lower in 15 of 20) at no measured extra time.
SMALL_PROGRAM_SETTINGS = {"direct_solve_method": "qdldl", "tol_gap_abs": 1e-10,
                          "tol_gap_rel": 1e-10, "tol_feas": 1e-10, "tol_ktratio": 1e-8}

# Theorem 4's side cones are handed over boosted (ConicProgram.soc_boosts) on large programs,
# where it was measured (RURP, Hamming, eps 1; solve + optimality certificate): 10x20 49 -> 45
# iterations and proven gap 4.2e-5 -> 1.2e-5, education x occupation 68 -> 60 and 1.0e-3 ->
# 6.0e-4, race x education 66 -> 58 and 7.8e-5 -> 9.4e-5 (education x occupation needs the
# grouped programs' late refinement to end Solved, see GROUPED_PROGRAM_SETTINGS). Small programs
# (qdldl, 1e-10) are solved as declared: their repairs and proven gaps are tested as they are.
BOOST_FROM_NNZ = SUPERNODAL_FROM_NNZ

Observer = Callable[[int, float, float], None]
"""Called at every interior-point iteration with the iteration, the primal objective (of
the form solved) and the relative gap."""
_OBSERVER: contextvars.ContextVar[Observer | None] = contextvars.ContextVar(
    "clarabel_direct_observer", default=None)


@contextlib.contextmanager
def observed(observer: Observer) -> Iterator[None]:
    """Let ``observer`` see every iteration of the direct Clarabel solves run in the block
    (Clarabel's termination callback, which never stops the solve here): progress shown
    while a long solve runs (issue 38, item 4)."""
    token = _OBSERVER.set(observer)
    try:
        yield
    finally:
        _OBSERVER.reset(token)


def _watch(solver: Any) -> None:
    """Hand the solver the observer of :func:`observed` (or take a kept solver's away)."""
    observer = _OBSERVER.get()
    if observer is None:
        solver.unset_termination_callback()
        return

    def seen(info: Any) -> bool:
        observer(int(info.iterations), float(info.cost_primal), float(info.gap_rel))
        return False

    solver.set_termination_callback(seen)


_STATUS = {
    "Solved": Status.OPTIMAL,
    "AlmostSolved": Status.OPTIMAL_INACCURATE,
    "PrimalInfeasible": Status.INFEASIBLE,
    "AlmostPrimalInfeasible": Status.INFEASIBLE,
    "DualInfeasible": Status.UNBOUNDED,
    "AlmostDualInfeasible": Status.UNBOUNDED,
    "MaxIterations": Status.ITERATION_LIMIT,
    "MaxTime": Status.ITERATION_LIMIT,
}


def clarabel_cones(program: ConicProgram) -> list[Any]:
    """Clarabel's cone list for ``program.cones`` (row order: zero, nonneg, soc, power)."""
    import clarabel

    dims = program.cones
    cones: list[Any] = []
    if dims.zero:
        cones.append(clarabel.ZeroConeT(dims.zero))
    if dims.nonneg:
        cones.append(clarabel.NonnegativeConeT(dims.nonneg))
    cones += [clarabel.SecondOrderConeT(d) for d in dims.soc]
    cones += [clarabel.PowerConeT(a) for a in dims.power]
    return cones


def _grouped_settings(program: ConicProgram) -> dict[str, Any]:
    """A grouped program's settings: :data:`WIDE_GROUPED_SETTINGS` (faer) when its
    ``protocol`` block has :data:`WIDE_GROUPED_OUTPUTS` columns or more and ``A`` has
    :data:`WIDE_GROUPED_FROM_NNZ` nonzeros or more, else :data:`GROUPED_PROGRAM_SETTINGS`."""
    protocol = program.variable_blocks.get("protocol")
    outputs = protocol.shape[-1] if protocol is not None and protocol.ndim == 2 else 0
    wide = outputs >= WIDE_GROUPED_OUTPUTS and program.A.nnz >= WIDE_GROUPED_FROM_NNZ
    return WIDE_GROUPED_SETTINGS if wide else GROUPED_PROGRAM_SETTINGS


@dataclass
class ClarabelDirectBackend:
    """Clarabel's Python API on the canonical conic form.

    Presolve is off (it would forbid updating a kept solver's data; the
    builders write no infinite bounds for it to remove). The KKT solver and
    iterative refinement are chosen by size and form (:data:`SUPERNODAL_FROM_NNZ`,
    :data:`LARGE_PROGRAM_SETTINGS`, :data:`GROUPED_PROGRAM_SETTINGS`); options given to
    :meth:`solve` override them.

    The log states the primal and dual objectives Clarabel reports (their
    gap is the optimality gap of the answer).
    """

    name: str = "clarabel-direct"
    form: str = "conic"
    description: str = "Clarabel on a directly assembled conic form (large robust programs)"
    defaults: dict[str, Any] = field(default_factory=lambda: {"presolve_enable": False})

    def availability(self) -> Availability:
        try:
            import clarabel  # noqa: F401
        except ImportError:
            return Availability(False, "clarabel is not installed")
        return Availability(True)

    def solve(self, program: ConicProgram, /, **options: Any) -> SolveResult:
        build_start = time.perf_counter()
        grouped = program.grouped_linking
        by_size = _grouped_settings(program) if grouped else LARGE_PROGRAM_SETTINGS \
            if program.A.nnz > SUPERNODAL_FROM_NNZ else SMALL_PROGRAM_SETTINGS
        boost = None if program.keep_solver or not (grouped or program.A.nnz > BOOST_FROM_NNZ) \
            else program.boost()
        solver = self._solver(program, {**by_size, **self.defaults, **options}, boost)
        build = time.perf_counter() - build_start
        _watch(solver)
        start = time.perf_counter()
        solution = solver.solve()
        elapsed = time.perf_counter() - start
        status = _STATUS.get(str(solution.status), Status.ERROR)
        log = (f"clarabel {solution.status}: {solution.iterations} iterations, primal "
               f"{program.sign * (solution.obj_val + program.offset):.10g}, dual "
               f"{program.sign * (solution.obj_val_dual + program.offset):.10g}")
        if not status.has_solution:
            return SolveResult(status, None, solver=self.name, timings=Timings(build, elapsed),
                               log=log)
        x, z = np.asarray(solution.x), np.asarray(solution.z)
        if boost is not None:
            z = boost @ z  # the declared rows' dual
        return SolveResult(status, program.objective(x),
                           primal=program.named_primal(x), dual=program.named_dual(z),
                           solver=self.name, timings=Timings(build, elapsed), log=log)

    def _solver(self, program: ConicProgram, options: dict[str, Any],
                boost: sp.csr_matrix | None) -> Any:
        """A new Clarabel solver, or the kept one given the new numbers (``keep_solver``).

        With a ``boost`` (:meth:`ConicProgram.boost`) Clarabel gets ``T A`` and ``T b``.
        """
        import clarabel

        key = tuple(sorted(options.items()))
        kept = program.solver_cache.get(self.name)
        if kept is not None and kept[0] == key and kept[1].is_data_update_allowed():
            kept[1].update(q=program.c, A=program.A.data, b=program.b)
            return kept[1]
        settings = clarabel.DefaultSettings()
        settings.verbose = False
        for name, value in options.items():
            setattr(settings, name, value)
        n = program.A.shape[1]
        A, b = (program.A, program.b) if boost is None \
            else (sp.csc_matrix(boost @ program.A), boost @ program.b)
        solver = clarabel.DefaultSolver(sp.csc_matrix((n, n)), program.c, A, b,
                                        clarabel_cones(program), settings)
        if program.keep_solver:
            program.solver_cache[self.name] = (key, solver)
        return solver
