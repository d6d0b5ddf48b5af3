"""Uncertainty sets for the data distribution; one module per set."""

from rldp_models.uncertainty.chi_square import ChiSquareSet, SupportValue, chi_square_radius
from rldp_models.uncertainty.pair_projection import PairProjection, PairSupportValue
from rldp_models.uncertainty.simplex import Simplex

__all__ = ["ChiSquareSet", "PairProjection", "PairSupportValue", "Simplex", "SupportValue",
           "chi_square_radius"]
