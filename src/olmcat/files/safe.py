"""Safe file input: what olmcat reads from a catalog it did not write.

Catalogs come from third parties, so every read is bounded and stays inside the tree it was asked
to read:

* **Input roots.** A reader registers the path it was given (:func:`add_root`). A file or
  directory found under a root is read only if its real path lies inside the root's real path;
  a symbolic link leading outside is refused with a message naming the link. With
  ``follow_symlinks`` off, every link below a root is refused. Paths under no registered root are
  not constrained (the caller named them).
* **Regular files only.** FIFOs, sockets and devices are refused before any byte is read (a FIFO
  would block forever, ``/dev/zero`` would never end), and no single file may exceed
  ``max_file_size`` bytes.
* **Limits** (:class:`Limits`) are process-wide settings; the CLI sets them from its options and
  worker processes receive a copy (:func:`snapshot` / :func:`restore`).
* **Input notices.** Oddities found while reading (a duplicate YAML key, a name with bidi control
  characters) are reported as :class:`~olmcat.notices.Notice` to the ambient sink set with
  :func:`notices_to` (by default they are dropped, like every ``notify`` default).
* **Scratch directories** are named ``olmcat-<kind>-<pid>-*`` in the temporary directory, so a
  later run removes those whose process is gone (:func:`clean_stale_scratch`).
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from olmcat.errors import InputError, OutputError
from olmcat.files.output import open_output
from olmcat.notices import Notice, NoticeSink, discard

MiB = 1 << 20
GiB = 1 << 30


@dataclass(frozen=True, slots=True)
class Limits:
    """Every bound olmcat puts on input it reads (docs/safety.md)."""

    max_file_size: int = 256 * MiB
    """Largest single file (manifest, catalog file, metadata file, standard input) read."""
    max_depth: int = 256
    """Deepest nesting of a YAML or JSON document (aliases included)."""
    yaml_alias_ratio: int = 10
    """How many times YAML aliases may multiply a document's nodes (beyond ``YAML_ALIAS_FLOOR``)."""
    archive_ratio: int = 100
    """How many times a layer or archive may expand when decompressed (beyond ``ARCHIVE_FLOOR``)."""
    max_archive_size: int = 8 * GiB
    """Most bytes one image archive may decompress to, whatever its ratio."""
    follow_symlinks: bool = True
    """Follow symbolic links that stay inside the input root (links leading out never are)."""

    def archive_budget(self, compressed: int) -> int:
        """Decompressed bytes allowed for ``compressed`` bytes of archive."""
        return min(self.max_archive_size, max(ARCHIVE_FLOOR, self.archive_ratio * compressed))


# Expanding up to this many YAML nodes is always allowed (go-yaml allows 400,000 decode steps
# before it starts checking its alias ratio); beyond it the ratio applies.
YAML_ALIAS_FLOOR = 400_000
# Small layers may always decompress to this much, whatever their ratio.
ARCHIVE_FLOOR = 16 * MiB

_limits = Limits()


def limits() -> Limits:
    return _limits


def configure(new: Limits | None = None, **changes: Any) -> Limits:
    """Set the process-wide limits (``new``, or the current ones with ``changes``)."""
    global _limits
    _limits = replace(new or _limits, **changes)
    return _limits


@contextlib.contextmanager
def using(new: Limits) -> Iterator[Limits]:
    """Temporarily run with other limits."""
    global _limits
    previous, _limits = _limits, new
    try:
        yield new
    finally:
        _limits = previous


# -- input notices --------------------------------------------------------------------------------

_sink: contextvars.ContextVar[NoticeSink] = contextvars.ContextVar("olmcat_input_notices")


def notify(notice: Notice) -> None:
    """Report an oddity found while reading input to the ambient sink."""
    _sink.get(discard)(notice)


@contextlib.contextmanager
def notices_to(sink: NoticeSink) -> Iterator[NoticeSink]:
    """Send input notices to ``sink`` for the duration of the block."""
    token = _sink.set(sink)
    try:
        yield sink
    finally:
        _sink.reset(token)


def current_sink() -> NoticeSink:
    return _sink.get(discard)


# Bidirectional formatting characters make a name display differently from what it is (the
# "Trojan Source" trick): a directory named with them can pose as another.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def check_path_name(name: str, what: str, **where: str) -> None:
    """Warn when a name that becomes a file or directory name holds bidi control characters."""
    found = sorted({f"U+{ord(c):04X}" for c in name if c in BIDI_CONTROLS})
    if found:
        notify(
            Notice(
                "input.bidi-control-in-name",
                f"{what} {name.encode('unicode_escape').decode('ascii')!r} holds bidirectional "
                f"control characters ({', '.join(found)}): its directory name will display "
                "differently from what it is",
                file=where.get("file", ""),
                package=where.get("package", ""),
                bundle=where.get("bundle", ""),
            )
        )


# -- input roots ----------------------------------------------------------------------------------

# lexical absolute path -> real path of every registered input root
_roots: dict[str, str] = {}


def add_root(path: str | os.PathLike[str]) -> None:
    """Register ``path`` (a directory or file) as an input root: nothing found under it may be
    read through a link that leads outside it."""
    lexical = os.path.abspath(path)
    _roots.setdefault(lexical, os.path.realpath(lexical))


def snapshot() -> tuple[Limits, dict[str, str]]:
    """What a worker process needs to apply the same policy (see :func:`restore`)."""
    return _limits, dict(_roots)


def restore(state: tuple[Limits, dict[str, str]]) -> None:
    global _limits
    _limits = state[0]
    _roots.update(state[1])


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _root_of(lexical: str) -> tuple[str, str] | None:
    """The outermost registered root that holds ``lexical`` (so a nested registration never
    narrows what an enclosing tree allows)."""
    best: tuple[str, str] | None = None
    for root, real in _roots.items():
        if _inside(lexical, root) and (best is None or len(root) < len(best[0])):
            best = (root, real)
    return best


def _first_link(root: str, lexical: str) -> str | None:
    """The first symbolic link on the way from ``root`` down to ``lexical``."""
    relative = os.path.relpath(lexical, root)
    current = root
    for part in [] if relative == "." else relative.split(os.sep):
        current = os.path.join(current, part)
        if os.path.islink(current):
            return current
    return None


def check_inside(path: str | os.PathLike[str]) -> str:
    """The real path of ``path`` once the symlink policy allows reading it; else InputError."""
    lexical = os.path.abspath(path)
    real = os.path.realpath(lexical)
    found = _root_of(lexical)
    if found is None:
        return real
    root, root_real = found
    within_root = os.path.join(root_real, os.path.relpath(lexical, root))
    if real == os.path.normpath(within_root):
        return real  # no link below the root
    link = _first_link(root, lexical) or lexical
    shown_link = link if os.path.isabs(os.fspath(path)) else os.path.relpath(link)
    if not _inside(real, root_real):
        target = _readlink(link)
        raise InputError(
            f"{shown_link}: a symbolic link to {target}, which leads outside "
            f"{_root_label(path, root)}; olmcat never reads outside the input tree (copy the file "
            "in instead)"
        )
    if not limits().follow_symlinks:
        raise InputError(
            f"{shown_link}: symbolic link (links are not followed with --no-follow-symlinks; "
            "drop that option to follow links that stay inside the input tree)"
        )
    return real


def _readlink(link: str) -> str:
    try:
        return repr(os.readlink(link))
    except OSError:
        return "a path"


def _root_label(path: str | os.PathLike[str], root: str) -> str:
    return root if os.path.isabs(os.fspath(path)) else os.path.relpath(root)


# -- regular files ------------------------------------------------------------------------------

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def file_kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def size_text(size: int) -> str:
    for unit, factor in (("GiB", GiB), ("MiB", MiB), ("KiB", 1 << 10)):
        if size >= factor:
            exact = size % factor == 0
            return f"{size // factor} {unit}" if exact else f"{size / factor:.1f} {unit}"
    return f"{size} bytes"


def too_big(where: str, size: int | None = None) -> InputError:
    limit = limits().max_file_size
    has = f" ({size} bytes)" if size is not None else ""
    return InputError(
        f"{where}: larger than the {size_text(limit)} limit for one file{has}; "
        "raise it with --max-file-size if the file is genuine"
    )


class BoundedReader(io.RawIOBase):
    """A file that refuses to deliver more than ``limit`` bytes (it may grow while read)."""

    def __init__(self, raw: IO[bytes], limit: int, where: str) -> None:
        super().__init__()
        self._raw = raw
        self._left = limit
        self._where = where

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = self._raw.read(min(len(view), self._left + 1))
        if len(data) > self._left:
            raise too_big(self._where)
        self._left -= len(data)
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._raw.close()
        super().close()


def open_binary(path: str | os.PathLike[str], *, bounded: bool = True) -> IO[bytes]:
    """Open a regular file for reading under the input policy (links, special files, size).

    ``bounded=False`` lifts the size limit, for blobs whose use is bounded otherwise (image
    layers: their decompressed size is)."""
    where = os.fspath(path)
    real = check_inside(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: the real path was
        # checked, a link swapped in since is refused (ELOOP).
        fd = os.open(real, flags)
    except OSError as exc:
        raise InputError(f"{where}: cannot read: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(
                f"{where}: {file_kind(info.st_mode)}, not a regular file; olmcat reads only "
                "regular files (remove it or list it in .indexignore)"
            )
        if bounded and info.st_size > limits().max_file_size:
            raise too_big(where, info.st_size)
        if flags & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        raw = os.fdopen(fd, "rb", buffering=0)
    except BaseException:
        os.close(fd)
        raise
    if not bounded:
        return io.BufferedReader(raw, 1 << 16)
    return io.BufferedReader(BoundedReader(raw, limits().max_file_size, where), 1 << 16)


def note_special_files(entries: Iterable[os.DirEntry[str]]) -> None:
    """Report directory entries that are neither regular files nor directories (FIFOs,
    sockets, devices, dangling links) where a reader skips them rather than refusing."""
    for entry in entries:
        try:
            if entry.is_file() or entry.is_dir():
                continue
            kind = file_kind(entry.stat().st_mode)
        except OSError:
            kind = "a dangling symbolic link"
        notify(
            Notice(
                "input.special-file-skipped",
                f"{entry.path}: {kind}, not a regular file; skipped",
                file=entry.path,
            )
        )


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    try:
        with open_binary(path) as fh:
            return fh.read()
    except OSError as exc:
        raise InputError(f"{os.fspath(path)}: cannot read: {exc.strerror}") from None


def decode_utf8(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{where}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def read_text(path: str | os.PathLike[str]) -> str:
    """A whole UTF-8 text file under the input policy; a BOM is kept (YAML handles it)."""
    return decode_utf8(read_bytes(path), os.fspath(path))


def open_text(
    path: str | os.PathLike[str], *, newline: str | None = None, errors: str = "strict"
) -> IO[str]:
    """A UTF-8 text stream of a file under the input policy (for files read in chunks)."""
    return io.TextIOWrapper(open_binary(path), encoding="utf-8", newline=newline, errors=errors)


def read_stream_text(stream: IO[str] | None, where: str) -> str:
    """All of a text stream (standard input), at most ``max_file_size`` characters."""
    if stream is None:
        raise InputError(f"{where}: is closed; there is nothing to read")
    limit = limits().max_file_size
    try:
        text = stream.read(limit + 1)
    except UnicodeDecodeError:
        raise InputError(f"{where}: not UTF-8 text") from None
    except OSError as exc:
        raise InputError(f"{where}: cannot read: {exc.strerror}") from None
    if len(text) > limit:
        raise too_big(where)
    return text


class _BoundedText(io.TextIOBase):
    """A text stream that refuses to deliver more than ``limit`` characters."""

    def __init__(self, stream: IO[str], limit: int, where: str) -> None:
        super().__init__()
        self._stream = stream
        self._left = limit
        self._where = where

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> str:
        wanted = self._left + 1 if size is None or size < 0 else min(size, self._left + 1)
        try:
            text = self._stream.read(wanted)
        except UnicodeDecodeError:
            raise InputError(f"{self._where}: not UTF-8 text") from None
        except OSError as exc:
            raise InputError(f"{self._where}: cannot read: {exc.strerror}") from None
        if len(text) > self._left:
            raise too_big(self._where)
        self._left -= len(text)
        return text

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        text = self._stream.readline(self._left + 1 if size is None or size < 0 else size)
        if len(text) > self._left:
            raise too_big(self._where)
        self._left -= len(text)
        return text


def bounded_stream(stream: IO[str] | None, where: str) -> IO[str]:
    """A text stream (standard input) that ends in an error past ``max_file_size`` characters;
    a closed stream is an error naming ``where``."""
    if stream is None:
        raise InputError(f"{where}: is closed; there is nothing to read")
    return _BoundedText(stream, limits().max_file_size, where)  # type: ignore[return-value]


def copy_file(source: Path, target: Path) -> None:
    """Copy an input file under the input policy into a new output file (a failed write names
    ``target``, a failed read ``source``)."""
    with open_binary(source) as src, open_output(target, "xb") as dst:
        while True:
            try:
                chunk = src.read(1 << 20)
            except OSError as exc:
                raise InputError(f"{source}: cannot read: {exc.strerror}") from None
            if not chunk:
                break
            dst.write(chunk)


# -- directory trees ------------------------------------------------------------------------------


def walk(top: str | os.PathLike[str]) -> Iterator[tuple[Path, list[str], list[str]]]:
    """``os.walk(top)`` (top-down; prune by editing the directory list) under the input policy.

    Links to directories inside the input root are descended into (an ancestor loop is refused);
    a link leading outside is refused when the walk would enter it. File links are listed as
    files: opening one applies the policy, so a link nobody reads does no harm. Unreadable
    directories are errors, not silently skipped.
    """
    start = Path(top)
    pending: list[tuple[Path, tuple[str, ...]]] = [(start, ())]
    while pending:
        directory, ancestors = pending.pop()
        real = check_inside(directory)
        if real in ancestors:
            raise InputError(
                f"{directory}: symbolic link loop (it leads back to a directory above it); "
                "remove the link"
            )
        try:
            entries = list(os.scandir(directory))
        except OSError as exc:
            raise InputError(f"{directory}: cannot read directory: {exc.strerror}") from None
        dirnames: list[str] = []
        filenames: list[str] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()  # follows links; a dangling link is a file
            except OSError:
                is_dir = False
            (dirnames if is_dir else filenames).append(entry.name)
        yield directory, dirnames, filenames
        chain = (*ancestors, real)
        pending.extend((directory / name, chain) for name in reversed(dirnames))


# -- scratch directories --------------------------------------------------------------------------

SCRATCH_PREFIX = "olmcat-"


def scratch_dir(kind: str) -> Path:
    """A new private temporary directory ``olmcat-<kind>-<pid>-*``; stale ones are removed."""
    clean_stale_scratch()
    try:
        return Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{kind}-{os.getpid()}-"))
    except OSError as exc:
        raise OutputError(
            f"cannot create a temporary directory in {tempfile.gettempdir()}: {exc.strerror} "
            "(set TMPDIR to a writable directory with space)"
        ) from None


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _scratch_dirs(directory: str | None) -> Iterator[tuple[Path, int]]:
    """The ``olmcat-<kind>-<pid>-*`` directories (not links) of this user, with their pid."""
    base = Path(directory or tempfile.gettempdir())
    uid = os.getuid() if hasattr(os, "getuid") else None
    try:
        candidates = list(base.glob(SCRATCH_PREFIX + "*-*-*"))
    except OSError:
        return
    for candidate in candidates:
        parts = candidate.name[len(SCRATCH_PREFIX) :].split("-")
        if len(parts) < 3 or not parts[1].isdigit():
            continue
        try:
            info = candidate.lstat()
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or (uid is not None and info.st_uid != uid):
            continue
        yield candidate, int(parts[1])


def settle_temp_dir() -> None:
    """Let :mod:`tempfile` choose its directory now, with Ctrl-C held back until it has: the
    first choice probes each candidate with a file it removes afterwards, and an interrupt
    landing in between (olmcat's handler ends the process) would leave that file behind."""
    if tempfile.tempdir is not None:
        return
    import signal  # here: most library calls never need it

    held = hasattr(signal, "pthread_sigmask")
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if held else set()
    try:
        with contextlib.suppress(OSError):  # no usable directory: the first real use says so
            tempfile.gettempdir()
    finally:
        if held:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def clean_stale_scratch(directory: str | None = None) -> list[Path]:
    """Remove ``olmcat-<kind>-<pid>-*`` directories whose process is gone; return them."""
    if directory is None:
        settle_temp_dir()
    removed: list[Path] = []
    for candidate, pid in _scratch_dirs(directory):
        if pid == os.getpid() or pid_alive(pid):
            continue
        shutil.rmtree(candidate, ignore_errors=True)
        removed.append(candidate)
    return removed


def remove_own_scratch() -> None:
    """Remove this process's scratch directories: an interrupted run ends without waiting for
    each owner's cleanup, and a Ctrl-C can land between ``mkdtemp`` and the try/finally that
    would remove its directory (or inside ``mkdtemp``, after the directory exists)."""
    for candidate, pid in _scratch_dirs(None):
        if pid == os.getpid():
            shutil.rmtree(candidate, ignore_errors=True)
