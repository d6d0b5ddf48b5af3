"""V3: utility and privacy robust over the chi-square set intersected with the box
``0.5 Phat <= P <= 1.5 Phat`` (cell by cell); privacy in product form, eps = 1, alpha = 0.05.

Run: ``python docs/variants/v3_chi2_box.py --counts COUNTS.csv --out v3.json``; then
``rldp verify v3.json`` rebuilds the set from the record alone.
"""

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.programs import ProtocolProgram, RobustDistortion, RobustSecretPrivacy
from rldp_models.uncertainty import ChiSquareSet
from rldp_models.uncertainty.conic_set import from_membership
from variant_io import arguments, solve_and_write


def program(crosstab: Crosstab) -> ProtocolProgram:
    """The V3 program over ``crosstab`` (U's positions are the distortion's values)."""
    u = np.arange(crosstab.shape[1])
    box = from_membership(crosstab, lambda P, phat: [0.5 * phat <= P, P <= 1.5 * phat], "box")
    chi2 = ChiSquareSet.from_counts(crosstab.counts, alpha=0.05)
    return ProtocolProgram(crosstab, RobustDistortion(), [RobustSecretPrivacy(1.0)],
                           uncertainty=chi2 & box, distortion=(u[:, None] - u[None, :]) ** 2.0,
                           name="V3 chi2&box")


def main() -> None:
    args = arguments(__doc__)
    solve_and_write(program(args.counts), args.out)


if __name__ == "__main__":
    main()
