"""Support functions of every uncertainty set against direct maximisation over the set.

Each set's closed (or dual) form is compared with (i) its own direct worst-case
solver, (ii) an LP / conic primal written here from the set's definition, and
(iii) the conic epigraph the program builder uses, minimised by a solver. The
certified bound must be an upper bound at any multipliers. Instances come from
hypothesis: zero cells, zero rows, tiny n, radii from tiny to covering the simplex.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from rldp_models.errors import InputError
from rldp_models.uncertainty import (
    BoxSet,
    ChiSquareSet,
    KLBallSet,
    PolyhedralSet,
    TotalVariationSet,
    UncertaintySet,
    named_set,
)
from rldp_models.data import Crosstab

KINDS = ("box", "tv", "kl", "polyhedral", "chi2")
TIGHT = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


@st.composite
def instances(draw: st.DrawFn) -> tuple[np.ndarray, float, np.ndarray]:
    """Counts (zero cells and rows allowed, n >= 1), a radius, and a direction ``v``."""
    n_s, n_u = draw(st.integers(1, 3)), draw(st.integers(2, 4))
    cells = st.integers(0, 6) | st.just(0)
    counts = np.array(draw(st.lists(cells, min_size=n_s * n_u, max_size=n_s * n_u)),
                      dtype=float).reshape(n_s, n_u)
    if counts.sum() == 0:
        counts[0, 0] = 1
    radius = draw(st.sampled_from([1e-4, 0.01, 0.1, 0.5, 1.0, 2.5]))
    v = np.array(draw(st.lists(st.floats(-3, 3) | st.just(0.0), min_size=counts.size,
                               max_size=counts.size)))
    return counts, radius, v


def make_set(kind: str, counts: np.ndarray, radius: float) -> UncertaintySet:
    phat = counts / counts.sum()
    if kind == "box":
        return BoxSet.around(phat, radius)
    if kind == "tv":
        return TotalVariationSet(phat, radius)
    if kind == "kl":
        return KLBallSet(phat, radius)
    if kind == "chi2":
        return ChiSquareSet(phat, radius)
    # a polyhedron that is no box: an l1 ball in the first (at most 5) cells, a cap on the last
    flat = phat.ravel()
    k = min(flat.size, 5)
    signs = np.zeros((2**k, flat.size))
    signs[:, :k] = np.array(np.meshgrid(*[[-1.0, 1.0]] * k)).reshape(k, -1).T
    cap = np.zeros(flat.size)
    cap[-1] = 1.0
    return PolyhedralSet(phat, np.vstack([signs, cap]),
                         np.concatenate([signs @ flat + radius, [flat[-1] + radius / 3]]), radius)


def primal_by_hand(kind: str, f: UncertaintySet, v: np.ndarray) -> float:
    """``max v.P`` over the set, written here from the set's definition (not the module's)."""
    flat = f.phat.ravel()
    n = flat.size
    if kind == "box":
        bounds = [(max(p - f.radius, 0.0), min(p + f.radius, 1.0)) for p in flat]
        result = linprog(-v, A_eq=np.ones((1, n)), b_eq=[1.0], bounds=bounds, method="highs",
                         options=TIGHT)
        return -result.fun
    if kind == "polyhedral":
        result = linprog(-v, A_ub=f.a_matrix, b_ub=f.b_vector, A_eq=np.ones((1, n)), b_eq=[1.0],
                         bounds=(0, None), method="highs", options=TIGHT)
        return -result.fun
    if kind == "tv":  # variables (P, e): -e <= P - phat <= e, sum e <= r
        eye = np.eye(n)
        a_ub = np.vstack([np.hstack([eye, -eye]), np.hstack([-eye, -eye]),
                          np.concatenate([np.zeros(n), np.ones(n)])[None]])
        b_ub = np.concatenate([flat, -flat, [f.radius]])
        a_eq = np.concatenate([np.ones(n), np.zeros(n)])[None]
        result = linprog(np.concatenate([-v, np.zeros(n)]), A_ub=a_ub, b_ub=b_ub, A_eq=a_eq,
                         b_eq=[1.0], bounds=(0, None), method="highs", options=TIGHT)
        return -result.fun
    p = cp.Variable(n, nonneg=True)
    mask = flat > 0
    if kind == "kl":
        divergence = cp.sum(cp.multiply(flat[mask], np.log(flat[mask]) - cp.log(p[mask])))
    else:
        divergence = cp.sum(cp.multiply(flat[mask] ** 2, cp.inv_pos(p[mask]))) - 1
    problem = cp.Problem(cp.Maximize(v @ p), [cp.sum(p) == 1, divergence <= f.radius])
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    return float(problem.value)


def epigraph_minimum(f: UncertaintySet, v: np.ndarray) -> float:
    """``min D`` subject to the set's robust counterpart ``delta*(v) <= D`` (the builder's form)."""
    bound = cp.Variable()
    cone = f.support_at_most(cp.Constant(v), bound)
    problem = cp.Problem(cp.Minimize(bound), cone.constraints)
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    return float(problem.value)


def tolerance(v: np.ndarray, kind: str) -> float:
    scale = 1.0 + float(np.abs(v).max())
    return scale * (2e-5 if kind in ("kl", "chi2") else 1e-8)


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instance=instances())
def test_support_matches_direct_maximisation(kind: str, instance) -> None:
    counts, radius, v = instance
    f = make_set(kind, counts, radius)
    point, _ = f.worst_case(v)
    support = f.support(v)
    tol = tolerance(v, kind)
    assert f.contains(point, tol=1e-9)
    assert float(v @ point.ravel()) <= support + tol  # a point of the set cannot beat delta*
    assert support == pytest.approx(primal_by_hand(kind, f, v), abs=tol)
    assert support == pytest.approx(float(v @ point.ravel()), abs=tol)


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instance=instances())
def test_conic_epigraph_matches_support(kind: str, instance) -> None:
    counts, radius, v = instance
    f = make_set(kind, counts, radius)
    assert epigraph_minimum(f, v) == pytest.approx(f.support(v), abs=tolerance(v, kind))


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instance=instances(), noise=st.floats(-1.0, 1.0))
def test_certified_bound_is_an_upper_bound_at_any_multipliers(kind: str, instance,
                                                              noise: float) -> None:
    counts, radius, v = instance
    f = make_set(kind, counts, radius)
    best = f.support_multipliers(v)
    attained = float(v @ f.worst_case(v)[0].ravel())
    tight = float(f.certified_support_bound(v, best))
    assert tight >= attained - 1e-12
    assert tight == pytest.approx(f.support(v), abs=tolerance(v, kind))
    perturbed = {key: np.asarray(value) + noise for key, value in best.items()}
    assert float(f.certified_support_bound(v, perturbed)) >= attained - 1e-12


@pytest.mark.parametrize("kind", ("box", "tv", "kl"))
def test_sets_grow_with_the_radius(kind: str) -> None:
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 9, size=(2, 3)).astype(float) + np.eye(2, 3)
    for _ in range(5):
        v = rng.normal(size=6)
        values = [make_set(kind, counts, r).support(v) for r in (0.01, 0.1, 0.4, 1.5)]
        assert np.all(np.diff(values) >= -1e-9)


def test_tv_ball_of_radius_two_is_the_simplex() -> None:
    f = TotalVariationSet(np.array([0.7, 0.3, 0.0]), 2.0)
    assert f.support(np.array([0.0, -1.0, 4.0])) == pytest.approx(4.0)


def test_default_tv_and_box_contain_the_chi_square_set() -> None:
    rng = np.random.default_rng(5)
    crosstab = Crosstab.from_array(rng.integers(0, 12, size=(3, 4)) + np.eye(3, 4))
    chi = ChiSquareSet.from_counts(crosstab.counts, 0.05)
    for name in ("tv", "box"):
        f = named_set(name, crosstab, 0.05)
        for _ in range(10):
            v = rng.normal(size=crosstab.counts.size)
            assert f.support(v) >= chi.support(v) - 1e-7, name


@pytest.mark.parametrize("radius", [0.0, -1.0, float("inf"), float("nan")])
def test_radius_must_be_positive_and_finite(radius: float) -> None:
    for build in (lambda: BoxSet.around(np.array([0.5, 0.5]), radius),
                  lambda: TotalVariationSet(np.array([0.5, 0.5]), radius),
                  lambda: KLBallSet(np.array([0.5, 0.5]), radius)):
        with pytest.raises(InputError):
            build()
