"""``rldp solvers`` lists without importing cvxpy or Pyomo; ``--check`` says which are usable."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from importlib.util import find_spec

import pytest

import solvers
from rldp_models.cli import main
from solvers.registry import Availability, installed

LISTED = """
import json, sys
from rldp_models.cli import main
code = main(["solvers"])
print(json.dumps({"code": code, "loaded": [m for m in ("cvxpy", "pyomo") if m in sys.modules]}))
"""


def test_listing_imports_neither_cvxpy_nor_pyomo() -> None:
    run = subprocess.run([sys.executable, "-c", LISTED], capture_output=True, text=True,
                         timeout=120)
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report == {"code": 0, "loaded": []}, run.stderr


def test_installed_agrees_with_the_importing_check() -> None:
    """Where a backend's packages are all found, importing them says it is available too
    (MOSEK's licence aside, which only ``--check`` sees)."""
    quick, full = installed(), solvers.describe()
    assert set(quick) == set(full)
    for name in full:
        if name != "mosek":
            assert quick[name].ok == full[name].ok, name
    assert quick["mosek"].ok == (find_spec("mosek") is not None)


@dataclass
class _Unlicensed:
    """Installed (its own availability says so) but failing to solve, as MOSEK without a
    licence does."""

    name: str = "fake-unlicensed"
    form: str = "conic"
    description: str = "test"

    def availability(self) -> Availability:
        return Availability(True)

    def solve(self, model, /, **options):
        raise RuntimeError("no licence found\nsecond line")


@pytest.fixture
def unlicensed():
    solvers.register(_Unlicensed())
    yield
    from solvers import registry

    del registry._BACKENDS["fake-unlicensed"]


def test_check_says_which_solve(unlicensed, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solvers", "--check"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "unusable: no licence found second line" in lines["fake-unlicensed"]
    assert "installed" in main_listing()["fake-unlicensed"]
    for name in ("clarabel-direct", "highspy"):  # the default and the LP-matrix backend
        assert "usable (" in lines[name] and "unusable" not in lines[name]


def main_listing() -> dict[str, str]:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["solvers"])
    return {line.split()[0]: line for line in out.getvalue().splitlines()}
