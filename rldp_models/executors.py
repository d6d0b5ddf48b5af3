"""Where an experiment's tasks run: in this process, in a process pool, or on Dask.

Every executor maps one module-level function over a list of tasks and returns
the results *in task order*, whatever order they finish in, so a run's output
depends only on its tasks (each task seeds its own generator). Specs:

==================  ====================================================
``serial``          one after another in this process
``joblib``          a pool of worker processes (loky), the default
``dask-local``      a Dask ``LocalCluster`` of worker processes on this machine
``dask://HOST:PORT`` the Dask scheduler at that address (``distributed.Client``)
==================  ====================================================

Dask is imported only when asked for; without it the spec fails with one line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from rldp_models.errors import InputError
from solvers.backends.highs import silence_highs_banner

SPECS = ("serial", "joblib", "dask-local", "dask://HOST:PORT")
"""Executor specs accepted by :func:`executor_from_spec` (for help texts)."""

Progress = Callable[[], None]
"""Called once each time a task finishes."""


@dataclass(frozen=True)
class Executor:
    """A parsed executor spec.

    Attributes
    ----------
    kind : {"serial", "joblib", "dask-local", "dask"}
    workers : int
        Worker processes (``serial``: 1; ``dask``: what the cluster has, unknown here: 0).
    address : str
        The scheduler address of ``dask://HOST:PORT``, else ``""``.
    """

    kind: str
    workers: int
    address: str = ""

    @property
    def label(self) -> str:
        """How the summary names this executor, e.g. ``"joblib (2 workers)"``."""
        if self.kind == "dask":
            return f"dask ({self.address})"
        if self.kind == "serial":
            return "serial"
        return f"{self.kind} ({self.workers} workers)"

    def map(self, function: Callable[[Any], Any], tasks: Sequence[Any],
            progress: Progress | None = None) -> list[Any]:
        """``[function(task) for task in tasks]``, computed by this executor, in task order."""
        tick = progress or (lambda: None)
        if self.kind == "serial" or not tasks:
            return [_ticked(function(task), tick) for task in tasks]
        if self.kind == "joblib":
            return _joblib_map(function, tasks, self.workers, tick)
        with _dask_client(self) as client:
            return _dask_map(client, function, tasks, tick)


def default_workers() -> int:
    """The number of cores this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def executor_from_spec(spec: str = "joblib", workers: int | None = None) -> Executor:
    """Parse ``serial``, ``joblib``, ``dask-local`` or ``dask://HOST:PORT``.

    Raises
    ------
    InputError
        For an unknown spec, ``workers < 1``, or a Dask spec without Dask installed.
    """
    if workers is not None and workers < 1:
        raise InputError(f"--workers must be >= 1, got {workers}")
    count = workers or default_workers()
    if spec == "serial":
        return Executor("serial", 1)
    if spec == "joblib":
        return Executor("joblib", count)
    if spec == "dask-local":
        _require_dask()
        return Executor("dask-local", count)
    if spec.startswith("dask://"):
        address = spec[len("dask://"):]
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise InputError(f"bad Dask address {spec!r}; expected dask://HOST:PORT")
        _require_dask()
        return Executor("dask", 0, f"tcp://{address}")
    raise InputError(f"unknown executor {spec!r}; choose one of {', '.join(SPECS)}")


def _ticked(result: Any, tick: Progress) -> Any:
    tick()
    return result


def _joblib_map(function: Callable[[Any], Any], tasks: Sequence[Any], workers: int,
                tick: Progress) -> list[Any]:
    from joblib import Parallel, delayed

    # One BLAS thread per worker: the workers already fill the cores.
    parallel = Parallel(n_jobs=min(workers, len(tasks)), return_as="generator",
                        backend="loky", inner_max_num_threads=1)
    quiet = _Quiet(function)
    return [_ticked(result, tick) for result in parallel(delayed(quiet)(t) for t in tasks)]


@dataclass(frozen=True)
class _Quiet:
    """``function`` run in a worker process whose HiGHS banner is spent on the null device
    first (:func:`solvers.backends.highs.silence_highs_banner`): workers share the caller's standard
    output, which carries results only."""

    function: Callable[[Any], Any]

    def __call__(self, task: Any) -> Any:
        silence_highs_banner()
        return self.function(task)


def _require_dask() -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise InputError("the Dask executors need dask[distributed]: "
                         "pip install 'rldp-models[dask]'") from None


@contextmanager
def _dask_client(executor: Executor) -> Iterator[Any]:
    from distributed import Client, LocalCluster

    if executor.kind == "dask":
        try:
            client = Client(executor.address, timeout="10s")
        except OSError as exc:
            raise InputError(f"cannot reach the Dask scheduler at {executor.address}: "
                             f"{exc}") from None
        with client:
            yield client
        return
    with LocalCluster(n_workers=executor.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


def _dask_map(client: Any, function: Callable[[Any], Any], tasks: Sequence[Any],
              tick: Progress) -> list[Any]:
    from distributed import as_completed

    # pure=False: equal tasks of different experiments are still separate keys.
    futures = client.map(function, list(tasks), pure=False)
    for _ in as_completed(futures):
        tick()
    return client.gather(futures)
