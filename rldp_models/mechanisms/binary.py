"""Binary mechanisms (``extremal-mechanisms-ldp.txt`` eqs. (14), (19)-(20)), and the
quaternary mechanism, the binary mechanism with the input released in the clear with
probability ``delta`` (eq. (24)).

Given a set ``T`` of inputs, the binary mechanism releases one bit:
``Q(0|x) = e^eps / (1 + e^eps)`` for ``x in T`` and ``1 / (1 + e^eps)``
otherwise, ``Q(1|x) = 1 - Q(0|x)``.

* For hypothesis testing between ``P_0`` and ``P_1`` (eq. (14)),
  ``T = {x : P_0(x) >= P_1(x)}``; it maximises every f-divergence for small
  ``eps`` (Theorem 5) and total variation for every ``eps`` (Theorem 6).
* For mutual information under ``P`` (eqs. (19)-(20)),
  ``T in argmin_A |P(A) - 1/2|``; it maximises ``I(X;Y)`` for small ``eps``
  (Theorem 12).

Privacy guarantee
-----------------
eps-LDP, with ``ldp_epsilon(Q) = eps`` whenever ``T`` is neither empty nor all
of ``X`` (otherwise both rows coincide and the level is 0).

Proof sketch: column 0 takes the value ``a = e^eps b`` on ``T`` and ``b`` off
``T``, column 1 the reverse, so every ratio ``Q(y|x) / Q(y|x')`` lies in
``{e^-eps, 1, e^eps}``, and ``e^eps`` is attained by ``x in T``, ``x' notin T``.
In doubles ``b = 1/(1+e^eps)`` is rounded to nearest and ``a`` is the largest
double ``<= e^eps b``, so the stored matrix is eps-LDP exactly. The binary
mechanism is a staircase mechanism (eq. (9)).

Quaternary mechanism
--------------------
(eps, delta)-LDP on a binary input: ``X = {0, 1}``, ``Y = {0, 1, 2, 3}``: with
probability ``delta`` the input is released in the clear (``Y = X``), otherwise
the binary mechanism is applied (``Y = 2`` w.p. ``1/(1+e^eps)`` from ``x = 0``
and ``e^eps/(1+e^eps)`` from ``x = 1``; ``Y = 3`` the reverse). Theorem 18: it
maximises every utility obeying the data processing inequality over all
(eps, delta)-LDP mechanisms on a binary input.

Privacy guarantee: (eps, delta)-LDP (eq. (23)), with
``approximate_ldp_delta(Q, eps) = delta``; for ``delta > 0`` it is not
eps'-LDP for any finite ``eps'``.

Proof sketch: for ``x != x'`` the set maximising ``Q(A|x) - e^eps Q(A|x')`` is
``A = {x}`` (the clear-text output, ``Q(x|x') = 0``) plus the outputs with
``Q(y|x) > e^eps Q(y|x')``; on outputs 2 and 3 the ratio is at most ``e^eps``,
so the maximum is ``delta``, attained by ``A = {x}``. In doubles ``b =
(1-delta)/(1+e^eps)`` is rounded to nearest and the large entry is the largest
double ``<= e^eps b``, so outputs 2 and 3 add exactly nothing and the stored
matrix is (eps, delta)-LDP exactly. The error region of the mechanism equals
that of (eps, delta)-LDP (Theorem 19), which is why it dominates (Theorem 20).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from rldp_models.errors import InputError
from rldp_models.mechanisms.base import Mechanism, as_mechanism_epsilon
from rldp_models.exact import float_at_most_exp_times
from rldp_models.validation import as_probability, as_probability_vector


MAX_PARTITION_INPUTS = 22
"""Largest ``|X|`` for which eq. (20) is solved by enumerating all ``2^|X|`` subsets."""


@dataclass(frozen=True)
class BinaryMechanism(Mechanism):
    """The binary mechanism of level ``eps`` for the set ``T`` (``in_t[x]`` is ``x in T``)."""

    eps: float
    in_t: tuple[bool, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", as_mechanism_epsilon(self.eps))
        in_t = tuple(bool(v) for v in np.asarray(self.in_t, dtype=bool).ravel())
        if len(in_t) < 2:
            raise InputError(f"a binary mechanism needs at least 2 inputs, got {len(in_t)}")
        object.__setattr__(self, "in_t", in_t)

    @classmethod
    def for_hypothesis_testing(cls, eps: float, prior0: ArrayLike, prior1: ArrayLike
                               ) -> "BinaryMechanism":
        """Eq. (14): ``T = {x : P_0(x) >= P_1(x)}``."""
        p0 = as_probability_vector(prior0, "prior0")
        p1 = as_probability_vector(prior1, "prior1")
        if p0.size != p1.size:
            raise InputError(f"prior0 and prior1 differ in length ({p0.size} != {p1.size})")
        return cls(eps, tuple(p0 >= p1))

    @classmethod
    def for_mutual_information(cls, eps: float, prior: ArrayLike) -> "BinaryMechanism":
        """Eqs. (19)-(20): ``T`` splits ``P`` as evenly as possible (:func:`balanced_partition`)."""
        return cls(eps, tuple(balanced_partition(prior)))

    @property
    def n_inputs(self) -> int:
        return len(self.in_t)

    def matrix(self) -> np.ndarray:
        low = 1.0 / (1.0 + np.exp(self.eps))
        high = float_at_most_exp_times(self.eps, low)
        in_t = np.array(self.in_t)
        first = np.where(in_t, high, low)
        return np.column_stack([first, np.where(in_t, low, high)])


def balanced_partition(prior: ArrayLike) -> np.ndarray:
    """A set ``T in argmin_A |P(A) - 1/2|`` (eq. (20)), as a boolean mask.

    Exhaustive over the ``2^|X|`` subsets (the problem is a number partition);
    ties go to the subset enumerated first.

    Raises
    ------
    InputError
        If ``|X| > MAX_PARTITION_INPUTS``.
    """
    p = as_probability_vector(prior, "prior")
    if p.size > MAX_PARTITION_INPUTS:
        raise InputError(f"eq. (20) is solved exhaustively; |X| = {p.size} exceeds "
                         f"{MAX_PARTITION_INPUTS}")
    masses = np.zeros(1)
    for p_x in p:
        masses = np.concatenate([masses, masses + p_x])
    best = int(np.argmin(np.abs(masses - 0.5)))
    return (best >> np.arange(p.size)) & 1 == 1


def binary_hypothesis_testing(eps: float, prior0: ArrayLike, prior1: ArrayLike) -> np.ndarray:
    """The matrix of the binary mechanism for testing ``P_0`` against ``P_1`` (eq. (14))."""
    return BinaryMechanism.for_hypothesis_testing(eps, prior0, prior1).matrix()


def binary_mutual_information(eps: float, prior: ArrayLike) -> np.ndarray:
    """The matrix of the binary mechanism for mutual information (eqs. (19)-(20))."""
    return BinaryMechanism.for_mutual_information(eps, prior).matrix()


@dataclass(frozen=True)
class Quaternary(Mechanism):
    """The quaternary mechanism of eq. (24) with levels ``eps`` and ``delta``."""

    eps: float
    delta: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", as_mechanism_epsilon(self.eps))
        object.__setattr__(self, "delta", as_probability(self.delta, "delta"))

    @property
    def n_inputs(self) -> int:
        return 2

    def matrix(self) -> np.ndarray:
        low = (1.0 - self.delta) / (1.0 + np.exp(self.eps))
        high = float_at_most_exp_times(self.eps, low)
        return np.array([[self.delta, 0.0, low, high],
                         [0.0, self.delta, high, low]])


def quaternary(eps: float, delta: float) -> np.ndarray:
    """The matrix of the quaternary mechanism (eq. (24)); see :class:`Quaternary`."""
    return Quaternary(eps, delta).matrix()
