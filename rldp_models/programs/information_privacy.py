"""Robust forms of two notions of the privacy-funnel paper, for any uncertainty set.

*LDP w.r.t. a secret S* (privacy-funnel Theorem 1) is eq. (6) for a release
that sees only the public data: ``P(y | s, u) = Q(y | u)``. In a protocol
program it is :class:`SecretBlind` (the rows of every secret are equal)
together with :class:`~rldp_models.programs.components.RobustSecretPrivacy`,
robust over the program's set.

*Local information privacy* (LIP, privacy-funnel Theorem 2) asks
``e^-eps <= P(y|s) / P(y) <= e^eps``. Over a set ``F`` the ratio of a
conditional (a linear-fractional function of ``P``) to a marginal (linear) is
not concave, so, as for pairs of secrets ((**) in
:mod:`rldp_models.uncertainty.base`), :class:`RobustInformationPrivacy` uses
the sufficient product form

``sup_{C_s} P(y|s) <= e^eps inf_F P(y)``  and  ``sup_F P(y) <= e^eps inf_{C_s} P(y|s)``,

convex in the protocol: the conditional bounds come from the set's
conditional robust counterpart, the marginal ones from its support function
at the columns ``P[:, y]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import cvxpy as cp
import numpy as np

from rldp_models.privacy.guarantees import GuaranteeCheck
from rldp_models.privacy.set_privacy import check_product_lip
from rldp_models.programs.components import (
    conditional_expectation_bounds,
    mixed_bounds,
    solver_bounds,
)
from rldp_models.programs.conic_builder import ConicBuilder
from rldp_models.programs.context import BuildContext
from rldp_models.programs.cvxpy_emission import emit_block
from rldp_models.programs.contract import (
    ConstraintFamily,
    GuaranteeFamily,
    Multipliers,
    set_capabilities,
)
from rldp_models.uncertainty.base import Capability, UncertaintySet

if TYPE_CHECKING:
    from rldp_models.programs.protocol_program import ProtocolProgram


@dataclass(frozen=True)
class SecretBlind(ConstraintFamily):
    """``P(y | s, u) = P(y | s', u)`` for all secrets: the release ignores ``S``."""

    name: str = "secret_blind"
    robust: bool = False

    def build(self, context: BuildContext) -> None:
        emit_block(self, context)

    def capabilities(self, uncertainty: UncertaintySet | None) -> frozenset[Capability]:
        return frozenset({Capability.LINEAR, Capability.DIRECT_CONIC})

    def build_conic(self, builder: ConicBuilder) -> None:
        """``P[(s, u), y] - P[(0, u), y] = 0`` for every secret ``s > 0``, as zero-cone rows."""
        n_s, n_u = builder.program.crosstab.shape
        cells = builder.protocol.reshape(n_s, n_u, -1)
        size = cells[0].size
        for s in range(1, n_s):
            local = np.arange(size)
            builder.add("zero", self.name, np.concatenate([local, local]),
                        np.concatenate([cells[s].ravel(), cells[0].ravel()]),
                        np.repeat([1.0, -1.0], size), 0.0, size)


@dataclass(frozen=True)
class RobustInformationPrivacy(GuaranteeFamily):
    """LIP for every ``P`` in the uncertainty set, in the product form of the module docstring.

    Groups: ``<name>/sup[s]``, ``<name>/inf[s]`` (conditional bounds),
    ``<name>/marginal`` (bounds ``up[y]``, ``low[y]`` on ``P(y)``) and
    ``<name>/ratio`` (the two families of inequalities).
    """

    eps: float
    name: str = "robust_lip"
    robust: bool = True

    def build(self, context: BuildContext) -> None:
        hi, lo = conditional_expectation_bounds(context, self.name)
        n_y = len(context.outputs)
        up = cp.Variable(n_y, name=f"{self.name}_marginal_sup")
        low = cp.Variable(n_y, name=f"{self.name}_marginal_inf")
        above = context.robust_set().support_at_most(context.P, up)
        below = context.robust_set().support_at_most(-context.P, -low)
        context.add(f"{self.name}/marginal", above.constraints + below.constraints)
        factor = float(np.exp(self.eps))
        ones = np.ones((context.n_s, 1))
        row = cp.reshape(low, (1, n_y), order="F")
        context.add(f"{self.name}/ratio", [hi <= factor * (ones @ row),
                                           ones @ cp.reshape(up, (1, n_y), order="F")
                                           <= factor * lo])

    def capabilities(self, uncertainty: UncertaintySet | None) -> frozenset[Capability]:
        """Linear over a linear set (conditional and marginal bounds are its LP duals)."""
        return set_capabilities(uncertainty) & {Capability.LINEAR}

    def check(self, protocol: np.ndarray, program: "ProtocolProgram",
              multipliers: Multipliers) -> GuaranteeCheck:
        """Proved bounds (interval arithmetic) on both sides of every ratio."""
        assert program.uncertainty is not None  # a robust program has a set
        return check_product_lip(protocol, program.uncertainty, self.eps,
                                 solver_bounds(multipliers, self.name))

    def mixed_multipliers(self, multipliers: Multipliers, weight: float,
                          n_outputs: int) -> Multipliers:
        """The conditional bounds of ``(1 - weight) P + weight U`` (see :func:`mixed_bounds`)."""
        return mixed_bounds(multipliers, self.name, weight, n_outputs)
