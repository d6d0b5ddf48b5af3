"""Files read and written without surprises: inputs are regular files, outputs land whole.

:func:`check_input` refuses, in one line before any reading, a path that is a
directory, a device, a FIFO or a socket (``rldp verify /dev/zero`` would read
forever), or a file larger than a limit; ``-`` (standard input) passes.

:func:`atomic_output` writes to a temporary file beside the target and renames
it into place (:func:`os.replace`, atomic on POSIX) only when every write,
flush, ``fsync`` and close succeeded: the target is either the old file or the
complete new one, and no temporary file is left on an error or an interrupt.
A target that exists and is not a regular file (``/dev/null``, ``/dev/full``, a
pipe) is written in place, each write checked, since renaming over it would
replace the device node. Write failures become one-line
:class:`~rldp_models.errors.InputError` s naming the path. An interrupt noted by
:func:`note_interrupt` (the command line's SIGINT handler) stops the rename even when
the ``KeyboardInterrupt`` it raised was swallowed on the way (Python ignores one raised
in a ``__del__`` or a weak-reference callback).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from rldp_models.errors import InputError

STDIN = "-"
"""The path that names standard input."""

_interrupts: list[int] = []
"""Signals noted by :func:`note_interrupt` and not yet cleared."""


def note_interrupt(signum: int) -> None:
    """Note that the process was interrupted: no output is renamed into place after this."""
    _interrupts.append(signum)


def interrupted() -> bool:
    """Whether an interrupt was noted since :func:`clear_interrupts`."""
    return bool(_interrupts)


def clear_interrupts() -> None:
    """Forget the interrupts noted (a new command starts)."""
    _interrupts.clear()


def check_input(path: str | Path, what: str, max_bytes: int | None = None,
                limit_name: str = "") -> None:
    """Refuse an input that exists and is not a regular file of at most ``max_bytes``
    (named ``limit_name`` in the message, e.g. ``"4 GiB (--max-memory)"``).

    Raises
    ------
    InputError
        One line naming ``what`` (e.g. ``"--counts data.csv"``): a directory,
        not a regular file, too large, or not to be examined (permissions).
    """
    if str(path) == STDIN:
        return
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return  # the reader says so, in its own words (a default file, a suggestion)
    except OSError as exc:
        raise InputError(f"{what}: cannot read ({exc.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{what} is a directory; give a file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{what} is not a regular file (a device, pipe or socket); "
                         "give a regular file")
    if max_bytes is not None and info.st_size > max_bytes:
        raise InputError(f"{what}: {info.st_size} bytes, more than the limit of "
                         f"{limit_name or max_bytes}")


STDIN_CHUNK = 1 << 20
"""Bytes read from standard input at a time (the size limit is checked after each)."""


@contextlib.contextmanager
def spooled_stdin(what: str, max_bytes: int, limit_name: str = "",
                  suffix: str = "") -> Iterator[Path]:
    """Standard input copied to a private temporary file (removed on exit), whose path
    is yielded: a reader that needs a path reads ``-`` through it.

    The size limit applies while reading: at most ``max_bytes`` bytes are read and
    one more refuses the input, so an endless stream (``< /dev/zero``) stops there.

    Raises
    ------
    InputError
        One line naming ``what`` when standard input exceeds ``max_bytes``.
    """
    folder = Path(tempfile.mkdtemp(prefix="rldp-stdin-"))
    try:
        path = folder / f"stdin{suffix}"
        total = 0
        with open(path, "wb") as spool:
            while chunk := sys.stdin.buffer.read(min(STDIN_CHUNK, max_bytes + 1 - total)):
                total += len(chunk)
                if total > max_bytes:
                    raise InputError(f"{what}: standard input is more than the limit of "
                                     f"{limit_name or f'{max_bytes} bytes'}")
                spool.write(chunk)
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether ``a`` and ``b`` name one file: the same resolved path, or the same
    ``(st_dev, st_ino)`` when both exist (a hard link or a symbolic link)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


@contextlib.contextmanager
def atomic_output(path: str | Path, mode: str = "w", newline: str | None = None
                  ) -> Iterator[IO]:
    """A file object whose contents replace ``path`` only once all of it is written.

    ``mode`` is ``"w"`` (text, UTF-8) or ``"wb"``. The temporary file is
    ``.NAME.RANDOM.part`` in the target's folder (symbolic links resolved, so the
    link keeps pointing at the file it names), created with the permissions a
    new file gets (``0o666`` less the umask).

    Raises
    ------
    InputError
        One line naming ``path`` when a write, flush or close fails (a full
        disk); the target is unchanged and the temporary file removed.
    """
    target = Path(os.path.realpath(path))
    if target.exists() and not target.is_file():
        with _checked(path), open(target, mode, newline=newline,
                                  encoding=None if "b" in mode else "utf-8") as handle:
            yield handle
        return
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.part")
    try:
        with _checked(path):
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            with open(descriptor, mode, newline=newline,
                      encoding=None if "b" in mode else "utf-8") as handle:
                yield handle
                handle.flush()
                os.fsync(handle.fileno())
            if interrupted():
                raise KeyboardInterrupt
            os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def _checked(path: str | Path) -> Iterator[None]:
    """An :class:`OSError` while writing ``path`` as one line."""
    try:
        yield
    except OSError as exc:
        raise InputError(f"cannot write {path} ({exc.strerror or exc}); "
                         "nothing was written there") from None


def write_text(path: str | Path, text: str) -> None:
    """``text`` written to ``path`` through :func:`atomic_output`."""
    with atomic_output(path) as handle:
        handle.write(text)


def save_figure(figure, path: str | Path, **options) -> None:
    """A matplotlib figure saved at ``path`` through :func:`atomic_output` (the format from
    the suffix, PNG when there is none)."""
    with atomic_output(path, "wb") as handle:
        figure.savefig(handle, format=Path(path).suffix.lstrip(".").lower() or "png",
                       **options)
