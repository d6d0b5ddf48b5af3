"""Robust protocol programs: a declarative builder and the four presets."""

from rldp_models.finish import Repair
from rldp_models.programs.components import (
    NominalDistortion,
    NominalSecretPrivacy,
    RobustDistortion,
    RobustSecretPrivacy,
    RowStochastic,
    ordered_secret_pairs,
)
from rldp_models.programs.context import BuildContext, ProblemData
from rldp_models.programs.linear_constraints import LinearConstraints
from rldp_models.programs.presets import PRESETS, nunp, nurp, preset, runp, rurp
from rldp_models.programs.protocol_program import ProtocolProgram
from rldp_models.programs.solution import ProtocolSolution
from rldp_models.programs.sweep import sweep
from rldp_models.programs.weighted_objective import WeightedDistortion

__all__ = [
    "PRESETS", "BuildContext", "LinearConstraints", "NominalDistortion", "NominalSecretPrivacy",
    "ProblemData", "ProtocolProgram", "ProtocolSolution", "Repair", "RobustDistortion",
    "RobustSecretPrivacy", "RowStochastic", "WeightedDistortion", "nunp", "nurp",
    "ordered_secret_pairs", "preset", "runp", "rurp", "sweep",
]
