"""Identifiability against an independent rank computation; bootstrap interval coverage on Adult."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import sympy

from rldp_models.cli import main
from rldp_models.errors import InputError
from rldp_models.estimators import em_batch
from rldp_models.disclosure.channel import load_result, ReleaseChannel
from rldp_models.disclosure.estimation import estimate, released_counts
from rldp_models.disclosure.identifiability import exact_channel, identifiability, target
from rldp_models.disclosure.records import release_frame
from tests.disclosure.adult_results import PUBLIC, SENSITIVE





def sympy_estimable(numerators: list[list[int]], row: list[Fraction]) -> bool:
    """Independent test: rank [Q^T; m] == rank Q^T, by sympy's exact rank."""
    channel_t = sympy.Matrix(numerators).T
    return channel_t.rank() == channel_t.col_join(sympy.Matrix([row])).rank()


@pytest.mark.parametrize("name", ["ir", "grr-cr", "ue-cr", "srr", "rurp"])
@pytest.mark.parametrize("spec", ["U", "S", "X"])
def test_identifiability_agrees_with_an_independent_rank_test(adult, name, spec) -> None:
    channel = ReleaseChannel.from_result(load_result(adult.results[name])[0])
    goal = target(spec, channel.input_labels)
    verdict = identifiability(channel, goal.rows, goal.names)
    numerators = exact_channel(channel)
    assert verdict.rank == sympy.Matrix(numerators).rank()
    assert verdict.rank == np.linalg.matrix_rank(channel.matrix())  # floats agree here too
    assert list(verdict.estimable) == [sympy_estimable(numerators, row) for row in goal.rows]


def test_issue_examples_are_not_identifiable(adult) -> None:
    # the issue's report: RURP's P_X, UE-CR's rank 11 of 12
    for name, rank in (("rurp", 6), ("ue-cr", 11)):
        channel = ReleaseChannel.from_result(load_result(adult.results[name])[0])
        goal = target("X", channel.input_labels)
        verdict = identifiability(channel, goal.rows, goal.names)
        assert verdict.rank == rank and not all(verdict.estimable)


def coverage(adult, name: str, seeds: range, draws: int) -> np.ndarray:
    """Per coordinate of P_U, the share of seeds whose 95% EM and inversion intervals
    cover the released records' own P_U."""
    result, _ = load_result(adult.results[name])
    channel = ReleaseChannel.from_result(result)
    records = pd.read_csv(adult.records, dtype=str, skipinitialspace=True)
    goal = target("U", channel.input_labels)
    verdict = identifiability(channel, goal.rows, goal.names)
    assert all(verdict.estimable)
    truth = records[PUBLIC].value_counts(normalize=True).reindex(channel.u_labels).to_numpy()
    outputs = channel.output_texts()
    covered = np.zeros((2, len(goal.names)))
    for seed in seeds:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            released = release_frame(result, records, SENSITIVE, PUBLIC, seed=seed)
        counts = pd.Index(outputs).get_indexer(released["Y"])
        table = estimate(channel.matrix(), np.bincount(counts, minlength=len(outputs)), goal,
                         verdict, draws=draws, seed=seed).frame
        for k, method in enumerate(("em", "inversion")):
            covered[k] += (table[f"{method}_low"] <= truth) & (truth <= table[f"{method}_high"])
    return covered / len(seeds)


@pytest.mark.parametrize("name", ["ir", "grr-cr", "srr"])
def test_intervals_cover_the_released_records_marginal_quick(adult, name) -> None:
    assert np.all(coverage(adult, name, range(8), draws=200) >= 6 / 8)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ir", "grr-cr", "srr"])
def test_intervals_cover_the_released_records_marginal_fifty_seeds(adult, name) -> None:
    assert np.all(coverage(adult, name, range(50), draws=400) >= 0.9)


def test_cli_estimate_reports_what_is_not_estimable(adult, tmp_path, capsys) -> None:
    released, out = tmp_path / "released.csv", tmp_path / "estimate.csv"
    assert main(["release", str(adult.results["ue-cr"]), "--data", str(adult.records),
                 "--sensitive", SENSITIVE, "--public", PUBLIC, "--out", str(released),
                 "--seed", "0"]) == 0
    code = main(["estimate", str(released), "--result", str(adult.results["ue-cr"]), "--target",
                 "X", "--out", str(out), "--draws", "50"])
    err = capsys.readouterr().err
    frame = pd.read_csv(out)
    assert code == (0 if frame["estimable"].any() else 1)
    assert "not estimable (channel rank 11 of 12 inputs)" in err
    assert frame["em"].isna().equals(~frame["estimable"])
    assert (tmp_path / "estimate.png").exists()
    counts, marked = released_counts(released, ReleaseChannel.from_result(
        load_result(adult.results["ue-cr"])[0]).output_texts())
    assert marked and counts.sum() == len(pd.read_csv(adult.records))


def test_batch_em_converges_on_the_output_law_where_p_x_is_not_identified() -> None:
    # two inputs with the same row: P_X is not identified, the output law is
    Q = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.0, 0.25, 0.75]])
    truth = np.array([0.3, 0.2, 0.5])
    fit = em_batch(Q, truth @ Q)
    assert fit.converged.all()
    np.testing.assert_allclose(fit.estimates[0] @ Q, truth @ Q, atol=1e-8)
    np.testing.assert_allclose(fit.estimates[0][:2].sum(), 0.5, atol=1e-8)


def test_a_target_file_is_read_exactly_and_estimated_like_its_parts(adult, tmp_path) -> None:
    channel = ReleaseChannel.from_result(load_result(adult.results["grr-cr"])[0])
    labels = channel.input_labels
    header = ["name", *(f"{s}|{u}" for s, u in labels)]
    difference = ["husband minus wife", *("1" if u == "Husband" else "-1" if u == "Wife" else "0"
                                          for _, u in labels)]
    third = ["a third of Female", *("0.333" if s == "Female" else "0" for s, _ in labels)]
    path = tmp_path / "target.csv"
    path.write_text("\n".join(",".join(row) for row in (header, difference, third)) + "\n")
    goal = target(str(path), labels)
    assert goal.rows[1][0] == Fraction(333, 1000)  # decimals read exactly
    marginal = target("U", labels)
    verdict = identifiability(channel, goal.rows, goal.names)
    counts = np.array([40, 3, 7, 1, 9, 2, 5, 8, 6, 4, 3, 12])
    table = estimate(channel.matrix(), counts, goal, verdict, draws=20, seed=0).frame
    parts = estimate(channel.matrix(), counts, marginal,
                     identifiability(channel, marginal.rows, marginal.names), draws=20,
                     seed=0).frame.set_index("target")
    assert table.loc[0, "em"] == pytest.approx(parts.loc["P_U(Husband)", "em"] -
                                               parts.loc["P_U(Wife)", "em"], abs=1e-9)


def test_a_malformed_target_file_is_one_line_exit_2(adult, tmp_path, capsys) -> None:
    released = tmp_path / "released.csv"
    assert main(["release", str(adult.results["ir"]), "--data", str(adult.records),
                 "--sensitive", SENSITIVE, "--public", PUBLIC, "--out", str(released),
                 "--seed", "0", "--no-verify"]) == 0
    bad = tmp_path / "target.csv"
    bad.write_text("name,a\nx,1\n")
    capsys.readouterr()
    code = main(["estimate", str(released), "--result", str(adult.results["ir"]), "--target",
                 str(bad), "--out", str(tmp_path / "e.csv")])
    assert code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1


def test_a_target_file_with_columns_in_another_order_is_matched_by_name(adult,
                                                                        tmp_path) -> None:
    # the columns were taken in the result's input order whatever the header said
    labels = ReleaseChannel.from_result(load_result(adult.results["grr-cr"])[0]).input_labels
    shuffled = list(reversed(labels))
    path = tmp_path / "target.csv"
    row = ["1" if (s, u) == ("Male", "Husband") else "0" for s, u in shuffled]
    path.write_text("name," + ",".join(f"{s}|{u}" for s, u in shuffled) + "\n"
                    + "male husband," + ",".join(row) + "\n\n")
    goal = target(str(path), labels)
    expected = [Fraction(int(x == ("Male", "Husband"))) for x in labels]
    assert goal.rows == [expected]


@pytest.mark.parametrize("header", ["name,{cols_but_last},Robot|Alien",
                                    "name,{cols_but_last},{first}"])
def test_a_target_file_whose_header_does_not_name_the_inputs_is_refused(adult, tmp_path,
                                                                        header) -> None:
    labels = ReleaseChannel.from_result(load_result(adult.results["grr-cr"])[0]).input_labels
    names = [f"{s}|{u}" for s, u in labels]
    path = tmp_path / "target.csv"
    path.write_text(header.format(cols_but_last=",".join(names[:-1]), first=names[0]) + "\n"
                    + "x," + ",".join(["1"] * len(names)) + "\n")
    with pytest.raises(InputError, match="header must name one column per input"):
        target(str(path), labels)


def test_a_target_number_too_large_for_floats_is_refused(adult, tmp_path) -> None:
    labels = ReleaseChannel.from_result(load_result(adult.results["grr-cr"])[0]).input_labels
    path = tmp_path / "target.csv"
    path.write_text("name," + ",".join(f"{s}|{u}" for s, u in labels) + "\n"
                    + "x,1e400" + ",0" * (len(labels) - 1) + "\n")
    with pytest.raises(InputError, match="too large"):
        target(str(path), labels)


@pytest.mark.parametrize("extra", [["--plot", "{tmp}/missing/e.png"], ["--plot", "{tmp}/e.csv"],
                                   ["--plot", "{tmp}/e.pdf"], ["--out", "{tmp}/e.png"]])
def test_cli_estimate_refuses_a_bad_figure_path_before_writing(adult, tmp_path, capsys,
                                                               extra) -> None:
    # a missing directory failed after the table was written; --plot e.csv was an internal error
    released = tmp_path / "released.csv"
    assert main(["release", str(adult.results["ir"]), "--data", str(adult.records),
                 "--sensitive", SENSITIVE, "--public", PUBLIC, "--out", str(released),
                 "--seed", "0", "--no-verify"]) == 0
    capsys.readouterr()
    args = ["--out", str(tmp_path / "e.csv"), *[a.format(tmp=tmp_path) for a in extra]]
    code = main(["estimate", str(released), "--result", str(adult.results["ir"]), "--draws", "5",
                 *args])
    assert code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["released.csv"]


def test_cli_estimate_names_the_truth_file_when_its_records_are_not_covered(adult, tmp_path,
                                                                            capsys) -> None:
    released = tmp_path / "released.csv"
    assert main(["release", str(adult.results["ir"]), "--data", str(adult.records),
                 "--sensitive", SENSITIVE, "--public", PUBLIC, "--out", str(released),
                 "--seed", "0", "--no-verify"]) == 0
    truth = tmp_path / "truth.csv"
    pd.DataFrame({SENSITIVE: ["Male", "Robot"], PUBLIC: ["Husband", "Wife"]}).to_csv(
        truth, index=False)
    capsys.readouterr()
    code = main(["estimate", str(released), "--result", str(adult.results["ir"]), "--draws", "5",
                 "--out", str(tmp_path / "e.csv"), "--truth", str(truth), "--sensitive",
                 SENSITIVE, "--public", PUBLIC])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--truth" in err and "Robot" in err and not (tmp_path / "e.csv").exists()


@pytest.mark.parametrize("draws", ["1", "100000000"])
def test_cli_estimate_refuses_a_bootstrap_size_out_of_range_up_front(tmp_path, capsys,
                                                                     draws) -> None:
    # --draws 10^8 ran for minutes towards tens of GiB of tables; refused before reading anything
    code = main(["estimate", str(tmp_path / "absent.csv"), "--result",
                 str(tmp_path / "absent.json"), "--draws", draws, "--out",
                 str(tmp_path / "e.csv")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--draws" in err
