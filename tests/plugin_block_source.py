"""The source of a plug-in block, as a user writes it in a file of their own: nominal privacy
(eq. 6 at Phat) between the first two secrets only. The plug-in tests write it to a temporary
module (installed through an entry point, or loaded by ``rldp verify --plugins FILE``)."""

PAIR_PRIVACY = '''
from dataclasses import dataclass

import numpy as np

from rldp_models.privacy.guarantees import check_nominal_privacy
from rldp_models.programs.contract import GuaranteeFamily


@dataclass(frozen=True)
class PairNominalPrivacy(GuaranteeFamily):
    """Nominal privacy (eq. 6 at Phat) between the first two secrets only, at its own eps."""

    eps: float
    name: str = "pair_privacy"
    robust: bool = False

    def build(self, context):
        conditional = context.value("conditional")
        factor = float(np.exp(self.eps))
        first = conditional[0] @ context.block(0)
        second = conditional[1] @ context.block(1)
        context.add(self.name, [first <= factor * second, second <= factor * first])

    def check(self, protocol, program, multipliers):
        n_u = program.crosstab.shape[1]
        return check_nominal_privacy(protocol[: 2 * n_u], program.crosstab.counts[:2], self.eps)
'''
