"""Proved membership of a stored distribution in an uncertainty set other than chi-square.

The product-model optimality bound (:mod:`.lagrangian`) charges each robust
term at members of the sets; a member counts only when it provably lies in
its set. A stored member is a vector of doubles; it is read as the exact
rationals those doubles are and normalised to sum to 1 *exactly*
(:func:`exact_distribution`), then

* polyhedral sets and boxes (``A p <= b``, :class:`PolyhedralSet`): checked in
  exact rationals (``A`` and ``b`` as the rationals their doubles are);
* the l1 / total-variation ball (``sum |p - Phat| <= r``): exact rationals;
* the KL ball (``sum Phat log(Phat / p) <= r``) and the power-divergence
  family (``D_lambda(p) <= r``, Cressie-Read): in ball arithmetic
  (python-flint ``arb``), the logarithms and powers enclosed.

``Phat``, ``r``, ``A``, ``b`` are the set's own stored doubles (the set the
program was solved over, rebuilt by ``verify`` from the record).
"""

from __future__ import annotations

from typing import Any

import flint
import numpy as np

from rldp_models.uncertainty.kl_ball import KLBallSet
from rldp_models.uncertainty.polyhedral import PolyhedralSet
from rldp_models.uncertainty.power_divergence import PowerDivergenceSet
from rldp_models.uncertainty.total_variation import TotalVariationSet

PROVABLE = (PolyhedralSet, TotalVariationSet, KLBallSet, PowerDivergenceSet)
"""Set classes whose membership this module proves."""


def rational(value: float) -> Any:
    """The exact rational a double is (``flint.fmpq``)."""
    return flint.fmpq(*float(value).as_integer_ratio())


def exact_distribution(values: np.ndarray) -> list[Any] | None:
    """``values / sum(values)`` in exact rationals; None unless all >= 0 with a positive sum."""
    values = np.asarray(values, dtype=float).ravel()
    if not np.all(np.isfinite(values)) or not np.all(values >= 0) or not values.sum() > 0:
        return None
    entries = [rational(v) for v in values]
    total = sum(entries, flint.fmpq(0))
    return [e / total for e in entries]


def provable(uncertainty: Any) -> bool:
    """Whether membership in ``uncertainty`` can be proved here."""
    return isinstance(uncertainty, PROVABLE)


def proved_member(uncertainty: Any, p: list[Any]) -> bool:
    """Whether the exact distribution ``p`` (from :func:`exact_distribution`) lies in the set."""
    phat = [rational(w) for w in np.asarray(uncertainty.phat, dtype=float).ravel()]
    if len(p) != len(phat):
        return False
    if isinstance(uncertainty, PolyhedralSet):
        return _in_polyhedron(uncertainty, p)
    if isinstance(uncertainty, TotalVariationSet):
        spread = sum((abs(q - w) for q, w in zip(p, phat)), flint.fmpq(0))
        return bool(spread <= rational(uncertainty.radius))
    if isinstance(uncertainty, KLBallSet):
        return _divergence_at_most(phat, p, 0.0, rational(uncertainty.radius))
    if isinstance(uncertainty, PowerDivergenceSet):
        return _divergence_at_most(phat, p, float(uncertainty.lam),
                                   rational(uncertainty.divergence_radius))
    return False


def _in_polyhedron(uncertainty: PolyhedralSet, p: list[Any]) -> bool:
    a = flint.fmpq_mat([[rational(x) for x in row] for row in uncertainty.a_matrix.tolist()])
    column = flint.fmpq_mat([[q] for q in p])
    product = a * column
    return all(product[i, 0] <= rational(b) for i, b in enumerate(uncertainty.b_vector.tolist()))


def _divergence_at_most(phat: list[Any], p: list[Any], lam: float, radius: Any) -> bool:
    """``D_lambda(p) <= radius`` proved (``lam = 0``: KL(Phat || p); ``lam = -1``: KL(p || Phat);
    else ``sum_x Phat_x ((p_x / Phat_x)^(-lam) - 1) / (lam (lam + 1))``), cells with records."""
    total = flint.arb(0)
    exponent = flint.arb(rational(-lam))
    scale = flint.arb(rational(lam)) * (flint.arb(rational(lam)) + 1)
    for w, q in zip(phat, p):
        if w == 0:
            continue
        if q == 0:
            if lam >= 0:
                return False
            continue  # lam < 0: the cell's -Phat_x / (lam (lam + 1)) is added below
        ratio = flint.arb(q / w)
        if lam == 0.0:
            total += -flint.arb(w) * ratio.log()
        elif lam == -1.0:
            total += flint.arb(q) * ratio.log()
        else:
            total += flint.arb(w) * (ratio ** exponent - 1) / scale
    if lam < 0 and lam != -1.0:
        total += sum((-flint.arb(w) / scale for w, q in zip(phat, p) if w != 0 and q == 0),
                     flint.arb(0))
    return bool(total <= flint.arb(radius))
