"""Robust protocol programs over the box, total-variation and KL sets.

Checked independently of the certificates: distributions sampled from the set
must meet the privacy constraint at the returned protocol and cannot exceed
its worst-case distortion; the worst-case distortion equals the direct
maximisation over the set; objectives follow the inclusions of the programs'
feasible sets and grow with the radius.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rldp_models.data import Crosstab
from rldp_models.programs import preset
from rldp_models.uncertainty import BoxSet, KLBallSet, PolyhedralSet, TotalVariationSet

KINDS = ("box", "tv", "kl")
COUNTS = np.array([[9, 5, 1], [3, 8, 6], [0, 4, 11]])


def make_set(kind: str, crosstab: Crosstab, radius: float):
    phat = crosstab.phat
    return {"box": lambda: BoxSet.around(phat, radius),
            "tv": lambda: TotalVariationSet(phat, radius),
            "kl": lambda: KLBallSet(phat, radius)}[kind]()


def sampled(f, rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Points of the set: maximisers of random directions mixed with ``Phat``."""
    points = []
    for _ in range(count):
        point, _ = f.worst_case(rng.normal(size=f.phat.size))
        theta = rng.uniform()
        points.append((theta * point + (1 - theta) * f.phat).reshape(f.phat.shape))
    return points


@pytest.fixture(scope="module")
def crosstab() -> Crosstab:
    return Crosstab.from_array(COUNTS)


@pytest.mark.parametrize("kind", KINDS)
def test_rurp_meets_its_guarantee_at_sampled_distributions(kind: str, crosstab) -> None:
    eps = 0.7
    f = make_set(kind, crosstab, 0.1)
    solution = preset("RURP", crosstab, eps, uncertainty=f).solve()
    assert solution.guarantee_holds
    protocol = solution.protocol.reshape(3, 3, -1)
    d = solution.program.distortion_matrix
    per_cell = np.einsum("suy,uy->su", protocol, d).ravel()
    worst_point, worst_value = f.worst_case(per_cell)
    assert solution.objective == pytest.approx(worst_value, abs=1e-6)
    for p in sampled(f, np.random.default_rng(1), 25):
        assert float(per_cell @ p.ravel()) <= solution.objective + 1e-9
        conditional = np.einsum("su,suy->sy", p / p.sum(axis=1, keepdims=True), protocol)
        for s1 in range(3):
            for s2 in range(3):
                assert np.all(conditional[s1] <= np.exp(eps) * conditional[s2] + 1e-9)


@pytest.mark.parametrize("kind", KINDS)
def test_objectives_follow_the_inclusions_and_grow_with_the_radius(kind: str, crosstab) -> None:
    eps, slack = 0.5, 1e-6
    previous = {"RUNP": -np.inf, "RURP": -np.inf}
    nunp = preset("NUNP", crosstab, eps).solve().objective
    for radius in (0.02, 0.1, 0.3):
        f = make_set(kind, crosstab, radius)
        value = {name: preset(name, crosstab, eps, uncertainty=f).solve().objective
                 for name in ("RUNP", "NURP", "RURP")}
        assert nunp <= value["NURP"] + slack and nunp <= value["RUNP"] + slack
        assert value["NURP"] <= value["RURP"] + slack and value["RUNP"] <= value["RURP"] + slack
        for name in previous:
            assert value[name] >= previous[name] - slack, (name, radius)
            previous[name] = value[name]


@pytest.mark.parametrize("eps", [0.0, 6.0])
def test_extreme_privacy_levels(eps: float, crosstab) -> None:
    f = KLBallSet.from_counts(crosstab.counts, 0.05)
    solution = preset("RURP", crosstab, eps, uncertainty=f).solve()
    assert solution.guarantee_holds
    runp = preset("RUNP", crosstab, eps, uncertainty=f).solve()
    assert runp.objective <= solution.objective + 1e-6
    if eps == 0.0:  # the output cannot depend on the input at all
        assert np.allclose(solution.protocol, solution.protocol[0], atol=1e-7)


def test_a_secret_without_records(zero_row_crosstab: Crosstab) -> None:
    f = TotalVariationSet(zero_row_crosstab.phat, 0.1)
    solution = preset("RURP", zero_row_crosstab, 1.0, uncertainty=f).solve()
    assert solution.guarantee_holds


@st.composite
def small_problems(draw: st.DrawFn) -> tuple[Crosstab, float, str, float]:
    """Random 2x3 tables (zero cells, tiny n), extreme eps, a set kind and a radius."""
    counts = np.array(draw(st.lists(st.integers(0, 4), min_size=6, max_size=6))).reshape(2, 3)
    if counts.sum() == 0:
        counts[0, 0] = 1
    eps = draw(st.sampled_from([0.0, 0.4, 8.0]))
    return (Crosstab.from_array(counts), eps, draw(st.sampled_from(KINDS)),
            draw(st.sampled_from([0.01, 0.1, 0.5])))


def assert_objective_grows(problem: str, case) -> None:
    crosstab, eps, kind, radius = case
    small, large = (preset(problem, crosstab, eps, uncertainty=make_set(kind, crosstab, r))
                    .solve() for r in (radius, 2 * radius))
    assert small.guarantee_holds and large.guarantee_holds
    assert small.objective <= large.objective + 1e-6


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=small_problems())
def test_robust_utility_grows_with_the_radius_on_random_instances(case) -> None:
    assert_objective_grows("RUNP", case)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=small_problems())
def test_rurp_grows_with_the_radius_on_random_instances(case) -> None:
    assert_objective_grows("RURP", case)


def test_a_general_polyhedron_gives_the_program_of_its_box(crosstab) -> None:
    """The generic LP path (dual LP support, linprog certificates) against the box's closed form."""
    box = BoxSet.around(crosstab.phat, 0.05)
    polyhedron = PolyhedralSet(crosstab.phat, box.a_matrix, box.b_vector, 0.05)
    as_box = preset("RURP", crosstab, 0.5, uncertainty=box).solve()
    general = preset("RURP", crosstab, 0.5, uncertainty=polyhedron).solve()
    assert general.guarantee_holds
    assert general.objective == pytest.approx(as_box.objective, abs=1e-6)
