"""``-`` is standard input for every table or record input; a proof never outlives its
record (issue 35, item 3).

Standard input is read within ``--max-memory`` (an endless stream stops at the limit,
one line, exit 2) into a private temporary file that is removed afterwards.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from rldp_models.errors import InputError
from rldp_models.results import files

TABLE = "s,1,2,3\nx,10,6,5\ny,5,8,7\nz,6,5,9\n"


def rldp(*argv: str, stdin: bytes | None = None, source: str | None = None) -> tuple[int, str]:
    """``python -m rldp_models.cli argv`` reading ``stdin`` (or the file ``source``)."""
    handle = open(source, "rb") if source else None
    try:
        run = subprocess.run([sys.executable, "-m", "rldp_models.cli", *argv],
                             input=stdin, stdin=handle, capture_output=True, timeout=300)
    finally:
        if handle:
            handle.close()
    return run.returncode, run.stderr.decode()


def spool_folders() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("rldp-stdin-*")}


def test_a_table_and_a_record_read_from_standard_input(tmp_path: Path) -> None:
    before = spool_folders()
    out = tmp_path / "nunp.json"
    code, err = rldp("solve", "NUNP", "--counts", "-", "--eps", "1", "--out", str(out), "-q",
                     stdin=TABLE.encode())
    assert code == 0, err
    code, err = rldp("verify", "-", "-q", stdin=out.read_bytes())
    assert code == 0, err
    assert spool_folders() <= before  # the spooled copies are gone


def test_standard_input_is_held_to_the_size_limit_while_reading() -> None:
    code, err = rldp("--max-memory", "1M", "verify", "-", "-q", source="/dev/zero")
    assert code == 2 and err.count("\n") == 1 and "standard input is more than" in err, err


def test_one_input_at_most_is_standard_input() -> None:
    code, err = rldp("compare", "-", "-", "-q", stdin=b"{}")
    assert code == 2 and err.count("\n") == 1 and "only one input" in err, err


def test_no_proof_is_left_when_the_record_cannot_be_written(tmp_path: Path,
                                                            monkeypatch) -> None:
    def full_disk(record, path):
        raise InputError(f"cannot write {path} (No space left on device)")

    monkeypatch.setattr(files, "to_record", lambda result, embed: {"certificate": {}})
    monkeypatch.setattr(files, "_write_json_ready", full_disk)
    result = SimpleNamespace(holds=True, attachments={"pricing_proof": {"a": np.zeros(2)}})
    out = tmp_path / "polyopt.json"
    with pytest.raises(InputError, match="No space"):
        files.write_result(result, out)  # type: ignore[arg-type]
    assert sorted(p.name for p in tmp_path.iterdir()) == []
