"""The runnable examples in docs/ work as shown (each asserts its own results)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "docs" / "examples").glob("*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script: Path) -> None:
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, cwd=script.parent)
    assert run.returncode == 0, run.stdout + run.stderr


def test_custom_variant_example_exists() -> None:
    assert any(p.name == "custom_variant.py" for p in EXAMPLES)
