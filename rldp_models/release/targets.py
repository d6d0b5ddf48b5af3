"""Targets of estimation: linear maps ``M`` of ``P_X``, with exact rational rows.

``U`` (the marginal of ``U``: ``M[u, (s, u')] = 1[u = u']``), ``S`` (the
marginal of ``S``), ``X`` (the joint: the identity) or a user's CSV: a header
row (a name column, then one column per input ``s|u`` in the result's input
order) and one row per target coordinate, its name then ``|X|`` numbers, read
exactly as decimals.
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
    if len(rows) < 2:
        raise InputError(f"--target {path}: needs a header row and at least one target row")
    width = len(inputs) + 1
    names, values = [], []
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != width:
            raise InputError(f"--target {path}: line {number} has {len(row)} fields, expected "
                             f"{width} (a name and one number per input)")
        try:
            values.append([Fraction(cell.strip()) for cell in row[1:]])
        except (ValueError, ZeroDivisionError):
            raise InputError(f"--target {path}: line {number} has a cell that is not a "
                             "number") from None
        names.append(row[0])
    return Target(names, values)
