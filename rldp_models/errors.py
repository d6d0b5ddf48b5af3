"""Exceptions raised for bad input.

Every error a user can cause by giving the toolkit bad data derives from
:class:`InputError`. The command line turns it into one line on stderr and
exit code 2; library users can catch it.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad user input: malformed counts, an out-of-range parameter, an unknown name."""
