"""The KL ball on Adult-shaped conditionals: one shared cone for the other secrets' rows, and a
worst case that survives a failing conic solver (real-data sweep, race x education).

Independent checks: the one-scalar closed form of the support function (no cones) against the
exponential-cone counterpart, and ECOS's primal maximisation against the stationary point.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from rldp_models.uncertainty import KLBallSet, power_divergence
from rldp_models.uncertainty.base import embed
from rldp_models.uncertainty.cvxpy_rows import conditional_at_most
from rldp_models.uncertainty.power_divergence import PowerDivergenceSet
from rldp_models.uncertainty.zero_rows import identically_zero_rows

COUNTS = np.array([[40.0, 0.0, 7.0, 3.0], [5.0, 20.0, 1.0, 9.0], [0.0, 12.0, 30.0, 6.0]])
"""Empty cells in two secrets' rows, as in Adult race x education."""


def _kl(radius: float = 0.05) -> KLBallSet:
    return KLBallSet(COUNTS / COUNTS.sum(), radius)


def _conditional_support_by_cones(kl: KLBallSet, q: np.ndarray, s: int) -> float:
    """``sup_{R in C_s} q.R`` as ``min t`` subject to the conic counterpart of (*)."""
    w = cp.Variable((q.size, 1))
    t = cp.Variable(1)
    cone = conditional_at_most(kl, w, t, s)
    problem = cp.Problem(cp.Minimize(t[0]), [w == q.reshape(-1, 1), *cone.constraints])
    problem.solve(solver="CLARABEL")
    assert problem.status == cp.OPTIMAL
    assert t.value is not None
    return float(t.value[0])


def _conditional_support_closed_form(kl: KLBallSet, q: np.ndarray, s: int) -> float:
    """The same by bisection on ``kappa``: ``delta*(e_s(q - kappa) | F) <= 0`` (no cones)."""
    low, high = float(q.min()), float(q.max())
    for _ in range(80):
        kappa = (low + high) / 2
        if kl.support(embed(q - kappa, s, kl.phat.shape)) <= 0:
            high = kappa
        else:
            low = kappa
    return high


@pytest.mark.parametrize("s", [0, 1, 2])
def test_conditional_with_shared_cone_matches_the_closed_form(s: int) -> None:
    kl = _kl()
    rng = np.random.default_rng(s)
    q = np.asarray(rng.uniform(-1.0, 2.0, COUNTS.shape[1]), dtype=float)
    embedded = np.zeros((COUNTS.size, COUNTS.shape[1]))
    embedded[s * COUNTS.shape[1]:(s + 1) * COUNTS.shape[1]] = np.eye(COUNTS.shape[1])
    zero = identically_zero_rows(embedded @ cp.Variable((COUNTS.shape[1], 1)))
    assert zero.sum() == COUNTS.size - COUNTS.shape[1]  # the rows really are shared
    by_cones = _conditional_support_by_cones(kl, q, s)
    assert by_cones == pytest.approx(_conditional_support_closed_form(kl, q, s), abs=1e-6)


@pytest.mark.parametrize("top_cell", [1, 2])
def test_stationary_point_is_the_maximiser(top_cell: int) -> None:
    """Largest ``v`` on an empty cell (mass goes there) or on a counted one."""
    kl = _kl()
    v = np.linspace(-1.0, 1.0, COUNTS.size)
    v[top_cell], v[-1] = v[-1], v[top_cell]
    point = kl.stationary_point(v)
    assert point.min() >= 0 and point.sum() == pytest.approx(1.0, abs=1e-9)
    assert kl.divergence(point) == pytest.approx(kl.radius, abs=1e-7)
    p = cp.Variable(COUNTS.size)
    problem = cp.Problem(cp.Maximize(v @ p), kl.membership(p))
    problem.solve(solver="ECOS", abstol=1e-10, reltol=1e-10, feastol=1e-10)
    assert v @ point == pytest.approx(problem.value, abs=1e-6)


def test_worst_case_survives_a_failing_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    kl = _kl()
    v = np.linspace(2.0, -1.0, COUNTS.size)
    expected = kl.support(v)

    def fail(*args: object, **kwargs: object) -> None:
        raise cp.error.SolverError("Solver 'CLARABEL' failed.")

    monkeypatch.setattr(cp.Problem, "solve", fail)
    point, value = kl.worst_case(v)
    assert kl.contains(point)
    assert value <= expected + 1e-12 and value == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("failing", [("clarabel",), ("clarabel", "scs")])
def test_power_worst_case_survives_failing_solvers(failing: tuple[str, ...],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Clarabel gave up on race x education (lambda = 2): SCS stands in, else Phat (a member)."""
    power = PowerDivergenceSet(COUNTS / COUNTS.sum(), 0.05, 2.0)
    v = np.linspace(2.0, -1.0, COUNTS.size)
    original = power_divergence.direct_worst_case

    def flaky(uncertainty: PowerDivergenceSet, direction: np.ndarray,
              solver: str = "clarabel") -> tuple[np.ndarray, float]:
        if solver in failing:
            raise cp.error.SolverError(f"Solver '{solver.upper()}' failed.")
        return original(uncertainty, direction, solver)

    monkeypatch.setattr(power_divergence, "direct_worst_case", flaky)
    point, value = power.worst_case(v)
    assert power.contains(point)
    bound = power.support(v)  # the conjugate dual's closed form: no primal solver
    assert value <= bound + 1e-9
    if len(failing) == 1:
        assert value == pytest.approx(bound, abs=1e-3)  # SCS's accuracy
    else:
        assert value == pytest.approx(float(v @ power.phat.ravel()), abs=1e-12)
