"""What a robust counterpart returns: its constraints and the multipliers that certify them.

Every set's ``support_at_most`` (and the library blocks built on it) returns one
:class:`ConicSupport`. It lives apart from the cvxpy code that fills it so that a
set module can name the type without importing cvxpy (~0.5 s): ``rldp solve``'s
default path writes the direct conic form and never builds a cvxpy model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import cvxpy as cp


@dataclass
class ConicSupport:
    """Constraints of one robust counterpart and its named multipliers."""

    constraints: list[Any]
    multipliers: dict[str, cp.Expression]
