"""V6: utility and privacy robust over the Wasserstein-1 ball of radius 0.1 around Phat, ground
cost ``|u - u'| + [s != s']`` on positions, declared only by its membership (a transport plan
with marginals Phat and P); privacy in product form, eps = 1. The set's coverage is not claimed.

Run: ``python docs/variants/v6_wasserstein.py --counts COUNTS.csv --out v6.json``; then
``rldp verify v6.json`` rebuilds the set from the record alone.
"""

import cvxpy as cp
import numpy as np

from rldp_models.data import Crosstab
from rldp_models.programs import ProtocolProgram, RobustDistortion, RobustSecretPrivacy
from rldp_models.uncertainty.conic_set import from_membership
from variant_io import arguments, solve_and_write


def program(crosstab: Crosstab) -> ProtocolProgram:
    """The V6 program over ``crosstab`` (U's positions are the distortion's values)."""
    s, u = np.indices(crosstab.shape).reshape(2, -1)
    cost = abs(u[:, None] - u[None, :]) + (s[:, None] != s[None, :])

    def ball(P, phat):  # a plan moving Phat to P at cost at most 0.1
        plan = cp.Variable((s.size, s.size), nonneg=True)
        return [cp.sum(plan, axis=1) == phat, cp.sum(plan, axis=0) == P,
                cp.sum(cp.multiply(cost, plan)) <= 0.1]

    y = np.arange(crosstab.shape[1])
    return ProtocolProgram(crosstab, RobustDistortion(), [RobustSecretPrivacy(1.0)],
                           uncertainty=from_membership(crosstab, ball, "wasserstein-1", 0.1),
                           distortion=(y[:, None] - y[None, :]) ** 2.0, name="V6 wasserstein")


def main() -> None:
    args = arguments(__doc__)
    solve_and_write(program(args.counts), args.out)


if __name__ == "__main__":
    main()
