"""IR, GRR-CR and UE-CR in product form against their dense matrices.

Independent grounding: the dense side is the existing dense code
(``ir_matrix``, ``grr_cr_matrix``, ``ue_cr_matrix``) at the product's own
lowered parameters, its RLDP level the dense checker (Dinkelbach + Theorem 4
over Theorem 3's coupled pair sets), its utility the definition of mutual
information (``polyopt_brute_force.mutual_information``), and its sampling
law the dense rows (chi-square goodness of fit).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import chisquare

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.mechanisms import UnaryEncoding, index_to_bits
from rldp_models.rldp_protocols import rldp_epsilon
from rldp_models.rldp_protocols.components import chi_square_set, conditional_radii, \
    theorem17_levels
from rldp_models.rldp_protocols.rr_protocols import grr_cr_matrix, ir_matrix
from rldp_models.rldp_protocols.factored_builders import grr_cr_factored, ir_factored, \
    ue_cr_factored
from rldp_models.rldp_protocols.factored_check import check_factored_record, factored_record, \
    factored_rldp_level
from rldp_models.rldp_protocols.ue_conditional import ue_cr_matrix, ue_information

from polyopt_brute_force import mutual_information
from shared_data import ADULT

BUILDERS = {"ir": ir_factored, "grr-cr": grr_cr_factored, "ue-cr": ue_cr_factored}
TABLES = {
    "3x4": [[30, 12, 5, 8], [10, 25, 9, 3], [4, 7, 20, 11]],
    "zero-cell": [[14, 0, 6], [3, 9, 11]],
}
ALPHA = 0.05


def _crosstab(name: str) -> Crosstab:
    return Crosstab.from_array(np.array(TABLES[name], dtype=float))


def _lowered(value: float, margin: float) -> float:
    return max(value - margin, 0.0)


def dense_reference(protocol, crosstab: Crosstab) -> np.ndarray:
    """The existing dense builders at the product's lowered parameters, columns in its order."""
    p, (n_s, n_u) = protocol.parameters, crosstab.shape
    margin = p["margin"]
    if protocol.name == "ir":
        return ir_matrix(_lowered(p["eps_1"], margin), p["delta_2"], n_s, n_u)
    levels = np.array(p["delta"])
    if protocol.name == "grr-cr":
        return grr_cr_matrix(crosstab.phat, _lowered(p["eps_1"], margin), levels)
    encoding = UnaryEncoding(p["kappa"], p["lambda"], n_s).matrix()
    Q, outputs = ue_cr_matrix(crosstab.phat, encoding, levels)
    order = []
    for index, reports in outputs:
        y = [0] * n_s
        for t, v in zip(np.flatnonzero(index_to_bits(index, n_s)), reports):
            y[t] = 1 + v
        order.append(protocol.output_index(tuple(y)))
    dense = np.zeros_like(Q)
    dense[:, order] = Q
    return dense


@pytest.fixture(scope="module", params=[(k, t) for k in BUILDERS for t in TABLES],
                ids=lambda p: f"{p[0]}-{p[1]}")
def built(request):
    kind, table = request.param
    crosstab = _crosstab(table)
    return BUILDERS[kind](crosstab, 1.0, ALPHA), crosstab


def test_dense_matches_the_dense_builders(built):
    protocol, crosstab = built
    assert protocol.dense().shape == (crosstab.counts.size, protocol.output_count)
    np.testing.assert_allclose(protocol.dense(), dense_reference(protocol, crosstab),
                               rtol=0, atol=1e-12)


def test_utility_is_the_mutual_information_of_the_dense_matrix(built):
    protocol, crosstab = built
    expected = mutual_information(protocol.dense(), crosstab.phat.ravel())
    assert protocol.utility(crosstab.phat) == pytest.approx(expected, rel=0, abs=1e-12)


def test_rldp_level_brackets_the_dense_checker(built):
    protocol, crosstab = built
    structured = factored_rldp_level(protocol, crosstab.counts, ALPHA)
    dense = rldp_epsilon(protocol.dense(), crosstab, ALPHA)
    assert structured.certified <= protocol.eps
    assert structured.attained <= structured.certified
    # sound: the per-factor bound is never below a level the dense checker attains
    assert structured.certified >= dense.attained - 1e-9
    assert structured.attained <= dense.certified + 1e-9
    if protocol.name == "grr-cr":  # each ratio depends on one conditional: no coupling lost
        assert structured.certified == pytest.approx(dense.certified, abs=1e-9)


def test_samples_follow_the_dense_rows(built):
    protocol, crosstab = built
    rng = np.random.default_rng(7)
    dense = protocol.dense()
    n_u = crosstab.shape[1]
    for x in (0, dense.shape[0] - 1):
        count = 20000
        outputs = protocol.sample(np.full(count, x // n_u), np.full(count, x % n_u), rng)
        columns = [protocol.output_index(tuple(y)) for y in outputs]
        observed = np.bincount(columns, minlength=dense.shape[1])
        expected = dense[x] * count
        small = expected < 5
        observed = np.append(observed[~small], observed[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
        keep = expected > 0
        assert chisquare(observed[keep], expected[keep]).pvalue > 1e-4


def test_record_round_trips_and_verifies_from_the_factors(built):
    protocol, crosstab = built
    record = json.loads(json.dumps(factored_record(protocol)))
    check = check_factored_record(record, crosstab.counts, protocol.eps, ALPHA)
    assert check.holds, check.problems
    assert check.certified == protocol.parameters["certified_eps"]
    assert not check_factored_record(record, crosstab.counts, check.certified / 2, ALPHA).holds


def test_verify_rejects_a_row_that_does_not_sum_to_one():
    crosstab = _crosstab("3x4")
    record = factored_record(ue_cr_factored(crosstab, 1.0, ALPHA))
    record["factors"]["other"][1][0] += 2.0**-40
    check = check_factored_record(record, crosstab.counts, 1.0, ALPHA)
    assert not check.holds and "factor other" in check.problems[0]


def test_verify_rejects_a_leakier_factor():
    crosstab = _crosstab("3x4")
    protocol = grr_cr_factored(crosstab, 1.0, ALPHA)
    record = factored_record(grr_cr_factored(crosstab, 2.0, ALPHA))
    assert not check_factored_record(record, crosstab.counts, protocol.eps, ALPHA).holds


def test_dense_refuses_what_does_not_fit_in_one_line():
    counts = np.arange(1, 81, dtype=float).reshape(5, 16)
    protocol = ue_cr_factored(Crosstab.from_array(counts), 1.0, ALPHA)
    assert protocol.output_count == 17**5
    with pytest.raises(InputError, match=r"80 x 1419857 entries .* GiB"):
        protocol.dense(max_bytes=2**26)


def ue_information_by_definition(prior, kappa, lam):
    """``sum_{s,T} P(s) P(T|s) log(P(T|s) / P(T))`` with eq. (90)'s ``P(T|s)`` written out."""
    k = prior.size
    total = 0.0
    conditional = np.zeros((k, 2**k))
    for s in range(k):
        for index in range(2**k):
            bits = [(index >> t) & 1 for t in range(k)]
            conditional[s, index] = np.prod([(kappa if t == s else lam) if b else
                                             (1 - kappa if t == s else 1 - lam)
                                             for t, b in enumerate(bits)])
    marginal = prior @ conditional
    for s in range(k):
        for index in range(2**k):
            if prior[s] > 0 and conditional[s, index] > 0:
                total += prior[s] * conditional[s, index] * np.log(conditional[s, index] /
                                                                    marginal[index])
    return total


@pytest.mark.parametrize("k", [1, 2, 4, 6])
def test_ue_information_against_its_definition(k):
    rng = np.random.default_rng(k)
    prior = rng.dirichlet(np.ones(k))
    if k > 2:
        prior[1] = 0.0
        prior /= prior.sum()
    for kappa, lam in [(0.9, 0.2), (0.5, 0.5), (1.0, 1.0), (0.7, 0.0), (0.3, 0.1)]:
        assert ue_information(prior, kappa, lam) == pytest.approx(
            ue_information_by_definition(prior, kappa, lam), abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("sensitive,public", [("race", "education"),
                                               ("education", "occupation")])
@pytest.mark.parametrize("kind", list(BUILDERS))
def test_adult_pairs_in_product_form(kind, sensitive, public):
    if not ADULT.exists():
        pytest.skip("the Adult data is not on this machine")
    crosstab = Crosstab.from_records(ADULT, sensitive, public)
    protocol = BUILDERS[kind](crosstab, 1.0, ALPHA)
    level = factored_rldp_level(protocol, crosstab.counts, ALPHA)
    assert level.attained <= level.certified <= 1.0
    assert check_factored_record(factored_record(protocol), crosstab.counts, 1.0, ALPHA).holds
    radii = conditional_radii(chi_square_set(crosstab, ALPHA))
    assert np.all(np.isfinite(theorem17_levels(0.5, radii)))


@pytest.mark.parametrize("change", [
    lambda r: r.pop("S"),
    lambda r: r["factors"].pop("own"),
    lambda r: r["factors"]["other"].append([1.0]),
    lambda r: r.update(kind="srr"),
])
def test_malformed_records_are_bad_input(change):
    crosstab = _crosstab("3x4")
    record = factored_record(ue_cr_factored(crosstab, 1.0, ALPHA))
    change(record)
    with pytest.raises(InputError):
        check_factored_record(record, crosstab.counts, 1.0, ALPHA)
