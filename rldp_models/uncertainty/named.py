"""The uncertainty sets the command line knows by name, and their default radii.

=====  ====================================  =========================================
name   set                                   default radius (from ``alpha``)
=====  ====================================  =========================================
chi2   chi-square set (eqs. 2-3)             ``chi2.ppf(1 - alpha, |X| - 1) / n``
kl     KL ball ``KL(Phat || P) <= r``        Wilks: ``chi2.ppf(1 - alpha, |X| - 1) / (2n)``
tv     l1 ball ``||P - Phat||_1 <= r``       the chi-square set's l1 radius (Prop. 10)
box    ``|P_x - Phat_x| <= r``               the chi-square set's widest Lemma 9 interval
power  ``I^lambda(Phat : P) <= r``           ``chi2.ppf(1 - alpha, |X| - 1) / (2n)``
renyi  ``D_a(Phat || P) <= rho``             the rho whose ball is the ``lambda = a - 1`` one
=====  ====================================  =========================================

``power`` needs ``lam`` (``--lambda``), ``renyi`` needs ``order`` (``--order``)
(:mod:`rldp_models.uncertainty.power_divergence`). ``power`` with
``lambda = 1`` and ``renyi`` of order 2 *are* the chi-square set, and are
built as :class:`~rldp_models.uncertainty.chi_square.ChiSquareSet`
(``B = 2 r``, resp. ``e^rho - 1``) so that robust privacy uses its exact
pair form (Theorems 3-4) rather than the product form
(:func:`routing_note` says so). ``lambda = 0`` / order 1 stays a
power-divergence set (it equals the ``kl`` ball; tests compare the two).

The tv and box defaults are the smallest balls of their kind around ``Phat``
(up to Proposition 10's bound when ``B < 1``) that contain the
``(1 - alpha)`` chi-square set, so they keep at least its coverage.
"""

from __future__ import annotations

from typing import Any, Callable

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.problem_kinds import UNCERTAINTY_SETS
from rldp_models.uncertainty.base import UncertaintySet
from rldp_models.uncertainty.box import BoxSet
from rldp_models.uncertainty.chi_square import ChiSquareSet
from rldp_models.uncertainty.kl_ball import KLBallSet
from rldp_models.uncertainty.power_divergence import (
    PowerDivergenceSet,
    renyi_to_power_radius,
    validated_lambda,
    validated_order,
)
from rldp_models.uncertainty.total_variation import TotalVariationSet

SET_NAMES = UNCERTAINTY_SETS


SHAPE_PARAMETERS = ("lam", "order")
"""Parameters beyond the radius that name a set of a family (``power``, ``renyi``)."""


def shape_parameters(declaration: dict[str, Any]) -> dict[str, float]:
    """``lam`` / ``order`` of a recorded set declaration, as :func:`named_set` takes them."""
    return {key: float(declaration[key]) for key in SHAPE_PARAMETERS
            if declaration.get(key) is not None}


def family_lambda(name: str, lam: float | None, order: float | None) -> float | None:
    """The power-divergence ``lambda`` of a ``power`` or ``renyi`` request (None for others)."""
    if name == "power":
        if lam is None:
            raise InputError("--uncertainty power needs --lambda L (any real number)")
        return validated_lambda(lam)
    if name == "renyi":
        if order is None and lam is not None:  # a recorded Rényi ball keeps lam = a - 1
            order = lam + 1.0
        if order is None:
            raise InputError("--uncertainty renyi needs --order A (a number > 0)")
        return validated_order(order) - 1.0
    if lam is not None or order is not None:
        raise InputError(f"--lambda and --order belong to --uncertainty power and renyi, "
                         f"not {name}")
    return None


def routing_note(name: str, lam: float | None = None, order: float | None = None) -> str | None:
    """What the user should be told when a family member is built as the chi-square set."""
    if family_lambda(name, lam, order) != 1.0:
        return None
    member = "lambda = 1" if name == "power" else "the Rényi ball of order 2"
    return (f"{name}: {member} is the chi-square set (eq. 2); solving over the exact chi-square "
            f"set (set chi2, Theorems 3-4 pair form), as --uncertainty chi2 would")


def named_set(name: str, crosstab: Crosstab, alpha: float,
              radius: float | None = None, lam: float | None = None,
              order: float | None = None) -> UncertaintySet:
    """The set ``name`` around ``crosstab``'s ``Phat``: of ``radius``, else the default above.

    ``lam`` (for ``power``) and ``order`` (for ``renyi``) choose the member of
    the power-divergence family; ``radius`` is then ``r`` (power) or ``rho`` (renyi).
    """
    if name not in SET_NAMES:
        raise InputError(f"unknown uncertainty set {name!r}; choose one of {', '.join(SET_NAMES)}")
    if radius is not None and not radius > 0:
        raise InputError(f"--radius must be positive, got {radius}")
    family = family_lambda(name, lam, order)
    if family is not None:
        return _family_set(name, crosstab, alpha, radius, family)
    phat = crosstab.phat
    builders: dict[str, Callable[[], UncertaintySet]]
    if radius is not None:
        given = radius
        builders = {"chi2": lambda: ChiSquareSet(phat, given),
                    "kl": lambda: KLBallSet(phat, given),
                    "tv": lambda: TotalVariationSet(phat, given),
                    "box": lambda: BoxSet.around(phat, given)}
        return builders[name]()
    chi_square = ChiSquareSet.from_counts(crosstab.counts, alpha)
    builders = {"chi2": lambda: chi_square,
                "kl": lambda: KLBallSet.from_counts(crosstab.counts, alpha),
                "tv": lambda: TotalVariationSet.containing(chi_square),
                "box": lambda: BoxSet.containing(chi_square)}
    return builders[name]()


def _family_set(name: str, crosstab: Crosstab, alpha: float, radius: float | None,
                lam: float) -> UncertaintySet:
    """A ``power`` / ``renyi`` set; ``lambda = 1`` is built as the chi-square set."""
    if lam == 1.0:
        if radius is None:
            return ChiSquareSet.from_counts(crosstab.counts, alpha)
        r = radius if name == "power" else renyi_to_power_radius(2.0, radius)
        return ChiSquareSet(crosstab.phat, 2.0 * r)
    if name == "power":
        return PowerDivergenceSet(crosstab.phat, radius, lam) if radius is not None else \
            PowerDivergenceSet.from_counts(crosstab.counts, alpha, lam)
    if radius is not None:
        return PowerDivergenceSet.renyi(crosstab.phat, lam + 1.0, radius)
    return PowerDivergenceSet.renyi_from_counts(crosstab.counts, alpha, lam + 1.0)
