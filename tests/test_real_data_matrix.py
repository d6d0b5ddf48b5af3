"""The real-data matrix (issue 20): each command on each Adult pair finishes verified or refuses.

Slow (minutes per pair): ``python -m pytest -m slow tests/test_real_data_matrix.py`` with
``RLDP_ADULT_DATA`` naming ``adult.data``. The cells are in :mod:`real_data_matrix`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from real_data_matrix import CELLS, Cell, passes, run_cell
from rldp_models.datasets import default_adult_path

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not default_adult_path().is_file(),
                                 reason="the Adult data is absent (set RLDP_ADULT_DATA)")]


@pytest.mark.parametrize("cell", CELLS, ids=lambda cell: cell.name)
def test_finishes_verified_or_refuses_up_front(cell: Cell, tmp_path: Path) -> None:
    command, verification = run_cell(cell, default_adult_path(), tmp_path, timeout=3600)
    assert passes(command, verification), (command, verification)
