"""Midpoint-radius enclosures of real vectors, computed in floating point.

A vector ``v`` is enclosed by ``(mid, rad)``: every entry satisfies
``|v_i - mid_i| <= rad_i``. The operations below keep that true in IEEE double
precision with rounding to nearest, by the a priori error bounds of floating
point summation: a sum of ``k`` terms computed in any order has error at most
``gamma_k`` times the sum of their moduli, ``gamma_k = k u / (1 - k u)``,
``u = 2^-53`` (Higham, *Accuracy and Stability of Numerical Algorithms*, 2002,
Lemma 3.1 and eq. 3.5; with fused multiply-adds the bound still holds), plus
``eta = 2^-1074`` per product for underflow (Rump, "Verification methods", Acta
Numerica 19, 2010, Section 2). Radii are inflated by a factor ``1 + 8 (k + 2) u``
that absorbs the rounding of the radius computation itself. This is Rump's
midpoint-radius interval arithmetic ("Fast and parallel interval arithmetic",
BIT 39, 1999) without switching the rounding mode, so it runs on numpy and
scipy.sparse products; python-flint's ``arb`` has no sparse matrix type, and a
product of a 10^6-nonzero matrix entry by entry in ``arb`` costs seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

UNIT_ROUNDOFF = 2.0**-53
SMALLEST_SUBNORMAL = 2.0**-1074


def gamma(k: int) -> float:
    """An upper bound on ``gamma_k = k u / (1 - k u)`` (Higham 2002, Lemma 3.1), in floats."""
    ku = (k + 1) * UNIT_ROUNDOFF
    if ku >= 0.5:
        raise ValueError(f"sums of {k} terms are beyond the a priori error bound")
    return float(np.nextafter(2.0 * ku, np.inf))


def _inflate(rad: np.ndarray, k: int) -> np.ndarray:
    """``rad`` times ``1 + 8 (k + 2) u``, plus ``(k + 2) eta``: covers the radius's own rounding."""
    return rad * (1.0 + 8.0 * (k + 2) * UNIT_ROUNDOFF) + (k + 2) * SMALLEST_SUBNORMAL


@dataclass(frozen=True)
class Enclosure:
    """``|v - mid| <= rad`` entrywise (module docstring)."""

    mid: np.ndarray
    rad: np.ndarray

    @classmethod
    def exact(cls, values: np.ndarray) -> "Enclosure":
        """Floating point numbers are exact rationals: radius zero."""
        values = np.asarray(values, dtype=float)
        return cls(values, np.zeros_like(values))

    def lower(self) -> np.ndarray:
        """A float below every enclosed value (rounded toward minus infinity)."""
        return np.where(self.rad == 0, self.mid, np.nextafter(self.mid - self.rad, -np.inf))

    def upper(self) -> np.ndarray:
        """A float above every enclosed value (rounded toward plus infinity)."""
        return np.where(self.rad == 0, self.mid, np.nextafter(self.mid + self.rad, np.inf))

    def __getitem__(self, index: np.ndarray | slice) -> "Enclosure":
        return Enclosure(self.mid[index], self.rad[index])

    def __add__(self, other: "Enclosure") -> "Enclosure":
        mid = self.mid + other.mid
        return Enclosure(mid, _inflate(self.rad + other.rad + UNIT_ROUNDOFF * np.abs(mid), 2))


def transpose_product(A: sp.spmatrix, v: Enclosure) -> Enclosure:
    """An enclosure of ``A^T v`` for a float matrix ``A`` (exact data) and enclosed ``v``.

    ``|fl(A^T mid) - A^T mid| <= gamma_k |A|^T |mid| + k eta`` with ``k`` the most
    nonzeros of a column, and ``|A^T (v - mid)| <= |A|^T rad``.
    """
    A = sp.csc_matrix(A)
    k = int(np.diff(A.indptr).max(initial=0)) + 1
    absolute = _with_data(A, np.abs(A.data))
    mid = A.T @ v.mid
    rad = absolute.T @ v.rad + gamma(k) * (absolute.T @ np.abs(v.mid))
    return Enclosure(np.asarray(mid, dtype=float), _inflate(np.asarray(rad, dtype=float), k))


def dot(a: np.ndarray, v: Enclosure) -> Enclosure:
    """An enclosure of ``a . v`` (a length-1 :class:`Enclosure`) for a float vector ``a``."""
    return transpose_product(sp.csc_matrix(np.asarray(a, dtype=float).reshape(-1, 1)), v)


def divide(v: Enclosure, divisor: Enclosure) -> Enclosure:
    """An enclosure of ``v / d`` for every ``d`` in ``divisor`` (which must exclude 0).

    ``|n/d - n0/d0| <= (rad_n + |n0/d0| rad_d) / (|d0| - rad_d)``, plus the rounding of
    ``n0/d0`` (at most ``u |n0/d0| + eta``).
    """
    if not np.all(np.abs(divisor.mid) > divisor.rad):
        raise ZeroDivisionError("a divisor's enclosure contains 0")
    mid = v.mid / divisor.mid
    quotient = np.abs(mid) * (1.0 + 2.0 * UNIT_ROUNDOFF) + SMALLEST_SUBNORMAL
    room = np.nextafter(np.nextafter(np.abs(divisor.mid) - divisor.rad, 0.0), 0.0)
    rad = (v.rad + quotient * divisor.rad) / room + UNIT_ROUNDOFF * quotient
    return Enclosure(mid, _inflate(rad, 2))


@dataclass(frozen=True)
class IntervalMatrix:
    """A sparse matrix ``M`` with ``|M - mid| <= rad`` entrywise; ``rad`` is positive on
    every structural nonzero of ``M`` (its pattern is ``M``'s)."""

    mid: sp.csr_matrix
    rad: sp.csr_matrix

    @classmethod
    def product_of(cls, A: sp.csr_matrix, B: sp.csc_matrix) -> "IntervalMatrix":
        """An enclosure of ``A B`` for float matrices (each entry a sum of at most ``k``
        products, ``k`` the most nonzeros of a column of ``B``)."""
        k = int(np.diff(B.indptr).max(initial=0)) + 1
        structure = _with_data(A, np.ones(A.nnz)) @ _with_data(B, np.ones(B.nnz))
        absolute = _with_data(A, np.abs(A.data)) @ _with_data(B, np.abs(B.data))
        bound = sp.csr_matrix(gamma(k) * (1.0 + 8.0 * (k + 2) * UNIT_ROUNDOFF) * absolute
                              + (k + 2) * SMALLEST_SUBNORMAL * structure)
        return cls(sp.csr_matrix(A @ B), bound)

    def times(self, v: Enclosure) -> Enclosure:
        """An enclosure of ``M v`` for every ``M`` and ``v`` enclosed."""
        k = int(np.diff(self.rad.indptr).max(initial=0)) + 1
        absolute = _with_data(self.mid, np.abs(self.mid.data))
        mid = self.mid @ v.mid
        reach = np.abs(v.mid) + v.rad
        rad = absolute @ v.rad + self.rad @ reach + gamma(k) * (absolute @ np.abs(v.mid))
        return Enclosure(np.asarray(mid, dtype=float), _inflate(np.asarray(rad, dtype=float),
                                                                k + 2))


def _with_data(matrix: sp.csr_matrix | sp.csc_matrix,
               data: np.ndarray) -> sp.csr_matrix | sp.csc_matrix:
    """``matrix``'s pattern with other entries (e.g. their moduli, or ones)."""
    copy = matrix.copy()
    copy.data = data
    return copy


def total(v: Enclosure) -> Enclosure:
    """An enclosure of the sum of the entries of ``v``."""
    return dot(np.ones(v.mid.size), v)
