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
import json
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.results.files import write_result
from rldp_models.results.program_result import solution_result
from tests.variant_scripts import variant_script
from tests.variants.independent import independent_optimum, v3_support, v6_support

VARIANTS = Path(__file__).resolve().parents[2] / "docs" / "variants"
COUNTS = np.array([[9, 4, 0], [3, 7, 5], [2, 0, 11]])
"""3x3 with two empty cells (no secret without records)."""

EPS = 1.0


def script(name: str) -> dict:
    return variant_script(name)


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
