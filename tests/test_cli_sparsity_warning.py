"""Cochran's-rule warning on every command that loads a table: one ``rldp: warning:`` line on
stderr, nothing on stdout (issue 24 item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rldp_models.cli import main


def _table(path: Path, rows: list[list[int]]) -> Path:
    lines = ["S," + ",".join(f"u{j}" for j in range(len(rows[0])))]
    lines += [f"s{i}," + ",".join(map(str, row)) for i, row in enumerate(rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


COMMANDS = {
    # --max-memory 1000 (bytes) admits the small table file, then refuses the run after the
    # table is loaded, before any solver starts
    "solve": ["solve", "RURP", "--eps", "1", "--max-memory", "1000"],
    "protocol": ["protocol", "srr", "--eps", "1", "--max-memory", "1000"],
    "compare-solvers": ["compare-solvers", "RURP", "--eps", "1", "--max-memory", "1000"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("sparse", [True, False])
def test_warning_on_stderr_only_when_the_rule_applies(tmp_path: Path, command: str,
                                                      sparse: bool,
                                                      capsys: pytest.CaptureFixture) -> None:
    # sparse: 3 of 10 expected counts below 5 (> 20%); dense: 2 of 10 (exactly 20%, no warning)
    small = 3 if sparse else 2
    row = [1] * small + [50] * (5 - small)
    counts = _table(tmp_path / "t.csv", [row, [50] * 5])
    argv = [*COMMANDS[command], "--counts", str(counts)]
    if command != "compare-solvers":
        argv += ["--out", str(tmp_path / "out.json")]
    assert main(argv) == 2  # the memory refusal
    printed = capsys.readouterr()
    warnings = [line for line in printed.err.splitlines() if line.startswith("rldp: warning:")]
    assert len(warnings) == (1 if sparse else 0)
    assert "warning" not in printed.out
