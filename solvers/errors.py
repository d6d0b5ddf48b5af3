"""Errors raised by the solver registry."""

from __future__ import annotations


class SolverError(ValueError):
    """A solver was asked for that cannot serve the request."""


class UnknownSolverError(SolverError):
    """The name is not registered."""


class SolverUnavailableError(SolverError):
    """The solver is registered but cannot run here (not installed, no licence)."""


class UnsupportedModelError(SolverError):
    """The solver cannot take this model (e.g. an LP solver given a conic model)."""
