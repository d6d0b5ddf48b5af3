"""Staircase duals on more inputs than the exact ray enumeration takes (``k > 12``).

:func:`rldp_models.conelp.exact_lp_dual.staircase_rays` writes out the ``2^k - 2``
rays of the LDP cone only up to ``2^k - 2 <= MAX_RAYS`` (``k <= 12``). Past
that, the stored dual ``lam`` and the engine's ``max_violation`` ``delta`` are
re-checked by the independent checker of
:mod:`rldp_models.conelp.certificate_check` on the shifted dual
``lam' = lam + max(delta, 0) 1`` at the outer ratio ``R >= e^eps``:

* brute force over every pattern for ``k <= 16`` (any utility);
* for mutual information at ``k > 16``, the knapsack branch and bound of
  :mod:`~rldp_models.certificates.staircase_knapsack` (the pattern utility
  depends on ``p(A)`` only), falling back to the HiGHS MILP with tangent cuts
  (Kelley); both prove ``max_A (mu(S_A) - lam'.S_A) / (1.S_A) <= tol``.

Both run in floating point (HiGHS, or the utility's own ``columns``), not in
exact rationals: the verdict says so. A MILP stopped at its time or round limit
without a proof or a violating pattern leaves the verdict inconclusive.
Accepted at ``tol`` per unit mass,
``lam' + tol 1`` is dual feasible, so every mechanism in the cone has utility
at most ``1.lam' + tol k`` (weak duality, rhs ``1``). ``Q`` is called optimal
when ``1.lam' - U(Q) <= GAP_TOLERANCE (1 + bound)``, ``U(Q)`` enclosed in
interval arithmetic (its lower end); the ``tol k`` is the check's own
resolution and is reported, not hidden. Other utilities past ``k = 16`` have
no independent check: the verdict is inconclusive
(:meth:`~rldp_models.certificates.verdict.Verdict.could_not_check`) and says why.
"""

from __future__ import annotations

import numpy as np

from rldp_models.certificates.staircase_knapsack import check_by_knapsack
from rldp_models.certificates.verdict import Verdict
from rldp_models.conelp.certificate_check import (
    BRUTE_FORCE_LIMIT,
    CHECK_TOLERANCE,
    DualCheck,
    check_staircase_dual,
)
from rldp_models.conelp.staircase_pricing import MutualInformationPricing
from rldp_models.conelp.exact_lp_dual import (
    GAP_TOLERANCE,
    interval_utility,
    outer_ratio,
    utility_lower_bound,
)
from rldp_models.exact import digits_text
from rldp_models.utility import ChiSquareDivergence, KLDivergence, MutualInformation, TotalVariation

_DIVERGENCES = {"kl": KLDivergence, "tv": TotalVariation, "chi2": ChiSquareDivergence}


def column_utility(utility: dict):
    """The :mod:`rldp_models.utility` object of a certificate's ``utility`` record."""
    measure, parameters = str(utility["measure"]), utility["parameters"]
    if measure == "mi":
        return MutualInformation(np.asarray(parameters["prior"], dtype=float))
    return _DIVERGENCES[measure](np.asarray(parameters["prior0"], dtype=float),
                                 np.asarray(parameters["prior1"], dtype=float))


def independent_check(dual: np.ndarray, utility, ratio: float) -> DualCheck:
    """The dual re-checked over every pattern: brute force up to ``k = 16``; for mutual information
    beyond, exact subset sums when the prior is counts ``n / N`` (a dynamic programme over
    ``(|A|, n(A))``; the knapsack needed more than 2 million nodes on duals that tie many
    patterns, k >= 26), else the knapsack branch and bound
    (:mod:`~rldp_models.certificates.staircase_knapsack`, which decided in 1 node a ``k = 24``
    dual the MILP left unproven after 600 s), then the MILP if the branch and bound gives up."""
    if dual.size > BRUTE_FORCE_LIMIT and isinstance(utility, MutualInformation) and ratio > 1:
        pricing = MutualInformationPricing(utility.prior, ratio)
        if pricing.has_integer_masses:  # a prior n / N: every pattern priced by subset sums
            worst = pricing.subset_sum_pricing(dual)[0] - CHECK_TOLERANCE
            return DualCheck(worst <= 0, worst, "subset-sums", 1)
    if dual.size > BRUTE_FORCE_LIMIT and isinstance(utility, MutualInformation):
        knapsack = check_by_knapsack(dual, utility.prior, ratio, CHECK_TOLERANCE)
        if knapsack.decided:
            return DualCheck(knapsack.accepted, knapsack.worst, "knapsack", knapsack.nodes)
    return check_staircase_dual(dual, utility, ratio)


def uncheckable(k: int, measure: str) -> str | None:
    """Why a staircase dual on ``k`` inputs for utility ``measure`` has no check, or ``None``.

    Mutual information is checked at every ``k``; other utilities by brute force
    up to ``k = 16`` (:data:`~rldp_models.conelp.certificate_check.BRUTE_FORCE_LIMIT`).
    """
    if measure == "mi" or k <= BRUTE_FORCE_LIMIT:
        return None
    return (f"the LP dual cannot be re-checked: the LDP cone on {k} inputs has {2**k - 2} "
            f"rays, and for the {measure} utility no independent check goes past "
            f"k = {BRUTE_FORCE_LIMIT}")


def large_staircase_verdict(fields: dict, Q: np.ndarray, eps: float) -> Verdict:
    """The staircase certificate ``fields`` checked for ``k > 12`` (module docstring)."""
    dual = np.asarray(fields["dual"], dtype=float)
    k = dual.size
    utility = fields["utility"]
    measure = str(utility["measure"])
    reason = uncheckable(k, measure)
    if reason is not None:
        return Verdict.could_not_check(reason)
    shift = max(float(fields.get("max_violation") or 0.0), 0.0)
    shifted = dual + shift
    check = independent_check(shifted, column_utility(utility), float(outer_ratio(eps)))
    dual_value = float(shifted.sum())
    bound = dual_value + CHECK_TOLERANCE * k
    attained = utility_lower_bound(interval_utility(measure, utility["parameters"]), Q)
    gap = dual_value - float(attained)
    optimal = gap <= GAP_TOLERANCE * (1 + abs(bound))
    how = {"brute-force": "every pattern written out",
           "subset-sums": "every pattern priced exactly by subset sums of the prior's counts",
           "knapsack": f"knapsack branch and bound on the exact pattern utility, {check.rounds} "
                       "nodes"}.get(check.method,
                                    f"HiGHS MILP with tangent cuts, {check.rounds} rounds")
    undecided = not check.accepted and not check.decided and optimal
    headline = f"LP dual lam + {shift:.3g} 1 checked over all {2**k - 2} patterns of the " \
        f"ldp cone at ratio >= e^eps by the independent checker ({how}; floating point)"
    if undecided:
        headline = f"the LP dual cannot be re-checked: the independent checker ({how}) " \
            "stopped at its limit with neither a proof nor a violating pattern"
    return Verdict(check.accepted and optimal, headline,
                   (f"dual infeasibility per unit mass <= {CHECK_TOLERANCE:g}: "
                    f"{'proved' if check.accepted else 'NOT proved'} (checker value "
                    f"{check.bound:.3e})",
                    f"utility bound {bound:.15g} (1.lam' + {CHECK_TOLERANCE:g} k"
                    f"{'' if check.accepted else ', not proved'}); U(Q) >= "
                    f"{digits_text(attained, 15)}; 1.lam' - U(Q) = {gap:.3e} (accepted <= "
                    f"{GAP_TOLERANCE:g} (1 + bound))"),
                   {"independent_check": check}, inconclusive=undecided)
