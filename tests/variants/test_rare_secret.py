"""A secret with three records among ~7,000 (``Phat(s) = 4e-4``): V3's record is the optimum of
the independent model and ``rldp verify`` proves its product-form privacy afresh.

Before the Charnes-Cooper solve was stated at ``1.z_s = Phat(s)`` (not 1), its ``z`` was
``1 / Phat(s)`` times the size of ``Phat``, its ``kappa`` came out ~1e-5 high on this table,
the solve's check mixed 5e-6 of the uniform protocol in (the record 1.3e-4 above the
optimum, out of issue 33's window) and verify's fresh check called the record's privacy
violated (by 9.5e-6) where its stored certificate held.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from rldp_models.cli import main
from tests.variants.independent import independent_optimum, v3_support

ROOT = Path(__file__).resolve().parents[2]
COUNTS = np.array([[439, 884, 2428], [1822, 450, 1435], [1, 1, 1]])
LOW, HIGH = -1e-6, 1e-5


def test_v3_with_a_rare_secret_is_the_optimum_and_verifies(tmp_path: Path) -> None:
    counts, out = tmp_path / "rare.csv", tmp_path / "v3.json"
    pd.DataFrame(COUNTS, index=["s0", "s1", "rare"], columns=["u0", "u1", "u2"]).to_csv(counts)
    subprocess.run([sys.executable, str(ROOT / "docs" / "variants" / "v3_chi2_box.py"),
                    "--counts", str(counts), "--out", str(out)], check=True,
                   capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    value = json.loads(out.read_text())["value"]["value"]
    expected = independent_optimum(COUNTS, v3_support(COUNTS))
    assert LOW <= (value - expected) / expected <= HIGH, (value, expected)
    assert main(["verify", str(out)]) == 0
