"""rldp curve and its Python call: one table, the same numbers from both, and the order the
programs' definitions imply."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.executors import executor_from_spec
from rldp_models.experiments.curve import curve
from rldp_models.programs import preset

TABLE = "eye,Black,Brown,Blond\nBrown,68,119,7\nBlue,20,84,94\nHazel,15,54,10\n"
EPS = [0.5, 2.0]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("curve") / "eyehair.csv"
    path.write_text(TABLE)
    return path


@pytest.fixture(scope="module")
def computed(table):
    return curve(Crosstab.from_csv(table), EPS, 0.05, coverage_draws=100, progress=False)


def value(frame: pd.DataFrame, method: str, eps: float) -> float:
    return float(frame[(frame["method"] == method) & (frame["eps"] == eps)]["value"].iloc[0])


def test_every_point_is_computed_and_ordered_as_the_definitions_imply(computed) -> None:
    frame = computed.frame
    assert len(frame) == 7 * len(EPS) and (frame["error"] == "").all()
    for eps in EPS:
        # a robust program has more constraints than its nominal twin: never a lower objective
        assert value(frame, "RUNP", eps) >= value(frame, "NUNP", eps) - 1e-7
        assert value(frame, "RURP", eps) >= value(frame, "NURP", eps) - 1e-7
        assert value(frame, "NURP", eps) >= value(frame, "NUNP", eps) - 1e-7
    for method in ("NUNP", "NURP", "RUNP", "RURP"):  # more privacy budget, less distortion
        assert value(frame, method, 2.0) <= value(frame, method, 0.5) + 1e-7
    for method in ("ir", "grr-cr", "ue-cr"):
        assert 0 <= value(frame, method, 0.5) <= value(frame, method, 2.0) <= 1


def test_a_program_point_is_the_program_solved_alone(table, computed) -> None:
    crosstab = Crosstab.from_csv(table)
    alone = preset("RURP", crosstab, 0.5, 0.05, distortion="hamming").solve()
    assert value(computed.frame, "RURP", 0.5) == pytest.approx(alone.objective, rel=1e-6)


def test_the_coverage_is_a_proportion_with_its_interval(computed) -> None:
    row = computed.coverage.iloc[0]
    assert row["target"] == pytest.approx(0.95)
    assert 0 <= row["low"] <= row["coverage"] <= row["high"] <= 1
    assert row["covered"] == round(row["coverage"] * row["draws"])


def test_the_command_writes_what_the_function_returns_in_parallel_too(table, computed,
                                                                       tmp_path) -> None:
    out = tmp_path / "curve.csv"
    assert main(["curve", "--counts", str(table), "--eps", "0.5,2", "--coverage-draws", "100",
                 "--out", str(out), "--workers", "2", "-q"]) == 0
    written = pd.read_csv(out, keep_default_na=False)
    np.testing.assert_allclose(written["value"].astype(float), computed.frame["value"],
                               rtol=1e-6)
    assert (tmp_path / "curve.png").stat().st_size > 0
    serial = curve(Crosstab.from_csv(table), EPS, coverage_draws=0, progress=False,
                   methods=["ir"], executor=executor_from_spec("serial"))
    assert value(serial.frame, "ir", 2.0) == value(computed.frame, "ir", 2.0)


@pytest.mark.parametrize("extra", [["--eps", "-1"], ["--eps", "x"], ["--methods", "NUNP,foo"],
                                   ["--executor", "nope"], ["--coverage-draws", "-1"]])
def test_bad_input_is_one_line_exit_2_and_nothing_written(table, tmp_path, capsys,
                                                          extra) -> None:
    out = tmp_path / "c.csv"
    assert main(["curve", "--counts", str(table), "--out", str(out), *extra]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert not out.exists()


def test_an_output_that_is_the_input_is_refused(table, capsys) -> None:
    before = table.read_text()
    assert main(["curve", "--counts", str(table), "--out", str(table)]) == 2
    assert "is the input file" in capsys.readouterr().err and table.read_text() == before


def test_work_that_would_not_fit_is_refused_up_front(table, tmp_path, capsys) -> None:
    code = main(["curve", "--counts", str(table), "--out", str(tmp_path / "c.csv"),
                 "--max-memory", "1M"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--max-memory" in err[0]
