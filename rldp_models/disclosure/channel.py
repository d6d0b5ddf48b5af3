"""A result as a release needs it: the file read and its guarantee re-checked, then its
channel: inputs by ``(s, u)``, exact draws, output labels.

A result file is read hardened (:func:`load_result`: any record version, refused if
its recorded guarantee does not hold), with its design counts' digest; for a
release the guarantee is re-checked from the record as ``rldp verify`` does
(:func:`verified_result`).

Dense results draw the output column from their dyadic rows. Product-form
results (IR, GRR-CR, UE-CR; :mod:`rldp_models.rldp_protocols.factored_form`)
draw each output coordinate from its factor's dyadic rows, never building the
``(|U|+1)^|S|`` outputs: with independent bits per coordinate, the released
``Y`` has exactly the law of the product of the factors, the law whose level
:func:`~rldp_models.rldp_protocols.factored_check.factored_rldp_level` proves.

* IR: ``r ~ secret[s]``, ``v ~ public[u]``.
* GRR-CR: ``t ~ secret[s]``; ``v ~ own[s][u]`` if ``t = s``, else ``v ~ other[t]``.
* UE-CR: for every ``t``, ``o_t ~ own[t][u]`` if ``t = s``, else ``o_t ~ other[t]``.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rldp_models.data import Crosstab
from rldp_models.disclosure.sampling import DyadicRows, RandomWords
from rldp_models.errors import InputError
from rldp_models.results.certified import CertifiedResult
from rldp_models.results.counts import embedded_crosstab, recorded_digest
from rldp_models.results.files import read_record
from rldp_models.results.record import from_record
from rldp_models.rldp_protocols.factored_check import protocol_from_record
from rldp_models.rldp_protocols.factored_form import FactoredProtocol


class GuaranteeNotVerified(Exception):
    """Re-checking the record's guarantee failed: nothing may be released with it."""


def load_result(path: str | Path) -> tuple[CertifiedResult, str | None]:
    """The result at ``path`` (any record version) and its counts digest (None if absent).

    Raises
    ------
    InputError
        An unreadable or malformed record, or one whose recorded guarantee does not hold.
    """
    record = read_record(path)
    try:
        result = from_record(record)
    except InputError as exc:  # the record's own complaint, without the file it came from
        raise InputError(f"{path}: {exc}") from None
    if not result.holds:
        failed = "; ".join(f"{g.notion} at eps = {g.eps:g}" for g in result.failed) or \
            "no guarantee was checked"
        raise InputError(f"{path}: the result's guarantee does not hold ({failed}); "
                         "it cannot be used")
    return result, recorded_digest(record)


def verified_result(path: str | Path) -> tuple[CertifiedResult, str | None, str]:
    """:func:`load_result`, then the guarantee re-checked exactly from the record and its
    embedded counts (``rldp verify``'s guarantee verdict); the third value says what was checked.

    A mechanism's guarantee (LDP and its kin) does not depend on counts, so it is
    re-checked even when the record embeds none.

    Raises
    ------
    GuaranteeNotVerified
        If the re-check fails: the file's matrix does not meet its stated guarantee.
    """
    from rldp_models.certificates.verification import verify_guarantee

    result, digest = load_result(path)
    record: dict[str, Any] = read_record(path)
    crosstab = embedded_crosstab(record)
    if crosstab is None and record.get("result_type") != "mechanism":
        return result, digest, ("not re-verified: the record does not embed its counts "
                                "(run rldp verify with them before releasing)")
    verdict = verify_guarantee(record, crosstab)
    if not verdict.holds:
        raise GuaranteeNotVerified(f"{path}: the guarantee does not hold on re-checking "
                                   f"({verdict.headline}); nothing was released")
    return result, digest, f"guarantee re-verified: {verdict.headline}"


MAX_LABEL_TABLE = 2**20
"""Output alphabets up to this size get a table of label texts; larger ones are
labelled record by record."""


def label_text(label: Any) -> str:
    """One CSV cell for an output or input label: a string as is, anything else as JSON."""
    if isinstance(label, str):
        return label
    return json.dumps(label, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class ReleaseChannel:
    """What releasing with a result needs (module docstring).

    Attributes
    ----------
    s_labels, u_labels : tuple of str
        The labels of ``S`` and ``U`` the result covers.
    row_of : ndarray of int, shape (|S|, |U|)
        The matrix row of ``(s, u)``; ``-1`` where the result has none.
    output_count : int
    dense : DyadicRows or None
        Dense results' rows.
    protocol : FactoredProtocol or None
        Product-form results' factors.
    outputs : list
        Output labels (dense results, or products small enough to list).
    """

    s_labels: tuple[str, ...]
    u_labels: tuple[str, ...]
    row_of: np.ndarray
    output_count: int
    dense: DyadicRows | None
    protocol: FactoredProtocol | None
    outputs: list[Any]

    @classmethod
    def from_result(cls, result: CertifiedResult) -> "ReleaseChannel":
        """The channel of ``result``; refused (InputError) when its inputs are not ``[s, u]``."""
        pairs = [_pair(x) for x in result.inputs]
        s_labels = tuple(dict.fromkeys(s for s, _ in pairs))
        u_labels = tuple(dict.fromkeys(u for _, u in pairs))
        row_of = np.full((len(s_labels), len(u_labels)), -1, dtype=np.int64)
        s_index = {s: i for i, s in enumerate(s_labels)}
        u_index = {u: j for j, u in enumerate(u_labels)}
        for row, (s, u) in enumerate(pairs):
            row_of[s_index[s], u_index[u]] = row
        if result.representation == "product" and result.product is not None:
            eps = float(result.details.get("eps", 0.0))
            alpha = float(result.details.get("alpha", 0.05))
            protocol = protocol_from_record(result.product, eps, alpha)
            if (tuple(map(str, protocol.s_labels)), tuple(map(str, protocol.u_labels))) != \
                    (s_labels, u_labels):
                raise InputError("the product factors' labels do not match the matrix inputs")
            return cls(s_labels, u_labels, row_of, protocol.output_count, None, protocol,
                       list(result.outputs))
        if result.matrix is None:
            raise InputError("the result has neither dense rows nor product factors")
        dense = DyadicRows.from_rows(result.matrix, "the result's matrix")
        if dense.shape[0] != len(pairs):
            raise InputError(f"the matrix has {dense.shape[0]} rows for {len(pairs)} inputs")
        outputs = list(result.outputs) or list(range(dense.shape[1]))
        return cls(s_labels, u_labels, row_of, dense.shape[1], dense, None, outputs)

    @property
    def input_labels(self) -> list[tuple[str, str]]:
        """``(s, u)`` of every matrix row, in row order."""
        labels: list[tuple[str, str]] = [("", "")] * int(self.row_of.max() + 1)
        for i, s in enumerate(self.s_labels):
            for j, u in enumerate(self.u_labels):
                if self.row_of[i, j] >= 0:
                    labels[self.row_of[i, j]] = (s, u)
        return labels

    def distribution(self, crosstab: Crosstab) -> np.ndarray:
        """``crosstab``'s empirical ``P_X`` over this channel's inputs (InputError if a counted
        ``(s, u)`` is not an input)."""
        p = np.zeros(int(self.row_of.max()) + 1)
        s_index = {s: i for i, s in enumerate(self.s_labels)}
        u_index = {u: j for j, u in enumerate(self.u_labels)}
        for (i, j) in zip(*np.nonzero(crosstab.counts)):
            s, u = crosstab.s_labels[i], crosstab.u_labels[j]
            row = self.row_of[s_index[s], u_index[u]] if s in s_index and u in u_index else -1
            if row < 0:
                raise InputError(f"(s={s!r}, u={u!r}) is not an input of the result")
            p[row] = crosstab.counts[i, j] / crosstab.n
        return p

    @functools.cached_property
    def _text_table(self) -> np.ndarray:
        return np.array(self.output_texts(), dtype=object)

    def output_texts(self) -> list[str]:
        """The label text of every output, in column order (refused when there are too many)."""
        if self.protocol is None:
            return [label_text(y) for y in self.outputs]
        if self.output_count > MAX_LABEL_TABLE:
            raise InputError(f"{self.protocol.name} has {self.output_count} outputs, more than "
                             f"the {MAX_LABEL_TABLE} a dense channel may list (estimation "
                             "needs one); releasing works at any size")
        sizes = self.protocol.coordinate_sizes
        return [label_text(self.protocol.output_label(_coordinates(sizes, j)))
                for j in range(self.output_count)]

    def matrix(self) -> np.ndarray:
        """``Q`` as doubles, ``(|X|, |Y|)`` (product form: the rounded dense product)."""
        if self.protocol is not None:
            return self.protocol.dense()
        assert self.dense is not None
        numerators = np.diff(self.dense.cumulative, axis=1, prepend=np.uint64(0))
        return numerators.astype(float) / 2.0**self.dense.bits

    def draw(self, s: np.ndarray, u: np.ndarray, words: RandomWords) -> np.ndarray:
        """Output codes for records with S codes ``s`` and U codes ``u`` (all covered).

        Dense: the column index. Product: an ``(n, coordinates)`` array of coordinates.
        """
        if self.dense is not None:
            return self.dense.draw(self.row_of[s, u], words)
        assert self.protocol is not None
        return draw_product(self.protocol, s, u, words)

    def texts(self, codes: np.ndarray) -> np.ndarray:
        """The label text of each drawn output (see :func:`label_text`)."""
        if self.dense is not None:
            return self._text_table[codes]
        assert self.protocol is not None
        if self.output_count <= MAX_LABEL_TABLE:
            index = np.zeros(codes.shape[0], dtype=np.int64)
            for k, size in enumerate(self.protocol.coordinate_sizes):
                index = index * size + codes[:, k]
            return self._text_table[index]
        return np.array([label_text(self.protocol.output_label(tuple(row))) for row in codes],
                        dtype=object)


def _coordinates(sizes: tuple[int, ...], index: int) -> tuple[int, ...]:
    values = []
    for size in reversed(sizes):
        index, value = divmod(index, size)
        values.append(value)
    return tuple(reversed(values))


def _pair(x: Any) -> tuple[str, str]:
    if isinstance(x, (list, tuple)) and len(x) == 2:
        return str(x[0]), str(x[1])
    raise InputError(f"the result's inputs are not (s, u) pairs (got {x!r}); "
                     "release, estimate and compare need a result made from a crosstab")


def draw_product(protocol: FactoredProtocol, s: np.ndarray, u: np.ndarray,
                 words: RandomWords) -> np.ndarray:
    """One output per record from the factors (module docstring), ``(n, coordinates)``."""
    n_s, n_u = protocol.shape
    f = protocol.factors
    if protocol.name == "ir":
        secret = DyadicRows.from_rows(f["secret"], "factor secret")
        public = DyadicRows.from_rows(f["public"], "factor public")
        return np.column_stack([secret.draw(s, words), public.draw(u, words)])
    if protocol.name == "grr-cr":
        reported = DyadicRows.from_rows(f["secret"], "factor secret").draw(s, words)
        values = DyadicRows.from_rows(np.vstack([f["own"].reshape(n_s * n_u, -1), f["other"]]),
                                      "factors own and other")
        v = values.draw(np.where(reported == s, s * n_u + u, n_s * n_u + reported), words)
        return np.column_stack([reported, v])
    out = np.empty((s.size, n_s), dtype=np.int64)
    for t in range(n_s):
        rows = DyadicRows.from_rows(np.vstack([f["own"][t], f["other"][t:t + 1]]),
                                    f"factors own[{t}] and other[{t}]")
        out[:, t] = rows.draw(np.where(s == t, u, n_u), words)
    return out
