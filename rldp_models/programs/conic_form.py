"""Protocol programs written straight into the canonical conic form (no cvxpy compile).

:func:`conic_program` assembles ``min c.x, A x + s = b, s in K``
(:class:`solvers.conic.ConicProgram`) from the blocks' own direct rows: every
block that declares the ``DIRECT_CONIC`` capability
(:class:`~rldp_models.uncertainty.base.Capability`) writes itself into one
:class:`~rldp_models.programs.conic_builder.ConicBuilder`
(:meth:`~rldp_models.programs.contract.Block.build_conic`). A program is served
when all of its blocks do, a user's blocks included; the library's are in
:mod:`rldp_models.programs.conic_rows` (Theorem 2, eq. 21, and Theorem 4,
eq. 29, so the optimum equals the cvxpy model's). The result keeps ``A``,
``b``, ``c`` and the cones, named variable and row blocks, so a solver's
primal and dual can be read back by name.

Sweeps. The model is kept on the program; when the program's data change
(:meth:`ProtocolProgram.update`) but not the model's structure (shape, outputs,
distortion, eps, secrets without records), the next :func:`conic_program`
writes the new numbers into the kept matrices in place (the entries that
depend on ``Phat``, ``B + 1``, ``rho`` and the conditionals); for a
``parametric`` program the backend also keeps its solver (Clarabel's
equilibration and symbolic factorisation) and only updates its numbers.

Zeros. Entries that are data (``Phat``, the conditionals) are written even
when zero, so that a parametric program's model can be refilled in place for
new counts. A program that is not ``parametric`` is built afresh and its
explicit zeros are dropped: they are structural nonzeros of the KKT system
otherwise, and cost Clarabel 3-4x at NUNP 7x14 (0.58 s against 0.13 s for
the same 17 iterations; cvxpy's matrix has no such zeros).

Sparse ordering (why the linking rows are written "grouped"). A robust program is
block-angular: the Theorem-4 blocks of output ``y`` touch only column
``P[:, y]``; the columns are linked by the |X| rows ``sum_y P[x, y] = 1`` and
by ``v_x = sum_y P[x, y] d(u_x, y)``. Clarabel factors its KKT system in an
approximate-minimum-degree order (AMD; nodes with more than ~1.5 sqrt(size)
neighbours are "dense" and go last). Written plainly, the linking rows have
|Y| entries each, so AMD eliminates them first and merges every output's block
into one (fill-in: RURP 10x20 is 2x slower). Each output's block, once its own
variables are eliminated, is a dense front over ``P[:, y]``; the cheapest order
eliminates those fronts output by output and the linking rows last, with each
linking row entering a front only when its own ``P[x, y]`` is eliminated.

- ``linking="mixed"``: ``M (rows) = M (rhs)`` with ``M = I + 1 1^T``
  (invertible, so the feasible set is unchanged). Each row touches every linked
  variable, is dense and goes last, but it enters every front at once: each
  output's front carries all |X| linking rows from its first pivot
  (RURP 7x14: 677k nonzeros in the KKT factor against 952k written plainly).
- ``linking="grouped"`` (the default for robust programs of
  ``GROUPED_FROM_ENTRIES`` protocol entries or more): ``M = I + B``, ``B`` block
  diagonal with all-ones blocks of consecutive rows
  (:func:`~rldp_models.programs.conic_builder.mixing_block`), so that a row
  touches about twice as many variables as an output's front has pivots. Such a
  row is not dense, yet AMD still keeps it after the fronts, which it now enters
  block by block: the factor's flops halve (RURP 10x20: 0.21 against 0.41
  GFLOP by SuiteSparse AMD and a simplicial count) and, the fronts staying
  short, the simplicial qdldl beats faer's supernodal factorisation
  (:mod:`solvers.backends.clarabel_direct`): Clarabel 6.3 s against 9.0 s of
  CPU at RURP 10x20, same 45 iterations and optimum.

A distortion whose rows are constant but for one entry (Hamming) defines ``v``
by rows that touch one output each, written plainly
(:func:`~rldp_models.programs.conic_rows.robust_distortion_rows`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rldp_models.programs.components import RowStochastic
from rldp_models.programs.conic_builder import MULTIPLIER_NAMES, ConicBuilder, Refill
from rldp_models.programs.context import ProblemData
from rldp_models.programs.contract import Block, block_label
from rldp_models.uncertainty.base import Capability
from solvers.conic import ConicProgram
from solvers.registry import UnsupportedModelError

if TYPE_CHECKING:
    from rldp_models.programs.protocol_program import ProtocolProgram

LINKINGS = ("grouped", "mixed", "plain")
POWER_FORMS = ("soc", "power")
# Robust programs with at least this many protocol entries |X| |Y| get grouped linking rows
# (module docstring): Adult race x education (5 x 16 secrets x outputs: 80 x 16 = 1,280) is the
# smallest instance measured; smaller programs keep the mixed rows they were tested with.
GROUPED_FROM_ENTRIES = 1_280
__all__ = ["MULTIPLIER_NAMES", "conic_program", "forget_conic_program", "program_blocks"]
_ATTRIBUTE = "_conic_form"  # where the built model is kept on the program


@dataclass
class _Kept:
    """The model kept on a program, the structure it was built for, and its refill plan."""

    key: tuple
    conic: ConicProgram
    refill: Refill


def conic_program(program: "ProtocolProgram", linking: str | None = None,
                  power: str = "soc") -> ConicProgram:
    """``program`` in canonical conic form.

    Parameters
    ----------
    program : ProtocolProgram
        Every block must provide a direct conic form over the program's set
        (``DIRECT_CONIC`` in its capabilities); else use a cvxpy solver.
    linking : {"grouped", "mixed", "plain"}, optional
        How the rows linking the outputs are written (module docstring).
        Default when a constraint family is robust (its per-output blocks are
        what mixing keeps apart: NURP 7x14 4.9 s mixed against 25.8 s plain):
        ``"grouped"`` from ``GROUPED_FROM_ENTRIES`` protocol entries, else
        ``"mixed"``. Otherwise ``"plain"`` (nothing to keep apart, and mixed rows
        are dense: NUNP 7x14 0.22 s against 1.2 s, RUNP 5x10 0.09 s against 0.33 s).
    power : {"soc", "power"}
        ``q^3 <= h^2 c`` of Theorem 4 as two rotated second-order cones
        (``q^2 <= h b``, ``b^2 <= c q``, as the cvxpy model) or as one 3-d power
        cone. Same optimum; Clarabel needs fewer iterations with the cones
        (RURP 7x14: 34 against 54) and stalls with power cones at 10x20.

    Returns
    -------
    ConicProgram
        Named like the cvxpy model: ``"protocol"``, the robust blocks'
        multipliers ``"<group>.t"``, ``"<group>.c"``, and
        ``"worst_case_distortion"`` for a robust objective. The same object,
        refilled, when the program's structure is unchanged since the last call;
        for a program that is not ``parametric``, the same object when neither
        its structure nor its data changed (the certificate reads the form the
        solver solved without building it again: 1.4 s at Adult 16x15).
    """
    if linking is None:
        linking = _default_linking(program)
    _check_supported(program, linking, power)
    data = program.problem_data()
    key = _structure_key(program, data, linking, power)
    if not program.parametric:  # the model is for these numbers only (module docstring)
        key += (data.phat.tobytes(), data.b_plus_one)
    kept = program.__dict__.get(_ATTRIBUTE)
    if kept is not None and kept.key == key:
        if program.parametric:
            kept.refill.apply(kept.conic, data)
        return kept.conic
    conic, refill = _build(program, data, linking, power)
    if not program.parametric:  # nothing to refill: drop the data's zeros (module docstring)
        conic.A.eliminate_zeros()
    else:
        conic.keep_solver = True
    program.__dict__[_ATTRIBUTE] = _Kept(key, conic, refill)
    return conic


def _default_linking(program: "ProtocolProgram") -> str:
    """``linking`` by default (see :func:`conic_program`)."""
    if not any(family.robust for family in program.constraints):
        return "plain"
    entries = int(np.prod(program.crosstab.shape)) * len(program.output_labels)
    return "grouped" if entries >= GROUPED_FROM_ENTRIES else "mixed"


def forget_conic_program(program: "ProtocolProgram") -> None:
    """Drop the model kept on ``program`` (e.g. from a snapshot that must not share it)."""
    program.__dict__.pop(_ATTRIBUTE, None)


def program_blocks(program: "ProtocolProgram") -> list[Block]:
    """Row-stochasticity, the objective and the constraint families, under the contract."""
    return [RowStochastic(), program.objective, *program.constraints]


def _check_supported(program: "ProtocolProgram", linking: str, power: str) -> None:
    if linking not in LINKINGS or power not in POWER_FORMS:
        raise ValueError(f"linking must be one of {LINKINGS} and power one of {POWER_FORMS}, "
                         f"got {linking!r}, {power!r}")
    missing = [block_label(block) for block in program_blocks(program)
               if Capability.DIRECT_CONIC not in block.capabilities(program.uncertainty)]
    if missing:
        over = "" if program.uncertainty is None else f" over the {program.uncertainty.name} set"
        raise UnsupportedModelError(
            f"no direct conic form for {', '.join(missing)}{over}; "
            f"use a cvxpy solver (e.g. clarabel)")


def _structure_key(program: "ProtocolProgram", data: ProblemData, linking: str,
                   power: str) -> tuple:
    """Everything the model's sparsity and constants depend on (not the data it refills)."""
    return (program.crosstab.shape, data.zero_secrets, program.output_labels,
            program.distortion_matrix.tobytes(), program.objective,
            tuple(program.constraints), linking, power)


def _build(program: "ProtocolProgram", data: ProblemData, linking: str,
           power: str) -> tuple[ConicProgram, Refill]:
    builder = ConicBuilder(program, data, linking, power)
    protocol = builder.protocol
    builder.add("nonneg", "protocol>=0", np.arange(protocol.size), protocol.ravel(), -1.0, 0.0,
                protocol.size)
    for block in program_blocks(program):
        block.build_conic(builder)
    return builder.assemble()
