"""V6: utility and privacy robust over the Wasserstein-1 ball of radius 0.1 around Phat, ground
cost ``|u - u'| + [s != s']`` on positions, declared only by its membership (a transport plan
with marginals Phat and P); privacy in product form, eps = 1. The set's coverage is not claimed.

Run: ``python docs/variants/v6_wasserstein.py --counts COUNTS.csv --out v6.json``; then
``rldp verify v6.json`` rebuilds the set from the record alone.
"""

import argparse

import cvxpy as cp
import numpy as np

from rldp_models.data import Crosstab
from rldp_models.programs import ProtocolProgram, RobustDistortion, RobustSecretPrivacy
from rldp_models.results.files import write_result
from rldp_models.results.program_result import solution_result
from rldp_models.uncertainty.conic_set import from_membership


def program(crosstab):
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


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    write_result(solution_result(program(Crosstab.from_csv(args.counts)).solve()), args.out)
