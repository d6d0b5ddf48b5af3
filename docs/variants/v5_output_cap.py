"""V5: RURP plus ``P(Y = last output | X = x) <= 0.3`` for every input x.

RURP over the chi-square set (alpha = 0.05, eps = 1, Theorem 4's exact pair form) with
the cap declared by its coefficients (:class:`LinearConstraints`), checked exactly in
rationals and re-checked by ``rldp verify``. Squared distortion on U's positions.

    python docs/variants/v5_output_cap.py --counts counts.csv --out v5.json
"""

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.programs import (
    LinearConstraints,
    ProtocolProgram,
    RobustDistortion,
    RobustSecretPrivacy,
)
from rldp_models.uncertainty import ChiSquareSet
from variant_io import arguments, solve_and_write


def program(crosstab: Crosstab, cap: float = 0.3) -> ProtocolProgram:
    positions = np.arange(crosstab.shape[1])
    squared = np.subtract.outer(positions, positions) ** 2.0
    chi2 = ChiSquareSet.from_counts(crosstab.counts, 0.05)
    last_output = LinearConstraints.from_statement("last_output_cap",
                                                   lambda P: P[:, -1] <= cap, crosstab)
    return ProtocolProgram(crosstab, RobustDistortion(), [RobustSecretPrivacy(1.0), last_output],
                           uncertainty=chi2, distortion=squared, name="V5")


def main() -> None:
    args = arguments(__doc__)
    solve_and_write(program(args.counts), args.out)


if __name__ == "__main__":
    main()
