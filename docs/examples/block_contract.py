"""A user block written against the block contract, through all three model forms.

``PairPrivacy(s1, s2, eps)``: between two designated secret values the release
meets nominal local differential privacy (eq. 6 at Phat) at its own, stricter
level, in both directions::

    P(y | s1) <= e^eps P(y | s2)  and  P(y | s2) <= e^eps P(y | s1)   for every y,

with ``P(y | s) = sum_u Phat(u | s) P(y | s, u)``. It is linear in the protocol,
so it declares the ``LINEAR`` capability (its cvxpy rows become the Pyomo LP's
rows) and writes its own direct conic rows (``DIRECT_CONIC``); its exact check
reuses the library's nominal checker on the two rows of the crosstab.

The script solves NUNP plus this block three ways — cvxpy + Clarabel, the
direct conic path (the default), HiGHS through Pyomo — and asserts that the
optima agree, that every answer passes the exact checks, and that the default
chose the direct path.

Run:  python docs/examples/block_contract.py   (exit code 0 iff all assertions hold)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.privacy.guarantees import GuaranteeCheck, check_nominal_privacy
from rldp_models.programs import (
    BuildContext,
    NominalDistortion,
    NominalSecretPrivacy,
    ProtocolProgram,
)
from rldp_models.programs.conic_builder import ConicBuilder, DataSource
from rldp_models.programs.contract import GuaranteeFamily, Multipliers
from rldp_models.uncertainty.base import Capability, UncertaintySet


@dataclass(frozen=True)
class PairPrivacy(GuaranteeFamily):
    """Nominal eps-LDP (eq. 6 at Phat) between secrets ``s1`` and ``s2``, both directions."""

    s1: int
    s2: int
    eps: float
    name: str = "pair_privacy"
    robust: bool = False  # reads Phat only: no uncertainty set needed

    def build(self, context: BuildContext) -> None:
        """The cvxpy form (always required)."""
        self._require_records(context.data.zero_secrets)
        conditional = context.value("conditional")  # Phat(u | s), shape (|S|, |U|)
        first = conditional[self.s1] @ context.block(self.s1)  # P(y | s1), shape (|Y|,)
        second = conditional[self.s2] @ context.block(self.s2)
        factor = float(np.exp(self.eps))
        context.add(self.name, [first <= factor * second, second <= factor * first])

    def capabilities(self, uncertainty: UncertaintySet | None) -> frozenset[Capability]:
        """Linear constraints, and direct rows below: every form, over any set."""
        return frozenset({Capability.LINEAR, Capability.DIRECT_CONIC})

    def build_conic(self, builder: ConicBuilder) -> None:
        """``Phat(.|a).P[a, y] - e^eps Phat(.|b).P[b, y] <= 0`` as nonnegative-cone rows.

        The coefficients are data (``DataSource("conditional", ...)``), so a
        kept model is refilled when the counts change.
        """
        self._require_records(builder.data.zero_secrets)
        n_u = builder.program.crosstab.shape[1]
        n_y = builder.protocol.shape[1]
        factor = float(np.exp(self.eps))
        for a, b in ((self.s1, self.s2), (self.s2, self.s1)):
            cells = np.concatenate([builder.protocol[a * n_u:(a + 1) * n_u],
                                    builder.protocol[b * n_u:(b + 1) * n_u]])  # (2 |U|, |Y|)
            rows = np.broadcast_to(np.arange(n_y), cells.shape)  # one row per output y
            secret = np.repeat([a, b], n_u) * n_u + np.tile(np.arange(n_u), 2)
            scale = np.repeat([1.0, -factor], n_u)
            data = DataSource("conditional", np.repeat(secret, n_y), np.repeat(scale, n_y))
            builder.add("nonneg", self.name, rows, cells, 0.0, 0.0, n_y,
                        fills=((slice(None), data),))

    def check(self, protocol: np.ndarray, program: ProtocolProgram,
              multipliers: Multipliers) -> GuaranteeCheck:
        """The exact check: the library's nominal checker on the two secrets' rows."""
        n_u = program.crosstab.shape[1]
        pair = [self.s1, self.s2]
        rows = np.vstack([protocol[s * n_u:(s + 1) * n_u] for s in pair])
        checked = check_nominal_privacy(rows, program.crosstab.counts[pair], self.eps)
        y, i, j = checked.worst_at  # indices into the two-row table
        return dataclasses.replace(checked, worst_at=(y, pair[i], pair[j]))

    def _require_records(self, zero_secrets: tuple[bool, ...]) -> None:
        if zero_secrets[self.s1] or zero_secrets[self.s2]:
            raise InputError(f"{self.name}: secrets {self.s1} and {self.s2} need records")


def program(crosstab: Crosstab, eps: float, eps_pair: float) -> ProtocolProgram:
    """NUNP at ``eps`` plus :class:`PairPrivacy` at ``eps_pair`` between secrets 0 and 1."""
    return ProtocolProgram(crosstab, NominalDistortion(),
                           [NominalSecretPrivacy(eps), PairPrivacy(0, 1, eps_pair)],
                           eps=eps, name="NUNP+pair")


def main() -> int:
    counts = np.array([[30, 22, 9, 4],
                       [12, 25, 20, 8],
                       [3, 9, 21, 27]])
    crosstab = Crosstab.from_array(counts, s_labels=["a", "b", "c"],
                                   u_labels=["0", "1", "2", "3"])
    eps, eps_pair = 1.0, 0.1
    solved = {solver: program(crosstab, eps, eps_pair).solve(solver=solver)
              for solver in ("clarabel", "clarabel-direct", "highs")}
    default = program(crosstab, eps, eps_pair).solve()
    without = ProtocolProgram(crosstab, NominalDistortion(), [NominalSecretPrivacy(eps)],
                              name="NUNP").solve(solver="clarabel")
    outputs = program(crosstab, eps, eps_pair).output_labels
    for solver, solution in solved.items():
        print(f"{solver:>15}: objective {solution.objective:.6f}; "
              + "; ".join(check.summary(crosstab.s_labels, outputs)
                          for check in solution.checks))
    print(f"default backend: {default.result.solver}; NUNP alone: {without.objective:.6f}")

    reference = solved["clarabel"].objective
    assert all(s.guarantee_holds for s in (*solved.values(), default))
    assert [c.kind for c in default.checks] == ["nominal", "nominal"]
    assert all(abs(s.objective - reference) <= 1e-6 for s in solved.values())
    assert default.result.solver == "clarabel-direct"
    assert reference >= without.objective - 1e-9, "an extra constraint cannot help"
    assert reference > without.objective + 1e-4, "the pair's stricter level binds"
    print("all assertions hold")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
