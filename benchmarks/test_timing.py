"""``timing.seconds_within`` and ``timing.in_child``: a spawned child, killed at its limit."""

from __future__ import annotations

import os
import threading
import time
from functools import partial
from pathlib import Path

import pytest
from timing import in_child, seconds_within

LOCK = threading.Lock()
"""Held by a thread of the parent while a child runs: a forked child would inherit it held."""


def _take_the_lock() -> int:
    with LOCK:
        return os.getpid()


def _sleep_past_any_limit(pid_file: Path) -> None:
    pid_file.write_text(str(os.getpid()))
    time.sleep(600)


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs (Linux ``/proc``: neither gone nor a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def test_a_lock_held_in_the_parent_does_not_reach_the_child() -> None:
    """The deadlock a fork gives (a thread's lock copied held, no thread to release it)."""
    with LOCK:
        seconds = seconds_within(_take_the_lock, limit=60.0)
        assert in_child(_take_the_lock) != os.getpid()
    assert seconds is not None and 0.0 <= seconds < 60.0


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_the_child_is_killed_at_the_limit(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    start = time.perf_counter()
    assert seconds_within(partial(_sleep_past_any_limit, pid_file), limit=5.0) is None
    assert time.perf_counter() - start < 60.0
    if not pid_file.exists():  # killed while still starting (a loaded machine)
        return
    pid = int(pid_file.read_text())
    deadline = time.perf_counter() + 30.0
    while _running(pid):
        assert time.perf_counter() < deadline, f"the timed-out child {pid} still runs"
        time.sleep(0.1)


def test_a_result_and_the_seconds_come_back() -> None:
    assert in_child(lambda: sum(range(10))) == 45
    seconds = seconds_within(lambda: time.sleep(0.2), limit=60.0)
    assert seconds is not None and 0.2 <= seconds < 60.0


def test_an_exception_in_the_child_reaches_the_caller() -> None:
    with pytest.raises(ZeroDivisionError):
        in_child(lambda: 1 / 0)
