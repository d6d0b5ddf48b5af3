"""The optimality certificate's re-weighting LP, on HiGHS directly.

For fixed members the best multipliers of the Lagrangian bound of
:mod:`.lagrangian` solve the LP (:func:`.lagrangian_dual.polished_weights`)

``max sum_x t_x``  s.t.  ``t_x <= f[x, y] + sum_j a_j O_j[x, y] + sum_k lambda_k G_k[x, y]``,
``0 <= lambda_k <= bound``, ``0 <= a_j <= 1``, ``sum_j a_j = 1`` (when there are objective
members ``O_j``; else ``f`` holds the nominal objective's charges).

Any ``lambda, a`` give a valid bound (the bound is proved afterwards), so the LP
needs no certificate of its own; it only has to be good.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import highspy
import numpy as np
import scipy.sparse as sp

from solvers.backends.highs import silence_highs_banner

LPMethod = Literal["highs", "highs-ds", "highs-ipm"]
"""scipy's names of HiGHS's methods: its choice, the dual simplex, the interior point (with
crossover to a vertex)."""
SOLVER_OF_METHOD = {"highs": "choose", "highs-ds": "simplex", "highs-ipm": "ipm"}
TOLERANCES = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
"""HiGHS's default 1e-7 would cost ~1e-7 absolute in the bound (objectives here are ~0.03)."""


@dataclass(frozen=True)
class Reweighting:
    """An optimal ``lambda`` (k,), ``a`` (m,) or None, and the LP's dual ``point``: a
    row-stochastic protocol (|X|, |Y|) minimising the Lagrangian over the members."""

    weights: np.ndarray
    shares: np.ndarray | None
    point: np.ndarray


class ReweightingLP:
    """The LP of the module docstring; :meth:`add` columns, then :meth:`solve`.

    Parameters
    ----------
    fixed : ndarray, shape (|X|, |Y|)
        ``f``: the charges that carry no multiplier.
    with_shares : bool
        Whether the objective has members (and so the row ``sum_j a_j = 1``).
    method : LPMethod
        HiGHS's method for the first solve; later solves start from its basis.
    """

    def __init__(self, fixed: np.ndarray, with_shares: bool, method: LPMethod = "highs") -> None:
        self.shape = fixed.shape
        silence_highs_banner()
        self.highs = highspy.Highs()
        self.highs.setOptionValue("output_flag", False)
        for key, value in TOLERANCES.items():
            self.highs.setOptionValue(key, value)
        self.highs.setOptionValue("solver", SOLVER_OF_METHOD[method])
        cells = int(np.prod(self.shape))
        inf = highspy.kHighsInf
        upper = np.ravel(fixed).astype(float)
        lower = np.full(cells, -inf)
        if with_shares:  # the row sum_j a_j = 1, filled as members come
            upper, lower = np.append(upper, 1.0), np.append(lower, 1.0)
        self._add_rows(lower, upper)
        n_x, n_y = self.shape
        t_rows = sp.csc_matrix(sp.kron(sp.eye(n_x), np.ones((n_y, 1))))  # t_x on rows (x, .)
        t_rows.resize((lower.size, n_x))
        self._add_columns(-np.ones(n_x), np.full(n_x, -inf), np.full(n_x, inf), t_rows)
        self.with_shares = with_shares
        self.lambdas = np.zeros(0, dtype=np.int32)
        self.members = np.zeros(0, dtype=np.int32)

    @property
    def terms(self) -> int:
        """How many terms (``lambda`` columns) the LP has."""
        return self.lambdas.size

    def add(self, charges: sp.csr_matrix, objective: sp.csr_matrix) -> None:
        """New terms ``G_k`` (rows of ``charges``) and members ``O_j`` (rows of ``objective``),
        both over the cells ``(x, y)`` flattened row-major."""
        k, m = charges.shape[0], objective.shape[0]
        if m and not self.with_shares:
            raise ValueError("objective members in an LP built without shares")
        rows = self.highs.getNumRow()
        first = self.highs.getNumCol()
        if k:
            column = sp.csc_matrix(-charges.T)
            column.resize((rows, k))
            self._add_columns(np.zeros(k), np.zeros(k), np.full(k, highspy.kHighsInf), column)
            self.lambdas = np.append(self.lambdas, np.arange(first, first + k, dtype=np.int32))
        if m:
            column = sp.csc_matrix(sp.vstack([-objective.T, sp.csr_matrix(np.ones((1, m)))]))
            self._add_columns(np.zeros(m), np.zeros(m), np.ones(m), column)
            self.members = np.append(self.members,
                                     np.arange(first + k, first + k + m, dtype=np.int32))

    def solve(self, bound: float) -> Reweighting | None:
        """The optimum with every ``lambda <= bound``; None if HiGHS finds none."""
        if self.terms:
            self.highs.changeColsBounds(self.terms, self.lambdas, np.zeros(self.terms),
                                        np.full(self.terms, float(bound)))
        self.highs.run()
        if self.highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        solution = self.highs.getSolution()
        values = np.clip(np.asarray(solution.col_value), 0.0, None)
        duals = np.asarray(solution.row_dual)[:int(np.prod(self.shape))]
        return Reweighting(values[self.lambdas],
                           values[self.members] if self.with_shares else None,
                           np.clip(-duals, 0.0, None).reshape(self.shape))

    def _add_rows(self, lower: np.ndarray, upper: np.ndarray) -> None:
        empty = np.zeros(0, dtype=np.int32)
        self.highs.addRows(lower.size, lower, upper, 0, empty, empty, np.zeros(0))

    def _add_columns(self, cost: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                     column: sp.csc_matrix) -> None:
        column = sp.csc_matrix(column)
        column.sum_duplicates()
        self.highs.addCols(cost.size, cost, lower, upper, column.nnz,
                           column.indptr[:-1].astype(np.int32),
                           column.indices.astype(np.int32), column.data.astype(float))
