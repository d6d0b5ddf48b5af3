"""Results side by side on one crosstab: utility, distortion, privacy level, alphabet, time.

For every result and the counts ``N`` (``Phat = N / n``, ``F`` its ``(1 - alpha)``
chi-square set, eq. 3 of ``rldp-privacy-utility-tradeoff.txt``):

* ``I/H(X)``: ``I_Phat(X;Y) / H_Phat(X)`` (product forms: from their factors,
  :meth:`~rldp_models.rldp_protocols.factored_form.FactoredProtocol.utility`);
* ``distortion at Phat``: ``sum_x Phat(x) sum_y Q[x, y] d(u_x, u_y)`` for the
  named distortion, where ``u_y`` is the value of ``U`` the output releases
  (outputs that are ``U`` labels, or ``[s~, u~]`` pairs); ``nan`` when outputs
  release no single ``u`` (UE-CR);
* ``distortion over F``: ``max_{P in F}`` of the same, Theorem 2's certified
  upper bound (:meth:`~rldp_models.uncertainty.chi_square.ChiSquareSet.support_certificate`);
* ``eps at Phat``: ``max_{y, s1, s2} log P(y|s1) / P(y|s2)`` with
  ``P(y|s) = sum_u Phat(u|s) Q[(s,u), y]``, exact (integer numerators, the log
  rounded up);
* ``eps over F``: the certified ``(eps, F)``-RLDP level
  (:func:`~rldp_models.rldp_protocols.checker.rldp_epsilon`; product forms:
  :func:`~rldp_models.rldp_protocols.factored_check.factored_rldp_level`);
* ``|Y|`` and the producer's recorded time (seconds).

Product forms too large for a dense matrix (more than
:data:`~rldp_models.disclosure.identifiability.MAX_EXACT_ENTRIES` entries) get
``nan`` for the distortions and ``eps at Phat``; their utility and level come
from the factors.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from rldp_models.data import Crosstab
from rldp_models.distortion import distortion_matrix
from rldp_models.errors import InputError
from rldp_models.exact import log_up
from rldp_models.disclosure.channel import ReleaseChannel
from rldp_models.disclosure.identifiability import MAX_EXACT_ENTRIES, exact_channel
from rldp_models.results.certified import CertifiedResult
from rldp_models.rldp_protocols.checker import rldp_epsilon
from rldp_models.rldp_protocols.factored_check import factored_rldp_level
from rldp_models.safe_io import save_figure
from rldp_models.uncertainty.chi_square import ChiSquareSet

COLUMNS = ("result", "I/H(X)", "distortion at Phat", "distortion over F", "eps at Phat",
           "eps over F", "|Y|", "time (s)")


def compare(results: dict[str, CertifiedResult], crosstab: Crosstab, distortion: str,
            alpha: float) -> pd.DataFrame:
    """One row per result (module docstring).

    Raises
    ------
    InputError
        Naming the result that does not fit the counts.
    """
    rows = []
    for name, result in results.items():
        try:
            rows.append(measures(name, result, crosstab, distortion, alpha))
        except InputError as exc:
            raise InputError(f"{name}: {exc}") from None
    return pd.DataFrame(rows, columns=list(COLUMNS))


TEXT_WIDTH = 100
"""Characters per line of :func:`format_table` unless ``wide`` (then one line per result)."""


def format_table(table: pd.DataFrame, wide: bool = False) -> str:
    """``table`` as text, at most :data:`TEXT_WIDTH` characters a line unless ``wide``
    (columns that do not fit continue in a block below, the result names repeated);
    an exact zero prints as ``0``."""
    return table.to_string(index=False, na_rep="n/a", float_format=_number,
                           line_width=None if wide else TEXT_WIDTH)


def _number(value: float) -> str:
    return "0" if value == 0 else f"{value:.4g}"


def plot(table: pd.DataFrame, path: str | Path) -> None:
    """The comparison in the measure the programs minimise: worst-case expected distortion
    over F (the bar; at Phat: the dot) against the certified eps over F (the second panel).

    Results whose outputs release no single ``u`` (no distortion) are named with ``n/a``.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 0.6 * len(table) + 2))
    names = [f"{name} (n/a)" if np.isnan(value) else str(name)
             for name, value in zip(table["result"], table["distortion over F"])]
    left.barh(names, np.nan_to_num(table["distortion over F"].to_numpy(float)),
              color="tab:blue", label="worst case over F (certified)")
    left.scatter(table["distortion at Phat"], names, color="black", zorder=3, label="at Phat")
    left.set_xlabel("expected distortion (lower is better)")
    left.legend()
    left.invert_yaxis()
    right.barh(names, table["eps over F"], color="tab:red", label="certified eps over F")
    right.scatter(table["eps at Phat"], names, color="black", zorder=3, label="eps at Phat")
    right.set_xlabel("eps")
    right.invert_yaxis()
    right.legend()
    figure.tight_layout()
    try:
        save_figure(figure, path, dpi=120, metadata={"Software": None})
    finally:
        plt.close(figure)


def measures(name: str, result: CertifiedResult, crosstab: Crosstab, distortion: str,
             alpha: float) -> dict[str, object]:
    """The row of one result."""
    channel = ReleaseChannel.from_result(result)
    rows = _rows_in_table_order(channel, crosstab)
    phat = crosstab.phat.ravel()
    dense = channel.output_count * len(rows) <= MAX_EXACT_ENTRIES
    Q = channel.matrix()[rows] if dense else None
    costs = _expected_costs(channel, Q, crosstab, distortion) if Q is not None else None
    region = ChiSquareSet.from_counts(crosstab.counts, alpha)
    return {"result": name, "I/H(X)": _utility(channel, Q, crosstab) / _entropy(phat),
            "distortion at Phat": float(phat @ costs) if costs is not None else np.nan,
            "distortion over F": region.support_certificate(costs).value
            if costs is not None else np.nan,
            "eps at Phat": nominal_level(exact_channel(channel), rows, crosstab)
            if dense else np.nan,
            "eps over F": _rldp_level(channel, Q, crosstab, alpha),
            "|Y|": channel.output_count, "time (s)": _seconds(result)}


def _rows_in_table_order(channel: ReleaseChannel, crosstab: Crosstab) -> np.ndarray:
    """The channel row of every cell of ``crosstab`` (row-major); every cell must be an input."""
    rows = []
    for s in crosstab.s_labels:
        for u in crosstab.u_labels:
            row = channel.row_of[channel.s_labels.index(s), channel.u_labels.index(u)] \
                if s in channel.s_labels and u in channel.u_labels else -1
            if row < 0:
                raise InputError(f"the result has no row for (s={s!r}, u={u!r}) of the counts; "
                                 "compare results made for this table's labels")
            rows.append(int(row))
    return np.array(rows)


def _entropy(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def _utility(channel: ReleaseChannel, Q: np.ndarray | None, crosstab: Crosstab) -> float:
    if channel.protocol is not None:
        return channel.protocol.utility(crosstab.phat)
    assert Q is not None
    return mutual_information(crosstab.phat.ravel(), Q)


def mutual_information(p: np.ndarray, Q: np.ndarray) -> float:
    """``I(X;Y) = sum_{x,y} p_x Q_xy log(Q_xy / (p Q)_y)`` in nats."""
    released = p @ Q
    joint = p[:, None] * Q
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(joint > 0, joint * np.log(Q / released[None, :]), 0.0)
    return float(terms.sum())


def released_u(label: object, u_labels: tuple[str, ...]) -> str | None:
    """The ``U`` value an output label releases: a ``U`` label, or ``u~`` of ``[s~, u~]``."""
    if isinstance(label, str) and label.startswith("["):
        try:
            label = json.loads(label)
        except ValueError:
            return None
    if isinstance(label, (list, tuple)) and len(label) == 2 and all(
            isinstance(part, str) for part in label):
        label = label[1]
    return str(label) if str(label) in u_labels else None


def _expected_costs(channel: ReleaseChannel, Q: np.ndarray, crosstab: Crosstab,
                    distortion: str) -> np.ndarray | None:
    """``c_x = sum_y Q[x, y] d(u_x, u_y)`` per cell, or None when outputs release no ``u``."""
    outputs = [released_u(y, crosstab.u_labels) for y in channel.output_texts()]
    if any(u is None for u in outputs):
        return None
    d = distortion_matrix(distortion, crosstab, [str(u) for u in outputs])  # (|U|, |Y|)
    per_u = np.tile(np.arange(len(crosstab.u_labels)), len(crosstab.s_labels))
    return np.einsum("xy,xy->x", Q, d[per_u])


def nominal_level(numerators: list[list[int]], rows: np.ndarray, crosstab: Crosstab) -> float:
    """``eps`` at ``Phat`` (module docstring), exact: ``A[s, y] = sum_u N[s, u] K[(s,u), y]``
    with ``K`` the integer numerators, and ``P(y|s1)/P(y|s2) = A[s1,y] n_s2 / (A[s2,y] n_s1)``;
    the largest ratio is found in rationals and its log rounded up."""
    K = np.array(numerators, dtype=object)[rows]
    n_s, n_u = crosstab.shape
    counts = crosstab.counts.astype(object)
    A = [(counts[s][:, None] * K[s * n_u:(s + 1) * n_u]).sum(axis=0) for s in range(n_s)]
    totals = [int(counts[s].sum()) for s in range(n_s)]
    worst = Fraction(1)
    for s1 in range(n_s):
        for s2 in range(n_s):
            if s1 == s2 or totals[s1] == 0 or totals[s2] == 0:
                continue
            for a1, a2 in zip(A[s1], A[s2]):
                if a1 == 0:
                    continue
                if a2 == 0:
                    return float("inf")
                ratio = Fraction(int(a1) * totals[s2], int(a2) * totals[s1])
                worst = max(worst, ratio)
    return log_up(worst)


def _rldp_level(channel: ReleaseChannel, Q: np.ndarray | None, crosstab: Crosstab,
                alpha: float) -> float:
    if channel.protocol is not None:
        return factored_rldp_level(channel.protocol, crosstab.counts, alpha).certified
    assert Q is not None
    return rldp_epsilon(Q, crosstab, alpha).certified


def _seconds(result: CertifiedResult) -> float:
    timings = [v for v in result.solver.timings.values() if v is not None] if (
        result.solver is not None) else []
    if timings:
        return float(sum(timings))
    seconds = [float(v) for k, v in result.details.items()
               if k.endswith("seconds") and isinstance(v, (int, float))]
    return sum(seconds) if seconds else np.nan
