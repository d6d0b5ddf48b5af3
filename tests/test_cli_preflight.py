"""Issue 20 on the command line: refuse early in one line, exact counts, no traceback, quick help.

Most cases run ``rldp_models.cli.main`` in-process; a refusal must come before
any solver is built, so these tests stay fast.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rldp_models.cli import main
from rldp_models import resources
from rldp_models.cli import ExitCode
from shared_data import ADULT as _SHARED_ADULT
from shared_data import without_warnings

ADULT = Path(os.environ.get("RLDP_ADULT_DATA", _SHARED_ADULT))
needs_adult = pytest.mark.skipif(not ADULT.is_file(), reason="the Adult data is absent "
                                 "(set RLDP_ADULT_DATA)")


def rldp(*argv: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``rldp argv`` run in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), without_warnings(err.getvalue())


def refused(*argv: str) -> str:
    """The one stderr line of a command that must refuse with exit 2 (asserted)."""
    code, out, err = rldp(*argv)
    assert code == ExitCode.BAD_INPUT, (code, out, err)
    assert err.count("\n") == 1 and err.startswith("rldp: error: "), err
    assert "Traceback" not in err
    return err


def table(tmp_path: Path, text: str, name: str = "counts.csv") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


SMALL = "s,1,2,3\na,5,3,2\nb,1,4,6\n"


# --- 1. refuse early ---------------------------------------------------------------------------

@pytest.mark.parametrize("argv, words", [
    (["mechanism", "rr", "--k", "200000"], ["200,000 x 200,000", "--max-memory"]),
    (["mechanism", "ue", "--k", "40"], ["1,099,511,627,776", "memory"]),
    (["mechanism", "urap", "--k", "60"], ["memory"]),
])
def test_huge_mechanisms_are_refused_before_any_allocation(tmp_path: Path, argv: list[str],
                                                           words: list[str]) -> None:
    error = refused(*argv, "--eps", "1", "--out", str(tmp_path / "m.json"))
    for word in words:
        assert word in error
    assert not (tmp_path / "m.json").exists()


def test_ue_cr_in_product_form_is_refused_only_by_its_report_patterns(tmp_path: Path) -> None:
    """The product form never builds the (|U|+1)^|S| outputs (5x16: 17^5 = 1,419,857, refused
    before); its parameter search runs over 2^|S| report patterns, refused at |S| = 40."""
    small = resources.protocol_estimate("ue-cr", 5, 16)
    assert small.bytes < 0.5e9 and "1,419,857 outputs" in small.what
    counts = "s,0,1\n" + "".join(f"s{s},3,4\n" for s in range(40))
    error = refused("protocol", "ue-cr", "--counts", table(tmp_path, counts), "--eps", "1",
                    "--out", str(tmp_path / "q.json"))
    assert "40x2 in product form" in error and "--max-memory" in error


def test_polyopt_beyond_its_reach_is_refused_naming_gammas_dimension(tmp_path: Path) -> None:
    counts = "s," + ",".join(map(str, range(10))) + "\n" + "".join(
        f"s{s}," + ",".join("4" for _ in range(10)) + "\n" for s in range(5))
    error = refused("protocol", "polyopt", "--counts", table(tmp_path, counts), "--eps", "1",
                    "--out", str(tmp_path / "q.json"))
    assert "dimension 50" in error and "--time-limit" in error


def test_a_60x60_robust_program_is_refused_on_memory(tmp_path: Path) -> None:
    counts = "s," + ",".join(map(str, range(60))) + "\n" + "".join(
        f"s{s}," + ",".join("2" for _ in range(60)) + "\n" for s in range(60))
    error = refused("solve", "RURP", "--counts", table(tmp_path, counts), "--eps", "1",
                    "--out", str(tmp_path / "r.json"))
    assert "60x60" in error and "12,960,000 cone entries" in error


def test_max_memory_and_time_limit_are_the_limits_named(tmp_path: Path) -> None:
    counts = table(tmp_path, SMALL)
    out = str(tmp_path / "r.json")
    assert "limit of 1 B (--max-memory)" in refused("--max-memory", "1", "solve", "NUNP",
                                                   "--counts", counts, "--eps", "1",
                                                   "--out", out)
    assert "(--max-memory)" in refused("solve", "NUNP", "--counts", counts, "--eps", "1",
                                       "--out", out, "--max-memory", "1K")
    assert "(--time-limit)" in refused("protocol", "ue-cr", "--counts", counts, "--eps", "1",
                                       "--out", out, "--time-limit", "0.001")


def test_reproduce_with_an_absent_data_file_is_refused_before_any_experiment(
        tmp_path: Path) -> None:
    """Given explicitly, a missing --data is bad input (it ran every experiment without the
    data-bound ones, ~80 s, and exited 1)."""
    message = refused("reproduce", "all", "--quick", "--out", str(tmp_path / "r"),
                      "--data", str(tmp_path / "nope.data"))
    assert "--data" in message and "Adult data not found" in message
    assert not (tmp_path / "r").exists()


def test_time_limit_stops_a_running_command_in_one_line(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "rldp_models.cli", "--time-limit", "0.3",
                          "reproduce", "all", "--quick", "--out", str(tmp_path / "r"),
                          "--executor", "serial"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == ExitCode.INCONCLUSIVE, run.stderr
    assert run.stderr.count("\n") == 1 and "time limit" in run.stderr


@pytest.mark.parametrize("option", ["--out"])
def test_output_equal_to_the_counts_is_refused_and_the_counts_survive(tmp_path: Path,
                                                                      option: str) -> None:
    counts = table(tmp_path, SMALL)
    error = refused("solve", "NUNP", "--counts", counts, "--eps", "1", option, counts)
    assert "--counts" in error and "another name" in error
    assert Path(counts).read_text() == SMALL


def test_report_equal_to_the_result_being_verified_is_refused(tmp_path: Path) -> None:
    result = tmp_path / "r.json"
    result.write_text(json.dumps({"result_type": "mechanism"}))
    error = refused("verify", str(result), "--report", str(result))
    assert "the result to verify" in error
    assert json.loads(result.read_text()) == {"result_type": "mechanism"}


@pytest.mark.parametrize("where, words", [
    ("missing/dir/out.json", ["does not exist"]),
    ("/proc/rldp-out.json", ["cannot write"]),
    (".", ["is a directory"]),
])
def test_unusable_output_paths_are_refused_before_work(tmp_path: Path, where: str,
                                                       words: list[str]) -> None:
    path = where if where.startswith("/") else str(tmp_path / where)
    error = refused("solve", "NUNP", "--counts", table(tmp_path, SMALL), "--eps", "1",
                    "--out", path)
    for word in words:
        assert word in error


def test_verify_report_in_a_missing_directory_is_refused(tmp_path: Path) -> None:
    result = tmp_path / "r.json"
    result.write_text("{}")
    assert "does not exist" in refused("verify", str(result), "--report",
                                       str(tmp_path / "no" / "report.json"))


# --- 2. every number validated -----------------------------------------------------------------

@pytest.mark.parametrize("eps", ["710", "-0.1", "nan", "inf", "1e400"])
@pytest.mark.parametrize("command", [["solve", "NUNP"], ["protocol", "srr"],
                                     ["mechanism", "rr", "--k", "3"]])
def test_one_eps_range_for_every_subcommand(tmp_path: Path, eps: str,
                                            command: list[str]) -> None:
    data = [] if command[0] == "mechanism" else ["--counts", table(tmp_path, SMALL)]
    error = refused(*command, *data, "--eps", eps, "--out", str(tmp_path / "o.json"))
    assert "eps" in error


@pytest.mark.parametrize("alpha", ["0", "1", "-0.5", "nan", "2"])
@pytest.mark.parametrize("command", [["solve", "NURP"], ["protocol", "grr"]])
def test_one_alpha_range_for_every_subcommand(tmp_path: Path, alpha: str,
                                              command: list[str]) -> None:
    error = refused(*command, "--counts", table(tmp_path, SMALL), "--eps", "1",
                    "--alpha", alpha, "--out", str(tmp_path / "o.json"))
    assert "--alpha" in error


def test_a_table_with_one_secret_is_refused_with_a_reason(tmp_path: Path) -> None:
    error = refused("solve", "NUNP", "--counts", table(tmp_path, "s,1,2\nonly,3,4\n"),
                    "--eps", "1", "--out", str(tmp_path / "o.json"))
    assert "single secret value" in error and "at least two" in error


@needs_adult
def test_the_same_column_as_sensitive_and_public_is_refused(tmp_path: Path) -> None:
    error = refused("protocol", "srr", "--data", str(ADULT), "--sensitive", "sex",
                    "--public", "sex", "--eps", "1", "--out", str(tmp_path / "o.json"))
    assert "same column 'sex'" in error


@needs_adult
def test_non_numeric_labels_suggest_hamming(tmp_path: Path) -> None:
    error = refused("solve", "NUNP", "--data", str(ADULT), "--sensitive", "sex",
                    "--public", "race", "--eps", "1", "--out", str(tmp_path / "o.json"))
    assert "--distortion hamming" in error


@pytest.mark.parametrize("label", ["inf", "nan", "-inf", "1e300", "2e12"])
@pytest.mark.parametrize("distortion", ["squared", "absolute"])
def test_non_finite_or_huge_numeric_labels_are_refused(tmp_path: Path, label: str,
                                                       distortion: str) -> None:
    counts = table(tmp_path, f"s,1,{label}\na,3,4\nb,2,2\n")
    error = refused("solve", "NUNP", "--counts", counts, "--eps", "1", "--distortion",
                    distortion, "--out", str(tmp_path / "o.json"))
    assert "--distortion hamming" in error and distortion in error


@pytest.mark.parametrize("cell, words", [
    ("9007199254740993", ["2^53"]),
    ("1e19", ["2^53"]),
    ("10000000000000000000", ["2^53"]),
    ("2.5", ["integers"]),
    ("-1", ["nonnegative"]),
    ("nan", ["finite"]),
    ("0x10", ["not a number"]),
])
def test_counts_are_integers_and_exact_or_refused(tmp_path: Path, cell: str,
                                                  words: list[str]) -> None:
    error = refused("solve", "NUNP", "--counts", table(tmp_path, f"s,1,2\na,{cell},1\nb,1,1\n"),
                    "--eps", "1", "--out", str(tmp_path / "o.json"))
    for word in words:
        assert word in error
    assert "-9223372036854775808" not in error


def test_a_total_above_2_53_is_refused_even_when_every_cell_fits(tmp_path: Path) -> None:
    half = 2**52
    error = refused("solve", "NUNP", "--counts",
                    table(tmp_path, f"s,1,2\na,{half},{half}\nb,1,0\n"),
                    "--eps", "1", "--out", str(tmp_path / "o.json"))
    assert str(2 * half + 1) in error and "2^53" in error


# --- 3. never a traceback ----------------------------------------------------------------------

def test_an_unexpected_exception_is_one_line_and_exit_4(monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    from rldp_models.cli import common

    def broken(args):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(common, "load_crosstab", broken)
    monkeypatch.delenv("RLDP_DEBUG", raising=False)
    code, _, err = rldp("protocol", "srr", "--counts", table(tmp_path, SMALL), "--eps", "1",
                        "--out", str(tmp_path / "o.json"))
    assert code == ExitCode.INTERNAL_ERROR
    assert err.count("\n") == 1
    assert err.startswith("rldp: internal error: ZeroDivisionError: a bug (please report")
    assert "RLDP_DEBUG=1" in err


def test_rldp_debug_shows_the_traceback(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from rldp_models.cli import common

    monkeypatch.setattr(common, "load_crosstab", lambda args: 1 / 0)
    monkeypatch.setenv("RLDP_DEBUG", "1")
    code, _, err = rldp("protocol", "srr", "--counts", table(tmp_path, SMALL), "--eps", "1",
                        "--out", str(tmp_path / "o.json"))
    assert code == ExitCode.INTERNAL_ERROR and "Traceback" in err


def test_a_solver_library_failure_is_one_honest_line(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    from cvxpy.error import SolverError

    from rldp_models.cli import common

    def failing(args):
        raise SolverError("Solver 'CLARABEL' failed. Try another solver")

    monkeypatch.setattr(common, "load_crosstab", failing)
    code, _, err = rldp("protocol", "srr", "--counts", table(tmp_path, SMALL), "--eps", "1",
                        "--out", str(tmp_path / "o.json"))
    assert code == ExitCode.INCONCLUSIVE and err.count("\n") == 1
    assert "protocol: a numerical solver gave up" in err and "no result was certified" in err


# --- 4. a command line people like -------------------------------------------------------------

def test_version_comes_from_the_package_metadata() -> None:
    from importlib import metadata

    code, out, _ = rldp("--version")
    assert code == 0
    try:
        expected = metadata.version("rldp-models")
    except metadata.PackageNotFoundError:
        from rldp_models import __version__ as expected
    assert out == f"rldp {expected}\n"


def test_top_level_help_lists_every_subcommand_without_importing_them() -> None:
    code = (
        "import sys, contextlib, io\n"
        "from rldp_models.cli import main, SUBCOMMAND_MODULES\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    try: main(['--help'])\n"
        "    except SystemExit: pass\n"
        "print(sorted(m for m in SUBCOMMAND_MODULES if m in sys.modules))\n"
        "print(sorted(m for m in ('solvers', 'cvxpy', 'pandas', 'scipy') if m in sys.modules))\n"
        "print(out.getvalue())\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    lines = run.stdout.splitlines()
    assert lines[0] == "[]" and lines[1] == "[]", run.stdout
    for name in ("solve", "compare-solvers", "verify", "demo", "solvers", "mechanism",
                 "protocol", "reproduce"):
        assert f"    {name}" in run.stdout


def test_subcommand_help_is_plain_text() -> None:
    code, out, _ = rldp("protocol", "--help")
    assert code == 0
    assert "``" not in out and ":mod:" not in out and ":func:" not in out
    assert "--max-memory" in out and "--quiet" in out


def test_global_options_go_before_or_after_the_subcommand(tmp_path: Path) -> None:
    counts = table(tmp_path, SMALL)
    for argv in (["-q", "--max-memory", "1", "solve", "NUNP"],
                 ["solve", "NUNP", "-q", "--max-memory", "1"]):
        assert "(--max-memory)" in refused(*argv, "--counts", counts, "--eps", "1",
                                           "--out", str(tmp_path / "o.json"))


def test_quiet_silences_the_progress_bars(tmp_path: Path) -> None:
    from rldp_models import progress

    rldp("-q", "solvers")
    assert progress._quiet
    rldp("solvers")
    assert not progress._quiet


def test_highs_banner_never_reaches_stdout() -> None:
    code = ("from solvers.backends.highs import silence_highs_banner\n"
            "silence_highs_banner()\n"
            "import highspy; highspy.Highs()\n"
            "print('done')\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert run.stdout == "done\n" and "HiGHS" not in run.stderr


@pytest.mark.parametrize("command", ["solvers", "schema"])
def test_a_closed_pipe_is_not_an_error(command: str) -> None:
    for reader in ("head -c 1 > /dev/null", "head -1 > /dev/null", "true"):
        shell = f"{sys.executable} -m rldp_models.cli {command} | {reader}"
        run = subprocess.run(["bash", "-o", "pipefail", "-c", shell], capture_output=True,
                             text=True, timeout=120)
        assert run.returncode == 0 and run.stderr == "", (reader, run.stderr)


def test_every_subcommand_module_has_its_help_line() -> None:
    """``rldp --help`` stays lazy for every listed module (none imported to learn its name)."""
    import rldp_models.cli as cli

    assert set(cli.SUBCOMMAND_MODULES) == set(cli.SUBCOMMAND_HELP)


def test_the_demo_seed_in_help_is_the_demos() -> None:
    from rldp_models.cli.demo import DEMO_SEED
    from rldp_models.experiments.robust_opt import DEMO_SETTING

    assert DEMO_SEED == DEMO_SETTING["seed"]


def test_a_subcommand_added_by_one_line_works_unlisted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another module appended to SUBCOMMAND_MODULES works without a SUBCOMMAND_HELP entry."""
    import types

    import rldp_models.cli as cli

    module = types.ModuleType("rldp_fake_extra")

    def register(subparsers):
        parser = subparsers.add_parser("fake-extra", help="a subcommand from elsewhere")
        parser.set_defaults(func=lambda args: print("extra!") or 0)

    module.register = register
    monkeypatch.setitem(sys.modules, "rldp_fake_extra", module)
    monkeypatch.setattr(cli, "SUBCOMMAND_MODULES", cli.SUBCOMMAND_MODULES + ("rldp_fake_extra",))
    assert rldp("fake-extra") == (0, "extra!\n", "")
    assert rldp("-q", "fake-extra")[0] == 0
    code, out, _ = rldp("--help")
    assert code == 0 and "fake-extra" in out and "protocol" in out
