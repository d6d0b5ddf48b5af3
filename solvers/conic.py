"""The canonical conic form a direct conic backend consumes.

``min c.x  s.t.  A x + s = b,  s in K``, with ``K`` the product, in this row
order, of a zero cone, a nonnegative orthant, second-order cones and 3-d
power cones ``{(u, w, z) : u^a w^(1-a) >= |z|, u, w >= 0}``. That is the
standard form of Clarabel and SCS alike (SCS needs exactly this cone order),
so one matrix serves both without a modelling layer in between.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from solvers.model import LinearProgram


@dataclass(frozen=True)
class ConeDims:
    """Sizes of the cones, in row order: zero, nonnegative, second-order, power."""

    zero: int = 0
    nonneg: int = 0
    soc: tuple[int, ...] = ()
    power: tuple[float, ...] = ()

    @property
    def rows(self) -> int:
        return self.zero + self.nonneg + sum(self.soc) + 3 * len(self.power)


@dataclass
class ConicProgram:
    """``min c.x + offset  s.t.  A x + s = b,  s in K`` (see the module docstring).

    ``variable_blocks`` maps names to index arrays into ``x`` (reshaped to the
    array's shape when results are reported); ``row_blocks`` maps constraint
    group names to index arrays of rows, for the duals. ``values`` holds named
    quantities computed from the solution that are not variables (e.g. an
    epigraph eliminated from the model); each maps to ``(coefficients, constant)``
    so that its value is ``coefficients @ x + constant``.

    A pair ``(group, block)`` in ``mixed_groups`` says that the group's rows
    ``G x = h`` are written as ``M G x = M h`` with ``M = I + B``, ``B`` block
    diagonal with all-ones blocks of ``block`` consecutive rows (the last one
    shorter; ``block`` = the group's size is ``I + 1 1^T``). ``M`` is invertible
    and symmetric, so the dual is reported for ``G x = h`` as ``M z``.

    A triple ``(group, into, weights)`` in ``folded_groups`` says that the rows of
    ``group`` were written as the declared rows plus ``weights[i]`` times row ``i`` of
    the group ``into`` (e.g. a definition simplified with ``sum_y P[x, y] = 1``); the
    duals are reported for the declared rows (``into``'s gains ``weights * z_group``).

    A pair ``(rows, lam)`` in ``soc_boosts`` offers a conditioning hint: each 3-d
    second-order cone whose first row is ``rows[i]`` may be handed to a solver
    boosted, ``(u, v, w) -> (ch u - sh w, v, ch w - sh u)`` with
    ``ch, sh = (lam + 1/lam) / 2, (lam - 1/lam) / 2`` (:meth:`boost`). The map is
    an automorphism of the cone (a Lorentz boost, so ``(c + g, 2r, c - g)`` becomes
    ``(c/lam + lam g, 2r, c/lam - lam g)``), not a diagonal scaling that a
    solver's equilibration would undo. ``A``, ``b`` and the duals stay the declared
    rows'; a backend that boosts maps its dual back with the same (symmetric) map.

    ``keep_solver`` asks backends to keep their solver in ``solver_cache``
    (for sweeps): a builder changes only the numbers of ``A``, ``b``, ``c`` of
    an existing object (a new structure is a new object), so a kept solver
    can take the new numbers instead of being set up anew.
    """

    c: np.ndarray
    A: sp.csc_matrix
    b: np.ndarray
    cones: ConeDims
    offset: float = 0.0
    sign: float = 1.0
    variable_blocks: dict[str, np.ndarray] = field(default_factory=dict)
    row_blocks: dict[str, np.ndarray] = field(default_factory=dict)
    values: dict[str, tuple[np.ndarray, float]] = field(default_factory=dict)
    keep_solver: bool = False
    mixed_groups: tuple[tuple[str, int], ...] = ()
    folded_groups: tuple[tuple[str, str, np.ndarray], ...] = ()
    soc_boosts: tuple[np.ndarray, np.ndarray] | None = None
    solver_cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        m, n = self.A.shape
        if self.c.shape != (n,) or self.b.shape != (m,) or self.cones.rows != m:
            raise ValueError(f"inconsistent conic program: A is {m}x{n}, c {self.c.shape}, "
                             f"b {self.b.shape}, cones cover {self.cones.rows} rows")

    @property
    def grouped_linking(self) -> bool:
        """Whether a mixed group is mixed by blocks shorter than the group (``mixed_groups``)."""
        return any(block < self.row_blocks[name].size for name, block in self.mixed_groups)

    def boost(self) -> sp.csr_matrix | None:
        """The symmetric row map of ``soc_boosts`` (``None`` without boosts).

        ``T K = K``, so ``T (b - A x) in K`` is the declared program, and a dual
        ``z`` of the boosted rows is ``T z`` for the declared rows.
        """
        if self.soc_boosts is None or self.soc_boosts[0].size == 0:
            return None
        rows, lam = self.soc_boosts
        ch, sh = (lam + 1.0 / lam) / 2.0, (lam - 1.0 / lam) / 2.0
        m = self.A.shape[0]
        diagonal = np.ones(m)
        diagonal[rows], diagonal[rows + 2] = ch, ch
        return sp.csr_matrix((np.concatenate([diagonal, -sh, -sh]),
                              (np.concatenate([np.arange(m), rows, rows + 2]),
                               np.concatenate([np.arange(m), rows + 2, rows]))), shape=(m, m))

    def objective(self, x: np.ndarray) -> float:
        """The objective in the model's own sense at ``x``."""
        return float(self.sign * (self.c @ x + self.offset))

    def named_primal(self, x: np.ndarray) -> dict[str, np.ndarray]:
        """Values of the named variables and quantities at ``x``."""
        named = {name: x[index] for name, index in self.variable_blocks.items()}
        named.update({name: np.asarray(coef @ x + const, dtype=float)
                      for name, (coef, const) in self.values.items()})
        return named

    def named_dual(self, z: np.ndarray) -> dict[str, np.ndarray]:
        """The multipliers of the named row groups (``z in K*``: ``>= 0`` on ``<=`` rows)."""
        duals = {name: z[rows] for name, rows in self.row_blocks.items()}
        for name, block in self.mixed_groups:
            duals[name] = duals[name] + block_sums(duals[name], block)
        for name, into, weights in self.folded_groups:
            duals[into] = duals[into] + weights * duals[name]
        return duals


def block_sums(values: np.ndarray, block: int) -> np.ndarray:
    """``B values``: each entry replaced by the sum of its block of ``block`` consecutive
    entries (the last block may be shorter); ``B`` as in ``ConicProgram.mixed_groups``."""
    if values.size == 0:
        return values
    starts = np.arange(0, values.size, block)
    return np.repeat(np.add.reduceat(values, starts), np.diff(np.append(starts, values.size)))


def conic_from_linear_program(lp: LinearProgram) -> ConicProgram:
    """``lp`` in canonical conic form: equalities, then ``<=`` rows, then finite bounds.

    Row groups keep the LP's names (``row_blocks`` index the stacked ``[A_ub; A_eq]``).
    """
    n, n_ub, n_eq = lp.c.size, lp.A_ub.shape[0], lp.A_eq.shape[0]
    lower, upper = np.flatnonzero(np.isfinite(lp.lb)), np.flatnonzero(np.isfinite(lp.ub))
    eye = sp.eye(n, format="csr")
    A = sp.vstack([lp.A_eq, lp.A_ub, -eye[lower], eye[upper]]).tocsc()
    b = np.concatenate([lp.b_eq, lp.b_ub, -lp.lb[lower], lp.ub[upper]])
    cones = ConeDims(zero=n_eq, nonneg=n_ub + lower.size + upper.size)
    stacked_to_conic = np.concatenate([n_eq + np.arange(n_ub), np.arange(n_eq)])
    sign = -1.0 if lp.maximize else 1.0
    return ConicProgram(
        sign * np.asarray(lp.c, dtype=float), A, b, cones, sign=sign,
        variable_blocks={name: np.arange(n)[s] for name, s in lp.variable_blocks.items()},
        row_blocks={name: stacked_to_conic[s] for name, s in lp.row_blocks.items()})
