"""``--time-limit`` is cooperative and bad input is one line (issue 35, item 6).

No timer thread ends the process (``os._exit``): a caller of :func:`rldp_models.cli.main`
gets exit code 3 and one line, and keeps its interpreter; a caller of the solvers under
:func:`solvers.deadline.limited` gets :class:`solvers.deadline.TimeLimitReached`; the
solvers are handed the seconds left as their own time limit. Every command given bad
input exits 2 with exactly one line on stderr under ``-q``.
"""

from __future__ import annotations

import re
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest

import solvers
from rldp_models import finish
from rldp_models.cli import preflight
from solvers import deadline
from tests.test_records_verify_property import run_cli, write_table

ROOT = Path(__file__).resolve().parents[1]


def test_nothing_kills_the_process_at_the_time_limit() -> None:
    sources = [*ROOT.joinpath("rldp_models").rglob("*.py"), *ROOT.joinpath("solvers").rglob("*.py")]
    killers = [f"{path.relative_to(ROOT)}: {match}" for path in sources
               for match in re.findall(r"os\._exit|threading\.Timer", path.read_text())]
    assert killers == []


def test_main_returns_3_in_process_when_the_limit_passes(monkeypatch, tmp_path: Path) -> None:
    # the up-front estimate would refuse a limit this small (exit 2): let the run start
    monkeypatch.setattr(preflight.resources, "check", lambda *args, **kwargs: None)
    counts = np.random.default_rng(0).integers(5, 40, size=(5, 8))
    table = write_table(tmp_path, counts, [f"s{i}" for i in range(5)],
                        [str(u) for u in range(8)], "time-limit.csv")
    out = tmp_path / "time-limit.json"
    code, err = run_cli(["solve", "RURP", "--counts", str(table), "--eps", "1",
                         "--out", str(out), "--time-limit", "0.001", "-q"])
    assert code == 3, err
    assert err.count("\n") == 1 and "time limit" in err and "Traceback" not in err
    assert not out.exists()
    assert deadline.remaining() is None  # the limit ended with the command


def _problem() -> cp.Problem:
    x = cp.Variable(3)
    return cp.Problem(cp.Minimize(cp.sum_squares(x - np.arange(3.0))), [cp.sum(x) == 1])


def test_a_python_caller_gets_an_exception_not_a_killed_interpreter() -> None:
    with deadline.limited(1e-9), pytest.raises(deadline.TimeLimitReached) as raised:
        while True:  # the deadline passes; the next solve refuses to start
            solvers.solve(_problem(), "clarabel")
    assert raised.value.limit == 1e-9 and "solve" in raised.value.phase


@pytest.mark.parametrize("name", ["clarabel", "scs"])
def test_the_solvers_are_handed_the_seconds_left(name: str, monkeypatch) -> None:
    if name not in solvers.available():
        pytest.skip(f"{name} is not installed")
    backend = solvers.registry.get(name)
    seen: dict = {}
    original = type(backend).solve

    def spy(self, form, /, **options):
        seen.update(options)
        return original(self, form, **options)

    monkeypatch.setattr(type(backend), "solve", spy)
    with deadline.limited(50.0):
        solvers.solve(_problem(), name)
    assert 0 < seen["time_limit"] <= 50.0


def test_an_inner_limit_never_extends_an_outer_one() -> None:
    with deadline.limited(1.0), deadline.limited(100.0):
        left = deadline.remaining()
        assert left is not None and left <= 1.0
    assert deadline.remaining() is None


def _bad_inputs() -> list[list[str]]:
    """Each command with bad input; ``{w}`` is the test's folder, ``{w}/table.csv`` a table."""
    table, missing, work = "{w}/table.csv", "{w}/missing.csv", "{w}"
    return [
        ["solve", "RURP", "--counts", missing, "--eps", "1", "--out", f"{work}/x.json"],
        ["solve", "RURP", "--counts", table, "--eps", "-1", "--out", f"{work}/x.json"],
        ["solve", "RURP", "--counts", table, "--eps", "1", "--out", table],
        *[["solve", "RURP", "--counts", table, "--eps", "1", "--uncertainty", "power",
           f"--lambda={lam}", "--out", f"{work}/x.json"]
          for lam in ("1e308", "-1e308", "1e400", "1e-320", "-0.99999999999", "nan")],
        ["solve", "RURP", "--counts", table, "--eps", "1", "--uncertainty", "renyi",
         "--order", "1e400", "--out", f"{work}/x.json"],
        ["solve", "RURP", "--counts", table, "--eps", "1", "--radius-from", "bootstrap",
         "--bootstrap-draws", "1" + "0" * 22, "--out", f"{work}/x.json"],
        ["estimate", table, "--result", table, "--out", f"{work}/e.csv", "--seed=-1"],
        ["coverage", "--counts", table, "--inner-draws=0"],
        ["curve", "--counts", table, "--eps=1e308,1", "--out", f"{work}/c.csv"],
        ["estimate", table, "--result", table, "--out", work],
        ["compare", table, "--counts", table, "--out", work],
        ["compare-solvers", "RURP", "--counts", missing, "--eps", "1"],
        ["verify", f"{work}/missing.json"],
        ["verify", table],
        ["demo", "--bogus"],
        ["solvers", "--bogus"],
        ["mechanism", "rr", "--k", "2", "--eps", "nan", "--out", f"{work}/x.json"],
        ["mechanism", "rr", "--k", "-2", "--eps", "1", "--out", f"{work}/x.json"],
        ["protocol", "ir", "--counts", missing, "--eps", "1", "--out", f"{work}/x.json"],
        ["protocol", "bogus", "--counts", table, "--eps", "1", "--out", f"{work}/x.json"],
        ["reproduce", "bogus"],
        ["coverage", "--counts", missing],
        ["curve", "--counts", missing],
        ["schema", "--bogus"],
        ["release", table, "--data", missing, "--out", f"{work}/x.csv"],
        ["release", table, "--data", table, "--sensitive", "s", "--public", "u", "--seed", "-1",
         "--out", f"{work}/x.csv"],
        ["estimate", missing],
        ["compare", table, table, "--counts", table, "--out", table],
        ["--time-limit", "-1", "solve"],
        ["--max-memory", "xx", "verify", table],
    ]


@pytest.mark.parametrize("argv", _bad_inputs(),
                         ids=lambda argv: " ".join(Path(word).name for word in argv[:2]
                                                   + argv[-3:-2]))
def test_bad_input_is_one_line_and_exit_2_for_every_command(argv: list[str],
                                                            tmp_path: Path) -> None:
    table = tmp_path / "table.csv"
    table.write_text("s,1,2\nx,5,6\ny,7,8\n")
    code, err = run_cli([word.replace("{w}", str(tmp_path)) for word in [*argv, "-q"]])
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("rldp: error: "), err
    assert table.read_text() == "s,1,2\nx,5,6\ny,7,8\n"  # no input modified


def test_the_repair_checks_the_deadline_between_its_exact_checks() -> None:
    # a certify that never passes: without the deadline the repair would mix up to weight 1
    calls: list = []

    def certify(matrix, weight):
        calls.append(weight)
        return False

    with deadline.limited(3600.0):
        with pytest.raises(finish.GuaranteeError):
            finish.finish(np.eye(3), certify, bool, first_weight=0.25)
    assert calls == [0.0, 0.25, 0.5, 1.0]  # unlimited in time: every weight is checked
    calls.clear()
    with deadline.limited(1e-9), pytest.raises(deadline.TimeLimitReached) as raised:
        finish.finish(np.eye(3), certify, bool, first_weight=0.25)
    assert calls == [] and raised.value.best is None and "exact check" in raised.value.phase
