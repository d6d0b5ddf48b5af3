"""The uncertainty sets the command line knows by name, and their default radii.

=====  ====================================  =========================================
name   set                                   default radius (from ``alpha``)
=====  ====================================  =========================================
chi2   chi-square set (eqs. 2-3)             ``chi2.ppf(1 - alpha, |X| - 1) / n``
kl     KL ball ``KL(Phat || P) <= r``        Wilks: ``chi2.ppf(1 - alpha, |X| - 1) / (2n)``
tv     l1 ball ``||P - Phat||_1 <= r``       the chi-square set's l1 radius (Prop. 10)
box    ``|P_x - Phat_x| <= r``               the chi-square set's widest Lemma 9 interval
=====  ====================================  =========================================

The tv and box defaults are the smallest balls of their kind around ``Phat``
(up to Proposition 10's bound when ``B < 1``) that contain the
``(1 - alpha)`` chi-square set, so they keep at least its coverage.
"""

from __future__ import annotations

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.problem_kinds import UNCERTAINTY_SETS
from rldp_models.uncertainty.base import UncertaintySet
from rldp_models.uncertainty.box import BoxSet
from rldp_models.uncertainty.chi_square import ChiSquareSet
from rldp_models.uncertainty.kl_ball import KLBallSet
from rldp_models.uncertainty.total_variation import TotalVariationSet

SET_NAMES = UNCERTAINTY_SETS


def named_set(name: str, crosstab: Crosstab, alpha: float,
              radius: float | None = None) -> UncertaintySet:
    """The set ``name`` around ``crosstab``'s ``Phat``: of ``radius``, else the default above."""
    if name not in SET_NAMES:
        raise InputError(f"unknown uncertainty set {name!r}; choose one of {', '.join(SET_NAMES)}")
    if radius is not None and not radius > 0:
        raise InputError(f"--radius must be positive, got {radius}")
    phat = crosstab.phat
    if radius is not None:
        return {"chi2": lambda: ChiSquareSet(phat, radius),
                "kl": lambda: KLBallSet(phat, radius),
                "tv": lambda: TotalVariationSet(phat, radius),
                "box": lambda: BoxSet.around(phat, radius)}[name]()
    chi_square = ChiSquareSet.from_counts(crosstab.counts, alpha)
    return {"chi2": lambda: chi_square,
            "kl": lambda: KLBallSet.from_counts(crosstab.counts, alpha),
            "tv": lambda: TotalVariationSet.containing(chi_square),
            "box": lambda: BoxSet.containing(chi_square)}[name]()
