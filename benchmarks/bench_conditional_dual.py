"""A proved conditional bound over a set from data: one Charnes-Cooper solve against bisection.

On V3's set (chi-square & box, ``docs/variants/v3_chi2_box.py``) at a 4x4 table, one
term ``sup_{R in C_s} q.R`` of the product-form privacy check is proved today by one
solve of the Charnes-Cooper form and its certificate
(:mod:`rldp_models.uncertainty.conditional_dual`; the secret's ``d_s`` solved each
round too), and before by the bisection of
:func:`~rldp_models.uncertainty.base.conditional_upper_bound` (one support solve per
step, then the proof). Both use the set's compiled (DPP) primal. The ratio is the
bisection's seconds over today's (about 29 on a loaded 2-core machine); today's bound must
be no looser than the bisection's by more than 1e-6 of ``max |q|``.
"""

from __future__ import annotations

import time

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.uncertainty.base import conditional_upper_bound
from rldp_models.uncertainty.conditional_dual import ConditionalDual
from rldp_models.uncertainty.primal_duals import PrimalDuals
from tests.variant_scripts import variant_script

COUNTS = np.array([[34, 27, 22, 14], [15, 6, 7, 5], [25, 9, 30, 12], [8, 19, 11, 23]])


def test_conditional_bound_one_solve_vs_bisection(benchmark, record_ratio):
    program = variant_script("v3_chi2_box.py")["program"]
    uncertainty = program(Crosstab.from_array(COUNTS)).uncertainty
    q = np.random.default_rng(0).uniform(0.0, 1.0, COUNTS.shape[1])
    start = time.perf_counter()
    baseline = conditional_upper_bound(uncertainty, q, 1)
    baseline_seconds = time.perf_counter() - start

    primal = PrimalDuals(uncertainty.description)  # compiled once per set, as the set does

    def proved() -> float:  # a fresh solve and proof each round (no kept terms)
        return ConditionalDual(uncertainty, primal).bound(q, 1).kappa

    kappa = benchmark(proved)
    assert kappa <= baseline.kappa + 1e-6 * float(np.abs(q).max())
    record_ratio("bisection on the support function", baseline_seconds)
