"""Adult sex x relationship: design counts on one half, records to release on the other,
and results made by the command line on the design half (shared by the release tests)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rldp_models.cli import main
from tests.shared_data import ADULT

SENSITIVE, PUBLIC = "sex", "relationship"
PROTOCOLS = ("ir", "grr-cr", "ue-cr", "srr")


def adult_halves(directory: Path) -> tuple[Path, Path]:
    """``design.csv`` and ``records.csv``: a seeded shuffle of Adult split in two."""
    frame = pd.read_csv(ADULT, skipinitialspace=True, dtype=str)[[SENSITIVE, PUBLIC, "age"]]
    frame = frame.sample(frac=1.0, random_state=0)
    half = len(frame) // 2
    design, records = directory / "design.csv", directory / "records.csv"
    frame.iloc[:half].to_csv(design, index=False)
    frame.iloc[half:].to_csv(records, index=False)
    return design, records


def protocol_results(directory: Path, design: Path, names=PROTOCOLS,
                     eps: float = 2.0) -> dict[str, Path]:
    """``rldp protocol NAME`` on the design half, for each name."""
    paths = {}
    for name in names:
        out = directory / f"{name}.json"
        assert main(["protocol", name, "--data", str(design), "--sensitive", SENSITIVE,
                     "--public", PUBLIC, "--eps", str(eps), "--out", str(out), "-q"]) == 0
        paths[name] = out
    return paths
