"""Each named set's membership as ``statistic(centre, P) <= radius(centre)``, over many centres.

A coverage study (:mod:`rldp_models.uncertainty.coverage`) builds ``F`` around
thousands of simulated tables and asks whether a reference ``P`` lies in each;
a calibration (:mod:`rldp_models.uncertainty.calibration`) needs the
distribution of the statistic itself. Both want the set's membership test in
closed form and vectorised over the centres. A :class:`SetStatistic` is that
test for one named set (:func:`rldp_models.uncertainty.named.named_set`),
written exactly as the set class writes it — same radius, same zero-cell rule:

=====  =========================================  =============================================
name   statistic of centre ``c`` at ``P``         radius (:mod:`~rldp_models.uncertainty.named`)
=====  =========================================  =============================================
chi2   ``sum_{c_x>0} c_x^2 / P_x - 1`` (eq. 4)    ``B = chi2.ppf(1 - alpha, |X|-1) / n`` (eq. 3)
kl     ``sum_{c_x>0} c_x log(c_x / P_x)``          ``B / 2`` (Wilks)
tv     ``sum_x |P_x - c_x|``                      Prop. 10's l1 radius of the chi2 set at ``c``
box    ``max_x |P_x - c_x|``                      the widest Lemma 9 interval of that set
=====  =========================================  =============================================

For ``P`` in the simplex, ``n`` times the chi2 statistic is Pearson's ``X^2``
of the table against ``P`` (``sum (c - P)^2 / P = sum c^2 / P - 1``) and ``2n``
times the kl statistic is the likelihood-ratio ``G^2``; a centre cell with
``c_x > 0`` and ``P_x = 0`` gives ``inf`` (not in the set).

A new set joins the study by :func:`register` (e.g. the power-divergence
family: ``I^lambda(c : P)`` and ``chi2.ppf(1 - alpha, |X|-1) / (2n)``); the
tests check every registered statistic against its set's own ``contains``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from rldp_models.errors import InputError
from rldp_models.uncertainty.chi_square import chi_square_radius

Statistic = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``statistic(centres, p)``: centres ``(d, k)``, ``p`` ``(k,)`` or ``(d, k)`` -> ``(d,)``."""

DefaultRadius = Callable[[np.ndarray, int, float], np.ndarray]
"""``radius(centres, n, alpha)`` -> ``(d,)``: the radius the toolkit gives each centre."""


@dataclass(frozen=True)
class SetStatistic:
    """A named set's membership ``statistic(c, P) <= radius(c)`` in vectorised closed form.

    Attributes
    ----------
    name : str
        The set's name in :data:`rldp_models.uncertainty.named.SET_NAMES`.
    statistic : Statistic
    default_radius : DefaultRadius
        The asymptotic radius (the one :func:`~rldp_models.uncertainty.named.named_set`
        uses when no radius is given).
    """

    name: str
    statistic: Statistic
    default_radius: DefaultRadius


_REGISTRY: dict[str, SetStatistic] = {}


def register(rule: SetStatistic) -> SetStatistic:
    """Add ``rule`` to the registry (replacing one of the same name) and return it."""
    _REGISTRY[rule.name] = rule
    return rule


def registered() -> tuple[str, ...]:
    """The names of the registered statistics, in registration order."""
    return tuple(_REGISTRY)


def set_statistic(name: str) -> SetStatistic:
    """The registered statistic of set ``name``; a one-line :class:`InputError` otherwise."""
    if name not in _REGISTRY:
        raise InputError(f"no coverage statistic for uncertainty set {name!r}; "
                         f"choose from {', '.join(_REGISTRY)}")
    return _REGISTRY[name]


def _rows(p: np.ndarray, centres: np.ndarray) -> np.ndarray:
    return np.broadcast_to(np.asarray(p, dtype=float), centres.shape)


def chi_square_statistic(centres: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``sum_{c_x > 0} c_x^2 / P_x - 1`` per centre (:meth:`ChiSquareSet.divergence`)."""
    p = _rows(p, centres)
    counted = centres > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(counted, centres**2 / np.where(counted, p, 1.0), 0.0)
    return np.where(np.any(counted & (p <= 0), axis=1), np.inf, terms.sum(axis=1) - 1.0)


def kl_statistic(centres: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``KL(c || P) = sum_{c_x > 0} c_x log(c_x / P_x)`` per centre (as ``KLBallSet``)."""
    p = _rows(p, centres)
    counted = centres > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(counted, centres * np.log(np.where(counted, centres / p, 1.0)), 0.0)
    return np.where(np.any(counted & (p <= 0), axis=1), np.inf, terms.sum(axis=1))


def l1_statistic(centres: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``||P - c||_1`` per centre."""
    return np.abs(_rows(p, centres) - centres).sum(axis=1)


def max_statistic(centres: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``max_x |P_x - c_x|`` per centre."""
    return np.abs(_rows(p, centres) - centres).max(axis=1)


def chi_square_default(centres: np.ndarray, n: int, alpha: float) -> np.ndarray:
    """eq. (3) for every centre (it depends on ``n`` and ``|X|`` only)."""
    return np.full(centres.shape[0], chi_square_radius(n, centres.shape[1], alpha))


def kl_default(centres: np.ndarray, n: int, alpha: float) -> np.ndarray:
    """Wilks' radius ``B / 2`` (:func:`~rldp_models.uncertainty.kl_ball.kl_radius`)."""
    return chi_square_default(centres, n, alpha) / 2


def l1_default(centres: np.ndarray, n: int, alpha: float) -> np.ndarray:
    """Proposition 10 at each centre: eq. (43) with ``q = min c`` when ``B >= 1``, else ``sqrt B``.

    As :meth:`ChiSquareSet.l1_radius`, which :meth:`TotalVariationSet.containing` uses.
    """
    b = chi_square_radius(n, centres.shape[1], alpha)
    if b < 1:
        return np.full(centres.shape[0], np.sqrt(b))
    q = centres.min(axis=1)
    return (b - 2 * b * q + np.sqrt(b * b + 4 * b * q - 4 * b * q * q)) / (b + 1)


@cache
def _lemma9() -> tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]]:
    """Lemma 9's roots, derived by sympy (:func:`rldp_models.symbolic.lemma9_bounds`)."""
    # Imported where the roots are derived: sympy (~0.3 s CPU) stays off every command that
    # only registers these statistics (solve and verify import this module via calibration).
    from rldp_models import symbolic

    return symbolic.lemma9_bounds()


def box_default(centres: np.ndarray, n: int, alpha: float) -> np.ndarray:
    """The widest Lemma 9 interval (eqs. 36-37, clipped to [0, 1]) at each centre.

    As :meth:`BoxSet.containing` of :meth:`ChiSquareSet.coordinate_bounds`.
    """
    b = chi_square_radius(n, centres.shape[1], alpha)
    lower, upper = _lemma9()
    low = np.clip(lower(centres, b), 0.0, 1.0)
    high = np.clip(upper(centres, b), 0.0, 1.0)
    return np.max(np.maximum(high - centres, centres - low), axis=1)


for _rule in (SetStatistic("chi2", chi_square_statistic, chi_square_default),
              SetStatistic("kl", kl_statistic, kl_default),
              SetStatistic("tv", l1_statistic, l1_default),
              SetStatistic("box", max_statistic, box_default)):
    register(_rule)


def validated_names(names: str | Sequence[str]) -> tuple[str, ...]:
    """Set names from ``"chi2,kl"`` or a list; each must be registered."""
    if isinstance(names, str):
        names = [name.strip() for name in names.split(",") if name.strip()]
    if not names:
        raise InputError("name at least one uncertainty set")
    for name in names:
        set_statistic(name)
    return tuple(names)
