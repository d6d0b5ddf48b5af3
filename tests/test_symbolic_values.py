"""The closed forms the solve path uses (symbolic_values) are what sympy derives (symbolic)."""

import numpy as np
import pytest
import sympy as sp

from rldp_models import symbolic, symbolic_values


def test_theorem4_constant_is_the_derived_constant_rounded():
    k = symbolic.theorem4_constant()
    assert symbolic_values.THEOREM4_CONSTANT == float(k)
    # and it is the double nearest K: K lies within half an ulp of it (60 digits)
    gap = abs(sp.N(k - sp.Rational(symbolic_values.THEOREM4_CONSTANT), 60))
    assert gap <= np.spacing(symbolic_values.THEOREM4_CONSTANT) / 2


@pytest.mark.parametrize("eps", [0.0, 0.1, 0.5, 1.0, np.log(3.0), 2.5, 7.0])
def test_lemma2_conjugate_matches_the_derivation(eps):
    derived = symbolic.lemma2_conjugate(float(eps))
    written = symbolic_values.lemma2_conjugate(float(eps))
    assert (written.scale1, written.value) == (derived.scale1, derived.value) == (1.0, 0.0)
    # both are e^eps rounded to a double, by different routines: within one ulp
    assert abs(written.scale2 - derived.scale2) <= np.spacing(abs(derived.scale2))
    assert isinstance(written, symbolic.BlockConjugate)


def test_lemma2_scale_formula_is_the_derived_one():
    q1, q2, r1, r2, e = sp.symbols("q1 q2 R1 R2 eps", real=True)
    conjugate = symbolic.affine_conjugate(q1 * r1 - sp.exp(e) * q2 * r2, (r1, r2))
    assert sp.simplify(conjugate.gradient[0] / q1 - 1) == 0
    assert sp.simplify(conjugate.gradient[1] / q2 + sp.exp(e)) == 0
    assert conjugate.value == 0


@pytest.mark.parametrize("s, b", [(0.3, 0.01), (1.0, 0.5), (2.7, 3.0), (1e-4, 1e-6)])
def test_theorem2_elimination_matches_the_derivation(s, b):
    elimination = symbolic.theorem2_c_elimination()
    assert symbolic_values.theorem2_value(s, b) == float(elimination.value_function(s, b))
    assert symbolic_values.theorem2_c(s, b) == float(elimination.c_function(s, b))
    # and the minimiser attains the minimum of -2 sqrt(c) S + c (B + 1)
    c = symbolic_values.theorem2_c(s, b)
    assert -2 * np.sqrt(c) * s + c * (b + 1) == pytest.approx(symbolic_values.theorem2_value(s, b))
