"""A content-addressed cache of rendered bundles, so a re-run pays only for what changed.

Rendering a bundle directory (parsing megabytes of CRD YAML) is most of the time of
``migrate pkgman`` on a tree of bundle directories. An entry holds what reading one bundle
directory produced -- the rendered bundle, or the error that refused it -- and every notice sent
while reading it, which a hit sends again in the same order (nothing is silent on a warm run).

**Key**: SHA-256 over the cache's format, olmcat's version and a digest of its own code, the opm
behaviour selected (``context``: the release's tag and the migrate level), the input limits in
force, the bundle's path and the options of the read (image reference template, input root), and
the name and SHA-256 of every file the read opens (``manifests/*`` and ``metadata/*``, read
under the input policy). Any change to any of them is another key.

**Entries** live under ``<cache root>/rendered/<2 hex>/<key>`` (the root of
:mod:`olmcat.files.cachedir`, whose ownership and mode policy applies). Each starts with a magic
string and the SHA-256 and length of its body, so a truncated or corrupted entry is detected;
it is then recomputed with a notice. Entries are written to a private temporary file and renamed
into place (``os.replace``): concurrent runs sharing the cache see a whole entry or none. A hit
refreshes the entry's mtime; the cache is bounded (``OLMCAT_RENDER_CACHE_MAX``, default 4 GiB)
by removing the least recently used entries after a run that wrote some, and ``olmcat cache
prune`` empties it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import struct
import tempfile
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from olmcat.errors import InputError, OutputError
from olmcat.files import safe
from olmcat.files.cachedir import check_cache_dir, default_cache_dir, ensure_cache_dir
from olmcat.files.output import CACHE, guarded
from olmcat.go.opm import OLDEST, OpmRelease
from olmcat.notices import Notice, NoticeSink

__all__ = [
    "CODE_CORRUPT",
    "RenderCache",
    "RenderedInfo",
    "behaviour_context",
    "code_fingerprint",
    "parse_size",
]

FORMAT = b"olmcat-rendered-bundle-v1"
_MAGIC = b"OLMCATRB"
_HEADER = struct.Struct(">8s32sQB")  # magic, SHA-256 of the body, body length, codec
_RAW, _ZLIB, _ZSTD = 0, 1, 2
DEFAULT_MAX_BYTES = 4 << 30
SUBDIR = "rendered"
CODE_CORRUPT = "cache.entry-corrupt"
CODE_UNUSABLE = "cache.unusable"
_STALE_TMP_SECONDS = 24 * 3600


def parse_size(text: str) -> int:
    """``4GiB``, ``512MiB``, ``100M``, ``1000000`` -> bytes; ValueError otherwise."""
    units = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    value = text.strip().lower().removesuffix("b").removesuffix("i")
    number, unit = (value[:-1], value[-1]) if value[-1:] in units and value[-1:] else (value, "")
    try:
        size = int(float(number) * units[unit])
    except (ValueError, KeyError):
        raise ValueError(f"{text!r} is not a size like 4GiB, 512MiB or 1000000") from None
    if size < 0:
        raise ValueError(f"{text!r} is not a size like 4GiB, 512MiB or 1000000")
    return size


def behaviour_context(release: OpmRelease | None = None, migrate_level: str = "none") -> str:
    """The opm behaviour a run selects, as the cache key holds it: the release's tag (default:
    the oracle's, v1.26.5) and the migrate level."""
    tag = (release or OLDEST).tag
    return f"opm {tag}; migrate-level {migrate_level}"


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """olmcat's version and a digest of its modules: a cache never outlives the code that
    filled it (a development checkout changes without a version bump)."""
    from importlib import metadata

    try:
        version = metadata.version("olmcat")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
        version = "unknown"
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(version.encode())
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode() + b"\0")
        digest.update(path.read_bytes())
    return f"{version}+{digest.hexdigest()[:16]}"


def _compressor() -> tuple[int, Callable[[bytes], bytes]]:
    try:
        import zstandard
    except ImportError:  # Python 3.14 has no zstandard wheel yet: zlib, fast setting
        return _ZLIB, functools.partial(zlib.compress, level=1)
    return _ZSTD, zstandard.ZstdCompressor(level=3).compress


def _decompress(codec: int, body: bytes) -> bytes:
    if codec == _RAW:
        return body
    if codec == _ZLIB:
        return zlib.decompress(body)
    if codec == _ZSTD:
        import zstandard

        return zstandard.ZstdDecompressor().decompress(body)
    raise ValueError(f"unknown codec {codec}")


@dataclass(frozen=True, slots=True)
class RenderedInfo:
    root: Path
    entries: int
    bytes: int
    max_bytes: int


@dataclass(slots=True)
class Recorded:
    """What one read produced: its result (or error message) and the notices it sent, each
    with the sink it went to (``reader`` or ``input``)."""

    result: Any = None
    error: str = ""
    notices: list[tuple[str, Notice]] = field(default_factory=list)


class Recorder:
    """Collects the notices of one read, in order, while passing nothing on (replayed later)."""

    def __init__(self) -> None:
        self.record = Recorded()

    def reader(self, notice: Notice) -> None:
        self.record.notices.append(("reader", notice))

    def input(self, notice: Notice) -> None:
        self.record.notices.append(("input", notice))


def replay(record: Recorded, notify: NoticeSink) -> None:
    for sink, notice in record.notices:
        (notify if sink == "reader" else safe.notify)(notice)


class RenderCache:
    """Rendered bundles by key under ``root`` (default: the cache root of
    :func:`~olmcat.files.cachedir.default_cache_dir`). Safe across processes."""

    def __init__(
        self,
        root: Path | None = None,
        *,
        context: str = "",
        max_bytes: int | None = None,
    ) -> None:
        self.root = Path(root) if root is not None else default_cache_dir()
        self.context = context
        if max_bytes is None:
            configured = os.environ.get("OLMCAT_RENDER_CACHE_MAX", "").strip()
            try:
                max_bytes = parse_size(configured) if configured else DEFAULT_MAX_BYTES
            except ValueError as exc:
                raise InputError(f"OLMCAT_RENDER_CACHE_MAX: {exc}") from None
        self.max_bytes = max_bytes
        self.hits = self.misses = self.written = 0
        self._checked = False
        self._prefix = hashlib.sha256(
            b"\0".join(
                [
                    FORMAT,
                    code_fingerprint().encode(),
                    context.encode(),
                    repr(safe.limits()).encode(),
                ]
            )
        ).digest()

    # -- paths and policy --------------------------------------------------------------------

    @property
    def directory(self) -> Path:
        return self.root / SUBDIR

    def _entry(self, key: str) -> Path:
        return self.directory / key[:2] / key

    def _ready(self, create: bool) -> bool:
        if self._checked:
            return True
        if create:
            ensure_cache_dir(self.root)
        elif os.path.lexists(self.root):
            check_cache_dir(self.root)
        else:
            return False
        self._checked = True
        return True

    # -- keys ----------------------------------------------------------------------------------

    def key(self, parts: Iterable[str], files: Iterable[tuple[str, Path]]) -> str | None:
        """The key of a read: its options (``parts``) and the files it opens (name, path), read
        here under the input policy. None when a file cannot be read so (the read itself then
        reports it, uncached)."""
        digest = hashlib.sha256(self._prefix)
        for part in parts:
            digest.update(b"p" + part.encode("utf-8", "surrogateescape") + b"\0")
        for name, path in files:
            try:
                data = safe.read_bytes(path)
            except InputError:
                return None
            digest.update(b"f" + name.encode("utf-8", "surrogateescape") + b"\0")
            digest.update(hashlib.sha256(data).digest())
        return digest.hexdigest()

    # -- entries -------------------------------------------------------------------------------

    def has(self, key: str) -> bool:
        """Whether an entry of ``key`` is there (refreshing its mtime); it is checked when read."""
        if not self._ready(create=False):
            return False
        try:
            os.utime(self._entry(key))
        except OSError:
            return False
        return True

    def get(self, key: str, where: str) -> Recorded | None:
        """The entry of ``key``; None when absent, or when it is damaged (with a notice: it is
        recomputed and written again)."""
        if not self._ready(create=False):
            self.misses += 1
            return None
        path = self._entry(key)
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            self.misses += 1
            return None
        except OSError as exc:
            return self._damaged(path, where, f"cannot read it: {exc.strerror}")
        if len(data) < _HEADER.size:
            return self._damaged(path, where, "it is truncated")
        magic, body_digest, length, codec = _HEADER.unpack_from(data)
        body = data[_HEADER.size :]
        if magic != _MAGIC:
            return self._damaged(path, where, "it is not a rendered-bundle entry")
        if len(body) != length:
            return self._damaged(path, where, "it is truncated")
        if hashlib.sha256(body).digest() != body_digest:
            return self._damaged(path, where, "its digest does not match its content")
        try:
            record = pickle.loads(_decompress(codec, body))
        except Exception as exc:  # a digest-correct body from another format: treat as damaged
            return self._damaged(path, where, f"it cannot be decoded ({type(exc).__name__})")
        if not isinstance(record, Recorded):
            return self._damaged(path, where, "it holds something else")
        with contextlib.suppress(OSError):
            os.utime(path)
        self.hits += 1
        return record

    def _damaged(self, path: Path, where: str, why: str) -> Recorded | None:
        self.misses += 1
        safe.notify(
            Notice(
                CODE_CORRUPT,
                f"{path}: cached rendering of {where} is damaged ({why}); rendering it again",
                "warning",
                file=where,
            )
        )
        with contextlib.suppress(OSError):
            path.unlink()
        return None

    def put(self, key: str, record: Recorded) -> None:
        """Store an entry (atomically); a cache that cannot be written is reported once and
        then left alone."""
        codec, compress = _compressor()
        body = compress(pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL))
        header = _HEADER.pack(_MAGIC, hashlib.sha256(body).digest(), len(body), codec)
        final = self._entry(key)
        try:
            self._ready(create=True)
            final.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            handle, name = tempfile.mkstemp(prefix=f".{key[:8]}-{os.getpid()}-", dir=final.parent)
            try:
                shown = f"the rendered-bundle cache {self.root}"
                with guarded(os.fdopen(handle, "wb"), shown, elsewhere=CACHE) as out:
                    out.write(header)
                    out.write(body)
                os.replace(name, final)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(name)
                raise
        except OSError as exc:
            raise OutputError(
                f"{final.parent}: cannot write the rendered-bundle cache ({exc.strerror}); "
                "use --no-cache or set OLMCAT_CACHE_DIR"
            ) from None
        self.written += 1

    # -- maintenance ---------------------------------------------------------------------------

    def _entries(self) -> Iterator[tuple[Path, os.stat_result]]:
        directory = self.directory
        if not directory.is_dir():
            return
        for shard in sorted(directory.iterdir()):
            if not shard.is_dir() or shard.is_symlink():
                continue
            for path in shard.iterdir():
                with contextlib.suppress(FileNotFoundError):
                    yield path, path.lstat()

    def info(self) -> RenderedInfo:
        entries = total = 0
        if self._ready(create=False):
            for path, stat in self._entries():
                if not path.name.startswith("."):
                    entries += 1
                    total += stat.st_size
        return RenderedInfo(self.root, entries, total, self.max_bytes)

    def bound(self, max_bytes: int | None = None) -> tuple[int, int]:
        """Remove least recently used entries until the cache holds at most ``max_bytes``
        (default: its bound), and temporary files of dead runs; (entries removed, bytes)."""
        limit = self.max_bytes if max_bytes is None else max_bytes
        if not self._ready(create=False):
            return 0, 0
        now = time.time()
        live: list[tuple[float, int, Path]] = []
        removed = freed = 0
        for path, stat in self._entries():
            if path.name.startswith("."):  # a write in progress, or left by a killed run
                if now - stat.st_mtime > _STALE_TMP_SECONDS:
                    with contextlib.suppress(OSError):
                        path.unlink()
                continue
            live.append((stat.st_mtime, stat.st_size, path))
        total = sum(size for _, size, _ in live)
        for _, size, path in sorted(live):
            if total <= limit:
                break
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed += 1
                freed += size
            total -= size
        return removed, freed

    def prune(self, older_than: float | None = None) -> tuple[int, int]:
        """Remove entries not used for ``older_than`` seconds (all with ``None``); (entries
        removed, bytes). Safe while other runs use the cache: they render again."""
        if not self._ready(create=False):
            return 0, 0
        now = time.time()
        removed = freed = 0
        for path, stat in self._entries():
            if path.name.startswith(".") and now - stat.st_mtime < _STALE_TMP_SECONDS:
                continue  # a write in progress
            if older_than is not None and now - stat.st_mtime < older_than:
                continue
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                if not path.name.startswith("."):
                    removed += 1
                    freed += stat.st_size
        return removed, freed

    def finish(self, wrote: bool = False) -> None:
        """After a run: keep the cache within its bound if this run (or, with ``wrote``, its
        worker processes) added to it."""
        if self.written or wrote:
            self.bound()
