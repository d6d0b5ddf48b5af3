"""``rldp verify`` on staircase results past the exact ray enumeration (k > 12)."""

from __future__ import annotations
from tests.shared_data import result_fields

import json
from pathlib import Path

import numpy as np
import pytest

from rldp_models.cli import main


def _run_staircase(tmp_path: Path, k: int, seed: int) -> tuple[int, Path]:
    rng = np.random.default_rng(seed)
    prior = tmp_path / f"prior{k}.csv"
    prior.write_text("x,p\n" + "".join(f"x{i},{rng.integers(1, 50)}\n" for i in range(k)))
    out = tmp_path / f"staircase{k}.json"
    code = main(["mechanism", "staircase", "--prior", str(prior), "--eps", "1", "--method",
                 "column-generation", "--out", str(out)])
    return code, out


def _staircase(tmp_path: Path, k: int, seed: int) -> Path:
    code, out = _run_staircase(tmp_path, k, seed)
    assert code == 0
    return out


def _verify(capsys, path: Path) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["verify", str(path)])
    return code, capsys.readouterr().out.splitlines()


def _changed(path: Path, change) -> Path:
    record = result_fields(path)
    change(record)
    out = path.with_name("changed_" + path.name)
    out.write_text(json.dumps(record))
    return out


def _lowered_dual(record: dict) -> None:
    """Lower one multiplier: a pattern containing that input then beats the dual."""
    record["certificate"]["dual"][3] -= 0.01


def _check(capsys, path: Path, method: str) -> None:
    code, lines = _verify(capsys, path)
    assert code == 0, lines
    assert lines[1].startswith("certificate: holds") and method in lines[1]
    code, lines = _verify(capsys, _changed(path, _lowered_dual))
    assert code == 1 and lines[-1] == "FAIL: the certificate check failed"
    assert "NOT proved" in "\n".join(lines)


def test_mutual_information_at_k_13_by_brute_force(tmp_path: Path, capsys) -> None:
    _check(capsys, _staircase(tmp_path, 13, 0), "every pattern written out")


@pytest.fixture(scope="module")
def k17(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The least k past the brute-force limit (16): a prior of counts, priced by subset sums."""
    return _staircase(tmp_path_factory.mktemp("k17"), 17, 2)


def test_mutual_information_at_k_17_by_subset_sums(k17: Path, capsys) -> None:
    _check(capsys, k17, "subset sums of the prior's counts")


def test_no_independent_check_past_16_for_other_utilities(k17: Path, capsys) -> None:
    """The refusal stays honest: not a pass and not a failure, but inconclusive (exit 3) with
    the reason in one line; the guarantee is still checked and reported."""
    path = k17

    def as_tv(record: dict) -> None:
        prior = record["certificate"]["utility"]["parameters"]["prior"]
        record["certificate"]["utility"] = {"measure": "tv", "parameters": {
            "prior0": prior, "prior1": prior[::-1]}}

    changed = _changed(path, as_tv)
    capsys.readouterr()
    code = main(["verify", str(changed)])
    written = capsys.readouterr()
    lines, error = written.out.splitlines(), written.err.splitlines()
    assert code == 3, lines
    assert lines[0].startswith("guarantee: holds")
    assert lines[1].startswith("certificate: INCONCLUSIVE -- the LP dual cannot be re-checked")
    assert "131070 rays" in lines[1] and "no independent check goes past k = 16" in lines[1]
    assert lines[-1].startswith("INCONCLUSIVE: the certificate check could not be completed")
    assert len(error) == 1 and error[0].startswith("rldp: inconclusive: the LP dual cannot")


@pytest.mark.slow
@pytest.mark.parametrize(("k", "seed"), [(20, 1), (24, 2), (64, 2)])
def test_mutual_information_at_large_k(tmp_path: Path, capsys, k: int, seed: int) -> None:
    """About 12 s at k = 20, 30 s at k = 24, minutes at k = 64 (2 loaded cores)."""
    code, path = _run_staircase(tmp_path, k, seed)
    if code == 0:
        _check(capsys, path, "by the independent checker")  # knapsack, or the MILP past it
    else:  # column generation stopped short of its tolerance: the gap shows, nothing written
        lines = capsys.readouterr().out.splitlines()
        assert code == 1 and not path.exists(), lines
        assert any(line.startswith("  certificate: FAILS") for line in lines), lines


@pytest.mark.slow
def test_a_k_24_staircase_refused_before_now_verifies(tmp_path: Path, capsys) -> None:
    """k = 24, seed 2 was refused (its pricing stopped at its node limit with a loose bound);
    priced by subset sums it exits 0, and rldp verify accepts the record. 10 s CPU."""
    code, path = _run_staircase(tmp_path, 24, 2)
    assert code == 0, capsys.readouterr().out
    _check(capsys, path, "by the independent checker")


def test_a_checker_stopped_undecided_is_inconclusive(k17: Path, capsys, monkeypatch) -> None:
    """The MILP stopped at its limit with neither a proof nor a violating pattern (forced
    here; see tests/conelp/test_certificate_check.py for a real one): exit 3, not 1."""
    from rldp_models.certificates import staircase_check
    from rldp_models.conelp.certificate_check import DualCheck

    monkeypatch.setattr(staircase_check, "independent_check",
                        lambda *args: DualCheck(False, 0.5, "milp", 400, decided=False))
    capsys.readouterr()
    code = main(["verify", str(k17)])
    lines = capsys.readouterr().out.splitlines()
    assert code == 3, lines
    assert lines[1].startswith("certificate: INCONCLUSIVE -- the LP dual cannot be re-checked: "
                               "the independent checker (HiGHS MILP with tangent cuts, 400 "
                               "rounds) stopped at its limit")
