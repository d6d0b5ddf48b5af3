"""Extreme rays of a cone ``{q >= 0 : A q >= 0}`` by double description.

Floating-point cddlib (``pycddlib-standalone`` 3.x, ``import cdd``) runs first.
Its rays are accepted only when they pass these checks; otherwise the exact
integer double description of :mod:`rldp_models.conelp.exact_dd` is used:

0. no two constraints are nearly, but not exactly, opposite (see
   :data:`SLAB_TOLERANCE`): such a pair confines the cone to a slab thinner
   than cdd's zero tolerance, where cdd merges distinct rays and both row
   orders below lose the same ones (at ``0 < eps < 1e-7`` it did so for most
   random joints, which left the cone LP infeasible or its dual certificate
   priced on an incomplete ray set). Exactly opposite rows (an equality, as at
   ``eps = 0``) are fine;
1. the cone is pointed (cdd reports no lineality) and every ray is nonzero;
2. each ray is *polished* to the null vector of the constraints it makes tight
   (an SVD), which exists and is unique exactly when those constraints have
   rank ``d - 1``, the rank condition of an extreme ray;
3. the polished ray satisfies every constraint, ``a.v >= -1e-12 |a| |v|``;
4. no two rays coincide;
5. a second cdd run with another row order returns the same rays. Float
   double description fails by dropping or bending rays depending on the
   order in which rows are added, so two orders agreeing is the consistency
   test (a complete cross-check, H -> V -> H, costs far more than the
   enumeration itself at ``d = 20``). The orders of :data:`ROW_ORDERS` are
   tried in turn until two agree.

Exactness of the constants is the caller's job: the cones of this package
are built with ``e^eps`` rounded inward (see
:func:`rldp_models.conelp.cones.inner_ratio`) and, for the exact method, from
exact rational data (:func:`rldp_models.conelp.joint.exact`), so both the
float rays and the exact rays lie in the cone the privacy guarantee states.
pycddlib-standalone has no ``cdd.gmp``, hence the exact method is our own.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

import cdd
import numpy as np
from scipy.spatial import cKDTree

from rldp_models.conelp.exact_dd import exact_extreme_rays, normalised_float_rays
from rldp_models.conelp.rays import ExplicitRays
from rldp_models.errors import InputError

TIGHT_TOLERANCE = 1e-9
"""A constraint counts as tight at a unit ray when ``|a.v| <= this`` (unit-norm rows)."""

FEASIBILITY_TOLERANCE = 1e-12
"""Largest accepted violation ``-a.v`` of a polished unit ray (unit-norm rows)."""

RANK_GAP = 1e-8
"""Second-smallest singular value of the tight rows must exceed this (rank ``d - 1``)."""

MATCH_TOLERANCE = 1e-7
"""Two runs agree when every ray of one has a ray of the other this close (sum-1 scaling)."""

SLAB_TOLERANCE = 1e-4
"""Unit rows ``a``, ``b`` with ``0 < |a + b| <`` this send the cone to the exact method.

``|a + b|`` is the angle of the slab ``{q : a.q >= 0, b.q >= 0}``; the pairwise
ratio rows at ``e^eps = 1 + delta`` give about ``delta``. Float cdd returned
wrong ray sets that passed checks 1-5 up to ``|a + b|`` near ``1e-6``."""

ROW_ORDERS = ((cdd.RowOrderType.MAX_INDEX, False), (cdd.RowOrderType.MAX_INDEX, True),
              (cdd.RowOrderType.LEX_MIN, False))
"""cddlib row orders, each with whether the cone's rows are handed over reversed.

The time cddlib takes depends on the order by up to 15x, and no order wins
everywhere: at PolyOpt 3x4, eps 0.2 (six Jeffreys draws) the rows in index
order take 0.8-4.1 s both ways round against 2.7-14.2 s lexicographically;
at eps 2 (seed 0) lexicographic takes 29 s, index order 159 s. The index
orders go first, as ``"auto"`` enumerates at small eps."""


class FloatDoubleDescriptionError(ArithmeticError):
    """Floating-point cddlib returned rays that fail verification."""


def extreme_rays(A: np.ndarray, *, method: Literal["auto", "float", "exact"] = "auto"
                 ) -> ExplicitRays:
    """Extreme rays of ``C = {q in R^d : q >= 0, A q >= 0}``, scaled to sum 1.

    Parameters
    ----------
    A : ndarray, shape (m, d)
        Rows ``a`` of the constraints ``a.q >= 0`` besides ``q >= 0``: floats,
        or :class:`~fractions.Fraction` objects (see
        :func:`rldp_models.conelp.joint.exact`), which the exact method uses
        as they are and the float method rounds.
    method : {"auto", "float", "exact"}
        ``"auto"``: verified float cddlib, exact on failure. ``"float"``:
        float only (raises :class:`FloatDoubleDescriptionError` on failure).
        ``"exact"``: exact integer double description.

    Returns
    -------
    ExplicitRays
        Columns ``v_r``, with ``exact`` set when the exact method produced them.
    """
    A = np.asarray(A)
    if A.ndim != 2 or A.shape[1] == 0:
        raise InputError(f"A must be 2-D with at least one column, got shape {A.shape}")
    if method == "exact":
        return _exact(A)
    try:
        return ExplicitRays(_float_rays(_unit_rows(A.astype(float))))
    except FloatDoubleDescriptionError:
        if method == "float":
            raise
        return _exact(A)


def _unit_rows(A: np.ndarray) -> np.ndarray:
    """Rows of ``A`` scaled to unit norm, zero rows and duplicates dropped."""
    if not np.all(np.isfinite(A)):
        raise InputError("A has a non-finite entry")
    norms = np.linalg.norm(A, axis=1)
    rows = A[norms > 0] / norms[norms > 0, None]
    return np.unique(rows, axis=0)


def _exact(A: np.ndarray) -> ExplicitRays:
    d = A.shape[1]
    rays = exact_extreme_rays([[Fraction(value) for value in row] for row in A], d)
    return ExplicitRays(normalised_float_rays(rays, d), exact=True)


def _float_rays(rows: np.ndarray) -> np.ndarray:
    """Verified float rays (checks 0-5 of the module docstring), scaled to sum 1."""
    if _thinnest_slab(rows) < SLAB_TOLERANCE:
        raise FloatDoubleDescriptionError("two constraints are nearly opposite: the cone is "
                                          "a slab too thin for float cdd")
    earlier_runs: list[np.ndarray] = []
    for order, reverse in ROW_ORDERS:
        try:
            rays = _cdd_rays(rows[::-1] if reverse else rows, order)
        except FloatDoubleDescriptionError:
            continue
        for polished in earlier_runs:
            if _same_rays(polished, rays / rays.sum(axis=0)):
                return polished
        try:
            earlier_runs.append(polish_rays(rows, rays))
        except FloatDoubleDescriptionError:
            continue
    raise FloatDoubleDescriptionError("no two row orders gave the same rays")


def _thinnest_slab(rows: np.ndarray) -> float:
    """Smallest nonzero ``|a + b|`` over pairs of unit rows (``inf`` when none is near).

    Candidates come from the Gram matrix (``|a + b|^2 = 2 + 2 a.b``); their
    ``|a + b|`` is then computed directly, so exact opposites give exactly 0.
    """
    near = np.triu(rows @ rows.T < SLAB_TOLERANCE**2 - 1.0, 1)
    first, second = np.nonzero(near)
    widths = np.linalg.norm(rows[first] + rows[second], axis=1)
    return float(widths[widths > 0].min(initial=np.inf))


def _cdd_rays(rows: np.ndarray, order: cdd.RowOrderType) -> np.ndarray:
    """Raw cdd rays of ``{q >= 0 : rows q >= 0}`` as columns."""
    d = rows.shape[1]
    constraints = np.vstack([np.eye(d), rows])
    array = np.hstack([np.zeros((constraints.shape[0], 1)), constraints])
    matrix = cdd.matrix_from_array(array.tolist(), rep_type=cdd.RepType.INEQUALITY)
    try:
        generators = cdd.copy_generators(cdd.polyhedron_from_matrix(matrix, row_order=order))
    except RuntimeError as exc:
        raise FloatDoubleDescriptionError(str(exc)) from exc
    if generators.lin_set:
        raise FloatDoubleDescriptionError("cdd found a line in a cone inside the orthant")
    output = np.array(generators.array, dtype=float).reshape(-1, d + 1)
    rays = output[output[:, 0] == 0, 1:].T
    if np.any(rays.sum(axis=0) <= 0):
        raise FloatDoubleDescriptionError("cdd returned a ray outside the orthant")
    return rays


def polish_rays(rows: np.ndarray, rays: np.ndarray, *, keep_extreme: bool = False,
                tight: np.ndarray | None = None) -> np.ndarray:
    """Each ray replaced by the null vector of its tight constraints; checks 2-4.

    ``rows`` must have unit norm. Raises :class:`FloatDoubleDescriptionError`
    when a ray's tight constraints do not have rank ``d - 1`` or the result
    violates a constraint. With ``keep_extreme``, rays whose tight constraints
    fail the rank test are dropped instead, and repeats are merged (for
    candidate sets, e.g. :mod:`rldp_models.conelp.polyopt_block_rays`).
    ``tight`` (``(m, n)`` bool), when the caller knows which rows are tight
    at each ray by construction, replaces the test ``|a.v| <= 1e-9`` (which
    misreads rows at rays with entries spanning many orders of magnitude),
    and the support is then the ray's nonzero entries.

    The tight orthant constraints ``q_x >= 0`` fix the ray's zeros, so the null
    vector is computed on the support only, from the tight rows of ``A``
    restricted to it (rank ``|support| - 1`` there is rank ``d - 1`` overall).
    """
    unit = rays / np.linalg.norm(rays, axis=0)
    if tight is None:
        support = unit > TIGHT_TOLERANCE
        tight = np.abs(rows @ unit) <= TIGHT_TOLERANCE
    else:
        support = unit > 0
    polished = np.zeros_like(unit)
    extreme = np.ones(unit.shape[1], bool)
    sizes = support.sum(axis=0)
    for size in np.unique(sizes):
        group = np.flatnonzero(sizes == size)
        for block in np.array_split(group, -(-group.size // 512)):
            columns = np.nonzero(support[:, block].T)[1].reshape(block.size, size)
            null, extreme[block] = _null_vectors(rows, tight[:, block], columns)
            polished[columns, block[:, None]] = null
    if not keep_extreme and not extreme.all():
        raise FloatDoubleDescriptionError("a ray's tight constraints do not have rank d - 1")
    polished = polished[:, extreme]
    polished *= np.sign(polished.sum(axis=0))
    if np.any(rows @ polished < -FEASIBILITY_TOLERANCE) or np.any(polished < 0):
        raise FloatDoubleDescriptionError("a polished ray violates a constraint")
    scaled = polished / polished.sum(axis=0)
    _, first = np.unique(np.round(scaled, 12), axis=1, return_index=True)
    if keep_extreme:
        return scaled[:, np.sort(first)]
    if first.size != scaled.shape[1]:
        raise FloatDoubleDescriptionError("cdd returned a ray twice")
    return scaled


def _null_vectors(rows: np.ndarray, tight: np.ndarray, columns: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Unit null vectors, on ``columns``, of the tight rows, and whether their rank is ``size - 1``.

    ``tight`` is ``(m, n)``, ``columns`` is ``(n, size)``; returns ``(n, size)``
    and ``(n,)``.
    """
    size = columns.shape[1]
    count = max(int(tight.sum(axis=0).max(initial=0)), 1)
    order = np.argsort(~tight, axis=0, kind="stable")[:count]  # tight rows first, (count, n)
    picked = np.take_along_axis(tight, order, axis=0)
    stacked = (rows[order.T[:, :, None], columns[:, None, :]]
               * picked.T[:, :, None])  # (n, count, size): the tight rows only
    if stacked.shape[1] < size:
        stacked = np.concatenate([stacked, np.zeros((len(columns), size - stacked.shape[1],
                                                     size))], axis=1)
    _, singular, vh = np.linalg.svd(stacked, full_matrices=False)
    ranked = singular[:, size - 2] > RANK_GAP if size > 1 else np.ones(len(columns), bool)
    null = singular[:, size - 1] <= np.sqrt(rows.shape[0] + 1) * TIGHT_TOLERANCE
    return vh[:, size - 1, :], ranked & null


def _same_rays(first: np.ndarray, second: np.ndarray) -> bool:
    """Whether two ray sets coincide up to :data:`MATCH_TOLERANCE`."""
    if first.shape != second.shape:
        return False
    if first.shape[1] == 0:
        return True
    distances, _ = cKDTree(second.T).query(first.T)
    return bool(np.all(distances <= MATCH_TOLERANCE))
