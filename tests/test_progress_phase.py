"""Progress while a long step runs (issue 38, item 4): a phase line with its notes, and
Clarabel's iterations seen through its termination callback."""

from __future__ import annotations

import re
import time

import pytest

import solvers
from rldp_models import progress
from rldp_models.datasets import jeffreys_instance
from rldp_models.programs import preset
from solvers.backends.clarabel_direct import observed


def test_a_note_outside_a_phase_does_nothing() -> None:
    progress.note("round", "nothing to show")


def test_a_phase_line_shows_its_notes_once_shown(monkeypatch, capsys) -> None:
    monkeypatch.setattr(progress, "shown", lambda: True)
    monkeypatch.setattr(progress, "SHOW_AFTER", 0.0)
    with progress.phase("rldp solve RURP"):
        progress.note("round", "round 2")
        progress.note("iteration", "iteration 7")
        drawn = ""
        for _ in range(100):  # the line is redrawn every second by its own thread
            drawn += capsys.readouterr().err
            if "iteration 7" in drawn:
                break
            time.sleep(0.05)
    assert "rldp solve RURP" in drawn and "round 2, iteration 7" in drawn


def test_a_phase_not_shown_starts_no_thread(monkeypatch, capsys) -> None:
    monkeypatch.setattr(progress, "shown", lambda: False)
    with progress.phase("quiet"):
        progress.note("round", "round 1")
    assert capsys.readouterr().err == ""


def test_the_observer_sees_every_iteration_clarabel_reports() -> None:
    program = preset("RURP", jeffreys_instance(3, 4, 600, 2).crosstab, 1.0)
    seen: list[tuple[int, float, float]] = []
    with observed(lambda count, objective, gap: seen.append((count, objective, gap))):
        result = solvers.solve(program, solver="clarabel-direct")
    iterations = int(re.search(r"(\d+) iterations", result.log).group(1))
    assert [count for count, _, _ in seen] == list(range(iterations + 1))
    assert seen[-1][1] == pytest.approx(result.objective * program.to_conic().sign
                                        - program.to_conic().offset, rel=1e-6, abs=1e-9)


def test_a_solve_outside_observed_reports_nothing() -> None:
    program = preset("RURP", jeffreys_instance(3, 4, 600, 2).crosstab, 1.0)
    seen: list[int] = []
    with observed(lambda count, objective, gap: seen.append(count)):
        pass
    solvers.solve(program, solver="clarabel-direct")
    assert seen == []
