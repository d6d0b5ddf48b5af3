"""The solver registry: one reference LP through every backend, errors, MOSEK detection, plugins."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

import solvers
from rldp_models.data import Crosstab
from rldp_models.programs import preset
from rldp_models.uncertainty.named import named_set
from solvers.registry import Availability
from tests.shared_data import ADULT


def reference_lp() -> solvers.LinearProgram:
    """min -x - 2y  s.t.  x + y <= 4,  x + 3y <= 6,  x - y = 0,  x, y >= 0.

    Optimum x = y = 1.5 on the rows ``x + 3y <= 6`` and ``x - y = 0``: objective
    -4.5. Stationarity of ``f + l.(A_ub x - b_ub) + m.(A_eq x - b_eq)`` gives
    ``-1 + l2 + m = 0`` and ``-2 + 3 l2 - m = 0``: duals (0, 0.75) and 0.25.
    """
    return solvers.LinearProgram(
        c=np.array([-1.0, -2.0]),
        A_ub=sp.csr_matrix([[1.0, 1.0], [1.0, 3.0]]), b_ub=np.array([4.0, 6.0]),
        A_eq=sp.csr_matrix([[1.0, -1.0]]), b_eq=np.array([0.0]),
        lb=np.zeros(2), ub=np.full(2, np.inf),
        variable_blocks={"x": slice(0, 2)}, row_blocks={"ub": slice(0, 2), "eq": slice(2, 3)})


class ReferenceModel:
    """The reference LP in all three forms."""

    def to_linear_program(self) -> solvers.LinearProgram:
        return reference_lp()

    def to_cvxpy(self) -> solvers.CvxpyModel:
        x = cp.Variable(2, nonneg=True, name="x")
        ub = [x[0] + x[1] <= 4, x[0] + 3 * x[1] <= 6]
        eq = [x[0] - x[1] == 0]
        problem = cp.Problem(cp.Minimize(-x[0] - 2 * x[1]), ub + eq)
        return solvers.CvxpyModel(problem, {"x": x}, {"ub": ub, "eq": eq})

    def to_pyomo(self) -> solvers.PyomoModel:
        import pyomo.environ as pyo

        m = pyo.ConcreteModel()
        m.I = pyo.RangeSet(0, 1)
        m.x = pyo.Var(m.I, domain=pyo.NonNegativeReals)
        m.ub = pyo.Constraint(pyo.RangeSet(0, 1), rule=lambda m, i: (
            m.x[0] + m.x[1] <= 4 if i == 0 else m.x[0] + 3 * m.x[1] <= 6))
        m.eq = pyo.Constraint(expr=m.x[0] - m.x[1] == 0)
        m.obj = pyo.Objective(expr=-m.x[0] - 2 * m.x[1], sense=pyo.minimize)
        return solvers.PyomoModel(m, {"x": m.x}, {"ub": m.ub, "eq": m.eq})


@pytest.mark.parametrize("name", [n for n in solvers.available()])
def test_every_available_backend_solves_the_reference_lp(name: str) -> None:
    result = solvers.solve(ReferenceModel(), solver=name)
    assert result.status is solvers.Status.OPTIMAL
    assert result.objective == pytest.approx(-4.5, abs=1e-6)
    np.testing.assert_allclose(result.primal["x"], [1.5, 1.5], atol=1e-5)
    np.testing.assert_allclose(result.dual["ub"], [0.0, 0.75], atol=1e-5)
    np.testing.assert_allclose(result.dual["eq"], [0.25], atol=1e-5)
    assert result.solver == name and result.timings.total_seconds >= 0


def test_maximisation_duals_follow_the_same_convention() -> None:
    lp = reference_lp()
    lp.c, lp.maximize = -lp.c, True
    result = solvers.solve(lp, solver="highspy")
    assert result.objective == pytest.approx(4.5)
    np.testing.assert_allclose(result.dual["ub"], [0.0, 0.75], atol=1e-9)


def test_unknown_solver_lists_the_available_ones() -> None:
    with pytest.raises(solvers.UnknownSolverError, match="available solvers: .*clarabel"):
        solvers.solve(ReferenceModel(), solver="gurobi-not-here")


def test_conic_model_refused_by_an_lp_only_backend() -> None:
    x = cp.Variable(2)
    problem = cp.Problem(cp.Minimize(cp.norm(x - 1)), [])
    with pytest.raises(solvers.UnsupportedModelError, match="solvers for it: .*clarabel"):
        solvers.solve(problem, solver="highspy")
    assert solvers.solve(problem, solver="clarabel").objective == pytest.approx(0, abs=1e-7)


def test_mosek_is_reported_with_a_reason_or_solves() -> None:
    status = solvers.describe()["mosek"]
    if not status.ok:
        assert status.reason
        with pytest.raises(solvers.SolverUnavailableError, match="mosek"):
            solvers.solve(ReferenceModel(), solver="mosek")
        pytest.skip(f"MOSEK unavailable here: {status.reason}")
    assert solvers.solve(ReferenceModel(), solver="mosek").objective == pytest.approx(-4.5)


def test_third_party_backend_registers_and_dispatches() -> None:
    class Echo:
        name, form, description = "echo-test", "linear_program", "test double"

        def availability(self) -> Availability:
            return Availability(True)

        def solve(self, model, **options):
            return solvers.SolveResult(solvers.Status.OPTIMAL, 42.0, solver=self.name)

    solvers.register(Echo(), replace=True)
    assert "echo-test" in solvers.available("linear_program")
    assert solvers.solve(ReferenceModel(), solver="echo-test").objective == 42.0
    with pytest.raises(ValueError):
        solvers.register(Echo())


def test_entry_point_backends_are_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    from solvers import registry

    class Plugin:
        name, form, description = "plugin-test", "cvxpy", "entry-point test double"

        def availability(self) -> Availability:
            return Availability(False, "not really a solver")

        def solve(self, model, **options):  # pragma: no cover - never available
            raise AssertionError

    class FakeEntryPoint:
        def load(self):
            return Plugin

    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    monkeypatch.setattr(registry.metadata, "entry_points", lambda group: [FakeEntryPoint()])
    assert "plugin-test" in solvers.registered()
    assert not solvers.describe()["plugin-test"].ok


def power_cone_model() -> solvers.CvxpyModel:
    """max z  s.t.  |z| <= x^(1/2) y^(1/2) (a 3-D power cone), x = y = 1: optimum z = 1."""
    x, y, z = (cp.Variable(name=n) for n in "xyz")
    cone = [cp.constraints.PowCone3D(x, y, z, 0.5)]
    rows = [x == 1, y == 1]
    problem = cp.Problem(cp.Maximize(z), cone + rows)
    return solvers.CvxpyModel(problem, {"z": z}, {"cone": cone, "rows": rows})


def test_a_solver_without_the_models_cone_refuses_up_front_and_names_those_with_it() -> None:
    """ECOS has no power cone: refused before solving (one line), not a bare ``error``;
    every solver it names solves the model (z = 1 by the power cone's definition)."""
    with pytest.raises(solvers.UnsupportedModelError, match="ecos has no power cone") as caught:
        solvers.solve(power_cone_model(), solver="ecos")
    named = str(caught.value).split("solvers for it: ")[1].split(", ")
    assert "clarabel" in named and "ecos" not in named and "\n" not in str(caught.value)
    for name in named:
        result = solvers.solve(power_cone_model(), solver=name)
        assert result.status.has_solution, (name, result.log)
        assert result.objective == pytest.approx(1.0, abs=1e-4)


def test_a_failed_solve_says_why_and_which_solvers_also_take_the_model() -> None:
    """A backend that stops without a solution and says nothing still leaves a reason and the
    alternatives in the result's log."""
    from solvers.backends.cvxpy_backend import CvxpyBackend

    class Failing(CvxpyBackend):
        def solve(self, model, /, **options):  # type: ignore[no-untyped-def]
            return solvers.SolveResult(solvers.Status.ERROR, None, solver=self.name)

    solvers.register(Failing("failing-test", "CLARABEL", "always fails"), replace=True)
    try:
        result = solvers.solve(ReferenceModel(), solver="failing-test")
    finally:
        solvers.registry._BACKENDS.pop("failing-test")
    assert result.status is solvers.Status.ERROR
    assert "failing-test returned error" in result.log
    assert "solvers that also take this model: " in result.log
    assert "clarabel" in result.log.split("take this model: ")[1]


@pytest.mark.skipif(not ADULT.exists(), reason="the Adult data is not here")
def test_ecos_failing_on_kl_at_adult_size_says_why_and_a_named_solver_solves_it() -> None:
    """Adult race x education, NURP over the KL ball: ECOS's exponential-cone method stops
    (embotech/ecos#134); the log says so and names clarabel, whose protocol passes the exact
    robust check."""
    table = Crosstab.from_records(ADULT, "race", "education")
    program = preset("NURP", table, 1.0, 0.05, uncertainty=named_set("kl", table, 0.05),
                     distortion="hamming")
    failed = program.solve(solver="ecos")
    assert failed.protocol is None
    assert "exponential-cone method" in failed.result.log
    named = failed.result.log.split("solvers that also take this model: ")[1].split(", ")
    assert "clarabel" in named
    solved = preset("NURP", table, 1.0, 0.05, uncertainty=named_set("kl", table, 0.05),
                    distortion="hamming").solve(solver="clarabel")
    assert solved.guarantee_holds


def test_a_solver_stopped_at_its_iteration_limit_names_the_alternatives() -> None:
    """ECOS allowed one iteration on the reference LP: iteration_limit, not an answer;
    the log still says which solvers also take the model."""
    result = solvers.solve(ReferenceModel(), solver="ecos", max_iters=1)
    assert result.status is solvers.Status.ITERATION_LIMIT, result.log
    assert "clarabel" in result.log.split("solvers that also take this model: ")[1]
