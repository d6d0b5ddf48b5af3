"""Reproductions of the papers' figures: ``rldp reproduce ID --out DIR``.

See :mod:`.base` for what an experiment is and :mod:`.registry` for the list.
"""

from rldp_models.experiments.base import Experiment, Finding, Row, Task

__all__ = ["Experiment", "Finding", "Row", "Task"]
