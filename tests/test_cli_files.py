"""Issue 35, items 2 and 3: no command loses a file, and inputs are what they claim.

Every command with an output refuses an output that names one of its inputs (by
path, by a hard link, by a symbolic link), leaving the input byte for byte; a
full disk is a non-zero exit with one line and no file left behind; a device or
a directory as an input is refused in one line before any reading; SIGINT is
exit 130 with one line and no partial output.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rldp_models.cli import main
from rldp_models.cli import ExitCode
from rldp_models.errors import InputError
from rldp_models.safe_io import atomic_output, check_input, same_file
from shared_data import without_warnings

ROOT = Path(__file__).resolve().parents[1]


def rldp(*argv: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``rldp argv`` run in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["-q", *argv])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), without_warnings(err.getvalue())


def leftovers(folder: Path) -> list[str]:
    """Temporary files of :func:`atomic_output` left in ``folder``."""
    return [name for name in os.listdir(folder) if name.endswith(".part")]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Records (s, u), their crosstab, two results designed on them, a released file."""
    folder = tmp_path_factory.mktemp("files")
    rows = [("x", "a")] * 10 + [("x", "b")] * 20 + [("x", "c")] * 5 + \
        [("y", "a")] * 3 + [("y", "b")] * 8 + [("y", "c")] * 30
    data = folder / "records.csv"
    data.write_text("s,u\n" + "".join(f"{s},{u}\n" for s, u in rows))
    counts = folder / "counts.csv"
    counts.write_text("s,a,b,c\nx,10,20,5\ny,3,8,30\n")
    paths = {"data": data, "counts": counts, "a": folder / "a.json", "b": folder / "b.json",
             "released": folder / "released.csv"}
    for name, protocol in (("a", "srr"), ("b", "ir")):
        code, _, err = rldp("protocol", protocol, "--data", str(data), "--sensitive", "s",
                            "--public", "u", "--eps", "1", "--out", str(paths[name]))
        assert code == ExitCode.OK, err
    code, _, err = rldp("release", str(paths["a"]), "--data", str(data), "--sensitive", "s",
                        "--public", "u", "--seed", "1", "--out", str(paths["released"]))
    assert code == ExitCode.OK, err
    return paths


DATA = ("--data", "{data}", "--sensitive", "s", "--public", "u")
COMMANDS = {
    "solve": (["solve", "NUNP", "--counts", "{counts}", "--eps", "1", "--out"], ["counts"]),
    "compare-solvers": (["compare-solvers", "NUNP", "--counts", "{counts}", "--eps", "1",
                         "--out"], ["counts"]),
    "protocol": (["protocol", "srr", *DATA, "--eps", "1", "--out"], ["data"]),
    "coverage": (["coverage", "--counts", "{counts}", "--out"], ["counts"]),
    "release": (["release", "{a}", *DATA, "--out"], ["a", "data"]),
    "estimate": (["estimate", "{released}", "--result", "{a}", "--out"], ["released", "a"]),
    "estimate --plot": (["estimate", "{released}", "--result", "{a}", "--out", "{tmp}/e.csv",
                         "--plot"], ["released", "a"]),
    "compare": (["compare", "{a}", "{b}", *DATA, "--out"], ["a", "b", "data"]),
    "verify --report": (["verify", "{a}", "--report"], ["a"]),
}
"""Each command with an output: its arguments up to the output path, and its inputs."""


def command(name: str, files: dict[str, Path], tmp: Path) -> list[str]:
    words, _ = COMMANDS[name]
    names = {key: str(path) for key, path in files.items()}
    return [word.format(**names, tmp=tmp) for word in words]


CLOBBERS = [(name, victim, how) for name, (_, victims) in COMMANDS.items()
            for victim in victims for how in ("path", "hard link", "symbolic link")]


@pytest.mark.parametrize(("name", "victim", "how"), CLOBBERS)
def test_an_output_naming_an_input_is_refused(files: dict[str, Path], tmp_path: Path,
                                              name: str, victim: str, how: str) -> None:
    original = files[victim]
    before = original.read_bytes()
    target = tmp_path / f"link{original.suffix}"
    if how == "hard link":
        os.link(original, target)
    elif how == "symbolic link":
        target.symlink_to(original)
    else:
        target = original
    code, _, err = rldp(*command(name, files, tmp_path), str(target))
    assert code == ExitCode.BAD_INPUT, err
    assert len(err.splitlines()) == 1 and "destroy the input" in err, err
    assert original.read_bytes() == before
    assert target.read_bytes() == before


def test_the_figure_beside_out_naming_an_input_is_refused(files: dict[str, Path],
                                                          tmp_path: Path) -> None:
    figure = tmp_path / "table.png"
    figure.write_bytes(b"not a figure")
    code, _, err = rldp("compare", str(files["a"]), str(files["b"]), "--counts", str(figure),
                        "--out", str(tmp_path / "table.csv"))
    assert code == ExitCode.BAD_INPUT
    assert "the figure beside --out" in err and len(err.splitlines()) == 1
    assert figure.read_bytes() == b"not a figure"


FULL_DISK = ["protocol", "release", "estimate", "estimate --plot", "compare",
             "verify --report"]


@pytest.mark.parametrize("name", FULL_DISK)
def test_a_full_device_is_a_failure_in_one_line(files: dict[str, Path], tmp_path: Path,
                                                name: str) -> None:
    code, _, err = rldp(*command(name, files, tmp_path), "/dev/full")
    assert code in (ExitCode.FAILED, ExitCode.BAD_INPUT), err
    assert len(err.splitlines()) == 1 and "/dev/full" in err, err
    assert leftovers(tmp_path) == []


def run_cli(*argv: str, file_limit: int | None = None, **popen) -> subprocess.Popen:
    """``python -m rldp_models.cli argv`` from the source tree, SIGINT at its default."""
    def child() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if file_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    options = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **popen}
    return subprocess.Popen([sys.executable, "-m", "rldp_models.cli", "-q", *argv],
                            text=True, env=env, preexec_fn=child, **options)


def test_a_disk_full_midway_leaves_no_file(files: dict[str, Path], tmp_path: Path) -> None:
    """A file-size limit (EFBIG) stands in for a full disk: the write fails after its start."""
    out = tmp_path / "released.csv"
    process = run_cli("release", str(files["a"]), "--data", str(files["data"]),
                      "--sensitive", "s", "--public", "u", "--out", str(out), file_limit=200)
    _, err = process.communicate(timeout=300)
    assert process.returncode == ExitCode.BAD_INPUT, err
    assert len(err.splitlines()) == 1 and "cannot write" in err, err
    assert not out.exists() and leftovers(tmp_path) == []


def test_schema_to_a_full_device_is_not_success() -> None:
    with open("/dev/full", "w") as full:
        process = run_cli("schema", stdout=full)
        _, err = process.communicate(timeout=120)
    assert process.returncode == ExitCode.BAD_INPUT
    assert len(err.splitlines()) == 1 and "Traceback" not in err


INPUTS = {
    "verify": ["verify", "{input}"],
    "release": ["release", "{input}", *DATA, "--out", "{tmp}/r.csv"],
    "compare": ["compare", "{a}", "{input}", *DATA],
    "protocol --counts": ["protocol", "srr", "--counts", "{input}", "--eps", "1", "--out",
                          "{tmp}/p.json"],
    "solve --data": ["solve", "NUNP", "--data", "{input}", "--sensitive", "s", "--public", "u",
                     "--eps", "1", "--out", "{tmp}/s.json"],
    "estimate": ["estimate", "{input}", "--result", "{a}", "--out", "{tmp}/e.csv"],
    "estimate --result": ["estimate", "{released}", "--result", "{input}", "--out",
                          "{tmp}/e.csv"],
    "estimate --target": ["estimate", "{released}", "--result", "{a}", "--target", "{input}",
                          "--out", "{tmp}/e.csv"],
    "verify --plugins": ["verify", "{a}", "--plugins", "{input}"],
    "verify --counts": ["verify", "{a}", "--counts", "{input}"],
    "mechanism --prior": ["mechanism", "rr", "--prior", "{input}", "--eps", "1", "--out",
                          "{tmp}/m.json"],
}


def test_every_file_option_is_checked_as_an_input_or_an_output() -> None:
    """Each option or positional whose metavar names a file or folder is one the preflight
    checks (an input: a regular file within --max-memory; an output: not an input)."""
    import argparse

    from rldp_models.cli import build_parser
    from rldp_models.cli.preflight import INPUT_OPTIONS, OUTPUT_OPTIONS

    commands = next(action for action in build_parser()._actions
                    if isinstance(action, argparse._SubParsersAction)).choices
    named = [(command, action.dest) for command, parser in commands.items()
             for action in parser._actions
             if any(word in str(action.metavar) for word in
                    ("FILE", "PATH", "DIR", ".json", ".csv", ".py", ".png"))]
    assert len(named) > 40  # every command's data, results and outputs were found
    assert [(command, dest) for command, dest in named
            if dest not in INPUT_OPTIONS + OUTPUT_OPTIONS] == []


@pytest.mark.parametrize("name", INPUTS)
@pytest.mark.parametrize("bad", ["/dev/zero", "directory"])
def test_a_device_or_directory_input_is_refused(files: dict[str, Path], tmp_path: Path,
                                                name: str, bad: str) -> None:
    path = str(tmp_path) if bad == "directory" else bad
    names = {key: str(value) for key, value in files.items()}
    argv = [word.format(**names, input=path, tmp=tmp_path) for word in INPUTS[name]]
    code, _, err = rldp(*argv)
    assert code == ExitCode.BAD_INPUT, err
    assert len(err.splitlines()) == 1, err
    assert ("directory" if bad == "directory" else "not a regular file") in err


def test_an_input_larger_than_max_memory_is_refused(files: dict[str, Path]) -> None:
    size = files["a"].stat().st_size
    code, _, err = rldp("--max-memory", str(size - 1), "verify", str(files["a"]))
    assert code == ExitCode.BAD_INPUT
    assert f"{size} bytes, more than the limit" in err and len(err.splitlines()) == 1


def test_sigint_during_a_release_is_130_with_nothing_left(files: dict[str, Path],
                                                          tmp_path: Path) -> None:
    data = tmp_path / "many.csv"
    with open(data, "w") as handle:
        handle.write("s,u\n")
        handle.writelines("x,a\ny,b\nx,c\ny,c\n" for _ in range(250_000))
    out = tmp_path / "released.csv"
    process = run_cli("release", str(files["a"]), "--data", str(data), "--sensitive", "s",
                      "--public", "u", "--out", str(out))
    deadline = time.monotonic() + 120
    while not leftovers(tmp_path) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # until it writes: the interrupt lands in the middle of the work
    assert process.poll() is None, "the release ended before it could be interrupted"
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert err.splitlines() == ["rldp: interrupted"]
    assert not out.exists() and leftovers(tmp_path) == []


# the shared helper itself

def test_atomic_output_keeps_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with atomic_output(target) as handle:
            handle.write("new, half")
            raise KeyboardInterrupt
    assert target.read_text() == "old" and leftovers(tmp_path) == []


def test_atomic_output_writes_through_a_link_with_a_new_files_mode(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with atomic_output(link) as handle:
        handle.write("new")
    assert link.is_symlink() and real.read_text() == "new"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(real.stat().st_mode) == 0o666 & ~umask


def test_a_write_error_is_one_input_error_naming_the_path() -> None:
    with pytest.raises(InputError, match="cannot write /dev/full"):
        with atomic_output("/dev/full") as handle:
            handle.write("x" * 100_000)


def test_check_input_and_same_file(tmp_path: Path) -> None:
    check_input("-", "standard input")
    (tmp_path / "f").write_text("12345")
    with pytest.raises(InputError, match="more than the limit of 4"):
        check_input(tmp_path / "f", "f", 4)
    os.link(tmp_path / "f", tmp_path / "g")
    assert same_file(tmp_path / "f", tmp_path / "g")
    assert same_file(tmp_path / "new", tmp_path / "." / "new")
    assert not same_file(tmp_path / "f", tmp_path / "new")


def test_a_pricing_proof_that_is_a_fifo_or_device_is_refused_unread(tmp_path: Path) -> None:
    # a record names its proof file: a FIFO would block np.load for ever, /dev/zero is no npz
    from rldp_models.results.files import load_pricing_proof

    fifo = tmp_path / "proof.npz"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero"), tmp_path):
        with pytest.raises(InputError, match="not a regular file|is a directory"):
            load_pricing_proof(path)


def test_a_table_interrupted_while_written_keeps_the_old_file(tmp_path: Path,
                                                              monkeypatch) -> None:
    # Crosstab.to_csv (rldp demo's counts.csv) went straight to the target: an interrupt
    # between rows left it cut short
    import csv as csv_module

    from rldp_models.data import Crosstab

    target = tmp_path / "counts.csv"
    target.write_text("old")
    rows, original = [], csv_module.writer

    class Interrupted:
        def __init__(self, handle, **kwargs) -> None:
            self.inner = original(handle, **kwargs)

        def writerow(self, row) -> None:
            rows.append(row)
            if len(rows) == 2:
                raise KeyboardInterrupt
            self.inner.writerow(row)

    monkeypatch.setattr(csv_module, "writer", Interrupted)
    with pytest.raises(KeyboardInterrupt):
        Crosstab.from_array([[1, 2], [3, 4]]).to_csv(target)
    assert target.read_text() == "old" and leftovers(tmp_path) == []


@pytest.mark.parametrize("writer", ["plot_curve", "scatter", "experiment outputs"])
def test_a_figure_that_fails_midway_leaves_no_file(tmp_path: Path, writer: str,
                                                    monkeypatch) -> None:
    # savefig writing straight to the target left half a PNG when the disk filled up
    import matplotlib.figure

    def full(self, fname, **kwargs) -> None:
        fname.write(b"\x89PNG half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", full)
    target = tmp_path / "figure.png"
    with pytest.raises(InputError, match="cannot write"):
        if writer == "plot_curve":
            import pandas as pd

            from rldp_models.experiments.curve import Curve, plot_curve

            frame = pd.DataFrame({"family": ["protocol"], "method": ["ir"], "eps": [1.0],
                                  "value": [0.1], "measure": ["I"]})
            plot_curve(Curve(frame, pd.DataFrame()), str(target))
        elif writer == "scatter":
            from rldp_models.safe_io import atomic_output
            from rldp_models.experiments.robust_opt import scatter_eps_distortion

            with atomic_output(target, "wb") as handle:
                scatter_eps_distortion([("NUNP", 0.1, 0.5)], 1.0, handle)
        else:
            from types import SimpleNamespace

            import pandas as pd

            from rldp_models.experiments.runner import save_figure

            result = SimpleNamespace(experiment=SimpleNamespace(
                id="x", plot=lambda table: matplotlib.figure.Figure()), table=pd.DataFrame())
            save_figure(result, target, tmp_path / "figure.svg")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["coverage", "estimate", "compare"])
def test_a_figure_that_fails_leaves_no_table_either(files: dict[str, Path], tmp_path: Path,
                                                     name: str, monkeypatch) -> None:
    # the table was renamed into place before the figure was drawn: a full disk at the PNG
    # left a complete CSV behind a failed command
    import matplotlib.figure

    def full(self, fname, **kwargs) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", full)
    out = tmp_path / "table.csv"
    code, _, err = rldp(*command(name, files, tmp_path), str(out))
    assert code != ExitCode.OK and len(err.splitlines()) == 1, err
    assert sorted(os.listdir(tmp_path)) == [], os.listdir(tmp_path)
