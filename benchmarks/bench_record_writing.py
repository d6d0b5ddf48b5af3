"""Writing a solved program's record (``rldp solve``'s last step) against its previous form.

Today: :meth:`CertifiedResult.write <rldp_models.results.certified.CertifiedResult.write>`
(``jsonable`` checks number lists by one ``set(map(type, ...))`` and a sum, and
the record is converted once). Baseline, in the same process: the previous
``jsonable`` (a generator and ``math.isfinite`` per list entry) applied by
``to_record`` and again by ``write_record``. Both must write the same bytes.
The ratio is baseline CPU over today's. Race x education RURP (5x16) runs by
default, the synthetic RURP 10x20 is ``slow``.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.programs import preset
from rldp_models.results import files, record
from rldp_models.results.certified import CertifiedResult
from rldp_models.results.program_result import solution_result

from instances import race_education, synthetic_10x20
from timing import cpu_seconds
from rldp_models.results.files import write_result

ROUNDS = 3


def _previous_jsonable(value: Any) -> Any:
    """``jsonable`` before this change: one Python step per list entry."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _previous_jsonable(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): _previous_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if all(type(v) is float or type(v) is int for v in value):
            return [v if math.isfinite(v) else str(float(v)) for v in value]
        return [_previous_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "biu" or (value.dtype.kind == "f" and np.all(np.isfinite(value))):
            return value.tolist()
        return _previous_jsonable(value.tolist())
    if isinstance(value, (np.floating, float)):
        return float(value) if np.isfinite(value) else str(float(value))
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def _previous_write(result: CertifiedResult, path: Path, monkeypatch: Any) -> None:
    """The previous write: ``to_record`` and ``write_record`` each converting the record."""
    with monkeypatch.context() as patch:
        patch.setattr(record, "jsonable", _previous_jsonable)
        text = record.to_record(result, True)
        path.write_text(files._layered_json(_previous_jsonable(text), files.INDENTED_LEVELS)
                        + "\n")


def _compare(benchmark: Any, crosstab: Crosstab, tmp_path: Path, monkeypatch: Any) -> None:
    solution = preset("RURP", crosstab, 1.0, 0.05, distortion="hamming").solve(
        solver="clarabel-direct")
    result = solution_result(solution)
    old, new = tmp_path / "previous.json", tmp_path / "today.json"
    before, now = [], []
    for _ in range(ROUNDS):  # alternating, the fastest of each
        before.append(cpu_seconds(lambda: _previous_write(result, old, monkeypatch))[1])
        now.append(cpu_seconds(lambda: write_result(result, new))[1])
    benchmark.pedantic(lambda: write_result(result, new), rounds=1, iterations=1)
    assert new.read_bytes() == old.read_bytes()
    before_cpu, now_cpu = min(before), min(now)
    benchmark.extra_info.update(cpu_before=before_cpu, cpu_now=now_cpu,
                                cpu_ratio=before_cpu / now_cpu, bytes=new.stat().st_size)


def test_record_writing_race_education(benchmark, tmp_path, monkeypatch) -> None:
    _compare(benchmark, race_education(), tmp_path, monkeypatch)


@pytest.mark.slow
def test_record_writing_rurp_10x20(benchmark, tmp_path, monkeypatch) -> None:
    _compare(benchmark, synthetic_10x20(), tmp_path, monkeypatch)
