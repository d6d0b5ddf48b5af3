"""Optimality gaps over sets other than chi-square: the product-of-projections model.

Robust privacy over KL, l1/TV, box, polyhedral and power-divergence sets is
the product of single-secret projections (a sufficient condition); the gap
proved is that model's, and the verdict says so. The independent side is
another solver: its finished protocol is feasible for the same model, so its
certified objective can never be below a true lower bound. Tampered bounds,
members and witnesses must be rejected.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from rldp_models.optimality import lagrangian
from rldp_models.optimality.best_claim import solution_optimality
from rldp_models.optimality.lagrangian_dual import conic_instance
from rldp_models.optimality.set_members import exact_distribution, proved_member
from rldp_models.certificates.verification import verify
from rldp_models.data import Crosstab
from rldp_models.datasets import jeffreys_instance
from rldp_models.programs import preset
from rldp_models.results.program_result import solution_result
from rldp_models.uncertainty.named import named_set
from rldp_models.uncertainty.polyhedral import PolyhedralSet
from rldp_models.results.record import to_record

EPS, ALPHA, N = 0.5, 0.05, 15_000


def crosstab(seed: int = 1):
    return jeffreys_instance(3, 5, N, seed).crosstab


def region(name: str, seed: int = 1):
    table = crosstab(seed)
    if name == "polyhedral":  # a box with one extra cut: a polyhedron of no named family
        box = named_set("box", table, ALPHA)
        assert isinstance(box, PolyhedralSet)
        flat = box.phat.ravel()
        cut = np.zeros(flat.size)
        cut[:3] = 1.0
        return PolyhedralSet(box.phat, np.vstack([box.a_matrix, cut]),
                             np.concatenate([box.b_vector, [flat[:3].sum() + 0.005]]))
    if name == "power":
        return named_set("power", table, ALPHA, lam=2 / 3)
    return named_set(name, table, ALPHA)


def solve(problem: str, name: str, solver: str, seed: int = 1):
    return preset(problem, crosstab(seed), EPS, ALPHA, uncertainty=region(name, seed)).solve(
        solver=solver)


def certified_upper(solution) -> float:
    bound = lagrangian.upper_bound(conic_instance(solution.program), solution.protocol,
                            solution.multipliers)
    assert bound.proved, bound.problems
    return float(bound.value.upper())


@pytest.mark.parametrize("name, other", [("tv", "highs"), ("box", "highs"),
                                         pytest.param("polyhedral", "highs",
                                                      marks=pytest.mark.slow),
                                         ("kl", "ecos"),
                                         pytest.param("power", "scs", marks=pytest.mark.slow)])
def test_product_model_gap_is_proved_and_below_another_solvers_protocol(name: str,
                                                                        other: str) -> None:
    solution = solve("RURP", name, "clarabel")
    claim = solution_optimality(solution)
    assert claim["claimed"], claim
    assert "product of single-secret projections" in claim["model"]
    assert claim["lower"] <= claim["upper"]
    assert claim["relative_gap"] < 1e-4
    assert claim["lower"] <= certified_upper(solve("RURP", name, other))


def test_power_divergence_gap_is_proved() -> None:
    """(Beside another solver only in the slow run: ecos has no power cones, scs takes 17 s.)"""
    claim = solution_optimality(solve("RURP", "power", "clarabel"))
    assert claim["claimed"] and claim["model"].startswith("power set; robust privacy over the "
                                                          "product")
    assert claim["relative_gap"] < 1e-4


def test_robust_objective_with_nominal_privacy_is_the_set_model() -> None:
    claim = solution_optimality(solve("RUNP", "kl", "clarabel"))
    assert claim["claimed"] and claim["model"] == "kl set; robust objective, nominal privacy"
    assert claim["relative_gap"] < 1e-4


@pytest.mark.parametrize("name", ["tv", "kl"])
def test_a_secret_without_records_and_empty_cells(name: str) -> None:
    """C_s of a secret without records has witnesses only where the set moves mass onto its
    row; terms without one are left out, and the claim is still proved (KL: cells without
    records are reached by the set's own worst case, not the closed form)."""
    table = Crosstab.from_array(np.array([[300, 200, 0, 100], [0, 0, 0, 0], [50, 400, 120, 30]]))
    for problem in ("RURP", "RUNP"):
        solution = preset(problem, table, 1.0, ALPHA, uncertainty=named_set(name, table, ALPHA)
                          ).solve(solver="clarabel")
        claim = solution_optimality(solution)
        assert claim["claimed"], claim
        assert claim["relative_gap"] < 1e-3


def test_membership_proofs_accept_the_centre_and_reject_outside_points() -> None:
    for name in ("tv", "box", "polyhedral", "kl", "power"):
        uncertainty = region(name)
        centre = np.asarray(uncertainty.phat, dtype=float).ravel()
        far = np.zeros_like(centre)
        far[int(np.argmin(centre))] = 1.0  # a vertex of the simplex, far from Phat
        inside, outside = exact_distribution(centre), exact_distribution(far)
        assert inside is not None and outside is not None
        assert proved_member(uncertainty, inside), name
        assert not proved_member(uncertainty, outside), name


# ---------------------------------------------------------------------- verify
@pytest.fixture(scope="module")
def record() -> tuple[dict, object]:
    solution = solve("RURP", "tv", "clarabel")
    return to_record(solution_result(solution)), solution.program.crosstab


def gap_lines(report) -> str:
    return "\n".join(report.certificate.details)


def test_verify_names_the_product_model(record) -> None:
    report = verify(*record)
    assert report.certificate.holds
    assert "for the product-of-projections model: proved" in gap_lines(report)


@pytest.mark.parametrize("tamper", ["lower", "pool", "witness", "model", "weight"])
def test_verify_rejects_a_tampered_product_claim(record, tamper: str) -> None:
    stored, table = record
    changed = copy.deepcopy(stored)
    claim = changed["certificate"]["optimality"]
    if tamper == "lower":
        claim["lower"] = claim["lower"] * (1 + 1e-6)
    elif tamper == "pool":  # a witness moved to a vertex of the simplex: not in the set
        vertex = [0.0] * len(claim["dual"]["pool"][0])
        vertex[0] = 1.0
        claim["dual"]["pool"][0] = vertex
    elif tamper == "witness":
        claim["dual"]["witnesses"][0][0] = len(claim["dual"]["pool"]) + 3
    elif tamper == "model":
        claim["model"] = lagrangian.MODEL
    else:
        claim["dual"]["weights"][0] *= 2.0
    report = verify(changed, table)
    assert not report.certificate.holds
    assert "optimality: NOT proved" in gap_lines(report)
