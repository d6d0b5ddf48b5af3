"""The exit codes of every ``rldp`` command: one table, the command-line contract.

=====  =================  ==========================================================
code   name               meaning
=====  =================  ==========================================================
0      ``OK``             the command did its work; for ``verify``: every guarantee
                          and certificate holds
1      ``FAILED``         a guarantee or certificate fails (each failure is named)
2      ``BAD_INPUT``      bad input: one line on stderr saying what and how to fix it
3      ``INCONCLUSIVE``   a check could not be completed (the output says which);
                          nothing was shown to fail
4      ``INTERNAL_ERROR`` a bug in the toolkit, not the input: one line on stderr
                          (``RLDP_DEBUG=1`` shows the traceback)
=====  =================  ==========================================================
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Exit status of an ``rldp`` command (see the module docstring)."""

    OK = 0
    FAILED = 1
    BAD_INPUT = 2
    INCONCLUSIVE = 3
    INTERNAL_ERROR = 4
