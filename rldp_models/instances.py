"""Random instances of the paper's experiments (Section V of the robust-optimization paper)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rldp_models.data import Crosstab


@dataclass(frozen=True)
class Instance:
    """A true distribution ``P*`` and a sample of ``n`` records drawn from it."""

    p_star: np.ndarray  # (|S|, |U|)
    crosstab: Crosstab
    seed: int


def jeffreys_instance(n_s: int, n_u: int, n: int, seed: int) -> Instance:
    """Draw ``P*`` from the Jeffreys prior (Dirichlet(1/2)) and ``n`` records from ``P*``.

    S and U are labelled ``0, 1, ...`` as in the paper (``U`` numeric, so the
    squared distortion applies).
    """
    rng = np.random.default_rng(seed)
    p_star = rng.dirichlet(np.full(n_s * n_u, 0.5)).reshape(n_s, n_u)
    counts = rng.multinomial(n, p_star.ravel()).reshape(n_s, n_u)
    return Instance(p_star, Crosstab.from_array(counts), seed)
