"""The ``rldp`` command line contract: solve, verify, demo, and bad input."""

from __future__ import annotations
from tests.shared_data import ADULT, result_fields, without_warnings

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rldp_models.data import Crosstab


def rldp(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``rldp args`` in a subprocess; stderr without the sparsity warning's line."""
    run = subprocess.run([sys.executable, "-m", "rldp_models.cli", *args], cwd=cwd,
                         capture_output=True, text=True, timeout=300)
    run.stderr = without_warnings(run.stderr)
    return run


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cli")


@pytest.fixture(scope="module")
def crosstab() -> Crosstab:
    from rldp_models.datasets import jeffreys_instance

    return jeffreys_instance(3, 5, 75, seed=1).crosstab


@pytest.fixture(scope="module")
def counts_file(work: Path, crosstab: Crosstab) -> Path:
    path = work / "counts.csv"
    crosstab.to_csv(path)
    return path


@pytest.fixture(scope="module")
def solved(work: Path, counts_file: Path) -> dict[str, Path]:
    """NUNP and NURP solved once through the command line; tests must not modify the files."""
    tmp_path = work
    paths = {}
    for problem in ("NUNP", "NURP"):
        out = tmp_path / f"{problem}.json"
        run = rldp("solve", problem, "--counts", str(counts_file), "--eps", "0.5",
                   "--out", str(out))
        assert run.returncode == 0, run.stderr
        paths[problem] = out
    return paths


def test_solve_writes_the_contract(solved: dict[str, Path], crosstab: Crosstab) -> None:
    """The record of DESIGN.md's contract, version 2: envelope plus the producer's fields."""
    from fractions import Fraction

    raw = json.loads(solved["NURP"].read_text())
    assert raw["schema_version"] == 2 and raw["result_type"] == "solve"
    assert raw["counts"]["table"] == crosstab.counts.tolist()
    rows = raw["matrix"]["rows"]
    assert all(sum(Fraction(x) for x in row) == 1 for row in rows)
    record = result_fields(solved["NURP"])
    for key in ("problem", "status", "objective", "eps", "alpha", "n", "radius_B", "solver",
                "solve_seconds", "labels", "protocol", "certificate"):
        assert key in record
    assert record["labels"] == {"S": list(crosstab.s_labels), "U": list(crosstab.u_labels),
                                "Y": list(crosstab.u_labels)}
    cube = np.array(record["protocol"])
    assert cube.shape == (3, 5, 5)
    np.testing.assert_allclose(cube.sum(axis=2), 1.0, rtol=0, atol=1e-15)
    assert record["certificate"]["multipliers"]


def test_verify_accepts_the_toolkits_own_results(solved: dict[str, Path],
                                                 counts_file: Path) -> None:
    for problem, path in solved.items():
        run = rldp("verify", str(path), "--counts", str(counts_file))
        assert run.returncode == 0, (problem, run.stdout, run.stderr)
        assert "holds" in run.stdout and "worst-case eps" in run.stdout


def test_verify_rejects_a_protocol_private_only_at_phat(solved: dict[str, Path],
                                                        counts_file: Path, tmp_path: Path) -> None:
    """NUNP's protocol meets eps at Phat, not over F: claimed as NURP it must fail."""
    record = result_fields(solved["NUNP"])
    nurp = result_fields(solved["NURP"])
    record.update(problem="NURP", alpha=nurp["alpha"], radius_B=nurp["radius_B"], certificate={})
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(record))
    run = rldp("verify", str(forged), "--counts", str(counts_file))
    assert run.returncode == 1 and "FAIL" in run.stdout


def test_verify_rejects_a_non_stochastic_protocol(solved: dict[str, Path], counts_file: Path,
                                                  tmp_path: Path) -> None:
    record = result_fields(solved["NUNP"])
    record["protocol"][0][0][0] += 1e-3
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(record))
    run = rldp("verify", str(broken), "--counts", str(counts_file))
    assert run.returncode == 1 and "not a stochastic matrix" in run.stdout


def test_verify_rejects_a_protocol_that_leaks_at_phat(solved: dict[str, Path], counts_file: Path,
                                                      tmp_path: Path) -> None:
    record = result_fields(solved["NUNP"])
    identity = np.tile(np.eye(5), (3, 1, 1))
    record["protocol"] = identity.tolist()
    leaky = tmp_path / "leaky.json"
    leaky.write_text(json.dumps(record))
    run = rldp("verify", str(leaky), "--counts", str(counts_file))
    assert run.returncode == 1 and "FAIL" in run.stdout


@pytest.mark.parametrize("content, extra, message", [
    ("s,0,1\na,1,-2\nb,3,4\n", [], "nonnegative"),
    ("s,0,1\na,1\nb,3,4\n", [], "ragged"),
    ("s,0,1\na,1,2.5\nb,3,4\n", [], "integers"),
    ("s,0,1\na,1,2\nb,3,4\n", ["--eps", "-1"], "eps"),
    ("s,0,1\na,1,2\nb,3,4\n", ["--alpha", "1.5"], "alpha"),
    ("s,0,1\na,1,2\nb,3,4\n", ["--alpha", "0"], "alpha"),
    ("s,lo,hi\na,1,2\nb,3,4\n", [], "numeric"),
    ("s,0,1\na,1,2\nb,3,4\n", ["--solver", "nosuchsolver"], "available solvers"),
])
def test_bad_input_exits_2_with_one_line(tmp_path: Path, content: str, extra: list[str],
                                          message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(content)
    args = ["solve", "NURP", "--counts", str(path), "--out", str(tmp_path / "o.json")]
    if "--eps" not in extra:
        args += ["--eps", "0.5"]
    run = rldp(*args, *extra)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in run.stderr


@pytest.mark.skipif(not ADULT.exists(), reason="the Adult data is not here")
def test_a_solver_that_gives_up_is_inconclusive_not_a_failure(tmp_path: Path) -> None:
    """ECOS's exponential-cone method stops on NURP over the KL ball at Adult race x education
    (embotech/ecos#134): no protocol, so nothing is written, and nothing was shown to fail:
    exit 3 with one line naming the solvers that take the model."""
    out = tmp_path / "o.json"
    run = rldp("-q", "solve", "NURP", "--data", str(ADULT), "--sensitive", "race", "--public",
               "education", "--distortion", "hamming", "--uncertainty", "kl", "--solver", "ecos",
               "--eps", "1", "--out", str(out))
    assert run.returncode == 3, run.stderr
    assert not out.exists()
    assert run.stderr.count("\n") == 1 and "solvers that also take this model: " in run.stderr


def test_records_input(tmp_path: Path) -> None:
    records = tmp_path / "records.csv"
    records.write_text("s,u\n" + "".join(f"{i % 2},{i % 3}\n" for i in range(40)))
    out = tmp_path / "o.json"
    run = rldp("solve", "NUNP", "--data", str(records), "--sensitive", "s", "--public", "u",
               "--eps", "1", "--out", str(out))
    assert run.returncode == 0, run.stderr
    assert result_fields(out)["labels"]["U"] == ["0", "1", "2"]


def test_demo_writes_table_results_and_plot(tmp_path: Path) -> None:
    run = rldp("demo", "--out", str(tmp_path / "demo"))
    assert run.returncode == 0, run.stderr
    for problem in ("NUNP", "NURP", "RUNP", "RURP"):
        assert problem in run.stdout
        record = json.loads((tmp_path / "demo" / f"{problem}.json").read_text())
        assert record["schema_version"] == 2 and "migrated_from" not in record
    png = (tmp_path / "demo" / "scatter.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    for problem in ("NURP", "RURP"):  # a nominal and a robust program, from their records
        verify = rldp("verify", str(tmp_path / "demo" / f"{problem}.json"), "--counts",
                      str(tmp_path / "demo" / "counts.csv"))
        assert verify.returncode == 0, verify.stdout


def test_solvers_listing() -> None:
    run = rldp("solvers")
    assert run.returncode == 0 and "clarabel" in run.stdout and "mosek" in run.stdout


def test_a_give_up_at_large_eps_names_the_cause() -> None:
    """Past WIDE_EPSILON the give-up line says why (e^eps beside 1 in the privacy rows) and what
    to try; at ordinary eps it adds nothing."""
    from rldp_models.cli.solve import WIDE_EPSILON, _wide_eps_hint

    assert _wide_eps_hint(1.0) == "" and _wide_eps_hint(WIDE_EPSILON) == ""
    hint = _wide_eps_hint(30.0)
    assert "e^eps = 1.1e+13" in hint and "--solver scs" in hint and "\n" not in hint
