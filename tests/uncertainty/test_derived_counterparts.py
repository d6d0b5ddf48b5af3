"""Derived counterparts (conic duality of a set's membership) against closed forms and the primal.

Three computations that share no code: the set's own closed form (``support``),
the dual derived from its cvxpy membership by :mod:`rldp_models.uncertainty.derived`,
and the primal maximisation of ``v.P`` over that membership. Random instances
with zero cells (a cell and a whole secret without records).
"""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import pytest

from rldp_models.uncertainty import (
    ChiSquareSet,
    KLBallSet,
)
from rldp_models.uncertainty.derived import (
    DerivedSet,
    conic_description,
    derived_support,
    direct_worst_case,
)
from rldp_models.uncertainty.power_divergence import PowerDivergenceSet
from tests.uncertainty.derived_cases import LAMBDAS, random_phat, sets

TOLERANCE = 2e-6


def label(uncertainty) -> str:
    return f"{uncertainty.name}{getattr(uncertainty, 'lam', '')}"


@pytest.mark.parametrize("seed", [0, 1])
def test_derived_equals_closed_form_equals_direct_maximisation(seed: int) -> None:
    phat = random_phat(seed)
    rng = np.random.default_rng(100 + seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for uncertainty in sets(phat):
            description = conic_description(uncertainty)
            for _ in range(2):
                v = rng.normal(size=phat.size)
                closed = uncertainty.support(v)
                derived = derived_support(description, v)
                _, direct = direct_worst_case(uncertainty, v)
                assert derived == pytest.approx(closed, abs=TOLERANCE), label(uncertainty)
                assert direct == pytest.approx(closed, abs=TOLERANCE), label(uncertainty)


@pytest.mark.parametrize("lam", (*LAMBDAS, -1.5, -3.0))
def test_power_counterpart_and_certified_bound_bracket_the_worst_case(lam: float) -> None:
    phat = random_phat(1)
    uncertainty = PowerDivergenceSet(phat, 0.12, lam)
    rng = np.random.default_rng(7)
    for trial in range(4):
        v = rng.normal(size=phat.size)
        if trial == 3:  # v at its maximum on counted cells only: the multiplier mu may equal it
            v[phat.ravel() == 0] = v.min()
        bound = float(uncertainty.certified_support_bound(v, uncertainty.support_multipliers(v)))
        point, attained = uncertainty.worst_case(v)
        assert uncertainty.contains(point)  # proved membership (interval arithmetic)
        assert attained <= bound  # never above the certified bound
        assert bound - attained < 1e-6  # and tight
        rhs = cp.Variable()
        cone = uncertainty.support_at_most(v, rhs)
        problem = cp.Problem(cp.Minimize(rhs), cone.constraints)
        problem.solve(solver="CLARABEL")
        assert problem.value == pytest.approx(bound, abs=1e-6)


def test_power_family_limits_are_chi_square_and_kl() -> None:
    phat = random_phat(1)
    rng = np.random.default_rng(3)
    for _ in range(4):
        v = rng.normal(size=phat.size)
        assert PowerDivergenceSet(phat, 0.1, 1.0).support(v) == \
            pytest.approx(ChiSquareSet(phat, 0.2).support(v), abs=1e-9)
        assert PowerDivergenceSet(phat, 0.1, 0.0).support(v) == \
            pytest.approx(KLBallSet(phat, 0.1).support(v), abs=1e-9)


def test_derived_set_counterpart_in_a_program_matches_the_closed_form() -> None:
    from rldp_models.data import Crosstab
    from rldp_models.programs import preset

    counts = np.array([[5, 9, 0, 3], [7, 2, 6, 11], [4, 4, 8, 1]])
    crosstab = Crosstab.from_array(counts)
    kl = KLBallSet.from_counts(counts, 0.05)
    own = preset("RURP", crosstab, 1.0, uncertainty=kl).solve()
    derived = preset("RURP", crosstab, 1.0, uncertainty=DerivedSet(kl)).solve()
    assert derived.objective == pytest.approx(own.objective, rel=1e-5)
