"""The ``rldp`` command line.

Each subcommand lives in a module exposing ``register(subparsers)``, which adds
its sub-parsers (one per command; ``rldp verify`` and ``rldp schema``, the two
sides of the record contract, share one module) and sets ``func`` to a callable
taking the parsed arguments and returning the exit code. Only the chosen
subcommand's module is imported (``rldp --help`` lists the others from :data:`SUBCOMMAND_HELP`), so
help and bad-input errors come back at about the cost of a numpy import.

Every command runs through one :mod:`rldp_models.cli.preflight` step (sizes,
memory, output paths) before its work. Bad input anywhere (an
:class:`~rldp_models.errors.InputError` or a solver-registry error) becomes one
line on stderr and exit code 2; anything unexpected becomes one line and
:attr:`ExitCode.INTERNAL_ERROR` (``RLDP_DEBUG=1``
prints the traceback, and numpy's floating-point ``RuntimeWarning`` lines, which
are otherwise silenced).

Every command's exit status is one :class:`ExitCode`, the command-line contract.
Help is plain text (:class:`PlainTextHelpFormatter`): subcommand descriptions are
the modules' numpydoc docstrings, written for the API documentation, with their
reStructuredText markup stripped.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import signal
import sys
import textwrap
import threading
import warnings
from collections.abc import Iterator
from enum import IntEnum
from typing import Sequence

from rldp_models.errors import InputError


class ExitCode(IntEnum):
    """Exit status of an ``rldp`` command: one table for every command.

    =====  =================  ==========================================================
    code   name               meaning
    =====  =================  ==========================================================
    0      ``OK``             the command did its work; for ``verify``: every guarantee
                              and certificate holds
    1      ``FAILED``         a guarantee or certificate fails (each failure is named)
    2      ``BAD_INPUT``      bad input: one line on stderr saying what and how to fix it
    3      ``INCONCLUSIVE``   a check could not be completed (the output says which);
                              nothing was shown to fail
    4      ``INTERNAL_ERROR`` a bug in the toolkit, not the input: one line on stderr
                              (``RLDP_DEBUG=1`` shows the traceback)
    =====  =================  ==========================================================
    """

    OK = 0
    FAILED = 1
    BAD_INPUT = 2
    INCONCLUSIVE = 3
    INTERNAL_ERROR = 4


SUBCOMMAND_MODULES = (
    "rldp_models.cli.solve",
    "rldp_models.cli.compare_solvers",
    "rldp_models.cli.verify",
    "rldp_models.cli.demo",
    "rldp_models.cli.solvers_list",
    "rldp_models.cli.mechanism",
    "rldp_models.cli.protocol",
    "rldp_models.cli.reproduce",
    "rldp_models.cli.coverage",
    "rldp_models.cli.curve",
    "rldp_models.cli.release",
    "rldp_models.cli.estimate",
    "rldp_models.cli.compare",
)


SUBCOMMAND_HELP: dict[str, tuple[tuple[str, str], ...]] = {
    "rldp_models.cli.solve": (("solve", "solve a robust protocol program"),),
    "rldp_models.cli.compare_solvers": (("compare-solvers", "solve one model with every solver"),),
    "rldp_models.cli.verify": (("verify", "check a result's guarantee and certificate"),
                               ("schema", "print the JSON Schema of result records")),
    "rldp_models.cli.demo": (("demo", "run the four programs on a built-in instance"),),
    "rldp_models.cli.solvers_list": (("solvers", "list solvers and their availability"),),
    "rldp_models.cli.mechanism": (("mechanism", "write a closed-form or optimal mechanism"),),
    "rldp_models.cli.protocol": (("protocol", "build and check an (eps, F)-RLDP protocol"),),
    "rldp_models.cli.reproduce": (("reproduce", "reproduce a paper figure"),),
    "rldp_models.cli.coverage": (("coverage", "simulated coverage of the uncertainty sets"),),
    "rldp_models.cli.curve": (("curve", "privacy-utility curve of a table"),),
    "rldp_models.cli.release": (("release", "privatise records with a result, exactly"),),
    "rldp_models.cli.estimate": (("estimate", "estimate distributions from released records"),),
    "rldp_models.cli.compare": (("compare", "compare results on common measures"),),
}
"""The commands (name and one-line help) each module registers, so that ``rldp --help``
imports none.

:data:`SUBCOMMAND_MODULES` lists every subcommand module in the order ``rldp
--help`` shows them. A module listed there but missing here still works: it is
imported on every run to learn its name (one line here makes it lazy again).
Entries for modules not listed there are ignored. Today both list the same
modules (tested).
"""

_VALUE_OPTIONS = ("--max-memory", "--time-limit")


_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`~?([^`<]*?)(?:\s*<[^>]*>)?`")
_LITERAL = re.compile(r"``(.+?)``")
_EMPHASIS = re.compile(r"\*\*(.+?)\*\*|(?<![\w*])\*(?!\s)([^*]+?)\*(?!\w)")
_INTERPRETED = re.compile(r"`([^`]+?)`")


def plain_text(text: str) -> str:
    """``text`` with reStructuredText roles, literals and emphasis reduced to their words.

    ``:func:`~a.b.c``` becomes ``c`` (the tilde's short form), ``:mod:`a.b```
    becomes ``a.b``; double-backquoted literals lose their backquotes.
    """
    text = _ROLE.sub(lambda m: _short_name(m.group(0), m.group(1)), text)
    text = _LITERAL.sub(r"\1", text)
    text = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), text)
    return _INTERPRETED.sub(r"\1", text)


def _short_name(role: str, target: str) -> str:
    target = target.strip()
    return target.rsplit(".", 1)[-1] if "`~" in role else target


class PlainTextHelpFormatter(argparse.HelpFormatter):
    """A help formatter that strips reStructuredText and keeps paragraphs and lists."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = textwrap.dedent(plain_text(text)).strip().split("\n\n")
        return "\n\n".join(_fill_paragraph(p, width, indent) for p in paragraphs)

    def _split_lines(self, text: str, width: int) -> list[str]:
        return super()._split_lines(plain_text(text), width)


def _fill_paragraph(paragraph: str, width: int, indent: str) -> str:
    lines = paragraph.splitlines()
    if any(line.lstrip().startswith("===") for line in lines):
        return "\n".join(indent + line for line in lines)  # a table: keep its layout
    if lines and lines[0].lstrip().startswith(("* ", "- ")):
        return "\n".join(_fill_bullet(item, width, indent) for item in _bullets(lines))
    return textwrap.fill(" ".join(line.strip() for line in lines), width,
                         initial_indent=indent, subsequent_indent=indent)


def _bullets(lines: list[str]) -> list[str]:
    items: list[str] = []
    for line in lines:
        if line.lstrip().startswith(("* ", "- ")) or not items:
            items.append(line.strip()[2:])
        else:
            items[-1] += " " + line.strip()
    return items


def _fill_bullet(item: str, width: int, indent: str) -> str:
    return textwrap.fill(item, width, initial_indent=indent + "* ",
                         subsequent_indent=indent + "  ")


class _ArgumentParser(argparse.ArgumentParser):
    """An argument parser with plain-text help whose usage errors are one line and exit 2."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", PlainTextHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"rldp: error: {' '.join(message.split())} (see {self.prog} --help)\n")
        raise SystemExit(ExitCode.BAD_INPUT)


class _VersionAction(argparse.Action):
    """``--version``: the installed distribution's version, read only when asked."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        sys.stdout.write(f"rldp {package_version()}\n")
        raise SystemExit(ExitCode.OK)


def package_version() -> str:
    """The version of the installed ``rldp-models`` (the source tree's when not installed)."""
    from importlib import metadata

    try:
        return metadata.version("rldp-models")
    except metadata.PackageNotFoundError:
        from rldp_models import __version__

        return __version__


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``rldp`` parser; only the subcommand chosen in ``argv`` is fully registered.

    Without ``argv`` every subcommand is registered (documentation, tests).
    """
    from rldp_models.cli import preflight

    parser = _ArgumentParser(prog="rldp", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action=_VersionAction, help="print the version and exit")
    preflight.add_global_arguments(parser, suppress_defaults=False)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                       parser_class=_ArgumentParser)
    chosen = None if argv is None else _chosen_command(argv)
    for module_name in SUBCOMMAND_MODULES:
        commands = SUBCOMMAND_HELP.get(module_name)
        if commands is None or argv is None or chosen in dict(commands):
            before = set(subparsers.choices)
            importlib.import_module(module_name).register(subparsers)
            for added in set(subparsers.choices) - before:
                preflight.add_global_arguments(subparsers.choices[added],
                                               suppress_defaults=True)
        else:
            for name, help_line in commands:
                subparsers.add_parser(name, help=help_line, add_help=False)
    return parser


def _chosen_command(argv: Sequence[str]) -> str | None:
    """The first positional argument of ``argv`` (the subcommand), skipping global options."""
    tokens = iter(argv)
    for token in tokens:
        if token in _VALUE_OPTIONS:
            next(tokens, None)
        elif not token.startswith("-"):
            return token
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``rldp`` console script; returns the exit code.

    An interrupt (SIGINT, Ctrl-C) at any point after the imports, parsing included, is one
    line and exit code 130; every output is written through
    :func:`rldp_models.safe_io.atomic_output`, so it leaves no partial file behind, and
    none is renamed into place once an interrupt arrived, even if the
    ``KeyboardInterrupt`` was swallowed on its way (:func:`_interruptible`).
    """
    try:
        from rldp_models import safe_io

        safe_io.clear_interrupts()
        with _interruptible():
            code = _run(list(sys.argv[1:] if argv is None else argv))
        if not safe_io.interrupted():
            return code
    except KeyboardInterrupt:
        pass
    _forget_unhandled_interrupt()
    sys.stderr.write("rldp: interrupted\n")
    return 130


@contextlib.contextmanager
def _interruptible() -> Iterator[None]:
    """SIGINT noted (:func:`rldp_models.safe_io.note_interrupt`) before its
    ``KeyboardInterrupt`` is raised, while the block runs; the caller's handler is kept
    when it is not Python's default (and outside the main thread nothing changes)."""
    from rldp_models import safe_io

    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return

    def handler(signum: int, frame: object) -> None:
        safe_io.note_interrupt(signum)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _forget_unhandled_interrupt() -> None:
    """Clear CPython's mark of an unhandled interrupt after this one was handled.

    A ``KeyboardInterrupt`` raised while code given to ``exec``/``eval`` as a string runs
    (dataclasses, namedtuples and sympy make such code) marks the interpreter as
    interrupted even when :func:`main` catches it, and the interpreter then ends the
    process by SIGINT (exit -2) instead of exit 130 (``run_eval_code_obj`` in CPython's
    ``Python/pythonrun.c``). Every evaluation of a string clears the mark as it starts.
    """
    exec("")  # a constant empty string: its evaluation starting clears the mark


def _run(argv: list[str]) -> int:
    """:func:`main` after its interrupt handler."""
    args = build_parser(argv).parse_args(argv)
    if not os.environ.get("RLDP_DEBUG"):
        # floating-point overflow inside inner optimisers (e.g. scipy's line search at
        # eps = 700) is handled there; every result is checked exactly afterwards
        warnings.simplefilter("ignore", RuntimeWarning)
    try:
        from rldp_models.cli import preflight

        with preflight.prepared(args):
            code = int(args.func(args))
        _flush_stdout()
        return code
    except BrokenPipeError:  # stdout closed by the reader (``rldp solvers | head -1``)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return ExitCode.OK
    except Exception as exc:  # noqa: BLE001 - the one place that turns every failure into a line
        from rldp_models import safe_io

        if safe_io.interrupted():  # a failure the interrupt caused: a swallowed
            raise KeyboardInterrupt from exc  # KeyboardInterrupt left an import half done
        return _report(exc, args)


def _time_limit_line(exc: Exception) -> str | None:
    """What stopped at ``--time-limit``, when ``exc`` is the cooperative deadline
    (:class:`solvers.deadline.TimeLimitReached`); else None."""
    module = sys.modules.get("solvers.deadline")
    if module is None or not isinstance(exc, module.TimeLimitReached):
        return None
    return (f"stopped at the time limit of {exc.limit:g} s (--time-limit) during "
            f"{exc.phase}; nothing was written")


def _flush_stdout() -> None:
    """Flush standard output: a closed pipe shows here (as :class:`BrokenPipeError`), a full
    disk as one-line :class:`InputError` (``rldp schema > /dev/full`` must not exit 0)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise InputError(f"cannot write standard output ({exc.strerror or exc})") from None


def _report(exc: Exception, args: argparse.Namespace) -> int:
    """One line on stderr for ``exc`` raised by the command of ``args``; its exit code."""
    stopped = _time_limit_line(exc)
    if stopped is not None:
        sys.stderr.write(f"rldp: {args.command} {stopped}\n")
        return ExitCode.INCONCLUSIVE
    if isinstance(exc, InputError) or _is_solver_error(exc):
        sys.stderr.write(f"rldp: error: {one_line(exc)}\n")
        return ExitCode.BAD_INPUT
    if isinstance(exc, OSError):
        sys.stderr.write(f"rldp: error: {one_line(exc)}\n")
        return ExitCode.BAD_INPUT
    if _is_solver_failure(exc):
        hint = ("; try another --solver (rldp solvers lists them)"
                if args.command in ("solve", "compare-solvers") else "")
        sys.stderr.write(f"rldp: error: {args.command}: a numerical solver gave up "
                         f"({one_line(exc)}); no result was certified{hint}\n")
        return ExitCode.INCONCLUSIVE
    if os.environ.get("RLDP_DEBUG"):
        import traceback

        traceback.print_exception(exc)
    what = ("ran out of memory (the size check let this through)"
            if isinstance(exc, MemoryError) else f"{type(exc).__name__}: {one_line(exc)}")
    sys.stderr.write(f"rldp: internal error: {what} "
                     "(please report; RLDP_DEBUG=1 shows the traceback)\n")
    return ExitCode.INTERNAL_ERROR


def _is_solver_error(exc: Exception) -> bool:
    """Whether ``exc`` is a :class:`solvers.SolverError` (without importing :mod:`solvers`)."""
    module = sys.modules.get("solvers")
    return module is not None and isinstance(exc, module.SolverError)


def _is_solver_failure(exc: Exception) -> bool:
    """Whether ``exc`` is a solver library giving up (cvxpy's ``SolverError``), not a bug."""
    return type(exc).__name__ == "SolverError" and type(exc).__module__.startswith("cvxpy")


def one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line (its type name when it has none)."""
    return " ".join(str(exc).split()) or type(exc).__name__


if __name__ == "__main__":
    raise SystemExit(main())
