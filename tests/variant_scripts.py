"""The variant scripts of ``docs/variants/`` loaded as ``python docs/variants/NAME.py`` runs them:
with their folder importable, since they share ``variant_io``."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from typing import Any

VARIANTS = Path(__file__).resolve().parents[1] / "docs" / "variants"


def variant_script(name: str) -> dict[str, Any]:
    """The names ``docs/variants/<name>`` defines (``name`` with its ``.py``), not run as main."""
    sys.path.insert(0, str(VARIANTS))
    try:
        return runpy.run_path(str(VARIANTS / name))
    finally:
        sys.path.remove(str(VARIANTS))
