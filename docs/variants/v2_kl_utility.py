"""V2: utility robust over a KL ball, privacy robust over the chi-square set.

Utility: worst-case expected squared distortion over ``KL(Phat || P) <= chi2.ppf(0.95,
|X| - 1) / (2n)`` (the block's own set, ``over=``); privacy: eps = 1 over the chi-square
set (alpha = 0.05, the program's set) in Theorem 4's exact pair form.

    python docs/variants/v2_kl_utility.py --counts counts.csv --out v2.json
"""

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.programs import ProtocolProgram, RobustDistortion, RobustSecretPrivacy
from rldp_models.uncertainty import ChiSquareSet, KLBallSet
from variant_io import arguments, solve_and_write


def program(crosstab: Crosstab) -> ProtocolProgram:
    positions = np.arange(crosstab.shape[1])
    squared = np.subtract.outer(positions, positions) ** 2.0
    chi2 = ChiSquareSet.from_counts(crosstab.counts, 0.05)
    kl = KLBallSet.from_counts(crosstab.counts, 0.05)
    return ProtocolProgram(crosstab, RobustDistortion(over=kl), [RobustSecretPrivacy(1.0)],
                           uncertainty=chi2, distortion=squared, name="V2")


def main() -> None:
    args = arguments(__doc__)
    solve_and_write(program(args.counts), args.out)


if __name__ == "__main__":
    main()
