"""Extreme rays: closed-form staircase patterns, float cddlib with verification, exact DD.

Grounding: the staircase closed form (Definition 3) against double description
of the LDP cone; float against exact double description on random cones;
exact DD against rays worked out by hand; thin slabs (tiny eps), where float
cdd loses rays unnoticed, against exact DD; inner_ratio against e^eps in
50-digit arithmetic.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy.optimize import nnls
from scipy.spatial import cKDTree

import rldp_models.conelp.double_description as dd
from rldp_models.conelp import ExplicitRays, StaircaseRays, extreme_rays, inner_ratio
from rldp_models.conelp.cones import pairwise_ratio_rows
from rldp_models.conelp.exact_dd import exact_extreme_rays
from rldp_models.conelp.joint import data_given_secret, exact
from rldp_models.conelp.rays import staircase_rays, subset_sums
from rldp_models.errors import InputError


def same_ray_sets(first: np.ndarray, second: np.ndarray, tolerance: float = 1e-9) -> bool:
    first, second = first / first.sum(axis=0), second / second.sum(axis=0)
    return first.shape == second.shape and bool(
        np.all(cKDTree(second.T).query(first.T)[0] <= tolerance))


@pytest.mark.parametrize("k", [2, 3, 4, 5])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_staircase_patterns_are_the_rays_of_the_ldp_cone(k: int, eps: float) -> None:
    ratio = inner_ratio(eps)
    closed_form = staircase_rays(k, ratio)
    assert isinstance(closed_form, StaircaseRays) and closed_form.count == 2**k - 2
    patterns = closed_form.columns(np.arange(closed_form.count))
    assert set(np.unique(patterns)) == {1.0, ratio}
    for method in ("float", "exact"):
        enumerated = extreme_rays(pairwise_ratio_rows(np.eye(k), ratio), method=method)
        assert same_ray_sets(patterns, enumerated.matrix)


def test_staircase_degenerate_cases() -> None:
    np.testing.assert_array_equal(staircase_rays(4, 1.0).matrix, np.ones((4, 1)))
    np.testing.assert_array_equal(staircase_rays(1, 3.0).matrix, np.ones((1, 1)))
    with pytest.raises(InputError):
        staircase_rays(3, 0.5)
    with pytest.raises(InputError):
        staircase_rays(40, 2.0)


def test_staircase_implicit_products_match_explicit_columns() -> None:
    rays = StaircaseRays(7, 2.5)
    V = rays.columns(np.arange(rays.count))
    y = np.random.default_rng(0).normal(size=7)
    np.testing.assert_allclose(rays.transpose_dot(y), V.T @ y, rtol=1e-13, atol=1e-13)
    seed = rays.columns(rays.seed())
    assert np.all((seed == 2.5).sum(axis=0) == 1)  # the singletons: randomized response
    np.testing.assert_allclose(subset_sums(np.array([1.0, 2.0, 4.0])), np.arange(8.0))


@pytest.mark.parametrize("seed", range(12))
def test_float_and_exact_double_description_agree(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, c = int(rng.integers(3, 7)), int(rng.integers(2, 4))
    eps = float(rng.choice([0.0, 0.3, 1.0, 4.0]))
    joint = rng.random((c, a)) ** 2
    joint /= joint.sum()
    rows = pairwise_ratio_rows(data_given_secret(exact(joint)), Fraction(inner_ratio(eps)))
    exact_rays = extreme_rays(rows, method="exact")
    assert exact_rays.exact
    assert same_ray_sets(extreme_rays(rows, method="auto").matrix, exact_rays.matrix)
    slack = rows.astype(float) @ exact_rays.matrix
    assert np.all(slack >= -1e-15)


def test_exact_double_description_by_hand() -> None:
    # {q >= 0 : q_1 <= 2 q_2, q_2 <= 2 q_1} in R^2: rays (1, 2) and (2, 1).
    rays = exact_extreme_rays([[Fraction(-1), Fraction(2)], [Fraction(2), Fraction(-1)]], 2)
    assert sorted(rays) == [(1, 2), (2, 1)]
    # q_1 = q_2 = q_3 written as a cycle of inequalities whose sum is 0: only (1, 1, 1).
    cycle = [[1, -1, 0], [0, 1, -1], [-1, 0, 1]]
    assert exact_extreme_rays([[Fraction(v) for v in row] for row in cycle], 3) == [(1, 1, 1)]
    # q_1 >= q_2 in R^3: rays e_1, e_1 + e_2, e_3.
    rays = exact_extreme_rays([[Fraction(1), Fraction(-1), Fraction(0)]], 3)
    assert sorted(rays) == [(0, 0, 1), (1, 0, 0), (1, 1, 0)]


def tampered_runs(monkeypatch: pytest.MonkeyPatch, tamper) -> list:
    """Patch cddlib's runs to pass through ``tamper(run_number, rays)``; the orders asked for."""
    original, calls = dd._cdd_rays, []

    def run(rows: np.ndarray, order) -> np.ndarray:
        calls.append(order)
        return tamper(len(calls), original(rows, order))

    monkeypatch.setattr(dd, "_cdd_rays", run)
    return calls


def test_a_run_that_disagrees_is_outvoted_by_a_third(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = pairwise_ratio_rows(np.eye(4), inner_ratio(1.0))
    calls = tampered_runs(monkeypatch, lambda run, rays: rays[:, 1:] if run == 2 else rays)
    result = extreme_rays(rows, method="float")
    assert len(calls) == 3 and not result.exact
    assert same_ray_sets(result.matrix, extreme_rays(rows, method="exact").matrix)


def test_inconsistent_float_runs_fall_back_to_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = pairwise_ratio_rows(np.eye(4), inner_ratio(1.0))
    calls = tampered_runs(monkeypatch, lambda run, rays: np.delete(rays, run - 1, axis=1))
    with pytest.raises(dd.FloatDoubleDescriptionError, match="no two row orders"):
        extreme_rays(rows, method="float")
    assert len(calls) == len(dd.ROW_ORDERS)
    calls.clear()
    result = extreme_rays(rows)
    assert result.exact and result.count == 2**4 - 2


def test_rays_violating_the_cone_are_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = pairwise_ratio_rows(np.eye(3), inner_ratio(1.0))
    monkeypatch.setattr(dd, "_cdd_rays", lambda rows, order: np.array([[1.0], [0.0], [0.0]]))
    with pytest.raises(dd.FloatDoubleDescriptionError):
        extreme_rays(rows, method="float")


@pytest.mark.parametrize("eps", [1e-12, 1e-8])
def test_thin_slabs_go_to_exact_double_description(monkeypatch: pytest.MonkeyPatch,
                                                   eps: float) -> None:
    """Nearly opposite rows: float cdd merges rays and both row orders agree on the loss.

    Here it keeps 9 of 18 rays: at ``1e-8`` they no longer span ``1`` (the
    cone LP was infeasible), at ``1e-12`` they are the ``eps = 0`` rays (the
    dual certificate would be priced on half the cone). ``auto`` must take
    the exact method.
    """
    joint = np.random.default_rng(7).dirichlet(np.ones(12)).reshape(2, 6)
    rows = pairwise_ratio_rows(data_given_secret(exact(joint)), Fraction(inner_ratio(eps)))
    rays = extreme_rays(rows)
    assert rays.exact and same_ray_sets(rays.matrix, extreme_rays(rows, method="exact").matrix)
    assert nnls(rays.matrix, np.ones(6))[1] < 1e-12
    with pytest.raises(dd.FloatDoubleDescriptionError, match="opposite"):
        extreme_rays(rows, method="float")
    monkeypatch.setattr(dd, "SLAB_TOLERANCE", 0.0)
    unchecked = extreme_rays(rows, method="float")
    assert unchecked.count < rays.count


def test_exactly_opposite_rows_stay_with_float_double_description() -> None:
    """At eps = 0 the pairs are equalities, which float cdd handles."""
    joint = np.random.default_rng(8).dirichlet(np.ones(12)).reshape(2, 6)
    rows = pairwise_ratio_rows(data_given_secret(exact(joint)), Fraction(1))
    rays = extreme_rays(rows)
    assert not rays.exact
    assert same_ray_sets(rays.matrix, extreme_rays(rows, method="exact").matrix)


@pytest.mark.parametrize("eps", [0.0, 1e-15, 1e-9, 1e-3, 0.5, 1.0, 7.0, 30.0])
def test_inner_ratio_is_a_safe_lower_bound(eps: float) -> None:
    ratio = inner_ratio(eps)
    with mpmath.workdps(50):
        assert mpmath.mpf(ratio) <= mpmath.exp(mpmath.mpf(eps))
    assert ratio >= 1.0
    assert ratio >= min(np.exp(eps) * (1 - 1e-8), 1e12)
    if eps >= 1e-3:
        assert ratio <= np.exp(eps) * (1 - 1e-14)


def test_bad_cone_input() -> None:
    with pytest.raises(InputError):
        extreme_rays(np.zeros(3))
    with pytest.raises(InputError):
        extreme_rays(np.array([[np.inf, 1.0]]))
    assert isinstance(extreme_rays(np.zeros((0, 2))), ExplicitRays)
