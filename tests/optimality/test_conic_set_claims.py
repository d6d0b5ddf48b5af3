"""The weak-duality claim of a program over a set declared by its membership (issue 34):
V3 (chi-square set intersected with a box, robust privacy in product form) on the eye x hair
colour table (4x4, n = 592).

The derived duals' cone rows sit on their boundary at the solver's tolerance; lifted inside
(:func:`~rldp_models.optimality.weak_duality.lifted`) they let the residual be cancelled.
Checked against the plain-cvxpy model of the same program
(:func:`tests.variants.independent.independent_optimum`): the claim is proved, its lower
bound is at most that optimum, and the gap is within issue 34's 1e-6.
"""

from __future__ import annotations

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.optimality.best_claim import solution_optimality
from rldp_models.programs import ProtocolProgram, RobustDistortion, RobustSecretPrivacy
from rldp_models.uncertainty import ChiSquareSet
from rldp_models.uncertainty.conic_set import from_membership
from tests.variants.independent import independent_optimum, v3_support

EYE_HAIR = np.array([[20, 94, 84, 17], [68, 7, 119, 26], [5, 16, 29, 14], [15, 10, 54, 14]])


def test_the_v3_gap_is_proved_below_the_optimum() -> None:
    crosstab = Crosstab.from_array(EYE_HAIR)
    u = np.arange(EYE_HAIR.shape[1])
    box = from_membership(crosstab, lambda P, phat: [0.5 * phat <= P, P <= 1.5 * phat], "box")
    chi2 = ChiSquareSet.from_counts(EYE_HAIR, alpha=0.05)
    program = ProtocolProgram(crosstab, RobustDistortion(), [RobustSecretPrivacy(1.0)],
                              uncertainty=chi2 & box, distortion=(u[:, None] - u[None, :]) ** 2.0)
    claim = solution_optimality(program.solve())
    optimum = independent_optimum(EYE_HAIR, v3_support(EYE_HAIR))
    assert claim["claimed"], claim.get("reason")
    assert claim["lower"] <= optimum + 1e-9 * abs(optimum)
    assert claim["relative_gap"] <= 1e-6
