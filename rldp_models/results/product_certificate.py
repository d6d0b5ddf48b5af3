"""The certificate of robust privacy in product form that a solve result stores.

For a set other than chi-square a result keeps, per secret ``s`` and side,
the group ``robust_privacy/sup[s]`` or ``robust_privacy/inf[s]`` of
``certificate.multipliers`` with ``bound`` (``hi[s, :]`` or ``lo[s, :]``) and
``per_output`` (the set's multipliers of ``delta*`` at each output's argument);
:mod:`rldp_models.certificates.product` re-checks them.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from rldp_models.privacy.set_privacy import conditional_bounds
from rldp_models.results.certificate_record import PRIVACY_GROUP
from rldp_models.uncertainty.base import UncertaintySet, embed

SIDES = (("sup", 1.0), ("inf", -1.0))
"""The two bounds per secret, and the sign that makes each a supremum."""


def group_name(side: str, s: int) -> str:
    """``robust_privacy/sup[s]`` or ``robust_privacy/inf[s]``."""
    return f"{PRIVACY_GROUP}/{side}[{s}]"


def product_certificate(protocol: np.ndarray, uncertainty: UncertaintySet,
                        candidates: dict[tuple[str, int], Any] | None = None) -> dict[str, dict]:
    """The groups of the module docstring for ``protocol``, proved bounds and their multipliers.

    ``candidates`` are the solver's bounds (``{("sup", s): hi[s], ("inf", s): lo[s]}``).
    """
    hi, lo = conditional_bounds(protocol, uncertainty, candidates)
    n_s, n_u = uncertainty.phat.shape
    blocks = protocol.reshape(n_s, n_u, -1)
    groups = {}
    for s, (side, sign) in itertools.product(range(n_s), SIDES):
        bound = hi[s] if side == "sup" else lo[s]
        per_output = [uncertainty.support_multipliers(
            embed(sign * blocks[s, :, y] - sign * bound[y], s, (n_s, n_u)))
            for y in range(blocks.shape[2])]
        groups[group_name(side, s)] = {"bound": bound, "per_output": per_output}
    return groups
