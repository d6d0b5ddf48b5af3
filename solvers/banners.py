"""Solver banners stay off standard output, which carries results only.

HiGHS prints its copyright banner to the C ``stdout`` when the first
``highspy.Highs`` object of a process is constructed, before any option can
turn it off, and never again. :func:`silence_highs_banner` constructs that
first object with file descriptor 1 pointed at the null device, so every
later ``Highs()`` (direct, through Pyomo's ``appsi_highs`` or the cone-LP
engine) is silent. (``rldp solvers`` names the HiGHS version.)
"""

from __future__ import annotations

import os
import sys

_done = False


def silence_highs_banner() -> None:
    """Spend HiGHS's once-per-process banner on the null device (a no-op without highspy)."""
    global _done
    if _done:
        return
    try:
        import highspy
    except ImportError:
        return
    sys.stdout.flush()
    try:
        saved = os.dup(1)
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(null, 1)
        highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)
    _done = True
