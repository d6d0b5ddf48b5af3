"""Estimating the input distribution from privatised outputs.

The analyst knows the mechanism ``Q[x, y] = P(Y=y | X=x)`` and observes the
outputs' frequencies ``f``; the input distribution ``p`` satisfies
``Q^T p = m``, the output distribution (``utility-optimized-ldp.txt`` Sec. 2.5,
eq. (3)). Two estimators are offered:

* **Empirical inversion**: solve ``Q^T p = f`` in the least-squares sense
  (the minimum-norm least-squares solution, i.e. the pseudo-inverse), then
  either clip negatives and renormalise or project onto the simplex in
  Euclidean norm; or (:func:`simplex_least_squares`) least squares over the
  simplex, which unlike those keeps every identifiable quantity where ``Q^T``
  is rank deficient.
* **EM / iterative Bayesian update**: ``p <- p * A^T (f / (A p))``, normalised,
  with ``A[y, x] = Q[x, y]`` (``A^T``, not ``A``: channels need not be square or
  symmetric; ``DESIGN.md``, "Formulas"). Its fixed point is the maximum
  likelihood estimate on the simplex (Sec. 2.5).

For large ``n`` both are asymptotically normal; :func:`inversion_covariance`
and :func:`fisher_covariance` give their covariances computed from the channel.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import null_space
from scipy.optimize import nnls
from threadpoolctl import threadpool_limits

from rldp_models.errors import InputError
from rldp_models.validation import as_nonnegative_array, as_probability_vector, as_stochastic_matrix

CORRECTIONS = ("clip", "project", "none")
"""Ways :func:`empirical_estimate` turns the least-squares solution into an estimate."""


class EMResult(NamedTuple):
    """Outcome of :func:`em_estimate`.

    Attributes
    ----------
    estimate : ndarray
        The estimated input distribution.
    iterations : int
        Updates performed.
    converged : bool
        Whether the last update moved the estimate by at most ``tol`` (L1).
    """

    estimate: np.ndarray
    iterations: int
    converged: bool


def output_frequencies(y: ArrayLike, n_outputs: int) -> np.ndarray:
    """Relative frequencies of the output indices ``y`` over ``0..n_outputs-1``."""
    y = np.asarray(y).ravel()
    if y.size == 0:
        raise InputError("no outputs observed")
    if not np.issubdtype(y.dtype, np.integer) or y.min() < 0 or y.max() >= n_outputs:
        raise InputError(f"outputs must be integers in 0..{n_outputs - 1}")
    return np.bincount(y, minlength=n_outputs) / y.size


def empirical_estimate(Q: ArrayLike, observed: ArrayLike,
                       correction: str = "project") -> np.ndarray:
    """Empirical inversion: least-squares solution of ``Q^T p = f``, then a correction.

    Parameters
    ----------
    Q : array_like, shape (k, m)
        The mechanism.
    observed : array_like, shape (m,)
        Output counts or frequencies (normalised here).
    correction : {"project", "clip", "none"}
        ``"project"``: Euclidean projection onto the simplex; ``"clip"``: set
        negative entries to 0 and renormalise; ``"none"``: the raw solution
        (unbiased when ``Q^T`` has full column rank, may be negative). Where ``Q^T`` is
        rank deficient both corrections may move identifiable quantities; use
        :func:`simplex_least_squares`.
    """
    Q, f = _mechanism_and_frequencies(Q, observed)
    raw = np.linalg.lstsq(Q.T, f, rcond=None)[0]
    if correction == "project":
        return project_to_simplex(raw)
    if correction == "clip":
        clipped = np.clip(raw, 0.0, None)
        if clipped.sum() <= 0:
            raise InputError("the least-squares solution has no positive entry to renormalise")
        return clipped / clipped.sum()
    if correction == "none":
        return raw
    raise InputError(f"unknown correction {correction!r}; choose from {CORRECTIONS}")


def project_to_simplex(v: ArrayLike) -> np.ndarray:
    """Euclidean projection of ``v`` onto the probability simplex
    (:func:`project_rows_to_simplex` of one row)."""
    return project_rows_to_simplex(np.asarray(v, dtype=float)[None, :])[0]


def project_rows_to_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection of every row of ``v`` onto the probability simplex.

    The projection is ``max(v - tau, 0)`` with the threshold ``tau`` found from
    the sorted entries (Held, Wolfe and Crowder 1974; Duchi et al. 2008).
    """
    descending = -np.sort(-v, axis=1)
    cumulative = np.cumsum(descending, axis=1) - 1.0
    ranks = np.arange(1, v.shape[1] + 1)
    support = np.sum(descending - cumulative / ranks > 0, axis=1)
    threshold = cumulative[np.arange(v.shape[0]), support - 1] / support
    return np.clip(v - threshold[:, None], 0.0, None)


SUM_WEIGHT = 1e3
"""Weight of the row ``1^T p = 1`` appended to ``Q^T`` in :func:`simplex_least_squares`."""


def simplex_least_squares(Q: np.ndarray, frequencies: np.ndarray) -> np.ndarray:
    """``argmin ||Q^T p - f||^2`` over the probability simplex, for every row ``f`` of
    ``frequencies``: the least-squares inversion of ``Q^T p = m`` (Sec. 2.5, eq. (3))
    constrained to distributions.

    Lawson and Hanson's NNLS (:func:`scipy.optimize.nnls`) on ``Q^T`` with the row
    ``w 1^T`` appended against ``w``, ``w =`` :data:`SUM_WEIGHT`; the quadratic penalty
    leaves ``1^T p - 1`` of order ``||r||^2 / w^2`` and the result is rescaled onto the
    simplex. Where ``Q^T`` is rank deficient the minimiser is not unique, but ``Q^T p``
    is, and so is ``M p`` for every ``M`` with rows in the row space of ``Q^T``, the
    identifiable targets; projecting ``pinv(Q^T) f`` onto the simplex instead moves
    those too (on Adult race x native-country, GRR-CR rank 5 of 210, ``P_S`` became a
    vertex).
    """
    frequencies = np.atleast_2d(frequencies)
    system = np.vstack([Q.T, np.full(Q.shape[0], SUM_WEIGHT)])
    fits = np.empty((frequencies.shape[0], Q.shape[0]))
    for row, f in enumerate(frequencies):
        fits[row] = nnls(system, np.append(f, SUM_WEIGHT), maxiter=10 * Q.shape[0])[0]
    return fits / fits.sum(axis=1, keepdims=True)


def em_estimate(Q: ArrayLike, observed: ArrayLike, tol: float = 1e-10, max_iter: int = 100_000,
                initial: ArrayLike | None = None) -> EMResult:
    """EM (iterative Bayesian update) estimate of the input distribution.

    Iterates ``p <- p * A^T (f / (A p))``, normalised, with ``A = Q^T``, from
    ``initial`` (uniform by default) until the L1 change is at most ``tol`` or
    ``max_iter`` updates were made.

    Raises
    ------
    InputError
        If an observed output has probability 0 under every input, or
        ``tol``/``max_iter`` are not positive.
    """
    Q, f = _mechanism_and_frequencies(Q, observed)
    if not tol > 0 or max_iter < 1:
        raise InputError(f"need tol > 0 and max_iter >= 1, got {tol!r}, {max_iter!r}")
    if np.any((f > 0) & (Q.sum(axis=0) == 0)):
        raise InputError("an observed output has probability 0 under every input")
    k = Q.shape[0]
    p = np.full(k, 1.0 / k) if initial is None else as_probability_vector(initial, "initial")
    for iteration in range(1, max_iter + 1):
        predicted = p @ Q
        weights = np.divide(f, predicted, out=np.zeros_like(f), where=predicted > 0)
        updated = p * (Q @ weights)
        updated /= updated.sum()
        change = np.abs(updated - p).sum()
        p = updated
        if change <= tol:
            return EMResult(p, iteration, True)
    rank = int(np.linalg.matrix_rank(Q))
    reason = (f"Q has rank {rank} < {k} inputs, so the input distribution is not identifiable "
              "and only some functions of it can be estimated "
              "(rldp_models.disclosure.identifiability decides which, exactly)" if rank < k else
              f"Q has full rank {k}: raise max_iter or tol (EM converges slowly when the "
              "estimate lies near the simplex's boundary)")
    warnings.warn(f"EM stopped after {max_iter} updates without converging; {reason}",
                  EMNotConverged, stacklevel=2)
    return EMResult(p, max_iter, False)


class EMNotConverged(UserWarning):
    """:func:`em_estimate` stopped at its iteration limit."""


class BatchEM(NamedTuple):
    """Outcome of :func:`em_batch`: one estimate per row, the most updates any row made, which
    rows converged and each row's final likelihood gap."""

    estimates: np.ndarray
    iterations: int
    converged: np.ndarray
    gaps: np.ndarray


def likelihood_gap(Q: np.ndarray, frequencies: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Per row, the Frank-Wolfe gap ``max_x g_x - 1`` of ``L(p) = sum_y f_y log (p Q)_y`` on the
    simplex, with ``g = Q (f / p Q)`` the EM multipliers (``p . g = 1``).

    By concavity, ``L* - L(p) <= max_x g_x - p . g``: a bound on how far ``p``'s likelihood
    lies below the maximum (0 exactly at the MLE, where ``g_x = 1`` on the support and
    ``g_x <= 1`` off it: the KKT conditions).
    """
    return _multipliers(Q, frequencies, p).max(axis=1) - 1.0


def _multipliers(Q: np.ndarray, frequencies: np.ndarray, p: np.ndarray) -> np.ndarray:
    predicted = p @ Q
    weights = np.divide(frequencies, predicted, out=np.zeros_like(predicted),
                        where=predicted > 0)
    return weights @ Q.T


def _log_likelihood(Q: np.ndarray, frequencies: np.ndarray, p: np.ndarray) -> np.ndarray:
    predicted = p @ Q
    logs = np.log(predicted, out=np.full_like(predicted, -np.inf), where=predicted > 0)
    return np.sum(np.where(frequencies > 0, frequencies * logs, 0.0), axis=1)


def _likelihood_increase(Q: np.ndarray, f: np.ndarray, predicted: np.ndarray,
                         trial: np.ndarray) -> np.ndarray:
    """``L(trial) - L(p)`` per row from ``p``'s law ``predicted``, computed as
    ``sum f log1p(change / predicted)`` (the difference of two rounded likelihoods loses the
    last steps near the maximum)."""
    change = np.divide(trial @ Q - predicted, predicted, out=np.zeros_like(predicted),
                       where=predicted > 0)
    terms = np.where(f > 0, f * np.log1p(np.maximum(change, -1.0)), 0.0)
    return terms.sum(axis=1)


def em_batch(Q: np.ndarray, frequencies: np.ndarray, tol: float = 1e-13,
             max_iter: int = 20_000, start: np.ndarray | None = None) -> BatchEM:
    """Maximum likelihood ``p`` for every row of ``frequencies`` (shape ``(B, |Y|)``) at once:
    EM (``p <- p * Q (f / p Q)``) accelerated by SQUAREM, until each row's
    :func:`likelihood_gap` is at most ``tol``.

    SQUAREM (Varadhan & Roland, Scand. J. Statist. 35, 2008, scheme S3) extrapolates two EM
    updates ``p1 = F(p0)``, ``p2 = F(p1)`` along ``r = p1 - p0``, ``v = p2 - p1 - r`` to
    ``p0 - 2 a r + a^2 v`` with ``a = -|r| / |v|`` (at most -1), then applies one more EM
    update; a row whose extrapolation leaves the simplex or lowers the likelihood below
    ``p2``'s keeps ``p2`` (plain EM). Plain EM on these channels converges linearly with a
    rate near 1 (a strongly privatising channel flattens the likelihood), and from the uniform
    start ran into its iteration limit.

    Parameters
    ----------
    Q : ndarray, shape (|X|, |Y|)
        The channel.
    frequencies : ndarray, shape (B, |Y|) or (|Y|,)
        Output frequencies, one table per row.
    tol : float
        Likelihood gap at which a row stops (the gap bounds ``L* - L``).
    max_iter : int
        Most extrapolation rounds (three EM updates each).
    start : ndarray, shape (|X|,) or (B, |X|), optional
        Starting points (warm start, e.g. the point estimate for bootstrap tables); uniform
        by default. Must be positive where the MLE may be: EM never leaves a zero.
    """
    frequencies = np.atleast_2d(frequencies)
    rows, k = frequencies.shape[0], Q.shape[0]
    p = np.full((rows, k), 1.0 / k) if start is None else \
        np.array(np.broadcast_to(start, (rows, k)), dtype=float)
    gaps = np.full(rows, np.inf)
    active = np.arange(rows)
    rounds = 0
    while True:
        f, p0 = frequencies[active], p[active]
        g0 = _multipliers(Q, f, p0)
        gaps[active] = g0.max(axis=1) - 1.0
        moving = gaps[active] > tol
        active, f, p0, g0 = active[moving], f[moving], p0[moving], g0[moving]
        if not active.size or rounds == max_iter:
            break
        rounds += 1
        p[active] = _squarem_round(Q, f, p0, g0)
    return BatchEM(p, rounds, gaps <= tol, gaps)


def _squarem_round(Q: np.ndarray, f: np.ndarray, p0: np.ndarray, g0: np.ndarray) -> np.ndarray:
    """One SQUAREM round (S3) for every row (see :func:`em_batch`)."""
    p1 = _normalised(p0 * g0)
    p2 = _normalised(p1 * _multipliers(Q, f, p1))
    r, v = p1 - p0, p2 - 2 * p1 + p0
    norm_v = np.linalg.norm(v, axis=1)
    a = -np.divide(np.linalg.norm(r, axis=1), norm_v, out=np.ones_like(norm_v),
                   where=norm_v > 0)
    a = np.minimum(a, -1.0)[:, None]
    jump = _normalised(np.maximum(p0 - 2 * a * r + a * a * v, SHRINK * p0))
    jump = _normalised(jump * _multipliers(Q, f, jump))
    better = _log_likelihood(Q, f, jump) >= _log_likelihood(Q, f, p2)
    return np.where(better[:, None], jump, p2)


SHRINK = 1e-3
"""An extrapolated coordinate is kept at least this share of its value before the round:
boundary coordinates shrink geometrically instead of being pushed below zero (where the
extrapolation would be rejected and the round fall back to plain EM)."""


def _normalised(p: np.ndarray) -> np.ndarray:
    return p / p.sum(axis=1, keepdims=True)


def newton_batch(Q: np.ndarray, frequencies: np.ndarray, start: np.ndarray,
                 tol: float = 1e-14, max_steps: int = 100) -> BatchEM:
    """Maximum likelihood ``p`` for every row of ``frequencies`` by Newton's method on the
    simplex with an active set, from ``start`` (e.g. :func:`em_batch`'s estimate, or the point
    estimate for bootstrap tables), until each row's :func:`likelihood_gap` is at most ``tol``.

    With ``g = Q (f / p Q)`` (the gradient of ``L``) and ``H = Q diag(f / (p Q)^2) Q^T`` (minus
    its Hessian), the step ``d`` solves ``H d + lambda 1 = g``, ``1 . d = 0`` on the free
    coordinates (``p_x > 0``, or ``p_x = 0`` with ``g_x > 1``: the KKT conditions ask for it to
    grow), 0 elsewhere; a small ridge on ``H`` makes the step the minimum-norm one where ``Q``
    has rank below ``|X|`` (the gradient lies in ``H``'s range, so no direction that leaves the
    law unchanged is taken). The step is cut at the simplex's boundary and halved until ``L``
    increases. Near the maximum it converges quadratically where EM, linear with a rate near 1
    on strongly privatising channels, needs tens of thousands of updates.
    """
    frequencies = np.atleast_2d(frequencies)
    rows, k = frequencies.shape[0], Q.shape[0]
    p = np.array(np.broadcast_to(start, (rows, k)), dtype=float)
    gaps = np.full(rows, np.inf)
    steps = 0
    for chunk in _chunks(rows, k, Q.shape[1]):
        f = frequencies[chunk]
        for step in range(max_steps + 1):
            g = _multipliers(Q, f, p[chunk])
            gaps[chunk] = g.max(axis=1) - 1.0
            moving = gaps[chunk] > tol
            if not moving.any() or step == max_steps:
                break
            steps = max(steps, step + 1)
            index = chunk[moving]
            p[index], improved = _newton_step(Q, f[moving], p[index], g[moving])
            if not improved.all():  # no ascent along the step to rounding: EM rounds instead
                stuck = index[~improved]
                p[stuck] = _squarem_round(Q, frequencies[stuck], p[stuck],
                                          _multipliers(Q, frequencies[stuck], p[stuck]))
    return BatchEM(p, steps, gaps <= tol, gaps)


NEWTON_MEMORY = 2**26
"""Bytes of Hessians :func:`newton_batch` holds at once (rows are taken in chunks)."""


def _chunks(rows: int, k: int, outputs: int) -> list[np.ndarray]:
    size = max(1, NEWTON_MEMORY // (8 * (k + 1) * max(k + 1, outputs)))
    return [np.arange(start, min(rows, start + size)) for start in range(0, rows, size)]


def _newton_step(Q: np.ndarray, f: np.ndarray, p: np.ndarray,
                 g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One damped Newton step per row (see :func:`newton_batch`); the new rows and which
    increased their likelihood."""
    rows, k = p.shape
    predicted = p @ Q
    curvature = np.divide(f, predicted ** 2, out=np.zeros_like(f), where=predicted > 0)
    free = (p > TINY * p.max(axis=1, keepdims=True)) | (g > 1.0)
    p = _normalised(np.where(free, p, 0.0))
    with threadpool_limits(1, user_api="blas"):
        d = _kkt_step(Q, curvature, free, g)
    result, improved = p.copy(), np.zeros(rows, dtype=bool)
    t = np.ones((rows, 1))
    for _ in range(HALVINGS):
        trial = _normalised(np.clip(p + t * d, 0.0, None))
        better = ~improved & (_likelihood_increase(Q, f, predicted, trial) > 0)
        result[better], improved = trial[better], improved | better
        if improved.all():
            break
        t = t / 2
    return result, improved


TINY = 1e-12
"""A coordinate below this share of its row's largest whose multiplier is at most 1 is set to 0
(:func:`newton_batch`): EM only shrinks it geometrically, and it would cut every step."""

def _kkt_step(Q: np.ndarray, curvature: np.ndarray, free: np.ndarray,
              g: np.ndarray) -> np.ndarray:
    """Solve ``H d + lambda 1 = g``, ``1 . d = 0`` on the free coordinates, row by row."""
    rows, k = free.shape
    hessian = (Q[None, :, :] * curvature[:, None, :]) @ Q.T
    mask = free[:, :, None] & free[:, None, :]
    scale = np.trace(hessian, axis1=1, axis2=2)[:, None] / k
    system = np.zeros((rows, k + 1, k + 1))
    system[:, :k, :k] = np.where(mask, hessian, 0.0) + np.eye(k) * np.where(
        free, RIDGE * scale, 1.0)[:, None, :]
    system[:, :k, k] = system[:, k, :k] = free
    right = np.concatenate([np.where(free, g, 0.0), np.zeros((rows, 1))], axis=1)
    return np.linalg.solve(system, right[:, :, None])[:, :k, 0]


RIDGE = 1e-6
"""Ridge added to ``H`` relative to its mean diagonal (:func:`newton_batch`)."""

HALVINGS = 40
"""Most step halvings before a row is left where it is (its likelihood is then maximal to
rounding)."""


def inversion_covariance(Q: ArrayLike, p: ArrayLike, n: int) -> np.ndarray:
    """Covariance of the raw inversion estimate ``pinv(Q^T) f`` from ``n`` outputs.

    ``f`` is multinomial with mean ``m = Q^T p`` and covariance
    ``(diag(m) - m m^T) / n``; the estimate is linear in ``f``.
    """
    Q, p = _mechanism_and_prior(Q, p)
    m = p @ Q
    inverse = np.linalg.pinv(Q.T)
    return inverse @ (np.diag(m) - np.outer(m, m)) @ inverse.T / n


def fisher_covariance(Q: ArrayLike, p: ArrayLike, n: int) -> np.ndarray:
    """Inverse Fisher information of ``p`` on the simplex from ``n`` outputs.

    The asymptotic covariance of the maximum likelihood (EM) estimate when
    ``p`` is interior: with ``V`` a basis of ``{v : sum(v) = 0}`` and
    ``I = V^T Q diag(1/m) Q^T V`` (outputs with ``m_y > 0``), it is
    ``V I^-1 V^T / n``. For an invertible square channel it equals
    :func:`inversion_covariance`.
    """
    Q, p = _mechanism_and_prior(Q, p)
    m = p @ Q
    used = m > 0
    V = null_space(np.ones((1, Q.shape[0])))
    tangent = V.T @ Q[:, used]
    information = tangent @ np.diag(1.0 / m[used]) @ tangent.T
    return V @ np.linalg.inv(information) @ V.T / n


def _mechanism_and_frequencies(Q: ArrayLike, observed: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    Q = as_stochastic_matrix(Q)
    f = as_nonnegative_array(observed, 1, "observed")
    if f.size != Q.shape[1]:
        raise InputError(f"observed has {f.size} entries but Q has {Q.shape[1]} outputs")
    if f.sum() <= 0:
        raise InputError("observed has no positive entry")
    return Q, f / f.sum()


def _mechanism_and_prior(Q: ArrayLike, p: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    Q, p = as_stochastic_matrix(Q), as_probability_vector(p)
    if p.size != Q.shape[0]:
        raise InputError(f"p has {p.size} entries but Q has {Q.shape[0]} inputs")
    return Q, p
