"""Failed writes: one line naming what was being written, why it failed and what to do.

A write fails for reasons that have nothing to do with the input: the filesystem is full, the
user's quota is used up, or the file would pass the largest size allowed (``EFBIG``: the file-size
limit of ``ulimit -f``, or the filesystem's own maximum). The error Python raises for a failed
``write()`` or ``close()`` names no file, so every place that writes wraps the writing itself in
:func:`writing`, which names the target -- the output the user asked for, standard output, or a
temporary file -- and never the input being read at the time.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any, BinaryIO, Literal, TextIO, TypeVar, cast, overload

from olmcat.errors import OutputError

__all__ = [
    "CACHE",
    "ELSEWHERE",
    "SCRATCH",
    "cannot_write",
    "guarded",
    "is_closed_pipe",
    "is_no_room",
    "open_output",
    "room_advice",
    "scratch_target",
    "write_report",
    "writing",
]

F = TypeVar("F", bound=IO[Any])

# A write that did not fit: no space, no quota left, or past the largest file size allowed.
_NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def is_no_room(exc: BaseException) -> bool:
    """Whether ``exc`` is a write that did not fit (full disk, quota, file-size limit)."""
    return isinstance(exc, OSError) and exc.errno in _NO_ROOM


def is_closed_pipe(exc: BaseException) -> bool:
    """A reader that stopped reading (``olmcat images X | head -1``): not a failure to report."""
    return isinstance(exc, BrokenPipeError) or (
        isinstance(exc, OSError) and exc.errno == errno.EPIPE
    )


# How to write somewhere else, by what is written: an output the user named, olmcat's
# temporary files, its cache.
ELSEWHERE = "write it elsewhere"
SCRATCH = "set TMPDIR to another filesystem"
CACHE = "set OLMCAT_CACHE_DIR to another filesystem (or pass --no-cache where offered)"


def room_advice(exc: OSError, *, elsewhere: str = ELSEWHERE) -> str:
    """What to do about a failed write (``elsewhere``: how to write somewhere else)."""
    if exc.errno == errno.EFBIG:
        return (
            "the file would pass the largest size allowed (the file-size limit, `ulimit -f`, "
            f"or the filesystem's maximum); raise the limit or {elsewhere}"
        )
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"free space there or {elsewhere}"
    return f"check that it can be written, or {elsewhere}"


def cannot_write(
    target: str | os.PathLike[str], exc: OSError, *, elsewhere: str = ELSEWHERE
) -> OutputError:
    """The one-line error for a failed write of ``target``."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    return OutputError(
        f"cannot write {os.fspath(target)}: {reason}; {room_advice(exc, elsewhere=elsewhere)}"
    )


@contextlib.contextmanager
def writing(target: str | os.PathLike[str], *, elsewhere: str = ELSEWHERE) -> Iterator[None]:
    """Turn an OSError raised while the block writes ``target`` into :func:`cannot_write`.

    Wrap only the writing: an OSError from reading inside the block would be blamed on the
    target. A closed pipe passes through (the CLI ends quietly on it)."""
    try:
        yield
    except OSError as exc:
        if is_closed_pipe(exc):
            raise
        raise cannot_write(target, exc, elsewhere=elsewhere) from None


class _Guarded:
    """A file (or stream) whose write, flush and close failures name ``target``; reading it and
    everything else are the wrapped file's own."""

    def __init__(self, file: Any, target: str | os.PathLike[str], elsewhere: str) -> None:
        self._file = file
        self._target = target
        self._elsewhere = elsewhere

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._file)

    # try/except rather than ``writing()``: spills write once per blob, and this stays cheap.
    def _failure(self, exc: OSError) -> BaseException:
        if is_closed_pipe(exc):
            return exc
        return cannot_write(self._target, exc, elsewhere=self._elsewhere)

    def write(self, data: Any) -> Any:
        try:
            return self._file.write(data)
        except OSError as exc:
            raise self._failure(exc) from None

    def writelines(self, lines: Any) -> None:
        try:
            self._file.writelines(lines)
        except OSError as exc:
            raise self._failure(exc) from None

    def flush(self) -> None:
        try:
            self._file.flush()
        except OSError as exc:
            raise self._failure(exc) from None

    def close(self) -> None:
        try:
            self._file.close()
        except OSError as exc:
            raise self._failure(exc) from None

    @property
    def buffer(self) -> Any:
        return _Guarded(self._file.buffer, self._target, self._elsewhere)

    @property
    def wrapped(self) -> Any:
        return self._file

    def __enter__(self) -> Any:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def guarded(file: F, target: str | os.PathLike[str], *, elsewhere: str = ELSEWHERE) -> F:
    """``file``, whose failed writes (write, flush, close) are :func:`cannot_write` errors."""
    return cast(F, _Guarded(file, target, elsewhere))


def unguarded(file: Any) -> Any:
    """The file a :func:`guarded` one wraps (itself when it is not guarded)."""
    return file.wrapped if isinstance(file, _Guarded) else file


TextMode = Literal["w", "x", "a"]
BinaryMode = Literal["wb", "xb", "ab"]


@overload
def open_output(
    path: str | os.PathLike[str],
    mode: TextMode,
    *,
    shown: str | os.PathLike[str] | None = None,
    elsewhere: str = ELSEWHERE,
    encoding: str = "utf-8",
    newline: str | None = None,
) -> TextIO: ...
@overload
def open_output(
    path: str | os.PathLike[str],
    mode: BinaryMode,
    *,
    shown: str | os.PathLike[str] | None = None,
    elsewhere: str = ELSEWHERE,
) -> BinaryIO: ...
def open_output(
    path: str | os.PathLike[str],
    mode: str,
    *,
    shown: str | os.PathLike[str] | None = None,
    elsewhere: str = ELSEWHERE,
    encoding: str = "utf-8",
    newline: str | None = None,
) -> IO[Any]:
    """``open(path, mode)`` for writing; every failure (opening included) names ``shown``
    (default ``path``) and says what to do."""
    target = path if shown is None else shown
    with writing(target, elsewhere=elsewhere):
        if "b" in mode:
            file: IO[Any] = Path(path).open(mode)  # noqa: SIM115 - the caller closes it
        else:
            file = Path(path).open(mode, encoding=encoding, newline=newline)  # noqa: SIM115
    return guarded(file, target, elsewhere=elsewhere)


def write_report(path: Path, document: dict[str, Any]) -> None:
    """Write a JSON report (``--report``) atomically: a partial report would be worse than none."""
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        with open_output(temporary, "w", shown=f"the report {path}") as fh:
            fh.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        with writing(f"the report {path}"):
            temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def scratch_target() -> str:
    """How messages name olmcat's temporary files: where they are."""
    return f"a temporary file in {tempfile.gettempdir()}"
