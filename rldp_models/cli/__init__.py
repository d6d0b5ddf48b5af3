"""The ``rldp`` command line.

Each subcommand lives in its own module exposing ``register(subparsers)``,
which adds a sub-parser and sets ``func`` to a callable taking the parsed
arguments and returning the exit code. Bad input anywhere (an
:class:`~rldp_models.errors.InputError` or a solver-registry error) becomes one
line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from rldp_models.errors import InputError

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
    "rldp_models.cli.schema",
)


class _ArgumentParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"rldp: error: {message}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    """The full ``rldp`` parser with every registered subcommand."""
    parser = _ArgumentParser(prog="rldp", description=__doc__.splitlines()[0])
    subparsers = parser.add_subparsers(dest="command", required=True,
                                       parser_class=_ArgumentParser)
    for module_name in SUBCOMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``rldp`` console script."""
    from solvers import SolverError

    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (InputError, SolverError) as exc:
        sys.stderr.write(f"rldp: error: {_one_line(exc)}\n")
        return 2


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


if __name__ == "__main__":
    raise SystemExit(main())
