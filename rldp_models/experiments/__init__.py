"""Reproductions of the papers' figures: ``rldp reproduce ID --out DIR``.

See :mod:`.base` for what an experiment is and :mod:`.runner` for the list
of registered experiments, running one (through an executor of
:mod:`rldp_models.executors`) and the files a run writes.
"""

from rldp_models.experiments.base import Experiment, Finding, Row, Task

__all__ = ["Experiment", "Finding", "Row", "Task"]
