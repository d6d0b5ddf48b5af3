"""RLDP release protocols of ``rldp-privacy-utility-tradeoff.txt`` and their checker.

Low-complexity protocols (Secs. III, VI, VII): SRR, IR, GRR-CR, UE-CR, and
GRR as the LDP reference; each returns the full matrix over its own output
alphabet as an :class:`RLDPProtocol`. PolyOpt (Sec. V, Theorems 11-12):
:func:`polyopt_protocol` returns a :class:`PolyOptResult`. :func:`rldp_epsilon` and
:func:`is_rldp` check any protocol against the chi-square set ``F``.
"""

from rldp_models.rldp_protocols.baselines import grr_protocol, srr_protocol
from rldp_models.rldp_protocols.checker import RLDPLevel, is_rldp, rldp_epsilon
from rldp_models.rldp_protocols.components import RLDPProtocol
from rldp_models.rldp_protocols.grr_conditional import grr_conditional, grr_cr_protocol
from rldp_models.rldp_protocols.independent_reporting import independent_reporting, ir_protocol
from rldp_models.rldp_protocols.polyopt import PolyOptResult, polyopt_protocol
from rldp_models.rldp_protocols.ue_conditional import ue_conditional, ue_cr_protocol

__all__ = [
    "PolyOptResult", "RLDPLevel", "RLDPProtocol", "grr_conditional", "grr_cr_protocol",
    "grr_protocol", "independent_reporting", "ir_protocol", "is_rldp", "polyopt_protocol",
    "rldp_epsilon", "srr_protocol",
    "ue_conditional", "ue_cr_protocol",
]
