"""Independent references for the PolyOpt tests (no code shared with the package).

* ``lemma9_min``: eq. (36) with Lemma 8's ``B_s``, written out directly.
* ``gamma_polytope_vertices``: vertices of ``{T >= 0, eq. (44) for s1 != s2,
  sum T = 1}`` by brute force over all subsets of ``a - 1`` active constraints.
* ``ray_lp_value``: the LP (47) over given vertices by ``scipy.optimize.linprog``.
* ``mutual_information``: ``I_P(X;Y)`` from its definition.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import linprog
from scipy.stats import chi2


def lemma9_min(counts: np.ndarray, alpha: float) -> np.ndarray:
    """``P^min_{u|s}`` from eq. (36) applied to Lemma 8's conditional sets."""
    n = counts.sum()
    b = chi2.ppf(1 - alpha, counts.size - 1) / n
    out = np.zeros(counts.shape)
    for s, row in enumerate(counts):
        ps = row.sum() / n
        if ps == 0:
            continue
        bs = (np.sqrt(b + 1) + ps - 1) ** 2 / ps**2 - 1
        q = row / row.sum()
        out[s] = (bs + 2 * q - np.sqrt(bs**2 + 4 * bs * q - 4 * bs * q**2)) / (2 * bs + 2)
    return np.clip(out, 0, 1)


def eq44_matrix(pmin: np.ndarray, ratio: float) -> np.ndarray:
    """Rows ``g`` with ``g.T <= 0`` on Gamma, eq. (44) literally, ``s1 != s2``."""
    n_s, n_u = pmin.shape
    rows = []
    for s1, s2 in itertools.permutations(range(n_s), 2):
        for u1, u2 in itertools.product(range(n_u), repeat=2):
            g = np.zeros((n_s, n_u))
            g[s1, u1] += 1
            g[s2, u2] -= ratio
            g[s1] += pmin[s1]
            g[s1, u1] -= pmin[s1].sum()
            g[s2] -= ratio * pmin[s2]
            g[s2, u2] += ratio * pmin[s2].sum()
            rows.append(g.ravel())
    return np.array(rows)


def gamma_polytope_vertices(pmin: np.ndarray, ratio: float) -> np.ndarray:
    """Vertices (columns) of ``{T >= 0, eq. (44), sum T = 1}`` by active-set brute force."""
    G = eq44_matrix(pmin, ratio)
    a = G.shape[1]
    constraints = np.vstack([-np.eye(a), G])  # all as  c.T <= 0
    found = []
    for active in itertools.combinations(range(len(constraints)), a - 1):
        system = np.vstack([constraints[list(active)], np.ones(a)])
        if abs(np.linalg.det(system)) < 1e-12:
            continue
        t = np.linalg.solve(system, np.eye(a)[-1])
        if np.all(constraints @ t <= 1e-10):
            found.append(np.clip(t, 0, None))
    vertices = np.unique(np.round(np.array(found), 10), axis=0)
    return vertices.T


def mi_column(v: np.ndarray, p: np.ndarray) -> float:
    """``mu(v) = sum_x p_x v_x log(v_x / p.v)`` (eq. 45)."""
    m = p @ v
    mask = v > 0
    return float(np.sum(p[mask] * v[mask] * np.log(v[mask] / m))) if m > 0 else 0.0


def ray_lp_value(vertices: np.ndarray, p: np.ndarray) -> float:
    """``max sum theta_v mu(v)  s.t.  sum theta_v v = 1, theta >= 0`` (eq. 47)."""
    mu = np.array([mi_column(v, p) for v in vertices.T])
    res = linprog(-mu, A_eq=vertices, b_eq=np.ones(vertices.shape[0]), bounds=(0, None),
                  method="highs")
    assert res.status == 0, res.message
    return float(-res.fun)


def mutual_information(Q: np.ndarray, p: np.ndarray) -> float:
    """``I_P(X;Y)`` of the protocol ``Q[x, y]``."""
    return float(sum(mi_column(Q[:, y], p) for y in range(Q.shape[1])))
