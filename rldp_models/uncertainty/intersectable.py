"""``F1 & F2`` for the library's sets: the intersection as a set from data.

Each library set inherits :class:`Intersectable`; ``F1 & F2`` is
:func:`~rldp_models.uncertainty.conic_set.intersection` (the two memberships compiled
to conic data, each set keeping its closed forms for itself).
"""

from __future__ import annotations

from typing import Any, cast

from rldp_models.uncertainty.base import UncertaintySet


class Intersectable:
    """``self & other``: the intersection of two uncertainty sets (a set from data)."""

    def __and__(self, other: Any) -> Any:
        from rldp_models.uncertainty.conic_set import intersection  # conic data: on demand

        return intersection(cast(UncertaintySet, self), other)  # a set inheriting this
