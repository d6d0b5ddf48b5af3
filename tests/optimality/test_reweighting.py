"""The re-weighting LP (:mod:`rldp_models.optimality.reweighting`)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

from rldp_models.optimality.reweighting import ReweightingLP


def _random_lp(seed: int, n_x: int = 6, n_y: int = 3, k: int = 9, m: int = 2):
    rng = np.random.default_rng(seed)
    fixed = rng.random((n_x, n_y))
    charges = sp.random(k, n_x * n_y, density=0.4, random_state=seed, format="csr",
                        data_rvs=lambda size: rng.normal(size=size))
    objective = sp.csr_matrix(rng.random((m, n_x * n_y)))
    return fixed, charges, objective


def _by_hand(fixed, charges, objective, bound: float) -> float:
    """The same LP written out densely for scipy: variables (lambda, a, t)."""
    k, m = charges.shape[0], objective.shape[0]
    n_x, n_y = fixed.shape
    t_part = np.kron(np.eye(n_x), np.ones((n_y, 1)))
    rows = np.hstack([-charges.toarray().T, -objective.toarray().T, t_part])
    cost = np.concatenate([np.zeros(k + m), -np.ones(n_x)])
    equal = np.concatenate([np.zeros(k), np.ones(m), np.zeros(n_x)])[None, :] if m else None
    bounds = [(0, bound)] * k + [(0, 1)] * m + [(None, None)] * n_x
    found = linprog(cost, A_ub=rows, b_ub=fixed.ravel(), A_eq=equal,
                    b_eq=[1.0] if m else None, bounds=bounds, method="highs")
    assert found.status == 0
    return -found.fun


def _value(fixed, charges, objective, weights, shares) -> float:
    """``sum_x min_y`` of the charges at the returned multipliers (what the bound is)."""
    total = fixed.ravel() + charges.T @ weights
    if shares is not None:
        total = total + objective.T @ shares
    return float(total.reshape(fixed.shape).min(axis=1).sum())


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("method", ["highs", "highs-ipm"])
def test_optimum_equals_the_lp_written_by_hand(seed: int, method) -> None:
    fixed, charges, objective = _random_lp(seed)
    lp = ReweightingLP(fixed, True, method)
    lp.add(charges, objective)
    found = lp.solve(2.0)
    assert found is not None
    expected = _by_hand(fixed, charges, objective, 2.0)
    assert _value(fixed, charges, objective, found.weights, found.shares) == \
        pytest.approx(expected, abs=1e-9)
    assert np.all(found.weights <= 2.0 + 1e-12) and found.shares.sum() == pytest.approx(1.0)
    assert np.allclose(found.point.sum(axis=1), 1.0)  # the dual is row-stochastic


@pytest.mark.parametrize("seed", range(5))
def test_columns_added_later_give_the_optimum_of_the_whole_lp(seed: int) -> None:
    """Warm re-solve after :meth:`add` (from the last basis) == one cold solve of everything."""
    fixed, charges, objective = _random_lp(seed, k=12, m=3)
    lp = ReweightingLP(fixed, True, "highs-ipm")
    lp.add(charges[:7], objective[:1])
    first = lp.solve(1.5)
    assert first is not None
    lp.add(charges[7:], objective[1:])
    second = lp.solve(3.0)
    assert second is not None and second.weights.shape == (12,) and second.shares.shape == (3,)
    expected = _by_hand(fixed, charges, objective, 3.0)
    assert _value(fixed, charges, objective, second.weights, second.shares) == \
        pytest.approx(expected, abs=1e-9)
    assert expected >= _by_hand(fixed, charges[:7], objective[:1], 1.5) - 1e-12


def test_without_members_the_fixed_charges_are_the_objective() -> None:
    fixed, charges, objective = _random_lp(3)
    lp = ReweightingLP(fixed, False)
    lp.add(charges, sp.csr_matrix((0, fixed.size)))
    found = lp.solve(1.0)
    assert found is not None and found.shares is None
    empty = sp.csr_matrix((0, fixed.size))
    assert _value(fixed, charges, empty, found.weights, None) == \
        pytest.approx(_by_hand(fixed, charges, empty, 1.0), abs=1e-9)
    with pytest.raises(ValueError):
        lp.add(charges[:0], objective)


def test_members_projected_together_equal_members_projected_alone() -> None:
    """The certificate projects a pair's members as one stack (``_projected``): each must be
    exactly what projecting it alone gives; members slightly outside Theorem 3's set end
    inside, none moves outward, and one already inside is left as it is."""
    from types import SimpleNamespace

    from rldp_models.optimality.lagrangian_dual import TARGET, _pair_excess, _projected

    rng = np.random.default_rng(4)
    counts = rng.integers(0, 30, size=(3, 6)).astype(float)
    counts[1, 2] = 0.0
    instance = SimpleNamespace(counts=counts, radius=0.02)
    excess = _pair_excess(instance, 0, 1)  # type: ignore[arg-type]
    centre = counts[:2] / counts[:2].sum(axis=1, keepdims=True)
    weight = rng.uniform(0.0, 0.2, size=(25, 1, 1))  # around the set's boundary
    starts = (1 - weight) * centre + weight * rng.dirichlet(np.full(6, 0.7), size=(25, 2))
    starts[3] = centre  # inside: left as it is
    together = _projected(starts, excess)
    for start, member in zip(starts, together):
        assert np.array_equal(_projected(start[None], excess)[0], member)
    values, _ = excess(together)
    assert np.array_equal(together[3], starts[3])
    before = excess(starts)[0]
    assert np.all(together >= 0) and np.all(values <= np.maximum(before, -TARGET))
    near = before < 1e-4  # a solver's member is outside by its tolerance at most
    assert near.sum() >= 15 and np.all(values[near] <= -TARGET)
