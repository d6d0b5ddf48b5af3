"""V3 (chi-square & box) and V6 (Wasserstein-1 by membership): sets from data, end to end.

Each variant script's program (``docs/variants/``) is solved and written as a record;
its value is compared with an independent plain-cvxpy model of the same program,
written here from the exact dual reformulation by hand (no toolkit code): the
worst-case objective by the support function's Lagrangian dual, and the product-form
privacy by (*) of :mod:`rldp_models.uncertainty.base` -- ``sup_{C_s} q.R <= kappa`` iff
``delta*(e_s(q - kappa) | F) <= 0``, the same dual at an argument affine in
``(Q, kappa)``. The record must verify from itself alone; tampered set declarations
(a larger radius, an empty set, a set on other counts) must not.
"""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest
from scipy.stats import chi2

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.results.files import write_result
from rldp_models.results.program_result import solution_result
from tests.variant_scripts import variant_script

VARIANTS = Path(__file__).resolve().parents[2] / "docs" / "variants"
COUNTS = np.array([[9, 4, 0], [3, 7, 5], [2, 0, 11]])
"""3x3 with two empty cells (no secret without records)."""

EPS = 1.0


def script(name: str) -> dict:
    return variant_script(name)


def chi2_box_support(w: cp.Expression, phat: np.ndarray, radius: float):
    """``delta*(w | chi2 & box)`` by its Lagrangian dual: a convex expression and constraints.

    ``sup_P w.P`` over ``P >= 0, sum P = 1, sum Phat^2 / P <= B + 1, Phat/2 <= P <= 3 Phat/2``;
    per cell with ``Phat_x > 0`` the inner supremum of ``(w_x - mu - a_x + b_x) P_x - c Phat_x^2
    / P_x`` is ``-2 Phat_x sqrt(c g_x)`` with ``g_x = mu + a_x - b_x - w_x >= 0``; cells with
    ``Phat_x = 0`` are pinned to 0 by the box.
    """
    cells = np.flatnonzero(phat > 0)
    mu, c = cp.Variable(), cp.Variable(nonneg=True)
    a, b = cp.Variable(cells.size, nonneg=True), cp.Variable(cells.size, nonneg=True)
    gap = mu + a - b - w[cells]
    value = mu + c * (radius + 1) + 1.5 * phat[cells] @ a - 0.5 * phat[cells] @ b \
        - 2 * cp.sum(cp.hstack([phat[x] * cp.geo_mean(cp.hstack([c, gap[k]]))
                                for k, x in enumerate(cells)]))
    return value, [gap >= 0]


def wasserstein_support(w: cp.Expression, phat: np.ndarray, cost: np.ndarray, radius: float):
    """``delta*(w | W1 ball)``: ``min phat.alpha + lam r`` s.t. ``alpha_x + lam c_xx' >= w_x'``."""
    alpha, lam = cp.Variable(phat.size), cp.Variable(nonneg=True)
    ones = np.ones(phat.size)
    return phat @ alpha + lam * radius, [cp.reshape(alpha, (phat.size, 1), order="C") @ ones[None]
                                         + lam * cost >= ones[:, None] @ cp.reshape(
                                             w, (1, phat.size), order="C")]


def independent_optimum(counts: np.ndarray, support) -> float:
    """RURP in product form over the set whose support dual is ``support`` (module docstring)."""
    n_s, n_u = counts.shape
    positions = np.arange(n_u)
    distortion = (positions[:, None] - positions[None, :]) ** 2.0
    q = cp.Variable((n_s * n_u, n_u), nonneg=True)
    per_cell = cp.sum(cp.multiply(q, np.tile(distortion, (n_s, 1))), axis=1)
    worst, constraints = support(per_cell)
    constraints = [*constraints, cp.sum(q, axis=1) == 1]
    hi, lo = cp.Variable((n_s, n_u)), cp.Variable((n_s, n_u))
    for s, y in itertools.product(range(n_s), range(n_u)):
        rows = q[s * n_u:(s + 1) * n_u, y]
        for shifted in (rows - hi[s, y], lo[s, y] - rows):
            embedded = cp.hstack([shifted if t == s else np.zeros(n_u) for t in range(n_s)])
            value, dual = support(embedded)
            constraints += [value <= 0, *dual]
    constraints += [hi[s1] <= np.exp(EPS) * lo[s2]
                    for s1, s2 in itertools.permutations(range(n_s), 2)]
    problem = cp.Problem(cp.Minimize(worst), constraints)
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    return float(problem.value)


def v3_support(counts: np.ndarray):
    phat = (counts / counts.sum()).ravel()
    radius = chi2.ppf(0.95, counts.size - 1) / counts.sum()
    return lambda w: chi2_box_support(w, phat, radius)


def v6_support(counts: np.ndarray):
    phat = (counts / counts.sum()).ravel()
    s, u = np.indices(counts.shape).reshape(2, -1)
    cost = np.abs(u[:, None] - u[None, :]) + (s[:, None] != s[None, :])
    return lambda w: wasserstein_support(w, phat, cost, 0.1)


CASES = {"v3": ("v3_chi2_box.py", v3_support), "v6": ("v6_wasserstein.py", v6_support)}


@pytest.fixture(scope="module", params=sorted(CASES))
def record(request, tmp_path_factory):
    name, support = CASES[request.param]
    crosstab = Crosstab.from_array(COUNTS)
    solution = script(name)["program"](crosstab).solve()
    path = tmp_path_factory.mktemp(request.param) / "record.json"
    write_result(solution_result(solution), path)
    return request.param, path, json.loads(path.read_text()), support(COUNTS)


def written(tmp_path: Path, record: dict) -> str:
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(record))
    return str(path)


def test_value_agrees_with_an_independent_model(record) -> None:
    _, _, stored, support = record
    expected = independent_optimum(COUNTS, support)
    relative = (stored["value"]["value"] - expected) / abs(expected)
    assert -1e-6 <= relative <= 1e-5


def test_the_record_verifies_from_itself(record) -> None:
    _, path, stored, _ = record
    declared = stored["declaration"]["uncertainty"]
    assert declared["set"] in ("conic", "intersection") and declared["coverage"] == "not claimed"
    assert main(["verify", str(path)]) == 0


def _budget_row(declared: dict) -> int:
    """The row of the Wasserstein budget (``b = 0.1``, the only such entry)."""
    rows = [i for i, b in enumerate(declared["data"]["b"]) if b == 0.1]
    assert len(rows) == 1
    return rows[0]


def test_a_larger_set_fails(record, tmp_path) -> None:
    """V6 with radius 0.5 in its data; V3 with the chi-square part's radius doubled."""
    variant, _, stored, _ = record
    tampered = copy.deepcopy(stored)
    declared = tampered["declaration"]["uncertainty"]
    if variant == "v6":
        declared["data"]["b"][_budget_row(declared)] = 0.5
    else:
        declared["parts"][0]["radius"] *= 2
    assert main(["verify", written(tmp_path, tampered)]) in (1, 2)


def test_an_empty_set_fails(record, tmp_path, capsys) -> None:
    """A negative budget (V6) or an empty box (V3: upper bound below the lower) is refused."""
    variant, _, stored, _ = record
    tampered = copy.deepcopy(stored)
    declared = tampered["declaration"]["uncertainty"]
    if variant == "v6":
        declared["data"]["b"][_budget_row(declared)] = -0.1
    else:
        box = declared["parts"][1]["data"]
        box["b_phat"][2] = [-v for v in box["b_phat"][2]]
    assert main(["verify", written(tmp_path, tampered)]) == 2
    assert "not proved non-empty" in capsys.readouterr().err


def test_a_set_on_other_counts_fails(record, tmp_path) -> None:
    """The data's Phat-dependent part frozen at another table's Phat: Phat is not a member."""
    variant, _, stored, _ = record
    tampered = copy.deepcopy(stored)
    declared = tampered["declaration"]["uncertainty"]
    data = declared["data"] if variant == "v6" else declared["parts"][1]["data"]
    other = np.roll(COUNTS.ravel(), 1) / COUNTS.sum()
    rows, cols, values = data["b_phat"]
    for i, x, value in zip(rows, cols, values):
        data["b"][i] += value * other[x]
    data["b_phat"] = [[], [], []]
    assert main(["verify", written(tmp_path, tampered)]) in (1, 2)


def test_library_sets_intersect_and_the_intersection_is_their_common_part() -> None:
    """``chi2 & box`` of two library sets: its support is at most each one's closed form, and
    equals the direct maximum over both memberships (an independent cvxpy solve)."""
    from rldp_models.uncertainty import BoxSet, ChiSquareSet

    phat = COUNTS / COUNTS.sum()
    first, second = ChiSquareSet.from_counts(COUNTS, 0.05), BoxSet.around(phat, 0.05)
    both = first & second
    v = np.random.default_rng(4).normal(size=COUNTS.size)
    p = cp.Variable(COUNTS.size)
    direct = cp.Problem(cp.Maximize(v @ p), [*first.membership(p), *second.membership(p)])
    direct.solve(solver="CLARABEL")
    assert both.support(v) == pytest.approx(direct.value, abs=1e-7)
    assert both.support(v) <= min(first.support(v), second.support(v)) + 1e-7
    assert both.proved_nonempty(COUNTS)


def test_an_intersection_whose_part_ties_a_plan_to_phat_is_proved_non_empty() -> None:
    """``W1 & chi2`` and ``box & W1``: the plan's marginal rows tie it to Phat, whose exact
    value ``counts / n`` (the plan ``diag(Phat)``) must meet them in rationals; the
    intersection rebuilds from its declaration, and its support agrees with the direct
    maximum over both memberships (an independent cvxpy solve)."""
    from rldp_models.uncertainty import ChiSquareSet
    from rldp_models.uncertainty.conic_set import from_membership
    from rldp_models.uncertainty.declared import build_set, set_declaration

    crosstab = Crosstab.from_array(COUNTS)
    s, u = np.indices(COUNTS.shape).reshape(2, -1)
    cost = np.abs(u[:, None] - u[None, :]) + (s[:, None] != s[None, :])

    def ball(P, phat):
        plan = cp.Variable((s.size, s.size), nonneg=True)
        return [cp.sum(plan, axis=1) == phat, cp.sum(plan, axis=0) == P,
                cp.sum(cp.multiply(cost, plan)) <= 0.1]

    wasserstein = from_membership(crosstab, ball, "w1", 0.1)
    box = from_membership(crosstab, lambda P, phat: [0.5 * phat <= P, P <= 1.5 * phat], "box")
    chi = ChiSquareSet.from_counts(COUNTS, 0.05)
    v = np.random.default_rng(5).normal(size=COUNTS.size)
    for both, parts in ((wasserstein & chi, (wasserstein, chi)), (box & wasserstein,
                                                                 (box, wasserstein))):
        assert both.proved_nonempty(COUNTS)
        assert build_set(set_declaration(both), crosstab).proved_nonempty(COUNTS)
        p = cp.Variable(COUNTS.size)
        direct = cp.Problem(cp.Maximize(v @ p), [*parts[0].membership(p),
                                                 *parts[1].membership(p)])
        direct.solve(solver="CLARABEL")
        assert both.support(v) == pytest.approx(direct.value, abs=1e-7)


def _excluding_phat(crosstab: Crosstab):
    """``P_0 >= Phat_0 + 0.05`` within L1 distance 0.3 of Phat: non-empty, without Phat."""
    from rldp_models.uncertainty.conic_set import from_membership

    return from_membership(crosstab, lambda P, phat: [P[0] >= phat[0] + 0.05,
                                                      cp.norm1(P - phat) <= 0.3], "shifted")


def test_a_set_that_excludes_phat_is_proved_non_empty_by_its_stored_member() -> None:
    """The declaration stores a member (every column of the data, in rationals); it is a
    distribution meeting the membership (checked here in floats, from the constraints as
    written), verify's rebuild accepts it, and without it, or with Phat put in its place,
    the set is refused."""
    from fractions import Fraction

    from rldp_models.errors import InputError
    from rldp_models.uncertainty.declared import build_set, set_declaration

    crosstab = Crosstab.from_array(COUNTS)
    shifted = _excluding_phat(crosstab)
    phat = (COUNTS / COUNTS.sum()).ravel()
    assert not shifted.proved_nonempty(COUNTS)
    declaration = set_declaration(shifted)
    member = [Fraction(x) for x in declaration["member"]]
    P = np.array([float(member[int(c)]) for c in shifted.description.columns])
    assert sum(member[int(c)] for c in shifted.description.columns) == 1
    assert P.min() >= 0 and P[0] >= phat[0] + 0.05 - 1e-12
    assert np.abs(P - phat).sum() <= 0.3 + 1e-12
    assert build_set(declaration, crosstab).name == "shifted"
    moved = list(declaration["member"])
    for c, value in zip(shifted.description.columns, COUNTS.ravel()):
        moved[int(c)] = str(Fraction(int(value), int(COUNTS.sum())))
    for tampered in ({k: v for k, v in declaration.items() if k != "member"},
                     {**declaration, "member": moved}, {**declaration, "member": ["x"]}):
        with pytest.raises(InputError, match="not proved non-empty"):
            build_set(tampered, crosstab)


def test_a_program_over_a_set_without_phat_verifies_from_its_record(tmp_path) -> None:
    from rldp_models.programs import ProtocolProgram, RobustDistortion, RobustSecretPrivacy

    crosstab = Crosstab.from_array(COUNTS)
    program = ProtocolProgram(crosstab, RobustDistortion(), [RobustSecretPrivacy(EPS)],
                              uncertainty=_excluding_phat(crosstab), name="shifted RURP")
    path = tmp_path / "record.json"
    write_result(solution_result(program.solve()), path)
    assert "member" in json.loads(path.read_text())["declaration"]["uncertainty"]
    assert main(["verify", str(path)]) == 0
