"""RLDP release protocols of ``rldp-privacy-utility-tradeoff.txt`` and their checker.

Low-complexity protocols (Secs. III, VI, VII): SRR, IR, GRR-CR, UE-CR, and
GRR as the LDP reference; each returns the full matrix over its own output
alphabet as an :class:`RLDPProtocol`. IR, GRR-CR and UE-CR also come in
factored form (:func:`factored_protocol` -> :class:`FactoredProtocol`), proven
and verified from their factors (:func:`factored_rldp_level`,
:func:`check_factored_record`) without the dense matrix. PolyOpt (Sec. V, Theorems 11-12):
:func:`polyopt_protocol` returns a :class:`PolyOptResult`. :func:`rldp_epsilon` and
:func:`is_rldp` check any protocol against the chi-square set ``F``.
"""

from rldp_models.rldp_protocols.checker import RLDPLevel, is_rldp, rldp_epsilon
from rldp_models.rldp_protocols.components import RLDPProtocol
from rldp_models.rldp_protocols.rr_protocols import (grr_conditional, grr_cr_protocol,
                                                     grr_protocol, independent_reporting,
                                                     ir_protocol, srr_protocol)
from rldp_models.rldp_protocols.polyopt import PolyOptResult, polyopt_protocol
from rldp_models.rldp_protocols.factored_builders import PRODUCT_BUILDERS, factored_protocol
from rldp_models.rldp_protocols.factored_check import (check_factored_record, factored_record,
                                                      factored_rldp_level)
from rldp_models.rldp_protocols.factored_form import FactoredProtocol
from rldp_models.rldp_protocols.ue_conditional import ue_conditional, ue_cr_protocol

__all__ = [
    "PRODUCT_BUILDERS", "PolyOptResult", "FactoredProtocol", "RLDPLevel", "RLDPProtocol",
    "check_factored_record", "factored_protocol", "factored_record", "factored_rldp_level",
    "grr_conditional", "grr_cr_protocol",
    "grr_protocol", "independent_reporting", "ir_protocol", "is_rldp", "polyopt_protocol",
    "rldp_epsilon", "srr_protocol",
    "ue_conditional", "ue_cr_protocol",
]
