"""Exact release against ``numpy.random.Generator.choice`` per row group, in the same run.

* Sampling alone: one million records over a 12-row dyadic channel (Adult's
  sex x relationship size), OS random bits and one ``searchsorted``
  (:class:`~rldp_models.disclosure.sampling.DyadicRows`), against
  ``Generator.choice(p=row)`` once per row group (floating-point
  probabilities, not exact). Target: >= 1e6 records/s on one core.
* With CSV input and output: :func:`~rldp_models.disclosure.records.release_csv`
  on a one-million-record file against ``pandas.read_csv``, ``choice`` per row
  group and ``to_csv``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from timing import best_of
from rldp_models.exact import exact_stochastic_rows
from rldp_models.disclosure.records import release_csv
from rldp_models.disclosure.sampling import DyadicRows, os_random_words
from rldp_models.results.certified import CertifiedResult, Declaration, GuaranteeVerdict
from rldp_models.finish import Repair

RECORDS = 1_000_000
N_S, N_U = 2, 6


def channel_matrix() -> np.ndarray:
    return exact_stochastic_rows(np.random.default_rng(0).dirichlet(np.ones(N_U), N_S * N_U))


def choice_per_group(matrix: np.ndarray, which: np.ndarray, rng: np.random.Generator
                     ) -> np.ndarray:
    out = np.empty(which.size, dtype=np.int64)
    for row in range(matrix.shape[0]):
        mask = which == row
        out[mask] = rng.choice(matrix.shape[1], size=int(mask.sum()), p=matrix[row])
    return out


def test_sampling_alone_exact_vs_choice(benchmark, record_ratio) -> None:
    matrix = channel_matrix()
    rows = DyadicRows.from_rows(matrix)
    which = np.random.default_rng(1).integers(0, matrix.shape[0], RECORDS)
    rng = np.random.default_rng(2)
    baseline = best_of(lambda: choice_per_group(matrix, which, rng))
    drawn = benchmark(rows.draw, which, os_random_words)
    assert drawn.shape == (RECORDS,)
    record_ratio("Generator.choice per row group", baseline)


def _result(matrix: np.ndarray) -> CertifiedResult:
    inputs = [[f"s{s}", f"u{u}"] for s in range(N_S) for u in range(N_U)]
    return CertifiedResult("protocol", matrix, inputs, [f"u{u}" for u in range(N_U)],
                           {"measure": "", "value": 0.0, "sense": "max"},
                           (GuaranteeVerdict("test", 1.0, True),), {}, Repair("none", 0.0),
                           Declaration("protocol", "bench"))


def _pandas_choice(matrix: np.ndarray, data, out) -> None:
    frame = pd.read_csv(data, dtype=str)
    which = (frame["s"].str[1:].astype(int) * N_U + frame["u"].str[1:].astype(int)).to_numpy()
    codes = choice_per_group(matrix, which, np.random.default_rng(3))
    pd.DataFrame({"Y": np.array([f"u{u}" for u in range(N_U)])[codes]}).to_csv(out, index=False)


def test_release_with_csv_io_exact_vs_choice(benchmark, record_ratio, tmp_path) -> None:
    matrix = channel_matrix()
    rng = np.random.default_rng(4)
    data = tmp_path / "records.csv"
    pd.DataFrame({"s": [f"s{v}" for v in rng.integers(0, N_S, RECORDS)],
                  "u": [f"u{v}" for v in rng.integers(0, N_U, RECORDS)]}).to_csv(data,
                                                                                   index=False)
    baseline = best_of(lambda: _pandas_choice(matrix, data, tmp_path / "choice.csv"), 1)
    result = _result(matrix)

    def exact() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            release_csv(result, data, "s", "u", tmp_path / "released.csv")

    benchmark.pedantic(exact, rounds=1, iterations=1)
    assert (tmp_path / "released.csv").exists()
    record_ratio("pandas read, choice per row group, to_csv", baseline)


if __name__ == "__main__":
    pytest.main([__file__, "--benchmark-enable", "-q"])
