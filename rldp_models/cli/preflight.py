"""The one step every ``rldp`` command passes before its work: refuse early, in one line.

:func:`prepared` is entered by :func:`rldp_models.cli.main` after parsing. It

1. applies the global options (``--quiet``, ``--max-memory``, ``--time-limit``);
2. checks every input (:data:`INPUT_OPTIONS`): a regular file (or ``-``) of at
   most ``--max-memory`` bytes, not a directory or a device
   (:func:`rldp_models.safe_io.check_input`); and every output path
   (``--out``, ``--report``, ``--plot``, a figure or proof written beside
   ``--out``) before any work: its directory must exist and be writable, and
   it must not name an input by path or by inode (a hard or symbolic link);
3. loads the crosstab (cached, so the command reuses it) and checks what the
   command needs of it (two secrets, numeric labels for squared or absolute
   distortion);
4. estimates the memory and time the sizes imply (:mod:`rldp_models.resources`)
   and refuses what would not fit; announces long work on stderr;
5. enforces ``--time-limit`` while the command runs, cooperatively: solvers get the
   seconds left and start no solve after it, long loops check it between steps
   (:mod:`solvers.deadline`); then one line and exit 3, nothing written.

Subcommand modules need not know: the dispatch on ``args.command`` is here.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from rldp_models import resources
from rldp_models.errors import InputError
from rldp_models.problem_kinds import PRESETS
from rldp_models.safe_io import STDIN, check_input, same_file, spooled_stdin

OUTPUT_OPTIONS = ("out", "report", "plot")
"""Arguments naming a file a command writes."""

INPUT_OPTIONS = ("counts", "data", "prior", "prior0", "prior1", "joint", "result", "results",
                 "released", "truth", "target", "plugins")
"""Arguments naming a file a command reads (a list for ``compare``'s results)."""

NAMED_TARGETS = ("U", "S", "X")
"""``estimate --target`` values that name a marginal, not a file."""

POSITIONAL_INPUTS = {("verify", "result"): "the result to verify",
                     ("release", "result"): "the result to release with",
                     ("compare", "results"): "the result",
                     ("estimate", "released"): "the released file"}
"""How a positional input is named in messages (an option is named by its flag)."""

DIRECTORY_OUTPUTS = ("demo", "reproduce")
"""Commands whose ``--out`` is a directory (created if missing)."""


def add_global_arguments(parser: argparse.ArgumentParser, suppress_defaults: bool) -> None:
    """``--quiet``, ``--max-memory`` and ``--time-limit`` on ``parser``.

    Added to the top-level parser with their defaults and to the chosen
    subcommand's with ``suppress_defaults`` (so they may be given before or
    after the subcommand without one overriding the other).
    """
    def default(value: object) -> object:
        return argparse.SUPPRESS if suppress_defaults else value

    taken = parser._option_string_actions
    group = parser.add_argument_group("resources and output")
    if "--quiet" not in taken:
        group.add_argument("-q", "--quiet", action="store_true", default=default(False),
                           help="no progress bars or time estimates on stderr")
    if "--max-memory" not in taken:
        group.add_argument("--max-memory", type=memory_size, metavar="SIZE",
                           default=default(None),
                           help="refuse work estimated to need more memory, e.g. 4G (default: "
                                f"{100 * resources.MEMORY_FRACTION:.0f}%% of this machine's "
                                "memory)")
    if "--time-limit" not in taken:
        group.add_argument("--time-limit", type=seconds, metavar="SECONDS",
                           default=default(None),
                           help="refuse work estimated to take longer; solvers get what is left "
                                "of it and the command stops there (exit 3) (default: refuse "
                                "only work estimated over "
                                f"{resources.format_seconds(resources.DEFAULT_TIME_CEILING)})")


def memory_size(text: str) -> int:
    """An argparse type: a memory size (``8G``, ``512M``, bytes)."""
    try:
        return resources.parse_size(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def seconds(text: str) -> float:
    """An argparse type: a positive finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"seconds must be positive and finite, got {text!r}")
    return value


@contextlib.contextmanager
def prepared(args: argparse.Namespace) -> Iterator[None]:
    """Check ``args`` before the command runs; enforce ``--time-limit`` while it does.

    Raises
    ------
    InputError
        One line: an unusable output path, an output naming an input, data the
        command cannot use, or work the limits refuse.
    """
    from rldp_models.progress import set_quiet

    set_quiet(getattr(args, "quiet", False))
    check_inputs(args)
    with _standard_input(args):
        check_outputs(args)
        yield from _checked_run(args)


def _checked_run(args: argparse.Namespace) -> Iterator[None]:
    """:func:`prepared` after the inputs: estimates, limits, then the command."""
    estimate = _CHECKS.get(args.command, lambda _: None)(args)
    anytime = _is_polyopt(args)
    time_limit = None if anytime else getattr(args, "time_limit", None)
    if estimate is not None:
        limit = getattr(args, "max_memory", None) or resources.default_memory_limit()
        resources.check(estimate, limit, math.inf if anytime else time_limit)
        _announce(estimate, args)
    if args.command != "solvers":
        from solvers.backends.highs import silence_highs_banner

        silence_highs_banner()
    with _time_limit(time_limit, args.command), \
            _elapsed_line(estimate, args):
        yield


@contextlib.contextmanager
def _standard_input(args: argparse.Namespace) -> Iterator[None]:
    """An input given as ``-`` read from standard input (within ``--max-memory``) into a
    temporary file whose path the command reads; one input at most."""
    given = [(option, what) for option in INPUT_OPTIONS for what, path in
             _named_inputs(args, option) if path == STDIN]
    if not given:
        yield
        return
    if len(given) > 1:
        raise InputError(f"only one input can be standard input (-): {given[0][1]} and "
                         f"{given[1][1]}")
    option, what = given[0]
    limit = getattr(args, "max_memory", None) or resources.default_memory_limit()
    suffix = ".json" if option in ("result", "results") else ".csv"
    with spooled_stdin(what, limit, f"{resources.format_bytes(limit)} (--max-memory)",
                       suffix) as path:
        value = getattr(args, option)
        setattr(args, option, [str(path) if v == STDIN else v for v in value]
                if isinstance(value, list) else str(path))
        yield


def _named_inputs(args: argparse.Namespace, option: str) -> list[tuple[str, str]]:
    value = getattr(args, option, None)
    name = POSITIONAL_INPUTS.get((args.command, option), f"--{option}")
    return [(f"{name} {path}", path) for path in (value if isinstance(value, list) else [value])
            if isinstance(path, str)]


def input_files(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Every input file of the command: ``(how it is named, path)``."""
    files = []
    for option in INPUT_OPTIONS:
        value = getattr(args, option, None)
        for path in value if isinstance(value, list) else [value]:
            if not isinstance(path, str) or (option == "target" and path in NAMED_TARGETS):
                continue
            name = POSITIONAL_INPUTS.get((args.command, option), f"--{option}")
            files.append((f"{name} {path}", path))
    return files


def check_inputs(args: argparse.Namespace) -> None:
    """Refuse an input that is a directory, a device or larger than ``--max-memory``."""
    limit = getattr(args, "max_memory", None) or resources.default_memory_limit()
    for what, path in input_files(args):
        check_input(path, what, limit, f"{resources.format_bytes(limit)} (--max-memory)")


def output_files(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Every file the command writes: ``(how it is named, path)``, figures and proofs beside
    ``--out`` included (a directory ``--out`` is not a file, and ``--out .`` has no name to
    put a figure beside: :func:`check_outputs` refuses it)."""
    files = [(f"--{option}", getattr(args, option)) for option in OUTPUT_OPTIONS
             if isinstance(getattr(args, option, None), str)
             and not (args.command in DIRECTORY_OUTPUTS and option == "out")]
    out = getattr(args, "out", None)
    beside = {"compare": ".png", "coverage": ".png", "estimate": ".png"}.get(args.command)
    if isinstance(out, str) and beside and Path(out).name and not getattr(args, "plot", None):
        files.append(("the figure beside --out", str(Path(out).with_suffix(beside))))
    proof = _polyopt_proof_path(args)
    if proof is not None:
        files.append(("PolyOpt's proof (written beside --out)", proof))
    return files


def check_outputs(args: argparse.Namespace) -> None:
    """Refuse an output path that cannot be written or that names an input file."""
    if args.command in DIRECTORY_OUTPUTS and isinstance(getattr(args, "out", None), str):
        _check_directory_output(args.out)
    inputs = input_files(args)
    for what, path in output_files(args):
        if what.startswith("--"):
            _check_file_output(path, what)
        for input_name, input_path in inputs:
            if same_file(path, input_path):
                raise InputError(f"{what} {path} is the input file given as {input_name}; "
                                 "writing it would destroy the input: choose another name")


def _check_file_output(path: str, option: str) -> None:
    target = Path(path)
    if target.is_dir():
        raise InputError(f"{option} {path} is a directory; give a file name")
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise InputError(f"{option} {path}: directory {directory} does not exist "
                         "(create it first)")
    if target.exists():
        try:
            with open(target, "a"):
                pass
        except OSError as exc:
            raise InputError(f"{option} {path} cannot be written ({exc.strerror})") from None
    else:
        _probe_directory(directory, f"{option} {path}")


def _check_directory_output(path: str) -> None:
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise InputError(f"--out {path} is a file; give a directory")
    existing = target
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise InputError(f"--out {path}: {existing} is not a directory")
    _probe_directory(existing, f"--out {path}")


def _probe_directory(directory: Path, what: str) -> None:
    """Create and remove a file in ``directory``: the only test that holds for every user."""
    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".rldp-probe-"):
            pass
    except OSError as exc:
        raise InputError(f"{what}: cannot write in {directory} ({exc.strerror})") from None


def _polyopt_proof_path(args: argparse.Namespace) -> str | None:
    if args.command == "protocol" and getattr(args, "name", None) == "polyopt" and args.out:
        return str(Path(args.out).with_suffix(".proof.npz"))
    return None


def _crosstab(args: argparse.Namespace):
    from rldp_models.cli.common import load_crosstab

    return load_crosstab(args)


def _solve(args: argparse.Namespace) -> resources.Estimate:
    crosstab = _crosstab(args)
    if args.distortion in ("squared", "absolute"):
        crosstab.numeric_u(args.distortion)
    n_s, n_u = crosstab.shape
    robust = any(PRESETS[args.problem])
    return resources.robust_program_estimate(args.problem, n_s, n_u, robust,
                                             direct=_direct_path(args),
                                             distortion=args.distortion)


def _direct_path(args: argparse.Namespace) -> bool:
    """Whether ``rldp solve`` will take the direct conic path: no ``--solver`` (the default
    backend: direct for every preset over the chi-square set, the sets whose blocks write
    direct rows) or a direct solver named."""
    solver = getattr(args, "solver", None)
    chi_square = getattr(args, "uncertainty", "chi2") == "chi2"
    return chi_square and solver in (None, "clarabel-direct", "scs-direct")


def _compare_solvers(args: argparse.Namespace) -> resources.Estimate:
    """The costliest solver of the comparison: the cvxpy path's estimate."""
    crosstab = _crosstab(args)
    if args.distortion in ("squared", "absolute"):
        crosstab.numeric_u(args.distortion)
    n_s, n_u = crosstab.shape
    return resources.robust_program_estimate(args.problem, n_s, n_u,
                                             any(PRESETS[args.problem]))


def _protocol(args: argparse.Namespace) -> resources.Estimate:
    n_s, n_u = _crosstab(args).shape
    estimate = resources.protocol_estimate(args.name, n_s, n_u)
    if args.name == "polyopt" and n_s * n_u > POLYOPT_MAX_CELLS:
        raise InputError(f"{estimate.what}: PolyOpt is not tried beyond {POLYOPT_MAX_CELLS} "
                         "cells (its pricing proofs at 5x5 already hold millions of boxes); "
                         "no --time-limit makes it useful: use a smaller table")
    if args.name == "polyopt":
        return resources.Estimate(estimate.what, estimate.bytes,
                                  polyopt_seconds(n_s * n_u, args.eps))
    return estimate


def polyopt_seconds(cells: int, eps: float) -> float:
    """CPU seconds of ``rldp protocol polyopt`` (:data:`POLYOPT_SECONDS`); ``inf``
    (unknown) beyond :data:`POLYOPT_ESTIMATED_CELLS`."""
    for (low, high), (a, b, c) in POLYOPT_SECONDS.items():
        if low <= cells <= high:
            return math.exp(a + b * cells + c * math.log(max(eps, 1e-3)))
    return math.inf


POLYOPT_SECONDS = {(1, 8): (-3.382, 0.1026, -0.1008), (9, 12): (-1.854, 0.2769, -0.3011)}
"""``log t = a + b cells + c log eps`` (CPU seconds) per range of cells, fitted by
``benchmarks/polyopt_estimate.py`` on Jeffreys draws (seed 0; 2x3, 2x4, 3x3, 2x6, 3x4 at
eps 0.5, 2, 8; ``benchmarks/polyopt_estimate.json``). Held out (seed 1): measured /
estimated in 0.86-1.80 up to 8 cells (Gamma enumerated, 0.04-0.13 s) and 0.53-1.51 at 9-12
(plus the pricing proof, 0.8-10 s; 35-50% faster than the previous fit's runs since the
proof no longer runs an unrecorded pricing search first); fitted 0.83-1.17 and 0.29-2.00."""


POLYOPT_MAX_CELLS = 36
"""Largest table (6x6) PolyOpt runs on, anytime."""


POLYOPT_ESTIMATED_CELLS = 12
"""PolyOpt's time is estimated up to this many cells (Gamma's rays listed by the block
lemma or double description, :data:`POLYOPT_SECONDS`). Beyond, column generation's time ranges over
orders of magnitude with eps and the table (4x4: 8-237 s over eps 0.5-8; 5x5: 642 s at
eps 8, over 900 s below; ``benchmarks/bench_polyopt.py``), so it is "unknown: may take
hours". Every run is anytime: it stops at :data:`POLYOPT_DEFAULT_LIMIT` unless
``--time-limit`` says otherwise, with the best protocol and its proven gap."""

POLYOPT_DEFAULT_LIMIT = 600.0
"""Seconds (wall clock) PolyOpt runs by default before it stops with its best protocol and
proven gap. Not a multiple of the estimate: on a shared machine the wall clock ran 3-4
times the CPU time, and a limit of 10x the 5 s estimate cut Adult race x sex (10 cells,
certified optimal when let run) at a 3% gap."""


def _is_polyopt(args: argparse.Namespace) -> bool:
    return args.command == "protocol" and getattr(args, "name", None) == "polyopt"


def polyopt_time_limit(args: argparse.Namespace) -> float:
    """``--time-limit``, else :data:`POLYOPT_DEFAULT_LIMIT` (anytime: the run stops there
    with the best protocol and its proven gap)."""
    given = getattr(args, "time_limit", None)
    return POLYOPT_DEFAULT_LIMIT if given is None else float(given)


def _verify(args: argparse.Namespace) -> resources.Estimate:
    try:
        size = os.path.getsize(args.result)
    except OSError as exc:
        raise InputError(f"{args.result}: cannot read ({exc.strerror})") from None
    if args.counts or args.data:
        _crosstab(args)
    return resources.verify_estimate(size)


def _mechanism(args: argparse.Namespace) -> resources.Estimate | None:
    size = _mechanism_inputs(args)
    if size is None:
        return None
    if args.name == "staircase":
        method = getattr(args, "method", None) or "auto"
        if method == "column-generation" or (method == "auto" and size > 20):
            return None  # the pricing oracle never lists the 2^k patterns
    return resources.mechanism_estimate(args.name, size)


def _mechanism_inputs(args: argparse.Namespace) -> int | None:
    """The input alphabet's size from ``--k``, ``--prior`` rows or ``--counts`` cells."""
    if getattr(args, "k", None) is not None:
        return args.k if args.k > 0 else None
    if getattr(args, "prior", None) is not None:
        from rldp_models.data import read_csv_rows

        return max(len(read_csv_rows(args.prior)) - 1, 0)
    if getattr(args, "counts", None) is not None:
        from rldp_models.data import Crosstab

        n_s, n_u = Crosstab.from_csv(args.counts).shape
        return n_s * n_u
    return None


def _reproduce(args: argparse.Namespace) -> None:
    """A ``--data`` given but absent is refused here; without ``--data``, experiments that need
    the default Adult file are skipped one by one (the others still run)."""
    data = getattr(args, "data", None)
    if data is not None and not Path(data).is_file():
        raise InputError(f"Adult data not found at {data} (--data names no file)")


_CHECKS = {"solve": _solve, "compare-solvers": _compare_solvers, "protocol": _protocol,
           "verify": _verify, "mechanism": _mechanism, "reproduce": _reproduce}


def _announce(estimate: resources.Estimate, args: argparse.Namespace) -> None:
    """One line on stderr when the work will be long (not with ``--quiet``)."""
    if getattr(args, "quiet", False):
        return
    if not math.isfinite(estimate.seconds):
        limit = getattr(args, "time_limit", None) or POLYOPT_DEFAULT_LIMIT
        sys.stderr.write(f"rldp: {estimate.what}: time unknown: may take hours; stopping "
                         f"after {resources.format_seconds(limit)} with the best protocol "
                         "found and its proven gap (--time-limit changes this), "
                         f"{resources.format_bytes(estimate.bytes)}\n")
        return
    if estimate.seconds >= resources.LONG_WORK_SECONDS:
        sys.stderr.write(f"rldp: {estimate.what}: estimated "
                         f"{resources.format_seconds(estimate.seconds)}, "
                         f"{resources.format_bytes(estimate.bytes)}\n")


OWN_PROGRESS = ("compare-solvers", "reproduce")
"""Commands that draw their own progress bars (and PolyOpt's column generation)."""


@contextlib.contextmanager
def _elapsed_line(estimate: resources.Estimate | None, args: argparse.Namespace
                  ) -> Iterator[None]:
    """A stage line on stderr with the time elapsed, while long work without a bar runs.

    Drawn only for a person (:func:`rldp_models.progress.shown`) and only when
    the estimate says the work is long.
    """
    from rldp_models.progress import progress, shown

    own = args.command in OWN_PROGRESS or getattr(args, "name", None) == "polyopt"
    if (estimate is None or own or estimate.seconds < resources.LONG_WORK_SECONDS
            or not shown()):
        yield
        return
    stop = threading.Event()
    line = progress(total=None, desc=f"rldp {args.command}: {estimate.what}",
                    bar_format="{desc}: {elapsed} (estimated "
                               f"{resources.format_seconds(estimate.seconds)})")

    def tick() -> None:
        while not stop.wait(0.5):
            line.refresh()

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        yield
    finally:
        stop.set()
        ticker.join()
        line.close()


@contextlib.contextmanager
def _time_limit(limit: float | None, command: str) -> Iterator[None]:
    """Run the command under a cooperative deadline ``limit`` seconds away.

    Nothing kills the process (a caller of :func:`rldp_models.cli.main` keeps its
    interpreter): solvers get the seconds left as their own time limit and refuse to start
    after it, long loops check it between steps (:mod:`solvers.deadline`); the
    :class:`~solvers.deadline.TimeLimitReached` this raises becomes one line and exit 3 in
    :func:`rldp_models.cli.main`, and no output is written (each is written whole or not).
    """
    from solvers import deadline

    with deadline.limited(limit):
        yield
