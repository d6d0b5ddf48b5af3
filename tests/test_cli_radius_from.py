"""``--radius-from bootstrap`` on ``rldp solve``: the radius and its provenance flow into the
record's declaration, and ``rldp verify`` draws the bootstrap again (issue 24 item 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.uncertainty.calibration import bootstrap_radius
from rldp_models.uncertainty.chi_square import chi_square_radius

COUNTS = Path(__file__).resolve().parent / "fixtures" / "round1" / "counts_2x3.csv"
DRAWS, SEED = 2000, 7


@pytest.fixture(scope="module")
def bootstrapped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("radius") / "rurp.json"
    assert main(["solve", "RURP", "--counts", str(COUNTS), "--eps", "1", "--radius-from",
                 "bootstrap", "--bootstrap-draws", str(DRAWS), "--bootstrap-seed", str(SEED),
                 "--out", str(out)]) == 0
    return out


def _declared(path: Path) -> dict:
    return json.loads(path.read_text())["declaration"]["uncertainty"]


def test_bootstrap_radius_and_provenance_are_declared(bootstrapped: Path) -> None:
    declared = _declared(bootstrapped)
    counts = Crosstab.from_csv(COUNTS).counts
    radius, source = bootstrap_radius("chi2", counts, 0.05, DRAWS, SEED)  # drawn independently
    assert declared["radius_from"] == "bootstrap"
    assert declared["radius"] == radius and declared["radius_source"]["seed"] == SEED
    assert declared["radius_source"]["draws"] == DRAWS == source["draws"]
    assert radius != chi_square_radius(int(counts.sum()), counts.size, 0.05)


def test_bootstrap_record_verifies(bootstrapped: Path) -> None:
    assert main(["verify", str(bootstrapped)]) == 0


def _tampered(path: Path, change) -> Path:
    record = json.loads(path.read_text())
    change(record["declaration"]["uncertainty"])
    out = path.with_name("tampered.json")
    out.write_text(json.dumps(record))
    return out


def test_tampered_seed_is_refused(bootstrapped: Path, capsys: pytest.CaptureFixture) -> None:
    """Exit 2: the recorded radius is not the one its recorded seed draws (the record does not
    fit the counts, as a radius not of its alpha)."""
    counts = Crosstab.from_csv(COUNTS).counts
    assert bootstrap_radius("chi2", counts, 0.05, DRAWS, SEED + 1)[0] != \
        bootstrap_radius("chi2", counts, 0.05, DRAWS, SEED)[0]  # the seed matters here

    def reseed(uncertainty: dict) -> None:
        uncertainty["radius_source"]["seed"] = SEED + 1
    capsys.readouterr()
    assert main(["verify", str(_tampered(bootstrapped, reseed))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bootstrap radius" in err


def test_missing_provenance_is_refused(bootstrapped: Path) -> None:
    def drop(uncertainty: dict) -> None:
        del uncertainty["radius_source"]
    assert main(["verify", str(_tampered(bootstrapped, drop))]) == 2


def test_radius_and_bootstrap_together_are_refused(tmp_path: Path) -> None:
    assert main(["solve", "RURP", "--counts", str(COUNTS), "--eps", "1", "--radius", "0.1",
                 "--radius-from", "bootstrap", "--out", str(tmp_path / "x.json")]) == 2
