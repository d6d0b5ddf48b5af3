"""PolyOpt benchmarks against the DESIGN.md target (3x4 <= 2 s; paper: 72 s).

Instances follow Sec. VIII-A: ``P*`` from the Jeffreys prior, ``n = 1000``,
``alpha = 0.05``. ``polyopt_protocol`` is timed end to end (rays, both LPs,
robust bounds, two ``worst_case_epsilon`` certifications); the core (rays of
Gamma + LP (47)) is timed separately. Baseline, in the same process: the
paper's form, float cdd vertex enumeration of the polytope
``{T in Gamma : sum T = 1}`` (an H-polytope with one equality), without
verification or exact fallback.

Measure::

    python -m pytest benchmarks/bench_polyopt.py --benchmark-enable -m 'slow or not slow' \
        --benchmark-columns=min,mean,max,rounds
"""

from __future__ import annotations

from typing import Any

import cdd
import numpy as np
import pytest
from timing import best_of

from rldp_models.conelp import ConeLP, inner_ratio
from rldp_models.instances import jeffreys_instance
from rldp_models.rldp_protocols import polyopt_protocol
from rldp_models.rldp_protocols.polyopt import gamma_extreme_rays
from rldp_models.rldp_protocols.polyopt_gamma import conditional_bounds, eq44_rows
from rldp_models.uncertainty.chi_square import ChiSquareSet
from rldp_models.utility import MutualInformation

EPS = [0.5, 2.0, 5.0, 8.0]


def crosstab(n_s: int, n_u: int) -> Any:
    return jeffreys_instance(n_s, n_u, 1000, seed=0).crosstab


def core(n_s: int, n_u: int, eps: float) -> tuple[float, int]:
    """Rays of Gamma and the LP (47): PolyOpt's ``Q^1`` without the certification.

    Returns the LP value and the number of rays.
    """
    table = crosstab(n_s, n_u)
    rays = gamma_extreme_rays(ChiSquareSet.from_counts(table.counts, 0.05), eps)
    lp = ConeLP.from_utility(rays, MutualInformation(table.phat.ravel()), np.ones(rays.dimension))
    return lp.solve().value, rays.count


def cdd_polytope_vertices(n_s: int, n_u: int, eps: float) -> int:
    """The paper's route: float cdd on ``{T >= 0, eq. (44), sum T = 1}``; vertex count."""
    table = crosstab(n_s, n_u)
    lower, _ = conditional_bounds(ChiSquareSet.from_counts(table.counts, 0.05))
    rows = np.vstack([np.eye(lower.size), eq44_rows(lower, inner_ratio(eps))])
    inequalities = np.hstack([np.zeros((len(rows), 1)), rows])
    equality = np.hstack([[-1.0], np.ones(lower.size)])
    matrix = cdd.matrix_from_array(np.vstack([inequalities, equality]).tolist(),
                                   lin_set=[len(rows)], rep_type=cdd.RepType.INEQUALITY)
    return len(cdd.copy_generators(cdd.polyhedron_from_matrix(matrix)).array)


CASES = [pytest.param(3, 3, eps, id=f"3x3-eps{eps}") for eps in EPS] + [
    pytest.param(3, 4, eps, id=f"3x4-eps{eps}", marks=pytest.mark.slow) for eps in EPS]


@pytest.mark.parametrize("n_s, n_u, eps", CASES)
def test_polyopt_end_to_end(benchmark, n_s: int, n_u: int, eps: float) -> None:
    result = benchmark.pedantic(polyopt_protocol, args=(crosstab(n_s, n_u), eps), rounds=1,
                                iterations=1)
    benchmark.extra_info["rays"] = result.rays
    benchmark.extra_info["exact_rays"] = result.exact_rays
    assert result.rldp_certified_eps <= eps and result.certificate.verified


@pytest.mark.parametrize("n_s, n_u, eps", CASES)
def test_polyopt_core_against_cdd_polytope(benchmark, record_ratio, n_s: int, n_u: int,
                                           eps: float) -> None:
    value, count = benchmark.pedantic(core, args=(n_s, n_u, eps), rounds=1, iterations=1)
    benchmark.extra_info["rays"] = count
    found = {}
    record_ratio("float cdd vertex enumeration of the polytope Gamma-hat (paper's form)",
                 best_of(lambda: found.update(count=cdd_polytope_vertices(n_s, n_u, eps)),
                         repeats=1))
    benchmark.extra_info["baseline_vertices"] = found["count"]
    assert value > 0
