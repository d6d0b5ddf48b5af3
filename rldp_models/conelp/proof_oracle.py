"""What a pricing proof reads of the oracle whose search it records.

:class:`~rldp_models.conelp.concave_pricing.ConcavePricing` searches boxes of the
slice ``P = {v in C : p.v = 1}`` by branch and bound; the proof's recorder
(:mod:`rldp_models.conelp.pricing_proof_record`) and the settled shift of its
leaves (:mod:`rldp_models.conelp.settled_shift`) read the oracle through this
interface alone: its rows and prior, its root box with that box's proofs, and its
weak-duality bound on a box.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class ProofOracle(Protocol):
    """The oracle's data and bounds that a recorded search is proved from.

    Attributes
    ----------
    rows : ndarray, shape (m, d)
        The cone's nonzero rows, each normalised to length 1.
    row_source : tuple of ndarray
        The index of each of :attr:`rows` among the rows given, and the norm it was divided by.
    row_count : int
        How many rows were given (zero rows included).
    prior : ndarray, shape (d,)
        ``p``: the slice is ``p.v = 1``.
    root_lower, root_upper : ndarray, shape (d,)
        The root box, proven to contain ``P``.
    root_proof : tuple
        The root box's cap and the multipliers of ``min v_0, max v_0, min v_1, ...``.
    vertices : ndarray, shape (d, k)
        Vertices of ``P`` found while bounding the root box.
    """

    rows: np.ndarray
    row_source: tuple[np.ndarray, np.ndarray]
    row_count: int
    prior: np.ndarray
    root_lower: np.ndarray
    root_upper: np.ndarray
    root_proof: tuple[np.ndarray, list[np.ndarray]]
    vertices: np.ndarray

    @property
    def dimension(self) -> int:
        """Length of a ray (the number of input symbols)."""

    def proven_minimum(self, cost: np.ndarray, multipliers: np.ndarray, lower: np.ndarray,
                       upper: np.ndarray) -> np.ndarray:
        """A lower bound on ``min cost.v`` over ``P`` in the box (or stack of boxes), by weak
        duality at the row multipliers given."""

    def secants(self, lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Slopes and summed intercepts of the secants of ``p_x v log v`` on the box(es)."""

    def farkas_ray(self, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
        """Row multipliers proving the box just found empty by weak duality (zeros if none)."""
