"""Sublinear utilities ``mu`` of a mechanism's columns.

A mechanism is a matrix ``Q[x, y] = P(Y=y | X=x)``; its column ``Q_y = Q[:, y]``
is a nonnegative vector over the inputs. The utilities of
``extremal-mechanisms-ldp.txt`` decompose as ``U(Q) = sum_y mu(Q_y)`` with ``mu``
sublinear (Definition 1: positively homogeneous and subadditive), which is what
makes the staircase LP of Theorem 4 exact.

* Mutual information (Sec. 4, the display after eq. (18)):
  ``mu(q) = sum_x p_x q_x log(q_x / p.q)``, so ``I(X;Y) = sum_y mu(Q_y)``.
* f-divergence between the output marginals ``M_0 = p_0 Q`` and ``M_1 = p_1 Q``
  (Sec. 3, eq. (12)): ``mu(q) = (p_1.q) f((p_0.q) / (p_1.q))``, the perspective
  of a convex ``f`` with ``f(1) = 0``, so ``D_f(M_0 || M_1) = sum_y mu(Q_y)``.

Logarithms are natural (nats). Zeros follow the usual conventions
``0 log 0 = 0`` and ``0 f(0/0) = 0``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Callable

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import rel_entr

from rldp_models.errors import InputError
from rldp_models.validation import as_nonnegative_array, as_probability_vector

F_AT_ONE_TOLERANCE = 1e-10
"""Largest accepted ``|f(1)|`` for a user-given f-divergence generator."""


class SublinearUtility(ABC):
    """A utility ``U(Q) = sum_y mu(Q_y)`` with ``mu`` sublinear.

    Attributes
    ----------
    size : int
        Number of inputs ``|X|`` (the length of a column).
    """

    size: int

    def columns(self, Q: ArrayLike) -> np.ndarray:
        """``mu`` of every column of ``Q`` (shape ``(size, m)``), as a vector of length ``m``.

        ``Q`` need not be stochastic: any nonnegative matrix of columns (for
        example the extreme rays of a privacy cone) is accepted. Each column
        is evaluated as ``mu(q) = s mu(q / s)`` with ``s = max(q)`` (positive
        homogeneity, Definition 1), so columns of tiny entries do not
        underflow: ``p1 . q`` rounding to 0 while ``p0 . q > 0`` would turn
        KL's finite value into ``inf``.
        """
        Q = as_nonnegative_array(Q, 2, "Q")
        if Q.shape[0] != self.size:
            raise InputError(f"columns must have length {self.size}, got {Q.shape[0]}")
        scale = Q.max(axis=0, initial=0.0)
        scale[scale == 0] = 1.0
        return scale * self._columns(Q / scale)

    def __call__(self, q: ArrayLike) -> float:
        """``mu(q)`` for one column ``q`` of length ``size``."""
        q = as_nonnegative_array(q, 1, "q")
        return float(self.columns(q[:, None])[0])

    def total(self, Q: ArrayLike) -> float:
        """``U(Q) = sum_y mu(Q[:, y])``."""
        return float(np.sum(self.columns(Q)))

    @abstractmethod
    def _columns(self, Q: np.ndarray) -> np.ndarray:
        """``mu`` of each column of a validated ``Q``."""


class MutualInformation(SublinearUtility):
    """Mutual information ``I(X;Y)`` under the input distribution ``prior``.

    ``mu(q) = sum_x p_x q_x log(q_x / p.q)`` (``extremal-mechanisms-ldp.txt``,
    Sec. 4, the display after eq. (18)), in nats.

    Parameters
    ----------
    prior : array_like, shape (k,)
        Distribution ``P`` of ``X``.
    """

    def __init__(self, prior: ArrayLike) -> None:
        self.prior = as_probability_vector(prior, "prior")
        self.size = self.prior.size

    def _columns(self, Q: np.ndarray) -> np.ndarray:
        joint = self.prior[:, None] * Q
        product = self.prior[:, None] * (self.prior @ Q)[None, :]
        return rel_entr(joint, product).sum(axis=0)


class FDivergence(SublinearUtility):
    """f-divergence ``D_f(M_0 || M_1)`` of the output marginals ``M_i = p_i Q``.

    ``mu(q) = t f(z / t)`` with ``z = p_0.q`` and ``t = p_1.q``
    (``extremal-mechanisms-ldp.txt``, eq. (12) and the discussion after
    Theorem 5). At ``t = 0`` the perspective is closed by continuity:
    ``0`` when ``z = 0``, and ``z * slope_at_infinity`` when ``z > 0``.

    Parameters
    ----------
    prior0, prior1 : array_like, shape (k,)
        The two hypotheses ``P_0`` and ``P_1`` over ``X``.
    f : callable
        Convex generator with ``f(1) = 0``, defined on ``[0, inf)``; it is
        applied elementwise through :func:`numpy.vectorize`.
    slope_at_infinity : float, default inf
        ``lim_{t -> inf} f(t) / t``; only used for columns with
        ``p_1.q = 0 < p_0.q``.

    Raises
    ------
    InputError
        If the priors are not distributions of equal length or
        ``|f(1)| > F_AT_ONE_TOLERANCE``.
    """

    def __init__(self, prior0: ArrayLike, prior1: ArrayLike,
                 f: Callable[[float], float], slope_at_infinity: float = np.inf) -> None:
        self.prior0 = as_probability_vector(prior0, "prior0")
        self.prior1 = as_probability_vector(prior1, "prior1")
        if self.prior0.size != self.prior1.size:
            raise InputError(f"prior0 and prior1 differ in length "
                             f"({self.prior0.size} != {self.prior1.size})")
        f_at_one = float(f(1.0))
        if not abs(f_at_one) <= F_AT_ONE_TOLERANCE:
            raise InputError(f"an f-divergence needs f(1) = 0, got f(1) = {f_at_one:.6g}")
        self.f = f
        self.slope_at_infinity = float(slope_at_infinity)
        self.size = self.prior0.size

    def _columns(self, Q: np.ndarray) -> np.ndarray:
        return self._perspective(self.prior0 @ Q, self.prior1 @ Q)

    def _perspective(self, z: np.ndarray, t: np.ndarray) -> np.ndarray:
        """``t f(z/t)``, closed at ``t = 0``."""
        out = np.zeros_like(z)
        escaping = (t <= 0) & (z > 0)
        out[escaping] = z[escaping] * self.slope_at_infinity
        positive = t > 0
        ratio = z[positive] / t[positive]
        out[positive] = t[positive] * np.vectorize(self.f, otypes=[float])(ratio)
        return out


class KLDivergence(FDivergence):
    """Kullback-Leibler divergence, ``f(t) = t log t`` (eq. (12) and Sec. 3.1)."""

    def __init__(self, prior0: ArrayLike, prior1: ArrayLike) -> None:
        super().__init__(prior0, prior1, _t_log_t)

    def _perspective(self, z: np.ndarray, t: np.ndarray) -> np.ndarray:
        return rel_entr(z, t)


class TotalVariation(FDivergence):
    """Total variation distance, ``f(t) = |t - 1| / 2`` (eq. (12), Theorem 6)."""

    def __init__(self, prior0: ArrayLike, prior1: ArrayLike) -> None:
        super().__init__(prior0, prior1, _half_abs_deviation, slope_at_infinity=0.5)

    def _perspective(self, z: np.ndarray, t: np.ndarray) -> np.ndarray:
        return np.abs(z - t) / 2.0


class ChiSquareDivergence(FDivergence):
    """Pearson chi-square divergence, ``f(t) = (t - 1)^2``."""

    def __init__(self, prior0: ArrayLike, prior1: ArrayLike) -> None:
        super().__init__(prior0, prior1, _squared_deviation)

    def _perspective(self, z: np.ndarray, t: np.ndarray) -> np.ndarray:
        out = np.where(z > 0, np.inf, 0.0)
        positive = t > 0
        out[positive] = (z[positive] - t[positive]) ** 2 / t[positive]
        return out


def kl_divergence(prior0: ArrayLike, prior1: ArrayLike) -> KLDivergence:
    """The utility ``D_kl(M_0 || M_1)`` of a mechanism (see :class:`KLDivergence`)."""
    return KLDivergence(prior0, prior1)


def total_variation(prior0: ArrayLike, prior1: ArrayLike) -> TotalVariation:
    """The utility ``||M_0 - M_1||_TV`` of a mechanism (see :class:`TotalVariation`)."""
    return TotalVariation(prior0, prior1)


def chi_square_divergence(prior0: ArrayLike, prior1: ArrayLike) -> ChiSquareDivergence:
    """The utility ``chi^2(M_0 || M_1)`` of a mechanism (see :class:`ChiSquareDivergence`)."""
    return ChiSquareDivergence(prior0, prior1)


def _t_log_t(t: float) -> float:
    return float(rel_entr(t, 1.0))


def _half_abs_deviation(t: float) -> float:
    return abs(t - 1.0) / 2.0


def _squared_deviation(t: float) -> float:
    return (t - 1.0) ** 2
