"""Uncertainty sets for the data distribution; one module per set."""

from rldp_models.uncertainty.base import UncertaintySet
from rldp_models.uncertainty.box import BoxSet
from rldp_models.uncertainty.chi_square import ChiSquareSet, SupportValue, chi_square_radius
from rldp_models.uncertainty.kl_ball import KLBallSet, kl_radius
from rldp_models.uncertainty.named import SET_NAMES, named_set
from rldp_models.uncertainty.pair_projection import PairProjection, PairSupportValue
from rldp_models.uncertainty.polyhedral import PolyhedralSet
from rldp_models.uncertainty.power_divergence import PowerDivergenceSet
from rldp_models.uncertainty.simplex import Simplex
from rldp_models.uncertainty.total_variation import TotalVariationSet

__all__ = ["SET_NAMES", "BoxSet", "ChiSquareSet", "KLBallSet", "PairProjection",
           "PairSupportValue", "PolyhedralSet", "PowerDivergenceSet", "Simplex", "SupportValue",
           "TotalVariationSet", "UncertaintySet", "chi_square_radius", "kl_radius", "named_set"]
