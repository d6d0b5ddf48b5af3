"""Certificates of the chi-square programs: bounds against direct maximisation, and verify()."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rldp_models.certificates.verification import verify
from rldp_models.uncertainty.certifiable import ChiSquareCertifiable
from rldp_models.results.certificate_record import CertificateRecord
from rldp_models.data import Crosstab
from rldp_models.programs import preset
from rldp_models.results.program_result import solution_result
from rldp_models.results.record import to_record
from rldp_models.uncertainty.chi_square import chi_square_radius

count_tables = st.lists(st.integers(0, 6), min_size=4, max_size=6).filter(
    lambda c: sum(c) > 0)


@settings(max_examples=15, deadline=None)
@given(counts=count_tables, v=st.lists(st.floats(-2, 2), min_size=6, max_size=6),
       t=st.floats(-3, 3), c=st.floats(-1, 5))
def test_any_multipliers_bound_the_direct_maximum(counts, v, t, c) -> None:
    """Weak duality: Theorem 2 at any (t, c) is above max v.P found by a conic solver."""
    counts = np.array(counts)
    v = np.array(v[:counts.size])
    region = ChiSquareCertifiable(counts, chi_square_radius(int(counts.sum()), counts.size, 0.1))
    direct, _ = region.set.support_direct(v)
    assert float(region.certified_support_bound(v, {"t": t, "c": c})) >= direct - 1e-7
    best = region.set.support_multipliers(v)
    assert float(region.certified_support_bound(v, best)) == pytest.approx(direct, abs=1e-6)
    p, value = region.worst_case(v)
    assert region.set.divergence(p) <= region.radius and value <= direct + 1e-9


def _solved(counts, problem: str, eps: float) -> tuple[dict, Crosstab]:
    crosstab = Crosstab.from_array(np.array(counts))
    solution = preset(problem, crosstab, eps, 0.05).solve(solver="clarabel")
    return to_record(solution_result(solution)), crosstab


DEGENERATE = [
    ([[5, 0, 3], [2, 6, 1]], "RURP", 1.0),   # zero cell
    ([[1, 0], [0, 1]], "NURP", 0.0),          # tiny n, eps = 0
    ([[3, 1], [2, 2]], "NURP", 8.0),          # large eps
    ([[0, 0, 0], [2, 3, 1]], "RURP", 0.5),   # a secret without records
]


@pytest.mark.filterwarnings("error::RuntimeWarning")  # a user would see them on stderr
@pytest.mark.parametrize("counts, problem, eps", DEGENERATE)
def test_certificates_of_degenerate_instances_verify(counts, problem: str, eps: float) -> None:
    record, crosstab = _solved(counts, problem, eps)
    assert CertificateRecord.from_json(record["certificate"]).kind == "chi-square-conic"
    report = verify(record, crosstab)
    assert report.guarantee.holds and report.certificate.holds, report.lines()
    for found in report.certificate.data["worst_cases"]:
        assert found.attained <= found.certified + 1e-7  # a member of F never beats the bound


@settings(max_examples=2, deadline=None)
@given(counts=st.lists(st.integers(0, 9), min_size=6, max_size=6).filter(lambda c: sum(c) > 1),
       eps=st.sampled_from([0.0, 0.4, 3.0]))
def test_certificates_of_random_rurp_instances_verify(counts, eps: float) -> None:
    record, crosstab = _solved(np.reshape(counts, (2, 3)), "RURP", eps)
    assert verify(record, crosstab).holds


@pytest.fixture(scope="module")
def demo_results(request) -> tuple[dict, dict, Crosstab]:
    from rldp_models.datasets import jeffreys_instance

    crosstab = jeffreys_instance(3, 4, 60, seed=3).crosstab
    out = {}
    for problem in ("NUNP", "RURP"):
        solution = preset(problem, crosstab, 0.5, 0.05).solve(solver="clarabel")
        out[problem] = to_record(solution_result(solution))
    return out["NUNP"], out["RURP"], crosstab


def test_tampered_multipliers_are_rejected(demo_results) -> None:
    _, rurp, crosstab = demo_results
    tampered = copy.deepcopy(rurp)
    for name, values in tampered["certificate"]["multipliers"].items():
        if name.startswith("robust_privacy["):
            values["c"] = [0.0] * len(values["c"])  # the bound over the whole simplex
    report = verify(tampered, crosstab)
    assert report.guarantee.holds and not report.certificate.holds


def test_a_lowered_objective_is_rejected(demo_results) -> None:
    _, rurp, crosstab = demo_results
    tampered = copy.deepcopy(rurp)
    tampered["value"]["value"] *= 0.99
    report = verify(tampered, crosstab)
    assert report.guarantee.holds and not report.certificate.holds


def test_private_at_phat_only_is_rejected(demo_results) -> None:
    """NUNP's protocol meets eps at Phat; claimed robust, both verdicts fail."""
    nunp, rurp, crosstab = demo_results
    forged = copy.deepcopy(rurp)
    forged["matrix"]["rows"] = nunp["matrix"]["rows"]
    report = verify(forged, crosstab)
    assert not report.guarantee.holds and not report.certificate.holds


def test_attained_objective_worst_case_survives_a_failing_conic_solve(monkeypatch) -> None:
    """Where the direct conic maximisation fails (Clarabel on Adult education x native-country),
    the attained worst case comes from Theorem 2's maximiser: a member of F (divergence within
    the radius) whose value is within 1e-6 of the support function."""
    from cvxpy.error import SolverError

    from rldp_models.uncertainty import ChiSquareSet

    counts = np.array([[40, 0, 13], [7, 22, 18]])
    region = ChiSquareCertifiable(counts, 0.05)
    v = np.array([0.3, -1.0, 0.7, 0.2, 0.0, 1.1])
    solved, solved_value = region.worst_case(v)

    def fail(self, v, solver="clarabel"):
        raise SolverError("Solver 'CLARABEL' failed.")

    monkeypatch.setattr(ChiSquareSet, "support_direct", fail)
    point, value = region.worst_case(v)
    assert region.set.divergence(point.ravel()) <= region.radius
    assert abs(point.sum() - 1.0) < 1e-12 and np.all(point >= 0)
    assert value == pytest.approx(solved_value, abs=1e-6)
    assert value <= region.set.support_certificate(v).value + 1e-12
