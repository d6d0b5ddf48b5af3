"""Exceptions raised for bad input.

Every error a user can cause by giving the toolkit bad data derives from
:class:`InputError`. The command line turns it into one line on stderr and
exit code 2; library users can catch it.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad user input: malformed counts, an out-of-range parameter, an unknown name."""


class TooManyRays(InputError):
    """A cone with more extreme rays than are enumerated (``MAX_RAYS``).

    A command that would enumerate them refuses (bad input, exit code 2);
    ``rldp verify``, whose re-check would need them, reports its check as
    inconclusive instead (exit code 3): the record was not shown to fail.
    """
