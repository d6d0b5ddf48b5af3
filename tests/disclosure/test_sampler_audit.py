"""The release sampler audited statistically (issue 35 item 7,
:mod:`rldp_models.disclosure.audit`).

For small protocols of every family the toolkit produces (the four programs,
the RLDP protocols, the closed-form and optimal mechanisms), seeded draws go
through the real release path (:class:`~rldp_models.disclosure.channel.ReleaseChannel`,
exact dyadic sampling) and are tested (a) per input against ``Q(.|x)`` by a
pooled chi-square test at level 1e-6 and (b) per ordered pair of secrets, with
``x`` drawn from the secret's ``Phat_{U|s}`` (or the joint's ``P_{X|s}``), for
``P(y|s1) <= e^eps P(y|s2)`` by one-sided Clopper-Pearson bounds at a
family-wise level of 1e-6. (c) Matrices whose true level is ``eps + 0.5`` are
caught by the same test. The default suite runs a few families at 20,000 draws
per input; ``-m slow`` runs every family at 1,000,000.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest, chisquare

from rldp_models.cli import main
from rldp_models.exact import exact_stochastic_rows
from rldp_models.disclosure.audit import (channel_sampler, clopper_pearson, dense_sampler,
                                       goodness_of_fit, pooled_chi_square, ratio_audit)
from rldp_models.disclosure.channel import ReleaseChannel
from rldp_models.disclosure.sampling import seeded_random_words
from rldp_models.results.certified import CertifiedResult
from rldp_models.results.files import read_record
from rldp_models.results.record import from_record

LEVEL = 1e-6
EPS = 1.0
QUICK_DRAWS = 20_000
FULL_DRAWS = 1_000_000

TABLE = "s,1,2,3\na,20,9,5\nb,6,14,11\n"
SMALL = "s,1,2\na,20,9\nb,6,14\n"  # PolyOpt's vertex enumeration stays quick at 2 x 2
PRIOR = "x,p\n0,0.5\n1,0.3\n2,0.2\n"
JOINT = "s,x0,x1,x2\na,10,5,2\nb,3,8,9\n"

# name: (arguments after the command, how the ratio is audited)
#   secrets: x ~ Phat_{U|s} per secret, at eps (programs, RLDP protocols)
#   simplex: x ~ uniform on U per secret, at eps (RLDP over the whole simplex: any P)
#   inputs: every input its own secret, at eps (LDP: every pair of inputs)
#   joint: x ~ P_{X|s} of the joint, at eps (LDP w.r.t. S)
#   joint-2eps: as joint at 2 eps (LIP's e^-eps <= P(y|s)/P(y) <= e^eps implies it)
#   fit: goodness of fit only ((eps, delta)-LDP and ULDP bound no plain ratio)
FAMILIES: dict[str, tuple[list[str], str]] = {
    "NUNP": (["solve", "NUNP", "--counts", "TABLE"], "secrets"),
    "NURP": (["solve", "NURP", "--counts", "TABLE"], "secrets"),
    "RUNP": (["solve", "RUNP", "--counts", "TABLE"], "secrets"),
    "RURP": (["solve", "RURP", "--counts", "TABLE"], "secrets"),
    "ir": (["protocol", "ir", "--counts", "TABLE"], "secrets"),
    "grr-cr": (["protocol", "grr-cr", "--counts", "TABLE"], "secrets"),
    "ue-cr": (["protocol", "ue-cr", "--counts", "TABLE"], "secrets"),
    "srr": (["protocol", "srr", "--counts", "TABLE"], "secrets"),
    "grr": (["protocol", "grr", "--counts", "TABLE"], "secrets"),
    "polyopt": (["protocol", "polyopt", "--counts", "SMALL"], "secrets"),
    "mechanism srr": (["mechanism", "srr", "--counts", "TABLE"], "simplex"),
    "mechanism rr": (["mechanism", "rr", "--counts", "TABLE"], "inputs"),
    "binary": (["mechanism", "binary", "--k", "2"], "inputs"),
    "rr": (["mechanism", "rr", "--k", "4"], "inputs"),
    "geometric": (["mechanism", "geometric", "--k", "5"], "inputs"),
    "ue": (["mechanism", "ue", "--k", "3"], "inputs"),
    "staircase": (["mechanism", "staircase", "--prior", "PRIOR"], "inputs"),
    "ldp-s": (["mechanism", "ldp-s", "--joint", "JOINT"], "joint"),
    "lip": (["mechanism", "lip", "--joint", "JOINT"], "joint-2eps"),
    "srlip": (["mechanism", "srlip", "--joint", "JOINT", "--attribute-sizes", "3"],
              "joint-2eps"),
    "quaternary": (["mechanism", "quaternary", "--k", "2", "--delta", "0.2"], "fit"),
    "urr": (["mechanism", "urr", "--k", "4", "--sensitive", "0", "1"], "fit"),
    "urap": (["mechanism", "urap", "--k", "3", "--sensitive", "0"], "fit"),
}
QUICK_FAMILIES = ["NURP", "ir", "grr-cr", "rr", "geometric", "ldp-s"]


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The module's folder: the input tables and every family's record."""
    folder = tmp_path_factory.mktemp("sampler-audit")
    for name, text in (("TABLE", TABLE), ("SMALL", SMALL), ("PRIOR", PRIOR), ("JOINT", JOINT)):
        (folder / f"{name}.csv").write_text(text)
    return folder


@functools.cache
def produced(name: str, folder: Path) -> CertifiedResult:
    """The family's record, written by the command line into ``folder`` and read back."""
    arguments, _ = FAMILIES[name]
    argv = [str(folder / f"{a}.csv") if a in ("TABLE", "SMALL", "PRIOR", "JOINT") else a
            for a in arguments]
    out = folder / f"{name.replace(' ', '-')}.json"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main([*argv, "--eps", str(EPS), "--out", str(out), "-q"])
    assert code == 0, name
    return from_record(read_record(out))


def release_path(result: CertifiedResult, seed: int):
    """The sampler a release uses, its matrix and its channel (None without ``(s, u)`` inputs)."""
    words = seeded_random_words(seed)
    if all(isinstance(x, (list, tuple)) and len(x) == 2 for x in result.inputs):
        channel = ReleaseChannel.from_result(result)
        return channel_sampler(channel, words), channel.matrix(), channel
    assert result.matrix is not None
    return dense_sampler(result.matrix, words), np.asarray(result.matrix), None


def secret_mixtures(result: CertifiedResult, channel: ReleaseChannel) -> np.ndarray:
    """Row ``s``: ``Phat_{U|s}`` on the channel's rows ``(s, u)`` (unnormalised counts)."""
    table = result.crosstab
    assert table is not None
    mixtures = np.zeros((len(channel.s_labels), channel.row_of.max() + 1))
    for i, s in enumerate(table.s_labels):
        for j, u in enumerate(table.u_labels):
            si, uj = channel.s_labels.index(str(s)), channel.u_labels.index(str(u))
            mixtures[si, channel.row_of[si, uj]] = table.counts[i, j]
    return mixtures


def audit_family(name: str, draws: int, folder: Path, seed: int = 2026) -> None:
    result = produced(name, folder)
    draw, matrix, channel = release_path(result, seed)
    fit = goodness_of_fit(draw, matrix, draws, LEVEL)
    assert fit.holds, (name, fit.p_values)
    kind = FAMILIES[name][1]
    if kind == "fit":
        return
    eps = min(g.eps for g in result.guarantees) * (2 if kind == "joint-2eps" else 1)
    if kind in ("secrets", "simplex"):
        assert channel is not None
        mixtures = secret_mixtures(result, channel) if kind == "secrets" else \
            (channel.row_of[:, :, None] == np.arange(matrix.shape[0])).sum(axis=1)
    elif kind == "inputs":
        mixtures = np.eye(matrix.shape[0])
    else:
        mixtures = np.asarray(result.details["joint"], dtype=float)
    audit = ratio_audit(draw, mixtures, matrix.shape[1], eps, draws,
                        np.random.default_rng(seed), LEVEL)
    assert not audit.violated, (name, audit)
    assert audit.lower_bound > -math.inf  # some pair was compared


@pytest.mark.parametrize("name", QUICK_FAMILIES)
def test_released_values_follow_the_matrix_and_its_level(name: str, work: Path) -> None:
    audit_family(name, QUICK_DRAWS, work)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FAMILIES))
def test_a_million_released_values_per_input_follow_the_matrix_and_its_level(
        name: str, work: Path) -> None:
    audit_family(name, FULL_DRAWS, work)


# ---------------------------------------------------------------------- (c) leaks are caught
def randomized_response(eps: float, k: int) -> np.ndarray:
    """k-ary randomised response at level ``eps``, rounded to exact dyadic rows."""
    matrix = np.full((k, k), 1.0) + np.eye(k) * (math.exp(eps) - 1)
    return exact_stochastic_rows(matrix / matrix.sum(axis=1, keepdims=True))


def exact_level(matrix: np.ndarray) -> float:
    """``max log Q[x1, y] / Q[x2, y]`` from the dyadic entries as rationals."""
    rows = [[Fraction(v) for v in row] for row in matrix]
    worst = max(a[y] / b[y] for a in rows for b in rows for y in range(len(a)) if b[y] > 0)
    return math.log(worst)


@pytest.mark.parametrize("seed", range(5))
def test_a_randomised_response_half_a_nat_leakier_than_claimed_is_caught(seed: int) -> None:
    # ternary RR at eps + 0.5 = 1.5: Q(y|y) = 0.69, Q(y|x) = 0.154; at 20,000 draws the
    # Clopper-Pearson bounds at beta = 1e-6 / 18 are within about 0.018, so the bounded ratio
    # is above 3.5 > e (about 14 standard errors of margin: power is essentially 1)
    leaky = randomized_response(EPS + 0.5, 3)
    assert exact_level(leaky) == pytest.approx(EPS + 0.5, abs=1e-12)
    audit = ratio_audit(dense_sampler(leaky, seeded_random_words(seed)), np.eye(3), 3, EPS,
                        QUICK_DRAWS, np.random.default_rng(seed), LEVEL)
    assert audit.violated and audit.lower_bound > EPS + 0.2
    honest = randomized_response(EPS, 3)
    audit = ratio_audit(dense_sampler(honest, seeded_random_words(seed)), np.eye(3), 3, EPS,
                        QUICK_DRAWS, np.random.default_rng(seed), LEVEL)
    assert not audit.violated


@pytest.mark.parametrize("seed", range(3))
def test_an_ir_protocol_with_a_leakier_secret_factor_is_caught_through_the_channel(
        seed: int, work: Path) -> None:
    # IR's secret factor replaced by binary RR at eps + 0.5: under any P, P(y|s) is the secret
    # factor's entry times the public factor's mixture for s, and the mixtures' largest ratio
    # over the public output is >= 1, so the level under Phat is >= eps + 0.5
    result = produced("ir", work)
    assert result.product is not None
    leaky_secret = randomized_response(EPS + 0.5, 2)
    product = {**result.product, "factors": {**result.product["factors"],
                                             "secret": leaky_secret.tolist()}}
    leaky = dataclasses.replace(result, product=product, matrix=None)
    channel = ReleaseChannel.from_result(leaky)
    mixtures = secret_mixtures(result, channel)
    dense = channel.matrix()
    conditionals = mixtures / mixtures.sum(axis=1, keepdims=True) @ dense
    assert np.log(np.max(conditionals[0] / conditionals[1])) >= EPS + 0.5 - 1e-9
    audit = ratio_audit(channel_sampler(channel, seeded_random_words(seed)), mixtures,
                        dense.shape[1], EPS, QUICK_DRAWS, np.random.default_rng(seed), LEVEL)
    assert audit.violated


def test_a_sampler_that_drifts_from_its_row_fails_the_fit() -> None:
    rows = randomized_response(EPS, 4)
    shifted = rows.copy()
    shifted[:, :2] += [[0.03, -0.03]]  # 3 points of mass moved between two outputs
    drifting = dense_sampler(exact_stochastic_rows(shifted), seeded_random_words(3))
    assert not goodness_of_fit(drifting, rows, QUICK_DRAWS, LEVEL).holds
    assert goodness_of_fit(dense_sampler(rows, seeded_random_words(3)), rows, QUICK_DRAWS,
                           LEVEL).holds


def test_an_output_outside_the_support_fails_the_fit() -> None:
    rows = np.array([[0.5, 0.5, 0.0], [0.25, 0.25, 0.5]])
    wrong = dense_sampler(rows[::-1], seeded_random_words(4))  # row 0 drawn from row 1
    fit = goodness_of_fit(wrong, rows, 1000, LEVEL)
    assert list(fit.rejected) == [0, 1] and fit.p_values[0] == 0.0


# ---------------------------------------------------------------------- the statistics
def test_the_pooled_statistic_is_pearsons_when_no_cell_is_small() -> None:
    observed = np.array([260, 240, 510])
    p = np.array([0.25, 0.25, 0.5])
    expected = chisquare(observed, observed.sum() * p).pvalue
    assert pooled_chi_square(observed, p) == (pytest.approx(expected, rel=1e-12), 3)


def test_small_cells_are_pooled_until_the_pool_reaches_five() -> None:
    observed = np.array([1, 0, 3, 96, 100])
    p = np.array([0.01, 0.01, 0.01, 0.47, 0.5])  # expectations 2, 2, 2, 94, 100 of n = 200
    pooled = np.array([4, 96, 100])
    expected = chisquare(pooled, [6, 94, 100]).pvalue
    assert pooled_chi_square(observed, p) == (pytest.approx(expected, rel=1e-12), 3)
    assert pooled_chi_square(np.array([0, 7]), np.array([0.0, 1.0])) == (1.0, 1)


@pytest.mark.parametrize("k, n", [(0, 50), (3, 50), (25, 50), (50, 50), (7, 1000)])
def test_clopper_pearson_bounds_are_scipys_exact_interval_tails(k: int, n: int) -> None:
    beta = 1e-3
    lower, upper = clopper_pearson(np.array([k]), n, beta)
    interval = binomtest(k, n).proportion_ci(confidence_level=1 - 2 * beta, method="exact")
    assert lower[0] == pytest.approx(interval.low, abs=1e-12)
    assert upper[0] == pytest.approx(interval.high, abs=1e-12)
