"""Which linear maps of ``P_X`` a release determines, decided exactly.

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

from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np

from rldp_models.errors import InputError
from rldp_models.disclosure.channel import ReleaseChannel
from rldp_models.disclosure.sampling import MAX_BITS, dyadic_numerators
from rldp_models.disclosure.targets import target as named_target
from rldp_models.results.certified import CertifiedResult
from rldp_models.rldp_protocols.factored_form import FactoredProtocol

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
    target CSV, :func:`rldp_models.disclosure.targets.target`) a release with ``result`` will
    determine, decided exactly as ``rldp estimate`` decides it afterwards."""
    channel = ReleaseChannel.from_result(result)
    goal = named_target(spec, channel.input_labels)
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
