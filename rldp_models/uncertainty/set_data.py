"""A set declared by its membership, compiled once to conic data affine in ``Phat``.

A user states membership as cvxpy constraints ``membership(P, phat)`` over the
distribution ``P`` (``|X|`` entries, row-major ``(s, u)``) and, if needed,
auxiliary variables (a transport plan, an epigraph); ``phat`` is a cvxpy
``Parameter`` holding the empirical distribution. The toolkit adds ``P >= 0``,
``sum P = 1`` and reads cvxpy's canonical conic form (Clarabel's
``A x + s = b``, ``s in K``; :mod:`rldp_models.uncertainty.derived_form`) as

    (D)   A x + s = b_0 + B phat,   s in K,   P = x[columns],

recording ``A``, ``b_0``, ``B`` and the cones (:meth:`SetData.to_json`). ``A`` must
not depend on ``phat`` (write ``phat`` in constant terms only; cvxpy's DPP rules
make the rest affine). ``rldp verify`` evaluates (D) at the record's own counts
(``phat = counts / n``), so the set it checks is built on them by construction.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
import scipy.sparse as sparse

from rldp_models.errors import InputError
from rldp_models.uncertainty.derived_form import CANONICAL_SOLVER, ConicDescription, cone_blocks

if TYPE_CHECKING:
    import cvxpy as cp

Membership = Callable[["cp.Variable", "cp.Parameter"], list[Any]]
"""``(P, phat) -> constraints``: a set declared by membership (module docstring)."""

CONE_KINDS = ("zero", "nonneg", "soc", "exp", "pow")


@dataclass(frozen=True)
class SetData:
    """(D) of the module docstring: ``A``, ``b_0``, ``B``, the ``P`` columns and the cones.

    ``cones`` lists ``(kind, size)`` blocks in row order; ``alphas`` the exponent of
    each power-cone block.
    """

    a_matrix: sparse.csc_matrix
    b_fixed: np.ndarray
    b_phat: sparse.csc_matrix
    columns: np.ndarray
    cones: tuple[tuple[str, int], ...]
    alphas: tuple[float, ...] = ()

    def description(self, phat: np.ndarray) -> ConicDescription:
        """The set's conic form at ``phat`` (flattened row-major)."""
        b = self.b_fixed + self.b_phat @ np.asarray(phat, dtype=float).ravel()
        blocks, row = [], 0
        for kind, size in self.cones:
            blocks.append((kind, np.arange(row, row + size)))
            row += size
        return ConicDescription(self.a_matrix, np.asarray(b, dtype=float), self.columns,
                                tuple(blocks), self.alphas)

    def exact_b(self, phat: Sequence[Fraction]) -> list[Fraction]:
        """``b_0 + B phat`` in rationals (``phat`` exact, e.g. ``counts / n``)."""
        b = [Fraction(float(x)) for x in self.b_fixed]
        entries = sparse.coo_matrix(self.b_phat)
        for i, x, value in zip(entries.row, entries.col, entries.data):
            b[int(i)] += Fraction(float(value)) * Fraction(phat[int(x)])
        return b

    def to_json(self) -> dict[str, Any]:
        """Sparse triplets and lists (floats round-trip exactly through JSON)."""
        a, b = sparse.coo_matrix(self.a_matrix), sparse.coo_matrix(self.b_phat)
        return {"shape": list(self.a_matrix.shape),
                "A": [a.row.tolist(), a.col.tolist(), a.data.tolist()],
                "b": self.b_fixed.tolist(),
                "b_phat": [b.row.tolist(), b.col.tolist(), b.data.tolist()],
                "columns": self.columns.tolist(),
                "cones": [[kind, int(size)] for kind, size in self.cones],
                "alphas": list(self.alphas)}

    @classmethod
    def from_json(cls, data: Any, size: int) -> "SetData":
        """Read :meth:`to_json` back for a table of ``size`` cells.

        Raises
        ------
        InputError
            If the data are not (D) for ``size`` cells: shapes, cones or columns disagree.
        """
        try:
            rows, cols = (int(n) for n in data["shape"])
            a = sparse.csc_matrix(_triplets(data["A"]), shape=(rows, cols))
            b_phat = sparse.csc_matrix(_triplets(data["b_phat"]), shape=(rows, size))
            b = np.asarray(data["b"], dtype=float)
            columns = np.asarray(data["columns"], dtype=int)
            cones = tuple((str(kind), int(n)) for kind, n in data["cones"])
            alphas = tuple(float(x) for x in data.get("alphas", ()))
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"the set's conic data are not readable ({exc})") from None
        if b.shape != (rows,) or columns.shape != (size,) or \
                not np.all((columns >= 0) & (columns < cols)) or \
                len(set(columns.tolist())) != size or not np.all(np.isfinite(b)):
            raise InputError(f"the set's conic data do not fit a table of {size} cells")
        if sum(n for _, n in cones) != rows or any(k not in CONE_KINDS or n < 1 for k, n in cones) \
                or len(alphas) != sum(k == "pow" for k, _ in cones) or \
                any(k in ("exp", "pow") and n % 3 for k, n in cones):
            raise InputError("the set's cones do not cover its rows")
        return cls(a, b, b_phat, columns, cones, alphas)


def _triplets(values: Any) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    rows, cols, data = values
    entries = np.asarray(data, dtype=float)
    if not np.all(np.isfinite(entries)):
        raise ValueError("non-finite entries")
    return entries, (np.asarray(rows, dtype=int), np.asarray(cols, dtype=int))


def compile_membership(phat: np.ndarray, membership: Membership) -> SetData:
    """(D) from ``membership(P, phat)``, read once by cvxpy (module docstring).

    Raises
    ------
    InputError
        If the constraints are not DPP in ``phat``, use other parameters, or put
        ``phat`` in the constraint matrix.
    """
    import cvxpy as cp  # here, not at the top: rldp solve's default path never needs cvxpy

    flat = np.asarray(phat, dtype=float).ravel()
    p = cp.Variable(flat.size, name="P")
    parameter = cp.Parameter(flat.size, name="phat", value=flat)
    problem = cp.Problem(cp.Minimize(0), [p >= 0, cp.sum(p) == 1, *membership(p, parameter)])
    if [x.id for x in problem.parameters()] not in ([parameter.id], []) or not problem.is_dpp():
        raise InputError("a set's membership must be DPP (affine) in phat, its only parameter")
    data, _, _ = problem.get_problem_data(CANONICAL_SOLVER)
    stuffed = data[cp.settings.PARAM_PROB]

    def at(value: np.ndarray) -> tuple[sparse.csc_matrix, np.ndarray]:
        _, _, a, b = stuffed.apply_parameters({parameter.id: value}, keep_zeros=True)
        return sparse.csc_matrix(-a), np.asarray(b, dtype=float)  # Clarabel's signs

    a, b_fixed = at(np.zeros(flat.size))
    a_here, b_here = at(flat)
    if (a_here - a).count_nonzero() or (sparse.csc_matrix(data["A"]) - a_here).count_nonzero():
        raise InputError("a set's membership may use phat only in constant terms (its "
                         "constraint matrix must not depend on phat)")
    b_phat = sparse.csc_matrix(np.column_stack([at(unit)[1] - b_fixed
                                                for unit in np.eye(flat.size)]))
    offset = stuffed.var_id_to_col[p.id]
    blocks = cone_blocks(data["dims"], a.shape[0])
    a.eliminate_zeros()
    b_phat.eliminate_zeros()
    return SetData(a, b_fixed, b_phat, np.arange(offset, offset + flat.size),
                   tuple((kind, int(rows.size)) for kind, rows in blocks),
                   tuple(float(x) for x in data["dims"].p3d))
