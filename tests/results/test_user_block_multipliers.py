"""A user's registered block certifies its own stored multipliers (issue 32 item 2).

The docs' variant (RURP plus a stricter guarantee, docs/custom-variant.md) with the
stricter guarantee written by the user as a robust block of their own: ``rldp verify``
re-evaluates the multipliers the record stores for the user's constraint group, as it
does a library block's, so halving them fails the certificate (exit 1). Before blocks
certified themselves, verify picked the library's ``RobustSecretPrivacy`` by name and
never looked at a user block's multipliers.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.results.files import write_result

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "round1"

PLUGIN = '''
from dataclasses import dataclass

from rldp_models.programs.components import RobustSecretPrivacy


@dataclass(frozen=True)
class StrictRobustPrivacy(RobustSecretPrivacy):
    """Robust privacy (eq. 23) at a stricter level, under the user's own constraint group."""

    eps: float
    name: str = "strict_privacy"
'''


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The block in a module with a tiny dist-info declaring its entry point, on sys.path."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "rldp_strict_plugin.py").write_text(textwrap.dedent(PLUGIN))
    info = site / "rldp_strict_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rldp-strict-plugin\n"
                                   "Version: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[rldp_models.blocks]\nStrictRobustPrivacy = rldp_strict_plugin:StrictRobustPrivacy\n")
    monkeypatch.syspath_prepend(str(site))
    import importlib

    return importlib.import_module("rldp_strict_plugin")


def _written(plugin, path: Path) -> dict:
    from rldp_models.programs import ProtocolProgram
    from rldp_models.programs.components import RobustDistortion, RobustSecretPrivacy
    from rldp_models.results.program_result import solution_result
    from rldp_models.uncertainty.chi_square import ChiSquareSet

    crosstab = Crosstab.from_csv(FIXTURES / "counts_3x3.csv")
    program = ProtocolProgram(crosstab, RobustDistortion(),
                              [RobustSecretPrivacy(1.0), plugin.StrictRobustPrivacy(0.5)],
                              uncertainty=ChiSquareSet.from_counts(crosstab.counts, 0.05),
                              eps=1.0, name="RURP+strict")
    result = solution_result(program.solve(solver="clarabel"))
    assert [g.source for g in result.guarantees] == ["library", "plugin:rldp-strict-plugin"]
    write_result(result, path)
    return json.loads(path.read_text())


def test_a_user_blocks_halved_multipliers_fail_the_certificate(plugin, tmp_path, capsys) -> None:
    path = tmp_path / "variant.json"
    record = _written(plugin, path)
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    n_s, n_y = 3, len(record["matrix"]["outputs"])
    pairs = n_s * (n_s - 1)
    # both privacy blocks' constraints and the objective's, from their own groups
    assert f"{2 * pairs * n_y + 1} robust constraints" in out

    multipliers = record["certificate"]["multipliers"]
    user_groups = [g for g in multipliers if g.startswith("strict_privacy[")]
    assert len(user_groups) == pairs
    for group in user_groups:
        multipliers[group] = {key: (np.asarray(value) * 0.5).tolist()
                              for key, value in multipliers[group].items()}
    halved = tmp_path / "halved.json"
    halved.write_text(json.dumps(record))
    assert main(["verify", str(halved)]) == 1
    out = capsys.readouterr().out
    certificate = out[out.index("certificate:"):]
    assert certificate.startswith("certificate: FAILS")
    assert "largest violation" in certificate and "at strict_privacy[" in certificate

