"""PolyOpt with SCIP guiding its pricing (issue 37, item 4): the bound proved by the
project's own branch and bound is never below LP (47)'s optimum, found by enumerating
Gamma (3x3 and 2x4, certified runs and a stopped one)."""

from __future__ import annotations

import numpy as np
import pytest

from rldp_models.data import Crosstab
from rldp_models.rldp_protocols import polyopt as polyopt_module
from rldp_models.rldp_protocols.polyopt import polyopt_protocol

pytest.importorskip("pyscipopt")

TABLES = {
    "3x3": Crosstab.from_array([[30, 5, 12], [4, 25, 9], [11, 14, 20]], ["a", "b", "c"],
                               ["lo", "mid", "hi"]),
    "2x4": Crosstab.from_array([[40, 12, 7, 21], [9, 30, 18, 6]], ["a", "b"],
                               ["w", "x", "y", "z"]),
}


@pytest.fixture(autouse=True)
def guided(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(polyopt_module, "SCIP_SECONDS", 0.5)


@pytest.mark.parametrize("name", sorted(TABLES))
@pytest.mark.parametrize("eps", [2.0])
def test_guided_bound_is_never_below_the_enumerated_optimum(name: str, eps: float) -> None:
    table = TABLES[name]
    optimum = polyopt_protocol(table, eps, method="enumerate").utility_hat
    result = polyopt_protocol(table, eps, method="column-generation", proof=True)
    assert result.certificate.upper_bound >= optimum - 1e-9
    assert result.utility_hat == pytest.approx(optimum, abs=1e-7)
    assert result.rldp_certified_eps <= eps


def test_a_stopped_guided_run_has_a_gap_covering_the_optimum() -> None:
    table = TABLES["3x3"]
    optimum = polyopt_protocol(table, 1.0, method="enumerate").utility_hat
    result = polyopt_protocol(table, 1.0, method="column-generation", proof=True,
                              time_limit=0.05)
    assert result.rldp_certified_eps <= 1.0
    assert np.allclose(result.Q.sum(axis=1), 1.0, atol=0)
    assert result.certificate.upper_bound >= optimum - 1e-9
    assert result.certificate.proven_gap is not None
    assert result.utility_hat + result.certificate.proven_gap >= optimum - 1e-9

