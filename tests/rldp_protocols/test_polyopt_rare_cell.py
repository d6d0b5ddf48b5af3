"""PolyOpt's pricing proof on a table with cells of 1 and 2 records among thousands (Adult
sex x relationship): the children's boxes must contain their exact halves, whose rounding
error grows as 1 / p_x (the real-data matrix of issue 20 found ``box 496 does not cover its
half of box 468`` there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rldp_models.cli import main

COUNTS = [[1, 3875, 430, 2245, 2654, 1566], [13192, 4430, 551, 2823, 792, 2]]
"""Adult sex x relationship (rows Female, Male)."""


@pytest.mark.slow
def test_pricing_proof_with_rare_cells_verifies(tmp_path: Path) -> None:
    counts = tmp_path / "counts.csv"
    counts.write_text("s," + ",".join(f"u{j}" for j in range(6)) + "\n" + "".join(
        f"s{i}," + ",".join(map(str, row)) + "\n" for i, row in enumerate(COUNTS)))
    out = tmp_path / "po.json"
    assert main(["protocol", "polyopt", "--counts", str(counts), "--eps", "1",
                 "--out", str(out)]) == 0
    assert out.with_suffix(".proof.npz").exists()  # 12 cells: the proof path, not enumeration
    assert main(["verify", str(out)]) == 0
