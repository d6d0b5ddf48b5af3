"""All registered experiments, one module per paper (imported on first use)."""

from __future__ import annotations

from importlib import import_module

from rldp_models.errors import InputError
from rldp_models.experiments.base import Experiment

EXPERIMENT_MODULES = (
    "rldp_models.experiments.robust_opt",
    "rldp_models.experiments.rldp_paper",
    "rldp_models.experiments.extremal",
    "rldp_models.experiments.extremal_scaling",
    "rldp_models.experiments.funnel",
    "rldp_models.experiments.uldp",
    "rldp_models.experiments.coverage",
)
"""Modules that define ``EXPERIMENTS: tuple[Experiment, ...]``."""


def experiments() -> dict[str, Experiment]:
    """Every registered experiment by id, in registration order."""
    found: dict[str, Experiment] = {}
    for name in EXPERIMENT_MODULES:
        for experiment in import_module(name).EXPERIMENTS:
            found[experiment.id] = experiment
    return found


def get(experiment_id: str) -> Experiment:
    """The experiment ``experiment_id``; a one-line :class:`InputError` if unknown."""
    registered = experiments()
    if experiment_id not in registered:
        raise InputError(f"unknown experiment {experiment_id!r}; "
                         f"'rldp reproduce --list' shows the {len(registered)} known ones")
    return registered[experiment_id]
