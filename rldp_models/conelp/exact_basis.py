"""The cone LP's basic solution recomputed in exact rationals, as an exactly private mechanism.

The LP of :mod:`rldp_models.conelp.engine` returns ``Q = [theta_r v_r]`` over
the rays in its support, in floating point. When the privacy constraints are
equalities (``eps = 0``: ``P(y|s) = P(y|s')``), rounding ``Q`` to exact rows
breaks them and mixing with the uniform mechanism cannot restore them (it
meets them with no slack), so :mod:`rldp_models.conelp.mechanism` used to fall
back to the one-output mechanism, losing all utility. This module repairs
the cause instead:

1. **Exact rays.** Each ray ``v_r`` in the support is the one-dimensional
   null space of the cone's constraints tight at it (``a.v = 0`` for rows
   ``a`` of the H-representation ``{q >= 0 : A q >= 0}``, ``v_x = 0``), solved
   in exact rationals (python-flint ``fmpq_mat.rref``) from the exact rows the
   LP's rays were computed from; the exact ray must satisfy every row.
2. **Exact weights.** ``sum_r w_r v_r = 1`` solved exactly on the support
   (the basic solution); it must be unique and ``w >= 0``.
3. **Exact rows of doubles.** Each ray scaled to a primitive integer vector
   ``n_r``; ``k_r = floor(w_r 2^52)`` (in those units), so the columns
   ``k_r n_r / 2^52`` are multiples of ``2^-52`` in ``[0, 1]`` (exact doubles) on
   the rays. The residual ``u = 1 - sum_r k_r n_r / 2^52 = sum_r (w_r - k_r
   2^-52) n_r`` is a nonnegative combination of rays, hence in the cone, and
   is added to the heaviest column (the cone is convex). Every row sums to 1
   exactly and every column lies in the LP's cone, which is inside the stated
   one (:func:`rldp_models.conelp.cones.inner_ratio`), so the mechanism passes
   the exact check with no repair; the utility differs from the LP's by the
   rounding of ``w`` (``n_r 2^-52`` per column).

Step 3 needs rays whose primitive integer vectors are short: rays of cones
built from doubles of a generic joint have entries of 100-200 bits, and then
no column on a ray is a multiple of ``2^-52`` (at ``eps = 0`` no informative
exact-double mechanism need exist at all; the exact one needs rational
entries, which the record's ``dyadic-double`` encoding cannot hold). The
exact basic solution rounded to doubles is the other candidate: it passes at
``eps > 0`` where the LP's own solution, off by the solver's tolerance, does
not. No candidate when a step fails (a ray not isolated by its tight rows, a
degenerate or negative basis): the caller keeps its repair.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import floor, gcd, lcm

import flint
import numpy as np

UNIT = 2**52
"""Rows are integers over this denominator (:func:`rldp_models.finish.dyadic_rows`)."""

TIGHT = 1e-9
"""A row is tight at a float ray when ``|a.v| <= TIGHT |a|.|v|`` (``v_x <= TIGHT max v``)."""

Ray = list[Fraction]


@dataclass(frozen=True)
class ExactCone:
    """The LP's cone ``{q >= 0 : A q >= 0}`` in mechanism form, exactly.

    Attributes
    ----------
    rows : ndarray of Fraction, shape (m, d)
        ``A``, the exact rows the LP's rays were computed from.
    scale : ndarray of Fraction, shape (d,), or None
        When the LP's rays are in another form ``v = scale * q`` (LIP's joint
        form, ``scale = p_X``), the map back to mechanism columns ``q``.
    inputs : ndarray of bool, shape (a,), or None
        When the cone is over some inputs only (LIP drops those of zero mass,
        which enter no privacy constraint), which; the others get a copy of
        the first row, an exact distribution.
    """

    rows: np.ndarray
    scale: np.ndarray | None = None
    inputs: np.ndarray | None = None


def exact_basis_mechanisms(vectors: np.ndarray, cone: ExactCone) -> list[np.ndarray]:
    """Candidate mechanisms from the LP's basic solution on the rays ``vectors`` (columns).

    The exact dyadic columns on the rays (step 3 of the module docstring) when
    every ray fits, and the exact basic solution rounded to doubles (for the
    caller to round to exact rows and check: at ``eps > 0`` the inner cone's
    margin absorbs that rounding, while the LP's own solution is off by its
    feasibility tolerance). Empty when the exact basis cannot be formed.
    """
    vectors = np.asarray(vectors, dtype=float)
    if cone.scale is not None:
        vectors = vectors / np.asarray(cone.scale, dtype=float)[:, None]
    rows_float = cone.rows.astype(float)
    rays = [exact_ray(vectors[:, r], cone.rows, rows_float) for r in range(vectors.shape[1])]
    exact_rays = [ray for ray in rays if ray is not None]
    if not rays or len(exact_rays) < len(rays):
        return []
    integers = [_primitive(ray) for ray in exact_rays]
    weights = _basis_weights(integers)
    if weights is None:
        return []
    rounded = np.array([[float(w * n) for w, n in zip(weights, ray_values)]
                        for ray_values in zip(*integers)])
    on_rays = _dyadic_columns(integers, weights)
    return [_all_inputs(Q, cone.inputs) for Q in (on_rays, rounded) if Q is not None]


def _all_inputs(Q: np.ndarray, inputs: np.ndarray | None) -> np.ndarray:
    """``Q`` on the cone's inputs, the first row copied to the others."""
    if inputs is None:
        return Q
    full = np.empty((inputs.size, Q.shape[1]))
    full[inputs], full[~inputs] = Q, Q[0]
    return full


def exact_ray(vector: np.ndarray, rows: np.ndarray, rows_float: np.ndarray) -> Ray | None:
    """The exact ray of ``{q >= 0 : rows q >= 0}`` that the float ``vector`` approximates.

    The null space of the rows and coordinates tight at ``vector``, if it is a
    line; oriented like ``vector`` and checked against every row exactly.
    """
    d = vector.size
    top = float(np.max(np.abs(vector), initial=0.0))
    if top <= 0.0:
        return None
    v = vector / top
    tight_rows = np.abs(rows_float @ v) <= TIGHT * (np.abs(rows_float) @ np.abs(v))
    zeros = np.flatnonzero(v <= TIGHT)
    system = [list(row) for row in rows[tight_rows]]
    system += [[Fraction(int(i == x)) for i in range(d)] for x in zeros]
    if not system:
        return None
    reduced, rank = flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in row]
                                    for row in system]).rref()
    if rank != d - 1:
        return None
    pivots = [next(c for c in range(d) if reduced[i, c] != 0) for i in range(rank)]
    free = next(c for c in range(d) if c not in pivots)
    ray = [Fraction(0)] * d
    ray[free] = Fraction(1)
    for i, c in enumerate(pivots):
        ray[c] = -_fraction(reduced[i, free])
    if float(np.dot([float(x) for x in ray], v)) < 0:
        ray = [-x for x in ray]
    inside = all(x >= 0 for x in ray) and all(
        sum((a * x for a, x in zip(row, ray) if a and x), Fraction(0)) >= 0 for row in rows)
    return ray if inside and any(ray) else None


def _fraction(value: flint.fmpq) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def _primitive(ray: Ray) -> list[int]:
    """The positive multiple of ``ray`` with coprime integer entries."""
    denominator = lcm(*(x.denominator for x in ray))
    integers = [int(x * denominator) for x in ray]
    divisor = gcd(*integers)
    return [n // divisor for n in integers]


def _basis_weights(rays: list[list[int]]) -> list[Fraction] | None:
    """The unique ``w >= 0`` with ``sum_r w_r rays_r = 1``, exactly; None otherwise."""
    d, m = len(rays[0]), len(rays)
    augmented = flint.fmpq_mat([[rays[r][x] for r in range(m)] + [1] for x in range(d)])
    reduced, rank = augmented.rref()
    if rank != m:  # inconsistent (the ones column is a pivot) or dependent rays
        return None
    weights = [_fraction(reduced[i, m]) for i in range(m)]
    pivots_are_rays = all(reduced[i, i] == 1 for i in range(m))
    if not pivots_are_rays or any(w < 0 for w in weights):
        return None
    return weights


def _dyadic_columns(rays: list[list[int]], weights: list[Fraction]) -> np.ndarray | None:
    """Columns ``floor(w_r 2^52) n_r / 2^52``, the residual added to the heaviest."""
    d = len(rays[0])
    counts = [floor(w * UNIT) for w in weights]
    columns = [[k * n for n in ray] for k, ray in zip(counts, rays) if k > 0]
    if not columns:
        return None
    residual = [UNIT - sum(column[x] for column in columns) for x in range(d)]
    if any(r < 0 for r in residual):
        return None
    heaviest = max(range(len(columns)), key=lambda c: sum(columns[c]))
    columns[heaviest] = [a + b for a, b in zip(columns[heaviest], residual)]
    return np.array(columns, dtype=float).T / UNIT
