"""Labels in every message (issue 36 item 3): on a table with text labels, nothing that solve,
verify, protocol or compare prints, and no outcome's summary, names a secret or output by its
index where it has a label.

The hair x eye table has text labels on both sides, so any index in a message ("y=0",
"s1=2", "(0, 1, 2)", "sup[0]", "#3") is one a label should have replaced. The certificate
verdict and a guarantee's recorded detail are checked apart, since they are written by
``rldp_models/certificates`` and ``rldp_models/results``.
"""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pytest

import rldp_models as rldp
from rldp_models.api import Protocol
from rldp_models.cli import main
from rldp_models.data import Crosstab

HAIR = ["Black", "Brown", "Red", "Blond"]
EYES = ["Brown", "Blue", "Hazel", "Green"]
COUNTS = np.array([[68, 20, 15, 5], [119, 84, 54, 29], [26, 17, 14, 14], [7, 94, 10, 16]])
PROGRAMS = {"NUNP": "chi2", "NURP": "chi2", "RUNP": "chi2", "RURP": "chi2", "RURP-tv": "tv"}
PROTOCOLS = ("ir", "grr-cr", "ue-cr", "srr")

INDEX = re.compile(r"\b(?:y|s|u|x|s1|s2)\s*=\s*\d"       # y=0, s1 = 2
                   r"|\(\s*\d+\s*(?:,\s*\d+\s*)+\)"      # (0, 1, 2)
                   r"|\[\s*\d+\s*(?:,\s*\d+\s*)*\]"      # sup[0], robust_privacy[3,1]
                   r"|#\d+"                              # output #3
                   r"|\b[ys]\d+\b")                      # s0, y3


def indexed(text: str) -> list[str]:
    """The lines of ``text`` that name something by an index."""
    return [line for line in text.splitlines() if INDEX.search(line)]


def test_the_pattern_finds_indices_and_spares_numbers() -> None:
    for line in ("at y=3, s1=3, s2=0", "worst margin at (y, s1, s2) = (3, 3, 1)",
                 "robust_privacy/sup[0] y=0", "at robust_privacy[3,1]", "at output #3",
                 "P(y=0|s1) / P(y=0|s2)"):
        assert indexed(line), line
    for line in ("recorded level in [0.51056228, 0.712366162]", "eps = 1, B = 0.0422226",
                 "|S| x |U| = 4 x 4", "channel rank 13 of 16 inputs", "(eps, F)-RLDP",
                 "at output 'Green', secrets 'Red' against 'Brown'", "(Black, Brown): +1"):
        assert not indexed(line), line


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Every command on the hair x eye table: what it printed, and the records it wrote."""
    work = tmp_path_factory.mktemp("labels")
    counts = work / "counts.csv"
    Crosstab.from_array(COUNTS, HAIR, EYES).to_csv(counts)
    printed: dict[str, str] = {}
    files = {}

    def call(key: str, argv: list[str]) -> int:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
        printed[key] = out.getvalue() + err.getvalue()
        return code

    for name, region in PROGRAMS.items():
        files[name] = work / f"{name}.json"
        assert call(f"solve {name}", ["solve", name.split("-")[0], "--counts", str(counts),
                                      "--eps", "1", "--distortion", "hamming", "--uncertainty",
                                      region, "--out", str(files[name])]) == 0
    for name in PROTOCOLS:
        files[name] = work / f"{name}.json"
        assert call(f"protocol {name}", ["protocol", name, "--counts", str(counts), "--eps",
                                         "1", "--out", str(files[name])]) == 0
    for name, path in files.items():
        assert call(f"verify {name}", ["verify", str(path)]) == 0
    assert call("compare", ["compare", *(str(files[k]) for k in ("NUNP", "RURP", "grr-cr",
                                                                "srr")),
                            "--counts", str(counts), "--out", str(work / "compare.csv")]) == 0
    return {"printed": printed, "files": files, "counts": counts}


def guarantee_part(text: str) -> str:
    """What ``rldp verify`` prints before its certificate verdict."""
    return text.split("\ncertificate:")[0]


def certificate_part(text: str) -> str:
    return text.split("\ncertificate:")[1]


@pytest.mark.parametrize("command", [f"solve {p}" for p in PROGRAMS]
                         + [f"protocol {p}" for p in PROTOCOLS] + ["compare"])
def test_what_solve_protocol_and_compare_print_names_labels(run: dict, command: str) -> None:
    assert indexed(run["printed"][command]) == []


@pytest.mark.parametrize("name", [*PROGRAMS, *PROTOCOLS])
def test_the_guarantee_verify_prints_names_labels(run: dict, name: str) -> None:
    text = run["printed"][f"verify {name}"]
    assert "certificate:" in text
    assert indexed(guarantee_part(text)) == []


@pytest.mark.parametrize("name", ["NURP", "RURP", "RURP-tv"])
def test_the_certificate_verify_prints_names_labels(run: dict, name: str) -> None:
    assert indexed(certificate_part(run["printed"][f"verify {name}"])) == []


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_outcome_summaries_name_labels(run: dict, name: str) -> None:
    problem, region = name.split("-")[0], PROGRAMS[name]
    solved = rldp.solve(problem, run["counts"], eps=1, distortion="hamming",
                        uncertainty=region)
    assert indexed(solved.summary()) == []
    assert indexed(Protocol(solved.result).summary()) == []
    verified = rldp.verify(run["files"][name]).summary()
    assert indexed(guarantee_part(verified)) == []


def test_compare_summary_names_labels(run: dict) -> None:
    compared = rldp.compare([run["files"][k] for k in ("NUNP", "RURP", "grr-cr", "srr")],
                            run["counts"])
    assert indexed(compared.summary()) == []


@pytest.mark.parametrize("name", ["NURP", "RUNP"])
def test_a_guarantees_recorded_detail_names_labels(run: dict, name: str) -> None:
    """The detail column of ``guarantees()`` (and so the notebook view) is the record's text,
    written by results/ ("worst margin at (y, s1, s2) = (3, 3, 1)")."""
    solved = rldp.solve(name, run["counts"], eps=1, distortion="hamming")
    assert indexed("\n".join(solved.guarantees()["detail"].astype(str))) == []
