"""``rldp X --help`` against a bare ``python -c "import numpy"`` (DESIGN target: <= 3x).

Each subcommand's help is a fresh process; the baseline, timed in the same run,
is a fresh process importing numpy. ``extra_info["speed_up"]`` is baseline /
help, so the target is ``speed_up >= 1/3``::

    python -m pytest benchmarks/bench_cli_help.py --benchmark-enable \
        --benchmark-columns=min,mean,rounds
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any, Callable

import pytest

from timing import best_of
from rldp_models.cli import SUBCOMMAND_HELP, SUBCOMMAND_MODULES

COMMANDS = [[]] + [[name] for module in SUBCOMMAND_MODULES
                   for name, _ in SUBCOMMAND_HELP.get(module, ())]


def _run(argv: list[str]) -> None:
    subprocess.run([sys.executable, *argv], check=True, capture_output=True)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0] if c else "rldp")
def test_help_against_a_numpy_import(benchmark: Any, record_ratio: Callable[..., None],
                                     command: list[str]) -> None:
    baseline = best_of(lambda: _run(["-c", "import numpy"]))
    benchmark.pedantic(_run, args=(["-m", "rldp_models.cli", *command, "--help"],),
                       rounds=3, iterations=1)
    record_ratio("python -c 'import numpy'", baseline)
