"""A robust variant written without editing library code.

RURP (robust utility, robust privacy at eps, eqs. 10, 22, 30) plus one extra
requirement: between two designated secret values the release must also meet
the *nominal* guarantee (eq. 6 at Phat) at a stricter level eps2, in both
directions. The new requirement is a constraint family defined in this
script against the block contract (``rldp_models.programs.contract``): a
``GuaranteeFamily`` with ``build(context)`` and an exact
``check(protocol, program, multipliers)``; the library solves, rounds, runs
every check (the library's and this one) and repairs if needed.

Run:  python docs/examples/custom_variant.py   (exit code 0 iff all assertions hold)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.privacy.guarantees import GuaranteeCheck, check_nominal_privacy
from rldp_models.privacy.metrics import output_given_secret
from rldp_models.programs import (BuildContext, ProtocolProgram, RobustDistortion,
                                  RobustSecretPrivacy, preset)
from rldp_models.programs.contract import GuaranteeFamily, Multipliers
from rldp_models.uncertainty import ChiSquareSet


@dataclass(frozen=True)
class StrictPairPrivacy(GuaranteeFamily):
    """P(y|s1) <= e^eps2 P(y|s2) and P(y|s2) <= e^eps2 P(y|s1) at Phat, for all y."""

    s1: int
    s2: int
    eps2: float
    name: str = "strict_pair"
    robust: bool = False          # linear constraints; needs no uncertainty set

    @property
    def eps(self) -> float:       # the level of the guarantee this block states
        return self.eps2

    def build(self, context: BuildContext) -> None:
        conditional = context.value("conditional")        # Phat_{U|s}, shape (|S|, |U|)
        p1 = conditional[self.s1] @ context.block(self.s1)  # P(Y=. | S=s1), shape (|Y|,)
        p2 = conditional[self.s2] @ context.block(self.s2)
        factor = float(np.exp(self.eps2))
        context.add(self.name, [p1 <= factor * p2, p2 <= factor * p1])

    def check(self, protocol: np.ndarray, program: ProtocolProgram,
              multipliers: Multipliers) -> GuaranteeCheck:
        """Exact check: the library's nominal checker on the two rows of the crosstab."""
        n_u = program.crosstab.shape[1]
        rows = [self.s1, self.s2]
        sub_protocol = np.vstack([protocol[s * n_u:(s + 1) * n_u] for s in rows])
        sub = check_nominal_privacy(sub_protocol, program.crosstab.counts[rows], self.eps2)
        y, i, j = sub.worst_at                            # indices into the 2-row table
        return dataclasses.replace(sub, worst_at=(y, rows[i], rows[j]))


def main() -> int:
    counts = np.array([[30, 22, 9, 4],
                       [12, 25, 20, 8],
                       [3, 9, 21, 27]])
    crosstab = Crosstab.from_array(counts, s_labels=["a", "b", "c"],
                                   u_labels=["0", "1", "2", "3"])
    eps, eps2, alpha = 1.0, 0.02, 0.05
    uncertainty = ChiSquareSet.from_counts(crosstab.counts, alpha)

    program = ProtocolProgram(
        crosstab,
        objective=RobustDistortion(),
        constraints=[RobustSecretPrivacy(eps), StrictPairPrivacy(0, 1, eps2)],
        uncertainty=uncertainty,
        distortion="squared",
        eps=eps,
        name="RURP+strict(a,b)",
    )
    solution = program.solve(solver="clarabel")
    baseline = preset("RURP", crosstab, eps, alpha).solve(solver="clarabel")

    print(f"n = {crosstab.n}, B = {uncertainty.radius:.5f}, eps = {eps}, eps2 = {eps2} on (a, b)")
    print(f"{program.name}: {solution.status.value}, worst-case distortion "
          f"{solution.objective:.5f}")
    for check in solution.checks:  # the worst constraint named by its labels
        print("  " + check.summary(crosstab.s_labels, program.output_labels))
    if solution.repair is not None:
        print(f"  repaired with weight {solution.repair.weight:.2e}")
    print(f"RURP alone: worst-case distortion {baseline.objective:.5f}")
    conditional, _ = output_given_secret(solution.protocol, crosstab.phat)
    ratio = float(np.max(np.abs(np.log(conditional[0] / conditional[1]))))
    print(f"max_y |log P(y|a)/P(y|b)| at Phat: {ratio:.5f} (float; the exact check is above)")

    assert solution.guarantee_holds, "a guarantee failed its exact check"
    assert [c.kind for c in solution.checks] == ["robust", "nominal"]
    assert all(c.holds for c in solution.checks)
    assert ratio <= eps2 + 1e-12
    assert solution.objective >= baseline.objective - 1e-6, "an extra constraint cannot help"
    assert np.allclose(solution.protocol.sum(axis=1), 1.0)
    print("all assertions hold")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
