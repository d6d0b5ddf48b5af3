"""Cone LPs: optimal mechanisms as LPs over the extreme rays of a privacy cone.

Maximising ``sum_y mu(Q_y)`` (``mu`` sublinear) over mechanisms whose columns
lie in a polyhedral cone and sum to ``rhs`` is an LP over the cone's extreme
rays (Theorem 4 of ``extremal-mechanisms-ldp.txt``). :mod:`.engine` solves it
by column generation with a dual certificate (pricing all rays, or a pricing
oracle in :mod:`.column_generation`); :mod:`.rays`,
:mod:`.double_description` and :mod:`.exact_dd` supply the rays; the
instances are the staircase LP (:mod:`.staircase`; its exact pricing oracles in
:mod:`.staircase_pricing`, an independent check of its certificate in
:mod:`.certificate_check`), LDP w.r.t. a secret
(:mod:`.secret_ldp`), LIP (:mod:`.lip`) and SRLIP (:mod:`.srlip`) of
``privacy-funnel-ldp-lip.txt``. Every returned mechanism is certified
exactly against its notion and repaired if needed (:mod:`.mechanism`).
"""

from rldp_models.conelp.column_generation import solve_by_pricing
from rldp_models.conelp.cones import PRIVACY_MARGIN, inner_ratio
from rldp_models.conelp.double_description import extreme_rays
from rldp_models.conelp.engine import ConeLP, ConeLPSolution, DualCertificate
from rldp_models.conelp.lip import lip_mechanism
from rldp_models.conelp.mechanism import OptimalMechanism
from rldp_models.conelp.rays import ExplicitRays, StaircaseRays, staircase_rays
from rldp_models.conelp.secret_ldp import ldp_wrt_secret_mechanism
from rldp_models.conelp.srlip import SRLIPMechanism, srlip_mechanism
from rldp_models.conelp.staircase import staircase_mechanism
from rldp_models.finish import Repair

__all__ = [
    "PRIVACY_MARGIN", "ConeLP", "ConeLPSolution", "DualCertificate", "ExplicitRays",
    "OptimalMechanism", "Repair", "SRLIPMechanism", "StaircaseRays", "extreme_rays", "inner_ratio",
    "ldp_wrt_secret_mechanism", "lip_mechanism", "solve_by_pricing", "srlip_mechanism",
    "staircase_mechanism", "staircase_rays",
]
