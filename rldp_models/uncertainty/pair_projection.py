"""Projection of a chi-square set onto a pair of conditionals (Theorems 3 and 4).

For secrets ``s1 != s2`` the set ``F_{U|s1,s2}`` of pairs
``(P_{U|s1}, P_{U|s2})`` with ``P in F`` is (Theorem 3, eq. 28)

``{(R1, R2) : sum_i sqrt(sum_u Phat_{s_i,u}^2 / R_i(u)) <= rho}``,
``rho = sqrt(B+1) - 1 + Phat_{s1} + Phat_{s2}``.

Derivation (used by :meth:`PairProjection.realise`): with masses
``p_i = P_{s_i}`` and ``g_i = sqrt(sum_u Phat_{s_i,u}^2/R_i(u))``,
``g_0 = 1 - Phat_{s1} - Phat_{s2}``, the smallest ``sum Phat^2/P`` over all
``P`` with these conditionals is ``min_{p} sum_i g_i^2/p_i = (g_0+g_1+g_2)^2``,
attained at ``p_i`` proportional to ``g_i``; the pair is in the projection iff
this is ``<= B + 1``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rldp_models import symbolic_values
from rldp_models.uncertainty.scalar_search import (
    direct_solver_options,
    minimise_convex_on_half_line,
)


@dataclass(frozen=True)
class PairSupportValue:
    """Theorem 4's expression at a feasible point, and the point.

    ``value = sum_i t_i + c rho - K c^(2/3) sum_i (sum_u Phat_{s_i,u} sqrt(t_i - v_i(u)))^(2/3)``
    with ``w_i = t_i`` in every cell: an upper bound on the support function,
    equal to it at the minimiser.
    """

    value: float
    t: tuple[float, float]
    c: float


@dataclass(frozen=True)
class PairProjection:
    """The projection ``F_{U|s1,s2}`` of a chi-square set (Theorem 3).

    Parameters
    ----------
    rows : ndarray, shape (2, |U|)
        The joint empirical probabilities ``Phat_{s1,u}`` and ``Phat_{s2,u}``.
    root : float
        ``sqrt(B + 1)``.
    rest : float
        ``1 - Phat_{s1} - Phat_{s2}``, the empirical mass of the other secrets.
    """

    rows: np.ndarray
    root: float
    rest: float

    @property
    def rho(self) -> float:
        """Right-hand side of eq. (28): ``sqrt(B+1) - 1 + Phat_{s1} + Phat_{s2}``."""
        return self.root - self.rest

    # ------------------------------------------------------------------ membership
    def spread(self, r1: np.ndarray, r2: np.ndarray) -> np.ndarray:
        """``g_i = sqrt(sum_u Phat_{s_i,u}^2 / R_i(u))`` for both conditionals."""
        values = []
        for row, r in zip(self.rows, (np.asarray(r1, float), np.asarray(r2, float))):
            mask = row > 0
            if np.any(r[mask] <= 0):
                values.append(np.inf)
            else:
                values.append(float(np.sqrt(np.sum(row[mask] ** 2 / r[mask]))))
        return np.array(values)

    def contains(self, r1: np.ndarray, r2: np.ndarray, tol: float = 0.0) -> bool:
        """Whether ``(R1, R2)`` lies in the projection (eq. 28)."""
        in_simplex = all(np.all(np.asarray(r) >= -tol) and abs(np.sum(r) - 1) <= tol
                         for r in (r1, r2))
        return bool(in_simplex and self.spread(r1, r2).sum() <= self.rho + tol)

    def realise(self, r1: np.ndarray, r2: np.ndarray) -> tuple[float, float, float]:
        """Masses ``(P_{s1}, P_{s2}, P_rest)`` of a distribution in ``F`` with these conditionals.

        The rows of the other secrets get mass ``P_rest`` in proportion to
        ``Phat``. A secret with ``Phat_s = 0`` gets a small positive mass taken
        from the slack of the constraint, so that its conditional exists.

        Raises
        ------
        ValueError
            If the pair is not in the projection, or a zero row leaves no slack.
        """
        g = np.concatenate([[self.rest], self.spread(r1, r2)])
        total = g.sum()
        if not total <= self.root:
            raise ValueError("the pair is not in the projection")
        masses = g / total
        zero_rows = [i for i in (1, 2) if g[i] == 0.0]
        if zero_rows:
            slack = 1.0 - (total / self.root) ** 2
            if slack <= 0:
                raise ValueError("no slack left to give a zero row positive mass")
            share = slack / (2 * len(zero_rows))
            masses = masses * (1.0 - share * len(zero_rows))
            masses[zero_rows] = share
        return float(masses[1]), float(masses[2]), float(masses[0])

    # ------------------------------------------------------------------ support function
    def support(self, v1: np.ndarray, v2: np.ndarray) -> float:
        """Support function by the closed form of Theorem 4 (eq. 29)."""
        return self.support_certificate(v1, v2).value

    def support_certificate(self, v1: np.ndarray, v2: np.ndarray) -> PairSupportValue:
        """Theorem 4 with ``w_i = t_i`` in every cell, minimised over ``c`` and ``t``.

        For fixed ``c`` the problem separates into one convex problem in
        ``t_i`` per conditional; the outer problem in ``c`` is convex too.
        """
        vs = (np.asarray(v1, dtype=float), np.asarray(v2, dtype=float))
        k = symbolic_values.THEOREM4_CONSTANT
        scale = max(sum(float(np.ptp(v)) + abs(float(v.max())) for v in vs), 1e-12)

        def inner(c: float) -> tuple[float, tuple[float, float]]:
            total, ts = c * self.rho, []
            for row, v in zip(self.rows, vs):
                def term(t: float, row: np.ndarray = row, v: np.ndarray = v) -> float:
                    h = float(row @ np.sqrt(np.maximum(t - v, 0.0)))
                    return t - k * c ** (2.0 / 3.0) * h ** (2.0 / 3.0)

                t_i, value = minimise_convex_on_half_line(term, float(v.max()), scale)
                total += value
                ts.append(t_i)
            return total, (ts[0], ts[1])

        c, value = minimise_convex_on_half_line(lambda c: inner(c)[0], 0.0, scale / self.rho)
        _, ts = inner(c)
        return PairSupportValue(value=value, t=ts, c=c)

    def support_direct(self, v1: np.ndarray, v2: np.ndarray,
                       solver: str = "clarabel") -> tuple[float, np.ndarray, np.ndarray]:
        """Maximise ``v1.R1 + v2.R2`` over the projection directly.

        A conic program over the description of eq. (28) — not over its
        support function — with ``k_u^2 R(u) >= Phat_u^2`` written as a power
        cone and ``g_i >= ||k_i||_2``. Returns the value and the maximiser.
        """
        import cvxpy as cp

        r = [cp.Variable(self.rows.shape[1], nonneg=True) for _ in range(2)]
        g = cp.Variable(2, nonneg=True)
        constraints = [g[0] + g[1] <= self.rho]
        for i, row in enumerate(self.rows):
            constraints.append(cp.sum(r[i]) == 1)
            mask = np.flatnonzero(row > 0)
            if mask.size:
                k = cp.Variable(mask.size, nonneg=True)
                constraints += [cp.PowCone3D(k, r[i][mask], row[mask] ** (2.0 / 3.0), 2.0 / 3.0),
                                cp.norm(k, 2) <= g[i]]
        objective = cp.Maximize(np.asarray(v1, float) @ r[0] + np.asarray(v2, float) @ r[1])
        problem = cp.Problem(objective, constraints)
        problem.solve(solver=solver.upper(), **direct_solver_options(solver))
        return float(problem.value), np.asarray(r[0].value), np.asarray(r[1].value)
