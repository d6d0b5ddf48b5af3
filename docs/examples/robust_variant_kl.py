"""RURP against a KL ball, from declaration to a verified certificate.

The worked example of docs/tutorial-robust-variant.md:

1. declare the set ``{P : KL(Phat || P) <= r}`` with Wilks' radius and check its
   support function against a direct maximisation over the set;
2. declare the program (robust utility, robust privacy over that ball) and solve it;
3. verify the answer without the solver: the worst-case distortion by the set's
   certified bound (interval arithmetic, 60 digits) at the solver's multipliers
   against a distribution of the ball that attains it; the privacy guarantee by
   proved bounds on every conditional expectation, each compared with an
   independent Charnes-Cooper solve over the ball.

Run:  python docs/examples/robust_variant_kl.py   (exit code 0 iff all assertions hold)
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

from rldp_models.data import Crosstab
from rldp_models.programs import ProtocolProgram, RobustDistortion, RobustSecretPrivacy, preset
from rldp_models.uncertainty import KLBallSet
from rldp_models.privacy.set_privacy import conditional_bounds


def charnes_cooper(ball: KLBallSet, v: np.ndarray, s: int) -> float:
    """``sup_{P in ball} v.P(.|s)`` by the Charnes-Cooper primal: ``z = tau P``, ``sum z_s = 1``."""
    phat = ball.phat.ravel()
    n_u = ball.phat.shape[1]
    mask = phat > 0
    z, tau = cp.Variable(phat.size, nonneg=True), cp.Variable(nonneg=True)
    row = np.zeros(phat.size)
    row[s * n_u:(s + 1) * n_u] = 1.0
    entropy = float(phat[mask] @ np.log(phat[mask]))
    constraints = [cp.sum(z) == tau, row @ z == 1,  # tau * KL(phat || z / tau) <= tau * r
                   tau * entropy + phat[mask] @ cp.rel_entr(tau * np.ones(mask.sum()), z[mask])
                   <= ball.radius * tau]
    problem = cp.Problem(cp.Maximize(v @ z[s * n_u:(s + 1) * n_u]), constraints)
    problem.solve(solver="CLARABEL")
    return float(problem.value)


def main() -> int:
    counts = np.array([[30, 22, 9, 4],
                       [12, 25, 20, 8],
                       [3, 9, 0, 27]])
    crosstab = Crosstab.from_array(counts, s_labels=["a", "b", "c"],
                                   u_labels=["0", "1", "2", "3"])
    eps, alpha = 1.0, 0.05

    # 1. the set, and its support function against a direct maximisation
    ball = KLBallSet.from_counts(crosstab.counts, alpha)
    v = np.random.default_rng(0).normal(size=counts.size)
    closed_form = ball.support(v)
    _, attained = ball.worst_case(v)  # the primal exponential-cone program
    print(f"KL ball: r = {ball.radius:.5f} (Wilks, alpha = {alpha}); support at a random v: "
          f"closed form {closed_form:.8f}, direct {attained:.8f}")
    assert abs(closed_form - attained) < 1e-6

    # 2. the program
    program = ProtocolProgram(crosstab, objective=RobustDistortion(),
                              constraints=[RobustSecretPrivacy(eps)], uncertainty=ball,
                              distortion="squared", eps=eps, name="RURP-KL")
    solution = program.solve(solver="clarabel")
    print(f"{program.name}: {solution.status.value}, worst-case distortion "
          f"{solution.objective:.6f}")
    for check in solution.checks:  # the worst constraint named by its labels
        print("  " + check.summary(crosstab.s_labels, program.output_labels))
    assert solution.guarantee_holds

    # 3a. the objective's certificate: a bound at the solver's multipliers vs an attained value
    n_s, n_u = counts.shape
    protocol = solution.protocol
    per_cell = np.sum(protocol * np.tile(program.distortion_matrix, (n_s, 1)), axis=1)
    multipliers = solution.multipliers["robust_utility"]
    certified = float(ball.certified_support_bound(per_cell, multipliers))
    worst_point, worst_value = ball.worst_case(per_cell)
    print(f"  worst-case distortion: certified <= {certified:.9f} "
          f"(mu = {float(np.ravel(multipliers['mu'])[0]):.6f}), attained {worst_value:.9f} "
          f"at a P with KL(Phat || P) = {ball.divergence(worst_point):.5f}")
    assert ball.contains(worst_point)
    assert worst_value <= certified <= worst_value + 1e-6

    # 3b. the privacy certificate: proved bounds on sup / inf of P(y | s) over the ball
    hi, lo = conditional_bounds(protocol, ball)
    blocks = protocol.reshape(n_s, n_u, -1)
    gap = 0.0
    for s in range(n_s):
        for y in range(blocks.shape[2]):
            sup_direct = charnes_cooper(ball, blocks[s, :, y], s)
            inf_direct = -charnes_cooper(ball, -blocks[s, :, y], s)
            assert sup_direct <= hi[s, y] + 1e-7 and lo[s, y] <= inf_direct + 1e-7
            gap = max(gap, hi[s, y] - sup_direct, inf_direct - lo[s, y])
    worst_ratio = max(np.max(hi[s1] / lo[s2]) for s1 in range(n_s) for s2 in range(n_s)
                      if s1 != s2)
    print(f"  privacy: max_y sup P(y|s1) / inf P(y|s2) = {worst_ratio:.6f} <= e^eps = "
          f"{np.exp(eps):.6f}; proved bounds within {gap:.1e} of the direct solves")
    assert worst_ratio <= np.exp(eps)

    # the KL ball and the chi-square set at the same alpha
    chi_square = preset("RURP", crosstab, eps, alpha).solve(solver="clarabel")
    print(f"RURP over the chi-square set: worst-case distortion {chi_square.objective:.6f}")
    print("all assertions hold")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
