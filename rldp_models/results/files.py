"""Reading and writing result records, hardened against hostile files.

Reading refuses, with one line (an :class:`~rldp_models.errors.InputError`,
exit code 2), before any recursion or big-number arithmetic can hurt:

* files larger than :data:`MAX_RECORD_BYTES` (``RLDP_MAX_RECORD_BYTES`` overrides);
* nesting deeper than :data:`MAX_DEPTH`, found by one iterative scan of the
  text (``json`` itself would recurse until ``RecursionError``);
* integers of more than :data:`MAX_INTEGER_DIGITS` digits (``parse_int``);
* ``NaN``, ``Infinity``, ``-Infinity`` (``parse_constant``) and numbers that
  overflow to an infinite double (``parse_float``);
* text that is not UTF-8 JSON, or whose top level is not an object;
* a current-schema record carrying ``migrated_from``: only
  :func:`~rldp_models.results.record.migrate` sets it, on a round-1 file as it is
  read, and it relaxes the row checks to the round-1 tolerance.

Writing goes through :func:`write_result`, which refuses a result whose
guarantee fails: no file is written then. PolyOpt's pricing proof is written
beside the record as ``OUT.proof.npz`` (:func:`save_pricing_proof`) and read
back by ``rldp verify`` (:func:`load_pricing_proof`).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rldp_models.errors import InputError
from rldp_models.results.json_ready import jsonable
from rldp_models.results.record import to_record
from rldp_models.safe_io import atomic_output, check_input, write_text

if TYPE_CHECKING:
    from rldp_models.results.certified import CertifiedResult

MAX_RECORD_BYTES = 512 * 2**20
MAX_DEPTH = 64
MAX_INTEGER_DIGITS = 40


class GuaranteeFailed(Exception):
    """A result whose guarantee fails is never written (the failures are named)."""


class _Refused(ValueError):
    """Raised inside the JSON parser's hooks; becomes an InputError."""


def _max_bytes() -> int:
    text = os.environ.get("RLDP_MAX_RECORD_BYTES")
    return int(text) if text and text.isdigit() else MAX_RECORD_BYTES


STRING_LITERAL = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
"""A JSON string from its opening quote to its closing one (or to the end when unterminated);
one linear pass, never backtracking (``"?`` always matches)."""

DEPTH_CHUNK = 2**24
"""Brackets whose running depth is summed at once (bounds the scan's working memory)."""

_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))


def nesting_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` outside strings, without recursion.

    String literals are removed by one regular-expression pass (escapes handled as
    JSON does), every other byte but the brackets is dropped, and the running
    depth is a cumulative sum. Above :data:`MAX_DEPTH` the answer is
    ``MAX_DEPTH + 1`` (enough to refuse).
    """
    outside = STRING_LITERAL.sub(b"", text.encode("utf-8", "surrogatepass"))
    brackets = np.frombuffer(outside.translate(None, _NOT_BRACKETS), dtype=np.uint8)
    depth = deepest = 0
    for start in range(0, brackets.size, DEPTH_CHUNK):
        part = brackets[start:start + DEPTH_CHUNK]
        running = depth + np.cumsum(np.where((part == ord("[")) | (part == ord("{")), 1, -1))
        deepest = max(deepest, int(running.max()))
        depth = int(running[-1])
        if deepest > MAX_DEPTH:
            return MAX_DEPTH + 1
    return deepest


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise _Refused(f"an integer of {len(text.lstrip('-'))} digits (at most "
                       f"{MAX_INTEGER_DIGITS})")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"the number {text[:30]} is too large for a double")
    return value


def _constant(name: str) -> None:
    raise _Refused(f"the non-finite number {name} (JSON has none)")


def parse_record_text(text: str, where: str = "the record") -> dict[str, Any]:
    """A JSON object from text, refusing what the module docstring lists."""
    if nesting_depth(text) > MAX_DEPTH:
        raise InputError(f"{where}: nested more than {MAX_DEPTH} levels deep")
    try:
        value = json.loads(text, parse_int=_integer, parse_float=_float,
                           parse_constant=_constant)
    except _Refused as exc:
        raise InputError(f"{where}: not a result record: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(value, dict):
        raise InputError(f"{where}: a result record must be a JSON object")
    if "schema_version" in value and "migrated_from" in value:
        raise InputError(f"{where}: 'migrated_from' marks a round-1 file converted on read; "
                         "a stored record may not carry it")
    return value


def read_record(path: str | Path) -> dict[str, Any]:
    """Read a record file (any version) as a JSON object; see the module docstring."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > _max_bytes():
            raise InputError(f"{path}: {size} bytes, more than the {_max_bytes()} a result "
                             "record may have (set RLDP_MAX_RECORD_BYTES to allow more)")
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    return parse_record_text(text, str(path))


INDENTED_LEVELS = 2
"""Objects nested this deep are laid out one member a line; deeper values take one line each."""


def write_record(record: dict[str, Any], path: str | Path) -> None:
    """Write a JSON-ready record with full-precision doubles (shortest round-trip repr).

    The first :data:`INDENTED_LEVELS` levels of objects are indented (one member a
    line, as ``indent=1`` laid them out); each deeper value is written on one line
    by ``json``'s C encoder. ``indent`` would route the whole record through the
    pure-Python encoder (about 1 s for the 7-11 MB of a robust record's conic
    duals). The text is the same JSON value, so every reader reads it.
    """
    _write_json_ready(jsonable(record), path)


def _write_json_ready(record: dict[str, Any], path: str | Path) -> None:
    """:func:`write_record` for a record that is JSON-ready already (no second conversion)."""
    write_text(path, _layered_json(record, INDENTED_LEVELS) + "\n")


def _layered_json(value: Any, levels: int, margin: str = "") -> str:
    """``value`` as JSON, objects indented by one space for ``levels`` levels."""
    if levels <= 0 or not isinstance(value, dict) or not value:
        return json.dumps(value, allow_nan=False, separators=(", ", ": "))
    inner = margin + " "
    members = (f"{inner}{json.dumps(str(key))}: {_layered_json(item, levels - 1, inner)}"
               for key, item in value.items())
    return "{\n" + ",\n".join(members) + "\n" + margin + "}"


def write_result(result: "CertifiedResult", path: str | Path, embed_counts: bool = True) -> None:
    """Write ``result``'s record at ``path``, only if every guarantee holds.

    Raises
    ------
    GuaranteeFailed
        Naming the failed guarantees; nothing is written.
    """
    if not result.holds:
        failed = "; ".join(f"{g.notion} at eps = {g.eps:g} ({g.detail})" for g in result.failed) \
            or "no guarantee was checked"
        raise GuaranteeFailed(f"not written: the guarantee fails: {failed}")
    record = to_record(result, embed_counts)  # JSON-ready
    proof = result.attachments.get("pricing_proof")
    if proof is not None:
        record["certificate"]["pricing_proof"] = _write_proof(proof, Path(path))
    try:
        _write_json_ready(record, path)
    except BaseException:  # a full disk, an interrupt: no proof left without its record
        if proof is not None:
            Path(path).with_suffix(".proof.npz").unlink(missing_ok=True)
        raise


def _write_proof(proof: dict, out: Path) -> str:
    """Save PolyOpt's pricing proof as ``OUT.proof.npz``; its name, relative to OUT.json."""
    path = out.with_suffix(".proof.npz")
    save_pricing_proof(path, proof)
    return path.name


def load_pricing_proof(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays of a proof saved by :func:`save_pricing_proof` (a regular file of at most
    the size a record may have: a record naming a device or a FIFO is refused unread)."""
    check_input(path, f"the pricing proof {path}", _max_bytes(),
                f"{_max_bytes()} bytes (RLDP_MAX_RECORD_BYTES)")
    try:
        with np.load(path, allow_pickle=False) as data:
            return {key: data[key] for key in data.files}
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the pricing proof {path}: {exc}") from None


def save_pricing_proof(path: str | Path, proof: Mapping[str, np.ndarray]) -> None:
    """Write ``proof`` as a compressed ``.npz``."""
    # numpy's stub types the named arrays of **kwds as its keyword allow_pickle (a bool)
    with atomic_output(path, "wb") as handle:
        np.savez_compressed(handle, **proof)  # type: ignore[arg-type]
