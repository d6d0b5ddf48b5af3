"""Progress bars for long steps: tqdm on stderr, shown only to a person.

A bar is drawn when stderr is a terminal and quiet mode is off
(:func:`set_quiet`, the command line's ``--quiet``); otherwise the same calls
cost nothing and print nothing, so solver output and results on stdout stay
clean. Every step that can take more than a couple of seconds wraps its loop
in :func:`progress`, or itself in :func:`phase` (a line that appears after 2 s).
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import threading
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


SHOW_AFTER = 2.0
"""Seconds a step runs before :func:`phase` shows it (issue 38: every step over 2 s)."""


_DETAIL: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "rldp_progress_detail", default=None)
"""The detail of the innermost :func:`phase` (what :func:`note` writes), or None."""


@contextlib.contextmanager
def phase(desc: str) -> Iterator[None]:
    """Show ``desc``, its elapsed time and the latest :func:`note` on stderr while the block
    runs longer than :data:`SHOW_AFTER` seconds (a person only, as :func:`progress`).

    A background thread redraws the line every second, so a step that never reports still
    shows that it runs.
    """
    detail: dict[str, str] = {}
    token = _DETAIL.set(detail)
    stop = threading.Event()
    watcher = threading.Thread(target=_draw, args=(desc, detail, stop), daemon=True)
    if shown():
        watcher.start()
    try:
        yield
    finally:
        stop.set()
        if watcher.is_alive():
            watcher.join()
        _DETAIL.reset(token)


def note(key: str, text: str) -> None:
    """Set the ``key`` part of the innermost :func:`phase`'s detail (parts show in the order
    first set, e.g. a step, then an iteration; an empty part is not shown); nothing outside
    a phase."""
    detail = _DETAIL.get()
    if detail is not None:
        detail[key] = text


def _draw(desc: str, detail: dict[str, str], stop: threading.Event) -> None:
    """:func:`phase`'s line: nothing for :data:`SHOW_AFTER` s, then redrawn every second."""
    if stop.wait(SHOW_AFTER):
        return
    with progress(total=None, desc=desc, bar_format="{desc}: {elapsed}{postfix}") as bar:
        while True:
            bar.set_postfix_str(", ".join(part for part in dict(detail).values() if part),
                                refresh=True)
            if stop.wait(1.0):
                return
