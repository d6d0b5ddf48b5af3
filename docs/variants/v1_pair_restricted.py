"""V1: RURP with robust privacy only for the pairs (first secret, second secret) and back.

Utility: worst-case expected squared distortion over the chi-square set (alpha = 0.05);
privacy: eps = 1 over the same set in Theorem 4's exact pair form, for the ordered pairs
(s0, s1) and (s1, s0) only. Squared distortion on U's positions 0..|U|-1 (labels unused).

    python docs/variants/v1_pair_restricted.py --counts counts.csv --out v1.json
"""

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.programs import ProtocolProgram, RobustDistortion, RobustSecretPrivacy
from rldp_models.uncertainty import ChiSquareSet
from variant_io import arguments, solve_and_write


def program(crosstab: Crosstab) -> ProtocolProgram:
    positions = np.arange(crosstab.shape[1])
    squared = np.subtract.outer(positions, positions) ** 2.0
    chi2 = ChiSquareSet.from_counts(crosstab.counts, 0.05)
    privacy = RobustSecretPrivacy(1.0, pairs=[(0, 1), (1, 0)])
    return ProtocolProgram(crosstab, RobustDistortion(), [privacy], uncertainty=chi2,
                           distortion=squared, name="V1")


def main() -> None:
    args = arguments(__doc__)
    solve_and_write(program(args.counts), args.out)


if __name__ == "__main__":
    main()
