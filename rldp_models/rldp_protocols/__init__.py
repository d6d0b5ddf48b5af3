"""RLDP release protocols of ``rldp-privacy-utility-tradeoff.txt`` and their checker.

Low-complexity protocols (Secs. III, VI, VII): SRR, IR, GRR-CR, UE-CR, and
GRR as the LDP reference; each returns the full matrix over its own output
alphabet as an :class:`RLDPProtocol`. IR, GRR-CR and UE-CR also come in
product form (:func:`product_protocol` -> :class:`ProductProtocol`), proven
and verified from their factors (:func:`product_rldp_level`,
:func:`check_product_record`) without the dense matrix. PolyOpt (Sec. V, Theorems 11-12):
:func:`polyopt_protocol` returns a :class:`PolyOptResult`. :func:`rldp_epsilon` and
:func:`is_rldp` check any protocol against the chi-square set ``F``.
"""

from rldp_models.rldp_protocols.baselines import grr_protocol, srr_protocol
from rldp_models.rldp_protocols.checker import RLDPLevel, is_rldp, rldp_epsilon
from rldp_models.rldp_protocols.components import RLDPProtocol
from rldp_models.rldp_protocols.grr_conditional import grr_conditional, grr_cr_protocol
from rldp_models.rldp_protocols.independent_reporting import independent_reporting, ir_protocol
from rldp_models.rldp_protocols.polyopt import PolyOptResult, polyopt_protocol
from rldp_models.rldp_protocols.product_builders import PRODUCT_BUILDERS, product_protocol
from rldp_models.rldp_protocols.product_check import (check_product_record, product_record,
                                                      product_rldp_level)
from rldp_models.rldp_protocols.product_form import ProductProtocol
from rldp_models.rldp_protocols.ue_conditional import ue_conditional, ue_cr_protocol

__all__ = [
    "PRODUCT_BUILDERS", "PolyOptResult", "ProductProtocol", "RLDPLevel", "RLDPProtocol",
    "check_product_record", "product_protocol", "product_record", "product_rldp_level",
    "grr_conditional", "grr_cr_protocol",
    "grr_protocol", "independent_reporting", "ir_protocol", "is_rldp", "polyopt_protocol",
    "rldp_epsilon", "srr_protocol",
    "ue_conditional", "ue_cr_protocol",
]
