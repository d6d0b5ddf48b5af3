"""Non-solver costs of ``rldp solve`` / ``rldp verify`` against their previous form, same process.

* record writing: :func:`~rldp_models.results.files.write_record` (top two
  levels indented, the rest by ``json``'s C encoder) against ``indent=1``
  throughout (the pure-Python encoder); the files must hold the same JSON value;
* the worst-case eps of ``rldp verify``:
  :func:`~rldp_models.privacy.worst_case.worst_case_epsilon` (the ratios left
  proven in one batch again each time the certified level rises, largest batch
  bound first) against one batch at the first level only, the rest by scalar
  interval proofs in candidate order (both narrow their bisections by the float
  root); the certified bound must agree to 1e-12.

The ratio is baseline CPU over today's. Race x education RURP (5x16) runs by
default, the synthetic RURP 10x20 is ``slow``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rldp_models.data import Crosstab
from rldp_models.programs import preset
from rldp_models.privacy import worst_case
from rldp_models.privacy.worst_case import worst_case_epsilon
from rldp_models.results.files import read_record, write_record
from rldp_models.results.json_ready import jsonable
from rldp_models.results.program_result import solution_result

from instances import race_education, synthetic_10x20
from timing import cpu_seconds
from rldp_models.results.record import to_record



def _solved(crosstab: Crosstab) -> Any:
    return preset("RURP", crosstab, 1.0, 0.05, distortion="hamming").solve(
        solver="clarabel-direct")


def _first_batch_only(original: Any) -> Any:
    """The previous loop: one batch at the first level, then scalar proofs in candidate order."""
    calls: list[int] = []

    def batch(pending, settled, *args):
        calls.append(1)
        if len(calls) == 1:
            return original(pending, settled, *args)
        return set(), [key for key in pending if key not in settled]

    return batch


def _compare_worst_case(benchmark: Any, crosstab: Crosstab, monkeypatch: Any) -> None:
    solution = _solved(crosstab)
    uncertainty = solution.program.uncertainty

    def run() -> Any:
        return worst_case_epsilon(solution.protocol, crosstab.counts, uncertainty)

    with monkeypatch.context() as patch:
        patch.setattr(worst_case, "_batch_sorted", _first_batch_only(worst_case._batch_sorted))
        before, before_cpu = cpu_seconds(run)
    now, now_cpu = benchmark.pedantic(lambda: cpu_seconds(run), rounds=1, iterations=1)
    assert now.certified == pytest.approx(before.certified, rel=1e-12)
    benchmark.extra_info.update(cpu_before=before_cpu, cpu_now=now_cpu,
                                cpu_ratio=before_cpu / now_cpu, certified=now.certified)


def _compare_writing(benchmark: Any, crosstab: Crosstab, tmp_path: Path) -> None:
    record = to_record(solution_result(_solved(crosstab)), True)
    old = tmp_path / "indent.json"
    new = tmp_path / "layered.json"
    _, before_cpu = cpu_seconds(lambda: old.write_text(
        json.dumps(jsonable(record), indent=1, allow_nan=False) + "\n"))
    _, now_cpu = benchmark.pedantic(lambda: cpu_seconds(lambda: write_record(record, new)),
                                    rounds=1, iterations=1)
    assert read_record(new) == read_record(old)
    benchmark.extra_info.update(cpu_before=before_cpu, cpu_now=now_cpu,
                                cpu_ratio=before_cpu / now_cpu, bytes=new.stat().st_size)


def test_worst_case_race_education(benchmark, monkeypatch) -> None:
    _compare_worst_case(benchmark, race_education(), monkeypatch)


def test_writing_race_education(benchmark, tmp_path) -> None:
    _compare_writing(benchmark, race_education(), tmp_path)


@pytest.mark.slow
def test_worst_case_rurp_10x20(benchmark, monkeypatch) -> None:
    _compare_worst_case(benchmark, synthetic_10x20(), monkeypatch)


@pytest.mark.slow
def test_writing_rurp_10x20(benchmark, tmp_path) -> None:
    _compare_writing(benchmark, synthetic_10x20(), tmp_path)
