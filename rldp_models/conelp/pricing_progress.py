"""A progress bar for column generation: wraps any pricing oracle.

Column generation on a large cone (PolyOpt at 4x4 takes minutes) gives no
sign of life between its master LPs; :class:`ProgressOracle` forwards every
call to the wrapped :class:`~rldp_models.conelp.pricing.PricingOracle` and
shows, per pricing round, the rays generated so far, the oracle's proven bound
on the largest reduced cost (the master is optimal once it is ``<= 0``) and
the branch-and-bound nodes spent. The bar goes to standard error through
tqdm and is shown only when asked for.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from rldp_models.conelp.pricing import PricingOracle, PricingResult


class ProgressOracle:
    """``oracle`` with a tqdm bar over its pricing rounds.

    Parameters
    ----------
    oracle : PricingOracle
    description : str
        The bar's label.
    enabled : bool
        Show the bar (callers decide: a terminal and not ``CI=true``, typically).

    Attributes
    ----------
    rounds : int
        Pricing calls so far.
    """

    def __init__(self, oracle: PricingOracle, description: str, enabled: bool) -> None:
        from tqdm import tqdm

        self.oracle = oracle
        self._bar = tqdm(desc=description, unit="round", file=sys.stderr,
                         disable=not enabled, dynamic_ncols=True)
        self.rounds = 0
        self._rays = 0
        self._nodes = 0

    @property
    def dimension(self) -> int:
        return self.oracle.dimension

    def seed(self) -> np.ndarray:
        return self.oracle.seed()

    def price(self, dual: np.ndarray, count: int) -> PricingResult:
        """The wrapped oracle's answer; the bar advances by one round."""
        result = self.oracle.price(dual, count)
        self.rounds += 1
        self._rays += result.rays.shape[1]
        self._nodes += result.nodes
        self._bar.set_postfix(bound=f"{result.upper_bound:.2e}", rays=self._rays,
                              nodes=self._nodes, refresh=False)
        self._bar.update(1)
        return result

    def close(self) -> None:
        """Close the bar."""
        self._bar.close()

    def __enter__(self) -> "ProgressOracle":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
