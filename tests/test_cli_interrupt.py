"""SIGINT is exit 130 and one line, and leaves no file (issue 35, item 2).

The race the audit found (about one interrupt in six during a long ``rldp release`` died
by SIGINT, exit -2, after printing its line): a ``KeyboardInterrupt`` raised while
CPython evaluates a string (``exec``/``eval``: dataclasses, namedtuples, sympy) marks
the interpreter as interrupted even when :func:`rldp_models.cli.main` catches it, and
the interpreter then kills itself by SIGINT at exit. The mark is now cleared; an
interrupt whose ``KeyboardInterrupt`` is swallowed (Python ignores one raised in a
``__del__``) still stops any output from being renamed into place.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from rldp_models import safe_io
from rldp_models.cli import main

ROOT = Path(__file__).resolve().parents[1]


PROBE = """
import sys
from rldp_models.cli import _forget_unhandled_interrupt
try:
    exec("raise KeyboardInterrupt")
except KeyboardInterrupt:
    pass
if sys.argv[1:] == ["forget"]:
    _forget_unhandled_interrupt()
raise SystemExit(130)
"""
"""Run with ``python -m`` as ``rldp`` is (a ``-c`` command exits before the mark is read)."""


def _probe(tmp_path: Path, *argv: str) -> int:
    (tmp_path / "interrupt_probe.py").write_text(PROBE)
    done = subprocess.run([sys.executable, "-m", "interrupt_probe", *argv], cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                          timeout=120)
    return done.returncode


def test_a_handled_interrupt_in_evaluated_code_ends_with_the_exit_code(tmp_path: Path) -> None:
    assert _probe(tmp_path, "forget") == 130
    # without the clearing, this interpreter ends the process by SIGINT: what the fix is for
    assert _probe(tmp_path) == -signal.SIGINT


def test_an_interrupt_noted_stops_the_rename(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    safe_io.clear_interrupts()
    safe_io.note_interrupt(signal.SIGINT)  # as if its KeyboardInterrupt had been swallowed
    try:
        with pytest.raises(KeyboardInterrupt):
            with safe_io.atomic_output(target) as handle:
                handle.write("complete\n")
    finally:
        safe_io.clear_interrupts()
    assert list(tmp_path.iterdir()) == []


def test_a_failure_after_a_swallowed_interrupt_is_the_interrupt(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """SIGINT inside ``import highspy`` (a pybind11 module) left it half registered, and the
    next import failed with ImportError: the interrupt printed an internal error first."""
    from rldp_models.cli import verify

    def broken_by_the_interrupt(args: object) -> int:
        safe_io.note_interrupt(signal.SIGINT)  # its KeyboardInterrupt swallowed on the way
        raise ImportError('generic_type: type "ObjSense" is already registered!')

    monkeypatch.setattr(verify, "run_schema", broken_by_the_interrupt)
    assert main(["schema"]) == 130
    assert capsys.readouterr().err == "rldp: interrupted\n"


def test_main_keeps_a_callers_own_interrupt_handler(tmp_path: Path) -> None:
    def mine(signum, frame) -> None:
        raise AssertionError("not called")

    previous = signal.signal(signal.SIGINT, mine)
    try:
        assert main(["schema", "-q"]) == 0
        assert signal.getsignal(signal.SIGINT) is mine
    finally:
        signal.signal(signal.SIGINT, previous)
    assert main(["schema", "-q"]) == 0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.fixture(scope="module")
def release_inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A protocol record and 300,000 records to release with it (a few seconds' work)."""
    work = tmp_path_factory.mktemp("interrupt")
    rng = np.random.default_rng(0)
    s, u = rng.integers(0, 3, 300_000), rng.integers(0, 4, 300_000)
    data = work / "records.csv"
    data.write_text("s,u\n" + "".join(f"s{a},u{b}\n" for a, b in zip(s, u)))
    record = work / "srr.json"
    assert main(["protocol", "srr", "--data", str(data), "--sensitive", "s", "--public", "u",
                 "--eps", "1", "--out", str(record), "-q"]) == 0
    return record, data


def _interrupts_by_default() -> None:
    """In the child: SIGINT's default action, as in a terminal (a shell starts background
    jobs with SIGINT ignored, and Python then keeps ignoring it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("delay", [0.4, 0.8, 1.2, 1.8, 2.6])
def test_sigint_during_release_is_130_one_line_and_nothing_left(
        release_inputs: tuple[Path, Path], tmp_path: Path, delay: float) -> None:
    record, data = release_inputs
    out = tmp_path / "released.csv"
    process = subprocess.Popen(
        [sys.executable, "-m", "rldp_models.cli", "release", str(record), "--data", str(data),
         "--sensitive", "s", "--public", "u", "--out", str(out), "-q"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_interrupts_by_default)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    if process.returncode == 0:  # finished before the signal: the output is whole
        assert out.read_text().count("\n") > 300_000
        return
    assert process.returncode == 130, err
    assert err == "rldp: interrupted\n"
    assert list(tmp_path.iterdir()) == []
