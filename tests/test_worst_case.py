"""Worst-case eps over F: the bracket holds against brute-force search over F."""

from __future__ import annotations

import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.exact import exact_stochastic_rows, is_exactly_stochastic
from rldp_models.privacy.guarantees import check_nominal_privacy, check_robust_privacy
from rldp_models.privacy.metrics import epsilon_star
from rldp_models.privacy.worst_case import worst_case_epsilon
from rldp_models.programs import preset
from rldp_models.uncertainty import ChiSquareSet


def _random_members(f: ChiSquareSet, rng: np.random.Generator, count: int) -> list[np.ndarray]:
    members = []
    while len(members) < count:
        direction = rng.dirichlet(np.full(f.phat.size, 0.2)).reshape(f.phat.shape)
        p = (1 - rng.random() ** 2) * f.phat + rng.random() ** 2 * direction
        if f.contains(p / p.sum(), tol=1e-12):
            members.append(p / p.sum())
    return members


@pytest.mark.parametrize("name", ["NUNP", "NURP"])
def test_bracket_contains_every_sampled_distribution(name: str, demo_crosstab: Crosstab) -> None:
    solution = preset(name, demo_crosstab, 0.5).solve()
    f = solution.program.uncertainty
    worst = worst_case_epsilon(solution.protocol, demo_crosstab.counts, f)
    assert worst.attained <= worst.certified
    assert f.contains(worst.witness)
    assert epsilon_star(solution.protocol, worst.witness) == pytest.approx(worst.attained,
                                                                           abs=1e-9)
    rng = np.random.default_rng(0)
    sampled = max(epsilon_star(solution.protocol, p) for p in _random_members(f, rng, 400))
    assert sampled <= worst.certified + 1e-12
    assert worst.certified - worst.attained < 1e-3
    if name == "NURP":
        assert worst.certified <= 0.5
    else:
        assert worst.attained > 0.5  # nominal privacy leaks over F


def test_nominal_check_catches_a_small_violation(demo_crosstab: Crosstab) -> None:
    solution = preset("NUNP", demo_crosstab, 0.5).solve()
    assert check_nominal_privacy(solution.protocol, demo_crosstab.counts, 0.5).holds
    assert not check_nominal_privacy(solution.protocol, demo_crosstab.counts, 0.5 - 1e-6).holds


def test_robust_check_catches_nominal_only_protocols(demo_crosstab: Crosstab) -> None:
    solution = preset("NUNP", demo_crosstab, 0.5).solve()
    f = ChiSquareSet.from_counts(demo_crosstab.counts, 0.05)
    assert not check_robust_privacy(solution.protocol, demo_crosstab.counts, f, 0.5).holds


def test_exact_rows() -> None:
    rng = np.random.default_rng(3)
    raw = rng.dirichlet(np.ones(7), size=9) * (1 + 1e-9)
    exact = exact_stochastic_rows(raw)
    assert is_exactly_stochastic(exact)[0]
    assert np.abs(exact - raw / raw.sum(1, keepdims=True)).max() < 1e-14
    assert not is_exactly_stochastic(raw)[0]


def test_a_failing_inner_solver_falls_back_and_never_raises(monkeypatch):
    """CLARABEL raising (as on Adult race x education) must not escape: SCS, then no point."""
    import cvxpy as cp

    from rldp_models.privacy import worst_case
    from rldp_models.uncertainty.chi_square import ChiSquareSet

    counts = np.array([[30.0, 12, 5], [10, 25, 9]])
    protocol = np.array([[0.6, 0.4], [0.5, 0.5], [0.3, 0.7], [0.4, 0.6], [0.5, 0.5], [0.45, 0.55]])
    uncertainty = ChiSquareSet.from_counts(counts, 0.05)
    reference = worst_case.worst_case_epsilon(protocol, counts, uncertainty)
    original = cp.Problem.solve

    def clarabel_fails(self, *args, **kwargs):
        if kwargs.get("solver") == "CLARABEL":
            raise cp.error.SolverError("Solver 'CLARABEL' failed")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cp.Problem, "solve", clarabel_fails)
    fallback = worst_case.worst_case_epsilon(protocol, counts, uncertainty)
    assert fallback.certified == pytest.approx(reference.certified, abs=1e-9)
    assert reference.attained - 1e-3 <= fallback.attained <= fallback.certified  # SCS: coarser
    monkeypatch.setattr(worst_case, "INNER_SOLVERS", ("CLARABEL",))
    alone = worst_case.worst_case_epsilon(protocol, counts, uncertainty)  # no inner point at all
    assert alone.attained <= reference.certified + 1e-12 <= alone.certified + 2e-9


def test_an_unprovable_ratio_is_inconclusive_not_an_exception(monkeypatch):
    """When Theorem 4's multipliers cannot be found, the bound is inf with a note saying which."""
    from rldp_models.privacy import worst_case
    from rldp_models.uncertainty.chi_square import ChiSquareSet

    counts = np.array([[30.0, 12, 5], [10, 25, 9]])
    protocol = np.array([[0.6, 0.4], [0.5, 0.5], [0.3, 0.7], [0.4, 0.6], [0.5, 0.5], [0.45, 0.55]])

    from rldp_models.uncertainty.pair_projection import PairProjection

    def no_multipliers(*args, **kwargs):
        raise ArithmeticError("no multipliers")

    monkeypatch.setattr(PairProjection, "support_certificate", no_multipliers)
    monkeypatch.setattr(worst_case, "decoupled_ratio_bounds",
                        lambda blocks, counts, radius: np.where(
                            np.eye(2, dtype=bool)[:, :, None], np.nan, np.inf * np.ones((2, 2, 2))))
    result = worst_case.worst_case_epsilon(protocol, counts, ChiSquareSet.from_counts(counts, 0.05))
    assert result.certified == np.inf and result.attained < np.inf
    assert result.inconclusive and "could be proven" in result.inconclusive



@pytest.mark.parametrize("name", ["NUNP", "NURP"])
def test_batch_proofs_are_only_a_shortcut(name: str, demo_crosstab: Crosstab, monkeypatch) -> None:
    """Ratios are proven in batches (again each time the certified level rises); the
    bracket is the one scalar interval proofs alone give."""
    import rldp_models.privacy.worst_case as module

    solution = preset(name, demo_crosstab, 0.5).solve()
    f = solution.program.uncertainty
    worst = worst_case_epsilon(solution.protocol, demo_crosstab.counts, f)
    monkeypatch.setattr(module, "batch_bounds",
                        lambda triplets, *args: np.full(len(triplets), np.inf))
    scalar_only = worst_case_epsilon(solution.protocol, demo_crosstab.counts, f)
    assert worst.certified == pytest.approx(scalar_only.certified, rel=1e-9)
    assert worst.attained == pytest.approx(scalar_only.attained, rel=1e-9)


@pytest.mark.parametrize("float_root", [2.5, 2.5 * (1 + 1e-13), 2.4, 2.6])
def test_tight_certificate_narrowed_by_the_float_root_stays_proven(float_root: float) -> None:
    """The float root only guides the search: the answer is proven (>= the provable 2.5) and
    within the bisection's resolution, and an accurate root saves most proofs."""
    from rldp_models.privacy.worst_case import _tight_certificate

    proofs: list[float] = []

    def prove(tau: float) -> bool:
        proofs.append(tau)
        return tau >= 2.5

    found = _tight_certificate(prove, 2.0, 3.0, lambda tau: float_root - tau)
    assert 2.5 <= found <= 2.5 * (1 + 1e-11)
    if float_root in (2.5, 2.5 * (1 + 1e-13)):
        assert len(proofs) < 10
    proofs.clear()
    assert _tight_certificate(prove, 2.0, 3.0) == pytest.approx(found, rel=1e-11)
    assert len(proofs) > 30
