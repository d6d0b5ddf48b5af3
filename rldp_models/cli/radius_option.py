"""``--radius-from asymptotic|bootstrap``: how a command chooses the radius of its set.

``add_radius_arguments(parser)`` adds the option and the bootstrap's size and
seed (the set is built by :meth:`rldp_models.api.ProgramSpec.uncertainty_set`).
"""

from __future__ import annotations

import argparse

from rldp_models.cli.common import seed, whole_number

RADIUS_FROM = ("asymptotic", "bootstrap")
"""Choices of ``--radius-from``."""


def add_radius_arguments(parser: argparse.ArgumentParser) -> None:
    """``--radius-from``, ``--bootstrap-draws`` and ``--bootstrap-seed``."""
    group = parser.add_argument_group("radius of the uncertainty set")
    group.add_argument("--radius-from", choices=RADIUS_FROM, default="asymptotic",
                       help="asymptotic: the chi-square quantile of --alpha (default); "
                            "bootstrap: the (1 - alpha) quantile of the set's statistic over "
                            "simulated tables (for sparse tables)")
    group.add_argument("--bootstrap-draws", type=bootstrap_draws, default=None, metavar="N",
                       help="simulated tables of the bootstrap (default: "
                            "rldp_models.uncertainty.calibration.BOOTSTRAP_DRAWS, 10,000)")
    group.add_argument("--bootstrap-seed", type=seed, default=None, metavar="S",
                       help="seed of the bootstrap (default: "
                            "rldp_models.uncertainty.calibration.BOOTSTRAP_SEED, 0)")


MAX_BOOTSTRAP_DRAWS = 10**8
"""Most simulated tables ``--bootstrap-draws`` accepts (numpy refuses arrays far beyond)."""


def bootstrap_draws(text: str) -> int:
    """An argparse type: a whole number of simulated tables, at most
    :data:`MAX_BOOTSTRAP_DRAWS` (the bootstrap itself refuses fewer than 100)."""
    return whole_number(text, 0, MAX_BOOTSTRAP_DRAWS)
