"""V4: half nominal, half worst-case expected distortion; robust privacy.

Objective: ``0.5 E_Phat d + 0.5 max_{P in F} E_P d`` with F the chi-square set
(alpha = 0.05); privacy: eps = 1 over F in Theorem 4's exact pair form. Squared
distortion on U's positions.

    python docs/variants/v4_mixed_objective.py --counts counts.csv --out v4.json
"""

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.programs import ProtocolProgram, RobustSecretPrivacy, WeightedDistortion
from rldp_models.uncertainty import ChiSquareSet
from variant_io import arguments, solve_and_write


def program(crosstab: Crosstab) -> ProtocolProgram:
    positions = np.arange(crosstab.shape[1])
    squared = np.subtract.outer(positions, positions) ** 2.0
    chi2 = ChiSquareSet.from_counts(crosstab.counts, 0.05)
    objective = WeightedDistortion(nominal=0.5, worst_case=[(0.5, chi2)])
    return ProtocolProgram(crosstab, objective, [RobustSecretPrivacy(1.0)], uncertainty=chi2,
                           distortion=squared, name="V4")


def main() -> None:
    args = arguments(__doc__)
    solve_and_write(program(args.counts), args.out)


if __name__ == "__main__":
    main()
