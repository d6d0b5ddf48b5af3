"""IR, GRR-CR, UE-CR, SRR, GRR: matrices, utility theorems, searches and RLDP by the checker.

Independent grounding: the utility theorems (16, 18, 20) are evaluated from
the laws of S, U and R^1(S) without the protocol matrix and compared with
``I_Phat(X;Y)`` of the matrix; UE-CR's matrix is compared with a Monte Carlo
run of Protocol 3 written out step by step here; SRR and GRR are checked by
the exact Proposition-4 / LDP checks of :mod:`rldp_models.privacy.matrix_checks`;
the searches are compared with a dense grid of the theorem formulas.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.datasets import jeffreys_instance
from rldp_models.mechanisms import UnaryEncoding
from rldp_models.privacy.matrix_checks import certify_ldp
from rldp_models.rldp_protocols import (grr_conditional, grr_cr_protocol, grr_protocol,
                                        independent_reporting, ir_protocol, is_rldp,
                                        rldp_epsilon, srr_protocol, ue_conditional,
                                        ue_cr_protocol)
from rldp_models.rldp_protocols.components import (chi_square_set, conditional_radii,
                                                   theorem17_levels)
from rldp_models.rldp_protocols.rr_protocols import grr_cr_matrix, grr_cr_utility
from rldp_models.rldp_protocols.rr_protocols import (ir_matrix, ir_utility,
                                                              theorem15_level,
                                                              theorem15_spread)
from rldp_models.rldp_protocols.ue_conditional import (lambda_floor, ue_cr_matrix,
                                                       ue_cr_utility)
from rldp_models.utility import MutualInformation

ALPHA = 0.05
ZERO_ROW = Crosstab.from_array([[40, 0, 25], [0, 0, 0], [10, 60, 5]], ["a", "b", "c"],
                               ["x", "y", "z"])
SMALL = Crosstab.from_array([[30, 5, 12], [4, 25, 9]], ["s0", "s1"], ["u0", "u1", "u2"])
CROSSTABS = {"jeffreys": jeffreys_instance(3, 3, 1000, 3).crosstab, "zero-row": ZERO_ROW,
             "small": SMALL}
BUILDERS = {"ir": independent_reporting, "grr-cr": grr_conditional, "ue-cr": ue_conditional,
            "srr": srr_protocol, "grr": grr_protocol}


def mutual_information(crosstab: Crosstab, Q: np.ndarray) -> float:
    return MutualInformation(crosstab.phat.ravel()).total(Q)


@pytest.mark.parametrize("name", CROSSTABS)
@pytest.mark.parametrize("eps1, eps2", [(0.0, 0.7), (0.4, 0.0), (1.3, 0.6), (3.0, 2.5)])
def test_ir_and_grr_cr_matrix_utility_equals_theorems_16_and_18(name, eps1, eps2):
    crosstab = CROSSTABS[name]
    phat = crosstab.phat
    delta2 = theorem15_level(eps2, theorem15_spread(crosstab, ALPHA))
    assert mutual_information(crosstab, ir_matrix(eps1, delta2, *crosstab.shape)) == \
        pytest.approx(ir_utility(phat, eps1, delta2), rel=1e-10, abs=1e-13)
    levels = theorem17_levels(eps2, conditional_radii(chi_square_set(crosstab, ALPHA)))
    assert mutual_information(crosstab, grr_cr_matrix(phat, eps1, levels)) == \
        pytest.approx(grr_cr_utility(phat, eps1, levels), rel=1e-10, abs=1e-13)


@pytest.mark.parametrize("name", CROSSTABS)
@pytest.mark.parametrize("eps1, eps2, kappa, position",
                         [(0.5, 0.5, 1.0, 0.0), (1.0, 0.3, 0.6, 0.0), (2.0, 1.0, 0.8, 0.5),
                          (0.7, 0.0, 0.3, 1.0)])
def test_ue_cr_matrix_utility_equals_theorem_20(name, eps1, eps2, kappa, position):
    crosstab = CROSSTABS[name]
    phat = crosstab.phat
    floor = float(lambda_floor(kappa, eps1))
    lam = min(kappa, floor + position * (kappa - floor))
    levels = theorem17_levels(eps2, conditional_radii(chi_square_set(crosstab, ALPHA)))
    encoding = UnaryEncoding(kappa, lam, crosstab.shape[0], eps1).matrix()
    Q, _ = ue_cr_matrix(phat, encoding, levels)
    assert np.allclose(Q.sum(axis=1), 1.0, atol=1e-12)
    assert mutual_information(crosstab, Q) == pytest.approx(
        ue_cr_utility(phat, kappa, lam, levels), rel=1e-9, abs=1e-12)


def test_ue_cr_matrix_matches_a_simulation_of_protocol_3():
    """Protocol 3 run step by step (dummy U~ ~ Phat_{U|t} for t != s), 100k draws per input."""
    crosstab = SMALL
    kappa, lam = 0.7, 0.35
    result = ue_cr_protocol(crosstab, ALPHA, eps1=1.5, eps2=0.6, kappa=kappa, lam=lam)
    n_s, n_u = crosstab.shape
    column_of = {_code(int(bits, 2), {crosstab.s_labels.index(t): crosstab.u_labels.index(v)
                                      for t, v in reports}, n_s, n_u): y
                 for y, (bits, reports) in enumerate(result.labels["Y"])}
    rng = np.random.default_rng(7)
    phat, levels, draws = crosstab.phat, result.parameters["delta"], 100_000
    for s, u in itertools.product(range(n_s), range(n_u)):
        bits = rng.random((draws, n_s)) < np.where(np.arange(n_s) == s, kappa, lam)
        reports = np.empty((draws, n_s), dtype=int)
        for t in range(n_s):
            source = np.full(draws, u) if t == s else \
                rng.choice(n_u, draws, p=phat[t] / phat[t].sum())
            keep = rng.random(draws) < np.exp(levels[t]) / (np.exp(levels[t]) + n_u - 1)
            reports[:, t] = np.where(keep, source, (source + rng.integers(1, n_u, draws)) % n_u)
        pattern = bits.astype(int) @ (2 ** np.arange(n_s - 1, -1, -1))
        codes = pattern * (n_u + 1) ** n_s + (np.where(bits, reports + 1, 0)
                                              @ (n_u + 1) ** np.arange(n_s))
        counts = np.zeros(result.Q.shape[1])
        for code, count in zip(*np.unique(codes, return_counts=True)):
            counts[column_of[int(code)]] += count
        expected = result.Q[s * n_u + u]
        assert np.abs(counts / draws - expected).max() < 5 * np.sqrt(expected.max() / draws)


def _code(pattern: int, reports: dict[int, int], n_s: int, n_u: int) -> int:
    """One integer per output: the UE pattern, then report + 1 (0 = absent) per secret."""
    return pattern * (n_u + 1) ** n_s + sum((v + 1) * (n_u + 1) ** t for t, v in reports.items())


@pytest.mark.parametrize("name", CROSSTABS)
@pytest.mark.parametrize("builder", ["ir", "grr-cr", "ue-cr"])
@pytest.mark.parametrize("eps", [0.5, 3.0])
def test_searched_protocols_report_their_theorem_and_beat_a_grid(name, builder, eps):
    crosstab = CROSSTABS[name]
    result = BUILDERS[builder](crosstab, eps, ALPHA)
    assert result.eps == pytest.approx(eps, abs=1e-12)
    assert np.allclose(result.Q.sum(axis=1), 1.0, atol=1e-12)
    assert result.utility_hat == pytest.approx(mutual_information(crosstab, result.Q), rel=1e-12)
    # the uniform mix (privacy margin, weight <= 1e-6) moves the utility by O(weight)
    assert abs(result.utility_hat - result.utility_theorem) <= \
        10 * result.parameters["uniform_mix"] + 1e-12
    assert result.utility_theorem >= max(_grid_utilities(crosstab, builder, eps)) - 1e-9


def _grid_utilities(crosstab: Crosstab, builder: str, eps: float) -> list[float]:
    phat = crosstab.phat
    radii = conditional_radii(chi_square_set(crosstab, ALPHA))
    if builder == "ir":
        spread = theorem15_spread(crosstab, ALPHA)
        return [ir_utility(phat, eps - e2, theorem15_level(e2, spread))
                for e2 in np.linspace(0, eps, 301)]
    if builder == "grr-cr":
        return [grr_cr_utility(phat, eps - e2, theorem17_levels(e2, radii))
                for e2 in np.linspace(0, eps, 301)]
    values = []
    for e2, kappa, position in itertools.product(np.linspace(0, eps / 2, 13),
                                                 np.linspace(0, 1, 13), np.linspace(0, 1, 5)):
        floor = float(lambda_floor(kappa, eps - e2))
        lam = min(kappa, floor + position * (kappa - floor))
        values.append(ue_cr_utility(phat, kappa, lam, theorem17_levels(e2, radii)))
    return values


@pytest.mark.parametrize("eps", [0.3, 2.0, 6.0])
def test_srr_is_rldp_over_all_distributions_by_proposition_4(eps):
    crosstab = CROSSTABS["jeffreys"]
    result = srr_protocol(crosstab, eps, ALPHA)
    secrets = np.repeat(np.arange(3), 3)
    assert certify_ldp(result.Q, eps, groups=secrets).holds
    assert not certify_ldp(result.Q, eps * (1 - 1e-6), groups=secrets).holds
    assert certify_ldp(grr_protocol(crosstab, eps, ALPHA).Q, eps).holds


@pytest.mark.parametrize("name, builder, eps",
                         [("small", builder, 2.5) for builder in BUILDERS]
                         + [("small", "ue-cr", 0.5), ("zero-row", "ir", 0.5),
                            ("zero-row", "grr-cr", 0.5)])
def test_every_protocol_is_rldp_by_the_checker(name, builder, eps):
    crosstab = CROSSTABS[name]
    result = BUILDERS[builder](crosstab, eps, ALPHA)
    level = rldp_epsilon(result.Q, crosstab, ALPHA)
    assert level.attained <= level.certified <= eps
    assert is_rldp(result.Q, crosstab, ALPHA, eps)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["jeffreys", "zero-row", "small"])
@pytest.mark.parametrize("builder", list(BUILDERS))
@pytest.mark.parametrize("eps", [0.5, 5.0])
def test_every_protocol_is_rldp_by_the_checker_full(name, builder, eps):
    crosstab = CROSSTABS[name]
    assert is_rldp(BUILDERS[builder](crosstab, eps, ALPHA).Q, crosstab, ALPHA, eps)


def test_tight_parameters_stay_rldp_thanks_to_the_margin():
    """eps_2 = 0: the ratio is e^eps for every P; the uniform mix keeps it provably <= eps."""
    crosstab = CROSSTABS["small"]
    for build in (ir_protocol, grr_cr_protocol):
        result = build(crosstab, ALPHA, 1.0, 0.0)
        level = rldp_epsilon(result.Q, crosstab, ALPHA)
        assert 1.0 - 1e-6 < level.attained <= level.certified <= 1.0
