"""The builder a block writes its direct conic rows into (no cvxpy compile).

:class:`ConicBuilder` collects ``min c.x, A x + s = b, s in K``
(:class:`solvers.conic.ConicProgram`) as COO triplets by cone kind, with the
entries that are data (``Phat``, ``B + 1``, ``rho``, the conditionals) marked
by a :class:`DataSource` so a kept model can be refilled in place when only the
data change (:mod:`rldp_models.programs.conic_form`). A block that provides a
direct conic form (:meth:`rldp_models.programs.contract.Block.build_conic`)
calls :meth:`ConicBuilder.variable`, :meth:`ConicBuilder.add`,
:meth:`ConicBuilder.cost` and :meth:`ConicBuilder.linked_rows`; the protocol
``P[x, y]`` is the index array :attr:`ConicBuilder.protocol`.

Cone rows follow Clarabel/SCS: a row group of kind ``"zero"`` is ``A x = b``,
``"nonneg"`` is ``A x <= b``, ``"soc"`` rows come in triples
``(b - A x) in {(u, w, z): |(w, z)| <= u}`` and ``"power"`` triples are the
2/3 power cone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import scipy.sparse as sp

from rldp_models.data import Crosstab
from rldp_models.programs.context import ProblemData
from solvers.conic import ConeDims, ConicProgram

KINDS = ("zero", "nonneg", "soc", "power")
MULTIPLIER_NAMES = ("t", "c")
"""Multipliers of Theorems 2 and 4 a block names ``"<group>.t"``, ``"<group>.c"``."""


class ProgramShape(Protocol):
    """What a block's rows depend on besides the data: a
    :class:`~rldp_models.programs.protocol_program.ProtocolProgram`, or the
    :class:`~rldp_models.programs.context.BuildContext` a cvxpy model is emitted into."""

    @property
    def crosstab(self) -> Crosstab: ...

    @property
    def output_labels(self) -> tuple[str, ...]: ...

    @property
    def distortion_matrix(self) -> np.ndarray: ...

    @property
    def parametric(self) -> bool: ...


@dataclass(frozen=True)
class DataSource:
    """Entries that are data: ``factor * ravel(data.<name>)[index]`` (``factor`` if no name)."""

    name: str | None
    index: Any = None
    factor: Any = 1.0

    def values(self, data: ProblemData) -> np.ndarray:
        if self.name is None:
            return np.asarray(self.factor, dtype=float)
        return self.factor * np.ravel(getattr(data, self.name))[self.index]


@dataclass
class ConicBuilder:
    """Variables by name, rows by cone kind as COO triplets, and where the data go.

    Attributes a block reads: ``program`` (the program being written: its crosstab,
    outputs, distortion and whether it is ``parametric``),
    ``data`` (its :class:`~rldp_models.programs.context.ProblemData`),
    ``protocol`` (indices of ``P[x, y]`` in ``x``, shape (|X|, |Y|)),
    ``linking`` and ``power`` (how :func:`~rldp_models.programs.conic_form.conic_program`
    was asked to write linking rows and Theorem 4's cube cones), ``stochastic_group``
    (the group of the rows ``sum_y P[x, y] = 1``, once written). A block that adds a
    multiple of those rows to rows of its own records it in ``folds``
    (``folded_groups`` of :class:`solvers.conic.ConicProgram`).
    """

    program: ProgramShape
    data: ProblemData
    linking: str = "mixed"
    power: str = "soc"
    n: int = 0
    blocks: dict[str, np.ndarray] = field(default_factory=dict)
    triplets: dict[str, list[tuple[np.ndarray, ...]]] = field(
        default_factory=lambda: {kind: [] for kind in KINDS})
    rhs: dict[str, list[np.ndarray]] = field(default_factory=lambda: {k: [] for k in KINDS})
    counts: dict[str, int] = field(default_factory=lambda: {kind: 0 for kind in KINDS})
    nnz: dict[str, int] = field(default_factory=lambda: {kind: 0 for kind in KINDS})
    fills: dict[str, list[tuple[np.ndarray, DataSource]]] = field(
        default_factory=lambda: {kind: [] for kind in KINDS})
    costs: list[tuple[np.ndarray, DataSource]] = field(default_factory=list)
    groups: dict[str, list[tuple[str, np.ndarray]]] = field(default_factory=dict)
    mixed_groups: list[tuple[str, int]] = field(default_factory=list)
    folds: list[tuple[str, str, np.ndarray]] = field(default_factory=list)
    boosts: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    stochastic_group: str | None = None
    objective_name: str | None = None
    protocol: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        n_x = int(np.prod(self.program.crosstab.shape))
        self.protocol = self.variable("protocol", (n_x, len(self.program.output_labels)))

    def name_objective(self, name: str) -> None:
        """Report the objective's value under ``name`` (e.g. ``"worst_case_distortion"``)."""
        self.objective_name = name

    def distortion_rows(self) -> np.ndarray:
        """``d(u_x, y)`` for every cell ``x = (s, u)``, shape (|X|, |Y|)."""
        return np.tile(self.program.distortion_matrix, (self.program.crosstab.shape[0], 1))

    def cell_rows(self, weights: np.ndarray) -> sp.csr_matrix:
        """The |X| x n matrix of ``sum_y weights[x, y] P[x, y]`` (n: variables so far)."""
        n_x, n_y = self.protocol.shape
        return sp.csr_matrix((np.ravel(weights),
                              (np.repeat(np.arange(n_x), n_y), self.protocol.ravel())),
                             shape=(n_x, self.n))

    def linked_rows(self, group: str, rows: sp.csr_matrix, rhs: np.ndarray) -> None:
        """``rows x = rhs`` as zero-cone rows, mixed by ``M = I + B`` unless ``linking`` is
        ``"plain"`` (:mod:`rldp_models.programs.conic_form`, "Sparse ordering"): ``B`` is
        ``1 1^T`` for ``"mixed"``, block diagonal (:func:`mixing_block`) for ``"grouped"``."""
        if self.linking != "plain":
            block = rows.shape[0] if self.linking == "mixed" else mixing_block(rows)
            sums = sp.csr_matrix((np.ones(rows.shape[0]), (np.arange(rows.shape[0]),
                                                           np.arange(rows.shape[0]) // block)))
            rows = rows + sums @ (sums.T @ rows)
            rhs = rhs + sums @ (sums.T @ rhs)
            self.mixed_groups.append((group, block))
        coo = sp.coo_matrix(rows)
        self.add("zero", group, coo.row, coo.col, coo.data, rhs, rows.shape[0])

    def variable(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        size = int(np.prod(shape, dtype=int))
        index = np.arange(self.n, self.n + size).reshape(shape)
        self.n += size
        self.blocks[name] = index
        return index

    def cost(self, index: Any, source: DataSource) -> None:
        """Add ``source``'s values to the cost of the variables ``index``."""
        self.costs.append((np.ravel(index), source))

    def add(self, kind: str, group: str, row: Any, col: Any, val: Any, rhs: Any, n_rows: int,
            fills: tuple[tuple[Any, DataSource], ...] = ()) -> None:
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

    def boost_last_cones(self, n_cones: int, lam: float | np.ndarray) -> None:
        """Offer the last ``n_cones`` 3-d second-order cones added boosted by ``lam``
        (``soc_boosts`` of :class:`solvers.conic.ConicProgram`)."""
        first = self.counts["soc"] - 3 * n_cones + 3 * np.arange(n_cones)
        self.boosts.append((first, np.broadcast_to(np.asarray(lam, dtype=float), (n_cones,))))

    def kind_offsets(self) -> tuple[dict[str, int], int]:
        """The first row of each cone kind in the assembled program, and the row count."""
        offsets, total = {}, 0
        for kind in KINDS:
            offsets[kind], total = total, total + self.counts[kind]
        return offsets, total

    def assemble(self) -> tuple[ConicProgram, "Refill"]:
        """The conic program and the plan to refill its data (:class:`Refill`)."""
        offsets, total = self.kind_offsets()
        nnz_offsets, nnz = {}, 0
        for kind in KINDS:
            nnz_offsets[kind], nnz = nnz, nnz + self.nnz[kind]
        parts = [(r + offsets[kind], c, v) for kind in KINDS for r, c, v in self.triplets[kind]]
        row, col, val = (np.concatenate(p) for p in zip(*parts))
        A = sp.csc_matrix((np.arange(1.0, nnz + 1), (row, col)), shape=(total, self.n))
        if A.nnz != nnz:
            raise AssertionError("duplicate entries in the conic form")  # a builder bug
        slot = np.empty(nnz, dtype=np.int64)
        slot[A.data.astype(np.int64) - 1] = np.arange(nnz)
        A.data = val[A.data.astype(np.int64) - 1]
        b = np.concatenate([np.concatenate(self.rhs[kind]) for kind in KINDS if self.rhs[kind]])
        cones = ConeDims(self.counts["zero"], self.counts["nonneg"],
                         (3,) * (self.counts["soc"] // 3), (2 / 3,) * (self.counts["power"] // 3))
        refill = Refill([(slot[nnz_offsets[kind] + at], source) for kind in KINDS
                          for at, source in self.fills[kind]], self.costs)
        cost = refill.cost(self.n, self.data)
        values = {} if self.objective_name is None else {self.objective_name: (cost, 0.0)}
        row_blocks = {name: np.concatenate([rows + offsets[kind] for kind, rows in group])
                      for name, group in self.groups.items()}
        conic = ConicProgram(cost, A, b, cones, variable_blocks=dict(self.blocks),
                             row_blocks=row_blocks, values=values,
                             mixed_groups=tuple(self.mixed_groups),
                             folded_groups=tuple(self.folds), soc_boosts=self._soc_boosts(
                                 offsets["soc"]))
        return conic, refill

    def _soc_boosts(self, offset: int) -> tuple[np.ndarray, np.ndarray] | None:
        if not self.boosts:
            return None
        rows, lam = (np.concatenate(p) for p in zip(*self.boosts))
        return rows + offset, lam


# A grouped linking row touches GROUPED_DEGREE times as many variables as there are rows to
# link (module docstring of conic_form, "Sparse ordering"). Clarabel CPU s (qdldl, one run
# each on a loaded machine) by the factor: RURP 10x20 (200 rows of 20 entries) 0.5 -> 16.0,
# 1 -> 6.3, 1.5 -> 8.2, 2 -> 6.3, 3 -> 7.5, 4 -> 6.9, fully mixed 18.0 (9.0 with faer);
# education x occupation (240 rows of 15) 1 -> over 60, 1.5 -> 13.4, 2 -> 16.3, 3 -> 14.6,
# fully mixed 19.8 with faer. Below ~1.5 AMD may eliminate the rows early and merge the
# outputs' blocks; past ~1.5 sqrt(KKT size) (848 at 10x20) the rows are dense again.
GROUPED_DEGREE = 2.0


def mixing_block(rows: sp.csr_matrix) -> int:
    """Rows per block of a grouped linking: ``GROUPED_DEGREE`` times the number of rows
    divided by the entries per row, so that each mixed row touches about that many
    variables, more than an output's block of the protocol (one variable per row)."""
    per_row = max(1.0, rows.nnz / max(1, rows.shape[0]))
    return int(min(rows.shape[0], max(1, np.ceil(GROUPED_DEGREE * rows.shape[0] / per_row))))


@dataclass
class Refill:
    """Where the data sit in a built model: slots of ``A.data`` and cost entries."""

    matrix: list[tuple[np.ndarray, DataSource]]
    costs: list[tuple[np.ndarray, DataSource]]

    def cost(self, n: int, data: ProblemData) -> np.ndarray:
        cost = np.zeros(n)
        for index, source in self.costs:
            np.add.at(cost, index, np.broadcast_to(source.values(data), index.shape))
        return cost

    def apply(self, conic: ConicProgram, data: ProblemData) -> None:
        for slots, source in self.matrix:
            conic.A.data[slots] = source.values(data)
        conic.c[:] = self.cost(conic.c.size, data)


