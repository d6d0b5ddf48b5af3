"""High-precision interval arithmetic for checking certificates.

Certificates are re-evaluated with :mod:`mpmath.iv` at :data:`DIGITS`
significant digits (>= 50, as issue 5 asks); every input double or fraction
is held exactly, so an interval's upper end is a rigorous upper bound on the
exact value. The toolkit's own checkers use 120 bits (:mod:`rldp_models.exact`);
:func:`high_precision` raises that for the duration of a certificate check.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import mpmath

from rldp_models.exact import iv

DIGITS = 60
"""Decimal digits of the interval arithmetic that checks certificates."""


@contextmanager
def high_precision(digits: int = DIGITS) -> Iterator[None]:
    """Run the block with :mod:`mpmath.iv` at ``digits`` decimal digits, then restore."""
    saved = iv.prec
    iv.dps = max(digits, 50)
    try:
        yield
    finally:
        iv.prec = saved


def upper_mpf(x: "mpmath.iv.mpf") -> mpmath.mpf:
    """The upper end of an interval as an :class:`mpmath.mpf`, every bit kept (no rounding)."""
    return mpmath.mp.make_mpf(x._mpi_[1])


def digits_text(x: mpmath.mpf, digits: int = 30) -> str:
    """``x`` to ``digits`` significant digits (for reports and JSON)."""
    return mpmath.nstr(x, digits, min_fixed=-4, max_fixed=6) if mpmath.isfinite(x) else str(x)
