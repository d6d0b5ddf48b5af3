"""The chi-square set: radius, closed forms (Thms 2 and 4) against direct maximisation,
projections (Lemma 8, Thm 3), coordinate bounds (Lemma 9) and the l1 radius (Prop. 10)."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from scipy.stats import chi2

from shared_data import random_counts
from rldp_models.errors import InputError
from rldp_models.uncertainty import ChiSquareSet, Simplex, chi_square_radius


def test_radius_is_eq3() -> None:
    assert chi_square_radius(75, 15, 0.05) == pytest.approx(chi2.ppf(0.95, 14) / 75)


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, 1.5])
def test_radius_rejects_alpha_outside_unit_interval(alpha: float) -> None:
    with pytest.raises(InputError):
        chi_square_radius(75, 15, alpha)


def _sets(seed: int, count: int, n: int = 60):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        counts = random_counts(rng, 3, 4, n)
        yield ChiSquareSet.from_counts(counts, 0.05), rng


def test_sets_under_test_include_zero_cells() -> None:
    assert any(np.any(f.phat == 0) for f, _ in _sets(0, 8))


@pytest.mark.parametrize("seed", range(8))
def test_theorem2_closed_form_matches_direct_maximisation(seed: int) -> None:
    for f, rng in _sets(seed, 2):
        v = rng.normal(size=f.phat.size)
        direct, maximiser = f.support_direct(v)
        assert f.support(v) == pytest.approx(direct, abs=1e-6)
        assert f.contains(maximiser / maximiser.sum(), tol=1e-6)


@pytest.mark.parametrize("seed", range(8))
def test_theorem4_closed_form_matches_direct_maximisation(seed: int) -> None:
    for f, rng in _sets(100 + seed, 2):
        s1, s2 = rng.choice(3, size=2, replace=False)
        pair = f.pair(int(s1), int(s2))
        v1, v2 = rng.random(4), -np.exp(0.5) * rng.random(4)
        direct, r1, r2 = pair.support_direct(v1, v2)
        assert pair.support(v1, v2) == pytest.approx(direct, abs=1e-6)
        assert pair.contains(r1, r2, tol=1e-6)


def test_theorem4_with_an_empty_secret_is_max_over_simplex_plus_conditional_support() -> None:
    counts = np.array([[5, 0, 3, 2], [0, 0, 0, 0], [4, 4, 1, 1]])
    f = ChiSquareSet.from_counts(counts, 0.05)
    v1, v2 = np.array([0.1, 0.7, 0.2, 0.3]), -np.array([0.4, 0.2, 0.9, 0.1])
    conditional = f.conditional(0)
    expected = conditional.support(v1) + Simplex(4).support(v2)
    assert f.pair(0, 1).support(v1, v2) == pytest.approx(expected, abs=1e-7)


def _sample_in_set(f: ChiSquareSet, rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Random members of F: mixtures of Phat with Dirichlet points, kept if inside."""
    found = []
    while len(found) < count:
        direction = rng.dirichlet(np.full(f.phat.size, 0.3)).reshape(f.phat.shape)
        weight = rng.random() ** 3
        p = (1 - weight) * f.phat + weight * direction
        if f.contains(p, tol=1e-12):
            found.append(p)
    return found


def test_lemma8_and_theorem3_hold_for_members_of_f() -> None:
    for f, rng in _sets(7, 3):
        for p in _sample_in_set(f, rng, 50):
            conditional = p / p.sum(axis=1, keepdims=True)
            for s in range(3):
                assert f.conditional(s).contains(conditional[s], tol=1e-9)
            assert f.pair(0, 2).contains(conditional[0], conditional[2], tol=1e-9)


def test_theorem3_realisation_lands_in_f() -> None:
    for f, rng in _sets(11, 3):
        pair = f.pair(1, 2)
        _, r1, r2 = pair.support_direct(rng.random(4), -rng.random(4))
        r1, r2 = 0.999 * r1 + 0.001 * f.phat[1] / f.phat[1].sum(), \
            0.999 * r2 + 0.001 * f.phat[2] / f.phat[2].sum()
        m1, m2, rest = pair.realise(r1 / r1.sum(), r2 / r2.sum())
        p = f.phat * rest / pair.rest
        p[1], p[2] = m1 * r1 / r1.sum(), m2 * r2 / r2.sum()
        assert f.contains(p, tol=1e-9)


def test_conditional_of_empty_secret_is_the_simplex() -> None:
    f = ChiSquareSet.from_counts(np.array([[3, 2], [0, 0]]), 0.05)
    assert f.conditional(1) == Simplex(2)


def test_lemma9_bounds_match_direct_optimisation() -> None:
    for f, _ in _sets(3, 2):
        lower, upper = f.coordinate_bounds()
        p = cp.Variable(f.phat.size, nonneg=True)
        phat = f.phat.ravel()
        mask = phat > 0
        inside = [cp.sum(p) == 1,
                  cp.sum(cp.multiply(phat[mask] ** 2, cp.inv_pos(p[mask]))) <= f.radius + 1]
        for x in (0, 5, 11):
            low = cp.Problem(cp.Minimize(p[x]), inside).solve(solver="CLARABEL")
            high = cp.Problem(cp.Maximize(p[x]), inside).solve(solver="CLARABEL")
            assert lower.ravel()[x] == pytest.approx(low, abs=1e-6)
            assert upper.ravel()[x] == pytest.approx(high, abs=1e-6)


def test_proposition10_l1_radius_is_attained_and_not_exceeded() -> None:
    counts = np.array([[3, 1, 2], [2, 2, 0]])
    f = ChiSquareSet.from_counts(counts, 0.05)
    assert f.radius >= 1
    radius, exact = f.l1_radius()
    assert exact
    rng = np.random.default_rng(5)
    samples = _sample_in_set(f, rng, 300)
    assert max(np.abs(p - f.phat).sum() for p in samples) <= radius + 1e-9
    # attained: all mass moved onto a minimal cell, per the proof of Prop. 10
    x = int(np.argmin(f.phat.ravel()))
    _, top = f.coordinate_bounds()
    p = f.phat.ravel() * (1 - top.ravel()[x]) / (1 - f.phat.ravel()[x])
    p[x] = top.ravel()[x]
    assert np.abs(p - f.phat.ravel()).sum() == pytest.approx(radius, rel=1e-9)
    assert f.contains(p, tol=1e-9)


def test_proposition10_bound_for_small_radius() -> None:
    f = ChiSquareSet.from_counts(np.array([[300, 100], [250, 350]]), 0.05)
    radius, exact = f.l1_radius()
    assert not exact and radius == pytest.approx(np.sqrt(f.radius))
    rng = np.random.default_rng(1)
    assert max(np.abs(p - f.phat).sum() for p in _sample_in_set(f, rng, 300)) <= radius


def test_bad_set_parameters() -> None:
    with pytest.raises(InputError):
        ChiSquareSet(np.array([0.5, 0.6]), 0.1)
    with pytest.raises(InputError):
        ChiSquareSet(np.array([0.5, 0.5]), 0.0)


def _theorem4_batch() -> tuple[ChiSquareSet, list[tuple[int, int]], tuple[np.ndarray, ...]]:
    """A 4x5 set with a secret without records, every ordered pair three times, and random
    sides: the set, the pairs and the batch's inputs ``(v1, v2, Phat rows 1, 2, rho)``."""
    rng = np.random.default_rng(21)
    counts = random_counts(rng, 4, 5, 40)
    counts[3] = 0
    f = ChiSquareSet.from_counts(counts, 0.05)
    pairs = [(s1, s2) for s1 in range(4) for s2 in range(4) if s1 != s2] * 3
    v1 = rng.random((len(pairs), 5)) * (rng.random((len(pairs), 5)) < 0.7)
    v2 = -1.6 * rng.random((len(pairs), 5))
    rows1 = np.array([f.phat[s1] for s1, _ in pairs])
    rows2 = np.array([f.phat[s2] for _, s2 in pairs])
    rho = np.array([f.pair(s1, s2).rho for s1, s2 in pairs])
    return f, pairs, (v1, v2, rows1, rows2, rho)


def test_vectorised_theorem4_matches_the_scalar_closed_form_and_brackets_it() -> None:
    from rldp_models.uncertainty.pair_support_batch import pair_support_batch

    f, pairs, (v1, v2, rows1, rows2, rho) = _theorem4_batch()
    batch = pair_support_batch(v1, v2, rows1, rows2, rho)
    for i, (s1, s2) in enumerate(pairs):
        pair = f.pair(s1, s2)
        assert batch.upper[i] == pytest.approx(pair.support(v1[i], v2[i]), abs=1e-9)
        assert pair.contains(batch.r1[i], batch.r2[i], tol=1e-12)
    assert np.all(batch.lower <= batch.upper + 1e-15)
    assert np.max(batch.upper - batch.lower) < 1e-8


def test_vectorised_theorem4_solves_each_row_on_its_own() -> None:
    """Every row stops on its own convergence test, so a row's bound, multipliers and
    maximiser do not depend on the rows batched with it (the batch is only vectorisation),
    and no row keeps iterating for the others: the maximisers' gaps stay at ~1e-11."""
    from rldp_models.uncertainty.pair_support_batch import pair_support_batch

    _, pairs, (v1, v2, rows1, rows2, rho) = _theorem4_batch()
    batch = pair_support_batch(v1, v2, rows1, rows2, rho)
    for i in range(len(pairs)):
        alone = pair_support_batch(v1[i:i + 1], v2[i:i + 1], rows1[i:i + 1], rows2[i:i + 1],
                                   rho[i:i + 1])
        assert alone.upper[0] == batch.upper[i] and alone.c[0] == batch.c[i]
        assert np.array_equal(alone.t[0], batch.t[i]) and np.array_equal(alone.r1[0], batch.r1[i])
    assert np.max(batch.upper - batch.lower) < 1e-10


def test_vectorised_theorem4_answers_a_recent_batch_again(monkeypatch) -> None:
    from rldp_models.uncertainty import pair_support_batch as module

    rng = np.random.default_rng(5)
    f = ChiSquareSet.from_counts(random_counts(rng, 3, 4, 30), 0.05)
    pairs = [(0, 1), (1, 2), (2, 0)]
    v1, v2 = rng.random((3, 4)), -rng.random((3, 4))
    rows1 = np.array([f.phat[s1] for s1, _ in pairs])
    rows2 = np.array([f.phat[s2] for _, s2 in pairs])
    rho = np.array([f.pair(s1, s2).rho for s1, s2 in pairs])
    computed = []
    original = module._pair_support_batch
    monkeypatch.setattr(module, "_pair_support_batch",
                        lambda *args: computed.append(1) or original(*args))
    first = module.pair_support_batch(v1, v2, rows1, rows2, rho)
    expected = first.upper.copy()
    first.upper[:] = 0.0  # the caller's arrays are its own
    again = module.pair_support_batch(v1.copy(), v2, rows1, rows2, rho)
    assert len(computed) == 1 and np.array_equal(again.upper, expected)
    changed = v1.copy()
    changed[0, 0] += 1e-9  # any change of the inputs is a new batch
    module.pair_support_batch(changed, v2, rows1, rows2, rho)
    assert len(computed) == 2
    module.pair_support_batch(v1, v2, rows1, rows2, rho)  # another in between: still kept
    assert len(computed) == 2
    for shift in range(1, module.CACHED_BATCHES + 1):  # until it is the oldest of too many
        module.pair_support_batch(v1 + shift, v2, rows1, rows2, rho)
    module.pair_support_batch(v1, v2, rows1, rows2, rho)
    assert len(computed) == 3 + module.CACHED_BATCHES

def test_worst_case_distribution_attains_the_support_function() -> None:
    for f, rng in _sets(31, 4):
        v = rng.normal(size=f.phat.size)
        worst, bound = f.worst_case(v)
        assert f.contains(worst / worst.sum(), tol=1e-12)
        assert v @ worst.ravel() == pytest.approx(bound.value, abs=1e-6)
        assert v @ worst.ravel() <= bound.value + 1e-12
