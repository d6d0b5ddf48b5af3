"""Targets of estimation, linear maps ``M`` of ``P_X`` with exact rational rows, and which of
them a release determines, decided exactly.

Targets
-------
``U`` (the marginal of ``U``: ``M[u, (s, u')] = 1[u = u']``), ``S`` (the
marginal of ``S``), ``X`` (the joint: the identity) or a user's CSV: a header
row (a name column, then one column per input named ``s|u``, in any order:
the columns are matched to the result's inputs by name) and one row per target
coordinate, its name then ``|X|`` numbers, read exactly as decimals.

Identifiability
---------------
The released law is ``P_Y = Q^T P_X``. A target ``M P_X`` is a function of
``P_Y`` iff every row of ``M`` lies in the row space of ``Q^T`` (the column
space of ``Q``), i.e. iff ``m . v = 0`` for every ``v`` in the kernel of
``Q^T``: otherwise ``P_X`` and ``P_X + t v`` release the same law and differ in
``m . P_X`` (``utility-optimized-ldp.txt`` Sec. 2.5; ``Q^T`` always has the
all-ones row in its row space, since every row of ``Q`` sums to one).

``Q``'s entries are dyadic rationals, so the kernel is computed exactly over
the integers (python-flint ``fmpz_mat.nullspace`` on the numerators over a
common denominator, which leaves the kernel unchanged). Product-form results
(IR, GRR-CR, UE-CR) use the exact products of their factors' numerators, not
the rounded dense rows.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import flint
import numpy as np

from rldp_models.disclosure.channel import ReleaseChannel
from rldp_models.disclosure.sampling import MAX_BITS, dyadic_numerators
from rldp_models.errors import InputError
from rldp_models.results.certified import CertifiedResult
from rldp_models.rldp_protocols.factored_form import FactoredProtocol

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


MAX_EXACT_ENTRIES = 2**22
"""Largest ``|X| * |Y|`` whose kernel is computed exactly."""

MAX_SHOWN = 6
"""Entries of a kernel direction a reason shows."""


@dataclass(frozen=True)
class Identifiability:
    """The verdict on every row of a target.

    Attributes
    ----------
    rank : int
        The rank of ``Q`` (exact).
    inputs : int
        ``|X|``.
    estimable : tuple of bool
        Per target row.
    reasons : tuple of str
        Per target row: ``""`` when estimable, else why not.
    """

    rank: int
    inputs: int
    estimable: tuple[bool, ...]
    reasons: tuple[str, ...]


def exact_channel(channel: ReleaseChannel) -> list[list[int]]:
    """Integer numerators of ``Q`` (``|X|`` rows, ``|Y|`` columns) over one common denominator."""
    if channel.protocol is None:
        assert channel.dense is not None
        numerators = np.diff(channel.dense.cumulative, axis=1, prepend=np.uint64(0))
        return numerators.tolist()
    protocol = channel.protocol
    if protocol.output_count * np.prod(protocol.shape) > MAX_EXACT_ENTRIES:
        raise InputError(f"{protocol.name} has {protocol.output_count} outputs: too many to "
                         "decide identifiability exactly")
    return product_numerators(protocol).tolist()


def _factor(matrix: np.ndarray) -> np.ndarray:
    """Numerators ``k`` of a factor's rows ``k / 2^52`` as Python integers."""
    shape = np.shape(matrix)
    numerators, bits = dyadic_numerators(np.asarray(matrix, dtype=float).reshape(-1, shape[-1]),
                                         "a factor")
    return (numerators.astype(object) * 2 ** (MAX_BITS - bits)).reshape(shape)


def product_numerators(protocol: FactoredProtocol) -> np.ndarray:
    """The exact product of the factors (as in ``FactoredProtocol.dense``, unrounded), as
    integers over ``2^(52 k)`` for products of ``k`` factors."""
    n_s, n_u = protocol.shape
    f = {name: _factor(value) for name, value in protocol.factors.items()}
    if protocol.name == "ir":
        return np.kron(f["secret"], f["public"])
    blocks = []
    for s in range(n_s):
        if protocol.name == "grr-cr":
            parts = [f["secret"][s, t] * (f["own"][t] if t == s else
                                          np.tile(f["other"][t], (n_u, 1)))
                     for t in range(n_s)]
            blocks.append(np.hstack(parts))
            continue
        block = np.ones((n_u, 1), dtype=object)
        for t in range(n_s):
            factor = f["own"][s] if t == s else np.tile(f["other"][t], (n_u, 1))
            block = (block[:, :, None] * factor[:, None, :]).reshape(n_u, -1)
        blocks.append(block)
    return np.vstack(blocks)


def kernel(numerators: list[list[int]]) -> list[list[int]]:
    """An integer basis of ``{v : Q^T v = 0}`` (``v`` over the inputs)."""
    rows, cols = len(numerators), len(numerators[0])
    transposed = flint.fmpz_mat(cols, rows, [numerators[x][y] for y in range(cols)
                                             for x in range(rows)])
    basis, nullity = transposed.nullspace()
    return [[int(basis[i, j]) for i in range(rows)] for j in range(nullity)]


def identifiability(channel: ReleaseChannel, target: list[list[Fraction]],
                    names: list[str]) -> Identifiability:
    """Decide, row by row, whether ``M P_X`` is determined by the released law (exactly)."""
    numerators = exact_channel(channel)
    basis = kernel(numerators)
    inputs = len(numerators)
    estimable, reasons = [], []
    for row, name in zip(target, names):
        witness = next((v for v in basis if sum(m * x for m, x in zip(row, v)) != 0), None)
        estimable.append(witness is None)
        reasons.append("" if witness is None else _reason(name, witness, channel, inputs,
                                                          len(basis)))
    return Identifiability(inputs - len(basis), inputs, tuple(estimable), tuple(reasons))


def _reason(name: str, witness: list[int], channel: ReleaseChannel, inputs: int,
            nullity: int) -> str:
    """One line: the rank, and a direction of ``P_X`` that moves ``name`` but not ``P_Y``."""
    scale = max(abs(w) for w in witness)
    moved = [f"({s}, {u}): {w / scale:+.3g}" for (s, u), w in zip(channel.input_labels, witness)
             if w != 0]
    shown = ", ".join(moved[:MAX_SHOWN]) + (", ..." if len(moved) > MAX_SHOWN else "")
    return (f"{name} is not estimable: the channel has rank {inputs - nullity} for {inputs} "
            f"inputs, and P_X + t v with v = [{shown}] releases the same law of Y but moves "
            f"{name}")


def target_identifiability(result: CertifiedResult, spec: str) -> Identifiability:
    """At design time: which coordinates of the target ``spec`` (``U``, ``S``, ``X`` or a
    target CSV, :func:`target`) a release with ``result`` will
    determine, decided exactly as ``rldp estimate`` decides it afterwards."""
    channel = ReleaseChannel.from_result(result)
    goal = target(spec, channel.input_labels)
    return identifiability(channel, goal.rows, goal.names)


def design_warning(verdict: Identifiability, spec: str) -> str | None:
    """One line for ``rldp protocol --target``: None when every coordinate is estimable."""
    missing = [reason for reason in verdict.reasons if reason]
    if not missing:
        return None
    count = len(verdict.estimable)
    what = "nothing" if len(missing) == count else f"{len(missing)} of {count} coordinates"
    return (f"target {spec}: {what} will be estimable from the release (channel rank "
            f"{verdict.rank} of {verdict.inputs} inputs); {missing[0]}")
