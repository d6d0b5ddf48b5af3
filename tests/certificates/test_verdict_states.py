"""Verdicts hold, fail, or are inconclusive (the check could not be completed), and
``rldp verify`` exits 0, 1 or 3 accordingly: a failure is never hidden by an unchecked part,
and an unchecked part is never called a failure."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rldp_models.certificates.verdict import Verdict, VerificationReport, report_to_json
from rldp_models.cli import main
from rldp_models.cli import ExitCode
from rldp_models.cli.verify import _exit_code
from rldp_models.conelp import exact_lp_dual

HOLDS = Verdict(True, "checked")
FAILS = Verdict(False, "found false")
UNCHECKED = Verdict.could_not_check("too many rays")


@pytest.mark.parametrize(("parts", "state"), [
    ((HOLDS, HOLDS), "holds"),
    ((HOLDS, FAILS), "FAILS"),
    ((HOLDS, UNCHECKED), "INCONCLUSIVE"),
    ((UNCHECKED, FAILS), "FAILS"),
    ((UNCHECKED, UNCHECKED), "INCONCLUSIVE"),
    ((), "holds"),
])
def test_a_combined_verdict_fails_if_a_part_fails_else_is_inconclusive_if_one_is(parts, state):
    assert Verdict.all_of(parts, "both").state == state


def test_a_verdict_that_holds_cannot_be_inconclusive():
    with pytest.raises(ValueError):
        Verdict(True, "checked", inconclusive=True)


@pytest.mark.parametrize(("guarantee", "certificate", "code", "last"), [
    (HOLDS, HOLDS, ExitCode.OK, "certificate: holds -- checked"),
    (HOLDS, FAILS, ExitCode.FAILED, "FAIL: the certificate check failed"),
    (HOLDS, UNCHECKED, ExitCode.INCONCLUSIVE,
     "INCONCLUSIVE: the certificate check could not be completed; nothing was shown to fail"),
    (FAILS, UNCHECKED, ExitCode.FAILED, "FAIL: the guarantee check failed"),
])
def test_the_exit_code_and_last_line_follow_the_states(guarantee, certificate, code, last,
                                                       capsys):
    report = VerificationReport("mechanism", guarantee, certificate)
    assert _exit_code(report) == code
    assert report.lines()[-1] == last
    error = capsys.readouterr().err
    assert error == ("rldp: inconclusive: too many rays; nothing was shown to fail\n"
                     if code == ExitCode.INCONCLUSIVE else "")


def test_the_json_report_says_which_verdict_is_inconclusive():
    written = report_to_json(VerificationReport("mechanism", HOLDS, UNCHECKED))
    assert (written["guarantee"]["inconclusive"], written["certificate"]["inconclusive"]) \
        == (False, True)
    assert written["holds"] is False


def test_an_srlip_record_whose_attribute_cone_exceeds_the_cap_is_inconclusive(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """Written with the usual cap, verified with the cap at 2 rays: attribute 1's cone (2
    rays) is still checked and reported, attribute 2's (3 values, more rays) cannot be listed.
    Exit 3, the reason in one line, the guarantee still checked (it holds)."""
    joint = tmp_path / "joint.csv"
    rows = np.array([[5, 15, 2, 4, 1, 7], [30, 50, 1, 2, 9, 3]])
    joint.write_text("s," + ",".join(f"x{i}" for i in range(6)) + "\n"
                     + "".join(f"s{i}," + ",".join(map(str, row)) + "\n"
                               for i, row in enumerate(rows)))
    out, report = tmp_path / "srlip.json", tmp_path / "report.json"
    assert main(["mechanism", "srlip", "--joint", str(joint), "--attribute-sizes", "2", "3",
                 "--eps", "1", "--out", str(out)]) == ExitCode.OK
    assert main(["verify", str(out)]) == ExitCode.OK
    capsys.readouterr()
    monkeypatch.setattr(exact_lp_dual, "MAX_RAYS", 2)
    code = main(["verify", str(out), "--report", str(report)])
    written = capsys.readouterr()
    lines = written.out.splitlines()
    assert code == ExitCode.INCONCLUSIVE, lines
    assert lines[0].startswith("guarantee: holds")
    assert lines[1].startswith("certificate: INCONCLUSIVE -- 2 per-attribute duals checked in "
                               "exact rationals; attribute 2: the LP dual cannot be re-checked")
    assert "more than 2 to check" in lines[1]
    assert any(line.startswith("  attribute 1: LP dual checked over all 2 rays")
               for line in lines)
    assert lines[-1].startswith("INCONCLUSIVE: the certificate check could not be completed")
    assert written.err.count("\n") == 1
    assert written.err.startswith("rldp: inconclusive: 2 per-attribute duals checked")
    assert json.loads(report.read_text())["certificate"]["inconclusive"] is True
