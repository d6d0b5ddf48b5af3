"""The values of :mod:`rldp_models.symbolic`'s derivations that the solve path uses, without sympy.

Deriving them at run time costs an import of sympy (~0.3 s CPU) on every
``rldp solve`` / ``rldp verify`` for three closed forms. They are written here
once; ``tests/test_symbolic_values.py`` checks that :mod:`rldp_models.symbolic`
derives the same (exactly for the constant and the formulas, to one unit in the
last place for the floats of ``e^eps``), so the derivation stays the reference.

* :data:`THEOREM4_CONSTANT` -- ``K = 2^(-2/3) + 2^(1/3)`` of Theorem 4 (eq. 29).
* :func:`lemma2_conjugate` -- Lemma 2 (eq. 27) evaluated at ``eps``.
* :func:`theorem2_value`, :func:`theorem2_c` -- the minimum and minimiser of
  ``-2 sqrt(c) S + c (B + 1)`` over ``c > 0`` (Theorem 2, eq. 21).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

THEOREM4_CONSTANT = 1.8898815748423097
"""``float(2^(-2/3) + 2^(1/3))``, Theorem 4's ``K`` (``K^3 = 27/4``)."""


@dataclass(frozen=True)
class BlockConjugate:
    """Lemma 2 (eq. 27) in the form the builders use.

    The conjugate of ``L~ = P(y|s1,.).R1 - e^eps P(y|s2,.).R2`` is finite only at
    ``v1 = scale1 * P(y|s1,.)`` and ``v2 = scale2 * P(y|s2,.)``, where it equals
    ``value``; the robust constraint (eq. 30) is ``delta*(v1, v2) <= value``.
    """

    scale1: float
    scale2: float
    value: float


def lemma2_conjugate(eps: float) -> BlockConjugate:
    """Lemma 2 at ``eps``: ``q1 R1 - e^eps q2 R2`` has gradient ``(q1, -e^eps q2)``, value 0."""
    return BlockConjugate(1.0, -math.exp(eps), 0.0)


def theorem2_value(s: float, b: float) -> float:
    """``min_{c > 0} -2 sqrt(c) S + c (B + 1) = -S^2 / (B + 1)`` (Theorem 2, eq. 21)."""
    return -s**2 / (b + 1)


def theorem2_c(s: float, b: float) -> float:
    """The minimiser ``c* = S^2 / (B + 1)^2`` of :func:`theorem2_value`'s expression."""
    return s**2 / (b + 1) ** 2
