"""Targets of estimation: linear maps ``M`` of ``P_X``, with exact rational rows.

``U`` (the marginal of ``U``: ``M[u, (s, u')] = 1[u = u']``), ``S`` (the
marginal of ``S``), ``X`` (the joint: the identity) or a user's CSV: a header
row (a name column, then one column per input named ``s|u``, in any order:
the columns are matched to the result's inputs by name) and one row per target
coordinate, its name then ``|X|`` numbers, read exactly as decimals.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from rldp_models.errors import InputError

NAMED_TARGETS = ("U", "S", "X")


@dataclass(frozen=True)
class Target:
    """Names and exact rows of ``M`` (one row per estimated coordinate)."""

    names: list[str]
    rows: list[list[Fraction]]

    @property
    def matrix(self) -> np.ndarray:
        return np.array([[float(v) for v in row] for row in self.rows])

    def of(self, p: np.ndarray) -> np.ndarray:
        """``M p`` for distributions ``p`` over the inputs (last axis)."""
        return np.asarray(p) @ self.matrix.T


def target(spec: str, inputs: list[tuple[str, str]]) -> Target:
    """The target ``U``, ``S``, ``X`` or the CSV file ``spec``, over ``(s, u)`` ``inputs``."""
    if spec == "U":
        return _marginal(inputs, 1, "P_U")
    if spec == "S":
        return _marginal(inputs, 0, "P_S")
    if spec == "X":
        return Target([f"P_X({s}, {u})" for s, u in inputs],
                      [[Fraction(int(i == j)) for j in range(len(inputs))]
                       for i in range(len(inputs))])
    return _from_file(Path(spec), inputs)


def _marginal(inputs: list[tuple[str, str]], axis: int, prefix: str) -> Target:
    values = list(dict.fromkeys(x[axis] for x in inputs))
    return Target([f"{prefix}({v})" for v in values],
                  [[Fraction(int(x[axis] == v)) for x in inputs] for v in values])


def _from_file(path: Path, inputs: list[tuple[str, str]]) -> Target:
    if not path.is_file():
        raise InputError(f"--target {path}: not U, S, X or a readable CSV file")
    try:
        with open(path, newline="") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"--target {path}: cannot read ({exc})") from None
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if len(rows) < 2:
        raise InputError(f"--target {path}: needs a header row and at least one target row")
    order = _column_order(path, rows[0], inputs)
    width = len(inputs) + 1
    names, values = [], []
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != width:
            raise InputError(f"--target {path}: line {number} has {len(row)} fields, expected "
                             f"{width} (a name and one number per input)")
        try:
            cells = [Fraction(cell.strip()) for cell in row[1:]]
        except (ValueError, ZeroDivisionError):
            raise InputError(f"--target {path}: line {number} has a cell that is not a "
                             "number") from None
        if not all(_fits_a_float(v) for v in cells):
            raise InputError(f"--target {path}: line {number} has a number too large for the "
                             "estimators' floats")
        names.append(row[0])
        values.append([cells[k] for k in order])
    return Target(names, values)


def _fits_a_float(value: Fraction) -> bool:
    try:
        return bool(np.isfinite(float(value)))
    except OverflowError:
        return False


def input_name(x: tuple[str, str]) -> str:
    """The target-file column name of input ``x = (s, u)``: ``s|u``."""
    return f"{x[0]}|{x[1]}"


def _column_order(path: Path, header: list[str], inputs: list[tuple[str, str]]) -> list[int]:
    """For each input, in the result's order, the position of its column among the numbers.

    The header names the columns ``s|u`` (any order); a column that names no input, or an
    input without a column, is refused.
    """
    names = [cell.strip() for cell in header[1:]]
    expected = [input_name(x) for x in inputs]
    unknown = [name for name in names if name not in expected]
    if unknown or len(set(names)) != len(names) or len(names) != len(expected):
        missing = [name for name in expected if name not in names]
        detail = (f"unknown column {unknown[0]!r}" if unknown else
                  f"no column {missing[0]!r}" if missing else "a column named twice")
        raise InputError(f"--target {path}: the header must name one column per input s|u of "
                         f"the result ({len(expected)}: {', '.join(expected[:3])}, ...); "
                         f"{detail}")
    return [names.index(name) for name in expected]
