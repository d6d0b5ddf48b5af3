"""Derived multipliers read from a primal solve over a set's conic data (its cone duals).

The derived dual (:mod:`rldp_models.uncertainty.derived`) solved as a cvxpy
problem of its own leaves ``y`` outside ``K*`` by the solver's feasibility
tolerance, which the certificate (:mod:`.derived_certificate`, step (c)) must then
pay for along a thin interior direction. An interior-point solver's duals of the
*primal* ``b - A x in K`` lie strictly inside ``K*`` instead. So the multipliers
are read from the primal, solved at tight tolerances, once per term:

* support: ``max v.x_p  s.t.  b - A x in K``; its duals satisfy
  ``A^T y = E v`` (the derived dual) and ``b.y`` is the support function;
* conditional (Charnes-Cooper, (CC) of :mod:`.conditional_dual`):
  ``max v.z_s  s.t.  b t - A z in K, 1.z_s = 1, t >= 0`` (solved at ``1.z_s = Phat(s)``,
  the same problem scaled); its cone duals satisfy
  ``A^T y = E e_s(v - kappa)``, ``b.y <= 0``, with ``kappa`` the optimum.

cvxpy reports the dual of an equality row with the opposite sign to (CC)'s
``y``; zero rows are negated. Each problem is compiled once with the data as
cvxpy parameters (DPP) and re-solved per term. The multipliers are not trusted:
the certificate proves whatever they give.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from rldp_models.uncertainty.derived_form import CANONICAL_SOLVER, cone_constraints

if TYPE_CHECKING:
    import cvxpy as cp

    from rldp_models.uncertainty.derived_form import ConicDescription

SOLVES = tuple({"tol_gap_abs": tol, "tol_gap_rel": tol, "tol_feas": tol}
               for tol in (1e-11, 1e-10, 1e-9)) + ({},)
"""Clarabel's options: tight first (duals for a tight certificate), looser when it fails."""


class PrimalDuals:
    """The two parametrised primals of the module docstring for one set's data."""

    def __init__(self, description: ConicDescription) -> None:
        self.description = description
        self._support: Any = None
        self._conditional: Any = None

    def _multipliers(self, constraints: list[Any]) -> np.ndarray:
        """``y`` from the cone constraints' duals, in the data's row order."""
        y = np.zeros(self.description.a_matrix.shape[0])
        for (kind, rows), constraint in zip(self.description.cones, constraints):
            value = constraint.dual_value
            if kind == "soc":
                value = np.concatenate([np.ravel(value[0]), np.ravel(value[1])])
            elif kind in ("exp", "pow"):
                value = np.column_stack([np.ravel(part) for part in value]).ravel() \
                    if kind == "exp" else np.ravel(value)
            y[rows] = -np.ravel(value) if kind == "zero" else np.ravel(value)
        return y

    @staticmethod
    def _solve(problem: cp.Problem) -> bool:
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        for options in SOLVES:
            with warnings.catch_warnings():  # an inaccurate solve is judged by its certificate
                warnings.simplefilter("ignore", UserWarning)
                try:
                    problem.solve(solver=CANONICAL_SOLVER, **options)
                except cp.error.SolverError:
                    continue
            if problem.status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
                return True
        return False

    def support(self, v: np.ndarray) -> tuple[float, np.ndarray, np.ndarray] | None:
        """``(sup v.P, maximiser P, y)`` over the data, or None if the solve fails."""
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        if self._support is None:
            x = cp.Variable(self.description.a_matrix.shape[1])
            w = cp.Parameter(self.description.columns.size)
            constraints = cone_constraints(self.description, x)
            self._support = (cp.Problem(cp.Maximize(w @ x[self.description.columns]),
                                        constraints), x, w, constraints)
        problem, x, w, constraints = self._support
        w.value = np.asarray(v, dtype=float).ravel()
        if not self._solve(problem) or x.value is None:
            return None
        return (float(problem.value), np.asarray(x.value)[self.description.columns],
                self._multipliers(constraints))

    def conditional(self, w_value: np.ndarray, indicator: np.ndarray,
                    mass: float = 1.0) -> tuple[float, np.ndarray] | None:
        """``(kappa, y)`` of (CC) at ``w = e_s(v)``, ``c = e_s(1)``, or None if the solve fails.

        Solved with ``1.z_s = mass`` (``Phat(s)``, say) and ``kappa`` the optimum over
        ``mass``: the same (CC) with ``(z, t)`` scaled by ``mass`` (its cone is homogeneous)
        and the same ``y``, but ``z`` of the size of ``Phat`` rather than ``1 / Phat(s)``
        times it (a secret with one record of 7,500 left (CC)'s ``kappa`` 1e-6 high)."""
        import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

        if self._conditional is None:
            z, t = cp.Variable(self.description.a_matrix.shape[1]), cp.Variable(nonneg=True)
            w, c = (cp.Parameter(self.description.columns.size) for _ in range(2))
            total = cp.Parameter(pos=True)
            constraints = cone_constraints(self.description, z, t)
            problem = cp.Problem(cp.Maximize(w @ z[self.description.columns]),
                                 [*constraints, c @ z[self.description.columns] == total])
            self._conditional = (problem, w, c, total, constraints)
        problem, w, c, total, constraints = self._conditional
        w.value, c.value, total.value = w_value, indicator, float(mass)
        if not self._solve(problem) or problem.value is None or not np.isfinite(problem.value):
            return None
        return float(problem.value) / float(mass), self._multipliers(constraints)
