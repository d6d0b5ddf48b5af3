"""``rldp solvers`` against a bare ``python -c "import numpy"`` (issue 36 target: <= 3x).

Both are fresh processes timed in the same run; ``extra_info["speed_up"]`` is
baseline / listing, so the target is ``speed_up >= 1/3``::

    python -m pytest benchmarks/bench_cli_solvers.py --benchmark-enable \
        --benchmark-columns=min,mean,rounds
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any, Callable

from timing import best_of


def _run(argv: list[str]) -> None:
    subprocess.run([sys.executable, *argv], check=True, capture_output=True)


def test_solvers_listing_against_a_numpy_import(benchmark: Any,
                                                record_ratio: Callable[..., None]) -> None:
    baseline = best_of(lambda: _run(["-c", "import numpy"]))
    benchmark.pedantic(_run, args=(["-m", "rldp_models.cli", "solvers"],), rounds=3,
                       iterations=1)
    record_ratio("python -c 'import numpy'", baseline)
