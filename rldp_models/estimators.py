"""Estimating the input distribution from privatised outputs.

The analyst knows the mechanism ``Q[x, y] = P(Y=y | X=x)`` and observes the
outputs' frequencies ``f``; the input distribution ``p`` satisfies
``Q^T p = m``, the output distribution (``utility-optimized-ldp.txt`` Sec. 2.5,
eq. (3)). Two estimators are offered:

* **Empirical inversion**: solve ``Q^T p = f`` in the least-squares sense
  (the minimum-norm least-squares solution, i.e. the pseudo-inverse), then
  either clip negatives and renormalise or project onto the simplex in
  Euclidean norm.
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
        (unbiased when ``Q^T`` has full column rank, may be negative).
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
              "(rldp_models.release.identifiability decides which, exactly)" if rank < k else
              f"Q has full rank {k}: raise max_iter or tol (EM converges slowly when the "
              "estimate lies near the simplex's boundary)")
    warnings.warn(f"EM stopped after {max_iter} updates without converging; {reason}",
                  EMNotConverged, stacklevel=2)
    return EMResult(p, max_iter, False)


class EMNotConverged(UserWarning):
    """:func:`em_estimate` stopped at its iteration limit."""


class BatchEM(NamedTuple):
    """Outcome of :func:`em_batch`: one estimate per row, updates made, which converged."""

    estimates: np.ndarray
    iterations: int
    converged: np.ndarray


def em_batch(Q: np.ndarray, frequencies: np.ndarray, tol: float = 1e-9,
             max_iter: int = 20_000) -> BatchEM:
    """EM for every row of ``frequencies`` (shape ``(B, |Y|)``) at once, from the uniform
    distribution, until the *predicted output law* ``p Q`` moves by at most ``tol`` (L1).

    The output law converges even when ``p`` is not identifiable (``Q`` of rank below
    ``|X|``), and identifiable functions of ``p`` are functions of it.
    """
    frequencies = np.atleast_2d(frequencies)
    p = np.full((frequencies.shape[0], Q.shape[0]), 1.0 / Q.shape[0])
    predicted = p @ Q
    change = np.full(frequencies.shape[0], np.inf)
    active = np.arange(frequencies.shape[0])  # rows still moving more than tol
    iteration = 0
    while iteration < max_iter and active.size:
        iteration += 1
        weights = np.divide(frequencies[active], predicted[active],
                            out=np.zeros((active.size, Q.shape[1])),
                            where=predicted[active] > 0)
        step = p[active] * (weights @ Q.T)
        p[active] = step / step.sum(axis=1, keepdims=True)
        updated = p[active] @ Q
        change[active] = np.abs(updated - predicted[active]).sum(axis=1)
        predicted[active] = updated
        active = active[change[active] > tol]
    return BatchEM(p, iteration, change <= tol)


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
