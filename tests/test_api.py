"""The Python API (issue 36 items 1-3): one call per command, the same record or table as the
command line, every route of the data to the same record, labels in every message."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rldp_models as rldp
from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.results.record import to_record

EYES = ["Blue", "Brown", "Green", "Hazel"]
HAIR = ["Black", "Blond", "Brown", "Red"]
COUNTS = np.array([[20, 94, 84, 17], [68, 7, 119, 26], [5, 16, 29, 14], [15, 10, 54, 14]])


@pytest.fixture(scope="module")
def records() -> pd.DataFrame:
    """One row per person of the eye x hair table (text labels on both sides)."""
    rows = [(e, h) for i, e in enumerate(EYES) for j, h in enumerate(HAIR)
            for _ in range(COUNTS[i, j])]
    return pd.DataFrame(rows, columns=["eye", "hair"]).sample(frac=1, random_state=0)


@pytest.fixture(scope="module")
def files(records: pd.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("api")
    records.to_csv(work / "records.csv", index=False)
    Crosstab.from_array(COUNTS, EYES, HAIR).to_csv(work / "counts.csv")
    return {"records": work / "records.csv", "counts": work / "counts.csv", "dir": work}


def content(record: dict) -> dict:
    """A record without what differs from run to run (timings)."""
    record = json.loads(json.dumps(record))
    record.pop("solver", None)
    for key in ("solve_seconds", "build_seconds"):
        record["details"].pop(key, None)
    record["certificate"].get("optimality", {}).pop("seconds", None)
    return record


OPTIONS = {"eps": 1.0, "distortion": "hamming"}


def test_every_route_of_the_data_gives_the_same_record(records: pd.DataFrame,
                                                       files: dict[str, Path]) -> None:
    routes = {
        "counts CSV": rldp.solve("RURP", files["counts"], **OPTIONS),
        "records CSV": rldp.solve("RURP", files["records"], sensitive="eye", public="hair",
                                  **OPTIONS),
        "DataFrame": rldp.solve("RURP", records, sensitive="eye", public="hair", **OPTIONS),
        "pd.crosstab": rldp.solve("RURP", pd.crosstab(records.eye, records.hair), **OPTIONS),
    }
    first = content(to_record(routes["counts CSV"].result))
    assert first["matrix"]["inputs"][0] == ["Blue", "Black"]
    for route, solved in routes.items():
        assert content(to_record(solved.result)) == first, route


def test_cli_solve_writes_the_functions_record(files: dict[str, Path]) -> None:
    out = files["dir"] / "cli.json"
    assert main(["solve", "RURP", "--counts", str(files["counts"]), "--eps", "1",
                 "--distortion", "hamming", "--out", str(out)]) == 0
    solved = rldp.solve("RURP", files["counts"], **OPTIONS)
    assert content(json.loads(out.read_text())) == content(to_record(solved.result))


def test_solved_outcome_speaks_in_labels(files: dict[str, Path]) -> None:
    solved = rldp.solve("NURP", files["counts"], **OPTIONS)
    text = solved.summary()
    assert not re.search(r"\b(y|s1|s2)=\d", text), text
    assert re.search(r"secrets '(Blue|Brown|Green|Hazel)' against", text)
    assert re.search(r"whole solve", text) and solved.cpu_seconds > 0
    frame = solved.to_frame()
    assert list(frame.index.names) == ["S", "U"] and frame.index[0] == ("Blue", "Black")
    np.testing.assert_allclose(frame.sum(axis=1), 1.0)
    guarantees = solved.guarantees()
    assert guarantees["holds"].all() and set(guarantees["notion"]) == {"robust"}  # NURP
    page = solved._repr_html_()
    assert "Hazel / Red" in page and "guarantees" in page and "<table" in page


def test_verify_gives_the_cli_lines(files: dict[str, Path],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = files["dir"] / "verify.json"
    rldp.solve("RURP", files["counts"], **OPTIONS).write(path)
    capsys.readouterr()
    assert main(["verify", str(path)]) == 0
    printed = capsys.readouterr().out.strip().splitlines()
    outcome = rldp.verify(path)
    assert outcome.exit_code == 0 and outcome.summary().splitlines() == printed
    assert rldp.verify(path, files["counts"]).counts_given


def test_compare_and_coverage_give_the_cli_tables(files: dict[str, Path],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    paths = []
    for problem in ("NUNP", "RURP"):
        paths.append(files["dir"] / f"{problem}.json")
        rldp.solve(problem, files["counts"], **OPTIONS).write(paths[-1])
    out = files["dir"] / "compare.csv"
    capsys.readouterr()
    assert main(["compare", *map(str, paths), "--counts", str(files["counts"]),
                 "--out", str(out)]) == 0
    compared = rldp.compare(paths, files["counts"])
    pd.testing.assert_frame_equal(pd.read_csv(out), compared.to_frame(), check_dtype=False)
    printed = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in printed if "wrote" not in line) <= 100
    table = rldp.coverage(files["counts"], draws=200, uncertainty="chi2", reference="phat")
    assert main(["coverage", "--counts", str(files["counts"]), "--draws", "200",
                 "--uncertainty", "chi2", "--reference", "phat",
                 "--out", str(files["dir"] / "cov.csv")]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(files["dir"] / "cov.csv"), table.to_frame(),
                                  check_dtype=False)


def test_release_takes_and_returns_frames(records: pd.DataFrame, files: dict[str, Path]) -> None:
    solved = rldp.solve("RURP", files["counts"], **OPTIONS)
    path = files["dir"] / "release.json"
    solved.write(path)
    with pytest.warns(UserWarning):
        from_object = rldp.release(solved, records, sensitive="eye", public="hair", seed=3)
        from_file = rldp.release(path, records, sensitive="eye", public="hair", seed=3)
    released = from_object.to_frame()
    assert len(released) == len(records) and set(released["Y"]) <= set(HAIR)
    pd.testing.assert_frame_equal(released, from_file.to_frame())
    out = files["dir"] / "released.csv"
    with pytest.warns(UserWarning):
        streamed = rldp.release(path, files["records"], sensitive="eye", public="hair",
                                seed=3, out=out)
    assert streamed.records == len(records) and "wrote" in streamed.summary()


def test_import_is_lazy() -> None:
    code = ("import sys, rldp_models\n"
            "print(sorted(m for m in ('rldp_models.api', 'pandas', 'numpy') if m in sys.modules))\n"
            "rldp_models.solve\n"
            "print('rldp_models.api' in sys.modules)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=Path(__file__).parent.parent)
    assert run.stdout.split("\n")[:2] == ["[]", "True"], run.stderr


def test_a_restricted_guarantee_names_its_pairs_and_outputs() -> None:
    from rldp_models.api import Protocol
    from rldp_models.programs import ProtocolProgram, RobustDistortion, RobustSecretPrivacy
    from rldp_models.results.program_result import solution_result
    from rldp_models.uncertainty import ChiSquareSet

    crosstab = Crosstab.from_array(COUNTS, EYES, HAIR)
    program = ProtocolProgram(crosstab, RobustDistortion(),
                              [RobustSecretPrivacy(1.0, outputs=[0, 3], pairs=[(0, 3), (3, 0)])],
                              uncertainty=ChiSquareSet.from_counts(crosstab.counts, 0.05),
                              distortion="hamming", eps=1.0, name="RURP on two pairs")
    protocol = Protocol(solution_result(program.solve()))
    covers = protocol.guarantees()["covers"].tolist()
    assert covers == ["pairs (Blue, Hazel), (Hazel, Blue); outputs Black, Red"]
    assert "(only pairs (Blue, Hazel), (Hazel, Blue); outputs Black, Red)" in protocol.summary()
    full = rldp.solve("RURP", crosstab, **OPTIONS)
    assert full.guarantees()["covers"].tolist() == ["all"]


def test_the_printed_time_is_the_whole_solve(files: dict[str, Path]) -> None:
    """The solver's own seconds are a part of the whole solve's wall time, and both appear."""
    solved = rldp.solve("RURP", files["counts"], **OPTIONS)
    assert 0 < solved.solver_seconds <= solved.wall_seconds
    assert f"whole solve {solved.wall_seconds:.2f} s wall" in solved.summary()


def test_compare_solvers_table_fits_in_100_columns_unless_wide() -> None:
    from rldp_models.api.solver_comparison import SolverRow, format_table

    rows = [SolverRow("clarabel-direct", "optimal", 0.365229, 0.0, 0.0, 0.0, 0.08, "passes",
                      0.3652292011, 0.3652291901, 3.0e-08, 3.0e-08, "clarabel-direct",
                      "a note " * 40),
            SolverRow("scs", "optimal_inaccurate", 0.36541, 1.8e-4, 0.0124, 0.196, 12.6,
                      "passes", 0.3652570987, 0.3649665219, 7.9e-4, 7.6e-05,
                      "clarabel-direct", "stopped at its budget of 10 s (--budget)")]
    narrow, wide = format_table(rows), format_table(rows, wide=True)
    assert max(map(len, narrow.splitlines())) <= 100 < max(map(len, wide.splitlines()))
    for value in ("0.3652292011", "0.3649665219", "stopped at its budget", "0.0124", "7.6e-05"):
        assert value in narrow and value in wide  # every column is shown in both
    clarabel = next(line for line in narrow.splitlines()
                    if line.startswith("clarabel-direct  0"))
    assert clarabel.split()[1:4] == ["0", "0", "0"]  # exact zeros as 0


def test_compare_text_shows_exact_zeros_as_0_and_fits_unless_wide() -> None:
    from rldp_models.disclosure.comparison import COLUMNS, format_table

    row = {"result": "uniform", "I/H(X)": 0.0, "distortion at Phat": 0.75,
           "distortion over F": 0.75, "eps at Phat": 0.0, "eps over F": 0.0, "|Y|": 4,
           "time (s)": 0.01}
    table = pd.DataFrame([row, {**row, "result": "x" * 60, "I/H(X)": 1.46e-15}],
                         columns=list(COLUMNS))
    lines = format_table(table).splitlines()
    assert max(map(len, lines)) <= 100 < max(map(len, format_table(table, wide=True)
                                               .splitlines()))
    uniform = next(line for line in lines if line.strip().startswith("uniform"))
    assert uniform.split()[1] == "0" and "1.46e-15" in format_table(table)


def test_curve_call_is_the_experiment_on_the_same_table(files: dict[str, Path]) -> None:
    from rldp_models.experiments.curve import curve as experiment_curve

    called = rldp.curve(files["counts"], [0.5, 1.0], methods=["NUNP", "ir"],
                        distortion="hamming")
    direct = experiment_curve(Crosstab.from_csv(files["counts"]), [0.5, 1.0], 0.05,
                              ["NUNP", "ir"], "hamming", progress=False)
    pd.testing.assert_frame_equal(called.frame.drop(columns="seconds"),
                                  direct.frame.drop(columns="seconds"))
