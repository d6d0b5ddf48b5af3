"""``rldp solve`` and ``rldp verify`` on the default path skip what they never use (issue 22).

Each command runs in a fresh interpreter, in process, and reports which of the heavy
libraries ended up in ``sys.modules``: the default path (direct conic form + Clarabel;
exact checks) builds no Pyomo model and derives nothing with sympy, so importing either
(~0.3 s CPU each) is a regression. ``rldp solve`` builds no cvxpy model either (~0.5 s,
of which ``scipy.stats``, which cvxpy pulls in, ~0.3 s) and takes its chi-square quantile
from ``scipy.special``; ``rldp verify`` still solves its worst-case estimate with cvxpy.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rldp_models.datasets import jeffreys_instance

HEAVY = ("cvxpy", "pyomo", "sympy", "scipy.stats")

RUN = """
import json, sys
from rldp_models.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "loaded": [m for m in %r if m in sys.modules]}))
""" % (HEAVY,)


def loaded_by(*args: str) -> list[str]:
    """Heavy libraries in ``sys.modules`` after ``rldp args`` ran in a fresh interpreter."""
    run = subprocess.run([sys.executable, "-c", RUN, *args], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["code"] in (0, None), run.stderr
    return list(report["loaded"])


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    work = tmp_path_factory.mktemp("imports")
    counts = work / "counts.csv"
    jeffreys_instance(3, 5, 75, seed=1).crosstab.to_csv(counts)
    record = work / "rurp.json"
    solve = loaded_by("solve", "RURP", "--counts", str(counts), "--eps", "1",
                      "--out", str(record))
    assert record.exists()
    return {"solve": solve, "verify": loaded_by("verify", str(record))}


@pytest.mark.parametrize("command", ["solve", "verify"])
@pytest.mark.parametrize("library", ["pyomo", "sympy"])
def test_default_path_does_not_import(loaded: dict[str, list[str]], command: str,
                                      library: str) -> None:
    assert library not in loaded[command]


def test_solve_does_not_import_cvxpy(loaded: dict[str, list[str]]) -> None:
    assert "cvxpy" not in loaded["solve"]


def test_solve_does_not_import_scipy_stats(loaded: dict[str, list[str]]) -> None:
    assert "scipy.stats" not in loaded["solve"]



CVXPY_FREE = ("rldp_models.programs", "rldp_models.programs.forall", "rldp_models.uncertainty",
              "rldp_models.uncertainty.derived", "rldp_models.uncertainty.power_divergence",
              "rldp_models.results.blocks")
"""Modules every set's and block's declaration loads; their cvxpy builds import it when run."""

DECLARATIONS = """
import sys
import importlib
for name in sys.argv[1:]:
    importlib.import_module(name)
print("cvxpy" in sys.modules)
"""


def test_declarations_do_not_import_cvxpy() -> None:
    """Importing the sets and library blocks costs no cvxpy (whatever set a solve uses)."""
    run = subprocess.run([sys.executable, "-c", DECLARATIONS, *CVXPY_FREE], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["False"]
