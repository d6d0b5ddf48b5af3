"""The chi-square quantile behind the radii (eq. 3), without importing ``scipy.stats``.

The chi-square law with ``df`` degrees of freedom is the gamma law of shape
``df / 2`` and scale 2, so its quantile is ``2 P^{-1}(df / 2, q)`` with ``P``
the regularised lower incomplete gamma function. This is what
``scipy.stats.chi2.ppf`` computes (``chi2_gen._ppf`` in
``scipy/stats/_continuous_distns.py``: ``2*sc.gammaincinv(df/2, p)``, then
``* scale + loc`` with scale 1 and loc 0), and the tests check it is bit-equal.
Importing ``scipy.stats`` costs about 0.3 s; ``scipy.special`` is loaded anyway.
"""

from __future__ import annotations

from scipy.special import gammaincinv


def chi2_ppf(q: float, df: int) -> float:
    """The ``q``-quantile of the chi-square law with ``df`` degrees of freedom.

    Parameters
    ----------
    q : float
        A probability in ``[0, 1]`` (0 gives 0, 1 gives infinity).
    df : int
        Degrees of freedom, positive.
    """
    return float(2.0 * gammaincinv(df / 2, q))
