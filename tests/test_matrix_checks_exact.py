"""Exact certifiers of LDP w.r.t. S, LIP and SRLIP against brute force in rationals.

References are written here from ``privacy-funnel-ldp-lip.txt``: Definition 1
(eq. (1)), Definition 2 (eq. (2)) and Definition 3 (eq. (12)), evaluated with
explicit loops over secrets, outputs and conditionings ``x^J``, every
probability a :class:`~fractions.Fraction` of the doubles given, and
``e^eps`` by mpmath at 80 significant digits (``eps = 0`` compared exactly).
Conventions: secrets of zero mass are left out of eq. (1); pairs with
``P(s) = 0`` or ``P(y) = 0`` are left out of eqs. (2) and (12); ``0/0``
constrains nothing and ``positive/0`` violates every ``eps``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

import rldp_models.cli as cli
from tests.shared_data import result_fields
from rldp_models.conelp import ldp_wrt_secret_mechanism, lip_mechanism, srlip_mechanism
from rldp_models.privacy import (certify_ldp_wrt_secret, certify_lip, certify_srlip,
                                 ldp_wrt_secret_epsilon, lip_epsilon, srlip_epsilon)

RNG = np.random.default_rng(2024)
SIZES = (2, 3)
"""Attribute sizes of the SRLIP instances: ``X = X^1 x X^2``."""

Ratios = dict[tuple[int, ...], Fraction | float]


# --- brute force from the definitions ---------------------------------------------------

def exact(Q: np.ndarray, p_sx: np.ndarray) -> tuple[list[list[Fraction]], list[list[Fraction]]]:
    return ([[Fraction(v) for v in row] for row in Q.tolist()],
            [[Fraction(v) for v in row] for row in p_sx.tolist()])


def brute_secret_ldp(Q: np.ndarray, p_sx: np.ndarray) -> Ratios:
    """``P(y|s) / P(y|s')`` at every ``(s, s', y)`` that constrains (eq. (1))."""
    q, p = exact(Q, p_sx)
    a, b = Q.shape
    mass = [sum(row) for row in p]
    given = {s: [sum(p[s][x] * q[x][y] for x in range(a)) / mass[s] for y in range(b)]
             for s in range(len(p)) if mass[s] > 0}
    ratios: Ratios = {}
    for s, t, y in itertools.product(given, given, range(b)):
        if given[t][y] > 0:
            ratios[s, t, y] = given[s][y] / given[t][y]
        elif given[s][y] > 0:
            ratios[s, t, y] = math.inf
    return ratios


def lip_ratios(q: list[list[Fraction]], p: list[list[Fraction]], inputs: list[int],
               b: int) -> dict[tuple[int, int], Fraction | float]:
    """``max(r, 1/r)``, ``r = P(y|s) / P(y)``, for the joint ``p`` restricted to ``inputs``."""
    mass = [sum(p[s][x] for x in inputs) for s in range(len(p))]
    total = sum(mass)
    ratios: dict[tuple[int, int], Fraction | float] = {}
    for y in range(b):
        p_y = sum(p[s][x] * q[x][y] for s in range(len(p)) for x in inputs) / total
        for s in range(len(p)):
            if mass[s] > 0 and p_y > 0:
                r = sum(p[s][x] * q[x][y] for x in inputs) / mass[s] / p_y
                ratios[s, y] = max(r, 1 / r) if r > 0 else math.inf
    return ratios


def brute_lip(Q: np.ndarray, p_sx: np.ndarray) -> Ratios:
    """Eq. (2) at every ``(s, y)`` that constrains."""
    q, p = exact(Q, p_sx)
    return lip_ratios(q, p, list(range(Q.shape[0])), Q.shape[1])


def brute_srlip(Q: np.ndarray, p_sx: np.ndarray, sizes: tuple[int, ...]) -> Ratios:
    """Eq. (12) at every ``(s, y, v^1, ..., v^m)``, ``v^j = -1`` for ``j`` outside ``J``."""
    q, p = exact(Q, p_sx)
    points = list(itertools.product(*map(range, sizes)))
    ratios: Ratios = {}
    for r in range(len(sizes) + 1):
        for J in itertools.combinations(range(len(sizes)), r):
            for value in itertools.product(*(range(sizes[j]) for j in J)):
                inputs = [i for i, x in enumerate(points)
                          if all(x[j] == v for j, v in zip(J, value))]
                if sum(p[s][x] for s in range(len(p)) for x in inputs) == 0:
                    continue
                v = [-1] * len(sizes)
                for j, vj in zip(J, value):
                    v[j] = vj
                for (s, y), ratio in lip_ratios(q, p, inputs, Q.shape[1]).items():
                    ratios[(s, y, *v)] = ratio
    return ratios


def brute_holds(ratios: Ratios, eps: float) -> bool:
    if not ratios:
        return True
    worst = max(ratios.values())
    if worst == math.inf:
        return False
    if eps == 0:
        return worst <= 1
    with mpmath.workdps(80):
        return mpmath.mpf(worst.numerator) / worst.denominator <= mpmath.exp(mpmath.mpf(eps))


# --- the three notions, side by side ------------------------------------------------------

NOTIONS: dict[str, tuple[Callable, Callable, Callable]] = {
    "ldp-s": (certify_ldp_wrt_secret, ldp_wrt_secret_epsilon, brute_secret_ldp),
    "lip": (certify_lip, lip_epsilon, brute_lip),
    "srlip": (lambda Q, p, eps: certify_srlip(Q, p, SIZES, eps),
              lambda Q, p: srlip_epsilon(Q, p, SIZES),
              lambda Q, p: brute_srlip(Q, p, SIZES)),
}


def assert_agrees(notion: str, Q: np.ndarray, p_sx: np.ndarray, eps: float) -> bool:
    """The certifier's verdict and worst pair against brute force; returns the verdict."""
    certify, _, brute = NOTIONS[notion]
    ratios = brute(Q, p_sx)
    verdict = certify(Q, p_sx, eps)
    assert verdict.holds == brute_holds(ratios, eps), (notion, eps)
    if ratios:
        assert ratios[verdict.worst_pair] == max(ratios.values())
    else:
        assert verdict.worst_pair is None
    return verdict.holds


def random_instance(c: int) -> tuple[np.ndarray, np.ndarray]:
    """A joint on ``c x 6`` and a mechanism ``6 x 3``, with zero cells and zero-mass secrets."""
    p_sx = RNG.random((c, 6)) * (RNG.random((c, 6)) > 0.3)
    if c > 1 and RNG.random() < 0.4:
        p_sx[RNG.integers(c)] = 0.0
    p_sx[0, RNG.integers(6)] += 0.1
    Q = RNG.random((6, 3)) * (RNG.random((6, 3)) > 0.3)
    Q[np.arange(6), RNG.integers(3, size=6)] += 0.1
    return Q / Q.sum(axis=1, keepdims=True), p_sx / p_sx.sum()


def exactly_private_instances() -> list[tuple[np.ndarray, np.ndarray]]:
    """Mechanisms that are 0-private in exact arithmetic, though not in floating point."""
    row = RNG.dirichlet(np.ones(3))
    identical_rows = np.tile(row, (6, 1))
    _, p_sx = random_instance(3)
    secret = np.array([1, 3, 4]) / 8  # dyadic: the outer product is exact, S independent of X
    data = np.array([1, 2, 3, 1, 4, 5]) / 16
    Q, _ = random_instance(1)
    return [(identical_rows, p_sx), (Q, np.outer(secret, data))]


@pytest.mark.parametrize("notion", sorted(NOTIONS))
def test_certifiers_agree_with_brute_force(notion: str) -> None:
    _, level, brute = NOTIONS[notion]
    verdicts = []
    for c in (1, 2, 3, 3, 2, 3, 2, 3):
        Q, p_sx = random_instance(c)
        eps_star = level(Q, p_sx)
        grid = [0.0, float(RNG.uniform(0, 2))]
        if np.isfinite(eps_star):
            grid += [eps_star, np.nextafter(eps_star, 0.0), np.nextafter(eps_star, np.inf),
                     eps_star * (1 - 1e-12), eps_star * (1 + 1e-12)]
        verdicts += [assert_agrees(notion, Q, p_sx, eps) for eps in grid]
    assert any(verdicts) and not all(verdicts)


@pytest.mark.parametrize("notion", sorted(NOTIONS))
def test_exactly_private_mechanisms_certify_at_eps_zero(notion: str) -> None:
    for Q, p_sx in exactly_private_instances():
        assert assert_agrees(notion, Q, p_sx, 0.0)


@pytest.mark.parametrize("notion", sorted(NOTIONS))
def test_zero_conventions(notion: str) -> None:
    certify, level, brute = NOTIONS[notion]
    p_sx = np.zeros((3, 6))
    p_sx[0, :3] = p_sx[1, 3:] = 1 / 6  # secret 2 has no mass; S determines X^1
    leaks = np.kron(np.eye(2), np.ones((3, 1)))  # Y = X^1: P(y|s) = 0 < P(y)
    assert level(leaks, p_sx) == np.inf and not certify(leaks, p_sx, 50.0).holds
    assert not brute_holds(brute(leaks, p_sx), 50.0)
    constant = np.ones((6, 1))
    assert level(constant, p_sx) == 0.0 and certify(constant, p_sx, 0.0).holds
    assert assert_agrees(notion, np.ones((6, 2)) / 2, p_sx, 0.0)


def test_one_output_mechanism_has_float_level_exactly_zero() -> None:
    """P(s) and P(s, y) are summed alike, so P(y|s) = 1 exactly, whatever |X|."""
    for a in (6, 12, 36, 100):
        for _ in range(20):
            p_sx = RNG.dirichlet(np.ones(3 * a)).reshape(3, a) * (RNG.random((3, a)) > 0.2)
            p_sx /= p_sx.sum()
            Q = np.ones((a, 1))
            assert ldp_wrt_secret_epsilon(Q, p_sx) == 0.0
            assert lip_epsilon(Q, p_sx) == 0.0
            assert srlip_epsilon(Q, p_sx, (2, a // 2)) == 0.0


# --- mechanisms from the cone LPs -----------------------------------------------------

COUNTS = np.array([[5, 15, 2, 0, 1, 7], [30, 50, 1, 2, 0, 3], [3, 3, 3, 0, 0, 0]])
JOINT = COUNTS / COUNTS.sum()


def conelp_mechanism(notion: str, p_sx: np.ndarray, eps: float) -> np.ndarray:
    if notion == "ldp-s":
        return ldp_wrt_secret_mechanism(p_sx, eps).Q
    if notion == "lip":
        return lip_mechanism(p_sx, eps).Q
    return srlip_mechanism(p_sx.reshape(-1, *SIZES), eps).Q


def joints() -> list[np.ndarray]:
    return [JOINT, np.random.default_rng(7).dirichlet(np.ones(12)).reshape(2, 6)]


@pytest.mark.parametrize("eps", [1e-8, 1e-3, 0.25, 1.0, 2.5])
@pytest.mark.parametrize("notion", sorted(NOTIONS))
def test_conelp_mechanisms_certify(notion: str, eps: float) -> None:
    """At 1e-8 the second joint made the LP infeasible (float cdd lost rays)."""
    for p_sx in joints():
        assert assert_agrees(notion, conelp_mechanism(notion, p_sx, eps), p_sx, eps)


def test_conelp_srlip_at_eps_zero_certifies() -> None:
    for p_sx in joints():
        assert assert_agrees("srlip", conelp_mechanism("srlip", p_sx, 0.0), p_sx, 0.0)


@pytest.mark.parametrize("notion", ["ldp-s", "lip"])
def test_conelp_verdicts_at_eps_zero_agree_with_brute_force(notion: str) -> None:
    for p_sx in joints():
        assert_agrees(notion, conelp_mechanism(notion, p_sx, 0.0), p_sx, 0.0)


@pytest.mark.parametrize("notion", ["ldp-s", "lip"])
def test_conelp_ldp_s_and_lip_at_eps_zero_certify(notion: str) -> None:
    p_sx = joints()[1]
    assert NOTIONS[notion][0](conelp_mechanism(notion, p_sx, 0.0), p_sx, 0.0).holds


def mixture_at_level(Q: np.ndarray, p_sx: np.ndarray, level: Callable, target: float
                     ) -> np.ndarray:
    """``(1 - t) Q + t E`` (``E`` reveals ``x mod |Y|``) with float level just above ``target``."""
    revealing = np.eye(Q.shape[1])[np.arange(Q.shape[0]) % Q.shape[1]]
    low, high = 0.0, 1.0
    assert level(Q, p_sx) < target < level(revealing, p_sx)
    for _ in range(80):
        middle = (low + high) / 2
        if level((1 - middle) * Q + middle * revealing, p_sx) > target:
            high = middle
        else:
            low = middle
    return (1 - high) * Q + high * revealing


@pytest.mark.parametrize("eps", [0.5, 1.0])
@pytest.mark.parametrize("notion", sorted(NOTIONS))
def test_violation_by_1e_12_relative_is_rejected(notion: str, eps: float) -> None:
    certify, level, brute = NOTIONS[notion]
    p_sx = joints()[1]
    Q = conelp_mechanism(notion, p_sx, eps)
    outside = mixture_at_level(Q, p_sx, level, eps + 1e-12)
    inside = mixture_at_level(Q, p_sx, level, eps - 1e-12)
    with mpmath.workdps(80):
        for mechanism, sign in ((outside, 1), (inside, -1)):
            worst = max(brute(mechanism, p_sx).values())
            excess = mpmath.mpf(worst.numerator) / worst.denominator / mpmath.exp(eps) - 1
            assert 0.5e-12 < sign * excess < 2e-12
    assert not certify(outside, p_sx, eps).holds and not brute_holds(brute(outside, p_sx), eps)
    assert certify(inside, p_sx, eps).holds and brute_holds(brute(inside, p_sx), eps)


# --- the CLI --------------------------------------------------------------------------

def write_joint(path: Path, joint: np.ndarray) -> str:
    rows = [",".join(["s", *(f"x{x}" for x in range(joint.shape[1]))])]
    rows += [",".join([f"s{i}", *map(repr, row.tolist())]) for i, row in enumerate(joint)]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


@pytest.mark.parametrize("name, eps, options", [
    ("srlip", 0.0, ["--attribute-sizes", "2", "3"]),
    ("srlip", 1.0, ["--attribute-sizes", "2", "3"]),
    ("ldp-s", 0.5, []),
    ("lip", 0.5, []),
])
def test_cli_certifies_exactly(tmp_path: Path, name: str, eps: float,
                               options: list[str]) -> None:
    counts = np.array([[5, 15, 2, 4, 1, 7], [30, 50, 1, 2, 9, 3]])
    joint, out = write_joint(tmp_path / "j.csv", counts), tmp_path / "o.json"
    argv = ["mechanism", name, "--eps", str(eps), "--joint", joint, *options, "--out", str(out)]
    assert cli.main(argv) == 0
    record = result_fields(out)
    check = record["privacy_check"]
    assert check["holds"] and check["exact"] and len(check["worst_pair"]) >= 2
    Q, p_sx = np.array(record["Q"]), counts / counts.sum()
    assert assert_agrees(name, Q, p_sx, eps)
    if eps == 0:
        assert check["level"] == 0.0
