"""``--radius-from asymptotic|bootstrap``: how a command chooses the radius of its set.

``add_radius_arguments(parser)`` adds the option and the bootstrap's size and
seed (the set is built by :meth:`rldp_models.api.ProgramSpec.uncertainty_set`);
:func:`warn_if_sparse` prints Cochran's-rule warning
(:mod:`rldp_models.uncertainty.sparsity`) on stderr.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, TYPE_CHECKING


if TYPE_CHECKING:  # the uncertainty package imports cvxpy: not at parser build (rldp X --help)
    from rldp_models.data import Crosstab

RADIUS_FROM = ("asymptotic", "bootstrap")
"""Choices of ``--radius-from``."""


def add_radius_arguments(parser: argparse.ArgumentParser) -> None:
    """``--radius-from``, ``--bootstrap-draws`` and ``--bootstrap-seed``."""
    group = parser.add_argument_group("radius of the uncertainty set")
    group.add_argument("--radius-from", choices=RADIUS_FROM, default="asymptotic",
                       help="asymptotic: the chi-square quantile of --alpha (default); "
                            "bootstrap: the (1 - alpha) quantile of the set's statistic over "
                            "simulated tables (for sparse tables)")
    group.add_argument("--bootstrap-draws", type=int, default=None, metavar="N",
                       help="simulated tables of the bootstrap (default: "
                            "rldp_models.uncertainty.calibration.BOOTSTRAP_DRAWS, 10,000)")
    group.add_argument("--bootstrap-seed", type=int, default=None, metavar="S",
                       help="seed of the bootstrap (default: "
                            "rldp_models.uncertainty.calibration.BOOTSTRAP_SEED, 0)")


def warn_if_sparse(crosstab: Crosstab, stream: IO[str] | None = None) -> str | None:
    """Print Cochran's-rule warning as one ``rldp: warning:`` line when it applies; return it."""
    from rldp_models.uncertainty.sparsity import sparsity_warning

    warning = sparsity_warning(crosstab)
    if warning is not None:
        (stream or sys.stderr).write(f"rldp: warning: {warning}\n")
    return warning
