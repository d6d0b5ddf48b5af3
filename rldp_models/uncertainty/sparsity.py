"""When is the asymptotic radius of an uncertainty set not to be trusted? Cochran's rule.

Every default radius (:mod:`rldp_models.uncertainty.named`) is the
``(1 - alpha)`` quantile of the chi-square limit of Pearson's ``X^2`` (or of
``G^2``) against the true distribution. The limit is a large-sample statement
about the *expected* cell counts ``n P_x``; Cochran's rule is the classical
threshold below which the chi-square approximation is considered unreliable:

    the approximation is poor if **any** expected count is below 1, or if
    **more than 20%** of the expected counts are below 5.

(W. G. Cochran, "Some methods for strengthening the common chi-square tests",
*Biometrics* 10(4):417-451, 1954, Sec. 9; restated in A. Agresti,
*Categorical Data Analysis*, 3rd ed., Wiley 2013, Sec. 3.2.) ``P`` is unknown,
so its estimate ``Phat`` stands in: the expected counts are the observed
counts ``n Phat_x``. A zero cell therefore always triggers the rule — rightly
for these sets, which bound an unseen cell by the simplex only, so the
radius's df count ``|X| - 1`` no longer matches the cells the statistic sees.

The rule is a warning, not a verdict: ``rldp coverage`` measures the actual
coverage on the table, and ``--radius-from bootstrap``
(:mod:`rldp_models.uncertainty.calibration`) calibrates the radius by simulation.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from rldp_models.data import Crosstab

SMALL_EXPECTED = 5.0
"""Cochran's "small" expected count."""

TINY_EXPECTED = 1.0
"""No expected count may fall below this."""

SMALL_SHARE = Fraction(1, 5)
"""At most this share of the cells may be small (exact, so 20% of 10 cells is 2)."""


def sparsity_warning(crosstab: Crosstab | np.ndarray) -> str | None:
    """A one-line warning when Cochran's rule (module docstring) says the table is too sparse.

    Parameters
    ----------
    crosstab : Crosstab or ndarray
        The table (counts); the expected counts are estimated by the counts.

    Returns
    -------
    str or None
        ``None`` when every expected count is ``>= 1`` and at most 20% are
        below 5; else the warning, naming how many cells break which part.
    """
    counts = np.asarray(crosstab.counts if isinstance(crosstab, Crosstab) else crosstab,
                        dtype=float)
    cells = counts.size
    tiny = int(np.sum(counts < TINY_EXPECTED))
    small = int(np.sum(counts < SMALL_EXPECTED))
    if tiny == 0 and small <= SMALL_SHARE * cells:
        return None
    return (f"sparse table: {small} of {cells} cells ({100 * small / cells:.0f}%) have fewer "
            f"than 5 records and {tiny} fewer than 1, so the chi-square radius may not give "
            f"its stated coverage (Cochran's rule: any cell < 1 or more than 20% < 5); "
            f"measure it with 'rldp coverage' or use --radius-from bootstrap")
