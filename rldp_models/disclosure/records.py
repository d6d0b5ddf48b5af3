"""Releasing records with a result: a data frame in memory, or a CSV file streamed in chunks
whose header says which result it was drawn with.

Each record's ``(s, u)`` selects a row of the result's channel
(:class:`~rldp_models.disclosure.channel.ReleaseChannel`) and the released value
``Y`` is drawn exactly from it (:mod:`rldp_models.disclosure.sampling`). Rows
keep their order; ``S``, ``U`` and every other column are dropped unless kept
(kept columns are outside the guarantee, and a warning says so).

Refusals and warnings (DESIGN.md, "Exact release"):

* records whose ``(s, u)`` the result does not cover are refused in one line
  naming them, before anything is written (:class:`~rldp_models.errors.InputError`);
* a seeded generator marks the output as not for release (a ``#`` first line in
  the CSV, ``frame.attrs["not_for_release"]``) and warns;
* a CSV release records the digest of the result file it was drawn with in a
  ``# result sha256:...`` line before its header (see "Provenance" below), which
  ``rldp estimate`` checks against the result it is given;
* when the result's design counts are the crosstab of the records released
  (equal digests, :mod:`rldp_models.results.counts`), a warning says the
  guarantee assumes the design data public and that designing on the released
  records leaks through the protocol.

Warnings are :class:`ReleaseWarning` (:mod:`warnings`); the command line prints
them as ``rldp: warning:`` lines.

Provenance
----------
``rldp release`` writes comment lines before the CSV header of the released file:

```text
# NOT FOR RELEASE: drawn with a seeded generator (seed 0), ...   (only with --seed)
# result sha256:<hex> (grr-cr.json)
Y
...
```

The digest is ``sha256:`` and the hex SHA-256 of the result file's bytes, what
``sha256sum RESULT.json`` prints, so anyone can check which result a file was
released with. Whoever reads the file back with a result (``rldp estimate``)
compares the two and refuses another result: its channel is not the one the
values were drawn from, and estimates through it would be wrong without any
sign of it. The result file holds the output labels in column order, so the
digest covers them and their order: a result with its outputs permuted is
another file. A file without the line (released before it existed, or with it
deleted) is refused as well, since nothing then binds it to any result; the
reader may accept it, or a mismatching digest, only by saying so
(``unchecked=True``: ``rldp estimate --unchecked-release``), with a warning.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rldp_models.data import Crosstab
from rldp_models.disclosure.channel import ReleaseChannel
from rldp_models.disclosure.sampling import RandomWords, os_random_words, seeded_random_words
from rldp_models.errors import InputError
from rldp_models.progress import progress
from rldp_models.results.certified import CertifiedResult
from rldp_models.results.counts import counts_digest
from rldp_models.safe_io import atomic_output

RELEASED_COLUMN = "Y"
CHUNK_RECORDS = 250_000


class ReleaseWarning(UserWarning):
    """Something the releaser must know: kept columns, a seeded draw, design = released data."""


@dataclass(frozen=True)
class ReleaseSummary:
    """What a CSV release did: records written, whether seeded, the output path."""

    records: int
    seeded: bool
    out: Path


def random_words(seed: int | None) -> RandomWords:
    """The OS's cryptographic source, or (``seed`` given) a seeded generator, with a warning."""
    if seed is None:
        return os_random_words
    warnings.warn(f"seed {seed}: drawn with a seeded generator; the output is marked NOT FOR "
                  "RELEASE (anyone with the seed can undo the randomisation)", ReleaseWarning,
                  stacklevel=2)
    return seeded_random_words(seed)


def release_frame(result: CertifiedResult, frame: pd.DataFrame, sensitive: str, public: str,
                  keep: Sequence[str] = (), seed: int | None = None) -> pd.DataFrame:
    """Release every record of ``frame`` with ``result`` (module docstring).

    Returns a frame with the kept columns and ``Y`` (label texts,
    :func:`~rldp_models.disclosure.channel.label_text`), in ``frame``'s row order.
    ``result`` is trusted as given; read a file with
    :func:`~rldp_models.disclosure.channel.verified_result` to re-check its guarantee
    first, as ``rldp release`` does.

    Raises
    ------
    InputError
        Missing columns, or records whose ``(s, u)`` is not covered.
    """
    channel = ReleaseChannel.from_result(result)
    _check_columns(list(frame.columns), sensitive, public, keep, "the data")
    s, u = covered_codes(channel, frame[sensitive], frame[public])
    _warn_kept(keep)
    _warn_if_design_data(result, channel, s, u)
    words = random_words(seed)
    out = frame.loc[:, list(keep)].copy()
    out[RELEASED_COLUMN] = channel.texts(channel.draw(s, u, words))
    out.attrs["not_for_release"] = seed is not None
    return out


def release_csv(result: CertifiedResult, data: str | Path, sensitive: str, public: str,
                out: str | Path, keep: Sequence[str] = (), seed: int | None = None,
                design_digest: str | None = None,
                chunk_records: int = CHUNK_RECORDS, result_digest: str | None = None,
                result_name: str = "") -> ReleaseSummary:
    """Release the records of the CSV ``data`` into ``out``, streaming in chunks.

    A first pass checks coverage (nothing is written if a record is refused) and
    counts the records; the second draws and writes to a temporary file beside
    ``out``, renamed into place at the end. Both passes show a progress bar
    (:mod:`rldp_models.progress`: on a terminal, unless quiet). ``result_digest``
    (:func:`~rldp_models.disclosure.records.result_digest` of the file named
    ``result_name``) is written in a comment line before the header.
    """
    channel = ReleaseChannel.from_result(result)
    header = _header(data)
    _check_columns(header, sensitive, public, keep, str(data))
    counts = np.zeros((len(channel.s_labels), len(channel.u_labels)), dtype=np.int64)
    refused: dict[tuple[str, str], list[int]] = {}
    seen = 0
    with progress(desc="checking records", unit="records", unit_scale=True) as bar:
        for chunk in _chunks(data, [sensitive, public], chunk_records):
            s, u = _codes(channel, chunk[sensitive], chunk[public])
            _note_uncovered(channel, chunk, sensitive, public, s, u, seen, refused)
            covered = channel.row_of[s, u] >= 0
            np.add.at(counts, (s[covered], u[covered]), 1)
            seen += len(chunk)
            bar.update(len(chunk))
    if refused:
        raise InputError(_refusal(refused))
    if seen == 0:
        raise InputError(f"{data}: no records to release")
    _warn_kept(keep)
    _warn_if_counts_match(result, channel, counts, design_digest)
    words = random_words(seed)
    with progress(total=seen, desc="releasing", unit="records", unit_scale=True) as bar:
        _write(channel, data, [sensitive, public, *keep], sensitive, public, keep, Path(out),
               words, header_lines(result_digest, result_name, seed), chunk_records,
               bar.update)
    return ReleaseSummary(seen, seed is not None, Path(out))


def _write(channel: ReleaseChannel, data: str | Path, columns: list[str], sensitive: str,
           public: str, keep: Sequence[str], out: Path, words: RandomWords,
           comments: list[str], chunk_records: int, advance: Callable[[int], object]) -> None:
    with atomic_output(out, newline="") as handle:
        handle.writelines(line + "\n" for line in comments)
        first = True
        for chunk in _chunks(data, list(dict.fromkeys(columns)), chunk_records):
            s, u = _codes(channel, chunk[sensitive], chunk[public])
            released = chunk.loc[:, list(keep)].copy()
            released[RELEASED_COLUMN] = channel.texts(channel.draw(s, u, words))
            released.to_csv(handle, header=first, index=False)
            first = False
            advance(len(chunk))


def _header(data: str | Path) -> list[str]:
    try:
        return list(pd.read_csv(data, skipinitialspace=True, dtype=str, nrows=0,
                                index_col=False).columns)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError,
            UnicodeDecodeError) as exc:
        raise InputError(f"{data}: cannot read records ({' '.join(str(exc).split())})") from None


def _chunks(data: str | Path, columns: list[str], size: int) -> Iterator[pd.DataFrame]:
    try:
        yield from pd.read_csv(data, skipinitialspace=True, dtype=str, usecols=columns,
                               chunksize=size, keep_default_na=False, index_col=False)
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{data}: cannot read records ({' '.join(str(exc).split())})") from None


def _check_columns(columns: Sequence[str], sensitive: str, public: str, keep: Sequence[str],
                   where: str) -> None:
    if sensitive == public:
        raise InputError(f"--sensitive and --public name the same column {sensitive!r}")
    missing = [c for c in (sensitive, public, *keep) if c not in columns]
    if missing:
        raise InputError(f"{where}: no column {missing[0]!r}; columns are "
                         f"{', '.join(map(str, columns))}")
    if set(keep) & {sensitive, public}:
        raise InputError("--keep cannot keep the sensitive or public column: they are what the "
                         "release replaces")
    if RELEASED_COLUMN in keep:
        raise InputError(f"--keep {RELEASED_COLUMN}: the released values are written to column "
                         f"{RELEASED_COLUMN!r}; rename the input column {RELEASED_COLUMN!r} "
                         "first")


def _codes(channel: ReleaseChannel, s: pd.Series, u: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Codes of S and U values in the channel's labels (``-1``: not a label)."""
    s_codes = pd.Index(channel.s_labels).get_indexer(pd.Index(s.astype(str))).astype(np.int64)
    u_codes = pd.Index(channel.u_labels).get_indexer(pd.Index(u.astype(str))).astype(np.int64)
    return s_codes, u_codes


def covered_codes(channel: ReleaseChannel, s: pd.Series, u: pd.Series
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Codes of every record's ``(s, u)``; InputError naming the uncovered ones."""
    s_codes, u_codes = _codes(channel, s, u)
    refused: dict[tuple[str, str], list[int]] = {}
    frame = pd.DataFrame({"s": s.to_numpy(), "u": u.to_numpy()})
    _note_uncovered(channel, frame, "s", "u", s_codes, u_codes, 0, refused)
    if refused:
        raise InputError(_refusal(refused))
    return s_codes, u_codes


def _note_uncovered(channel: ReleaseChannel, chunk: pd.DataFrame, sensitive: str, public: str,
                    s: np.ndarray, u: np.ndarray, offset: int,
                    refused: dict[tuple[str, str], list[int]]) -> None:
    """Add the uncovered ``(s, u)`` pairs of ``chunk`` to ``refused``: [count, first record]."""
    bad = (s < 0) | (u < 0)
    bad[~bad] = channel.row_of[s[~bad], u[~bad]] < 0
    for position in np.flatnonzero(bad):
        pair = (str(chunk[sensitive].iloc[position]), str(chunk[public].iloc[position]))
        entry = refused.setdefault(pair, [0, offset + int(position) + 1])
        entry[0] += 1


def _refusal(refused: dict[tuple[str, str], list[int]]) -> str:
    total = sum(count for count, _ in refused.values())
    shown = "; ".join(f"(s={s!r}, u={u!r}) x{count}, first record {first}"
                      for (s, u), (count, first) in list(refused.items())[:5])
    more = f"; and {len(refused) - 5} more pairs" if len(refused) > 5 else ""
    return (f"{total} records have an (s, u) the result does not cover: {shown}{more}; "
            "nothing was written")


def _warn_kept(keep: Sequence[str]) -> None:
    if keep:
        warnings.warn(f"kept columns {', '.join(keep)} are released as they are, outside the "
                      "guarantee", ReleaseWarning, stacklevel=3)


def _warn_if_design_data(result: CertifiedResult, channel: ReleaseChannel, s: np.ndarray,
                         u: np.ndarray) -> None:
    counts = np.zeros((len(channel.s_labels), len(channel.u_labels)), dtype=np.int64)
    np.add.at(counts, (s, u), 1)
    _warn_if_counts_match(result, channel, counts, None)


def _warn_if_counts_match(result: CertifiedResult, channel: ReleaseChannel, counts: np.ndarray,
                          design_digest: str | None) -> None:
    """Warn when ``counts`` (in the channel's label order) are the result's design counts."""
    digest = design_digest or (counts_digest(result.crosstab) if result.crosstab else None)
    if digest is None:
        return
    s_labels, u_labels = (result.crosstab.s_labels, result.crosstab.u_labels) \
        if result.crosstab is not None else (channel.s_labels, channel.u_labels)
    s_order = [channel.s_labels.index(s) for s in s_labels if s in channel.s_labels]
    u_order = [channel.u_labels.index(u) for u in u_labels if u in channel.u_labels]
    if len(s_order) != len(s_labels) or len(u_order) != len(u_labels) or counts.sum() == 0:
        return
    table = Crosstab(counts[np.ix_(s_order, u_order)], s_labels, u_labels)
    if counts_digest(table) == digest:
        warnings.warn("the result was designed on exactly these records (same counts digest): "
                      "the guarantee assumes the design data is public, and designing on the "
                      "released records leaks through the protocol; design on other records",
                      ReleaseWarning, stacklevel=3)


NOT_FOR_RELEASE = "# NOT FOR RELEASE: drawn with a seeded generator (seed {seed}), not the " \
    "operating system's cryptographic source"
RESULT_LINE = "# result {digest} ({name})"
_PREFIXES = ("# NOT FOR RELEASE", "# result sha256:")


def result_digest(path: str | Path) -> str:
    """``sha256:<hex>`` of the bytes of the result file ``path``.

    Raises
    ------
    InputError
        If the file cannot be read.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return "sha256:" + hashlib.sha256(data).hexdigest()


def header_lines(digest: str | None, name: str, seed: int | None) -> list[str]:
    """The comment lines a release writes before the CSV header (module docstring)."""
    lines = [NOT_FOR_RELEASE.format(seed=seed)] if seed is not None else []
    if digest is not None:
        lines.append(RESULT_LINE.format(digest=digest, name=name))
    return lines


@dataclass(frozen=True)
class ReleasedHeader:
    """The comment lines at the top of a released file, read back."""

    lines: int
    """How many lines precede the CSV header."""
    not_for_release: bool
    """Whether the file is marked as drawn with a seeded generator."""
    result_digest: str | None
    """The digest of the result it was released with; None in files from before the line."""


def released_header(path: str | Path) -> ReleasedHeader:
    """Read the comment lines :func:`header_lines` wrote at the top of ``path``.

    Raises
    ------
    InputError
        If the file cannot be read as UTF-8 text.
    """
    lines, marked, digest = 0, False, None
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if not line.startswith(_PREFIXES):
                    break
                lines += 1
                marked = marked or line.startswith(_PREFIXES[0])
                if line.startswith(_PREFIXES[1]):
                    digest = line.split()[2]
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read released records "
                         f"({' '.join(str(exc).split())})") from None
    return ReleasedHeader(lines, marked, digest)


def check_released_with(released: str | Path, result: str | Path,
                        unchecked: bool = False) -> str | None:
    """Refuse ``result`` unless ``released`` records its digest (module docstring).

    Parameters
    ----------
    released, result
        The released file and the result file it is read with.
    unchecked
        Accept a missing or mismatching digest (with a warning) instead of refusing.

    Returns
    -------
    str or None
        The warning for a file accepted with ``unchecked``, else None.

    Raises
    ------
    InputError
        One line, when the digest is missing or names another result and not ``unchecked``.
    """
    recorded = released_header(released).result_digest
    given = result_digest(result)
    if recorded == given:
        return None
    problem = (f"{released} records no result digest (its '# result sha256:' line is missing), "
               f"so nothing binds it to {result}" if recorded is None else
               f"{released} was released with result {recorded}, not {result} ({given})")
    if unchecked:
        return f"{problem}; read anyway (--unchecked-release): estimates are wrong if it was " \
            "released with another channel"
    advice = ("give --result the file it was released with" if recorded is not None else
              "release it again with rldp release")
    raise InputError(f"{problem}; {advice}, or accept it with --unchecked-release")


def refuse_released(path: str | Path | None, option: str) -> None:
    """Refuse a released file given where records (or counts) are expected.

    Its comment lines would be read as a header ("no column 'sex'; columns are
    # result sha256:..."); say what the file is instead.

    Raises
    ------
    InputError
        If ``path`` starts with the comment lines of :func:`header_lines`.
    """
    if path is None or not Path(path).is_file():
        return
    header = released_header(path)
    if header.lines:
        raise InputError(f"{option} {path} is a file rldp release wrote (released values, "
                         "column Y), not records with S and U columns; give the records "
                         "themselves")
