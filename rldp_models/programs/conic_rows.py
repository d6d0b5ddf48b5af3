"""The rows of the library's blocks (the four presets of eqs. 7-10), stated once.

Each function writes one block into a :class:`~rldp_models.programs.conic_builder.ConicBuilder`;
the blocks of :mod:`rldp_models.programs.components` call them from their
``build_conic``. The direct backends consume the statement as it is
(:mod:`rldp_models.programs.conic_form`), the cvxpy model is emitted from it
(:mod:`rldp_models.programs.cvxpy_emission`) and so is the Pyomo LP of a
nominal program (:mod:`rldp_models.programs.linear_form`). The robust forms are
Theorem 2 (eq. 21) and Theorem 4 (eq. 29) as in
:mod:`rldp_models.uncertainty.chi_square_conic` (the same cones over any cvxpy
expressions, for blocks written in cvxpy), with the reduction ``w = t``.
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.sparse as sp

from rldp_models import symbolic_values
from rldp_models.programs.conic_builder import ConicBuilder, DataSource
from rldp_models.programs.context import ordered_secret_pairs


def stochastic_rows(builder: ConicBuilder, name: str) -> None:
    """``sum_y P[x, y] = 1`` for every x, as linking rows."""
    n_x = builder.protocol.shape[0]
    builder.linked_rows(name, builder.cell_rows(np.ones(builder.protocol.shape)), np.ones(n_x))
    builder.stochastic_group = name


def nominal_distortion_cost(builder: ConicBuilder) -> None:
    """``E_{Phat} d(U, Y) = sum_x Phat_x sum_y d(u_x, y) P[x, y]`` as the cost."""
    n_x, n_y = builder.protocol.shape
    builder.cost(builder.protocol, DataSource("phat", np.repeat(np.arange(n_x), n_y),
                                              builder.distortion_rows().ravel()))


def robust_distortion_rows(builder: ConicBuilder, name: str) -> None:
    """Theorem 2 (eq. 21) for ``v = (P o D) 1``: ``t + c (B+1) - 2 phat.r`` is the objective.

    ``r_x^2 <= c (t - v_x)`` as 3-d second-order cones; ``v`` is a variable
    defined by rows of its own (:func:`_distortion_definition`).
    """
    n_x = builder.protocol.shape[0]
    t = builder.variable(f"{name}.t", ())
    c = builder.variable(f"{name}.c", ())
    r = builder.variable(f"{name}.r", (n_x,))
    v = builder.variable(f"{name}.v", (n_x,))
    _distortion_definition(builder, f"{name}.v", v)
    local = 3 * np.arange(n_x)
    rows = np.concatenate([local, local, local, local + 1, local + 2, local + 2, local + 2])
    cols = np.concatenate([np.full(n_x, c), np.full(n_x, t), v, r, np.full(n_x, c),
                           np.full(n_x, t), v])
    vals = np.repeat([-1.0, -1.0, 1.0, -2.0, -1.0, 1.0, -1.0], n_x)
    builder.add("soc", name, rows, cols, vals, 0.0, 3 * n_x)
    builder.cost(t, DataSource(None))
    builder.cost(c, DataSource("b_plus_one", 0))
    builder.cost(r, DataSource("phat", np.arange(n_x), -2.0))
    builder.name_objective("worst_case_distortion")


def _distortion_definition(builder: ConicBuilder, group: str, v: np.ndarray) -> None:
    """``v_x = sum_y d(u_x, y) P[x, y]`` for every x.

    With the rows ``sum_y P[x, y] = 1`` this is ``v_x = a_x + sum_y (d(u_x, y) - a_x) P[x, y]``
    for any ``a_x``; taking ``a_x`` the most frequent entry of the row leaves Hamming
    distortion one entry, ``-P[x, u_x]``. Such rows touch one output each, so they are
    written plainly: linked (mixed) they would be ~|X||Y| nonzeros that every output's
    block of the KKT system is coupled to (RURP 10x20: 2.28M nonzeros in ``A`` against
    1.48M, Clarabel 17% faster per iteration, the same 47 iterations). The dual is
    reported for the rows as declared (``folded_groups`` of :class:`solvers.conic.ConicProgram`).
    Rows with several entries left are linked as before.
    """
    n_x, stochastic = v.size, builder.stochastic_group
    distortion = builder.distortion_rows()
    base = _row_modes(distortion)
    rest = distortion - base[:, None]
    one_entry = bool(np.all(np.count_nonzero(rest, axis=1) <= 1))
    if stochastic is None or not one_entry:
        base, rest = np.zeros(n_x), distortion
    rows = builder.cell_rows(-rest) + sp.csr_matrix((np.ones(n_x), (np.arange(n_x), v)),
                                                    shape=(n_x, builder.n))
    if stochastic is None or not one_entry:
        builder.linked_rows(group, rows, base)
        return
    coo = sp.coo_matrix(rows)
    builder.add("zero", group, coo.row, coo.col, coo.data, base, n_x)
    builder.folds.append((group, stochastic, base))


def _row_modes(rows: np.ndarray) -> np.ndarray:
    """The most frequent entry of each row (the smallest among ties)."""
    modes = np.empty(rows.shape[0])
    for i, row in enumerate(rows):
        values, counts = np.unique(row, return_counts=True)
        modes[i] = values[np.argmax(counts)]
    return modes


@functools.lru_cache(maxsize=64)
def _lemma2(eps: float) -> symbolic_values.BlockConjugate:
    """Lemma 2's scales at ``eps`` (:func:`rldp_models.symbolic_values.lemma2_conjugate`)."""
    return symbolic_values.lemma2_conjugate(eps)


def robust_privacy_rows(builder: ConicBuilder, name: str, eps: float,
                        outputs: list[int] | None = None,
                        pairs: list[tuple[int, int]] | None = None) -> None:
    """Theorem 4 (eq. 29) per ordered pair and output: ``t_1 + t_2 + c rho - K (q_1 + q_2)
    <= lemma2.value``, ``t_i >= scale_i P(y | s_i, u)``, ``r^2 <= c (t_i - scale_i P)``,
    ``q_i^3 <= h_i^2 c`` with ``h_i = sum_u Phat_{s_i,u} r_{i,u}``.

    ``outputs`` (columns of ``P``) and ``pairs`` restrict the rows (default: all).
    Groups ``<name>[s1,s2]`` with multipliers ``<group>.c`` and ``<group>.t``. A cell
    without records (``Phat_{s,u} = 0``) has no weight in ``h``, so its cone
    ``r^2 <= c (t - v(u))`` only says ``t >= v(u)`` (``c >= 0`` follows from the
    side's counted cells): it is written as that linear row, unless the program is
    ``parametric`` (new counts may fill the cell; the model is refilled, not rebuilt).
    The side cones of a program that is not parametric are offered boosted
    (:meth:`ConicBuilder.boost_last_cones`, by :func:`_side_boost`).
    """
    protocol, power = builder.protocol, builder.power
    if outputs is not None:
        protocol = protocol[:, outputs]
    n_s, n_u = builder.data.phat.shape
    n_y = protocol.shape[1]
    lemma2 = _lemma2(eps)
    k = symbolic_values.THEOREM4_CONSTANT
    ys = np.arange(n_y)
    for s1, s2 in (ordered_secret_pairs(n_s) if pairs is None else pairs):
        group = f"{name}[{s1},{s2}]"
        c = builder.variable(f"{group}.c", (n_y,))
        t = builder.variable(f"{group}.t", (2, n_y))
        q = builder.variable(f"{group}.q", (2, n_y))
        cols = np.stack([t[0], t[1], c, q[0], q[1]], axis=1).ravel()
        rho = (np.arange(2, 5 * n_y, 5), DataSource("rho", np.full(n_y, s1 * n_s + s2)))
        builder.add("nonneg", group, np.repeat(ys, 5), cols, np.tile([1, 1, 0, -k, -k], n_y),
                    lemma2.value, n_y, fills=(rho,))
        if builder.data.zero_secrets[s1] and builder.data.zero_secrets[s2]:
            builder.add("nonneg", group, ys, c, -1.0, 0.0, n_y)  # else implied by the cones
        for i, (s, scale) in enumerate(((s1, lemma2.scale1), (s2, lemma2.scale2))):
            cells = protocol[s * n_u:(s + 1) * n_u]  # (n_u, n_y)
            if builder.data.zero_secrets[s]:
                _empty_side(builder, group, t[i], q[i], cells, scale)
                continue
            counted = _counted_cells(builder, s)
            _upper_rows(builder, group, t[i], np.delete(cells, counted, axis=0), scale)
            r = builder.variable(f"{group}.r{i + 1}", (counted.size, n_y))
            _side_cones(builder, group, c, t[i], r, cells[counted], scale)
            if not builder.program.parametric:
                builder.boost_last_cones(r.size, _side_boost(builder.data.phat[s].sum()))
            _cube_cone(builder, (group, i + 1), c, q[i], r,
                       DataSource("phat", np.tile(s * n_u + counted, n_y), -1.0), power)


# Theorem 4's side cones r^2 <= c g (g = t - scale P) are offered to the solver boosted by
# lam = sqrt(c / g) as the optimum has it, so that c / lam and lam g are O(1) there. At the
# optimum of RURP (Hamming, eps 1) on Adult race x education, sqrt(c / g) * sqrt(Phat_s) has
# median 1.37-1.45 on the high side and 0.9-1.45 on the low side over all 20 pairs (c is
# 6-17 on every pair; g grows with the side's mass Phat_s, 0.04 at Phat_s = 0.01 to 3-6 at
# 0.85), hence lam = 1.4 / sqrt(Phat_s). Measured (solve + optimality certificate, one
# process each): 10x20 49 -> 45 iterations, proven gap 4.2e-5 -> 1.2e-5; education x
# occupation 68 -> 60, 1.0e-3 -> 6.0e-4; race x education 66 -> 58, 7.8e-5 -> 9.4e-5.
# Capping lam (education x occupation reaches 35) at 5 or 7 loosened race x education's gap
# to 1.9e-4 / 2.3e-4, and kappa = 1 or 2 to 2.3e-4 / 1.8e-4; not kept.
SIDE_BOOST_CONSTANT = 1.4


def _side_boost(mass: float) -> float:
    """``lam`` for the side cones of a secret with mass ``Phat_s`` (see above)."""
    return SIDE_BOOST_CONSTANT / float(np.sqrt(mass))


def _counted_cells(builder: ConicBuilder, s: int) -> np.ndarray:
    """The cells u of secret ``s`` that get cones: those with records, or all of them in a
    ``parametric`` program (see :func:`robust_privacy_rows`)."""
    if builder.program.parametric:
        return np.arange(builder.data.phat.shape[1])
    return np.flatnonzero(builder.data.phat[s] > 0)


def _side_cones(builder: ConicBuilder, group: str, c: np.ndarray, t: np.ndarray, r: np.ndarray,
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


def _cube_cone(builder: ConicBuilder, side: tuple[str, int], c: np.ndarray, q: np.ndarray,
               r: np.ndarray, minus_phat: DataSource, power: str) -> None:
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


def _upper_rows(builder: ConicBuilder, group: str, t: np.ndarray, cells: np.ndarray,
                scale: float) -> None:
    """``t >= scale P(y | s, u)`` for the given cells (rows u of ``cells``) and every y."""
    n_u, n_y = cells.shape
    if n_u == 0:
        return
    local = np.arange(n_u * n_y)
    t_grid = np.broadcast_to(t, (n_u, n_y)).ravel()
    builder.add("nonneg", group, np.concatenate([local, local]),
                np.concatenate([t_grid, cells.ravel()]),
                np.repeat([-1.0, scale], n_u * n_y), 0.0, n_u * n_y)


def _empty_side(builder: ConicBuilder, group: str, t: np.ndarray, q: np.ndarray,
                cells: np.ndarray, scale: float) -> None:
    """A secret without records: ``q = 0`` and ``t >= scale P(y | s, u)`` for every u."""
    _upper_rows(builder, group, t, cells, scale)
    builder.add("zero", group, np.arange(cells.shape[1]), q, 1.0, 0.0, cells.shape[1])


def nominal_privacy_rows(builder: ConicBuilder, name: str, eps: float) -> None:
    """Eq. (6) at ``Phat``; a record-less secret's side is taken at every u (as in cvxpy)."""
    protocol = builder.protocol
    n_s, n_u = builder.data.phat.shape
    n_y = protocol.shape[1]
    factor = float(np.exp(eps))
    zero = builder.data.zero_secrets
    rows = np.repeat(np.arange(n_y)[None, :], 2 * n_u, axis=0)
    for s1, s2 in ordered_secret_pairs(n_s):
        cells = np.concatenate([protocol[s1 * n_u:(s1 + 1) * n_u],
                                protocol[s2 * n_u:(s2 + 1) * n_u]])  # (2 n_u, n_y)
        for high in (np.eye(n_u) if zero[s1] else [None]):
            for low in (np.eye(n_u) if zero[s2] else [None]):
                weights, fills = _side_weights(high, low, s1, s2, n_u, n_y, factor)
                builder.add("nonneg", name, rows, cells,
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
            fills.append((positions.ravel(), DataSource("conditional",
                                                     np.repeat(s * n_u + np.arange(n_u), n_y),
                                                     scale)))
    return weights, tuple(fills)
