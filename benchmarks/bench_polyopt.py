"""PolyOpt and LDP w.r.t. S benchmarks against the DESIGN.md targets (issues 4 and 7).

Targets: PolyOpt 3x4 <= 2 s (the paper: 72 s), 4x4 certified optimal <= 10 min,
5x5 reported; LDP w.r.t. S at ``a = 20`` <= 10 s. Instances follow Sec. VIII-A
of the RLDP paper: ``P*`` from the Jeffreys prior, ``n = 1000``, ``alpha = 0.05``.

``polyopt_protocol`` is timed end to end (Gamma, LP (47) with its certificate,
robust bounds, ``Q^2``, both privacy certifications) with ``method="auto"``.
At 3x3 and 3x4 ``"auto"`` lists Gamma's rays by the block lemma
(:mod:`rldp_models.conelp.polyopt_block_rays`). Baselines, timed in the
same process where they run at all:

* full enumeration by double description: ``method="enumerate"`` end to end
  with the block lemma switched off (cdd, then one LP over all rays; at 3x4 only
  up to :data:`ENUMERATED_3X4_EPS`, above it takes minutes);
* column generation: ``method="column-generation"`` end to end (3x4 at every
  eps), which must reach the same optimum;
* the paper's form: float cdd vertex enumeration of the polytope
  ``{T in Gamma : sum T = 1}``, without verification (3x3).

4x4 runs end to end and must come out certified optimal; its enumeration
baseline runs in a child process stopped at :data:`FOUR_BY_FOUR_BASELINE_LIMIT`
seconds, so the ratio recorded is a lower bound when it does not finish (the
paper abandoned it after 12 hours). 5x5 runs end to end to a certified optimum at
eps 8, and LP (47) by column generation with bounded work at eps 2, where it reports
the proven gap. The block-decomposition pricing oracle
(:mod:`rldp_models.rldp_protocols.polyopt_lemma_pricing`, a measured negative result)
is compared with today's branch and bound on the final pricing proof (3x3; 3x4 and
4x4 under ``-m slow``), and so is today's branch and bound with row propagation
(``ConcavePricing(..., propagate=True)``: 3x4 at eps 0.5 and 2; 4x4 under ``-m slow``). Measure::

    python -m pytest benchmarks/bench_polyopt.py --benchmark-enable -m 'slow or not slow' \\
        --benchmark-columns=min,mean,max,rounds
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache, partial
from typing import Any

import cdd
import numpy as np
import pytest
from timing import best_of, seconds_within

from rldp_models.conelp import inner_ratio, ldp_wrt_secret_mechanism
from rldp_models.conelp.column_generation import solve_by_pricing
from rldp_models.conelp.concave_pricing import ConcavePricing
from rldp_models.experiments.rldp_tasks import FULL_EPS
from rldp_models.datasets import jeffreys_instance
from rldp_models.rldp_protocols import polyopt as polyopt_module
from rldp_models.rldp_protocols import polyopt_protocol
from rldp_models.conelp.polyopt_gamma import gamma_vertices
from rldp_models.conelp.polyopt_gamma import conditional_bounds, eq44_rows, gamma_rows
from rldp_models.rldp_protocols.polyopt_lemma_pricing import LemmaPricing
from rldp_models.uncertainty.chi_square import ChiSquareSet
from rldp_models.utility import MutualInformation

EPS = [0.5, 2.0, 5.0, 8.0]

ENUMERATED_3X4_EPS = 0.5
"""Largest eps at which the 3x4 enumeration baseline is run: above it double
description takes minutes (eps = 2: three cddlib runs of 29-159 s that do not agree,
then the exact method)."""

FOUR_BY_FOUR_EPS = [0.5, 1.0, 2.0, 5.0, 8.0]
"""eps at which 4x4 is certified (237 s at 0.5, 8-169 s above)."""

FIVE_BY_FIVE_CERTIFIED_EPS = [8.0]
"""eps at which 5x5 is run to a certified optimum (642-697 s, 2.0 GB at its peak)."""

FOUR_BY_FOUR_BASELINE_LIMIT = 900.0
"""Seconds given to the 4x4 enumeration baseline before it is stopped."""

SWEEP_EPS = list(FULL_EPS)
"""eps of the 3x4 report over instances: the grid of the paper-figure runs, in [0.2, 8]."""

INSTANCE_SEEDS = range(6)
"""Jeffreys draws per eps in that report: the paper's 72 s is a mean over 200 draws."""

BOUNDED_ITERATIONS = 60
"""Master LPs allowed at 5x5; the status and certificate gap say how far it got."""

FIVE_BY_FIVE_NODES = 20_000
"""Branch-and-bound nodes per pricing call at 5x5."""

LEMMA_PRICING_NODES = 20_000
"""Boxes given to the block-decomposition oracle (:mod:`.polyopt_lemma_pricing`) in its
comparison with today's branch and bound (it does not close within this)."""


@lru_cache(maxsize=None)
def crosstab(n_s: int, n_u: int) -> Any:
    return jeffreys_instance(n_s, n_u, 1000, seed=0).crosstab


def cdd_polytope_vertices(n_s: int, n_u: int, eps: float) -> int:
    """The paper's route: float cdd on ``{T >= 0, eq. (44), sum T = 1}``; vertex count."""
    lower, _ = conditional_bounds(ChiSquareSet.from_counts(crosstab(n_s, n_u).counts, 0.05))
    rows = np.vstack([np.eye(lower.size), eq44_rows(lower, inner_ratio(eps))])
    inequalities = np.hstack([np.zeros((len(rows), 1)), rows])
    equality = np.hstack([[-1.0], np.ones(lower.size)])
    matrix = cdd.matrix_from_array(np.vstack([inequalities, equality]).tolist(),
                                   lin_set=[len(rows)], rep_type=cdd.RepType.INEQUALITY)
    return len(cdd.copy_generators(cdd.polyhedron_from_matrix(matrix)).array)


def record_polyopt(benchmark: Any, result: Any) -> None:
    benchmark.extra_info.update(rays=result.rays, method=result.method,
                                utility=result.utility_hat,
                                certificate_violation=result.certificate.max_violation,
                                certified_eps=result.rldp_certified_eps)
    assert result.certificate.verified and result.rldp_certified_eps <= result_eps(result)


def result_eps(result: Any) -> float:
    return result.rldp_certified_eps if result.mixing_weight == 0 else np.inf


CASES = [pytest.param(3, 3, eps, id=f"3x3-eps{eps}") for eps in EPS] + [
    pytest.param(3, 4, eps, id=f"3x4-eps{eps}", marks=pytest.mark.slow) for eps in EPS]


@pytest.mark.parametrize("n_s, n_u, eps", CASES)
def test_polyopt_against_full_enumeration(benchmark, record_ratio, n_s: int, n_u: int,
                                          eps: float) -> None:
    result = benchmark.pedantic(polyopt_protocol, args=(crosstab(n_s, n_u), eps), rounds=1,
                                iterations=1)
    record_polyopt(benchmark, result)
    assert result.method == "enumerate"
    generated = {}
    benchmark.extra_info["column_generation_seconds"] = best_of(lambda: generated.update(
        r=polyopt_protocol(crosstab(n_s, n_u), eps, method="column-generation")), repeats=1)
    assert result.utility_hat == pytest.approx(generated["r"].utility_hat, rel=1e-8)
    if n_s * n_u > 9 and eps > ENUMERATED_3X4_EPS:
        record_ratio("column generation: polyopt_protocol(method='column-generation')",
                     benchmark.extra_info["column_generation_seconds"])
        return
    if n_s * n_u <= 9:
        benchmark.extra_info["paper_form_seconds"] = best_of(
            lambda: cdd_polytope_vertices(n_s, n_u, eps), repeats=1)
    found = {}
    record_ratio("full enumeration by double description (method='enumerate', no block "
                 "lemma)", best_of(lambda: found.update(
                     r=by_double_description(crosstab(n_s, n_u), eps)), repeats=1))
    assert result.rays == found["r"].rays
    assert result.utility_hat == pytest.approx(found["r"].utility_hat, rel=1e-8)


def by_double_description(table: Any, eps: float) -> Any:
    """``polyopt_protocol(method="enumerate")`` with the block lemma off: cdd lists Gamma."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(polyopt_module, "BLOCK_SECRETS", 0)
        return polyopt_protocol(table, eps, method="enumerate")


@pytest.mark.slow
@pytest.mark.parametrize("eps", SWEEP_EPS)
def test_polyopt_3x4_over_instances(benchmark, eps: float) -> None:
    """3x4 on several Jeffreys draws (Sec. VIII-A): mean and worst seconds per eps.

    One draw (seed 0, the other cases) can flatter: the time to certify varies
    several-fold between draws. Each result must be certified optimal.
    """
    tables = [jeffreys_instance(3, 4, 1000, seed=seed).crosstab for seed in INSTANCE_SEEDS]
    seconds: list[float] = []

    def certified(table: Any) -> None:
        result = polyopt_protocol(table, eps)
        assert result.certificate.verified and result.certificate.max_violation <= 1e-9

    def run_all() -> None:
        seconds.extend(best_of(partial(certified, table), repeats=1) for table in tables)

    benchmark.pedantic(run_all, rounds=1, iterations=1)
    benchmark.extra_info.update(mean_seconds=float(np.mean(seconds)),
                                worst_seconds=max(seconds), seconds=seconds)


@pytest.mark.slow
@pytest.mark.parametrize("eps", [0.5, 8.0])
def test_polyopt_3x3_column_generation(benchmark, record_ratio, eps: float) -> None:
    result = benchmark.pedantic(polyopt_protocol, args=(crosstab(3, 3), eps),
                                kwargs={"method": "column-generation"}, rounds=1, iterations=1)
    record_polyopt(benchmark, result)
    found = {}
    record_ratio("full enumeration: polyopt_protocol(method='enumerate'), the block lemma",
                 best_of(lambda: found.update(
                     r=polyopt_protocol(crosstab(3, 3), eps, method="enumerate")), repeats=1))
    assert result.utility_hat == pytest.approx(found["r"].utility_hat, rel=1e-8)


@pytest.mark.slow
@pytest.mark.parametrize("eps", FOUR_BY_FOUR_EPS)
def test_polyopt_4x4_certified(benchmark, record_ratio, eps: float) -> None:
    """4x4 end to end, certified optimal (dual feasible to 1e-9 over every ray of Gamma)."""
    result = benchmark.pedantic(polyopt_protocol, args=(crosstab(4, 4), eps), rounds=1,
                                iterations=1)
    record_polyopt(benchmark, result)
    assert result.method == "column-generation"
    assert result.certificate.max_violation <= 1e-9
    if eps != 2.0:
        return
    limit = FOUR_BY_FOUR_BASELINE_LIMIT
    seconds = seconds_within(lambda: polyopt_protocol(crosstab(4, 4), eps, method="enumerate"),
                             limit)
    record_ratio("full enumeration: polyopt_protocol(method='enumerate') in a child process",
                 limit if seconds is None else seconds, at_least=seconds is None)


@pytest.mark.slow
@pytest.mark.parametrize("eps", FIVE_BY_FIVE_CERTIFIED_EPS)
def test_polyopt_5x5_certified(benchmark, eps: float) -> None:
    """5x5 end to end, certified optimal (dual feasible to 1e-9 over every ray of Gamma)."""
    result = benchmark.pedantic(polyopt_protocol, args=(crosstab(5, 5), eps), rounds=1,
                                iterations=1)
    record_polyopt(benchmark, result)
    assert result.certificate.max_violation <= 1e-9


@pytest.mark.slow
def test_polyopt_lp_5x5_bounded(benchmark) -> None:
    """5x5 LP (47) by column generation with bounded work: value, proven gap and status.

    OPTIMAL means certified optimal (dual feasible to 1e-9 over every ray);
    otherwise ``upper_bound - value`` is the proven gap left.
    """
    table = crosstab(5, 5)
    rows = gamma_rows(gamma_vertices(ChiSquareSet.from_counts(table.counts, 0.05), False),
                      Fraction(inner_ratio(2.0)))
    phat = table.phat.ravel()

    def solve() -> Any:
        oracle = ConcavePricing(np.asarray(rows, dtype=float), phat,
                                max_nodes=FIVE_BY_FIVE_NODES)
        return solve_by_pricing(oracle, MutualInformation(phat), np.ones(phat.size),
                                max_iterations=BOUNDED_ITERATIONS)

    solution = benchmark.pedantic(solve, rounds=1, iterations=1)
    benchmark.extra_info.update(value=solution.value, status=solution.status.value,
                                upper_bound=solution.certificate.upper_bound,
                                gap=solution.certificate.upper_bound - solution.value,
                                iterations=solution.iterations, nodes=solution.pricing_nodes)
    assert solution.certificate.upper_bound >= solution.value - 1e-9


@pytest.mark.parametrize("n_s, n_u", [(3, 3), pytest.param(3, 4, marks=pytest.mark.slow),
                                      pytest.param(4, 4, marks=pytest.mark.slow)])
def test_lemma_pricing_against_branch_and_bound(benchmark, record_ratio, n_s: int,
                                                n_u: int) -> None:
    """The final pricing proof at PolyOpt's optimal dual (eps 2): two oracles, one process.

    Baseline: ``ConcavePricing.tight_bound`` (today's branch and bound, to the end).
    Measured: :class:`LemmaPricing` with :data:`LEMMA_PRICING_NODES` boxes; its bound
    must be valid (at least what the branch and bound attains) and is recorded with
    the one it proves, to show how far from closing it stops.
    """
    table = crosstab(n_s, n_u)
    uncertainty = ChiSquareSet.from_counts(table.counts, 0.05)
    ratio = Fraction(inner_ratio(2.0))
    phat = table.phat.ravel()
    dual = polyopt_protocol(table, 2.0).certificate.dual
    lower = conditional_bounds(uncertainty)[0]
    found = benchmark.pedantic(
        lambda: LemmaPricing(lower, ratio, phat, max_nodes=LEMMA_PRICING_NODES).bound(dual),
        rounds=1, iterations=1)
    reference = {}
    rows = gamma_rows(gamma_vertices(uncertainty, False), ratio).astype(float)
    record_ratio("ConcavePricing(...).tight_bound(dual), complete", best_of(
        lambda: reference.update(r=ConcavePricing(rows, phat).tight_bound(dual)), repeats=1))
    low, high = reference["r"]
    benchmark.extra_info.update(lemma_bound=found.upper_bound, lemma_nodes=found.nodes,
                                branch_and_bound_low=low, branch_and_bound_high=high)
    assert found.upper_bound >= low - 1e-12


@pytest.mark.parametrize("n_s, n_u, eps", [(3, 4, 0.5), (3, 4, 2.0),
                                           pytest.param(4, 4, 2.0, marks=pytest.mark.slow)])
def test_row_propagation_against_branch_and_bound(benchmark, record_ratio, n_s: int, n_u: int,
                                                  eps: float) -> None:
    """The final pricing proof at PolyOpt's optimal dual with and without row propagation.

    Baseline: ``ConcavePricing(...).proof(dual)`` as PolyOpt runs it. Measured: the same
    with ``propagate=True`` (child boxes shrunk by Gamma's rows, the tightening of the
    block lemma's ``(min g, max g)``). Both proofs must bound ``h`` alike (to the gap
    tolerance); their boxes and drops are recorded.
    """
    table = crosstab(n_s, n_u)
    uncertainty = ChiSquareSet.from_counts(table.counts, 0.05)
    phat = table.phat.ravel()
    dual = polyopt_protocol(table, eps).certificate.dual
    rows = gamma_rows(gamma_vertices(uncertainty, False), Fraction(inner_ratio(eps))).astype(float)
    proofs = {}
    record_ratio("ConcavePricing(...).proof(dual), no propagation", best_of(
        lambda: proofs.update(plain=ConcavePricing(rows, phat).proof(dual)), repeats=1))
    benchmark.pedantic(
        lambda: proofs.update(cut=ConcavePricing(rows, phat, propagate=True).proof(dual)),
        rounds=1, iterations=1)
    for name, proof in proofs.items():
        benchmark.extra_info.update({f"{name}_boxes": int(proof["lower"].shape[0]),
                                     f"{name}_drops": int(proof["drop"].size),
                                     f"{name}_leaves": int(proof["leaf"].size),
                                     f"{name}_claimed": float(proof["claimed"])})
    assert abs(float(proofs["cut"]["claimed"]) - float(proofs["plain"]["claimed"])) <= 1e-9


def secret_joint(c: int, a: int) -> np.ndarray:
    joint = np.random.default_rng(0).random((c, a))
    return joint / joint.sum()


@pytest.mark.parametrize("c", [2, pytest.param(4, marks=pytest.mark.slow),
                               pytest.param(6, marks=pytest.mark.slow)])
@pytest.mark.parametrize("method", ["auto", "column-generation"])
def test_ldp_wrt_secret_a20(benchmark, record_ratio, c: int, method: str) -> None:
    joint = secret_joint(c, 20)
    result = benchmark.pedantic(ldp_wrt_secret_mechanism, args=(joint, 1.0),
                                kwargs={"method": method}, rounds=1, iterations=1)
    benchmark.extra_info["utility"] = result.utility
    found = {}
    record_ratio("full enumeration: ldp_wrt_secret_mechanism(method='enumerate')", best_of(
        lambda: found.update(r=ldp_wrt_secret_mechanism(joint, 1.0, method="enumerate")),
        repeats=1))
    assert result.utility == pytest.approx(found["r"].utility, rel=1e-8)
