"""``rldp verify r.json --plugins my_blocks.py``: a block that is code, loaded from a file
without installing anything; its verdict is marked as plug-in code, an objective's too (it
re-evaluates the stated value); a missing or broken file is one line and exit 2.

The record is written and verified in fresh processes: a file's blocks stay registered in
the process that loaded them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rldp_models.cli import main
from tests.plugin_block_source import PAIR_PRIVACY

ROOT = Path(__file__).resolve().parents[2]
COUNTS = ROOT / "tests" / "fixtures" / "round1" / "counts_3x3.csv"

OBJECTIVE = '''

from rldp_models.programs import RobustDistortion


class OwnWorstCase(RobustDistortion):
    """The worst-case distortion, as a user's own objective class."""
'''


WRITER = '''
import sys

from rldp_models.data import Crosstab
from rldp_models.programs import ProtocolProgram, RobustSecretPrivacy
from rldp_models.results.blocks import load_plugin_file
from rldp_models.results.files import write_result
from rldp_models.results.program_result import solution_result
from rldp_models.uncertainty import ChiSquareSet

sys.path.insert(0, sys.argv[1].rpartition("/")[0])
from my_blocks import OwnWorstCase, PairNominalPrivacy  # the script's own import ...

load_plugin_file(sys.argv[1])  # ... of its blocks, registered by path: the record names
# their file

crosstab = Crosstab.from_csv(sys.argv[2])
program = ProtocolProgram(crosstab, OwnWorstCase(),
                          [RobustSecretPrivacy(1.0), PairNominalPrivacy(0.5)],
                          uncertainty=ChiSquareSet.from_counts(crosstab.counts, 0.05),
                          eps=1.0, name="RURP+pair")
write_result(solution_result(program.solve()), sys.argv[3])
'''


def _python(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("plugin")
    blocks, writer = folder / "my_blocks.py", folder / "writer.py"
    blocks.write_text(textwrap.dedent(PAIR_PRIVACY) + textwrap.dedent(OBJECTIVE))
    writer.write_text(WRITER)
    done = _python(str(writer), str(blocks), str(COUNTS), str(folder / "r.json"))
    assert done.returncode == 0, done.stderr
    return folder / "r.json", blocks


def test_a_block_from_a_file_verifies_and_is_marked_as_plugin_code(written) -> None:
    record, blocks = written
    done = _python("-m", "rldp_models.cli", "verify", str(record), "--plugins", str(blocks))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PairNominalPrivacy (plugin:my_blocks.py)" in done.stdout
    assert "[plug-in code]" in done.stdout
    assert "objective OwnWorstCase (plugin:my_blocks.py) [plug-in code]" in done.stdout


def test_without_the_file_the_block_is_unknown(written) -> None:
    done = _python("-m", "rldp_models.cli", "verify", str(written[0]))
    assert done.returncode == 2
    assert "'OwnWorstCase', which is not registered here" in done.stderr  # the first one met
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    ("def broken(:\n", "syntax error at line 1"),
    ("raise RuntimeError('no licence')\n", "importing it failed (RuntimeError: no licence)"),
    ("x = 1\n", "defines no block class"),
])
def test_a_missing_or_broken_plugin_file_is_one_line_and_exit_2(written, tmp_path, capsys,
                                                                 content, message) -> None:
    plugin = tmp_path / "plugin.py"
    if content is not None:
        plugin.write_text(content)
    assert main(["verify", str(written[0]), "--plugins", str(plugin)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
