"""What every variant script shares: its arguments, reading the counts, writing the record.

Argument parsing and I/O only (not counted as a variant's user code): ``--counts FILE``
(a crosstab CSV, :meth:`rldp_models.data.Crosstab.from_csv`), ``--out FILE`` and any
extra file arguments; bad input is one line on stderr and exit 2, as ``rldp`` does.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.errors import InputError
from rldp_models.finish import GuaranteeError
from rldp_models.programs import ProtocolProgram, ProtocolSolution
from rldp_models.results.files import write_result
from rldp_models.results.program_result import solution_result


def arguments(description: str | None, *extra: str, out: bool = True) -> argparse.Namespace:
    """``--counts`` (read as a :class:`Crosstab`), ``--out`` unless ``out`` is False, and
    each of ``extra`` (file names, e.g. ``"--distortion"``)."""
    parser = argparse.ArgumentParser(description=description)
    for name in ("--counts", *(("--out",) if out else ()), *extra):
        parser.add_argument(name, required=True, metavar="FILE")
    args = parser.parse_args()
    args.counts = one_line_errors(Crosstab.from_csv, args.counts)
    return args


def matrix_csv(path: str) -> np.ndarray:
    """A matrix from a CSV file without a header (one row per line)."""
    try:
        return np.loadtxt(path, delimiter=",", ndmin=2)
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: not a numeric CSV matrix ({str(exc).splitlines()[0]})") \
            from None


def one_line_errors(call: Callable[..., Any], *args: Any, **options: Any) -> Any:
    """``call(*args, **options)``; bad input (:class:`InputError`) is one line on stderr and
    exit 2."""
    try:
        return call(*args, **options)
    except InputError as exc:
        sys.stderr.write(f"error: {exc}\n")
        raise SystemExit(2) from None


def record(program: ProtocolProgram, out: str,
           **options: Any) -> tuple[ProtocolSolution | None, str | None]:
    """Solve ``program`` and write its certified record at ``out``: the solution and None,
    or (when no record could be written) the solution if any and the reason in one line."""
    try:
        solution = program.solve(**options)
    except GuaranteeError as exc:
        return None, f"no protocol passed its exact check: {exc}"
    if solution.protocol is None:
        return solution, f"{solution.status.value}: {' '.join(solution.result.log.split())}"
    write_result(solution_result(solution), out)
    return solution, None


def solve_and_write(program: ProtocolProgram, out: str, **options: Any) -> None:
    """Solve ``program``, write its certified record at ``out`` and say so in one line;
    bad input or no record is one line on stderr and exit 2."""
    solution, problem = one_line_errors(record, program, out, **options)
    if solution is None or problem is not None:
        one_line_errors(_refuse, f"{program.name}: {problem}")
    assert solution is not None  # refused above
    print(f"{program.name}: objective {solution.objective:.10g}, record {out}")


def _refuse(message: str) -> None:
    raise InputError(message)


def variant_programs(*names: str) -> dict[str, Callable[..., ProtocolProgram]]:
    """The ``program`` function of each variant script ``docs/variants/<name>.py`` found
    beside this file, loaded by path; a missing one is named in one line and left out."""
    found = {}
    for name in names:
        path = Path(__file__).with_name(f"{name}.py")
        if not path.exists():
            print(f"{name}: skipped ({path.name} is not here)")
            continue
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None  # a .py file that exists
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        found[name] = module.program
    return found
