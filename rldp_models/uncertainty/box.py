"""The box set ``{P in simplex : |P_x - Phat_x| <= r}``, a polyhedral set with a closed form.

With ``l = max(Phat - r, 0)`` and ``u = min(Phat + r, 1)`` the dual LP of
:mod:`rldp_models.uncertainty.polyhedral` (``A = [I; -I]``, ``b = [u; -l]``)
reduces to one scalar:

``delta*(v | F) = min_mu  mu + sum_x u_x (v_x - mu)_+ - sum_x l_x (mu - v_x)_+``,

a convex piecewise-linear function of ``mu`` whose minimum sits at a
breakpoint ``mu = v_x``. The direct worst case is the greedy (fractional
knapsack) rule: start from ``l`` and pour the remaining mass ``1 - sum l``
into the cells in decreasing order of ``v``, each up to ``u_x``.

A cell with ``Phat_x = 0`` may still receive up to ``r``: the set does not
assume that unseen cells are impossible.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rldp_models.uncertainty.chi_square import ChiSquareSet
from rldp_models.uncertainty.polyhedral import PolyhedralSet, validated_phat, validated_radius


@dataclass(frozen=True)
class BoxSet(PolyhedralSet):
    """``{P in simplex : |P_x - Phat_x| <= radius}``; build it with :meth:`around`."""

    name: str = "box"

    @classmethod
    def around(cls, phat: np.ndarray, radius: float, alpha: float | None = None) -> "BoxSet":
        """The box of half-width ``radius`` around ``phat``."""
        phat = validated_phat(phat)
        radius = validated_radius(radius)
        flat = phat.ravel()
        eye = np.eye(flat.size)
        upper, lower = np.minimum(flat + radius, 1.0), np.maximum(flat - radius, 0.0)
        return cls(phat, np.vstack([eye, -eye]), np.concatenate([upper, -lower]), radius, alpha)

    @classmethod
    def containing(cls, chi_square: ChiSquareSet) -> "BoxSet":
        """The smallest box around ``Phat`` that contains a chi-square set (Lemma 9 bounds)."""
        lower, upper = chi_square.coordinate_bounds()
        radius = float(np.max(np.maximum(upper - chi_square.phat, chi_square.phat - lower)))
        return cls.around(chi_square.phat, radius, chi_square.alpha)

    @property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(l, u)`` as flat vectors."""
        size = self.phat.size
        return -self.b_vector[size:], self.b_vector[:size]

    def support(self, v: np.ndarray) -> float:
        """The closed form of the module docstring (minimum over the breakpoints ``mu = v_x``)."""
        v = np.asarray(v, dtype=float).ravel()
        lower, upper = self.bounds
        mu = v[:, None]  # one candidate per row
        values = mu[:, 0] + np.sum(upper * np.maximum(v - mu, 0.0), axis=1) \
            - np.sum(lower * np.maximum(mu - v, 0.0), axis=1)
        return float(values.min())

    def support_multipliers(self, v: np.ndarray) -> dict[str, np.ndarray]:
        """Dual multipliers in closed form: ``lam = ((v - mu)_+, (mu - v)_+)``, best ``mu``."""
        v = np.asarray(v, dtype=float).ravel()
        lower, upper = self.bounds
        values = v + np.array([np.sum(upper * np.maximum(v - mu, 0.0))
                               - np.sum(lower * np.maximum(mu - v, 0.0)) for mu in v])
        mu = float(v[int(np.argmin(values))])
        lam = np.concatenate([np.maximum(v - mu, 0.0), np.maximum(mu - v, 0.0)])
        return {"lam": lam, "mu": np.array(mu)}

    def worst_case(self, v: np.ndarray) -> tuple[np.ndarray, float]:
        """The greedy maximiser of the module docstring, and ``v.P`` there."""
        v = np.asarray(v, dtype=float).ravel()
        lower, upper = self.bounds
        p = lower.copy()
        left = 1.0 - p.sum()
        for x in np.argsort(-v, kind="stable"):
            step = min(upper[x] - lower[x], left)
            p[x] += step
            left -= step
            if left <= 0:
                break
        return p.reshape(self.phat.shape), float(v @ p)
