"""One Adult split and one set of results for every release test (built once per session)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from rldp_models.cli import main
from tests.disclosure.adult_results import PUBLIC, SENSITIVE, adult_halves, protocol_results
from tests.shared_data import ADULT


@dataclass(frozen=True)
class AdultRelease:
    """The design half, the records to release and the results designed on the first."""

    directory: Path
    design: Path
    records: Path
    results: dict[str, Path]


@pytest.fixture(scope="session")
def adult(tmp_path_factory) -> AdultRelease:
    if not ADULT.exists():
        pytest.skip("Adult data not available")
    directory = tmp_path_factory.mktemp("adult-release")
    design, records = adult_halves(directory)
    results = protocol_results(directory, design)
    rurp = directory / "rurp.json"
    assert main(["solve", "RURP", "--data", str(design), "--sensitive", SENSITIVE, "--public",
                 PUBLIC, "--eps", "1", "--distortion", "hamming", "--out", str(rurp),
                 "-q"]) == 0
    results["rurp"] = rurp
    return AdultRelease(directory, design, records, results)
