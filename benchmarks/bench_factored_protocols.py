"""Structured (product-form) IR / GRR-CR / UE-CR against their dense matrices, and verify vs build.

* 3x5: build + RLDP level in product form, against the dense builder plus
  the dense checker (``rldp_epsilon``) timed in the same process; peak
  Python memory of both (tracemalloc) in ``extra_info``.
* Adult race x education (5x16) and education x occupation (16x15), slow:
  the product form alone (the dense UE-CR has 17^5 = 1.4 million columns,
  11 GB of doubles at 16x15 would be 16^16 columns: not run), with the
  dense matrix's size in ``extra_info``.
* Verify vs produce: :func:`check_factored_record` (factors alone) against
  the build + level of the same protocol.
* The dense checker with the decoupled pruning against the same checker with
  pruning disabled (every ratio estimated and proven by Theorem 4, the
  algorithm before it).
"""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest

from instances import ADULT
from timing import best_of
from rldp_models.data import Crosstab
from rldp_models.rldp_protocols import (grr_conditional, independent_reporting, rldp_epsilon,
                                        ue_conditional)
from rldp_models.rldp_protocols.factored_builders import grr_cr_factored, ir_factored, \
    ue_cr_factored
from rldp_models.rldp_protocols.factored_check import check_factored_record, factored_record, \
    factored_rldp_level

ALPHA, EPS = 0.05, 1.0
TABLE_3X5 = np.array([[30, 12, 5, 8, 2], [10, 25, 9, 3, 6], [4, 7, 20, 11, 9]], dtype=float)
STRUCTURED = {"ir": ir_factored, "grr-cr": grr_cr_factored, "ue-cr": ue_cr_factored}
DENSE = {"ir": independent_reporting, "grr-cr": grr_conditional, "ue-cr": ue_conditional}


def _peak_bytes(function) -> tuple[object, int]:
    tracemalloc.start()
    try:
        result = function()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _structured(kind: str, crosstab: Crosstab):
    protocol = STRUCTURED[kind](crosstab, EPS, ALPHA)
    return protocol, factored_rldp_level(protocol, crosstab.counts, ALPHA)


def _dense(kind: str, crosstab: Crosstab):
    protocol = DENSE[kind](crosstab, EPS, ALPHA)
    return protocol, rldp_epsilon(protocol.Q, crosstab, ALPHA)


@pytest.mark.parametrize("kind", list(STRUCTURED))
def test_structured_vs_dense_3x5(benchmark, record_ratio, kind):
    crosstab = Crosstab.from_array(TABLE_3X5)
    (_, dense_level), dense_peak = _peak_bytes(lambda: _dense(kind, crosstab))
    baseline = best_of(lambda: _dense(kind, crosstab), repeats=1)
    (protocol, level), peak = _peak_bytes(lambda: _structured(kind, crosstab))
    benchmark.pedantic(lambda: _structured(kind, crosstab), rounds=3, iterations=1)
    record_ratio(f"dense {kind} build + rldp_epsilon", baseline)
    benchmark.extra_info.update({"peak_bytes": peak, "dense_peak_bytes": dense_peak,
                                 "certified": level.certified,
                                 "dense_certified": dense_level.certified})
    assert level.certified <= EPS and level.certified >= dense_level.attained - 1e-9


@pytest.mark.parametrize("kind", list(STRUCTURED))
def test_verify_vs_produce(benchmark, record_ratio, kind):
    crosstab = Crosstab.from_array(TABLE_3X5)
    protocol = STRUCTURED[kind](crosstab, EPS, ALPHA)
    record = json.loads(json.dumps(factored_record(protocol)))
    produce = best_of(lambda: _structured(kind, crosstab), repeats=1)
    result = benchmark.pedantic(lambda: check_factored_record(record, crosstab.counts, EPS, ALPHA),
                                rounds=3, iterations=1)
    record_ratio(f"produce {kind} (build + level)", produce)
    assert result.holds


def test_dense_check_pruning(benchmark, record_ratio, monkeypatch):
    from rldp_models.privacy import worst_case

    crosstab = Crosstab.from_array(TABLE_3X5)
    Q = grr_conditional(crosstab, EPS, ALPHA).Q
    pruned = benchmark.pedantic(lambda: rldp_epsilon(Q, crosstab, ALPHA), rounds=1, iterations=1)
    with monkeypatch.context() as patch:
        patch.setattr(worst_case, "decoupled_ratio_bounds",
                      lambda blocks, counts, radius: np.where(
                          np.eye(blocks.shape[0], dtype=bool)[:, :, None], np.nan,
                          np.full((blocks.shape[0],) * 2 + (blocks.shape[2],), np.inf)))
        everything = None

        def unpruned():
            nonlocal everything
            everything = rldp_epsilon(Q, crosstab, ALPHA)
        baseline = best_of(unpruned, repeats=1)
    record_ratio("every ratio estimated and proven (no pruning)", baseline)
    assert pruned.certified == pytest.approx(everything.certified, abs=1e-12)


@pytest.mark.slow
@pytest.mark.skipif(not ADULT.exists(), reason="the Adult data is not on this machine")
@pytest.mark.parametrize("pair", [("race", "education"), ("education", "occupation")],
                         ids=lambda p: "x".join(p))
@pytest.mark.parametrize("kind", list(STRUCTURED))
def test_structured_adult(benchmark, kind, pair):
    crosstab = Crosstab.from_records(ADULT, *pair)
    (protocol, level), peak = _peak_bytes(lambda: _structured(kind, crosstab))
    benchmark.pedantic(lambda: _structured(kind, crosstab), rounds=1, iterations=1)
    record = factored_record(protocol)
    verify = best_of(lambda: check_factored_record(record, crosstab.counts, EPS, ALPHA),
                     repeats=1)
    benchmark.extra_info.update({"peak_bytes": peak, "dense_bytes": protocol.dense_bytes(),
                                 "outputs": str(protocol.output_count),
                                 "verify_seconds": verify, "certified": level.certified,
                                 "attained": level.attained})
    assert level.certified <= EPS
