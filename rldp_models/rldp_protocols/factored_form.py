"""IR, GRR-CR and UE-CR kept as their factors (``rldp-privacy-utility-tradeoff.txt`` Secs. VI-VII).

The three protocols are products of small channels, and only the factor of
the true secret ``s`` depends on ``u``:

* **IR** (Protocol 1): ``Y = (r, v)``,
  ``Q[(s,u), (r,v)] = secret[s, r] public[u, v]``.
* **GRR-CR** (Protocol 2): ``Y = (t, v)``,
  ``Q[(s,u), (t,v)] = secret[s, t] (own[t][u, v] if t = s else other[t, v])``.
* **UE-CR** (Protocol 3): ``Y = (o_t)_{t in S}`` with ``o_t = 0`` (``t`` not
  reported) or ``o_t = 1 + v`` (``t`` reported with value ``v``);
  ``Q[(s,u), y] = own[s][u, o_s] prod_{t != s} other[t, o_t]``, where
  ``own[s][u] = (1 - kappa, kappa R^s(.|u))`` and
  ``other[t] = (1 - lambda, lambda Phat_{U|t} R^t)`` (the UE bit of eq. 90 and
  the report or the dummy of Protocol 3 with the misprint of DESIGN.md fixed).

Every factor is a matrix of dyadic doubles whose rows sum to one exactly
(:func:`rldp_models.exact.exact_stochastic_rows`), so the factors *are* the
protocol, exactly. The dense matrix (``(|U|+1)^|S|`` columns for UE-CR) is
built only by :meth:`FactoredProtocol.dense`, which refuses sizes that do not
fit. Utility, sampling and the RLDP check
(:mod:`rldp_models.rldp_protocols.factored_check`) use the factors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rldp_models.errors import InputError
from rldp_models.exact import exact_stochastic_rows

DEFAULT_MAX_DENSE_BYTES = 2**30
"""Largest dense matrix :meth:`FactoredProtocol.dense` builds by default (float64 entries)."""

MAX_UE_UTILITY_SECRETS = 22
"""UE-CR's utility sums over the ``2^|S|`` report patterns; refused beyond this many secrets."""


def _entropy_rows(matrix: np.ndarray) -> np.ndarray:
    """``H`` of every row (nats), ``0 log 0 = 0``."""
    m = np.asarray(matrix, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(m > 0, -m * np.log(m), 0.0)
    return terms.sum(axis=-1)


def _entropy(p: np.ndarray) -> float:
    return float(_entropy_rows(np.ravel(p)))


def _draw(rows: np.ndarray, which: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw from ``rows[which[i]]`` for every ``i`` (inverse CDF)."""
    cumulative = np.cumsum(rows, axis=1)[which]
    uniform = rng.random(len(which))[:, None] * cumulative[:, -1:]
    return np.minimum((cumulative <= uniform).sum(axis=1), rows.shape[1] - 1)


@dataclass(frozen=True)
class FactoredProtocol:
    """A protocol on ``X = S x U`` given by its factors (module docstring).

    Attributes
    ----------
    name : str
        ``"ir"``, ``"grr-cr"`` or ``"ue-cr"``.
    factors : dict of str to ndarray
        The exact factors, named as in the module docstring (``own`` of shape
        ``(|S|, |U|, m)``).
    s_labels, u_labels : list
        Labels of ``S`` and ``U``.
    eps, alpha : float
        The guarantee the factors were built for and the significance of ``F``.
    parameters : dict
        The chosen parameters (``eps_1``, ``eps_2``, ``delta``, ...).
    """

    name: str
    factors: dict[str, np.ndarray]
    s_labels: list[Any]
    u_labels: list[Any]
    eps: float
    alpha: float
    parameters: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.name not in ("ir", "grr-cr", "ue-cr"):
            raise InputError(f"no factored form for protocol {self.name!r}")
        arrays = {key: np.asarray(value, dtype=float) for key, value in self.factors.items()}
        object.__setattr__(self, "factors", arrays)

    # ------------------------------------------------------------------ shape
    @property
    def shape(self) -> tuple[int, int]:
        """``(|S|, |U|)``."""
        return len(self.s_labels), len(self.u_labels)

    @property
    def coordinate_sizes(self) -> tuple[int, ...]:
        """The ranges of the output's coordinates; ``Y`` is their product (row-major)."""
        n_s, n_u = self.shape
        if self.name == "ue-cr":
            return (n_u + 1,) * n_s
        return n_s, self.factors["other" if self.name == "grr-cr" else "public"].shape[-1]

    @property
    def output_count(self) -> int:
        """``|Y|`` (a Python int: ``(|U|+1)^|S|`` need not fit 64 bits)."""
        return math.prod(self.coordinate_sizes)

    def output_index(self, y: tuple[int, ...]) -> int:
        """The dense column of output ``y`` (row-major over :attr:`coordinate_sizes`)."""
        index = 0
        for size, value in zip(self.coordinate_sizes, y):
            index = index * size + int(value)
        return index

    def output_label(self, y: tuple[int, ...]) -> list[Any]:
        """``[s~, u~]`` for IR and GRR-CR; ``[[t, v] for reported t]`` for UE-CR."""
        if self.name != "ue-cr":
            return [self.s_labels[y[0]], self.u_labels[y[1]]]
        return [[self.s_labels[t], self.u_labels[o - 1]] for t, o in enumerate(y) if o > 0]

    # ------------------------------------------------------------------ columns
    def column(self, y: tuple[int, ...]) -> np.ndarray:
        """``P(Y = y | s, u)`` for every ``(s, u)``, shape ``(|S|, |U|)``, from the factors."""
        n_s, n_u = self.shape
        f = self.factors
        if self.name == "ir":
            return np.outer(f["secret"][:, y[0]], f["public"][:, y[1]])
        if self.name == "grr-cr":
            t, v = y
            column = np.repeat(f["secret"][:, t:t + 1] * f["other"][t, v], n_u, axis=1)
            column[t] = f["secret"][t, t] * f["own"][t][:, v]
            return column
        others = f["other"][np.arange(n_s), list(y)]
        column = np.empty((n_s, n_u))
        for s in range(n_s):
            column[s] = f["own"][s][:, y[s]] * np.prod(np.delete(others, s))
        return column

    def dense_bytes(self) -> int:
        """Bytes of the dense float64 matrix."""
        return 8 * math.prod(self.shape) * self.output_count

    def dense(self, max_bytes: int = DEFAULT_MAX_DENSE_BYTES) -> np.ndarray:
        """The matrix ``Q[x, y]`` (``x = (s, u)`` row-major), rows exactly stochastic.

        Entries are the float products of the factors, then rounded by
        :func:`~rldp_models.exact.exact_stochastic_rows` (a few ulps; the
        builders keep a log-ratio margin of ``1e-10`` for it).

        Raises
        ------
        InputError
            If the matrix would take more than ``max_bytes``.
        """
        size = self.dense_bytes()
        if size > max_bytes:
            raise InputError(f"the dense {self.name} matrix has {math.prod(self.shape)} x "
                             f"{self.output_count} entries ({size / 2**30:.3g} GiB), over the "
                             f"limit of {max_bytes / 2**30:.3g} GiB; use the factored form")
        n_s, n_u = self.shape
        f = self.factors
        if self.name == "ir":
            return exact_stochastic_rows(np.kron(f["secret"], f["public"]))
        blocks = []
        for s in range(n_s):
            if self.name == "grr-cr":
                parts = [f["secret"][s, t] * (f["own"][t] if t == s else
                                              np.tile(f["other"][t], (n_u, 1)))
                         for t in range(n_s)]
                blocks.append(np.hstack(parts))
                continue
            block = np.ones((n_u, 1))
            for t in range(n_s):
                factor = f["own"][s] if t == s else np.broadcast_to(f["other"][t],
                                                                   (n_u, n_u + 1))
                block = (block[:, :, None] * factor[:, None, :]).reshape(n_u, -1)
            blocks.append(block)
        return exact_stochastic_rows(np.vstack(blocks))

    # ------------------------------------------------------------------ sampling
    def sample(self, s: np.ndarray, u: np.ndarray,
               rng: np.random.Generator | None = None) -> np.ndarray:
        """Release one output per record ``(s[i], u[i])``: an int array ``(n, coordinates)``.

        Each coordinate is drawn from its own factor (module docstring); the
        dense column is :meth:`output_index` of a row.
        """
        rng = rng if rng is not None else np.random.default_rng()
        s, u = np.asarray(s, dtype=int), np.asarray(u, dtype=int)
        n_s, n_u = self.shape
        f = self.factors
        if self.name == "ir":
            return np.column_stack([_draw(f["secret"], s, rng), _draw(f["public"], u, rng)])
        if self.name == "grr-cr":
            t = _draw(f["secret"], s, rng)
            own = _draw(f["own"].reshape(n_s * n_u, -1), s * n_u + u, rng)
            other = _draw(f["other"], t, rng)
            return np.column_stack([t, np.where(t == s, own, other)])
        out = np.empty((len(s), n_s), dtype=int)
        for bit in range(n_s):
            own = _draw(f["own"][bit], u, rng)
            other = _draw(f["other"][bit:bit + 1], np.zeros(len(s), dtype=int), rng)
            out[:, bit] = np.where(s == bit, own, other)
        return out

    # ------------------------------------------------------------------ utility
    def utility(self, phat: np.ndarray) -> float:
        """``I_Phat(X;Y) = H(Y) - H(Y|X)`` in nats, from the factors.

        IR and GRR-CR: exact laws of ``Y`` (``|S||U|`` outputs) and the
        entropies of the factor rows. UE-CR: ``H(Y|X)`` from the factor rows;
        ``H(Y) = -sum_t E log other[t](Y_t) - E log sum_s P(s) rho_s(Y_s)`` with
        ``rho_s(o) = P(O_s = o | S = s) / other[s, o]`` taking its two values
        ``(1-kappa)/(1-lambda)`` and ``kappa/lambda`` (exact when the dummy law
        is ``Phat_{U|t} R^t``, as in Theorem 20; the decoys' rounding moves it
        by ulps), summed over the ``2^|S|`` report patterns.
        """
        phat = np.asarray(phat, dtype=float)
        method = {"ir": self._ir_utility, "grr-cr": self._grr_cr_utility,
                  "ue-cr": self._ue_cr_utility}[self.name]
        return method(phat)

    def _ir_utility(self, phat: np.ndarray) -> float:
        secret, public = self.factors["secret"], self.factors["public"]
        released = secret.T @ phat @ public
        conditional = phat.sum(axis=1) @ _entropy_rows(secret) + phat.sum(axis=0) @ \
            _entropy_rows(public)
        return _entropy(released) - float(conditional)

    def _grr_cr_utility(self, phat: np.ndarray) -> float:
        f = self.factors
        secret, own, other = f["secret"], f["own"], f["other"]
        n_s = secret.shape[0]
        mass = phat.sum(axis=1)
        keep = np.diag(secret)
        own_law = np.einsum("su,suv->sv", phat, own)  # sum_u P(s,u) own[s][u, v]
        decoy_mass = mass @ secret - mass * keep  # P(t~ = t, s != t)
        released = keep[:, None] * own_law + decoy_mass[:, None] * other
        other_entropy = _entropy_rows(other)
        conditional = 0.0
        for s in range(n_s):
            rest = secret[s] @ other_entropy - secret[s, s] * other_entropy[s]
            conditional += mass[s] * (_entropy(secret[s]) + rest) + \
                secret[s, s] * float(phat[s] @ _entropy_rows(own[s]))
        return _entropy(released) - conditional

    def _ue_cr_utility(self, phat: np.ndarray) -> float:
        f = self.factors
        own, other = f["own"], f["other"]
        n_s = other.shape[0]
        if n_s > MAX_UE_UTILITY_SECRETS:
            raise InputError(f"UE-CR's utility sums 2^{n_s} report patterns; at most "
                             f"{MAX_UE_UTILITY_SECRETS} secrets are supported")
        mass = phat.sum(axis=1)
        own_law = np.einsum("su,suo->so", phat, own) / np.where(mass > 0, mass, 1.0)[:, None]
        marginal = mass[:, None] * own_law + (1 - mass)[:, None] * other  # P(Y_t = o)
        reported = marginal[:, 1:].sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(marginal[:, 1:] > 0, marginal[:, 1:] / reported, 1.0)
        h_reports = -float(np.sum(marginal[:, 1:] * np.log(values)))
        h_y = _pattern_entropy(mass, own_law[:, 0], other[:, 0]) + h_reports
        other_entropy = _entropy_rows(other)
        conditional = sum(float(phat[s] @ _entropy_rows(own[s])) + mass[s] * (
            other_entropy.sum() - other_entropy[s]) for s in range(n_s))
        return h_y - conditional


def _pattern_entropy(mass: np.ndarray, own_absent: np.ndarray,
                     other_absent: np.ndarray) -> float:
    """``H(B)`` of the report pattern ``B`` (``B_t = 1``: ``t`` reported) over ``2^|S|`` patterns.

    ``B_t`` is absent with probability ``own_absent[t]`` for the true secret
    and ``other_absent[t]`` otherwise, independently across ``t``:
    ``P(B) = sum_s P(s) own_s(B_s) prod_{t != s} other_t(B_t)``.
    """
    n_s = mass.size
    bits = ((np.arange(2**n_s)[:, None] >> np.arange(n_s)[::-1]) & 1).astype(bool)
    own_law = np.where(bits, 1 - own_absent, own_absent)
    other_law = np.where(bits, 1 - other_absent, other_absent)
    ones = np.ones((bits.shape[0], 1))
    before = np.cumprod(np.hstack([ones, other_law[:, :-1]]), axis=1)
    after = np.cumprod(np.hstack([ones, other_law[:, :0:-1]]), axis=1)[:, ::-1]
    probability = (own_law * before * after) @ mass
    with np.errstate(divide="ignore", invalid="ignore"):
        return -float(np.sum(np.where(probability > 0, probability * np.log(probability), 0.0)))
