"""Unary encoding against eq. (90), its level formula and its per-bit sampler."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rldp_models.mechanisms import (UnaryEncoding, bit_labels, bits_to_index, encoding_level,
                                    index_to_bits, unary_encoding)
from rldp_models.mechanisms.unary_encoding import MAX_MATRIX_BITS
from rldp_models.errors import InputError
from rldp_models.privacy import ldp_epsilon


def test_matrix_is_the_product_of_independent_bits() -> None:
    kappa, lam, k = 0.7, 0.2, 3
    Q = UnaryEncoding(kappa, lam, k).matrix()
    for x in range(k):
        for y, bits in enumerate(itertools.product([0, 1], repeat=k)):
            probability = np.prod([(kappa if j == x else lam) if bit else
                                   (1 - kappa if j == x else 1 - lam)
                                   for j, bit in enumerate(bits)])
            assert Q[x, y] == pytest.approx(probability, rel=1e-14)
    assert bit_labels(k)[4] == "100" and bits_to_index([True, False, False]) == 4


@pytest.mark.parametrize("setting, kappa, lam", [
    ("symmetric", np.exp(0.5) / (np.exp(0.5) + 1), 1 / (np.exp(0.5) + 1)),
    ("optimized", 0.5, 1 / (np.exp(1.0) + 1)),
    ("fair-others", np.exp(1.0) / (np.exp(1.0) + 1), 0.5),
])
def test_settings_of_section_vii_b(setting: str, kappa: float, lam: float) -> None:
    mechanism = UnaryEncoding.from_setting(setting, 1.0, 4)
    assert (mechanism.kappa, mechanism.lam) == pytest.approx((kappa, lam), rel=1e-15)
    assert encoding_level(kappa, lam) == pytest.approx(1.0, rel=1e-13)
    assert ldp_epsilon(unary_encoding(1.0, 4, setting)) == pytest.approx(1.0, rel=1e-13)


def test_level_conventions() -> None:
    assert encoding_level(0.4, 0.4) == 0.0
    assert encoding_level(1.0, 0.5) == np.inf
    assert UnaryEncoding(1.0, 1.0, 3).eps == 0.0  # the paper's low-eps optimum: no leakage


def test_bit_sampler_marginals_and_large_k() -> None:
    mechanism = UnaryEncoding(0.75, 0.25, 100)
    bits = mechanism.sample_bits(np.full(20000, 7), np.random.default_rng(0))
    assert bits.shape == (20000, 100)
    assert bits[:, 7].mean() == pytest.approx(0.75, abs=4 * np.sqrt(0.75 * 0.25 / 20000))
    others = np.delete(bits, 7, axis=1).mean()
    assert others == pytest.approx(0.25, abs=4 * np.sqrt(0.25 * 0.75 / (20000 * 99)))
    with pytest.raises(InputError):
        mechanism.matrix()
    with pytest.raises(InputError):
        UnaryEncoding(0.75, 0.25, MAX_MATRIX_BITS + 1).product_matrix()


def test_index_and_bits_round_trip() -> None:
    y = np.arange(32)
    np.testing.assert_array_equal(bits_to_index(index_to_bits(y, 5)), y)
