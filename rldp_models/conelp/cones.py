"""H-representations ``{q >= 0 : A q >= 0}`` of the privacy cones, with safe constants.

Every privacy constraint of the cone LPs is a likelihood-ratio bound
``u.q <= e^eps w.q``. The rays and the returned mechanisms are computed for
the cone with ``e^eps`` replaced by :func:`inner_ratio`, a number *below*
``e^eps`` (the lower bounds ``e^-eps w.q <= u.q`` are written as
``u.q * ratio >= w.q``, so one inward constant serves both sides). The
computed cone is thus inside the stated one: its rays, float or rational,
give mechanisms meeting the stated ``eps`` exactly, with room
``PRIVACY_MARGIN`` for the rounding of the float pipeline (ray polishing, LP
solution, row normalisation, all near ``1e-15`` relative). The price is a
utility loss of order ``PRIVACY_MARGIN`` relative.

For small ``eps`` the relative margin ``(e^eps - 1) * 1e-9`` falls under the
float resolution of ``e^eps``, so the ratio also keeps ``ROUNDING_ROOM`` units
in the last place below ``e^eps``; below ``eps`` of about ``1e-14`` that
leaves no room above 1 and the ratio is 1 (perfect privacy, exactly
representable). The bound ``ratio <= e^eps`` itself is certified with interval
arithmetic, so ``Fraction(ratio)`` is a rational inner approximation too.

The row builders accept float arrays and exact object arrays of ``Fraction``
(:func:`rldp_models.conelp.joint.exact`) alike.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from rldp_models.validation import as_epsilon

PRIVACY_MARGIN = 1e-9
"""Relative inward margin on ``e^eps - 1`` (see the module docstring)."""

ROUNDING_ROOM = 64
"""Least inward margin, in units of ``2^-53`` relative to ``e^eps``."""

MAX_RATIO = 1e12
"""Cap on the ratio (reached at ``eps`` near 27.6). A ratio spans the LP's
coefficients; LP solvers reject wider ranges (HiGHS: ``1e15``), and any
ratio ``<= e^eps`` is safe. The utility given up is of order
``k eps e^-eps`` (randomized response, extremal paper eq. (22)): ``1e-10``."""


def inner_ratio(eps: float) -> float:
    """A safe inner ratio ``r``: the least of ``1 + (e^eps - 1)(1 - PRIVACY_MARGIN)``,
    ``e^eps (1 - ROUNDING_ROOM 2^-53)`` and ``MAX_RATIO``, but at least 1.

    ``r <= e^eps`` is certified with mpmath interval arithmetic (stepping
    ``r`` down by ulps if needed). ``r = 1`` (perfect privacy) is always safe.

    Raises
    ------
    InputError
        If ``eps`` is negative or not finite.
    """
    eps = as_epsilon(eps)
    ratio = min(1.0 + math.expm1(eps) * (1.0 - PRIVACY_MARGIN),
                math.exp(eps) * (1.0 - ROUNDING_ROOM * 2.0**-53), MAX_RATIO)
    lower = mpmath.iv.exp(mpmath.iv.mpf(eps)).a
    while ratio > 1.0 and mpmath.mpf(ratio) > lower:
        ratio = math.nextafter(ratio, 0.0)
    return max(ratio, 1.0)


def pairwise_ratio_rows(vectors: np.ndarray, ratio: float | Fraction) -> np.ndarray:
    """Rows ``ratio * v_j - v_i`` for all ordered pairs ``i != j`` of ``vectors``.

    ``q`` satisfies them when ``v_i.q <= ratio * v_j.q`` for all pairs: with
    ``v_s = p_{X|s}`` this is eq. (5) of ``privacy-funnel-ldp-lip.txt`` for one
    column (LDP w.r.t. ``S``); with ``v_x = e_x`` it is eq. (1) of
    ``extremal-mechanisms-ldp.txt`` (LDP).
    """
    n = vectors.shape[0]
    i, j = np.nonzero(~np.eye(n, dtype=bool))
    return ratio * vectors[j] - vectors[i]


def two_sided_ratio_rows(conditionals: np.ndarray, references: np.ndarray,
                         ratio: float | Fraction) -> np.ndarray:
    """Rows for ``references_i.q / ratio <= conditionals_i.q <= ratio * references_i.q``.

    Written as ``ratio * u - w`` and ``ratio * w - u`` (``u`` conditional,
    ``w`` reference), one pair per row ``i``: the LIP condition (10) of
    ``privacy-funnel-ldp-lip.txt`` in posterior form, and the SRLIP
    conditions (15)-(16) per attribute.
    """
    return np.vstack([ratio * conditionals - references, ratio * references - conditionals])

