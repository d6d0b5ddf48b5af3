"""Executors: spec parsing, and the same CSV from serial, joblib and Dask for the same seeds.

The small experiment is real: blocks of Fig. 2a instances (the four conic
programs solved by Clarabel) and two ULDP draws, so the comparison covers
solver calls and sampling in worker processes.
"""

from __future__ import annotations

import dataclasses

import pytest

from rldp_models.errors import InputError
from rldp_models.experiments import robust_opt, uldp
from rldp_models.experiments.base import Row, Task
from rldp_models.executors import executor_from_spec
from rldp_models.experiments.runner import run_tasks

ULDP_TASKS = [
    {"kind": "uldp", "eps": 1.0, "repeat": 0, "n": 500, "seed": 5},
    {"kind": "uldp", "eps": 4.0, "repeat": 1, "n": 500, "seed": 6},
]
SMALL_TASKS = [
    {"kind": "robust", "n": 75, "first": 0, "count": 2, "seed": 2022},
    {"kind": "robust", "n": 75, "first": 2, "count": 1, "seed": 2022},
    *ULDP_TASKS,
]
"""Solver calls and sampling; the Dask tests use the ULDP tasks only (no cvxpy import in
fresh workers), the joblib test all of them."""


def small_run(task: Task) -> list[Row]:
    """Dispatch to the two experiments' task functions (module level: picklable)."""
    if task["kind"] == "robust":
        return robust_opt.run_block(task)
    return uldp.run_tv(task)


SMALL = dataclasses.replace(robust_opt.EXPERIMENTS[0], id="small",
                            tasks=lambda quick: SMALL_TASKS, run_task=small_run)


def _csv(tasks: list[Task], spec: str, workers: int | None = None) -> str:
    table = run_tasks(SMALL, tasks, executor_from_spec(spec, workers), progress=False)
    return table.to_csv(index=False)


@pytest.fixture(scope="module")
def serial_csv() -> str:
    return _csv(SMALL_TASKS, "serial")


def test_joblib_matches_serial(serial_csv: str) -> None:
    assert _csv(SMALL_TASKS, "joblib", 2) == serial_csv


def test_dask_local_matches_serial() -> None:
    pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    assert _csv(ULDP_TASKS, "dask-local", 2) == _csv(ULDP_TASKS, "serial")


def test_dask_address_matches_serial() -> None:
    distributed = pytest.importorskip("distributed",
                                      reason="dask[distributed] is not installed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        address = cluster.scheduler_address.removeprefix("tcp://")
        assert _csv(ULDP_TASKS, f"dask://{address}") == _csv(ULDP_TASKS, "serial")


def test_instances_do_not_depend_on_the_task_split() -> None:
    """Same instance, same optimum value (the LPs' optimal protocols need not be unique)."""
    together = robust_opt.run_block({"n": 75, "first": 0, "count": 2, "seed": 2022})
    alone = robust_opt.run_block({"n": 75, "first": 1, "count": 1, "seed": 2022})
    second = [row for row in together if row["instance"] == 1]
    assert [(r["method"], r["seed"]) for r in second] == [(r["method"], r["seed"]) for r in alone]
    for split, single in zip(second, alone):
        assert split["objective"] == pytest.approx(single["objective"], rel=1e-4)


@pytest.mark.parametrize("spec, message", [
    ("threads", "unknown executor"),
    ("dask://nohost", "bad Dask address"),
    ("dask://:8786", "bad Dask address"),
])
def test_bad_specs_are_one_line_input_errors(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        executor_from_spec(spec)


def test_workers_must_be_positive() -> None:
    with pytest.raises(InputError, match="--workers"):
        executor_from_spec("joblib", 0)


def test_default_workers_are_the_cores() -> None:
    import os

    assert executor_from_spec("joblib").workers == len(os.sched_getaffinity(0))
    assert executor_from_spec("serial").label == "serial"


def test_joblib_workers_print_no_solver_banner() -> None:
    """A worker that builds a HiGHS model prints nothing on the shared standard output (HiGHS
    prints its banner once per process, at its first model); checked in a fresh interpreter,
    whose workers inherit its captured stdout. Without the workers' silencing this fails."""
    import subprocess
    import sys

    script = ("from rldp_models.executors import _joblib_map\n"
              "def build(_):\n"
              "    import highspy\n"
              "    highspy.Highs()\n"
              "    return 0\n"
              "print(_joblib_map(build, [0, 1, 2, 3], 2, lambda: None))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout == "[0, 0, 0, 0]\n"
