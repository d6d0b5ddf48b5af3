"""The real-data matrix of issue 20: every ``solve`` preset and ``protocol`` on four Adult pairs.

Each cell runs one command and, when it wrote a result, ``rldp verify`` on it.
A cell passes when the command and its verification both exit 0, or when the
command refuses up front: exit 2, one stderr line, within
:data:`REFUSAL_SECONDS`. ``tests/test_real_data_matrix.py`` asserts this
(``-m slow``); run this module to measure each command's time and peak memory
with ``/usr/bin/time -v``::

    RLDP_ADULT_DATA=.../adult.data nice -n 10 python tests/real_data_matrix.py OUT_DIR
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PAIRS = (("sex", "race"), ("sex", "relationship"), ("race", "education"),
         ("education", "occupation"))
"""``(S, U)`` pairs of the Adult data, from 2x5 to 16x15."""

SOLVE_PRESETS = ("NUNP", "NURP", "RUNP", "RURP")
PROTOCOLS = ("polyopt", "srr", "ir", "grr-cr", "ue-cr", "grr")
EPS = "1"
REFUSAL_SECONDS = 30.0
"""A refusal must come before the work: well within this (data loading included)."""


@dataclass(frozen=True)
class Cell:
    """One command of the matrix on one pair."""

    sensitive: str
    public: str
    command: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.sensitive}x{self.public}-{'-'.join(self.command).replace('--', '')}"

    def argv(self, data: Path, out: Path) -> list[str]:
        """``rldp`` arguments writing to ``out`` (Adult labels are categories: Hamming)."""
        extra = ["--distortion", "hamming"] if self.command[0] == "solve" else []
        return [*self.command, "--data", str(data), "--sensitive", self.sensitive,
                "--public", self.public, "--eps", EPS, *extra, "--out", str(out)]

    def verify_argv(self, data: Path, out: Path) -> list[str]:
        return ["verify", str(out), "--data", str(data), "--sensitive", self.sensitive,
                "--public", self.public]


UNCERTAINTY_CELLS = tuple(Cell("race", "education", ("solve", p, "--uncertainty", "kl"))
                          for p in ("NURP", "RURP", "RUNP"))
"""The KL ball on race x education: clarabel failed there inside the optimality certificate's
worst case (an empty cell) until the realdata round."""

CELLS = tuple(Cell(s, u, command) for s, u in PAIRS
              for command in [("solve", p) for p in SOLVE_PRESETS]
              + [("protocol", p) for p in PROTOCOLS]) + UNCERTAINTY_CELLS


@dataclass
class Run:
    """Exit code, stderr, wall time and peak resident memory of one ``rldp`` run."""

    code: int
    stderr: str
    seconds: float
    peak_mb: float
    stdout: str = ""


def run_rldp(argv: list[str], timeout: float | None = None) -> Run:
    """``rldp argv`` under ``/usr/bin/time -v`` (its report is cut from stderr)."""
    command = ["/usr/bin/time", "-v", sys.executable, "-m", "rldp_models.cli", *argv]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Run(-1, f"timeout after {timeout} s", float(timeout or 0), float("nan"))
    stderr, _, report = done.stderr.partition("\tCommand being timed:")
    stderr = "".join(line for line in stderr.splitlines(keepends=True)
                     if not line.startswith("Command exited with non-zero status"))
    return Run(done.returncode, stderr, _elapsed(report), _peak_mb(report), done.stdout)


def _elapsed(report: str) -> float:
    match = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", report)
    if not match:
        return float("nan")
    seconds = 0.0
    for part in match.group(1).split(":"):
        seconds = 60 * seconds + float(part)
    return seconds


def _peak_mb(report: str) -> float:
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report)
    return int(match.group(1)) / 1024 if match else float("nan")


def passes(command: Run, verification: Run | None) -> bool:
    """Finished and verified, or refused up front in one line (beside the sparsity warning)."""
    if command.code == 2:
        lines = [line for line in command.stderr.splitlines()
                 if not line.startswith("rldp: warning:")]
        return len(lines) == 1 and command.seconds <= REFUSAL_SECONDS
    return command.code == 0 and verification is not None and verification.code == 0


def run_cell(cell: Cell, data: Path, directory: Path,
             timeout: float | None = None) -> tuple[Run, Run | None]:
    """The command of ``cell`` and, if it wrote its result, the verification of it."""
    out = directory / f"{cell.name}.json"
    command = run_rldp(cell.argv(data, out), timeout)
    verification = run_rldp(cell.verify_argv(data, out), timeout) if out.exists() else None
    return command, verification


def _row(cell: Cell, command: Run, verification: Run | None) -> str:
    def figures(run: Run | None) -> str:
        return "- | - | -" if run is None else f"{run.code} | {run.seconds:.1f} | {run.peak_mb:.0f}"

    text = "".join(run.stderr + run.stdout for run in (command, verification) if run)
    lines = text.splitlines()
    message = next((line for line in lines if line.startswith("rldp: error")), "") or next(
        (line for line in lines if line.startswith("rldp:") or "FAIL" in line), "")
    return (f"| {cell.sensitive} x {cell.public} | {' '.join(cell.command)} | "
            f"{figures(command)} | {figures(verification)} | "
            f"{'pass' if passes(command, verification) else 'FAIL'} | {message[:160]} |")


def main(directory: str) -> None:
    """Run every cell; print a Markdown table of exit codes, seconds and peak MB."""
    from rldp_models.datasets import default_adult_path

    data = default_adult_path()
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    print("| pair | command | exit | s | peak MB | verify exit | s | peak MB | cell | "
          "message |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for cell in CELLS:
        print(_row(cell, *run_cell(cell, data, out)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
