"""Protocol programs written straight into the canonical conic form (no cvxpy compile).

:func:`conic_program` assembles ``min c.x, A x + s = b, s in K``
(:class:`solvers.conic.ConicProgram`) with vectorised numpy / scipy.sparse for
the blocks of the four presets: the conic forms of
:mod:`rldp_models.uncertainty.chi_square_conic` (Theorem 2, eq. 21, and
Theorem 4, eq. 29), so the optimum equals the cvxpy model's.

Sweeps. The model is kept on the program; when the program's data change
(:meth:`ProtocolProgram.update`) but not the model's structure (shape, outputs,
distortion, eps, secrets without records), the next :func:`conic_program`
writes the new numbers into the kept matrices in place (the entries that
depend on ``Phat``, ``B + 1``, ``rho`` and the conditionals); for a
``parametric`` program the backend also keeps its solver (Clarabel's
equilibration and symbolic factorisation) and only updates its numbers.

Sparse ordering (why the linking rows are written "mixed"). A robust program is
block-angular: the Theorem-4 blocks of output ``y`` touch only column
``P[:, y]``; the columns are linked by the |X| rows ``sum_y P[x, y] = 1`` and
by ``v_x = sum_y P[x, y] d(u_x, y)``. Written plainly those rows have ~|Y|
nonzeros each, so the minimum-degree ordering of the KKT system eliminates
them first and merges every output's block into one (fill-in). With
``linking="mixed"`` the rows are replaced by ``M (rows) = M (rhs)``,
``M = I + 1 1^T`` (invertible, so the feasible set is unchanged): each row
then touches every linked variable, is ordered last, and the factorisation
keeps the blocks apart (RURP 7x14: 677k nonzeros in the KKT factor against
952k written plainly).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from rldp_models import symbolic
from rldp_models.programs.components import (
    NominalDistortion,
    NominalSecretPrivacy,
    RobustDistortion,
    RobustSecretPrivacy,
    ordered_secret_pairs,
)
from rldp_models.uncertainty.chi_square import ChiSquareSet
from solvers.conic import ConeDims, ConicProgram
from solvers.errors import UnsupportedModelError

LINKINGS = ("mixed", "plain")
POWER_FORMS = ("soc", "power")
MULTIPLIER_NAMES = ("t", "c")  # of Theorems 2 and 4, keyed "<group>.t", "<group>.c"
_ATTRIBUTE = "_conic_form"  # where the built model is kept on the program
_KINDS = ("zero", "nonneg", "soc", "power")


@dataclass(frozen=True)
class _Source:
    """Entries that are data: ``factor * ravel(data.<name>)[index]`` (``factor`` if no name)."""

    name: str | None
    index: Any = None
    factor: Any = 1.0

    def values(self, data: Any) -> np.ndarray:
        if self.name is None:
            return np.asarray(self.factor, dtype=float)
        return self.factor * np.ravel(getattr(data, self.name))[self.index]


@dataclass
class _Builder:
    """Variables by name, rows by cone kind as COO triplets, and where the data go."""

    data: Any
    n: int = 0
    blocks: dict[str, np.ndarray] = field(default_factory=dict)
    triplets: dict[str, list[tuple[np.ndarray, ...]]] = field(
        default_factory=lambda: {kind: [] for kind in _KINDS})
    rhs: dict[str, list[np.ndarray]] = field(default_factory=lambda: {k: [] for k in _KINDS})
    counts: dict[str, int] = field(default_factory=lambda: {kind: 0 for kind in _KINDS})
    nnz: dict[str, int] = field(default_factory=lambda: {kind: 0 for kind in _KINDS})
    fills: dict[str, list[tuple[np.ndarray, _Source]]] = field(
        default_factory=lambda: {kind: [] for kind in _KINDS})
    costs: list[tuple[np.ndarray, _Source]] = field(default_factory=list)
    groups: dict[str, list[tuple[str, np.ndarray]]] = field(default_factory=dict)
    mixed_groups: list[str] = field(default_factory=list)

    def variable(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        size = int(np.prod(shape, dtype=int))
        index = np.arange(self.n, self.n + size).reshape(shape)
        self.n += size
        self.blocks[name] = index
        return index

    def cost(self, index: Any, source: _Source) -> None:
        """Add ``source``'s values to the cost of the variables ``index``."""
        self.costs.append((np.ravel(index), source))

    def add(self, kind: str, group: str, row: Any, col: Any, val: Any, rhs: Any, n_rows: int,
            fills: tuple[tuple[Any, _Source], ...] = ()) -> None:
        """Rows ``0..n_rows-1`` (numbered locally) of cone kind ``kind``: ``A x + s = rhs``.

        ``fills`` are ``(positions, source)``: the entries at those positions
        of the flattened triplets are data, written now and again on refills.
        """
        row, col, val = (np.ravel(a) for a in np.broadcast_arrays(row, col, val))
        val = val.astype(float)
        for at, source in fills:
            val[at] = source.values(self.data)
            self.fills[kind].append((self.nnz[kind] + np.arange(row.size)[at], source))
        start = self.counts[kind]
        self.triplets[kind].append((row + start, col, val))
        self.rhs[kind].append(np.broadcast_to(np.asarray(rhs, dtype=float), (n_rows,)))
        self.groups.setdefault(group, []).append((kind, np.arange(start, start + n_rows)))
        self.counts[kind] += n_rows
        self.nnz[kind] += row.size

    def assemble(self, robust_objective: bool) -> tuple[ConicProgram, "_Refill"]:
        offsets, total, nnz_offsets, nnz = {}, 0, {}, 0
        for kind in _KINDS:
            offsets[kind], total = total, total + self.counts[kind]
            nnz_offsets[kind], nnz = nnz, nnz + self.nnz[kind]
        parts = [(r + offsets[kind], c, v) for kind in _KINDS for r, c, v in self.triplets[kind]]
        row, col, val = (np.concatenate(p) for p in zip(*parts))
        A = sp.csc_matrix((np.arange(1.0, nnz + 1), (row, col)), shape=(total, self.n))
        if A.nnz != nnz:
            raise AssertionError("duplicate entries in the conic form")  # a builder bug
        slot = np.empty(nnz, dtype=np.int64)
        slot[A.data.astype(np.int64) - 1] = np.arange(nnz)
        A.data = val[A.data.astype(np.int64) - 1]
        b = np.concatenate([np.concatenate(self.rhs[kind]) for kind in _KINDS if self.rhs[kind]])
        cones = ConeDims(self.counts["zero"], self.counts["nonneg"],
                         (3,) * (self.counts["soc"] // 3), (2 / 3,) * (self.counts["power"] // 3))
        refill = _Refill([(slot[nnz_offsets[kind] + at], source) for kind in _KINDS
                          for at, source in self.fills[kind]], self.costs)
        cost = refill.cost(self.n, self.data)
        values = {"worst_case_distortion": (cost, 0.0)} if robust_objective else {}
        row_blocks = {name: np.concatenate([rows + offsets[kind] for kind, rows in group])
                      for name, group in self.groups.items()}
        conic = ConicProgram(cost, A, b, cones, variable_blocks=dict(self.blocks),
                             row_blocks=row_blocks, values=values,
                             mixed_groups=tuple(self.mixed_groups))
        return conic, refill


@dataclass
class _Refill:
    """Where the data sit in a built model: slots of ``A.data`` and cost entries."""

    matrix: list[tuple[np.ndarray, _Source]]
    costs: list[tuple[np.ndarray, _Source]]

    def cost(self, n: int, data: Any) -> np.ndarray:
        cost = np.zeros(n)
        for index, source in self.costs:
            np.add.at(cost, index, np.broadcast_to(source.values(data), index.shape))
        return cost

    def apply(self, conic: ConicProgram, data: Any) -> None:
        for slots, source in self.matrix:
            conic.A.data[slots] = source.values(data)
        conic.c[:] = self.cost(conic.c.size, data)


@dataclass
class _Kept:
    """The model kept on a program, the structure it was built for, and its refill plan."""

    key: tuple
    conic: ConicProgram
    refill: _Refill


def conic_program(program: Any, linking: str = "mixed", power: str = "soc") -> ConicProgram:
    """``program`` (a :class:`~rldp_models.programs.ProtocolProgram`) in canonical conic form.

    Parameters
    ----------
    program : ProtocolProgram
        Blocks of the four presets with the chi-square set only (a
        user-written block has no conic writer here: use a cvxpy solver).
    linking : {"mixed", "plain"}
        How the rows linking the outputs are written (module docstring).
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
        refilled, when the program's structure is unchanged since the last call.
    """
    _check_supported(program, linking, power)
    data = program.problem_data()
    key = _structure_key(program, data, linking, power)
    kept = program.__dict__.get(_ATTRIBUTE)
    if kept is not None and kept.key == key:
        kept.refill.apply(kept.conic, data)
        return kept.conic
    conic, refill = _build(program, data, linking, power)
    conic.keep_solver = bool(program.parametric)
    program.__dict__[_ATTRIBUTE] = _Kept(key, conic, refill)
    return conic


def forget_conic_program(program: Any) -> None:
    """Drop the model kept on ``program`` (e.g. from a snapshot that must not share it)."""
    program.__dict__.pop(_ATTRIBUTE, None)


def _check_supported(program: Any, linking: str, power: str) -> None:
    if linking not in LINKINGS or power not in POWER_FORMS:
        raise ValueError(f"linking must be one of {LINKINGS} and power one of {POWER_FORMS}, "
                         f"got {linking!r}, {power!r}")
    known = (NominalSecretPrivacy, RobustSecretPrivacy)
    unknown = [type(f).__name__ for f in program.constraints if type(f) not in known]
    if type(program.objective) not in (NominalDistortion, RobustDistortion):
        unknown.append(type(program.objective).__name__)
    if program.uncertainty is not None and type(program.uncertainty) is not ChiSquareSet:
        unknown.append(type(program.uncertainty).__name__)
    if unknown:
        raise UnsupportedModelError(
            f"no direct conic form for {', '.join(unknown)}; use a cvxpy solver (e.g. clarabel)")


def _structure_key(program: Any, data: Any, linking: str, power: str) -> tuple:
    """Everything the model's sparsity and constants depend on (not the data it refills)."""
    return (program.crosstab.shape, data.zero_secrets, tuple(program.outputs),
            program.distortion_matrix.tobytes(), program.objective,
            tuple(program.constraints), linking, power)


def _build(program: Any, data: Any, linking: str,
           power: str) -> tuple[ConicProgram, _Refill]:
    builder = _Builder(data)
    n_x, n_y = int(np.prod(program.crosstab.shape)), len(program.outputs)
    protocol = builder.variable("protocol", (n_x, n_y))
    builder.add("nonneg", "protocol>=0", np.arange(n_x * n_y), protocol.ravel(), -1.0, 0.0,
                n_x * n_y)
    _linked_rows(builder, "stochastic", _cell_rows(protocol, np.ones((n_x, n_y)), builder.n),
                 np.ones(n_x), linking)
    robust_objective = type(program.objective) is RobustDistortion
    if robust_objective:
        _robust_distortion(builder, program, protocol, linking)
    else:  # E_Phat d(U, Y)
        builder.cost(protocol, _Source("phat", np.repeat(np.arange(n_x), n_y),
                                       _distortion_rows(program).ravel()))
    for family in program.constraints:
        if type(family) is RobustSecretPrivacy:
            _robust_privacy(builder, family, protocol, power)
        else:
            _nominal_privacy(builder, family, protocol)
    return builder.assemble(robust_objective)


def _distortion_rows(program: Any) -> np.ndarray:
    """``d(u_x, y)`` for every cell ``x = (s, u)``, shape (|X|, |Y|)."""
    return np.tile(program.distortion_matrix, (program.crosstab.shape[0], 1))


def _cell_rows(protocol: np.ndarray, weights: np.ndarray, n: int) -> sp.csr_matrix:
    """The |X| x n matrix of ``sum_y weights[x, y] P[x, y]``."""
    n_x, n_y = protocol.shape
    return sp.csr_matrix((weights.ravel(), (np.repeat(np.arange(n_x), n_y), protocol.ravel())),
                         shape=(n_x, n))


def _linked_rows(builder: _Builder, group: str, rows: sp.csr_matrix, rhs: np.ndarray,
                 linking: str) -> None:
    """``rows x = rhs`` as zero-cone rows; mixed by ``M = I + 1 1^T`` if asked (module doc)."""
    if linking == "mixed":
        rows = rows + sp.csr_matrix(np.ones((rows.shape[0], 1))) @ sp.csr_matrix(rows.sum(axis=0))
        rhs = rhs + rhs.sum()
        builder.mixed_groups.append(group)
    coo = sp.coo_matrix(rows)
    builder.add("zero", group, coo.row, coo.col, coo.data, rhs, rows.shape[0])


def _robust_distortion(builder: _Builder, program: Any, protocol: np.ndarray,
                       linking: str) -> None:
    """Theorem 2 (eq. 21) for ``v = (P o D) 1``: ``t + c (B+1) - 2 phat.r`` is the objective.

    ``r_x^2 <= c (t - v_x)`` as 3-d second-order cones; ``v`` is a variable
    defined by linking rows.
    """
    n_x = protocol.shape[0]
    name = program.objective.name
    t = builder.variable(f"{name}.t", ())
    c = builder.variable(f"{name}.c", ())
    r = builder.variable(f"{name}.r", (n_x,))
    v = builder.variable(f"{name}.v", (n_x,))
    definition = _cell_rows(protocol, -_distortion_rows(program), builder.n)
    definition = definition + sp.csr_matrix((np.ones(n_x), (np.arange(n_x), v)),
                                            shape=definition.shape)
    _linked_rows(builder, f"{name}.v", definition, np.zeros(n_x), linking)
    local = 3 * np.arange(n_x)
    rows = np.concatenate([local, local, local, local + 1, local + 2, local + 2, local + 2])
    cols = np.concatenate([np.full(n_x, c), np.full(n_x, t), v, r, np.full(n_x, c),
                           np.full(n_x, t), v])
    vals = np.repeat([-1.0, -1.0, 1.0, -2.0, -1.0, 1.0, -1.0], n_x)
    builder.add("soc", name, rows, cols, vals, 0.0, 3 * n_x)
    builder.cost(t, _Source(None))
    builder.cost(c, _Source("b_plus_one", 0))
    builder.cost(r, _Source("phat", np.arange(n_x), -2.0))


@functools.lru_cache(maxsize=64)
def _lemma2(eps: float) -> symbolic.BlockConjugate:
    """Lemma 2's scales at ``eps``, derived symbolically once per eps (it takes ~0.5 s)."""
    return symbolic.lemma2_conjugate(eps)


def _robust_privacy(builder: _Builder, family: RobustSecretPrivacy, protocol: np.ndarray,
                    power: str) -> None:
    """Theorem 4 (eq. 29) per ordered pair and output, as in ``pair_support_at_most``."""
    n_s, n_u = builder.data.phat.shape
    n_y = protocol.shape[1]
    lemma2 = _lemma2(family.eps)
    k = float(symbolic.theorem4_constant())
    ys = np.arange(n_y)
    for s1, s2 in ordered_secret_pairs(n_s):
        group = family._group(s1, s2)
        c = builder.variable(f"{group}.c", (n_y,))
        t = builder.variable(f"{group}.t", (2, n_y))
        q = builder.variable(f"{group}.q", (2, n_y))
        cols = np.stack([t[0], t[1], c, q[0], q[1]], axis=1).ravel()
        rho = (np.arange(2, 5 * n_y, 5), _Source("rho", np.full(n_y, s1 * n_s + s2)))
        builder.add("nonneg", group, np.repeat(ys, 5), cols, np.tile([1, 1, 0, -k, -k], n_y),
                    lemma2.value, n_y, fills=(rho,))
        if builder.data.zero_secrets[s1] and builder.data.zero_secrets[s2]:
            builder.add("nonneg", group, ys, c, -1.0, 0.0, n_y)  # else implied by the cones
        for i, (s, scale) in enumerate(((s1, lemma2.scale1), (s2, lemma2.scale2))):
            cells = protocol[s * n_u:(s + 1) * n_u]  # (n_u, n_y)
            if builder.data.zero_secrets[s]:
                _empty_side(builder, group, t[i], q[i], cells, scale)
                continue
            r = builder.variable(f"{group}.r{i + 1}", (n_u, n_y))
            _side_cones(builder, group, c, t[i], r, cells, scale)
            _cube_cone(builder, (group, i + 1), c, q[i], r,
                       _Source("phat", np.tile(s * n_u + np.arange(n_u), n_y), -1.0), power)


def _side_cones(builder: _Builder, group: str, c: np.ndarray, t: np.ndarray, r: np.ndarray,
                cells: np.ndarray, scale: float) -> None:
    """``r^2 <= c (t - scale P)`` per (u, y), as 3-d second-order cones."""
    n_u, n_y = cells.shape
    local = 3 * np.arange(n_u * n_y)
    c_grid, t_grid = np.broadcast_to(c, (n_u, n_y)).ravel(), np.broadcast_to(t, (n_u, n_y)).ravel()
    rows = np.concatenate([local, local, local, local + 1, local + 2, local + 2, local + 2])
    cols = np.concatenate([c_grid, t_grid, cells.ravel(), r.ravel(), c_grid, t_grid,
                           cells.ravel()])
    vals = np.repeat([-1.0, -1.0, scale, -2.0, -1.0, 1.0, -scale], n_u * n_y)
    builder.add("soc", group, rows, cols, vals, 0.0, 3 * n_u * n_y)


def _cube_cone(builder: _Builder, side: tuple[str, int], c: np.ndarray, q: np.ndarray,
               r: np.ndarray, minus_phat: _Source, power: str) -> None:
    """``q^3 <= h^2 c`` with ``h = phat.r`` per column (see :func:`conic_program`'s ``power``).

    ``minus_phat`` gives ``-Phat_{s,u}`` in the order of ``r.T`` (per column, then u).
    """
    group, (n_u, n_y) = side[0], r.shape
    base = 3 * np.arange(n_y)
    h_cols, h_rows = r.T.ravel(), np.repeat(base, n_u)
    if power == "power":  # (h, c, q) in the 2/3 power cone
        builder.add("power", group, np.concatenate([h_rows, base + 1, base + 2]),
                    np.concatenate([h_cols, c, q]),
                    np.concatenate([np.zeros(n_u * n_y), -np.ones(2 * n_y)]), 0.0, 3 * n_y,
                    fills=((slice(0, n_u * n_y), minus_phat),))
        return
    b = builder.variable(f"{group}.b{side[1]}", (n_y,))
    # q^2 <= h b: (h + b, 2 q, h - b)
    start = n_u * n_y + 2 * n_y
    builder.add("soc", group, np.concatenate([h_rows, base, base + 1, h_rows + 2, base + 2]),
                np.concatenate([h_cols, b, q, h_cols, b]),
                np.concatenate([np.zeros(n_u * n_y), -np.ones(n_y), -2 * np.ones(n_y),
                                np.zeros(n_u * n_y), np.ones(n_y)]), 0.0, 3 * n_y,
                fills=((slice(0, n_u * n_y), minus_phat),
                       (slice(start, start + n_u * n_y), minus_phat)))
    # b^2 <= c q: (c + q, 2 b, c - q)
    builder.add("soc", group, np.concatenate([base, base, base + 1, base + 2, base + 2]),
                np.concatenate([c, q, b, c, q]), np.repeat([-1.0, -1.0, -2.0, -1.0, 1.0], n_y),
                0.0, 3 * n_y)


def _empty_side(builder: _Builder, group: str, t: np.ndarray, q: np.ndarray,
                cells: np.ndarray, scale: float) -> None:
    """A secret without records: ``q = 0`` and ``t >= scale P(y | s, u)`` for every u."""
    n_u, n_y = cells.shape
    local = np.arange(n_u * n_y)
    t_grid = np.broadcast_to(t, (n_u, n_y)).ravel()
    builder.add("nonneg", group, np.concatenate([local, local]),
                np.concatenate([t_grid, cells.ravel()]),
                np.repeat([-1.0, scale], n_u * n_y), 0.0, n_u * n_y)
    builder.add("zero", group, np.arange(n_y), q, 1.0, 0.0, n_y)


def _nominal_privacy(builder: _Builder, family: NominalSecretPrivacy,
                     protocol: np.ndarray) -> None:
    """Eq. (6) at ``Phat``; a record-less secret's side is taken at every u (as in cvxpy)."""
    n_s, n_u = builder.data.phat.shape
    n_y = protocol.shape[1]
    factor = float(np.exp(family.eps))
    zero = builder.data.zero_secrets
    rows = np.repeat(np.arange(n_y)[None, :], 2 * n_u, axis=0)
    for s1, s2 in ordered_secret_pairs(n_s):
        cells = np.concatenate([protocol[s1 * n_u:(s1 + 1) * n_u],
                                protocol[s2 * n_u:(s2 + 1) * n_u]])  # (2 n_u, n_y)
        for high in (np.eye(n_u) if zero[s1] else [None]):
            for low in (np.eye(n_u) if zero[s2] else [None]):
                weights, fills = _side_weights(high, low, s1, s2, n_u, n_y, factor)
                builder.add("nonneg", family.name, rows, cells,
                            np.repeat(weights[:, None], n_y, axis=1), 0.0, n_y, fills=fills)


def _side_weights(high: np.ndarray | None, low: np.ndarray | None, s1: int, s2: int,
                  n_u: int, n_y: int, factor: float) -> tuple[np.ndarray, tuple]:
    """Weights of ``high.P(.|s1) - e^eps low.P(.|s2)``; ``None`` means the conditional (data)."""
    weights = np.concatenate([np.zeros(n_u) if high is None else high,
                              np.zeros(n_u) if low is None else -factor * low])
    fills = []
    for side, (s, vector, scale) in enumerate(((s1, high, 1.0), (s2, low, -factor))):
        if vector is None:  # entries (i, y) of the (2 n_u, n_y) block, row-major
            positions = (side * n_u + np.arange(n_u))[:, None] * n_y + np.arange(n_y)
            fills.append((positions.ravel(), _Source("conditional",
                                                     np.repeat(s * n_u + np.arange(n_u), n_y),
                                                     scale)))
    return weights, tuple(fills)
