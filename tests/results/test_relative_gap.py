"""The relative gap of an objective that is 0 up to rounding (a regression: a
solve of a table whose optimum is 0 wrote ``relative_gap: inf``, which its own
verify refused as bad input)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rldp_models.optimality.lagrangian import relative


def test_an_upper_bound_of_size_at_most_one_states_the_absolute_gap() -> None:
    """Issue 34's measure ``gap / max(1, |UB|)``: subnormal, zero and small objectives alike."""
    for upper in (5e-324, 0.0, 0.25, -1.0):
        assert 5.58e-9 <= relative(5.58e-9, upper) <= 5.58e-9 * (1 + 1e-15)


def test_a_larger_upper_bound_gives_the_ratio_rounded_up() -> None:
    ratio = relative(1e-9, 4.0)
    assert 2.5e-10 <= ratio <= 2.5e-10 * (1 + 1e-15)
    assert relative(1e-9, -4.0) == ratio


@pytest.mark.parametrize("problem", ["NUNP", "RUNP"])
def test_a_zero_objective_record_verifies(tmp_path: Path, problem: str) -> None:
    counts = tmp_path / "counts.csv"
    counts.write_text("s,40.0,-1.25\ns0,0,7\ns1,0,0\n")
    out = tmp_path / "r.json"
    cli = [sys.executable, "-m", "rldp_models.cli"]
    solved = subprocess.run([*cli, "solve", problem, "--counts", str(counts), "--eps", "0.1",
                             "--out", str(out), "-q"], capture_output=True, text=True)
    assert solved.returncode == 0, solved.stderr
    gap = json.loads(out.read_text())["certificate"]["optimality"]["relative_gap"]
    assert isinstance(gap, float) and gap < 1e-6
    verified = subprocess.run([*cli, "verify", str(out), "-q"], capture_output=True, text=True)
    assert verified.returncode == 0, verified.stdout + verified.stderr
