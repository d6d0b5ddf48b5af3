"""Mutating a record's leaves, re-sealing it and verifying it in this process (issue 35, item 1).

A *leaf* is a number, string or boolean of a record; its *pattern* is its path with
every list index written ``[]`` (``certificate.multipliers.robust_privacy[0,1].c[]``).
``docs/records.md`` lists every pattern as checked or informational (between the
``leaf-patterns`` markers, :func:`documented_patterns`); the mutation test reads them.
"""

from __future__ import annotations

import contextlib
import copy
import fnmatch
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rldp_models.cli import main
from rldp_models.data import Crosstab
from rldp_models.results.counts import counts_digest

DOCS = Path(__file__).resolve().parents[1] / "docs" / "records.md"

Path_ = tuple[str | int, ...]


@dataclass(frozen=True)
class Mutation:
    """One edit of one leaf: ``kind`` is ``up``, ``down``, ``flip``, ``permute``, ``rename``
    or ``delete`` (the leaf's list loses this entry)."""

    path: Path_
    kind: str

    @property
    def pattern(self) -> str:
        return pattern_of(self.path)


def pattern_of(path: Path_) -> str:
    text = ""
    for key in path:
        text += "[]" if isinstance(key, int) else (f".{key}" if text else str(key))
    return text


def leaves(value: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    """Every ``(path, leaf)`` of a JSON value, ``None`` excluded (an absent claim)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, (*path, index))
    elif value is not None:
        yield path, value


def representatives(record: dict, per_pattern: int) -> list[Path_]:
    """Up to ``per_pattern`` paths of each pattern: the first, the last, then the middle."""
    by_pattern: dict[str, list[Path_]] = {}
    for path, _ in leaves(record):
        by_pattern.setdefault(pattern_of(path), []).append(path)
    chosen = []
    for paths in by_pattern.values():
        picks = [paths[0], paths[-1], paths[len(paths) // 2]][:per_pattern]
        chosen += list(dict.fromkeys(picks))
    return chosen


def mutations_of(record: dict, path: Path_) -> list[Mutation]:
    """The edits of one leaf: numbers nudged both ways, booleans flipped, a label list
    permuted, other strings renamed, and (a list's entry) deleted."""
    value = get(record, path)
    kinds: list[str]
    if isinstance(value, bool):
        kinds = ["flip"]
    elif isinstance(value, (int, float)):
        kinds = ["up", "down"]
    else:
        parent = get(record, path[:-1])
        kinds = ["permute"] if isinstance(parent, list) and len(set(map(str, parent))) > 1 \
            else ["rename"]
    if isinstance(path[-1], int):
        kinds.append("delete")
    return [Mutation(path, kind) for kind in kinds]


def get(record: Any, path: Path_) -> Any:
    for key in path:
        record = record[key]
    return record


def nudged(value: int | float, up: bool) -> int | float:
    """An integer moved by one, a float by a relative 1e-3 (by 1e-3 at zero)."""
    if isinstance(value, int):
        return value + (1 if up else -1)
    step = 1e-3 * abs(value) if value else 1e-3
    return value + step if up else value - step


def mutated(record: dict, mutation: Mutation) -> dict:
    """A deep copy of ``record`` with ``mutation`` applied and its counts digest re-sealed."""
    record = copy.deepcopy(record)
    *head, last = mutation.path
    parent = get(record, tuple(head))
    value = parent[last]
    if mutation.kind in ("up", "down"):
        parent[last] = nudged(value, mutation.kind == "up")
    elif mutation.kind == "flip":
        parent[last] = not value
    elif mutation.kind == "rename":
        parent[last] = f"{value}'"
    elif mutation.kind == "permute":  # the label swapped with the next distinct one
        other = next(i for i in [*range(last + 1, len(parent)), *range(last)]
                     if str(parent[i]) != str(value))
        parent[last], parent[other] = parent[other], value
    elif mutation.kind == "delete":
        del parent[last]
    return resealed(record)


def resealed(record: dict) -> dict:
    """The counts digest recomputed from the (possibly edited) embedded table, as
    :func:`rldp_models.results.counts.counts_record` writes it."""
    counts = record.get("counts")
    if isinstance(counts, dict) and counts.get("table") is not None:
        with contextlib.suppress(Exception):  # a table the edit made unreadable stays so
            table = Crosstab.from_array(counts["table"], counts["labels"]["S"],
                                        counts["labels"]["U"])
            counts["digest"] = counts_digest(table)
    return record


def verify_exit(record: dict, where: Path) -> tuple[int, str]:
    """``rldp verify`` of ``record`` written at ``where``, run in this process: the exit code
    and everything it printed."""
    where.write_text(json.dumps(record))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = main(["verify", str(where), "-q"])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue()


def documented_patterns() -> dict[str, dict[str, str]]:
    """``{"checked": {pattern: rule}, "informational": {pattern: why}}`` from the two
    tables between ``<!-- leaf-patterns:checked -->`` / ``informational`` markers."""
    text = DOCS.read_text()
    found: dict[str, dict[str, str]] = {}
    for section in ("checked", "informational"):
        block = text.split(f"<!-- leaf-patterns:{section} -->")[1].split("<!-- /leaf-patterns")[0]
        rows = re.findall(r"^\|\s*`([^`]+)`\s*\|\s*([^|]*?)\s*\|", block, flags=re.M)
        found[section] = dict(rows)
    return found


def classify(pattern: str, table: dict[str, str]) -> str | None:
    """The rule of the first documented pattern (``fnmatch``, ``*`` spans dots) matching."""
    return next((rule for glob, rule in table.items()
                 if fnmatch.fnmatchcase(pattern, glob.replace("[]", "[[][]]"))), None)
