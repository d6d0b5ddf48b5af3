"""Recording :class:`~rldp_models.conelp.concave_pricing.ConcavePricing`'s search as a proof.

:meth:`ConcavePricing.proof` runs branch and bound from the root box to the
end at one dual while a :class:`ProofRecorder` notes every split and every
box dropped as empty; :meth:`ProofRecorder.finish` adds the root box's
weak-duality proofs and the final leaves' multipliers and returns the arrays
that :mod:`rldp_models.certificates.pricing_proof` checks (its docstring
describes the format). Multipliers are stored sparse and in the units of the
rows given to the oracle (it normalises them internally).
"""

from __future__ import annotations

import numpy as np

from rldp_models.conelp.proof_oracle import ProofOracle


def sparse_rows(vectors: list[np.ndarray], width: int, prefix: str) -> dict[str, np.ndarray]:
    """Row-compressed ``vectors`` (nonzeros only): ``<prefix>_ptr``, ``_col``, ``_val``."""
    columns = [np.flatnonzero(v) for v in vectors]
    pointer = np.zeros(len(vectors) + 1, dtype=np.int64)
    pointer[1:] = np.cumsum([c.size for c in columns])
    column = np.concatenate(columns + [np.zeros(0, dtype=np.int64)]).astype(np.int32)
    value = np.concatenate([v[c] for v, c in zip(vectors, columns)] + [np.zeros(0)])
    return {f"{prefix}_ptr": pointer, f"{prefix}_col": column, f"{prefix}_val": value,
            f"{prefix}_width": np.array(width)}


class ProofRecorder:
    """The tree of boxes of one complete search: splits, dropped boxes, then leaves.

    Box 0 is the oracle's root box (its proofs kept by the oracle: the cap and
    the multipliers of ``min v_0, max v_0, min v_1, ...``); every child gets the
    next id, and a box is found again by its bounds' bytes (the search hands
    the same arrays along).
    """

    def __init__(self, oracle: ProofOracle) -> None:
        self.oracle = oracle
        self.boxes: list[tuple[np.ndarray, np.ndarray]] = []
        self.ids: dict[bytes, int] = {}
        self.splits: list[tuple[int, int, int, int]] = []
        self.cuts: list[float] = []
        self.drops: list[int] = []
        self.rays: list[np.ndarray] = []
        self._box(oracle.root_lower, oracle.root_upper)

    def _box(self, lower: np.ndarray, upper: np.ndarray) -> int:
        self.boxes.append((lower.copy(), upper.copy()))
        self.ids[lower.tobytes() + upper.tobytes()] = len(self.boxes) - 1
        return len(self.boxes) - 1

    def _id(self, lower: np.ndarray, upper: np.ndarray) -> int:
        return self.ids[lower.tobytes() + upper.tobytes()]

    def split(self, lower: np.ndarray, upper: np.ndarray, x: int, cut: float,
              children: tuple[np.ndarray, np.ndarray]) -> None:
        """Box ``[lower, upper]`` cut at ``v_x = cut`` into two (tightened) children.

        ``children`` is the pair (lower bounds, upper bounds), each stacking left then right.
        """
        parent = self._id(lower, upper)
        left, right = (self._box(low, high) for low, high in zip(*children))
        self.splits.append((parent, x, left, right))
        self.cuts.append(float(cut))

    def cut_off(self, lower: np.ndarray, upper: np.ndarray, x: int, cut: float, row: int,
                below: bool) -> tuple[np.ndarray, np.ndarray]:
        """Box cut at ``v_x = cut``; the piece below (``below``) or above dropped by one row.

        The dropped piece's ray is the oracle's normalised row ``row`` with
        multiplier 1 (:meth:`ConcavePricing._propagated` proves it empty).
        Returns the piece kept, registered as a box.
        """
        parent = self._id(lower, upper)
        head, tail = upper.copy(), lower.copy()
        head[x], tail[x] = cut, cut
        left, right = self._box(lower, head), self._box(tail, upper)
        self.splits.append((parent, x, left, right))
        self.cuts.append(float(cut))
        ray = np.zeros(self.oracle.rows.shape[0] + 1)
        ray[row] = 1.0
        self.drops.append(left if below else right)
        self.rays.append(self._units(ray))
        return (tail, upper.copy()) if below else (lower.copy(), head)

    def drop(self, lower: np.ndarray, upper: np.ndarray) -> None:
        """Box proven empty by HiGHS: keep a Farkas ray of the LP just solved
        (:meth:`~rldp_models.conelp.concave_pricing.ConcavePricing.farkas_ray`)."""
        self.drops.append(self._id(lower, upper))
        self.rays.append(self._units(self.oracle.farkas_ray(lower, upper)))

    def _units(self, multipliers: np.ndarray) -> np.ndarray:
        """Multipliers of the oracle's normalised rows in units of the rows it was given."""
        index, norms = self.oracle.row_source
        out = np.zeros(self.oracle.row_count + 1)
        out[index] = np.maximum(multipliers[:-1], 0.0) / norms
        out[-1] = multipliers[-1]
        return out

    def _witness(self) -> np.ndarray:
        """A point of ``C`` to scale into ``P`` (``1`` when the rows allow it, else a vertex)."""
        ones = np.ones(self.oracle.dimension)
        return ones if np.all(self.oracle.rows @ ones >= 0) else self.oracle.vertices[:, 0]

    def finish(self, leaves: list, dual: np.ndarray, bound: float, multipliers: np.ndarray
               ) -> dict[str, np.ndarray]:
        """The proof's arrays (format: :mod:`rldp_models.certificates.pricing_proof`).

        ``multipliers`` are the leaves' (dense, the oracle's normalised rows), proving
        ``bound`` at ``dual``.
        """
        width = self.oracle.row_count + 1
        cap, root = self.oracle.root_proof
        arrays = {"lower": np.array([b[0] for b in self.boxes]),
                  "upper": np.array([b[1] for b in self.boxes]),
                  "split": np.array(self.splits, dtype=np.int64).reshape(-1, 4),
                  "cut": np.array(self.cuts), "drop": np.array(self.drops, dtype=np.int64),
                  "leaf": np.array([self._id(n.lower, n.upper) for n in leaves], dtype=np.int64),
                  "dual": np.asarray(dual, dtype=float), "claimed": np.array(bound),
                  "cap": cap, "witness": self._witness()}
        arrays.update(sparse_rows([self._units(y) for y in root], width, "root"))
        arrays.update(sparse_rows(self.rays, width, "ray"))
        arrays.update(sparse_rows([self._units(y) for y in multipliers], width, "leafy"))
        return arrays
