"""The derived dual's certified bound against an independent primal maximisation.

The bound (:mod:`rldp_models.uncertainty.derived_certificate`) is proved from
the derived dual's multipliers alone; the reference is the maximum of ``v.P``
over the set's own membership constraints (a separate cvxpy solve,
:func:`direct_worst_case`) and, where the set proves it, the exact value at a
member of the set near that maximiser. Random 3x4 tables with a cell and (odd
seeds) a whole secret without records.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import cvxpy as cp
import numpy as np
import pytest

from rldp_models.uncertainty.derived import (
    DerivedSet,
    conic_description,
    derived_support_at_most,
    direct_worst_case,
)
from rldp_models.uncertainty.derived_certificate import (
    derived_certified_bound,
    interior_direction,
)
from tests.uncertainty.derived_cases import random_phat, sets

SOME_LAMBDAS = (-0.5, 0.0, 2.0)
"""The power divergences these (slower) certificate tests cover."""

PRIMAL_TOLERANCE = 1e-9
"""How far the primal solver's maximiser may overshoot the set (its feasibility tolerance)."""


CASES = [(seed, index) for seed in (0, 1, 2, 3) for index in range(7)]


def label(case: tuple[int, int]) -> str:
    seed, index = case
    uncertainty = sets(random_phat(seed), SOME_LAMBDAS)[index]
    return f"seed{seed}-{uncertainty.name}{getattr(uncertainty, 'lam', '')}"


def solver_multipliers(uncertainty, v: np.ndarray) -> np.ndarray:
    """The derived dual solved (clarabel, defaults): the floats a program would store as ``y``."""
    description = conic_description(uncertainty)
    bound = cp.Variable()
    cone = derived_support_at_most(description, cp.Constant(v), bound)
    cp.Problem(cp.Minimize(bound), cone.constraints).solve(solver="CLARABEL")
    return np.asarray(cone.multipliers["y"].value, dtype=float).ravel()


def proved_member_value(uncertainty, p: np.ndarray, v: np.ndarray) -> Fraction | None:
    """``v.q`` exactly at ``q`` = the maximiser nudged towards Phat, if the set proves ``q``."""
    q = np.clip(p, 0.0, None)
    q = 0.999999 * q / q.sum() + 1e-6 * uncertainty.phat.ravel()
    q = q / q.sum()
    if not uncertainty.contains(q, tol=0.0) or q.sum() != 1.0:
        return None
    return sum((Fraction(float(a)) * Fraction(float(b)) for a, b in zip(v, q)), Fraction(0))


@pytest.fixture(scope="module", params=CASES, ids=label)
def instance(request):
    seed, index = request.param
    uncertainty = sets(random_phat(seed), SOME_LAMBDAS)[index]
    v = np.random.default_rng(seed + 10).normal(size=uncertainty.phat.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        maximiser, maximum = direct_worst_case(uncertainty, v)
    description = conic_description(uncertainty)
    return (uncertainty, v, maximiser, maximum, description, interior_direction(description),
            solver_multipliers(uncertainty, v))


def test_certified_bound_is_above_the_primal_maximum_and_tight(instance) -> None:
    uncertainty, v, maximiser, maximum, description, direction, y = instance
    bound = float(derived_certified_bound(description, v, y, direction))
    assert bound >= maximum - PRIMAL_TOLERANCE
    assert bound - maximum <= 1e-6
    member = proved_member_value(uncertainty, maximiser, v)
    if member is not None:
        assert Fraction(bound) >= member


def test_derived_set_uses_the_derived_certificate(instance) -> None:
    uncertainty, v, _, maximum, description, direction, y = instance
    derived = DerivedSet(uncertainty)
    bound = float(derived.certified_support_bound(v, {"y": y.reshape(-1, 1)}))
    assert bound == float(derived_certified_bound(description, v, y, direction))
    assert maximum - PRIMAL_TOLERANCE <= bound <= maximum + 1e-6


@pytest.mark.parametrize("tamper", ["scaled", "flipped", "noisy", "other-v", "zero", "wrong-size"])
def test_tampered_multipliers_give_a_valid_bound(instance, tamper: str) -> None:
    uncertainty, v, _, maximum, description, direction, y = instance
    rng = np.random.default_rng(7)
    if tamper == "scaled":
        y = 1.5 * y
    elif tamper == "flipped":
        y = y.copy()
        y[int(np.argmax(np.abs(y)))] *= -1
    elif tamper == "noisy":
        y = y + 1e-3 * rng.normal(size=y.size)
    elif tamper == "other-v":
        y = solver_multipliers(uncertainty, rng.normal(size=v.size))
    elif tamper == "zero":
        y = np.zeros_like(y)
    else:
        y = y[:-1]
    bound = float(derived_certified_bound(description, v, y, direction))
    assert bound >= maximum - PRIMAL_TOLERANCE
    assert bound <= float(np.max(v)) + 1e-15  # never worse than the simplex bound


def test_derived_set_multipliers_certify_its_support(instance) -> None:
    """``DerivedSet.support_multipliers`` (what a record stores) certifies within 1e-6 of the
    primal maximum; measured: <= 4e-7 for chi2 (clarabel stalls on cvxpy's chi2 form), <= 2e-9
    for the others."""
    uncertainty, v, _, maximum, _, _, _ = instance
    derived = DerivedSet(uncertainty)
    bound = float(derived.certified_support_bound(v, derived.support_multipliers(v)))
    assert maximum - PRIMAL_TOLERANCE <= bound <= maximum + 1e-6


def test_a_bad_direction_is_not_trusted(instance) -> None:
    _, v, _, maximum, description, _, y = instance
    direction = -np.ones(description.a_matrix.shape[0])
    bound = float(derived_certified_bound(description, v, y, direction))
    assert bound >= maximum - PRIMAL_TOLERANCE
