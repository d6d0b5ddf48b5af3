"""A block's conic statement emitted into a cvxpy model: the apply/invert pair of the cvxpy path.

A library block states its rows once, as the direct conic form
(:meth:`~rldp_models.programs.contract.Block.build_conic`: ``A x + s = b``,
``s in K`` with K a product of zero, nonnegative, second-order and power cones,
named row groups and variables, data entries marked by
:class:`~rldp_models.programs.conic_builder.DataSource`). The direct backends
consume that statement as it is (:mod:`rldp_models.programs.conic_form`);
:func:`emit_block` is its image in cvxpy, for any cvxpy solver. This is cvxpy's
reduction pattern (``apply`` / ``invert``) run the other way: cvxpy's own
canonicalisation takes the emitted model back to the same cone program.

apply
    The block writes its rows into a builder of its own with ``linking="plain"``
    (mixing and folding only help a factorisation), over ``x = (vec(P), z)``:
    ``P`` the context's protocol variable in row-major order (as the builder
    numbers it) and ``z`` one cvxpy variable for the block's other variables.
    Each :meth:`~rldp_models.programs.conic_builder.ConicBuilder.add` becomes one
    cvxpy constraint on ``s = b - A x``: ``A x == b`` (zero), ``A x <= b``
    (nonneg), ``SOC(s_0, (s_1, s_2))`` per triple, ``PowCone3D(s_0, s_1, s_2)``.
    In a ``parametric`` context the data entries are expressions of the
    context's parameters (:meth:`~rldp_models.programs.context.BuildContext.value`),
    so a sweep updates the parameters and keeps the compiled model (DPP).
invert
    Groups keep the statement's names, so a cvxpy solve reports duals by the
    statement's named rows (zero and nonneg rows in the statement's order). The
    multipliers ``<group>.t`` and ``<group>.c`` of the statement are registered as
    the group's multipliers ``t`` and ``c`` (entries of ``z``, shaped as stated),
    and the objective's value under the statement's objective name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import scipy.sparse as sp

from rldp_models.programs.conic_builder import (
    KINDS,
    MULTIPLIER_NAMES,
    ConicBuilder,
    DataSource,
    Refill,
)

if TYPE_CHECKING:
    import cvxpy as cp

    from rldp_models.programs.context import BuildContext
    from solvers.conic import ConicProgram


class StatesRows(Protocol):
    """A block that states its rows in the direct conic form."""

    @property
    def name(self) -> str: ...

    def build_conic(self, builder: ConicBuilder) -> None: ...


def emit_objective(block: StatesRows, context: BuildContext) -> cp.Expression:
    """Add an objective's stated rows to ``context`` and return its cost ``c.x`` (the
    expression to minimise).

    Raises
    ------
    ValueError
        If the statement has no cost (a constraint family's: use :func:`emit_block`).
    """
    cost = emit_block(block, context)
    if cost is None:
        raise ValueError(f"{type(block).__name__} states no cost, so it is not an objective")
    return cost


def emit_block(block: StatesRows, context: BuildContext) -> Any:
    """Add ``block``'s stated rows to ``context`` as cvxpy constraints (module docstring).

    Returns
    -------
    cvxpy expression or None
        The block's cost ``c.x``, or ``None`` when the statement has no cost.
    """
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

    builder = ConicBuilder(context, context.data, linking="plain")
    block.build_conic(builder)
    n_protocol = builder.protocol.size
    x = cp.vec(context.P, order="C")
    if builder.n > n_protocol:
        x = cp.hstack([x, cp.Variable(builder.n - n_protocol, name=f"{block.name}_statement")])
    if sum(builder.counts.values()):
        conic, refill = builder.assemble()
        rows, offsets = _Rows(conic, refill, x, context), builder.kind_offsets()[0]
        for group, runs in builder.groups.items():
            constraints = [rows.constraint(kind, local + offsets[kind]) for kind, local in runs]
            context.add(group, constraints, _multipliers(builder, group, x))
    cost = _cost(builder, x, context)
    if cost is not None and builder.objective_name is not None:
        context.variables[builder.objective_name] = cost
    return cost


def _multipliers(builder: ConicBuilder, group: str, x: cp.Expression) -> dict[str, Any]:
    """The statement's variables ``<group>.<name>`` for the multiplier names, shaped as stated."""
    return {name: _entries(x, builder.blocks[f"{group}.{name}"]) for name in MULTIPLIER_NAMES
            if f"{group}.{name}" in builder.blocks}


def _entries(x: cp.Expression, index: np.ndarray) -> cp.Expression:
    import cvxpy as cp

    if index.ndim == 0:
        return x[int(index)]
    return cp.reshape(x[np.ravel(index)], index.shape, order="C")


def _cost(builder: ConicBuilder, x: cp.Expression, context: BuildContext) -> Any:
    """``c.x``: numbers, or expressions of the parameters in a parametric context."""
    import cvxpy as cp

    if not builder.costs:
        return None
    if not context.parametric:
        return Refill([], builder.costs).cost(builder.n, context.data) @ x
    return cp.sum(cp.hstack([cp.sum(cp.multiply(_data(source, context, np.size(index)),
                                                 x[np.ravel(index)]))
                             for index, source in builder.costs]))


def _data(source: DataSource, context: BuildContext, size: int) -> Any:
    """``source``'s values, ``size`` of them: numbers, or an expression of a parameter."""
    import cvxpy as cp

    if source.name is None or not context.parametric:
        return np.broadcast_to(source.values(context.data), (size,))
    value = context.value(source.name)
    flat = cp.reshape(value, (int(np.prod(value.shape, dtype=int)),), order="C")
    index = np.broadcast_to(np.asarray(source.index), (size,))
    return cp.multiply(np.broadcast_to(np.asarray(source.factor, dtype=float), (size,)),
                       flat[index])


class _Rows:
    """``A x`` of the assembled statement, row by row: numbers, plus the data entries as
    parameter expressions in a parametric context."""

    def __init__(self, conic: ConicProgram, refill: Refill, x: cp.Expression,
                 context: BuildContext) -> None:
        self.conic, self.x = conic, x
        A = conic.A.copy()
        self.fills: Any = None
        if context.parametric and refill.matrix:
            self.fills = self._fills(A, refill, x, context)
            for slots, _ in refill.matrix:
                A.data[slots] = 0.0
        self.A = A.tocsr()

    @staticmethod
    def _fills(A: sp.csc_matrix, refill: Refill, x: cp.Expression,
               context: BuildContext) -> cp.Expression:
        """``D x`` for the data entries ``D`` of ``A``, as an expression of the parameters."""
        import cvxpy as cp

        slots = np.concatenate([slots for slots, _ in refill.matrix])
        rows = A.indices[slots]
        cols = np.searchsorted(A.indptr, slots, side="right") - 1
        values = cp.hstack([_data(source, context, np.size(at)) for at, source in refill.matrix])
        scatter = sp.csr_matrix((np.ones(slots.size), (rows, np.arange(slots.size))),
                                shape=(A.shape[0], slots.size))
        return scatter @ cp.multiply(values, x[cols])

    def lhs(self, rows: np.ndarray) -> cp.Expression:
        """``A[rows] x``."""
        expression = self.A[rows] @ self.x
        if self.fills is not None:
            expression = expression + self.fills[rows]
        return expression

    def slack(self, rows: np.ndarray) -> cp.Expression:
        """``b[rows] - A[rows] x``."""
        return self.conic.b[rows] - self.lhs(rows)

    def constraint(self, kind: str, rows: np.ndarray) -> cp.Constraint:
        """The cone constraint of the statement's rows ``rows`` (all of one kind)."""
        import cvxpy as cp

        if kind == "zero":
            return self.lhs(rows) == self.conic.b[rows]
        if kind == "nonneg":
            return self.lhs(rows) <= self.conic.b[rows]
        u, w, z = (self.slack(rows[i::3]) for i in range(3))
        if kind == "soc":
            return cp.SOC(u, cp.vstack([w, z]), axis=0)
        assert kind == KINDS[3]  # the 3-d power cones
        first = self.conic.cones.zero + self.conic.cones.nonneg + sum(self.conic.cones.soc)
        alpha = np.asarray(self.conic.cones.power)[(rows[0::3] - first) // 3]
        return cp.PowCone3D(u, w, z, alpha)
