"""The cone LP: ``max sum_r theta_r mu(v_r)  s.t.  sum_r theta_r v_r = rhs, theta >= 0``.

Maximising a sublinear utility ``sum_y mu(Q_y)`` over mechanisms whose
columns lie in a pointed polyhedral cone ``C`` with ``sum_y Q_y = rhs`` is
this LP over the extreme rays ``v_r`` of ``C`` (the argument of Theorem 4 of
``extremal-mechanisms-ldp.txt``: write each column as a nonnegative
combination of rays, use subadditivity and homogeneity of ``mu``, and merge
columns on the same ray). The mechanism is ``[theta_r v_r]`` over the rays
with ``theta_r > 0``.

Duality and the certificate
---------------------------
The dual is ``min rhs.lam  s.t.  lam.v_r >= mu(v_r)`` for all ``r``: one
multiplier per input symbol. It bounds every mechanism in ``C``, not just
those on the rays: ``sum_y mu(Q_y) <= sum_y lam.Q_y = lam.rhs``. Its sign is
the registry's convention (:mod:`solvers.result`): the multiplier of the
equality rows of the equivalent minimisation of ``-mu.theta``, i.e.
``lam = d(optimum)/d(rhs)``; verified for the highspy, Pyomo-HiGHS and cvxpy
backends on a small LP with a known answer. :class:`DualCertificate` measures
dual infeasibility per unit of ray mass and turns it into a rigorous bound:
``lam + delta 1`` is dual feasible for ``delta = max_r (mu_r - lam.v_r)^+ / (1.v_r)``.

Solving
-------
:func:`generate_columns` is column generation: a master LP over a subset of
rays goes to :func:`solvers.solve`; a pricer proposes rays of positive reduced
cost at its dual and proves a bound over all rays; the most attractive rays
join the master until none has a positive reduced cost. :meth:`ConeLP.solve`
prices *all* rays (``mu - V^T lam``, vectorised or, for the staircase, by
subset sums); :func:`rldp_models.conelp.column_generation.solve_by_pricing`
asks a :class:`~rldp_models.conelp.pricing.PricingOracle`. An explicit ray set
seeds the master with every ray, so it is one LP solve plus the pricing
check. The full LP is available as :meth:`ConeLP.to_linear_program`,
:meth:`ConeLP.to_pyomo` and :meth:`ConeLP.to_cvxpy`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Protocol, cast

import numpy as np
import scipy.sparse as sp
from scipy.optimize import nnls

import solvers
from rldp_models.conelp.pricing_progress import RoundWatch
from rldp_models.conelp.rays import ExplicitRays, RaySet
from rldp_models.errors import InputError
from solvers.backends.highs import silence_highs_banner

ROW_BLOCK = "rays_sum_to_rhs"
"""Name of the equality rows ``sum_r theta_r v_r = rhs`` (dual key in results)."""

VARIABLE_BLOCK = "theta"
"""Name of the ray weights."""

CERTIFICATE_TOLERANCE = 1e-9
"""Dual infeasibility per unit mass and relative duality gap accepted as verified."""

PRICING_TOLERANCE = 1e-10
"""Column generation stops when no ray has reduced cost per unit mass above this."""

CONDITION_LIMIT = 1e6
"""Seed rays with a larger condition number get preconditioned master rows
(:func:`_row_transform`); HiGHS failed from about ``1e9``."""

RANK_FLOOR = 1e-14
"""Singular values of the seed rays below this times the largest are rounding noise
(:func:`_row_transform`): under ``2e-16`` at ``eps = 0``, above ``2e-15`` at ``1e-14``."""

UTILITY_CHUNK = 1 << 16
"""Rays per call when evaluating ``mu`` on a large ray set."""

_TIGHT_HIGHS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
_SOLVER_DEFAULTS: dict[str, dict[str, Any]] = {"highspy": _TIGHT_HIGHS, "highs": _TIGHT_HIGHS}


class ColumnUtility(Protocol):
    """A sublinear utility evaluated column-wise (see :mod:`rldp_models.utility`)."""

    @property
    def size(self) -> int:
        """The number of inputs (the length of a column)."""

    def columns(self, Q: np.ndarray) -> np.ndarray:
        """``mu`` of each column of ``Q``."""


@dataclass(frozen=True)
class DualCertificate:
    """The LP dual ``lam`` and how well it certifies the optimum.

    Attributes
    ----------
    dual : ndarray
        ``lam``, one multiplier per input symbol (registry sign convention).
    max_violation : float
        ``max_r (mu(v_r) - lam.v_r) / (1.v_r)`` over *all* rays; ``<= 0`` when
        ``lam`` is dual feasible.
    duality_gap : float
        ``rhs.lam - value``.
    upper_bound : float
        ``rhs.lam + max(max_violation, 0) * sum(rhs)``: an upper bound on the
        utility of every mechanism with columns in the cone, valid even when
        ``lam`` is slightly infeasible.
    tolerance : float
        Threshold used by :attr:`verified`.
    proven_gap : float or None
        When a producer stopped short of the optimum (anytime column
        generation): an upper bound, in the utility's units, on
        ``upper_bound - U(Q)`` for the protocol ``Q`` it returns, which
        ``rldp verify`` re-checks; None when it claims the optimum itself.
    """

    dual: np.ndarray
    max_violation: float
    duality_gap: float
    upper_bound: float
    tolerance: float = CERTIFICATE_TOLERANCE
    proven_gap: float | None = None

    @property
    def verified(self) -> bool:
        """Dual feasible and gap closed within :attr:`tolerance` (the gap relative to 1 + bound)."""
        gap_tolerance = self.tolerance * (1.0 + abs(self.upper_bound))
        return self.max_violation <= self.tolerance and abs(self.duality_gap) <= gap_tolerance


@dataclass(frozen=True)
class ConeLPSolution:
    """Solution of a :class:`ConeLP`.

    Attributes
    ----------
    columns : ndarray, shape (d, b)
        ``theta_r v_r`` for the rays in use; rows sum to ``rhs`` (to rounding).
        With ``rhs = 1`` this is the mechanism ``Q[x, y]``.
    theta : ndarray, shape (b,)
        Weights of the rays in use.
    rays : ndarray of int, shape (b,), or None
        Their indices in the ray set for :meth:`ConeLP.solve`; None for a
        pricing oracle (:func:`~rldp_models.conelp.column_generation.solve_by_pricing`),
        whose rays have no index: see :attr:`vectors`.
    value : float
        ``sum theta_r mu(v_r)``.
    certificate : DualCertificate
    status : solvers.Status
        OPTIMAL, or ITERATION_LIMIT when column generation stopped early.
    solver : str
    iterations : int
        Master LPs solved.
    seconds : float
        Wall-clock time of the solve.
    vectors : ndarray, shape (d, b)
        The rays in use, ``v_r`` (so ``columns = vectors * theta``).
    pricing_nodes : int
        Work the pricing reported (branch-and-bound nodes; 0 for full pricing).
    final_dual : ndarray or None
        Column generation: the last master's dual, made feasible on its own
        rays (where a tight bound is best sought after an early stop; the
        certificate is the round's with the smallest proven bound).
    """

    columns: np.ndarray
    theta: np.ndarray
    rays: np.ndarray | None
    value: float
    certificate: DualCertificate
    status: solvers.Status
    solver: str
    iterations: int
    seconds: float
    vectors: np.ndarray
    pricing_nodes: int = 0
    final_dual: np.ndarray | None = None


@dataclass(frozen=True)
class ConeLP:
    """The LP of Theorem 4 over the rays of a cone.

    Parameters
    ----------
    rays : RaySet
        Extreme rays ``v_r`` (length ``d`` each).
    utilities : ndarray, shape (count,)
        ``mu(v_r)``.
    rhs : ndarray, shape (d,)
        ``sum_y Q_y``: all ones for a mechanism, ``p_X`` for the joint
        (posterior) form of LIP.
    """

    rays: RaySet
    utilities: np.ndarray
    rhs: np.ndarray

    def __post_init__(self) -> None:
        if self.utilities.shape != (self.rays.count,):
            raise InputError(f"need one utility per ray ({self.rays.count}), "
                             f"got shape {self.utilities.shape}")
        if self.rhs.shape != (self.rays.dimension,) or np.any(self.rhs < 0):
            raise InputError(f"rhs must be a nonnegative vector of length {self.rays.dimension}")

    @classmethod
    def from_utility(cls, rays: RaySet, utility: ColumnUtility, rhs: np.ndarray) -> ConeLP:
        """The cone LP with ``mu(v_r)`` evaluated by ``utility.columns`` in chunks."""
        values = [utility.columns(rays.columns(np.arange(start, min(start + UTILITY_CHUNK,
                                                                     rays.count))))
                  for start in range(0, rays.count, UTILITY_CHUNK)]
        return cls(rays, np.concatenate(values), np.asarray(rhs, dtype=float))

    def to_linear_program(self) -> solvers.LinearProgram:
        """The full LP in matrix form (every ray a column)."""
        V = sp.csr_matrix(self.rays.columns(np.arange(self.rays.count)))
        n = self.rays.count
        return solvers.LinearProgram(
            c=self.utilities, A_ub=sp.csr_matrix((0, n)), b_ub=np.zeros(0), A_eq=V, b_eq=self.rhs,
            lb=np.zeros(n), ub=np.full(n, np.inf), maximize=True,
            variable_blocks={VARIABLE_BLOCK: slice(0, n)},
            row_blocks={ROW_BLOCK: slice(0, self.rays.dimension)})

    def to_pyomo(self) -> solvers.PyomoModel:
        """The full LP as a Pyomo ``ConcreteModel``."""
        import pyomo.environ as pyo

        V = self.rays.columns(np.arange(self.rays.count))
        m = pyo.ConcreteModel()
        m.R = pyo.RangeSet(0, self.rays.count - 1)
        m.X = pyo.RangeSet(0, self.rays.dimension - 1)
        m.theta = pyo.Var(m.R, domain=pyo.NonNegativeReals)
        m.utility = pyo.Objective(expr=sum(float(u) * m.theta[r]
                                           for r, u in enumerate(self.utilities)),
                                  sense=pyo.maximize)
        m.rays_sum_to_rhs = pyo.Constraint(m.X, rule=lambda m, x: sum(
            float(V[x, r]) * m.theta[int(r)] for r in np.flatnonzero(V[x])) == float(self.rhs[x]))
        return solvers.PyomoModel(m, {VARIABLE_BLOCK: m.theta}, {ROW_BLOCK: m.rays_sum_to_rhs})

    def to_cvxpy(self) -> solvers.CvxpyModel:
        """The full LP as a cvxpy problem."""
        import cvxpy as cp

        theta = cp.Variable(self.rays.count, nonneg=True, name=VARIABLE_BLOCK)
        rows = [sp.csr_matrix(self.rays.columns(np.arange(self.rays.count))) @ theta == self.rhs]
        problem = cp.Problem(cp.Maximize(self.utilities @ theta), rows)
        return solvers.CvxpyModel(problem, {VARIABLE_BLOCK: theta}, {ROW_BLOCK: rows})

    def solve(self, solver: str = "highspy", *, batch: int | None = None,
              max_iterations: int = 1000, **options: Any) -> ConeLPSolution:
        """Solve by column generation with master LPs sent to ``solver``.

        Every round prices *all* rays (:meth:`RaySet.transpose_dot`), so the
        certificate's ``max_violation`` is the largest reduced cost per unit
        mass over the whole ray set.

        Parameters
        ----------
        solver : str
            Registry name; ``"highspy"`` (default) and ``"highs"`` get feasibility
            tolerances of ``1e-10`` unless ``options`` say otherwise.
        batch : int, optional
            Rays added per iteration (default ``2 d``).
        max_iterations : int
            Master LPs at most; the status is ITERATION_LIMIT if reached.
        **options
            Passed to the solver.

        Raises
        ------
        solvers.SolverError
            If a master LP has no solution.
        """
        mass = self.rays.transpose_dot(np.ones(self.rays.dimension))
        seed = self.rays.seed()
        start = PricedRays(self.rays.columns(seed), self.utilities[seed], list(seed), np.inf)
        return generate_columns(partial(self._price_all, mass), start, self.rhs, solver,
                                batch=batch, max_iterations=max_iterations, options=options,
                                indexed=True)

    def _price_all(self, mass: np.ndarray, dual: np.ndarray, count: int,
                   known: set[Hashable]) -> PricedRays:
        """The ``count`` rays not in ``known`` of largest reduced cost, and the largest over all."""
        reduced = (self.utilities - self.rays.transpose_dot(dual)) / mass
        candidates = np.flatnonzero(reduced > PRICING_TOLERANCE)
        candidates = candidates[~np.isin(candidates, np.fromiter(known, dtype=np.int64))]
        if candidates.size > count:
            candidates = candidates[np.argpartition(reduced[candidates], -count)[-count:]]
        return PricedRays(self.rays.columns(candidates), self.utilities[candidates],
                          list(candidates), float(reduced.max()))


@dataclass(frozen=True)
class PricedRays:
    """Rays proposed by one pricing round, and a proven bound over all rays.

    Attributes
    ----------
    rays : ndarray, shape (d, m)
        Candidate rays (columns).
    utilities : ndarray, shape (m,)
        ``mu`` of each.
    keys : sequence
        A hashable identity per ray (a ray index, or the ray's bytes), so a
        ray already in the master is never added twice.
    upper_bound : float
        ``>= max (mu(v) - lam.v) / (1.v)`` over every ray of the cone.
    nodes : int
        Work units the pricing spent (branch-and-bound nodes).
    """

    rays: np.ndarray
    utilities: np.ndarray
    keys: Sequence[Hashable]
    upper_bound: float
    nodes: int = 0


Pricer = Callable[[np.ndarray, int, "set[Hashable]"], PricedRays]
"""``price(dual, count, known)``: up to ``count`` rays with keys not in ``known``."""


def generate_columns(price: Pricer, seed: PricedRays, rhs: np.ndarray, solver: str, *,
                     batch: int | None, max_iterations: int, options: dict[str, Any],
                     tolerance: float = PRICING_TOLERANCE, indexed: bool = False,
                     watch: RoundWatch | None = None) -> ConeLPSolution:
    """Column generation shared by :meth:`ConeLP.solve` and pricing oracles.

    Solve the master LP over the rays so far (:class:`_Master`), price at its
    dual made exactly feasible on the master's own rays (:meth:`_Master.repair`),
    add the new rays of reduced cost per unit mass above ``tolerance`` (at most
    ``batch``, default ``2 d``), and repeat until none enters. The certificate
    is the last master's dual, its ``max_violation`` the last pricing's bound
    plus the repair's shift (proven when no ray enters: an oracle that stops its
    search on a good ray proves no bound in earlier rounds). A run ``watch``
    ends early keeps the round with the smallest bound instead (its oracle's
    every bound is proven, as :class:`~.concave_pricing.ConcavePricing`'s is);
    the protocol is the last master's (the master's optimum never decreases). With
    ``indexed`` the keys are ray indices and become :attr:`ConeLPSolution.rays`.
    ``watch`` receives every round (:class:`~.pricing_progress.RoundWatch`) and
    ends the run early when it says so (status ITERATION_LIMIT), anytime.
    """
    started = time.perf_counter()
    options = {**_SOLVER_DEFAULTS.get(solver.lower(), {}), **options}
    if max_iterations < 1:
        raise InputError(f"max_iterations must be >= 1, got {max_iterations}")
    master = _Master(seed, np.asarray(rhs, dtype=float), solver.lower(), options)
    batch = batch or 2 * master.rays.shape[0]
    nodes = 0
    best = (np.inf, np.zeros(0), np.inf)
    for iteration in range(1, max_iterations + 1):
        theta, dual = master.solve(solver, options)
        shift = master.repair(dual)
        priced = price(dual + shift, batch, master.known)
        nodes += priced.nodes
        bound = priced.upper_bound + shift
        upper = float(master.rhs @ dual) + max(bound, 0.0) * float(master.rhs.sum())
        if upper < best[0]:
            best = (upper, dual, bound)
        entering = master.entering(priced, dual + shift, tolerance, batch)
        done = entering.size == 0 or iteration == max_iterations
        if watch is not None:
            done = watch.stopping() or done
            watch.round(iteration, master.rays.shape[1], float(master.utilities @ theta),
                        best[0], last=done)
        if done:
            break
        master.add(priced, entering)
    if watch is None or entering.size == 0:
        best = (np.inf, dual, bound)  # the last round's: proven when nothing enters
    solution = master.solution(theta, best[1], best[2], _status(entering.size == 0, best[2]),
                               solver, iteration, nodes, indexed, time.perf_counter() - started)
    return replace(solution, final_dual=dual + shift)


class _Master:
    """The master LP of column generation: the rays so far and their preconditioned rows."""

    def __init__(self, seed: PricedRays, rhs: np.ndarray, solver: str,
                 options: dict[str, Any]) -> None:
        self.rhs = rhs
        self.rays = np.asarray(seed.rays, dtype=float)
        self.utilities = np.asarray(seed.utilities, dtype=float)
        self.keys = list(seed.keys)
        self.known: set[Hashable] = set(self.keys)
        self.transform, self.transformed_rhs = _row_transform(self.rays, rhs)
        self.warm = _WarmHighs(self.transformed_rhs, options) if solver == "highspy" else None
        if self.warm is not None:
            self.warm.add(*self._scaled(self.rays, self.utilities))

    def _scaled(self, rays: np.ndarray, utilities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The master's columns ``T v / (1.v)`` and objective ``mu(v) / (1.v)``."""
        mass = rays.sum(axis=0)
        return self.transform @ rays / mass, utilities / mass

    def solve(self, solver: str, options: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        """``theta`` (per ray) and the dual of the rows ``V theta = rhs``.

        The LP's columns are ``T v / (1.v)`` (``T`` from :func:`_row_transform`);
        its variables are ``theta * mass`` and the dual of its rows is mapped
        back by ``T^T``. Unit mass keeps HiGHS off columns spanning ``1`` to
        ``e^eps`` (it failed on staircase patterns at ``eps = 20`` that differ
        only at an input of zero prior, hence in no utility).

        Raises
        ------
        solvers.SolverError
            If the master LP has no solution.
        """
        mass = self.rays.sum(axis=0)
        if self.warm is not None:
            primal, row_dual = self.warm.solve()
        else:
            lp = ConeLP(ExplicitRays(self._scaled(self.rays, self.utilities)[0]),
                        self.utilities / mass, self.transformed_rhs)
            result = solvers.solve(lp, solver=solver, **options)
            if not result.status.has_solution:
                raise solvers.SolverError(f"the master LP is {result.status.value}: {result.log}")
            primal, row_dual = result.primal[VARIABLE_BLOCK], result.dual[ROW_BLOCK]
        dual = self.transform.T @ np.asarray(row_dual, dtype=float)
        return np.asarray(primal) / mass, dual

    def repair(self, dual: np.ndarray) -> float:
        """The shift ``c >= 0`` making ``dual + c 1`` feasible on every ray of the master.

        The LP solver meets its own columns' dual constraints only to its dual
        feasibility tolerance (HiGHS: ``1e-10``, its smallest), per unit mass
        here, the same size as the pricing threshold. Priced at the raw dual, a
        ray already in the master could rank above that threshold: an oracle
        then proposes it instead of proving a bound, and column generation
        stopped with nothing new to add and the oracle's loose bound as the
        certificate. ``c`` is the largest reduced cost per unit mass over the
        master's rays; adding ``c 1`` lowers every ray's by exactly ``c``.
        """
        reduced = (self.utilities - self.rays.T @ dual) / self.rays.sum(axis=0)
        return max(float(reduced.max()), 0.0)

    def entering(self, priced: PricedRays, dual: np.ndarray, tolerance: float,
                 batch: int) -> np.ndarray:
        """Positions in ``priced`` of up to ``batch`` new rays with reduced cost > ``tolerance``."""
        rays = np.asarray(priced.rays, dtype=float).reshape(self.rays.shape[0], -1)
        reduced = (np.asarray(priced.utilities) - rays.T @ dual) / rays.sum(axis=0)
        new = np.array([key not in self.known for key in priced.keys], dtype=bool)
        candidates = np.flatnonzero((reduced > tolerance) & new)
        return candidates[np.argsort(-reduced[candidates], kind="stable")][:batch]

    def add(self, priced: PricedRays, entering: np.ndarray) -> None:
        rays = np.asarray(priced.rays, dtype=float)[:, entering]
        utilities = np.asarray(priced.utilities, dtype=float)[entering]
        if self.warm is not None:
            self.warm.add(*self._scaled(rays, utilities))
        self.rays = np.hstack([self.rays, rays])
        self.utilities = np.concatenate([self.utilities, utilities])
        for position in entering:
            self.keys.append(priced.keys[position])
            self.known.add(priced.keys[position])

    def solution(self, theta: np.ndarray, dual: np.ndarray, max_violation: float,
                 status: solvers.Status, solver: str, iterations: int, nodes: int,
                 indexed: bool, seconds: float) -> ConeLPSolution:
        """Polish the support, rescale the columns and attach the certificate."""
        support = np.flatnonzero(np.asarray(theta) > 0)
        polished, _ = nnls(self.rays[:, support], self.rhs)
        keep = polished > 0
        support, polished = support[keep], polished[keep]
        value = float(self.utilities[support] @ polished)
        bound = float(self.rhs @ dual)
        certificate = DualCertificate(
            dual=dual, max_violation=max_violation, duality_gap=bound - value,
            upper_bound=bound + max(max_violation, 0.0) * float(self.rhs.sum()))
        return ConeLPSolution(
            columns=_scaled_columns(self.rays[:, support] * polished, self.rhs), theta=polished,
            rays=np.array([self.keys[i] for i in support], dtype=np.int64) if indexed else None,
            value=value, certificate=certificate, status=status, solver=solver,
            iterations=iterations, seconds=seconds, vectors=self.rays[:, support],
            pricing_nodes=nodes)


class _WarmHighs:
    """The master LP kept in one HiGHS instance: new columns re-solve from the last basis.

    Same LP as the registry's ``highspy`` backend builds each round
    (:mod:`solvers.backends.highs`: maximisation, equality rows, the
    row duals with the registry's sign), without a rebuild and a cold start
    per round (a master of 40 rows and 1500 columns took 0.3 s cold).
    """

    def __init__(self, rhs: np.ndarray, options: dict[str, Any]) -> None:
        import highspy

        silence_highs_banner()
        self.highs = highspy.Highs()
        self.highs.setOptionValue("output_flag", bool(options.get("verbose", False)))
        for key, value in options.items():
            if key != "verbose":
                self.highs.setOptionValue(key, value)
        self.highs.changeObjectiveSense(highspy.ObjSense.kMaximize)
        empty = np.zeros(0, dtype=np.int32)
        self.highs.addRows(rhs.size, rhs, rhs, 0, empty, empty, np.zeros(0))
        self.ok = highspy.HighsModelStatus.kOptimal

    def add(self, columns: np.ndarray, costs: np.ndarray) -> None:
        """Append the columns (dense, ``d x n``) with objective ``costs``."""
        matrix = sp.csc_matrix(columns)
        n = columns.shape[1]
        self.highs.addCols(n, costs, np.zeros(n), np.full(n, np.inf), matrix.nnz,
                           matrix.indptr[:-1].astype(np.int32),
                           matrix.indices.astype(np.int32), matrix.data)

    def solve(self) -> tuple[np.ndarray, np.ndarray]:
        """Primal values and row duals of the current master.

        HiGHS can declare a warm-started master optimal with a column still dual
        infeasible (one at 3.5e-9 per unit mass, PolyOpt 3x4 eps 0.5: the
        certificate then missed 1e-9); a second run from that basis keeps it,
        so such a master is solved again from scratch.

        Raises
        ------
        solvers.SolverError
            If HiGHS does not report an optimum.
        """
        self.highs.run()
        if self.highs.getInfo().num_dual_infeasibilities > 0:
            self.highs.clearSolver()
            self.highs.run()
        status = self.highs.getModelStatus()
        if status != self.ok:
            raise solvers.SolverError(
                f"the master LP is {self.highs.modelStatusToString(status)}")
        solution = self.highs.getSolution()
        return np.asarray(solution.col_value), np.asarray(solution.row_dual)


def _status(converged: bool, max_violation: float) -> solvers.Status:
    """OPTIMAL when no ray entered and the bound is within ``CERTIFICATE_TOLERANCE``;
    OPTIMAL_INACCURATE when none entered (the pricing proposed no new ray above
    the tolerance) but proved no bound that small; otherwise ITERATION_LIMIT."""
    if not converged:
        return solvers.Status.ITERATION_LIMIT
    if max_violation <= CERTIFICATE_TOLERANCE:
        return solvers.Status.OPTIMAL
    return solvers.Status.OPTIMAL_INACCURATE


def _scaled_columns(columns: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``theta_r v_r`` with rows rescaled to sum to ``rhs`` (a ~1e-15 change, inside the margin)."""
    sums = columns.sum(axis=1)
    scale = np.divide(rhs, sums, out=np.ones_like(sums), where=sums > 0)
    return columns * scale[:, None]


def _row_transform(seed: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``T`` for the master's equalities ``T V theta = T rhs``, and ``T rhs``.

    The rows ``V theta = rhs`` are ill conditioned when the cone is thin: at
    small ``eps`` every ray is within about ``e^eps - 1`` of a subspace, the
    condition number of ``V`` is about ``2 / (e^eps - 1)``, and HiGHS declared
    feasible masters infeasible from ``eps`` near ``1e-10`` (LIP, LDP w.r.t.
    ``S``) or ``1e-9`` (staircase). When the seed rays' condition number (over
    singular values above ``RANK_FLOOR`` times the largest; the others are
    rounding noise, e.g. the normals of an ``eps = 0`` cone) exceeds
    ``CONDITION_LIMIT``, ``T = c diag(1/s) U^T`` from their SVD ``U diag(s) W^T``
    gives rows of unit scale in every direction they span, noise directions
    keeping the largest scale. Each row's sign makes ``T rhs >= 0`` (so the
    master is a valid :class:`ConeLP` over the columns ``T v``) and ``c`` makes
    ``|T rhs| = |rhs|``, so absolute tolerances weigh the right-hand side as
    before. ``T rhs`` is the product by the final ``T`` (a sign flip is exact),
    the same product as the columns': in a thin direction ``T`` has entries
    near ``1 / s`` and a product cancels to a relative error near ``1e-16 / s``
    (``1e-7`` at ``eps = 1e-9``), so a separately rounded ``T rhs`` left a seed
    column ``c rhs`` (e.g. ``1``) infeasible by more than HiGHS's tolerance.
    Otherwise ``T`` is the identity. The dual of the original rows is ``T^T``
    times that of the new ones.
    """
    d = seed.shape[0]
    if _clearly_well_conditioned(seed):
        return np.eye(d), rhs
    U, singular = _left_singular(seed)
    largest = singular.max(initial=0.0)
    signal = singular > RANK_FLOOR * largest
    if not np.any(signal) or largest <= CONDITION_LIMIT * singular[signal].min():
        return np.eye(d), rhs
    transform = U.T / np.where(signal, singular, largest)[:, None]
    transform *= np.linalg.norm(rhs) / np.linalg.norm(transform @ rhs)
    image = transform @ rhs
    signs = np.where(image < 0, -1.0, 1.0)
    return transform * signs[:, None], np.abs(image)


def _clearly_well_conditioned(seed: np.ndarray) -> bool:
    """Condition number at most ``CONDITION_LIMIT`` by the Gram matrix's eigenvalues.

    They are the squared singular values, to ``1e-16`` of the largest: enough
    to accept ``CONDITION_LIMIT^-2 = 1e-12``, cheaply, but not to tell a thin
    direction from rounding noise (that takes :func:`_left_singular`).
    """
    squares = np.linalg.eigvalsh(seed @ seed.T)
    return bool(squares[0] >= squares[-1] / CONDITION_LIMIT**2)


def _left_singular(seed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``U`` (``d x d``) and the ``d`` singular values of ``seed``, zeros included.

    ``seed = R^T Q^T`` (QR of the transpose) has the left singular vectors and
    singular values of ``R^T``, a ``d x min(d, n)`` matrix, whatever ``n``.
    """
    d = seed.shape[0]
    # numpy's stub types every qr as QRResult; mode="r" returns R alone
    triangle = cast(np.ndarray, np.linalg.qr(np.ascontiguousarray(seed.T), mode="r")).T
    U, singular, _ = np.linalg.svd(np.hstack([triangle, np.zeros((d, d - triangle.shape[1]))]))
    return U, singular
