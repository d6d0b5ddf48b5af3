"""Where a released file came from: the digest of the result it was drawn with, in its header.

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
from dataclasses import dataclass
from pathlib import Path

from rldp_models.errors import InputError

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
