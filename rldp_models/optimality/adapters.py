""":func:`~rldp_models.optimality.weak_duality.proven_lower_bound` for the two compiled forms:
a direct :class:`solvers.conic.ConicProgram` and cvxpy's Clarabel problem data.

A direct backend reports its dual per named row group for the rows as declared
(:meth:`ConicProgram.named_dual`: mixed groups multiplied by ``M``, folded groups added
to the group they fold into); :func:`declared_rows_dual` undoes both, giving the dual
``z`` of the rows of ``A`` as the solver saw them (any ``z`` gives a valid bound, so
the floating point inversion affects only how tight it is).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from rldp_models.optimality.cones import DualCones
from rldp_models.optimality.weak_duality import LowerBound, proven_lower_bound
from solvers.conic import ConicProgram, block_sums


def declared_rows_dual(program: ConicProgram, named: Mapping[str, np.ndarray]) -> np.ndarray:
    """The dual ``z`` of ``program``'s rows from its named duals (inverse of ``named_dual``).

    ``M = I + B`` with all-ones blocks of size ``k`` has the inverse
    ``I - B / (1 + k)`` block by block (Sherman-Morrison).
    """
    duals = {name: np.array(named[name], dtype=float) for name in program.row_blocks}
    for name, into, weights in reversed(program.folded_groups):
        duals[into] = duals[into] - weights * duals[name]
    for name, block in program.mixed_groups:
        sizes = _block_sizes(duals[name].size, block)
        duals[name] = duals[name] - block_sums(duals[name], block) / (1.0 + sizes)
    z = np.full(program.b.size, np.nan)
    for name, rows in program.row_blocks.items():
        z[rows] = duals[name]
    if np.isnan(z).any():
        raise ValueError(f"rows {np.flatnonzero(np.isnan(z))[:5]} belong to no named row group")
    return z


def _block_sizes(size: int, block: int) -> np.ndarray:
    """The size of the block each entry lies in (the last block may be shorter)."""
    starts = np.arange(0, size, block)
    return np.repeat(np.diff(np.append(starts, size)), np.diff(np.append(starts, size)))


def conic_lower_bound(program: ConicProgram, z: np.ndarray,
                      boxes: Mapping[str, tuple[float, float]] | None = None,
                      simplices: tuple[str, ...] = (),
                      exact: Mapping[float, Fraction] | None = None) -> LowerBound:
    """A proven lower bound on ``min c.x + offset`` of ``program`` (its minimisation form:
    for a maximised program, ``sign = -1``, minus an upper bound on the maximum).

    Parameters
    ----------
    program
        The direct conic form (:mod:`rldp_models.programs.conic_form`).
    z
        The dual of its rows (:func:`declared_rows_dual` of a backend's named duals).
    boxes
        Intervals that every feasible point's variable blocks lie in, by block name
        (e.g. ``{"protocol": (0.0, 1.0)}``: implied by ``P >= 0`` and rows summing to 1);
        every other column is free and its residual is cancelled exactly.
    simplices
        Names of 2-d variable blocks each of whose rows lies in the probability simplex
        at every feasible point (``("protocol",)``: ``P >= 0``, rows summing to 1).
    exact
        The rationals some data round (:func:`~rldp_models.optimality.proven_lower_bound`).
    """
    n = program.c.size
    lower, upper = np.full(n, -np.inf), np.full(n, np.inf)
    for name, (low, high) in (boxes or {}).items():
        index = np.ravel(program.variable_blocks[name])
        lower[index], upper[index] = low, high
    cones = DualCones(program.cones.zero, program.cones.nonneg, program.cones.soc,
                      power=program.cones.power)
    groups = [np.asarray(program.variable_blocks[name]) for name in simplices]
    if any(group.ndim != 2 for group in groups):
        raise ValueError(f"simplices {simplices} must name 2-d variable blocks")
    return proven_lower_bound(program.c, program.A, program.b, cones, z, lower, upper,
                              program.offset, names=program.variable_blocks,
                              simplices=np.vstack(groups) if groups else None, exact=exact)


def cvxpy_lower_bound(data: Mapping[str, Any], z: np.ndarray, lower: np.ndarray | None = None,
                      upper: np.ndarray | None = None,
                      names: dict[str, np.ndarray] | None = None,
                      simplices: np.ndarray | None = None,
                      exact: Mapping[float, Fraction] | None = None) -> LowerBound:
    """A proven lower bound from cvxpy's problem data for Clarabel and its dual ``z``.

    ``data`` is the first item of ``problem.get_problem_data(cvxpy.CLARABEL)``; ``z`` the
    ``z`` of ``solve_via_data``'s Clarabel solution (cvxpy orders cones as Clarabel
    takes them: zero, nonnegative, second-order, PSD, exponential, power). The bound is
    on cvxpy's compiled minimisation, offset included; ``lower``, ``upper`` box its
    variable vector, ``names`` and ``simplices`` as for
    :func:`~rldp_models.optimality.weak_duality.proven_lower_bound` (columns of the
    variable vector: :func:`cvxpy_columns`), as is ``exact``. PSD and n-dimensional power
    cones are not handled.
    """
    dims = data["dims"]
    if list(dims.psd) or list(getattr(dims, "pnd", [])):
        return LowerBound(None, reason="PSD and n-dimensional power cones are not handled")
    offset = float(data["param_prob"].apply_parameters()[1])
    cones = DualCones(int(dims.zero), int(dims.nonneg), tuple(int(d) for d in dims.soc),
                      int(dims.exp), tuple(float(a) for a in dims.p3d))
    return proven_lower_bound(np.asarray(data["c"]), data["A"], np.asarray(data["b"]), cones,
                              z, lower, upper, offset, names=names, simplices=simplices,
                              exact=exact)


def cvxpy_columns(data: Mapping[str, Any], variable_id: int,
                  shape: tuple[int, ...]) -> np.ndarray:
    """The columns of cvxpy's compiled variable vector holding the entries of the variable
    ``variable_id`` of the compiled problem, in its ``shape`` (cvxpy stacks each variable
    in column-major order)."""
    start = int(data["param_prob"].var_id_to_col[variable_id])
    return start + np.arange(int(np.prod(shape or (1,)))).reshape(shape or (1,), order="F")
