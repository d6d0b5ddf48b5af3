"""The solver registry: one LP, three model forms, four backends, one result type.

    minimise  -x1 - 2 x2
    s.t.      x1 +   x2 <= 4      (capacity)
              x1 + 3 x2 <= 6      (labour)
              x >= 0

Optimum x = (3, 1), value -5; both rows are active with multipliers 1/2
(registry convention: >= 0 for a ``<=`` row of a minimisation). The script
also registers a third-party backend (scipy's ``linprog``) with
``solvers.register`` and checks that every backend agrees.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
import pyomo.environ as pyo
import scipy.sparse as sparse
from scipy.optimize import linprog

import solvers

A = np.array([[1.0, 1.0], [1.0, 3.0]])
b = np.array([4.0, 6.0])
c = np.array([-1.0, -2.0])


def as_cvxpy() -> solvers.CvxpyModel:
    x = cp.Variable(2, nonneg=True, name="x")
    rows = {"capacity": [A[0] @ x <= b[0]], "labour": [A[1] @ x <= b[1]]}
    problem = cp.Problem(cp.Minimize(c @ x), [r for group in rows.values() for r in group])
    return solvers.CvxpyModel(problem, {"x": x}, rows)


def as_pyomo() -> solvers.PyomoModel:
    m = pyo.ConcreteModel()
    m.x = pyo.Var([0, 1], domain=pyo.NonNegativeReals)
    m.obj = pyo.Objective(expr=sum(c[i] * m.x[i] for i in range(2)), sense=pyo.minimize)
    m.capacity = pyo.Constraint(expr=m.x[0] + m.x[1] <= 4)
    m.labour = pyo.Constraint(expr=m.x[0] + 3 * m.x[1] <= 6)
    return solvers.PyomoModel(m, {"x": m.x}, {"capacity": m.capacity, "labour": m.labour})


def as_matrix_lp() -> solvers.LinearProgram:
    return solvers.LinearProgram(
        c=c, A_ub=sparse.csr_matrix(A), b_ub=b,
        A_eq=sparse.csr_matrix((0, 2)), b_eq=np.zeros(0),
        lb=np.zeros(2), ub=np.full(2, np.inf),
        variable_blocks={"x": slice(0, 2)},
        row_blocks={"capacity": slice(0, 1), "labour": slice(1, 2)})


@dataclass
class LinprogBackend:
    """A third-party backend: scipy.optimize.linprog on the matrix form."""

    name: str = "scipy-linprog"
    form: str = "linear_program"
    description: str = "scipy.optimize.linprog (HiGHS inside SciPy)"

    def availability(self) -> solvers.Availability:
        return solvers.Availability(True)

    def solve(self, lp: solvers.LinearProgram, **options) -> solvers.SolveResult:
        sign = -1.0 if lp.maximize else 1.0            # linprog minimises
        start = time.perf_counter()
        res = linprog(sign * lp.c, A_ub=lp.A_ub, b_ub=lp.b_ub, A_eq=lp.A_eq, b_eq=lp.b_eq,
                      bounds=list(zip(lp.lb, np.where(np.isinf(lp.ub), None, lp.ub))),
                      method="highs", **options)
        elapsed = time.perf_counter() - start
        status = {0: solvers.Status.OPTIMAL, 1: solvers.Status.ITERATION_LIMIT,
                  2: solvers.Status.INFEASIBLE, 3: solvers.Status.UNBOUNDED}.get(
                      res.status, solvers.Status.ERROR)
        if not status.has_solution:
            return solvers.SolveResult(status, None, solver=self.name, log=res.message)
        # linprog's marginals are d(objective)/d(rhs) <= 0 on <= rows; the registry wants
        # the Lagrange multipliers y >= 0 of L = f + y.(A x - b) of the minimisation.
        rows = -np.concatenate([res.ineqlin.marginals, res.eqlin.marginals])
        return solvers.SolveResult(
            status=status, objective=float(lp.c @ res.x),
            primal={k: res.x[s] for k, s in lp.variable_blocks.items()},
            dual={k: rows[s] for k, s in lp.row_blocks.items()},
            solver=self.name, timings=solvers.Timings(0.0, elapsed), log=res.message)


def main() -> int:
    solvers.register(LinprogBackend(), replace=True)
    print("available:", solvers.available())
    print("LP backends:", solvers.available("linear_program"))
    cases = [("clarabel", as_cvxpy()), ("scs", as_cvxpy()), ("highs", as_pyomo()),
             ("highspy", as_matrix_lp()), ("scipy-linprog", as_matrix_lp())]
    for name, model in cases:
        result = solvers.solve(model, solver=name)
        x = result.primal["x"]
        duals = {k: float(np.ravel(v)[0]) for k, v in result.dual.items()}
        print(f"{name:14s} {result.status.name:8s} objective {result.objective:+.6f} "
              f"x = {np.round(x, 6)} duals {{capacity: {duals['capacity']:.6f}, "
              f"labour: {duals['labour']:.6f}}}")
        assert result.status is solvers.Status.OPTIMAL
        assert abs(result.objective + 5) < 1e-6 and np.allclose(x, [3, 1], atol=1e-5)
        assert np.allclose([duals["capacity"], duals["labour"]], [0.5, 0.5], atol=1e-5)
    try:
        solvers.solve(as_cvxpy(), solver="highspy")
    except solvers.UnsupportedModelError as exc:
        print("UnsupportedModelError:", exc)
    print("all assertions hold")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
