"""docs/release.md works as written: its Python blocks and `$ rldp ...` lines, in order, on Adult.

The page's commands referred to results (ir.json, ..., released_rurp.csv) that no command on
the page made; running the page as a script is the check that a reader can follow it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.shared_data import ADULT

PAGE = Path(__file__).resolve().parents[2] / "docs" / "release.md"
BLOCK = re.compile(r"```(python|text)\n(.*?)```", re.S)


def steps(text: str) -> list[tuple[str, str, int]]:
    """(kind, code, expected exit code) for each Python block and each `$` command, in order;
    a command followed by `$ echo $?` expects the number on the next line."""
    found: list[tuple[str, str, int]] = []
    for kind, body in BLOCK.findall(text):
        if kind == "python":
            found.append(("python", body, 0))
            continue
        lines = body.splitlines()
        prompts = [k for k, line in enumerate(lines) if line.startswith("$ ")]
        for k, following in zip(prompts, [*prompts[1:], None]):
            if lines[k] == "$ echo $?":
                continue
            checked = following is not None and lines[following] == "$ echo $?"
            found.append(("shell", lines[k][2:], int(lines[following + 1]) if checked else 0))
    return found


def test_the_page_has_the_whole_chain() -> None:
    found = steps(PAGE.read_text())
    commands = " ".join(code for kind, code, _ in found if kind == "shell")
    assert [code for _, code, expected in found if expected] == [
        "rldp estimate released_rurp.csv --result rurp.json --target U --out estimate_rurp.csv"]
    for word in ("rldp solve", "rldp protocol", "rldp verify", "rldp compare", "rldp release",
                 "rldp estimate"):
        assert word in commands


@pytest.mark.slow
def test_every_step_of_the_page_runs_with_its_stated_exit_code(tmp_path) -> None:
    if not ADULT.exists():
        pytest.skip("Adult data not available")
    (tmp_path / "adult.data").symlink_to(ADULT)
    env = {**os.environ, "PYTHONPATH": str(PAGE.parents[1])}
    shell = f'rldp() {{ "{sys.executable}" -m rldp_models.cli "$@"; }}\n'
    for kind, code, expected in steps(PAGE.read_text()):
        command = [sys.executable, "-c", code] if kind == "python" \
            else ["bash", "-c", shell + code]
        run = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=900)
        assert run.returncode == expected, f"{code}\n{run.stdout}{run.stderr}"
