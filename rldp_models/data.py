"""Crosstab counts of (S, U) with their labels, and the empirical distribution Phat.

A :class:`Crosstab` is what every program reads: the counts ``n[s, u]`` of a
public data set, the labels of S (rows) and U (columns) in the order they were
given, and derived quantities (``n``, ``phat``). Labels are never reordered.
"""

from __future__ import annotations

import csv
import decimal
import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

from rldp_models.errors import InputError
from rldp_models.safe_io import atomic_output

if TYPE_CHECKING:
    import pandas as pd

MAX_TOTAL = 2**53
"""Largest number of records: every count and the total stay exact in float64 (``Phat``)."""

MAX_NUMERIC_LABEL = 1e12
"""Largest magnitude of a U label used as a number (squared or absolute distortion).

Squared gaps then stay below 4e24 and, relative to the smallest gap of a table of
small integers, within the 1e-12 or so that the conic solvers' tolerances can resolve
only up to about 1e12 in the labels' span; larger labels are better rescaled."""


class RecordsWarning(UserWarning):
    """Something in a records file was left out of a crosstab (:meth:`Crosstab.from_records`):
    records with an empty S or U field, or fields beyond the header's."""


@dataclass(frozen=True, eq=False)
class Crosstab:
    """Counts of a public data set over S x U, with labels.

    Parameters
    ----------
    counts : ndarray of int, shape (|S|, |U|)
        Nonnegative integer counts; at least one positive.
    s_labels, u_labels : sequence of str
        Labels of the rows (S) and columns (U), in order.
    """

    counts: np.ndarray
    s_labels: tuple[str, ...]
    u_labels: tuple[str, ...]

    def __post_init__(self) -> None:
        counts = _validated_counts(self.counts)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "s_labels", tuple(str(s) for s in self.s_labels))
        object.__setattr__(self, "u_labels", tuple(str(u) for u in self.u_labels))
        if len(self.s_labels) != counts.shape[0] or len(self.u_labels) != counts.shape[1]:
            raise InputError(
                f"labels do not match the counts: {len(self.s_labels)} S labels and "
                f"{len(self.u_labels)} U labels for a {counts.shape[0]}x{counts.shape[1]} table"
            )
        for axis, labels in (("S", self.s_labels), ("U", self.u_labels)):
            if len(set(labels)) != len(labels):
                raise InputError(f"duplicate {axis} labels: {list(labels)}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Crosstab):
            return NotImplemented
        return (self.s_labels == other.s_labels and self.u_labels == other.u_labels
                and np.array_equal(self.counts, other.counts))

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def from_array(cls, counts: np.ndarray | Sequence[Sequence[float]],
                   s_labels: Sequence[str] | None = None,
                   u_labels: Sequence[str] | None = None) -> "Crosstab":
        """A crosstab from a count matrix; labels default to ``0, 1, ...``.

        Raises
        ------
        InputError
            If ``counts`` is not a 2-D table (ragged rows included).
        """
        try:
            array = np.asarray(counts)
        except ValueError:
            raise InputError("counts must be a 2-D table: its rows are of unequal length") \
                from None
        if array.ndim != 2:
            raise InputError(f"counts must be a 2-D table, got shape {array.shape}")
        s_labels = s_labels if s_labels is not None else [str(i) for i in range(array.shape[0])]
        u_labels = u_labels if u_labels is not None else [str(j) for j in range(array.shape[1])]
        return cls(array, tuple(s_labels), tuple(u_labels))

    @classmethod
    def from_csv(cls, path: str | Path) -> "Crosstab":
        """Read a crosstab CSV as written by ``pandas.crosstab(df.s, df.u).to_csv()``.

        The first row is a corner cell followed by the U labels; every further
        row is an S label followed by one count per U label.
        """
        rows = read_csv_rows(path)
        if len(rows) < 2:
            raise InputError(f"{path}: a crosstab needs a header row and at least one S row")
        header = rows[0]
        if len(header) < 2:
            raise InputError(f"{path}: the header row needs at least one U label")
        width = len(header)
        for line_number, row in enumerate(rows[1:], start=2):
            if len(row) != width:
                raise InputError(
                    f"{path}: ragged CSV, line {line_number} has {len(row)} fields, "
                    f"the header has {width}"
                )
        values = [[parse_count(cell, path, i + 2) for cell in row[1:]]
                  for i, row in enumerate(rows[1:])]
        return cls(np.array(values, dtype=object), tuple(r[0] for r in rows[1:]),
                   tuple(header[1:]))

    @classmethod
    def from_records(cls, path: str | Path, sensitive: str, public: str) -> "Crosstab":
        """Count raw records (a CSV with a header) over two of their columns.

        Labels appear in sorted order (numerically when every label is a
        number). Surrounding spaces in fields are stripped, as in the UCI Adult
        files. Every field is a label as written (``NA`` and ``None`` too); only
        an empty S or U field makes a record incomplete: such records are left
        out of the counts with an :class:`RecordsWarning` warning that counts
        them. A row with more fields than the header is read field by field
        against the header (never shifted by an index column).
        """
        import pandas as pd

        if sensitive == public:
            raise InputError(f"--sensitive and --public name the same column {sensitive!r}; "
                             "S and U must be different columns")
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", pd.errors.ParserWarning)
                frame = pd.read_csv(path, skipinitialspace=True, dtype=str, index_col=False,
                                    keep_default_na=False, na_values=[""])
        except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError,
                UnicodeDecodeError) as exc:
            raise InputError(f"{path}: cannot read records ({_first_line(exc)})") from None
        if any(issubclass(w.category, pd.errors.ParserWarning) for w in caught):
            warnings.warn(f"{path}: some records have more fields than the header; the fields "
                          "beyond the header's columns are ignored", RecordsWarning, stacklevel=2)
        return cls._counted(frame, sensitive, public, None, f"{path}: ")

    @classmethod
    def from_frame(cls, frame: "pd.DataFrame", sensitive: str, public: str,
                   weights: str | None = None) -> "Crosstab":
        """Count the records of a DataFrame over two of its columns.

        Parameters
        ----------
        frame : pandas.DataFrame
            One record per row.
        sensitive, public : str
            The columns of S and U.
        weights : str, optional
            A column of nonnegative integer weights (each row counts that many
            records); default: every row counts once.

        Notes
        -----
        Label order: a categorical column's categories in their order (unobserved
        categories included, as zero counts); otherwise the numeric-aware sort of
        :meth:`from_records` (numbers numerically, else as text), so the same data
        gives the same crosstab through a records CSV. Labels are the values' text
        (a float column of whole numbers, as pandas makes an integer column with
        missing values, is written ``1``, not ``1.0``). Rows with a missing S or U
        are left out with a :class:`RecordsWarning` that counts them.
        """
        import pandas as pd

        if not isinstance(frame, pd.DataFrame):
            raise InputError(f"from_frame takes a pandas DataFrame, got {type(frame).__name__}")
        if sensitive == public:
            raise InputError(f"sensitive and public name the same column {sensitive!r}; "
                             "S and U must be different columns")
        return cls._counted(frame, sensitive, public, weights, "")

    @classmethod
    def from_crosstab(cls, table: "pd.DataFrame") -> "Crosstab":
        """A crosstab from a table of counts such as ``pandas.crosstab(df.s, df.u)``.

        The index holds the S labels and the columns the U labels. Label order is
        that of :meth:`from_frame`: a categorical index's categories, else the
        numeric-aware sort (``pandas.crosstab`` of the same records gives the
        crosstab :meth:`from_frame` and :meth:`from_records` give). A table with
        margins (``margins=True``) or proportions (``normalize=...``) is refused.
        """
        import pandas as pd

        if not isinstance(table, pd.DataFrame):
            raise InputError(f"from_crosstab takes a pandas DataFrame of counts, "
                             f"got {type(table).__name__}")
        if isinstance(table.index, pd.MultiIndex) or isinstance(table.columns, pd.MultiIndex):
            raise InputError("from_crosstab takes one S and one U dimension; the table has a "
                             "multi-level index or columns")
        margins = [name for name in ("All",) if name in table.index and name in table.columns]
        if margins:
            raise InputError("the table has margins ('All' row and column); build it without "
                             "margins=True")
        rows = _label_order(table.index)
        columns = _label_order(table.columns)
        texts = [_label_text(v) for v in table.index], [_label_text(v) for v in table.columns]
        counts = table.set_axis(texts[0], axis=0).set_axis(texts[1], axis=1)
        ordered = counts.reindex(index=rows, columns=columns)
        return cls(ordered.to_numpy(), tuple(rows), tuple(columns))

    @classmethod
    def _counted(cls, frame: "pd.DataFrame", sensitive: str, public: str,
                 weights: str | None, where: str) -> "Crosstab":
        """The counts of ``frame`` over two columns (:meth:`from_records`, :meth:`from_frame`)."""
        import pandas as pd

        for column in (sensitive, public, *([weights] if weights is not None else [])):
            if column not in frame.columns:
                raise InputError(
                    f"{where}no column {column!r}; columns are "
                    f"{', '.join(str(c) for c in frame.columns)}"
                )
        complete = frame.dropna(subset=[sensitive, public])
        if len(complete) < len(frame):
            warnings.warn(f"{where}{len(frame) - len(complete)} of {len(frame)} records have "
                          f"an empty {sensitive!r} or {public!r} field and are left out of the "
                          "counts", RecordsWarning, stacklevel=3)
        if complete.empty:
            raise InputError(f"{where}no complete records in columns {sensitive!r}, {public!r}")
        rows = _label_order(complete[sensitive])
        columns = _label_order(complete[public])
        keys = pd.DataFrame({"s": _label_texts(complete[sensitive]),
                             "u": _label_texts(complete[public])})
        if weights is None:
            cells = keys.groupby(["s", "u"], sort=False).size()
        else:
            if complete[weights].isna().any():
                raise InputError(f"{where}the weights column {weights!r} has missing values")
            cells = complete[weights].groupby([keys["s"], keys["u"]], sort=False).sum()
        table = cells.unstack(fill_value=0).reindex(index=rows, columns=columns, fill_value=0)
        return cls(table.to_numpy(dtype=object), tuple(rows), tuple(columns))

    def to_frame(self) -> "pd.DataFrame":
        """The counts as a DataFrame: S labels as the index, U labels as the columns."""
        import pandas as pd

        return pd.DataFrame(self.counts, index=pd.Index(self.s_labels, name="S"),
                            columns=pd.Index(self.u_labels, name="U"))

    def to_csv(self, path: str | Path) -> None:
        """Write the crosstab in the format :meth:`from_csv` reads."""
        with atomic_output(path, newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["s", *self.u_labels])
            for label, row in zip(self.s_labels, self.counts):
                writer.writerow([label, *row.tolist()])

    @property
    def shape(self) -> tuple[int, int]:
        """``(|S|, |U|)``."""
        return self.counts.shape

    @property
    def n(self) -> int:
        """Number of records."""
        return int(self.counts.sum())

    @property
    def phat(self) -> np.ndarray:
        """Empirical joint distribution ``Phat[s, u] = n[s, u] / n``."""
        return self.counts / self.n

    def numeric_u(self, distortion: str = "squared") -> np.ndarray:
        """U labels as numbers, for distortions that need them (squared, absolute).

        Raises
        ------
        InputError
            If a label is not a number, not finite, or larger in magnitude than
            :data:`MAX_NUMERIC_LABEL`; the message suggests ``--distortion hamming``.
        """
        try:
            values = np.array([float(u) for u in self.u_labels])
        except ValueError:
            shown = ", ".join(self.u_labels[:5]) + (", ..." if len(self.u_labels) > 5 else "")
            raise InputError(f"{distortion} distortion needs numeric U labels, got {shown}; "
                             "use --distortion hamming for categories") from None
        bad = [u for u, v in zip(self.u_labels, values)
               if not (math.isfinite(v) and abs(v) <= MAX_NUMERIC_LABEL)]
        if bad:
            raise InputError(f"{distortion} distortion needs finite U labels of magnitude at "
                             f"most {MAX_NUMERIC_LABEL:g}, got {bad[0]}; rescale the labels "
                             "or use --distortion hamming")
        return values


def _validated_counts(counts: np.ndarray) -> np.ndarray:
    """``counts`` as int64, checked exactly: integers, nonnegative, total in 1..MAX_TOTAL.

    Integers (Python or numpy, any width) are taken as they are, never through a
    float; floats must be whole numbers.
    """
    array = np.asarray(counts)
    if array.ndim != 2 or array.size == 0:
        raise InputError(f"counts must be a non-empty 2-D table, got shape {array.shape}")
    exact = [_exact_count(value) for value in array.ravel().tolist()]
    if min(exact) < 0:
        raise InputError(f"counts must be nonnegative, got {min(exact)}")
    total = sum(exact)
    if total <= 0:
        raise InputError("counts must contain at least one record")
    if total > MAX_TOTAL:
        raise InputError(f"the counts total {total} records, more than 2^53 = {MAX_TOTAL}, "
                         "beyond which they are not exact in double precision")
    return np.array(exact, dtype=np.int64).reshape(array.shape)


def _exact_count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"counts must be integers, got {value!r}")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError("counts must be finite numbers")
        if not value.is_integer():
            raise InputError(f"counts must be integers (use counts, not probabilities), "
                             f"got {value!r}")
    return int(value)


def read_csv_rows(path: str | Path) -> list[list[str]]:
    """The rows of a CSV file, each cell stripped, blank rows dropped.

    Raises
    ------
    InputError
        If the file cannot be opened, decoded or parsed (one line, naming ``path``).
    """
    try:
        with open(path, newline="") as handle:
            rows = [[cell.strip() for cell in row] for row in csv.reader(handle)]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{path}: cannot read ({_first_line(exc)})") from None
    return [row for row in rows if any(row)]


def parse_count(cell: str, path: str | Path, line_number: int) -> int:
    """A count cell as an exact integer (``"12"``, ``"12.0"``, ``"1.2e3"``), never via a float.

    Raises
    ------
    InputError
        If the cell is not a number, not an integer, negative, or beyond
        :data:`MAX_TOTAL` (one line naming the file, the line and the cell).
    """
    where = f"{path}: line {line_number}: count {cell!r}"
    try:
        value = decimal.Decimal(cell)
    except decimal.InvalidOperation:
        raise InputError(f"{where} is not a number") from None
    if not value.is_finite():
        raise InputError(f"{where} is not a finite number")
    if value != value.to_integral_value():
        raise InputError(f"{where}: counts must be integers (use counts, not probabilities)")
    if value < 0:
        raise InputError(f"{where}: counts must be nonnegative")
    if value > MAX_TOTAL:
        raise InputError(f"{where} is more than 2^53 = {MAX_TOTAL} records")
    return int(value)


def _natural_order(labels: Sequence[str]) -> list[str]:
    try:
        return sorted(labels, key=float)
    except ValueError:
        return sorted(labels)


def _label_order(values: object) -> list[str]:
    """The label order of a column or index: a categorical's categories, else natural order."""
    import pandas as pd

    dtype = getattr(values, "dtype", None)
    if isinstance(dtype, pd.CategoricalDtype):
        return [_label_text(v) for v in dtype.categories]
    return _natural_order(sorted({_label_text(v) for v in pd.unique(pd.Series(values))}))


def _label_texts(column: "pd.Series") -> "pd.Series":
    """Every value's :func:`_label_text` (vectorised where the column holds no floats)."""
    import pandas as pd

    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = dtype.categories.dtype
    if pd.api.types.is_float_dtype(dtype) or pd.api.types.is_object_dtype(dtype):
        return column.map(_label_text).astype(str)
    return column.astype(str)


def _label_text(value: object) -> str:
    """A label's text: ``str``, with whole floats written as integers (``1.0`` as ``1``)."""
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    return str(value)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
