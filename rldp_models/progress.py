"""Progress bars for long steps: tqdm on stderr, shown only to a person.

A bar is drawn when stderr is a terminal and quiet mode is off
(:func:`set_quiet`, the command line's ``--quiet``); otherwise the same calls
cost nothing and print nothing, so solver output and results on stdout stay
clean. Every step that can take more than a couple of seconds wraps its loop
in :func:`progress`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

_quiet = False


def set_quiet(quiet: bool) -> None:
    """Silence (``True``) or allow (``False``) every progress bar of this process."""
    global _quiet
    _quiet = bool(quiet)


def shown() -> bool:
    """Whether bars are drawn: stderr is a terminal and quiet mode is off."""
    return not _quiet and sys.stderr.isatty()


def progress(iterable: Iterable[T] | None = None, *, total: int | None = None,
             desc: str | None = None, unit: str = "it", **options: Any) -> Any:
    """A tqdm bar on stderr over ``iterable`` (or a manual bar when it is None).

    Returns a tqdm object, disabled (a cheap pass-through) when :func:`shown`
    is false. Use it as an iterator, or as a context manager with ``update``.
    """
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=desc, unit=unit, file=sys.stderr,
                disable=not shown(), leave=False, dynamic_ncols=True, **options)


def iterate(iterable: Iterable[T], **options: Any) -> Iterator[T]:
    """:func:`progress` as a plain typed iterator that checks the time limit between steps
    (:func:`solvers.deadline.check`: a loop under ``--time-limit`` stops cooperatively)."""
    from solvers import deadline

    phase = str(options.get("desc") or "a long loop")
    for item in progress(iterable, **options):
        deadline.check(phase)
        yield item
