"""Power-divergence (Cressie-Read) and Rényi balls: the sets, their zero cells, programs, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chi2

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.programs import preset
from rldp_models.uncertainty import ChiSquareSet, KLBallSet, named_set
from rldp_models.uncertainty.derived import direct_worst_case
from rldp_models.uncertainty.named import routing_note
from rldp_models.uncertainty.power_divergence import PowerDivergenceSet
from tests.shared_data import without_warnings

COUNTS = np.array([[30, 22, 9, 4], [12, 25, 0, 8], [3, 9, 14, 27]])
LAMBDAS = (-2.0, -1.0, -0.5, 0.0, 2.0 / 3.0, 1.0, 2.0)


def cressie_read(phat: np.ndarray, p: np.ndarray, lam: float) -> float:
    """``I^lambda(Phat : P)`` from its textbook definition (cells with Phat > 0; limits by hand)."""
    mask = phat > 0
    a, b = phat[mask], p[mask]
    if lam == 0:
        return float(np.sum(a * np.log(a / b)))
    if lam == -1:
        return float(np.sum(b * np.log(b / a)))
    return float(np.sum(a * ((a / b) ** lam - 1)) / (lam * (lam + 1)))


@pytest.mark.parametrize("lam", LAMBDAS)
def test_membership_is_the_textbook_divergence(lam: float) -> None:
    crosstab = Crosstab.from_array(COUNTS)
    uncertainty = PowerDivergenceSet.from_counts(COUNTS, 0.05, lam)
    assert uncertainty.radius == pytest.approx(chi2.ppf(0.95, COUNTS.size - 1) / (2 * crosstab.n))
    rng = np.random.default_rng(0)
    phat = crosstab.phat.ravel()
    for _ in range(20):
        p = 0.9 * phat + 0.1 * rng.dirichlet(np.ones(phat.size))
        p[phat == 0] = 0.0  # so that lambda <= -1 is the textbook divergence too
        p /= p.sum()
        inside = cressie_read(phat, p, lam) <= uncertainty.radius
        assert uncertainty.contains(p) == inside


def test_zero_cells_follow_the_documented_rule() -> None:
    phat = COUNTS / COUNTS.sum()
    unseen = np.zeros(COUNTS.size)
    unseen[int(np.flatnonzero(COUNTS.ravel() == 0)[0])] = 1.0  # all mass on the unseen cell
    for lam in (-2.0, -1.0):  # the simplex on unseen cells: even their vertex is in the set
        assert PowerDivergenceSet(phat, 0.05, lam).contains(unseen)
    for lam in (-0.5, 0.0, 2.0 / 3.0, 1.0, 2.0):  # the exact ball: counted cells keep mass
        assert not PowerDivergenceSet(phat, 0.05, lam).contains(unseen)
    # a linear function of the unseen cell alone: its worst case is the whole cell for lambda <= -1
    v = unseen.copy()
    assert PowerDivergenceSet(phat, 0.05, -2.0).support(v) == pytest.approx(1.0, abs=1e-9)
    assert PowerDivergenceSet(phat, 0.05, 2.0).support(v) < 0.2


def test_renyi_ball_is_the_transformed_power_ball() -> None:
    phat = COUNTS / COUNTS.sum()
    rng = np.random.default_rng(1)
    for order in (0.5, 1.5, 3.0):
        ball = PowerDivergenceSet.renyi(phat, order, 0.02)
        mask = phat.ravel() > 0
        for _ in range(20):
            p = 0.85 * phat.ravel() + 0.15 * rng.dirichlet(np.ones(phat.size))
            renyi = np.log(np.sum(phat.ravel()[mask] ** order * p[mask] ** (1 - order))) / \
                (order - 1)  # D_a(Phat || P), Phat first
            assert ball.contains(p) == (renyi <= 0.02)


def test_lambda_one_and_order_two_are_todays_chi_square_set() -> None:
    crosstab = Crosstab.from_array(COUNTS)
    today = ChiSquareSet.from_counts(COUNTS, 0.05)
    for built in (named_set("power", crosstab, 0.05, lam=1.0),
                  named_set("renyi", crosstab, 0.05, order=2.0)):
        assert isinstance(built, ChiSquareSet) and built.radius == today.radius
    assert "chi-square" in routing_note("power", lam=1.0)
    assert routing_note("power", lam=2.0) is None


def test_lambda_one_and_zero_reproduce_chi_square_and_kl_objectives() -> None:
    crosstab = Crosstab.from_array(COUNTS)
    for problem in ("NURP", "RURP"):
        today = preset(problem, crosstab, 1.0).solve()
        routed = preset(problem, crosstab, 1.0,
                        uncertainty=named_set("power", crosstab, 0.05, lam=1.0)).solve()
        assert routed.result.objective == pytest.approx(today.result.objective, rel=1e-7)
        kl = preset(problem, crosstab, 1.0, uncertainty=KLBallSet.from_counts(COUNTS, 0.05))
        power = preset(problem, crosstab, 1.0,
                       uncertainty=PowerDivergenceSet.from_counts(COUNTS, 0.05, 0.0))
        kl_value, power_value = kl.solve().result.objective, power.solve().result.objective
        assert power_value == pytest.approx(kl_value, rel=1e-5)


@pytest.mark.parametrize("lam", [-0.5, 2.0])
def test_worst_case_at_the_protocol_never_exceeds_the_certified_bound(lam: float) -> None:
    crosstab = Crosstab.from_array(COUNTS)
    uncertainty = PowerDivergenceSet.from_counts(COUNTS, 0.05, lam)
    solution = preset("RURP", crosstab, 1.0, uncertainty=uncertainty).solve()
    assert all(check.holds for check in solution.checks)
    per_cell = np.sum(solution.protocol * np.tile(solution.program.distortion_matrix,
                                                  (crosstab.shape[0], 1)), axis=1)
    bound = float(uncertainty.certified_support_bound(
        per_cell, uncertainty.support_multipliers(per_cell)))
    _, attained = direct_worst_case(uncertainty, per_cell)  # the cvxpy primal
    assert attained <= bound + 1e-9 and bound - attained < 1e-6
    assert solution.objective == pytest.approx(bound, rel=1e-6)


def run(arguments: list[str]) -> int:
    return main(arguments)


@pytest.mark.parametrize("extra", [["--uncertainty", "power", "--lambda", "2"],
                                   ["--uncertainty", "renyi", "--order", "0.5"]])
def test_cli_records_verify(tmp_path: Path, extra: list[str]) -> None:
    counts = tmp_path / "counts.csv"
    Crosstab.from_array(COUNTS).to_csv(counts)
    out = tmp_path / "out.json"
    assert run(["solve", "RURP", "--counts", str(counts), "--eps", "1", "--distortion",
                "hamming", "--out", str(out), *extra]) == 0
    declared = json.loads(out.read_text())["declaration"]["uncertainty"]
    assert declared["set"] == extra[1] and "lam" in declared
    assert run(["verify", str(out)]) == 0


def test_lambda_may_be_a_fraction() -> None:
    from rldp_models.cli.solve import number_or_fraction

    assert number_or_fraction("2/3") == 2 / 3 and number_or_fraction("-0.5") == -0.5


@pytest.mark.parametrize("extra, message", [
    (["--uncertainty", "power"], "needs --lambda"),
    (["--uncertainty", "power", "--lambda", "1/0"], "not a number"),
    (["--uncertainty", "power", "--lambda", "inf"], "not a finite number"),
    (["--uncertainty", "renyi", "--order", "-1"], "order must be"),
    (["--uncertainty", "chi2", "--lambda", "2"], "belong to --uncertainty power"),
])
def test_bad_family_parameters_are_one_line_and_exit_2(tmp_path: Path, capsys, extra: list[str],
                                                         message: str) -> None:
    counts = tmp_path / "counts.csv"
    Crosstab.from_array(COUNTS).to_csv(counts)
    try:
        code = run(["solve", "RURP", "--counts", str(counts), "--eps", "1",
                    "--out", str(tmp_path / "x.json"), *extra])
    except SystemExit as stop:  # argparse's own refusals
        code = stop.code
    err = without_warnings(capsys.readouterr().err)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def dinkelbach_conditional_sup(uncertainty: PowerDivergenceSet, q: np.ndarray, s: int) -> float:
    """A value ``q.R`` attained by a conditional ``R = P(U | s)`` of a ``P`` proved in the set.

    Dinkelbach's iteration on the primal (independent of the dual code): maximise
    ``e_s(q - kappa).P`` over the set, move ``kappa`` to the ratio at the maximiser.
    """
    shape = uncertainty.phat.shape
    kappa, best = float(np.min(q)), -np.inf
    for _ in range(6):
        w = np.zeros(shape)
        w[s] = q - kappa
        point, _ = uncertainty.worst_case(w.ravel())  # primal, pulled inside, membership proved
        row = point.reshape(shape)[s]
        if row.sum() <= 0:
            break
        kappa = float(q @ row / row.sum())
        best = max(best, kappa)
    return best


@pytest.mark.parametrize("lam", [-0.5, pytest.param(2.0, marks=pytest.mark.slow)])
def test_conditional_worst_cases_never_exceed_the_certified_privacy_bounds(lam: float) -> None:
    from rldp_models.privacy.set_privacy import conditional_bounds

    crosstab = Crosstab.from_array(COUNTS)
    uncertainty = PowerDivergenceSet.from_counts(COUNTS, 0.05, lam)
    solution = preset("NURP", crosstab, 1.0, uncertainty=uncertainty).solve()
    hi, lo = conditional_bounds(solution.protocol, uncertainty)
    blocks = solution.protocol.reshape(*COUNTS.shape, -1)
    for s in range(COUNTS.shape[0]):
        for y in range(blocks.shape[2]):
            q = blocks[s, :, y]
            top = dinkelbach_conditional_sup(uncertainty, q, s)
            bottom = -dinkelbach_conditional_sup(uncertainty, -q, s)
            assert top <= hi[s, y] and hi[s, y] - top < 1e-5
            assert bottom >= lo[s, y] and bottom - lo[s, y] < 1e-5
