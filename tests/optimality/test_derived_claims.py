"""The weak-duality claim of a program over a set known by its membership alone
(:class:`~rldp_models.uncertainty.derived.DerivedSet`): the record says the gap is to the
program with robust privacy in product form, so the program compiled for the bound must be
that program, not a tighter one.

Checked against the plain-cvxpy model of RURP in product form over the KL ball
(:func:`tests.variants.independent.independent_optimum` with the KL support dual), solved
to tight tolerances: the compiled program's optimum is that optimum, and the record's proven
lower bound is at most it.
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
from rldp_models.uncertainty import KLBallSet
from rldp_models.uncertainty.derived import DerivedSet
from tests.variants.independent import TIGHT, independent_optimum, kl_worst

COUNTS = np.array([[30, 22, 9, 4], [12, 25, 0, 8], [3, 9, 14, 27]])
"""A table with an empty cell (the KL ball leaves it free); the lead's reproduction."""


def _ball() -> KLBallSet:
    return KLBallSet.from_counts(COUNTS, 0.05)


def _program() -> ProtocolProgram:
    return ProtocolProgram(Crosstab.from_array(COUNTS), RobustDistortion(),
                           [RobustSecretPrivacy(1.0)], uncertainty=DerivedSet(_ball()),
                           eps=1.0, name="RURP-derived")


@pytest.fixture(scope="module")
def expected() -> float:
    """The product-form optimum by the independent model (0.96467567)."""
    phat = (COUNTS / COUNTS.sum()).ravel()
    radius = _ball().radius
    return independent_optimum(COUNTS, lambda v: kl_worst(v, phat, radius))


def test_the_compiled_program_is_the_product_form_program(expected: float) -> None:
    """No tightening in the compiled rows: a margin of 1e-9 inside ``K*`` on each derived
    counterpart raised this optimum to 0.96467705 (1.4e-6 above), where Clarabel's tight
    solve also ended inaccurate."""
    problem = _program().to_cvxpy().problem
    problem.solve(solver="CLARABEL", **TIGHT)
    assert problem.status == "optimal"
    assert problem.value == pytest.approx(expected, rel=1e-8)


def test_the_claim_from_a_tight_solve_brackets_the_independent_optimum(
        expected: float, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys) -> None:
    """The record the program writes from its tolerance-1e-10 solve: its proven lower bound
    is at most the optimum (it claimed 0.96467683 when the compiled rows were tighter) and
    ``rldp verify`` re-proves it."""
    monkeypatch.setattr(protocol_program, "CLARABEL_ATTEMPTS",
                        (protocol_program.CLARABEL_TIGHT,))
    path = tmp_path / "derived.json"
    write_result(solution_result(_program().solve()), path)
    claim = json.loads(path.read_text())["certificate"]["optimality"]
    assert claim["claimed"] and claim["dual"]["form"] == "cvxpy", claim.get("reason")
    assert "product form" in claim["model"]
    assert claim["lower"] <= expected * (1 + 1e-9) <= claim["upper"] * (1 + 1e-6)
    assert main(["verify", str(path)]) == 0
    assert "optimal within" in capsys.readouterr().out
