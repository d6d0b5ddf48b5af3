"""Reproductions of the papers' figures: ``rldp reproduce ID --out DIR``.

See :mod:`.base` for what an experiment is, :mod:`.registry` for the list,
:mod:`.runner` for running one (through an executor of :mod:`.executors`) and
:mod:`.outputs` for the files a run writes.
"""

from rldp_models.experiments.base import Experiment, Finding, Row, Task

__all__ = ["Experiment", "Finding", "Row", "Task"]
