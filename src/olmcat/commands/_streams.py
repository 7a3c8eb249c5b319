"""Standard streams: closed ones, '-' for stdin / stdout, and output written only on success.

* A closed fd 0/1/2 at start (``>&-``) is held with /dev/null and its stream says it is closed
  (:func:`guard_standard_streams`).
* :func:`stdout_when_complete` and :func:`file_for_stdout` let stdout see an output only when
  the run succeeds; :func:`stdin_as_file` turns '-' into a file for inputs that must be one.
* While a command runs, a failed write to stdout (a full disk, a file-size limit) is an error
  naming standard output (:func:`guarded_stdout`), whichever code wrote.
* After a closed pipe or a failed write the boundary silences stdout (:func:`silence_stdout`) so
  the interpreter's final flush does not fail again.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO, cast

from olmcat.commands._errors import UsageFailure
from olmcat.errors import OlmcatError, OutputError
from olmcat.files import safe
from olmcat.files.output import (
    SCRATCH,
    cannot_write,
    guarded,
    is_no_room,
    open_output,
    unguarded,
    writing,
)

STDOUT = "standard output"


class _ClosedStream(io.TextIOBase):
    """Stands in for a standard stream that was closed when olmcat started (``>&-``)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self._name = name

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OutputError(
            f"{self._name} is closed; redirect it to a file or give an output path instead"
        )

    def read(self, size: int | None = -1) -> str:
        raise OutputError(f"{self._name} is closed; there is nothing to read")

    def isatty(self) -> bool:
        return False

    def flush(self) -> None:
        pass


def guard_standard_streams() -> None:
    """A closed fd 0/1/2 would be handed to the next file olmcat opens (and stderr messages
    would land in it): hold them with /dev/null, and make the streams say they are closed."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            with contextlib.suppress(OSError):
                held = os.open(os.devnull, os.O_RDWR)
                if held != fd:
                    os.dup2(held, fd)
                    os.close(held)
    if sys.stdin is None:
        sys.stdin = None  # read_stream_text reports a closed stdin by name
    if sys.stdout is None:
        sys.stdout = _ClosedStream("stdout")
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - for the life of the process


@contextlib.contextmanager
def guarded_stdout() -> Iterator[None]:
    """For the length of a command's run, a failed write to stdout is an OutputError naming
    standard output (a full disk behind ``>``, a file-size limit), not a bare OSError."""
    original = sys.stdout
    if (
        original is None
        or isinstance(original, _ClosedStream)
        or unguarded(original) is not original
    ):
        yield
        return
    guarded_stream = guarded(original, STDOUT)
    sys.stdout = guarded_stream
    try:
        yield
    finally:
        if sys.stdout is guarded_stream:
            sys.stdout = original


def silence_stdout() -> None:
    """After a closed pipe or a full disk, let the final flush at exit go nowhere quietly."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def flush_stdout() -> None:
    if sys.stdout is not None and not isinstance(sys.stdout, _ClosedStream):
        sys.stdout.flush()


_SPOOL_IN_MEMORY = 16 << 20


@contextlib.contextmanager
def stdout_when_complete() -> Iterator[TextIO]:
    """A text stream that reaches stdout only when the block succeeds: a run that fails half
    way writes nothing (the catalog is spooled to a temporary file past 16 MiB)."""
    try:
        spool = tempfile.SpooledTemporaryFile(  # noqa: SIM115 - closed below
            max_size=_SPOOL_IN_MEMORY, mode="w+", encoding="utf-8", newline=""
        )
    except OSError as exc:
        raise OutputError(f"cannot create a temporary file: {exc.strerror}") from None
    with spool:
        try:
            yield cast(TextIO, spool)
        except OSError as exc:
            if is_no_room(exc):
                # the spool is the only file written here
                raise cannot_write(
                    f"the output buffered in {tempfile.gettempdir()}", exc, elsewhere=SCRATCH
                ) from None
            raise
        spool.seek(0)
        with writing(STDOUT):
            shutil.copyfileobj(spool, sys.stdout, 1 << 20)
    flush_stdout()


def is_stdio(value: str | Path | None) -> bool:
    return value is not None and str(value) == "-"


def no_stdout(what: str) -> UsageFailure:
    return UsageFailure(f"{what} cannot be '-' (standard output): it is a directory tree")


@contextlib.contextmanager
def stdin_as_file(reference: Path | str) -> Iterator[Path | str]:
    """``reference`` unchanged (a path or an image reference); for '-', standard input copied
    to a scratch file first (a database or an archive must be a file). Messages then name
    ``<stdin>``."""
    if not is_stdio(reference):
        yield reference
        return
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise OutputError("stdin is closed; there is nothing to read")
    scratch = safe.scratch_dir("stdin")
    target = scratch / "stdin"
    limit = safe.limits().max_archive_size
    try:
        shown = f"a copy of standard input in {scratch.parent}"
        with open_output(target, "xb", shown=shown, elsewhere=SCRATCH) as fh:
            copied = 0
            while chunk := stream.read(1 << 20):
                copied += len(chunk)
                if copied > limit:
                    raise OutputError(
                        f"<stdin>: more than {safe.size_text(limit)} (--max-archive-size)"
                    )
                fh.write(chunk)
        try:
            yield target
        except OlmcatError as error:
            error.args = (str(error).replace(str(target), "<stdin>"),)
            raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@contextlib.contextmanager
def file_for_stdout(out: Path) -> Iterator[Path]:
    """``out`` itself; for '-', a scratch file whose bytes go to stdout once the block
    succeeds (for outputs that must be a file while written, such as a database)."""
    if not is_stdio(out):
        yield out
        return
    scratch = safe.scratch_dir("stdout")
    try:
        target = scratch / "output"
        yield target
        with target.open("rb") as fh, writing(STDOUT):
            shutil.copyfileobj(fh, sys.stdout.buffer, 1 << 20)
        flush_stdout()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
