"""The sympy derivations against direct numerical minimisation and known constants."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from scipy.optimize import minimize_scalar

from rldp_models import symbolic


@pytest.mark.parametrize("s, b", [(0.3, 0.1), (1.7, 2.0), (0.01, 0.5)])
def test_theorem2_c_elimination_matches_numeric_minimum(s: float, b: float) -> None:
    elimination = symbolic.theorem2_c_elimination()
    numeric = minimize_scalar(lambda c: -2 * np.sqrt(c) * s + c * (b + 1),
                              bounds=(0, 100), method="bounded", options={"xatol": 1e-12})
    assert elimination.value_function(s, b) == pytest.approx(numeric.fun, abs=1e-9)
    assert elimination.c_function(s, b) == pytest.approx(numeric.x, rel=1e-5)


@pytest.mark.parametrize("t, r", [(0.4, 0.3), (2.0, 1.5), (0.05, 0.9)])
def test_theorem4_c_elimination_matches_numeric_minimum(t: float, r: float) -> None:
    elimination = symbolic.theorem4_c_elimination()
    k = 2 ** (-2 / 3) + 2 ** (1 / 3)
    numeric = minimize_scalar(lambda c: -k * c ** (2 / 3) * t + c * r,
                              bounds=(0, 1e3), method="bounded", options={"xatol": 1e-12})
    assert elimination.value_function(t, r) == pytest.approx(numeric.fun, abs=1e-9)
    assert elimination.value_function(t, r) == pytest.approx(-t**3 / r**2, rel=1e-12)


def test_theorem4_constant_cubed_is_27_over_4() -> None:
    assert sp.simplify(symbolic.theorem4_constant() ** 3 - sp.Rational(27, 4)) == 0


def test_affine_conjugate_gives_lemma1_and_lemma2() -> None:
    p = sp.symbols("P0:3")
    coefficients = sp.symbols("v0:3")
    d = sp.Symbol("D")
    lemma1 = symbolic.affine_conjugate(sum(a * b for a, b in zip(p, coefficients)) - d, p)
    assert lemma1.gradient == coefficients and lemma1.value == d
    eps = sp.Symbol("eps")
    q1, q2 = sp.symbols("a0:2"), sp.symbols("b0:2")
    r1, r2 = sp.symbols("R0:2"), sp.symbols("S0:2")
    ltilde = sum(a * r for a, r in zip(q1, r1)) - sp.exp(eps) * sum(b * r for b, r in zip(q2, r2))
    lemma2 = symbolic.affine_conjugate(ltilde, (*r1, *r2))
    assert lemma2.value == 0
    assert lemma2.gradient == (*q1, *(-sp.exp(eps) * b for b in q2))


def test_affine_conjugate_rejects_nonlinear() -> None:
    a = sp.Symbol("a")
    with pytest.raises(ValueError):
        symbolic.affine_conjugate(a**2, (a,))


def test_lemma9_roots_solve_equation_41() -> None:
    lower, upper = symbolic.lemma9_bounds()
    for q, b in [(0.2, 0.1), (0.5, 1.3), (0.9, 0.02)]:
        for p in (lower(q, b), upper(q, b)):
            assert q**2 / p + (1 - q) ** 2 / (1 - p) == pytest.approx(b + 1, rel=1e-12)
        assert lower(q, b) < q < upper(q, b)


def test_lemma2_conjugate_used_by_the_builder() -> None:
    conjugate = symbolic.lemma2_conjugate(0.7)
    assert conjugate.scale1 == 1.0
    assert conjugate.scale2 == pytest.approx(-np.exp(0.7), rel=1e-15)
    assert conjugate.value == 0.0


def test_lemma1_gradient_is_the_builders_per_cell_distortion() -> None:
    """Lemma 1: the conjugate is finite at v_x = sum_y Q(y|x) d(u_x, y), the builder's v."""
    from rldp_models.data import Crosstab
    from rldp_models.programs import BuildContext, ProblemData

    crosstab = Crosstab.from_array([[2, 1, 3], [1, 4, 0]])
    d = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]])
    context = BuildContext(crosstab, ("0", "1", "2"), d,
                           ProblemData.from_phat(crosstab.phat, 0.3), parametric=False)
    q = np.random.default_rng(0).dirichlet(np.ones(3), size=6)
    context.P.value = q
    builder_v = context.expected_distortion_per_cell().value
    p = sp.symbols("P0:6")
    expected = sum(p[x] * sum(q[x, y] * d[x % 3, y] for y in range(3)) for x in range(6))
    lemma1 = symbolic.affine_conjugate(expected - sp.Symbol("D"), p)
    np.testing.assert_allclose([float(g) for g in lemma1.gradient], builder_v, rtol=1e-12)
    assert lemma1.value == sp.Symbol("D")
