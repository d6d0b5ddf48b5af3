"""The weak-duality claim of a program over a set known by its membership alone
(:class:`~rldp_models.uncertainty.derived.DerivedSet`): the record says the gap is to the
program with robust privacy in product form, so the program compiled for the bound must be
that program, not a tighter one.

Checked against the plain-cvxpy model of RURP in product form over the KL ball and the
chi-square set (:func:`tests.variants.independent.independent_optimum` with their support
duals), solved to tight tolerances: the compiled program's optimum is that optimum, and the
record's proven lower bound is at most it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.programs import ProtocolProgram, RobustDistortion, RobustSecretPrivacy
from rldp_models.programs import protocol_program
from rldp_models.results.files import write_result
from rldp_models.results.program_result import solution_result
from rldp_models.uncertainty import ChiSquareSet, KLBallSet
from rldp_models.uncertainty.base import UncertaintySet
from rldp_models.uncertainty.derived import DerivedSet
from tests.variants.independent import TIGHT, chi2_worst, independent_optimum, kl_worst

CASES = {
    # a table with an empty cell (the KL ball leaves it free): compiled with the margin,
    # optimum 0.96467705 against 0.96467567, claimed lower bound 0.96467683
    "kl 3x4": (KLBallSet, kl_worst, np.array([[30, 22, 9, 4], [12, 25, 0, 8], [3, 9, 14, 27]])),
    # second-order cones: claimed lower bound 0.779550130 against 0.779550100, above the
    # returned protocol's value 0.779550127 (that protocol was not feasible for the compiled
    # program, only for the program its record names)
    "chi2 2x3": (ChiSquareSet, chi2_worst, np.array([[10, 3, 1], [2, 6, 9]])),
}


def _set(case: str) -> UncertaintySet:
    kind, _, counts = CASES[case]
    return kind.from_counts(counts, 0.05)


def _program(case: str) -> ProtocolProgram:
    counts = CASES[case][2]
    return ProtocolProgram(Crosstab.from_array(counts), RobustDistortion(),
                           [RobustSecretPrivacy(1.0)], uncertainty=DerivedSet(_set(case)),
                           eps=1.0, name="RURP-derived")


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request: pytest.FixtureRequest) -> tuple[str, float]:
    """A case and its product-form optimum by the independent model."""
    _, support, counts = CASES[request.param]
    phat = (counts / counts.sum()).ravel()
    radius = _set(request.param).radius
    return request.param, independent_optimum(counts, lambda v: support(v, phat, radius))


def test_the_compiled_program_is_the_product_form_program(case: tuple[str, float]) -> None:
    """No tightening in the compiled rows: a margin of 1e-9 inside ``K*`` on each derived
    counterpart raised the KL optimum by 1.4e-6, where Clarabel's tight solve also ended
    inaccurate."""
    name, expected = case
    problem = _program(name).to_cvxpy().problem
    problem.solve(solver="CLARABEL", **TIGHT)
    assert problem.status == "optimal"
    assert problem.value == pytest.approx(expected, rel=1e-8)


def test_the_claim_from_a_tight_solve_brackets_the_independent_optimum(
        case: tuple[str, float], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys) -> None:
    """The record the program writes from its tolerance-1e-10 solve: its proven lower bound
    is at most the optimum (:data:`CASES` for what it claimed when the compiled rows were
    tighter) and ``rldp verify`` re-proves it."""
    name, expected = case
    monkeypatch.setattr(protocol_program, "CLARABEL_ATTEMPTS",
                        (protocol_program.CLARABEL_TIGHT,))
    path = tmp_path / "derived.json"
    write_result(solution_result(_program(name).solve()), path)
    claim = json.loads(path.read_text())["certificate"]["optimality"]
    assert claim["claimed"] and claim["dual"]["form"] == "cvxpy", claim.get("reason")
    assert "product form" in claim["model"]
    assert claim["lower"] <= expected * (1 + 1e-9) <= claim["upper"] * (1 + 1e-6)
    assert main(["verify", str(path)]) == 0
    assert "optimal within" in capsys.readouterr().out
