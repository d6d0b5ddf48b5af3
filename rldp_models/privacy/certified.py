"""A guarantee block's verdict for ``rldp verify``, and privacy between secrets checked afresh.

:class:`Certified` is what a block's ``certify`` hook returns
(:meth:`rldp_models.programs.contract.GuaranteeFamily.certify`): whether the
guarantee holds on the protocol, one headline, detail lines, and whether the
check could not be completed. :func:`secret_privacy` is the check of the
library's privacy between secrets over every output and pair: nominal (eq. 6
at ``Phat``) or robust (eq. 23 over ``F``), multipliers found afresh, never
read from a record.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.privacy.guarantees import check_nominal_privacy, check_robust_privacy
from rldp_models.privacy.metrics import epsilon_star
from rldp_models.privacy.set_privacy import check_product_privacy
from rldp_models.privacy.worst_case import worst_case_epsilon
from rldp_models.uncertainty.base import Capability, UncertaintySet
from rldp_models.uncertainty.chi_square import ChiSquareSet


@dataclass(frozen=True)
class Certified:
    """One guarantee's verdict on a protocol, in the words ``rldp verify`` prints.

    Attributes
    ----------
    holds : bool
        Decided exactly (rationals, interval refinement), not a float test.
    headline : str
        One line: what was checked, at which eps.
    details : tuple of str
    inconclusive : bool
        The check could not be completed (``holds`` is then false).
    """

    holds: bool
    headline: str
    details: tuple[str, ...] = ()
    inconclusive: bool = False


def secret_privacy(protocol: np.ndarray, crosstab: Crosstab,
                   uncertainty: UncertaintySet | None, eps: float,
                   outputs: Sequence[Any] | None = None,
                   candidates: dict[tuple[str, int], Any] | None = None) -> Certified:
    """Nominal privacy (eq. 6 at ``Phat``) when ``uncertainty`` is None, else robust privacy.

    Over a set with exact pair projections (the chi-square set) robust privacy
    is eq. (23) by Theorems 3-4, with the worst-case eps bracketed; over any
    other set it is the product form (**) of :mod:`rldp_models.uncertainty.base`,
    every bound found by the set's own search, starting from ``candidates`` where given (a
    record's stored bounds and their proofs, as
    :func:`~rldp_models.privacy.set_privacy.conditional_bounds` takes them: each is proved
    afresh or replaced). The worst constraint is named by the secrets' labels and the
    ``outputs`` labels (by index where not given).
    """
    if uncertainty is None:
        check = check_nominal_privacy(protocol, crosstab.counts, eps)
        return Certified(check.holds, f"nominal privacy (at Phat), eps = {eps:g}",
                         (f"worst-case eps at Phat: {epsilon_star(protocol, crosstab.phat):.9g}",
                          check.summary(crosstab.s_labels, outputs)))
    if Capability.EXACT_PAIR not in uncertainty.capabilities:
        product = check_product_privacy(protocol, uncertainty, eps, candidates)
        return Certified(product.holds, f"robust privacy over the {uncertainty.name} set "
                         f"(radius {uncertainty.radius:.6g}) in product form (sup over C_s1 <= "
                         f"e^eps inf over C_s2), eps = {eps:g}, bounds proved in interval "
                         f"arithmetic", (product.summary(crosstab.s_labels, outputs),))
    pairs = cast(ChiSquareSet, uncertainty)  # Theorem 3's pair projections are its own
    check = check_robust_privacy(protocol, crosstab.counts, pairs, eps)
    worst = worst_case_epsilon(protocol, crosstab.counts, pairs)
    alpha = "" if pairs.alpha is None else f", alpha = {pairs.alpha}"
    return Certified(check.holds, f"robust privacy (all P in the chi-square set{alpha}, B = "
                     f"{pairs.radius:.6g}), eps = {eps:g}",
                     (f"worst-case eps over F: {worst.certified:.9g} (certified upper bound); "
                      f"{worst.attained:.9g} attained by a distribution in F",
                      check.summary(crosstab.s_labels, outputs)))
