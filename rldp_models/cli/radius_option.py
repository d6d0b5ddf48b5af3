"""``--radius-from asymptotic|bootstrap``: how a command chooses the radius of its set.

``add_radius_arguments(parser)`` adds the option and the bootstrap's size and
seed; ``uncertainty_from_args(args, crosstab)`` builds the set
(:func:`rldp_models.uncertainty.named.named_set` for the asymptotic radius or
an explicit ``--radius``, :func:`rldp_models.uncertainty.calibration.calibrated_set`
for the bootstrap); :func:`radius_record` is what a result JSON should say about
it; :func:`warn_if_sparse` prints Cochran's-rule warning
(:mod:`rldp_models.uncertainty.sparsity`) on stderr.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, TYPE_CHECKING, Any

from rldp_models.errors import InputError

if TYPE_CHECKING:  # the uncertainty package imports cvxpy: not at parser build (rldp X --help)
    from rldp_models.data import Crosstab
    from rldp_models.uncertainty.base import UncertaintySet

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


def uncertainty_from_args(args: argparse.Namespace, crosstab: Crosstab, name: str | None = None,
                          alpha: float | None = None) -> UncertaintySet:
    """The set the arguments ask for around ``crosstab``.

    Parameters
    ----------
    args : argparse.Namespace
        With ``radius_from``, ``bootstrap_draws``, ``bootstrap_seed`` and, when
        the command has them, ``uncertainty``, ``alpha`` and ``radius``.
    crosstab : Crosstab
    name, alpha : optional
        Override ``args.uncertainty`` (default ``"chi2"``) and ``args.alpha``.
    """
    from rldp_models.uncertainty.calibration import (BOOTSTRAP_DRAWS, BOOTSTRAP_SEED,
                                                     calibrated_set)
    from rldp_models.uncertainty.named import named_set, routing_note

    name = name or getattr(args, "uncertainty", None) or "chi2"
    alpha = alpha if alpha is not None else args.alpha
    radius = getattr(args, "radius", None)
    family = {"lam": getattr(args, "lam", None), "order": getattr(args, "order", None)}
    note = routing_note(name, **family)
    if note is not None:
        print(note)
    if args.radius_from == "bootstrap":
        if radius is not None:
            raise InputError("give either --radius or --radius-from bootstrap, not both")
        if any(value is not None for value in family.values()):
            raise InputError(f"--radius-from bootstrap has no statistic for --uncertainty {name}")
        draws = BOOTSTRAP_DRAWS if args.bootstrap_draws is None else args.bootstrap_draws
        seed = BOOTSTRAP_SEED if args.bootstrap_seed is None else args.bootstrap_seed
        return calibrated_set(name, crosstab, alpha, draws, seed)
    return named_set(name, crosstab, alpha, radius, **family)


def radius_record(uncertainty: UncertaintySet, args: argparse.Namespace) -> dict[str, Any]:
    """``radius``, ``radius_from`` and, for a bootstrap, ``radius_source`` for a result JSON."""
    source = getattr(uncertainty, "radius_source", None)
    if source is not None:
        how = "bootstrap"
    elif getattr(args, "radius", None) is not None:
        how = "--radius"
    else:
        how = f"alpha={args.alpha}"
    record: dict[str, Any] = {"radius": float(uncertainty.radius), "radius_from": how}
    if source is not None:
        record["radius_source"] = dict(source)
    return record


def warn_if_sparse(crosstab: Crosstab, stream: IO[str] | None = None) -> str | None:
    """Print Cochran's-rule warning as one ``rldp: warning:`` line when it applies; return it."""
    from rldp_models.uncertainty.sparsity import sparsity_warning

    warning = sparsity_warning(crosstab)
    if warning is not None:
        (stream or sys.stderr).write(f"rldp: warning: {warning}\n")
    return warning
