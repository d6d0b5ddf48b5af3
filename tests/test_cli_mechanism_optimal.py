"""``rldp mechanism staircase|ldp-s|lip|srlip``: JSON contract, independent checks, certificates.

Dual feasibility is checked on rays enumerated here, independently of
:mod:`rldp_models.conelp`: the staircase patterns written out for the LDP
cone, and brute force (null vectors of every ``d - 1`` constraints) for the
LIP and SRLIP cones built from their definitions.
"""

from __future__ import annotations
from tests.shared_data import ADULT, result_fields

import csv
import itertools
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rldp_models.cli as cli
from rldp_models.results import mechanism_result
from rldp_models.cli import ExitCode
from rldp_models.cli.mechanism_optimal import read_joint
from rldp_models.errors import InputError
from rldp_models.privacy import (certify_ldp, ldp_wrt_secret_epsilon, lip_epsilon, srlip_epsilon,
                                 srlip_epsilons)
from rldp_models.utility import (MutualInformation, chi_square_divergence, kl_divergence,
                                 total_variation)

EPS = 1.0
PRIOR = np.array([0.4, 0.3, 0.2, 0.1])
PRIOR1 = np.array([0.1, 0.2, 0.3, 0.4])
LABELS = ["a", "b", "c", "d"]
JOINT = np.array([[5, 15, 2, 0], [30, 50, 0, 0], [3, 3, 3, 0]])  # d never occurs
SRLIP_JOINT = np.array([[5, 15, 2, 4, 1, 7], [30, 50, 1, 2, 9, 3]])  # X = X^1 x X^2, sizes 2, 3
UTILITIES = {"mi": lambda: MutualInformation(PRIOR), "kl": lambda: kl_divergence(PRIOR, PRIOR1),
             "tv": lambda: total_variation(PRIOR, PRIOR1),
             "chi2": lambda: chi_square_divergence(PRIOR, PRIOR1)}
DUAL_TOLERANCE = 1e-7
"""Allowed ``mu(v) - dual.v`` per unit mass (the LP's cone has ``e^eps`` rounded inward)."""


def rldp(argv: list[str]) -> int:
    """Exit code of ``rldp mechanism ARGV`` run in-process."""
    try:
        return cli.main(["mechanism", *argv])
    except SystemExit as exc:
        return int(exc.code)


def write_prior(path: Path, prior: np.ndarray, labels: list[str] = LABELS) -> Path:
    rows = "".join(f"{x},{p!r}\n" for x, p in zip(labels, prior.tolist()))
    path.write_text("label,p\n" + rows)
    return path


def write_joint(path: Path, joint: np.ndarray, x_labels: list[str]) -> Path:
    rows = [",".join(["s", *x_labels])]
    rows += [",".join([f"s{i}", *map(repr, row.tolist())]) for i, row in enumerate(joint)]
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    x6 = [f"{i}|{j}" for i in range(2) for j in range(3)]
    paths = {"prior": write_prior(tmp_path / "prior.csv", PRIOR),
             "prior0": write_prior(tmp_path / "prior0.csv", PRIOR),
             "prior1": write_prior(tmp_path / "prior1.csv", PRIOR1),
             "joint": write_joint(tmp_path / "joint.csv", JOINT, LABELS),
             "diagonal": write_joint(tmp_path / "diagonal.csv", np.diag(PRIOR), LABELS),
             "srlip": write_joint(tmp_path / "srlip.csv", SRLIP_JOINT, x6)}
    return {name: str(path) for name, path in paths.items()} | {"out": str(tmp_path / "o.json")}


def solve(files: dict[str, str], name: str, *options: str, eps: float = EPS) -> dict[str, Any]:
    assert rldp([name, "--eps", str(eps), *options, "--out", files["out"]]) == 0
    return result_fields(Path(files["out"]))


def normalised(array: np.ndarray) -> np.ndarray:
    return array / array.sum()


def brute_force_rays(rows: np.ndarray) -> np.ndarray:
    """Extreme rays of ``{q >= 0 : rows q >= 0}`` (columns, sum 1) from all ``d - 1`` tight rows."""
    d = rows.shape[1]
    constraints = np.vstack([np.eye(d), rows / np.linalg.norm(rows, axis=1, keepdims=True)])
    rays = []
    for tight in itertools.combinations(constraints, d - 1):
        _, singular, vh = np.linalg.svd(np.vstack([*tight, np.zeros(d)]))
        if (d > 1 and singular[d - 2] <= 1e-9) or abs(vh[-1].sum()) <= 1e-12:
            continue  # the tight rows have rank below d - 1, or the null vector leaves the orthant
        ray = vh[-1] / vh[-1].sum()
        if np.all(constraints @ ray >= -1e-12):
            rays.append(ray)
    return np.unique(np.round(rays, 12), axis=0).T


def staircase_patterns(k: int, eps: float) -> np.ndarray:
    """All ``2^k`` patterns with entries in ``{1, e^eps}`` (the LDP cone's rays and ``1``)."""
    bits = (np.arange(2**k)[None, :] >> np.arange(k)[:, None]) & 1
    return 1.0 + np.expm1(eps) * bits


def assert_dual_feasible(dual: list[float], rays: np.ndarray, utility: Any) -> None:
    slack = np.asarray(dual) @ rays - utility.columns(rays)
    assert slack.min() >= -DUAL_TOLERANCE * rays.sum(axis=0).max()


def assert_stochastic(record: dict[str, Any]) -> np.ndarray:
    Q = np.array(record["Q"])
    assert Q.shape == (len(record["labels"]["X"]), len(record["labels"]["Y"]))
    assert np.all(Q >= 0)
    np.testing.assert_allclose(Q.sum(axis=1), 1.0, atol=1e-12)
    return Q


REPAIR_METHODS = ("none", "mix", "fallback")


def assert_repair_fields(record: dict[str, Any]) -> None:
    """``repair_method`` and ``repair_weight``: per attribute for srlip, with ``product_repair``."""
    if record["mechanism"] == "srlip":
        pairs = list(zip(record["repair_method"], record["repair_weight"]))
        assert len(pairs) == len(record["attributes"])
        pairs.append((record["product_repair"]["method"], record["product_repair"]["weight"]))
    else:
        pairs = [(record["repair_method"], record["repair_weight"])]
    for method, weight in pairs:
        assert method in REPAIR_METHODS
        assert (weight == 0.0) == (method == "none") and (weight == 1.0) == (method == "fallback")


@pytest.mark.parametrize("name, options", [
    ("staircase", ["--prior", "prior"]),
    ("ldp-s", ["--joint", "joint"]),
    ("lip", ["--joint", "joint"]),
    ("srlip", ["--joint", "srlip", "--attribute-sizes", "2", "3"]),
])
def test_each_name_writes_a_checked_mechanism(files: dict[str, str], name: str,
                                              options: list[str]) -> None:
    argv = [files.get(option, option) for option in options]
    record = solve(files, name, *argv)
    Q = assert_stochastic(record)
    assert record["mechanism"] == name and record["eps"] == EPS
    assert record["utility_measure"] == "mi" and record["privacy_check"]["holds"]
    assert ("S" in record["labels"]) == (name != "staircase")
    assert_repair_fields(record)
    if name == "staircase":
        assert certify_ldp(Q, EPS).holds
    elif name == "ldp-s":
        assert ldp_wrt_secret_epsilon(Q, normalised(JOINT)) <= EPS
    elif name == "lip":
        assert lip_epsilon(Q, normalised(JOINT)) <= EPS
    else:
        assert srlip_epsilon(Q, normalised(SRLIP_JOINT), (2, 3)) <= EPS


@pytest.mark.parametrize("measure", sorted(UTILITIES))
def test_staircase_utility_and_dual(files: dict[str, str], measure: str) -> None:
    inputs = (["--prior", files["prior"]] if measure == "mi"
              else ["--prior0", files["prior0"], "--prior1", files["prior1"]])
    record = solve(files, "staircase", "--utility", measure, *inputs)
    utility = UTILITIES[measure]()
    assert record["utility"] == pytest.approx(utility.total(assert_stochastic(record)), abs=1e-12)
    certificate = record["certificate"]
    assert len(certificate["dual"]) == len(LABELS) and certificate["verified"]
    assert_dual_feasible(certificate["dual"], staircase_patterns(len(LABELS), EPS), utility)
    assert sum(certificate["dual"]) == pytest.approx(record["utility"], abs=1e-7)


@pytest.mark.parametrize("measure", ["mi", "kl"])
def test_ldp_s_with_s_equal_to_x_is_the_staircase(files: dict[str, str], measure: str) -> None:
    inputs = (["--prior", files["prior"]] if measure == "mi"
              else ["--prior0", files["prior0"], "--prior1", files["prior1"]])
    staircase = solve(files, "staircase", "--utility", measure, *inputs)
    divergence = [] if measure == "mi" else inputs
    secret = solve(files, "ldp-s", "--utility", measure, "--joint", files["diagonal"],
                   *divergence)
    assert secret["utility"] == pytest.approx(staircase["utility"], abs=1e-8)
    assert secret["labels"]["S"] == ["s0", "s1", "s2", "s3"]
    assert_dual_feasible(secret["certificate"]["dual"], staircase_patterns(len(LABELS), EPS),
                         UTILITIES[measure]())


def test_lip_dual_is_feasible_in_mechanism_form(files: dict[str, str]) -> None:
    record = solve(files, "lip", "--joint", files["joint"])
    joint = normalised(JOINT.astype(float))
    p_x = joint.sum(axis=0)
    conditionals = joint / joint.sum(axis=1, keepdims=True)
    ratio = np.exp(EPS)
    rows = np.vstack([ratio * p_x - conditionals, ratio * conditionals - p_x])
    dual = record["certificate"]["dual"]
    assert len(dual) == len(LABELS) and dual[3] == 0.0  # the input of zero mass
    assert_dual_feasible(dual, brute_force_rays(rows), MutualInformation(p_x))
    assert sum(dual) == pytest.approx(record["utility"], abs=1e-7)


def attribute_cone_rows(tensor: np.ndarray, j: int, ratio: float) -> np.ndarray:
    """Eqs. (15)-(16) for attribute ``j`` of two: ``p_{X^j|s,x^J}`` vs ``p_{X^j|x^J}``, all J."""
    other = 2 - j
    tables = [tensor.sum(axis=other)] + [np.take(tensor, v, axis=other)
                                         for v in range(tensor.shape[other])]
    rows = []
    for table in tables:  # table[s, x^j] = P(s, x^j, x^J)
        reference = table.sum(axis=0) / table.sum()
        for row in table[table.sum(axis=1) > 0]:
            rows += [ratio * reference - row / row.sum(), ratio * row / row.sum() - reference]
    return np.array(rows)


def test_srlip_certificate_is_per_attribute(files: dict[str, str]) -> None:
    record = solve(files, "srlip", "--joint", files["srlip"], "--attribute-sizes", "2", "3",
                   "--split", "0.3", "0.6")
    tensor = normalised(SRLIP_JOINT.astype(float)).reshape(2, 2, 3)
    duals = record["certificate"]["dual"]
    assert [len(dual) for dual in duals] == [2, 3] and all(record["certificate"]["verified"])
    assert record["split"] == [0.3, 0.6] and record["attribute_sizes"] == [2, 3]
    for j, (dual, split) in enumerate(zip(duals, record["split"])):
        marginal = tensor.sum(axis=tuple(a for a in (0, 1, 2) if a != 1 + j))
        rays = brute_force_rays(attribute_cone_rows(tensor, j, np.exp(split)))
        assert_dual_feasible(dual, rays, MutualInformation(marginal))
    attributes = [np.array(a["Q"]) for a in record["attributes"]]
    np.testing.assert_allclose(np.kron(*attributes), assert_stochastic(record), atol=1e-15)
    levels = srlip_epsilons(attributes, normalised(SRLIP_JOINT))
    assert np.all(levels <= np.array(record["split"]))
    assert record["labels"]["Y"][:2] == [["0", "0"], ["0", "1"]]


def test_joint_counts_and_probabilities(tmp_path: Path) -> None:
    counts = write_joint(tmp_path / "counts.csv", JOINT, LABELS)
    probabilities = write_joint(tmp_path / "p.csv", normalised(JOINT.astype(float)), LABELS)
    s_labels, x_labels, joint = read_joint(counts)
    assert s_labels == ["s0", "s1", "s2"] and x_labels == LABELS
    np.testing.assert_allclose(read_joint(probabilities)[2], joint, atol=1e-15)
    with pytest.raises(InputError, match="sum to 1"):
        read_joint(write_joint(tmp_path / "bad.csv", np.array([[0.2, 0.3], [0.1, 0.3]]),
                               ["a", "b"]))


@pytest.mark.parametrize("argv", [
    ["staircase", "--eps", "1"],
    ["ldp-s", "--eps", "1"],
    ["staircase", "--eps", "1", "--prior", "prior", "--utility", "hamming"],
    ["staircase", "--eps", "1", "--prior", "negative"],
    ["staircase", "--eps", "-1", "--prior", "prior"],
    ["staircase", "--eps", "1", "--utility", "kl", "--prior0", "prior0", "--prior1", "shuffled"],
    ["ldp-s", "--eps", "1", "--joint", "joint", "--utility", "tv", "--prior0", "prior0",
     "--prior1", "short"],
    ["staircase", "--eps", "1", "--utility", "kl", "--prior0", "prior0"],
    ["lip", "--eps", "1", "--joint", "joint", "--utility", "kl"],
    ["ldp-s", "--eps", "1", "--joint", "unnormalised"],
    ["srlip", "--eps", "1", "--joint", "srlip"],
    ["srlip", "--eps", "1", "--joint", "srlip", "--attribute-sizes", "2", "2"],
    ["srlip", "--eps", "1", "--joint", "srlip", "--attribute-sizes", "2", "3", "--split", "1", "1"],
    ["lip", "--eps", "1", "--joint", "joint", "--split", "1"],
    ["rr", "--eps", "1", "--k", "3", "--joint", "joint"],
])
def test_bad_input_exits_2_with_one_line(files: dict[str, str], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str],
                                         argv: list[str]) -> None:
    files = files | {
        "negative": str(write_prior(tmp_path / "n.csv", np.array([-0.5, 1.5]), ["a", "b"])),
        "shuffled": str(write_prior(tmp_path / "s.csv", PRIOR1, ["b", "a", "c", "d"])),
        "short": str(write_prior(tmp_path / "t.csv", np.full(3, 1 / 3), ["a", "b", "c"])),
        "unnormalised": str(write_joint(tmp_path / "u.csv", np.array([[0.2, 0.3], [0.1, 0.3]]),
                                        ["a", "b"]))}
    assert rldp([files.get(arg, arg) for arg in argv] + ["--out", files["out"]]) == 2
    error = capsys.readouterr().err
    assert error.startswith("rldp: error:") and error.count("\n") == 1
    assert not Path(files["out"]).exists()


def informative_zero_private_mechanism(joint: np.ndarray) -> np.ndarray:
    """A two-output mechanism, 0-LDP w.r.t. S (two secrets) exactly, with ``I(X;Y) > 0``.

    At eps = 0 the columns ``q`` must have ``c.q = 0``, ``c = p(1) p(0, .) - p(0) p(1, .)``
    (``P(y | s)`` equal for both secrets); ``c.1 = 0``, so with ``q`` on the ray
    ``|c_j| e_i + c_i e_j`` (``c_i > 0 > c_j``) scaled into [0, 1], ``1 - q`` is in the
    cone too. Decided in exact rationals on the doubles of ``joint``.
    """
    exact = [[Fraction(float(v)) for v in row] for row in joint]
    mass = [sum(row) for row in exact]
    c = [mass[1] * a - mass[0] * b for a, b in zip(*exact)]
    i = next(x for x in range(len(c)) if c[x] > 0)
    j = next(x for x in range(len(c)) if c[x] < 0)
    q = [Fraction(0)] * len(c)
    q[i], q[j] = -c[j], c[i]
    q = [v / max(q) for v in q]
    for column in (q, [1 - v for v in q]):
        assert sum(a * b for a, b in zip(c, column)) == 0
    return np.array([[float(v), float(1 - v)] for v in q])


@pytest.mark.parametrize("name", ["ldp-s", "lip"])
def test_eps_zero_fallback_below_an_informative_optimum_is_refused(
        files: dict[str, str], name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Full support, two secrets: the LP's optimum needs more than doubles, the one-output
    fallback is far from optimal, so the certificate cannot be verified: exit 1, nothing
    written (a record ``rldp verify`` would reject is never written)."""
    witness = informative_zero_private_mechanism(normalised(SRLIP_JOINT.astype(float)))
    prior = normalised(SRLIP_JOINT.astype(float)).sum(axis=0)
    assert MutualInformation(prior).total(witness) > 0.01  # the constant mechanism has 0
    code = rldp([name, "--eps", "0", "--joint", files["srlip"], "--out", files["out"]])
    captured = capsys.readouterr()
    assert code == ExitCode.FAILED and not Path(files["out"]).exists()
    assert "repaired to pass the exact check: Q: constant" in captured.out
    assert "certificate NOT verified" in captured.out and "certificate: FAILS" in captured.out
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(f"rldp: {name}: not written:")
    assert "certificate of optimality is not verified" in captured.err
    assert "try eps > 0" in captured.err


MASTER_INFEASIBLE = np.random.default_rng(2).integers(1, 60, size=(5, 11))
"""5 secrets, 11 inputs: ldp-s at eps 1e-9 generates columns, and HiGHS finds its
(preconditioned, condition number about 1e9) master LP infeasible. At eps 0 the master is
feasible since the seed holds ``1`` (``tests/conelp/test_conelp_secret.py``)."""


def test_a_solver_giving_up_on_valid_input_is_inconclusive(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Not bad input (2): exit 3, one line naming the solver's failure, nothing written."""
    joint = write_joint(tmp_path / "j.csv", MASTER_INFEASIBLE, [f"x{i}" for i in range(11)])
    out = tmp_path / "o.json"
    code = rldp(["ldp-s", "--eps", "1e-9", "--joint", str(joint), "--out", str(out)])
    error = capsys.readouterr().err
    assert code == ExitCode.INCONCLUSIVE and not out.exists()
    assert error.startswith("rldp: ldp-s: the cone LP's solver gave up (")
    assert error.count("\n") == 1


def test_a_verified_optimum_exits_0_and_says_so(files: dict[str, str],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    record = solve(files, "ldp-s", "--joint", files["joint"])
    captured = capsys.readouterr()
    assert "certificate verified" in captured.out and captured.err == ""
    assert record["certificate"]["verified"]


def test_through_a_subprocess(files: dict[str, str]) -> None:
    done = subprocess.run([sys.executable, "-m", "rldp_models.cli", "mechanism", "lip",
                           "--eps", "0.5", "--joint", files["joint"], "--out", files["out"]],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    record = result_fields(Path(files["out"]))
    assert record["privacy_check"]["notion"] == "LIP w.r.t. S"
    assert record["privacy_check"]["holds"]
    assert_stochastic(record)


def test_a_written_certificate_says_verified_by_the_exact_check(
        files: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The producer's float test says unverified (forced here, as it may be within rounding
    of its tolerance); the writer's exact check, the one ``rldp verify`` makes, passes, and
    the record says what that check found."""
    monkeypatch.setattr(mechanism_result, "returned_verdict", lambda *args: False)
    record = solve(files, "ldp-s", "--joint", files["joint"])
    assert record["certificate"]["verified"] is True
    assert cli.main(["verify", files["out"]]) == ExitCode.OK


@pytest.fixture(scope="module")
def race_country(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Adult race x native-country (5 x 42: records with the country missing, ``?``, left out)
    as a joint CSV of counts."""
    if not ADULT.exists():
        pytest.skip("the Adult data is not here")
    table: dict[str, dict[str, int]] = {}
    with ADULT.open() as data:
        for row in csv.reader(data, skipinitialspace=True):
            if len(row) == 15 and row[13] != "?":
                cells = table.setdefault(row[8], {})
                cells[row[13]] = cells.get(row[13], 0) + 1
    countries = sorted({country for cells in table.values() for country in cells})
    assert len(countries) == 42
    return write_joint(tmp_path_factory.mktemp("adult") / "race_country.csv",
                       np.array([[table[race].get(c, 0) for c in countries]
                                 for race in sorted(table)]), countries)


@pytest.mark.parametrize(("name", "options"), [("lip", []), ("ldp-s", []),
                                               ("srlip", ["--attribute-sizes", "42"])])
def test_a_cone_too_large_to_certify_is_refused_before_solving(
        race_country: Path, tmp_path: Path, name: str, options: list[str],
        capsys: pytest.CaptureFixture[str]) -> None:
    """Adult race x native-country at eps 1: the exact ray listing gives up past its cap (the
    float double description of ``lip`` ran for more than 10 minutes, ``srlip`` with one
    attribute more than 4): exit 2, one line, nothing written, within seconds."""
    out = tmp_path / "o.json"
    code = rldp([name, "--eps", "1", "--joint", str(race_country), *options, "--out", str(out)])
    error = capsys.readouterr().err
    assert code == ExitCode.BAD_INPUT and not out.exists()
    assert f"{name}: refused before solving" in error and "more than 16384 rays" in error
    assert error.count("\n") == 1


def test_srlip_refuses_only_the_attribute_cones_it_cannot_certify(
        race_country: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same 42 values as two attributes of 6 and 7: each cone C_j is small, so srlip
    solves and its record verifies."""
    out = tmp_path / "o.json"
    code = rldp(["srlip", "--eps", "1", "--joint", str(race_country),
                 "--attribute-sizes", "6", "7", "--out", str(out)])
    assert code == ExitCode.OK, capsys.readouterr()
    assert cli.main(["verify", str(out)]) == ExitCode.OK


def test_srlip_names_the_attribute_whose_cone_is_too_large(
        files: dict[str, str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """With the cap at 2 rays, attribute 1 (2 values: the cone is the orthant's 2 rays,
    counted by brute force here) passes and attribute 2 (3 values) is refused."""
    from rldp_models.conelp import exact_lp_dual

    tensor = normalised(SRLIP_JOINT.astype(float)).reshape(2, 2, 3)
    counted = [brute_force_rays(attribute_cone_rows(tensor, j, np.exp(EPS / 2))).shape[1]
               for j in (0, 1)]
    assert counted[0] == 2 < counted[1]
    monkeypatch.setattr(exact_lp_dual, "MAX_RAYS", 2)
    code = rldp(["srlip", "--eps", str(EPS), "--joint", files["srlip"], "--attribute-sizes",
                 "2", "3", "--out", files["out"]])
    error = capsys.readouterr().err
    assert code == ExitCode.BAD_INPUT and not Path(files["out"]).exists()
    assert error.startswith("rldp: error: srlip: refused before solving: the certificate of "
                            "optimality of attribute 2 (of 3 values) could not be checked")
    assert error.count("\n") == 1


def test_a_staircase_with_no_independent_check_is_refused_before_solving(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """tv on 17 inputs: the 131070 patterns past brute force (16) have no checker for tv, so
    the result could never be written (and rldp verify could not check it): exit 2, one line."""
    rng = np.random.default_rng(0)
    labels = [f"x{i}" for i in range(17)]
    prior0 = write_prior(tmp_path / "p0.csv", normalised(rng.integers(1, 50, 17)), labels)
    prior1 = write_prior(tmp_path / "p1.csv", normalised(rng.integers(1, 50, 17)), labels)
    out = tmp_path / "o.json"
    code = rldp(["staircase", "--utility", "tv", "--prior0", str(prior0), "--prior1",
                 str(prior1), "--eps", "1", "--out", str(out)])
    error = capsys.readouterr().err
    assert code == ExitCode.BAD_INPUT and not out.exists()
    assert error.startswith("rldp: error: staircase: refused before solving") and \
        "131070 rays" in error and error.count("\n") == 1
