"""``rldp_epsilon`` / ``is_rldp`` against an independent brute-force inner maximisation.

The brute force works on the joint ``P`` directly (Definition 1 of the RLDP
paper, eq. 4 for F): ``P = softmax(z)``, SLSQP on
``log P(y|s1) - log P(y|s2)`` under ``sum_{Phat_x > 0} Phat_x^2 / P_x <= B + 1``
from several starts, plus random points of F on segments from ``Phat``. It
uses neither Theorem 3's pair projection nor Theorem 4's bound, and computes
``B = chi2.ppf(1 - alpha, |X| - 1) / n`` itself.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import softmax
from scipy.stats import chi2

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.rldp_protocols import independent_reporting, is_rldp, rldp_epsilon

ALPHA = 0.05
CASES = {
    "2x2": ([[30, 10], [5, 20]], 0),
    "2x3": ([[12, 3, 20], [6, 25, 4]], 1),
    "2x3-zero-cell": ([[12, 0, 20], [6, 25, 4]], 2),
}


def radius(counts: np.ndarray) -> float:
    return float(chi2.ppf(1 - ALPHA, counts.size - 1) / counts.sum())


def in_f(p: np.ndarray, phat: np.ndarray, b: float) -> bool:
    mask = phat > 0
    return bool(np.all(p[mask] > 0) and np.sum(phat[mask] ** 2 / p[mask]) <= (b + 1) * (1 + 1e-12))


def log_ratio(Q: np.ndarray, p: np.ndarray, shape: tuple[int, int], y: int, s1: int,
              s2: int) -> float:
    joint = p.reshape(shape)
    columns = Q[:, y].reshape(shape)
    q1, q2 = joint[s1] / joint[s1].sum(), joint[s2] / joint[s2].sum()
    return float(np.log(columns[s1] @ q1) - np.log(columns[s2] @ q2))


def brute_force_level(Q: np.ndarray, counts: np.ndarray, seed: int) -> float:
    """``max_{P in F, y, s1 != s2} log P(y|s1) / P(y|s2)`` by search over the joint P."""
    rng = np.random.default_rng(seed)
    phat, b = (counts / counts.sum()).ravel(), radius(counts)
    mask = phat > 0
    shape = counts.shape
    best = -np.inf
    points = [phat]
    for _ in range(400):  # random points of F on segments Phat -> Dirichlet draw
        target = rng.dirichlet(np.full(phat.size, 0.3))
        low, high = 0.0, 1.0
        for _ in range(50):
            middle = 0.5 * (low + high)
            low, high = (middle, high) if in_f((1 - middle) * phat + middle * target, phat, b) \
                else (low, middle)
        points.append((1 - low) * phat + low * target)
    for y, (s1, s2) in itertools.product(range(Q.shape[1]),
                                         itertools.permutations(range(shape[0]), 2)):
        best = max(best, *(log_ratio(Q, p, shape, y, s1, s2) for p in points))
        constraint = {"type": "ineq",
                      "fun": lambda z: (b + 1) - np.sum(phat[mask] ** 2 / softmax(z)[mask])}
        for start in range(6):
            z0 = np.log(np.where(mask, phat, 1e-3)) + rng.normal(0, 0.3 * (start > 0), phat.size)
            found = minimize(lambda z, y=y, s1=s1, s2=s2: -log_ratio(Q, softmax(z), shape,
                                                                      y, s1, s2), z0,
                             method="SLSQP", constraints=[constraint],
                             options={"maxiter": 500, "ftol": 1e-13})
            p = softmax(found.x)
            if in_f(p, phat, b):
                best = max(best, log_ratio(Q, p, shape, y, s1, s2))
    return max(best, 0.0)


def random_protocol(shape: tuple[int, int], outputs: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.full(outputs, 2.0), size=shape[0] * shape[1])


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("kind", ["random", "ir"])
def test_checker_brackets_the_brute_force_supremum(case, kind):
    counts, seed = np.array(CASES[case][0]), CASES[case][1]
    crosstab = Crosstab.from_array(counts)
    Q = random_protocol(counts.shape, 3, seed) if kind == "random" else \
        independent_reporting(crosstab, 1.0, ALPHA).Q
    level = rldp_epsilon(Q, crosstab, ALPHA)
    brute = brute_force_level(Q, counts, seed)
    assert brute <= level.certified + 1e-9
    assert level.attained <= brute + 1e-6
    assert level.certified - level.attained <= 1e-6 * max(1.0, level.certified)
    phat = (counts / counts.sum()).ravel()
    assert in_f(level.witness.ravel(), phat, radius(counts))
    y, s1, s2 = level.worst_at
    assert log_ratio(Q, level.witness.ravel(), counts.shape, y, s1, s2) == \
        pytest.approx(level.attained, abs=1e-9)


def test_is_rldp_decides_against_the_certified_level():
    counts = np.array(CASES["2x3"][0])
    crosstab = Crosstab.from_array(counts)
    Q = random_protocol(counts.shape, 3, 5)
    level = rldp_epsilon(Q, crosstab, ALPHA)
    assert level.attained > 0
    assert is_rldp(Q, crosstab, ALPHA, level.certified)
    assert not is_rldp(Q, crosstab, ALPHA, level.attained * (1 - 1e-6))


def test_checker_rejects_a_matrix_of_the_wrong_shape_or_not_stochastic():
    crosstab = Crosstab.from_array(CASES["2x2"][0])
    with pytest.raises(InputError):
        rldp_epsilon(np.full((3, 2), 0.5), crosstab, ALPHA)
    with pytest.raises(InputError):
        rldp_epsilon(np.full((4, 2), 0.6), crosstab, ALPHA)


def test_a_protocol_revealing_the_secret_has_an_unbounded_level():
    crosstab = Crosstab.from_array(CASES["2x2"][0])
    reveal = np.kron(np.eye(2), np.ones((2, 1)))  # y = s
    level = rldp_epsilon(reveal, crosstab, ALPHA)
    assert level.certified == np.inf
    assert not is_rldp(reveal, crosstab, ALPHA, 10.0)


@pytest.mark.parametrize("case", CASES)
def test_polytope_level_bounds_the_brute_force_supremum(case):
    """Theorem 11's bound over the polytopes D_s: above the supremum over F, and equal to
    the ratio of vertex values recomputed here in floats."""
    from rldp_models.rldp_protocols.checker import polytope_level
    from rldp_models.conelp.polyopt_gamma import gamma_vertices
    from rldp_models.uncertainty.chi_square import ChiSquareSet

    counts, seed = np.array(CASES[case][0]), CASES[case][1]
    Q = random_protocol(counts.shape, 3, seed)
    vertices = gamma_vertices(ChiSquareSet.from_counts(counts, ALPHA), finer=True)
    level = polytope_level(Q, vertices)
    assert brute_force_level(Q, counts, seed) <= level + 1e-12
    blocks = Q.reshape(*counts.shape, -1)
    values = [np.array(vertices[s], dtype=float) @ blocks[s] for s in range(counts.shape[0])]
    ratio = max(float((values[s1].max(axis=0) / values[s2].min(axis=0)).max())
                for s1, s2 in itertools.permutations(range(counts.shape[0]), 2))
    assert level == pytest.approx(np.log(ratio), abs=1e-12)  # float reference: to rounding
    assert polytope_level(np.kron(np.eye(2), np.ones((counts.shape[1], 1))), vertices) == np.inf


@pytest.mark.parametrize("eps,counts", [
    (0.05, [[55, 1, 63], [0, 20, 5], [23, 8, 0]]),
    (0.001, [[0, 11, 13], [0, 5, 21]]),
    (0.01, [[1, 34, 46], [11, 1, 1], [17, 0, 37]]),
    (0.1, [[0, 18], [4, 78], [3, 82]]),
])
def test_srr_meeting_eps_by_ulps_is_declared_private(eps, counts):
    """These SRR matrices meet eps exactly (Proposition 4, decided in rationals); the float
    level used to land one ulp above eps and the command said EXCEEDS (issue 20)."""
    from rldp_models.privacy.matrix_checks import certify_ldp
    from rldp_models.rldp_protocols import srr_protocol

    crosstab = Crosstab.from_array(np.array(counts, dtype=float))
    Q = srr_protocol(crosstab, eps, 0.05).Q
    assert certify_ldp(Q, eps, groups=np.repeat(np.arange(crosstab.shape[0]),
                                               crosstab.shape[1])).holds
    assert rldp_epsilon(Q, crosstab, 0.05).certified <= eps
