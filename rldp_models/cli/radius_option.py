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
    group.add_argument("--bootstrap-draws", type=bootstrap_draws, default=None, metavar="N",
                       help="simulated tables of the bootstrap (default: "
                            "rldp_models.uncertainty.calibration.BOOTSTRAP_DRAWS, 10,000)")
    group.add_argument("--bootstrap-seed", type=int, default=None, metavar="S",
                       help="seed of the bootstrap (default: "
                            "rldp_models.uncertainty.calibration.BOOTSTRAP_SEED, 0)")


MAX_BOOTSTRAP_DRAWS = 10**8
"""Most simulated tables ``--bootstrap-draws`` accepts (numpy refuses arrays far beyond)."""


def bootstrap_draws(text: str) -> int:
    """An argparse type: a whole number of simulated tables, at most
    :data:`MAX_BOOTSTRAP_DRAWS` (the bootstrap itself refuses fewer than 100)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value > MAX_BOOTSTRAP_DRAWS:
        raise argparse.ArgumentTypeError(f"at most {MAX_BOOTSTRAP_DRAWS:,} draws, got {text}")
    return value


def warn_if_sparse(crosstab: Crosstab, stream: IO[str] | None = None) -> str | None:
    """Print Cochran's-rule warning as one ``rldp: warning:`` line when it applies; return it."""
    from rldp_models.uncertainty.sparsity import sparsity_warning

    warning = sparsity_warning(crosstab)
    if warning is not None:
        (stream or sys.stderr).write(f"rldp: warning: {warning}\n")
    return warning
