"""Closed-form mechanisms: matrices ``Q[x, y] = P(Y=y | X=x)`` and seeded samplers.

One module per family (randomized response and SRR; the binary and quaternary
mechanisms; bit vectors and unary encoding; the truncated geometric; the
utility-optimized mechanisms); each module's docstring states the privacy guarantee
and a proof sketch with the paper's equation numbers, and every stored matrix
meets its guarantee exactly (checked by :mod:`rldp_models.privacy.matrix_checks`).
"""

from rldp_models.mechanisms.base import Mechanism
from rldp_models.mechanisms.binary import (BinaryMechanism, Quaternary, balanced_partition,
                                           binary_hypothesis_testing, binary_mutual_information,
                                           quaternary)
from rldp_models.mechanisms.geometric import TruncatedGeometric, truncated_geometric
from rldp_models.mechanisms.randomized_response import (RandomizedResponse,
                                                        SecretRandomizedResponse,
                                                        randomized_response,
                                                        secret_randomized_response)
from rldp_models.mechanisms.unary_encoding import (BitVectorMechanism, UnaryEncoding, bit_labels,
                                                   bits_to_index, encoding_level, index_to_bits,
                                                   unary_encoding)
from rldp_models.mechanisms.utility_optimized import (UtilityOptimizedRAPPOR, UtilityOptimizedRR,
                                                      utility_optimized_rappor,
                                                      utility_optimized_rr)

__all__ = [
    "BinaryMechanism", "BitVectorMechanism", "Mechanism", "Quaternary", "RandomizedResponse",
    "SecretRandomizedResponse", "TruncatedGeometric", "UnaryEncoding", "UtilityOptimizedRAPPOR",
    "UtilityOptimizedRR", "balanced_partition", "binary_hypothesis_testing",
    "binary_mutual_information", "bit_labels", "bits_to_index", "encoding_level",
    "index_to_bits", "quaternary", "randomized_response", "secret_randomized_response",
    "truncated_geometric", "unary_encoding", "utility_optimized_rappor", "utility_optimized_rr",
]
