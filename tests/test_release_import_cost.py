"""``rldp release`` does not import cvxpy (issue 36 item 7): drawing needs no modelling library.

Neither the release with ``--no-verify`` nor the default one, whose re-check decides the
stated guarantee by the exact checks alone
(:func:`rldp_models.certificates.verification.verify_guarantee`: no worst-case bracket, no
certificate), imports it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rldp_models.cli import main
from rldp_models.data import Crosstab

RUN = """
import json, sys
from rldp_models.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "cvxpy": "cvxpy" in sys.modules}))
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("release_imports")
    Crosstab.from_array([[30, 10, 5], [8, 25, 12]], ["no", "yes"], ["low", "mid", "high"]) \
        .to_csv(work / "counts.csv")
    records = work / "records.csv"
    records.write_text("s,u\n" + "no,low\nyes,mid\nno,high\n" * 20)
    assert main(["solve", "RURP", "--counts", str(work / "counts.csv"), "--eps", "1",
                 "--distortion", "hamming", "--out", str(work / "r.json")]) == 0
    return {"result": work / "r.json", "records": records, "dir": work}


def release_loads_cvxpy(files: dict[str, Path], *extra: str) -> bool:
    argv = ["release", str(files["result"]), "--data", str(files["records"]), "--sensitive",
            "s", "--public", "u", "--out", str(files["dir"] / "out.csv"), "--seed", "1", *extra]
    run = subprocess.run([sys.executable, "-c", RUN, *argv], capture_output=True, text=True,
                         timeout=300)
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["code"] == 0, run.stderr
    return report["cvxpy"]


def test_release_without_the_recheck_does_not_import_cvxpy(files: dict[str, Path]) -> None:
    assert not release_loads_cvxpy(files, "--no-verify")


def test_release_does_not_import_cvxpy(files: dict[str, Path]) -> None:
    assert not release_loads_cvxpy(files)


def _tampered(source: Path, target: Path) -> Path:
    """``source`` with its rows replaced by the identity's: exact, stochastic, not private."""
    record = json.loads(source.read_text())
    n_rows, n_cols = len(record["matrix"]["rows"]), len(record["matrix"]["rows"][0])
    record["matrix"]["rows"] = [[1.0 if j == i % n_cols else 0.0 for j in range(n_cols)]
                                for i in range(n_rows)]
    target.write_text(json.dumps(record))
    return target


@pytest.mark.parametrize("producer", [["solve", "RURP", "--distortion", "hamming"],
                                      ["protocol", "grr-cr"],
                                      ["protocol", "srr"]])
def test_the_exact_recheck_passes_a_true_record_and_refuses_a_tampered_one(
        files: dict[str, Path], producer: list[str]) -> None:
    from rldp_models.certificates.verification import verify
    from rldp_models.disclosure.channel import GuaranteeNotVerified, verified_result
    from rldp_models.results.files import read_record

    out = files["dir"] / f"{producer[1]}.json"
    assert main([*producer, "--counts", str(files["dir"] / "counts.csv"), "--eps", "1",
                 "--out", str(out), "-q"]) == 0
    crosstab = Crosstab.from_csv(files["dir"] / "counts.csv")
    _, _, checked = verified_result(out)
    assert checked.startswith("guarantee re-verified")
    assert verify(read_record(out), crosstab).guarantee.holds  # the full verify agrees
    tampered = _tampered(out, files["dir"] / f"{producer[1]}-tampered.json")
    assert not verify(read_record(tampered), crosstab).guarantee.holds
    with pytest.raises(GuaranteeNotVerified):
        verified_result(tampered)
