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
:meth:`ConeLP.solve` is column generation: a master LP over a subset of rays
goes to :func:`solvers.solve`; its dual prices *all* rays (``mu - V^T lam``,
vectorised or, for the staircase, by subset sums); the most attractive rays
join the master until none has a positive reduced cost. An explicit ray set
seeds the master with every ray, so it is one LP solve plus the pricing
check. The full LP is available as :meth:`ConeLP.to_linear_program`,
:meth:`ConeLP.to_pyomo` and :meth:`ConeLP.to_cvxpy`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import scipy.sparse as sp
from scipy.optimize import nnls

import solvers
from rldp_models.conelp.rays import ExplicitRays, RaySet
from rldp_models.errors import InputError

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

    size: int

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
    """

    dual: np.ndarray
    max_violation: float
    duality_gap: float
    upper_bound: float
    tolerance: float = CERTIFICATE_TOLERANCE

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
    rays : ndarray of int, shape (b,)
        Their indices in the ray set.
    value : float
        ``sum theta_r mu(v_r)``.
    certificate : DualCertificate
    status : solvers.Status
        OPTIMAL, or ITERATION_LIMIT when column generation stopped early.
    solver : str
    iterations : int
        Master LPs solved.
    seconds : float
        Wall-clock time of :meth:`ConeLP.solve`.
    """

    columns: np.ndarray
    theta: np.ndarray
    rays: np.ndarray
    value: float
    certificate: DualCertificate
    status: solvers.Status
    solver: str
    iterations: int
    seconds: float


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
        start = time.perf_counter()
        options = {**_SOLVER_DEFAULTS.get(solver.lower(), {}), **options}
        master = self._generate_columns(solver, batch or 2 * self.rays.dimension,
                                        max_iterations, options)
        theta, support = self._polish(master.index, master.theta)
        value = float(self.utilities[support] @ theta)
        return ConeLPSolution(
            columns=self._columns(support, theta), theta=theta, rays=support, value=value,
            certificate=self._certificate(master.dual, float(master.reduced.max()), value),
            status=master.status, solver=solver, iterations=master.iterations,
            seconds=time.perf_counter() - start)

    def _generate_columns(self, solver: str, batch: int, max_iterations: int,
                          options: dict[str, Any]) -> _MasterState:
        """Column generation: solve the master, price all rays, add the best, repeat."""
        mass = self.rays.transpose_dot(np.ones(self.rays.dimension))
        active = np.zeros(self.rays.count, dtype=bool)
        active[self.rays.seed()] = True
        transform, rhs = _row_transform(self.rays.columns(self.rays.seed()), self.rhs)
        for iteration in range(1, max_iterations + 1):
            index = np.flatnonzero(active)
            result = solvers.solve(self._master(index, mass[index], transform, rhs),
                                   solver=solver, **options)
            if not result.status.has_solution:
                raise solvers.SolverError(f"the master LP is {result.status.value}: {result.log}")
            dual = transform.T @ np.asarray(result.dual[ROW_BLOCK], dtype=float)
            reduced = (self.utilities - self.rays.transpose_dot(dual)) / mass
            entering = _entering(reduced, active, batch)
            done = entering.size == 0
            if done or iteration == max_iterations:
                status = solvers.Status.OPTIMAL if done else solvers.Status.ITERATION_LIMIT
                return _MasterState(index, result.primal[VARIABLE_BLOCK] / mass[index], dual,
                                    reduced, status, iteration)
            active[entering] = True
        raise InputError(f"max_iterations must be >= 1, got {max_iterations}")

    def _master(self, index: np.ndarray, mass: np.ndarray, transform: np.ndarray,
                rhs: np.ndarray) -> ConeLP:
        """The master LP over the rays ``index``: columns ``T v / (1.v)``, ``T = transform``.

        Its variables are ``theta * mass``; the dual of its rows is unchanged.
        Unit mass keeps HiGHS off columns spanning ``1`` to ``e^eps`` (it
        failed on staircase patterns at ``eps = 20`` that differ only at an
        input of zero prior, hence in no utility).
        """
        return ConeLP(ExplicitRays(transform @ self.rays.columns(index) / mass),
                      self.utilities[index] / mass, rhs)

    def _polish(self, index: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Re-solve ``V_S theta = rhs`` on the support by NNLS, to rounding accuracy."""
        support = index[np.asarray(theta) > 0]
        polished, _ = nnls(self.rays.columns(support), self.rhs)
        keep = polished > 0
        return polished[keep], support[keep]

    def _columns(self, support: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """``theta_r v_r``, rows rescaled to sum to ``rhs`` (a ~1e-15 change, inside the margin)."""
        columns = self.rays.columns(support) * theta
        sums = columns.sum(axis=1)
        scale = np.divide(self.rhs, sums, out=np.ones_like(sums), where=sums > 0)
        return columns * scale[:, None]

    def _certificate(self, dual: np.ndarray, max_violation: float, value: float) -> DualCertificate:
        bound = float(self.rhs @ dual)
        return DualCertificate(dual=dual, max_violation=max_violation,
                               duality_gap=bound - value,
                               upper_bound=bound + max(max_violation, 0.0) * float(self.rhs.sum()))


@dataclass(frozen=True)
class _MasterState:
    """The last master LP of column generation and the pricing of all rays against its dual."""

    index: np.ndarray
    theta: np.ndarray
    dual: np.ndarray
    reduced: np.ndarray
    status: solvers.Status
    iterations: int


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
    before. Otherwise ``T`` is the identity. The dual of the original rows is
    ``T^T`` times that of the new ones.
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
    image = transform @ rhs
    factor = np.linalg.norm(rhs) / np.linalg.norm(image)
    signs = np.where(image < 0, -1.0, 1.0)
    return transform * (factor * signs)[:, None], np.abs(image) * factor


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
    triangle = np.linalg.qr(np.ascontiguousarray(seed.T), mode="r").T
    U, singular, _ = np.linalg.svd(np.hstack([triangle, np.zeros((d, d - triangle.shape[1]))]))
    return U, singular


def _entering(reduced: np.ndarray, active: np.ndarray, batch: int) -> np.ndarray:
    """Up to ``batch`` inactive rays with the largest reduced cost above the tolerance."""
    candidates = np.flatnonzero((reduced > PRICING_TOLERANCE) & ~active)
    if candidates.size > batch:
        best = np.argpartition(reduced[candidates], -batch)[-batch:]
        candidates = candidates[best]
    return candidates
