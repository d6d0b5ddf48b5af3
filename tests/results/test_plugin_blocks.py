"""A program with a third-party block registered through the ``rldp_models.blocks`` entry
points: solved, written, verified from the command line, the plug-in's verdict named."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.results.files import write_result
from rldp_models.results.record import to_record
from tests.plugin_block_source import PAIR_PRIVACY

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "round1"


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The block in a module with a tiny dist-info declaring its entry point, on sys.path."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "rldp_test_plugin.py").write_text(textwrap.dedent(PAIR_PRIVACY))
    info = site / "rldp_test_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rldp-test-plugin\n"
                                   "Version: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[rldp_models.blocks]\nPairNominalPrivacy = rldp_test_plugin:PairNominalPrivacy\n")
    monkeypatch.syspath_prepend(str(site))
    import importlib

    return importlib.import_module("rldp_test_plugin")


def _solved(plugin, strict_eps: float):
    from rldp_models.programs import ProtocolProgram
    from rldp_models.programs.components import RobustDistortion, RobustSecretPrivacy
    from rldp_models.results.program_result import solution_result
    from rldp_models.uncertainty.chi_square import ChiSquareSet

    crosstab = Crosstab.from_csv(FIXTURES / "counts_3x3.csv")
    program = ProtocolProgram(crosstab, RobustDistortion(),
                              [RobustSecretPrivacy(1.0), plugin.PairNominalPrivacy(strict_eps)],
                              uncertainty=ChiSquareSet.from_counts(crosstab.counts, 0.05),
                              eps=1.0, name="RURP+pair")
    return solution_result(program.solve())


def test_a_plugin_block_is_rebuilt_and_its_verdict_named(plugin, tmp_path, capsys) -> None:
    result = _solved(plugin, 0.1)
    assert [g.source for g in result.guarantees] == ["library", "plugin:rldp-test-plugin"]
    path = tmp_path / "variant.json"
    write_result(result, path)
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "from plug-in code: PairNominalPrivacy (plugin:rldp-test-plugin)" in out
    assert "[plug-in code]" in out


def test_the_plugin_verdict_fails_a_protocol_that_breaks_it(plugin, tmp_path, capsys) -> None:
    """The robust block alone allows more leakage between secrets 0 and 1 than eps2 = 0.001."""
    record = to_record(_solved(plugin, 0.1))
    record["declaration"]["blocks"][2]["parameters"]["eps"] = 0.001
    path = tmp_path / "stricter.json"
    path.write_text(json.dumps(record))
    assert main(["verify", str(path)]) == 1
    assert "FAILS: PairNominalPrivacy" in capsys.readouterr().out


def test_an_unregistered_block_is_bad_input(plugin, tmp_path, capsys) -> None:
    record = to_record(_solved(plugin, 0.1))
    record["declaration"]["blocks"][2]["block"] = "NoSuchBlock"
    path = tmp_path / "unknown.json"
    path.write_text(json.dumps(record))
    assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert "NoSuchBlock" in err and "rldp_models.blocks" in err and err.count("\n") == 1


def test_a_variant_of_library_blocks_under_its_own_name_verifies(tmp_path, capsys) -> None:
    """RURP over a box set, named RURP-BOX: round 1 refused it ("cannot verify problem"); the
    declaration names the blocks and the set, so the box (not chi-square) set is re-checked."""
    from rldp_models.programs import preset
    from rldp_models.results.program_result import solution_result
    from rldp_models.uncertainty import BoxSet, ChiSquareSet

    crosstab = Crosstab.from_csv(FIXTURES / "counts_2x3.csv")
    box = BoxSet.containing(ChiSquareSet.from_counts(crosstab.counts, 0.05))
    program = preset("RURP", crosstab, 1.0, uncertainty=box)
    program.name = "RURP-BOX"
    path = tmp_path / "rurp-box.json"
    write_result(solution_result(program.solve()), path)
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "over the box set" in out and "certificate: holds" in out
