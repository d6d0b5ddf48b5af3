"""``rldp compare``: its numbers against independent computations."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.disclosure.comparison import compare
from rldp_models.disclosure.channel import load_result
from tests.disclosure.adult_results import PUBLIC, SENSITIVE, protocol_results


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    directory = tmp_path_factory.mktemp("demo")
    assert main(["demo", "--out", str(directory), "-q"]) == 0
    return directory


def float_nominal_level(Q: np.ndarray, crosstab: Crosstab) -> float:
    """``max log P(y|s1)/P(y|s2)`` at Phat in floats (independent of the exact code)."""
    conditional = crosstab.counts / crosstab.counts.sum(axis=1, keepdims=True)
    n_s, n_u = crosstab.shape
    law = np.array([conditional[s] @ Q[s * n_u:(s + 1) * n_u] for s in range(n_s)])
    return float(max(np.max(np.log(law[a] / law[b])) for a in range(n_s) for b in range(n_s)
                     if a != b))


def test_demo_results_compare_against_their_own_objectives(demo) -> None:
    crosstab = Crosstab.from_csv(demo / "counts.csv")
    results = {name: load_result(demo / f"{name}.json")[0]
               for name in ("NUNP", "NURP", "RUNP", "RURP")}
    table = compare(results, crosstab, "squared", 0.05).set_index("result")
    # nominal programs minimise distortion at Phat, robust ones its worst case over F
    for name, column in (("NUNP", "distortion at Phat"), ("NURP", "distortion at Phat"),
                         ("RUNP", "distortion over F"), ("RURP", "distortion over F")):
        assert table.loc[name, column] == pytest.approx(results[name].value["value"], rel=1e-5)
    for name, result in results.items():
        Q = result.matrix
        phat = crosstab.phat.ravel()
        released = phat @ Q
        direct = sum(phat[x] * Q[x, y] * math.log(Q[x, y] / released[y])
                     for x in range(Q.shape[0]) for y in range(Q.shape[1]) if Q[x, y] > 0)
        entropy = -sum(p * math.log(p) for p in phat if p > 0)
        assert table.loc[name, "I/H(X)"] == pytest.approx(direct / entropy, rel=1e-9)
        assert table.loc[name, "eps at Phat"] == pytest.approx(float_nominal_level(Q, crosstab),
                                                               rel=1e-9, abs=1e-12)
        assert table.loc[name, "distortion over F"] >= table.loc[name, "distortion at Phat"]
        assert table.loc[name, "|Y|"] == Q.shape[1]
    # the robust programs guarantee eps = 0.5 over F
    for name in ("NURP", "RURP"):
        assert table.loc[name, "eps over F"] <= 0.5 + 1e-9


def test_a_timing_recorded_as_null_is_left_out_of_the_time(demo) -> None:
    # a record migrated from an old file may carry "build": null (results/migration.py);
    # summing it raised TypeError (a traceback) before
    crosstab = Crosstab.from_csv(demo / "counts.csv")
    result = load_result(demo / "NUNP.json")[0]
    assert result.solver is not None
    solver = dataclasses.replace(result.solver, timings={"build": None, "solve": 1.25})
    table = compare({"NUNP": dataclasses.replace(result, solver=solver)}, crosstab, "squared",
                    0.05)
    assert table.loc[0, "time (s)"] == 1.25


def test_protocols_on_their_design_counts_match_their_records(adult, capsys) -> None:
    paths = {name: adult.results[name] for name in ("ue-cr", "srr", "grr-cr")}
    paths.update(protocol_results(adult.directory, adult.design, ("polyopt",)))
    crosstab = Crosstab.from_records(adult.design, SENSITIVE, PUBLIC)
    results = {name: load_result(path)[0] for name, path in paths.items()}
    table = compare(results, crosstab, "hamming", 0.05).set_index("result")
    entropy = -float(np.sum(crosstab.phat[crosstab.phat > 0] *
                            np.log(crosstab.phat[crosstab.phat > 0])))
    for name, path in paths.items():
        record = json.loads(path.read_text())
        assert table.loc[name, "I/H(X)"] * entropy == pytest.approx(
            record["details"]["utility_hat"], rel=1e-9)
        assert table.loc[name, "eps over F"] == pytest.approx(
            record["details"]["rldp"]["certified"], rel=1e-9)
        assert table.loc[name, "eps over F"] <= 2.0
    assert math.isnan(table.loc["ue-cr", "distortion at Phat"])  # reports release no single u
    # GRR-CR by hand: hamming cost = 1 - P(v = u) from its factors
    f = results["grr-cr"].product["factors"]
    secret, own, other = (np.array(f[k]) for k in ("secret", "own", "other"))
    n_s, n_u = crosstab.shape
    cost = np.array([[1 - (secret[s, s] * own[s][u, u] + sum(secret[s, t] * other[t, u]
                                                            for t in range(n_s) if t != s))
                      for u in range(n_u)] for s in range(n_s)])
    assert table.loc["grr-cr", "distortion at Phat"] == pytest.approx(
        float(np.sum(crosstab.phat * cost)), rel=1e-9)
    # eps at Phat against the float computation on the dense rows
    for name in ("srr", "polyopt", "grr-cr"):
        dense = results[name].matrix
        assert table.loc[name, "eps at Phat"] == pytest.approx(
            float_nominal_level(dense, crosstab), rel=1e-6)
    out = adult.directory / "cmp.csv"
    code = main(["compare", *map(str, paths.values()), "--data", str(adult.design),
                 "--sensitive", SENSITIVE, "--public", PUBLIC, "--out", str(out)])
    assert code == 0 and out.with_suffix(".png").exists()
    assert "polyopt" in capsys.readouterr().out


def test_compare_bad_input_is_one_line_exit_2(demo, tmp_path, capsys) -> None:
    code = main(["compare", str(demo / "RURP.json"), "--counts", str(tmp_path / "none.csv")])
    assert code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.parametrize("name", ["table.png", "missing/table.csv"])
def test_cli_compare_refuses_an_output_its_figure_cannot_take(adult, tmp_path, capsys,
                                                              name) -> None:
    # --out table.png was overwritten by its own figure
    code = main(["compare", str(adult.results["ir"]), "--data", str(adult.design),
                 "--sensitive", SENSITIVE, "--public", PUBLIC, "--out", str(tmp_path / name)])
    assert code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_cli_compare_names_the_result_that_does_not_fit_the_counts(adult, tmp_path,
                                                                   capsys) -> None:
    # the refusal said "the result has no row ..." without saying which of the results
    other = tmp_path / "race.csv"
    Crosstab(np.array([[3, 4], [5, 6]]), ("Black", "White"), ("Husband", "Wife")).to_csv(other)
    other_result = tmp_path / "race_srr.json"
    assert main(["protocol", "srr", "--counts", str(other), "--eps", "2", "--out",
                 str(other_result), "-q"]) == 0
    capsys.readouterr()
    code = main(["compare", str(adult.results["ir"]), str(other_result), "--data",
                 str(adult.design), "--sensitive", SENSITIVE, "--public", PUBLIC])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "race_srr" in err


def test_cli_compare_warns_when_the_counts_are_not_the_results_design_counts(adult, capsys
                                                                             ) -> None:
    # eps over F on other counts (the released half) can exceed the certified eps silently
    for data, warned in ((adult.records, True), (adult.design, False)):
        assert main(["compare", str(adult.results["ir"]), str(adult.results["srr"]), "--data",
                     str(data), "--sensitive", SENSITIVE, "--public", PUBLIC]) == 0
        err = capsys.readouterr().err
        assert ("designed on other counts" in err) is warned
        if warned:
            assert "ir" in err and "srr" in err
