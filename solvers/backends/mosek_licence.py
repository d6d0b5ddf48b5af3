"""Detect whether MOSEK can run: the package imports and a licence can be checked out."""

from __future__ import annotations

import functools

from solvers.registry import Availability


@functools.lru_cache(maxsize=1)
def mosek_availability() -> Availability:
    """Availability of MOSEK, with the reason when absent.

    The licence is checked by checking out the base feature, the same thing
    MOSEK does before its first optimisation; no model is solved.
    """
    try:
        import mosek
    except ImportError:
        return Availability(False, "the mosek package is not installed (pip install mosek)")
    try:
        with mosek.Env() as env:
            env.checkoutlicense(mosek.feature.pts)
    except mosek.Error as exc:
        return Availability(False, f"no MOSEK licence found ({str(exc).splitlines()[0]})")
    return Availability(True)
