"""python-flint against the ``Fraction`` / ``mpmath`` loops of the exact checks.

* Exact row sums of a 240 x 240 dyadic matrix: ``fmpq`` (:func:`exact_sum`,
  adopted in :func:`~rldp_models.exact.is_exactly_stochastic`) against the
  ``Fraction`` loop it replaced.
* Theorem 2's dual bound on one conditional (16 cells) for 240 columns:
  ``arb`` balls (:func:`~rldp_models.privacy.chi_square_bounds.theorem2_upper`,
  adopted) against the ``mpmath.iv`` evaluation of
  :meth:`ChiSquareSet.certified_support_bound`.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import pytest

from timing import best_of
from rldp_models.exact import exact_stochastic_rows, exact_sum
from rldp_models.privacy.chi_square_bounds import (BALL_PRECISION, conditional_k,
                                                    theorem2_multipliers, theorem2_upper)
from rldp_models.uncertainty.chi_square import ChiSquareSet


def _fraction_rows(matrix: np.ndarray) -> bool:
    return all(sum((Fraction(float(v)) for v in row), Fraction(0)) == 1 for row in matrix)


def _flint_rows(matrix: np.ndarray) -> bool:
    return all(exact_sum(row) == 1 for row in matrix)


def test_exact_row_sums_flint_vs_fraction(benchmark, record_ratio):
    matrix = exact_stochastic_rows(np.random.default_rng(0).random((240, 240)))
    baseline = best_of(lambda: _fraction_rows(matrix))
    assert benchmark(_flint_rows, matrix)
    record_ratio("fractions.Fraction row sums", baseline)


def test_theorem2_bound_arb_vs_mpmath(benchmark, record_ratio):
    rng = np.random.default_rng(1)
    counts = rng.integers(1, 400, size=(2, 16))
    radius = 0.02
    columns = rng.random((16, 240))
    total = int(counts[0].sum())
    k = None
    previous = flint.ctx.prec
    flint.ctx.prec = BALL_PRECISION
    try:
        k = conditional_k(counts, radius, 0)
        weights = [flint.arb(flint.fmpq(int(x), total)) for x in counts[0]]
        t, c = theorem2_multipliers(counts[0] / total, float(k.mid()), columns)

        def with_arb():
            return [theorem2_upper(weights, k, columns[:, j], t[j], c[j])
                    for j in range(columns.shape[1])]
        region = ChiSquareSet(counts[0] / total, float(k.mid()) - 1.0)

        def with_mpmath():
            return [region.certified_support_bound(columns[:, j], {"t": t[j], "c": c[j]})
                    for j in range(columns.shape[1])]
        baseline = best_of(with_mpmath)
        arb_values = benchmark(with_arb)
    finally:
        flint.ctx.prec = previous
    record_ratio("mpmath.iv (ChiSquareSet.certified_support_bound)", baseline)
    assert np.allclose(arb_values, [float(v) for v in with_mpmath()], rtol=1e-9, atol=1e-12)
    assert pytest.approx(0) != sum(arb_values)


def test_staircase_dual_knapsack_vs_milp(benchmark, record_ratio):
    """The staircase dual at k = 17 (mutual information): knapsack branch and bound vs the MILP."""
    from rldp_models.certificates.staircase_knapsack import check_by_knapsack
    from rldp_models.conelp.certificate_check import CHECK_TOLERANCE, check_staircase_dual
    from rldp_models.conelp.staircase import staircase_mechanism
    from rldp_models.utility import MutualInformation

    prior = np.random.default_rng(2).integers(1, 50, size=17).astype(float)
    prior /= prior.sum()
    ratio = float(np.exp(1.0))
    solution = staircase_mechanism(prior, 1.0, method="column-generation").solution.certificate
    dual = np.asarray(solution.dual, dtype=float) + max(float(solution.max_violation or 0.0), 0.0)
    milp = None

    def with_milp():
        nonlocal milp
        milp = check_staircase_dual(dual, MutualInformation(prior), ratio, method="milp")
    baseline = best_of(with_milp, repeats=1)
    knapsack = benchmark(check_by_knapsack, dual, prior, ratio, CHECK_TOLERANCE)
    record_ratio("HiGHS MILP with tangent cuts (check_staircase_dual)", baseline)
    assert knapsack.decided and knapsack.accepted == milp.accepted
