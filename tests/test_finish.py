"""The one finish path: the fallback matrix is made only when mixing cannot pass."""

from __future__ import annotations

import numpy as np

from rldp_models.finish import Repair, finish


def _equal_rows(matrix: np.ndarray, weight: float | None) -> bool:
    """eps = 0 LDP, exactly: every row the same."""
    return bool(np.all(matrix == matrix[0]))


def _counting(matrix: np.ndarray):
    calls = []

    def make() -> np.ndarray:
        calls.append(1)
        return matrix

    return make, calls


def test_a_passing_matrix_never_makes_the_fallback() -> None:
    make, calls = _counting(np.array([[1.0, 0.0], [1.0, 0.0]]))
    finished = finish(np.array([[0.25, 0.75], [0.25, 0.75]]), _equal_rows, bool, fallback=make)
    assert finished.repair == Repair("none", 0.0) and calls == []


def test_the_fallback_is_made_once_when_mixing_cannot_help() -> None:
    constant = np.array([[0.0, 1.0], [0.0, 1.0]])
    make, calls = _counting(constant)
    finished = finish(np.array([[0.75, 0.25], [0.5, 0.5]]), _equal_rows, bool,
                      value=lambda m: float(m[:, 1].sum()), first_weight=None, fallback=make)
    assert np.array_equal(finished.matrix, constant) and calls == [1]
    assert finished.repair == Repair("fallback", 1.0, 0.75, 2.0)
