"""V7: RURP with the distortion matrix read from a file.

RURP over the chi-square set (alpha = 0.05, eps = 1, Theorem 4's exact pair form);
``d[u, y]`` from ``--distortion``, a |U| x |Y| CSV without header (Y = U).

    python docs/variants/v7_distortion_file.py --counts counts.csv --distortion d.csv \
        --out v7.json
"""

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.programs import ProtocolProgram, RobustDistortion, RobustSecretPrivacy
from rldp_models.uncertainty import ChiSquareSet
from variant_io import arguments, matrix_csv, one_line_errors, solve_and_write


def program(crosstab: Crosstab, distortion: np.ndarray) -> ProtocolProgram:
    chi2 = ChiSquareSet.from_counts(crosstab.counts, 0.05)
    return ProtocolProgram(crosstab, RobustDistortion(), [RobustSecretPrivacy(1.0)],
                           uncertainty=chi2, distortion=distortion, name="V7")


def main() -> None:
    args = arguments(__doc__, "--distortion")
    distortion = one_line_errors(matrix_csv, args.distortion)
    solve_and_write(one_line_errors(program, args.counts, distortion), args.out)


if __name__ == "__main__":
    main()
