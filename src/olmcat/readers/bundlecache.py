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

**File digests** are remembered per input tree by each file's stat (:mod:`olmcat.files.digests`,
whose trust model applies; ``verify`` hashes every file again), so a warm run reads no file that
did not change. The input policy is still applied to every file a key names, from its stat: a
file the read would refuse (a link leaving the tree, a FIFO, a file over the size limit, one that
cannot be read) gives no key, and the read then refuses it as it always does.

**Finished packages** (``<key>.pkg``): the bytes a package's output file holds, the notices
sent while it was built, and its counts, keyed by the keys of its bundles and everything else
that decides those bytes (:class:`PackageOutputs`). A warm run copies them instead of building
the package; the entry's digest is checked before a byte of it is used.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import pickle
import re
import stat
import struct
import tempfile
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from olmcat.errors import InputError, OutputError
from olmcat.files import safe
from olmcat.files.cachedir import cache_dir_ready, default_cache_dir
from olmcat.files.digests import FileIndex, Stat, index_name, sha256, stat_key
from olmcat.files.output import CACHE, guarded
from olmcat.go.opm import OLDEST, OpmRelease
from olmcat.notices import Notice, NoticeSink

__all__ = [
    "CODE_CORRUPT",
    "CachedPackage",
    "PackageOutputs",
    "RenderCache",
    "RenderedInfo",
    "behaviour_context",
    "code_fingerprint",
    "current_cache",
    "package_meta",
    "parse_size",
    "unchanged",
    "use_cache",
]

FORMAT = b"olmcat-rendered-bundle-v1"
_MAGIC = b"OLMCATRB"
_PACKAGE_MAGIC = b"OLMCATPO"
_HEADER = struct.Struct(">8s32sQB")  # magic, SHA-256 of the body, body length, codec
_META_LENGTH = struct.Struct(">I")
PACKAGE_SUFFIX, INDEX_SUFFIX = ".pkg", ".idx"
_CHUNK = 1 << 20
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
    digest = sha256(version.encode())
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


class _Compressing:
    """A streaming compressor (one frame) and the codec it writes."""

    def __init__(self) -> None:
        self.codec: int
        self.compress: Callable[[bytes], bytes]
        self.flush: Callable[[], bytes]
        try:
            import zstandard
        except ImportError:  # zlib, fast setting (see _compressor)
            compressor = zlib.compressobj(1)
            self.codec, self.compress, self.flush = _ZLIB, compressor.compress, compressor.flush
            return
        frame = zstandard.ZstdCompressor(level=3).compressobj()
        self.codec, self.compress, self.flush = _ZSTD, frame.compress, frame.flush


def _decompressing(codec: int) -> Callable[[bytes], bytes]:
    if codec == _RAW:
        return lambda data: data
    if codec == _ZLIB:
        return zlib.decompressobj().decompress
    if codec == _ZSTD:
        import zstandard

        return zstandard.ZstdDecompressor().decompressobj().decompress
    raise ValueError(f"unknown codec {codec}")


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
    entries: int  # rendered bundles
    bytes: int  # everything under rendered/
    max_bytes: int
    packages: int = 0  # finished packages


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


@dataclass(frozen=True, slots=True)
class Listing:
    """What a key holds of one directory: each entry's name with the digest of a file or the
    kind of anything else (``parts``), and the stat of the directory and of each file when they
    were read (``stats``: a read that saw them change is not stored, see :func:`unchanged`)."""

    parts: tuple[str, ...]
    stats: tuple[tuple[str, Stat], ...]


def unchanged(stats: Iterable[tuple[str, Stat]]) -> bool:
    """Whether every path still has the stat it had when its key was made (a file or directory
    changed during the read makes the read's outcome belong to no key: it is not stored)."""
    for path, before in stats:
        try:
            if stat_key(os.stat(path)) != before:
                return False
        except OSError:
            return False
    return True


def _read_entry(path: Path) -> bytes | None:
    """One of the cache's own files (entries carry their digest; the caller checks it)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


class RenderCache:
    """Rendered bundles by key under ``root`` (default: the cache root of
    :func:`~olmcat.files.cachedir.default_cache_dir`). Safe across processes.

    ``verify``: hash every input file again instead of trusting remembered digests
    (:mod:`olmcat.files.digests`)."""

    def __init__(
        self,
        root: Path | None = None,
        *,
        context: str = "",
        max_bytes: int | None = None,
        verify: bool = False,
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
        self.verify = verify
        self.hits = self.misses = self.written = 0
        self._checked = False
        self._prefix = sha256(
            b"\0".join(
                [
                    FORMAT,
                    code_fingerprint().encode(),
                    context.encode(),
                    repr(safe.limits()).encode(),
                ]
            )
        ).digest()
        # Shared by the caches of other contexts made from this one (with_context): the same
        # files, the same run.
        self._indexes: dict[str, FileIndex] = {}
        self._by_tree: dict[Path, FileIndex] = {}
        self._listings: dict[str, Listing | None] = {}
        self._rooted: set[Path] = set()
        self._inside: set[str] = set()  # directories the link policy allows, this read

    def with_context(self, context: str) -> RenderCache:
        """The same cache (directory, bound, verification, the digests learnt this run) for
        reads of another opm behaviour."""
        other = RenderCache(
            self.root, context=context, max_bytes=self.max_bytes, verify=self.verify
        )
        other._indexes, other._by_tree = self._indexes, self._by_tree
        other._listings, other._rooted, other._inside = self._listings, self._rooted, self._inside
        return other

    def __getstate__(self) -> dict[str, Any]:
        # Worker processes get keys made by the parent; they only read and write entries.
        return {
            "root": self.root,
            "context": self.context,
            "max_bytes": self.max_bytes,
            "verify": self.verify,
            "prefix": self._prefix,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.root, self.context = state["root"], state["context"]
        self.max_bytes, self.verify = state["max_bytes"], state["verify"]
        self._prefix = state["prefix"]
        self.hits = self.misses = self.written = 0
        self._checked = False
        self._indexes, self._by_tree = {}, {}
        self._listings, self._rooted, self._inside = {}, set(), set()

    # -- paths and policy --------------------------------------------------------------------

    @property
    def directory(self) -> Path:
        return self.root / SUBDIR

    def _entry(self, key: str) -> Path:
        return self.directory / key[:2] / key

    def _ready(self, create: bool) -> bool:
        if not self._checked:
            self._checked = cache_dir_ready(self.root, create)
        return self._checked

    # -- keys ----------------------------------------------------------------------------------

    def key(self, *parts: str) -> str:
        """The key of a read from everything it depends on besides the cache's own context
        (the read's options, its files' :meth:`listing` parts)."""
        digest = sha256(self._prefix)
        for part in parts:
            data = part.encode("utf-8", "surrogateescape")
            digest.update(len(data).to_bytes(8, "big") + data)
        return digest.hexdigest()

    def files(self, tree: Path) -> FileIndex:
        """The remembered digests of the input tree at ``tree`` (loaded once per run)."""
        index = self._by_tree.get(tree)
        if index is not None:
            return index
        name = index_name(tree)
        index = self._indexes.get(name)
        if index is None:
            entry = self._entry(name + INDEX_SUFFIX)

            def load() -> bytes | None:
                if not self._ready(create=False):
                    return None
                try:
                    return _read_entry(entry)
                except OSError:
                    return None

            def damaged(why: str) -> None:
                self._report_damage(
                    entry, f"the file digests of {tree}", why, "hashing its files", str(tree)
                )

            index = FileIndex(
                load, lambda data: self._write(entry, data), verify=self.verify, damaged=damaged
            )
            self._indexes[name] = index
        self._by_tree[tree] = index
        return index

    def begin(self) -> None:
        """A new read of input trees starts: list their directories afresh (a listing is made
        once per read, for every key that needs it)."""
        self._listings.clear()
        self._rooted.clear()
        self._inside.clear()

    def bundle_key(
        self, path: Path, tree: Path, *parts: str
    ) -> tuple[str | None, tuple[tuple[str, Stat], ...]]:
        """The key of reading the bundle directory ``path`` of the input tree ``tree``: the
        read's options (``parts``) and every file it opens, by digest; and the stats it was made
        from. (None, ()) when the input policy refuses a file the read opens (the read then says
        what is wrong)."""
        shown = str(path)
        found: list[str] = [*parts, shown]
        stats: list[tuple[str, Stat]] = []
        for sub in ("manifests", "metadata"):
            listing = self.listing(f"{shown}{os.sep}{sub}", tree)
            if listing is None:
                return None, ()
            found += [sub, *listing.parts]
            stats += listing.stats
        return self.key(*found), tuple(stats)

    def listing(self, directory: Path | str, tree: Path) -> Listing | None:
        """Every entry of ``directory`` (a directory of the input tree at ``tree``) as a key
        holds it, once per read (see :meth:`begin`). None when the input policy would refuse
        a file in it (a link leaving the tree, a special file read as a file, one over the
        size limit or that cannot be read) or the directory itself: the read then says what
        is wrong."""
        shown = str(directory)
        if shown in self._listings:
            return self._listings[shown]
        if tree not in self._rooted:
            safe.add_root(tree)  # as the read does: links below it must stay inside it
            self._rooted.add(tree)
        found = self._list(shown, str(tree), self.files(tree))
        self._listings[shown] = found
        return found

    def _allowed(self, directory: str, tree: str) -> bool:
        """Whether the link policy lets ``directory`` (below ``tree``) be read, as
        :func:`safe.check_inside` decides, remembered for the read: a directory that is no link
        below one that passed passes too (its real path is its parent's real path and its
        name), at the cost of one lstat instead of resolving the whole path."""
        if directory in self._inside:
            return True
        try:
            if directory == tree or not directory.startswith(tree + os.sep):
                safe.check_inside(directory)
            else:
                if not self._allowed(os.path.dirname(directory), tree):
                    return False
                if stat.S_ISLNK(os.lstat(directory).st_mode):
                    safe.check_inside(directory)
        except (OSError, InputError):
            return False
        self._inside.add(directory)
        return True

    def _list(self, directory: str, tree: str, index: FileIndex) -> Listing | None:
        if not self._allowed(directory, tree.rstrip(os.sep) or os.sep):
            return None
        try:
            info = os.stat(directory)
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return None
        parts: list[str] = []
        stats: list[tuple[str, Stat]] = [(directory, stat_key(info))]
        for entry in entries:
            try:
                if entry.is_symlink():
                    safe.check_inside(entry.path)  # the link policy, as the read applies it
                    info = os.stat(entry.path)
                else:
                    info = entry.stat(follow_symlinks=False)  # below the checked directory
            except InputError:
                return None
            except OSError:
                parts.append(f"{entry.name}\0dangling link")  # the read skips it, saying so
                continue
            if stat.S_ISREG(info.st_mode):
                digest = index.digest(entry.path, info)
                if digest is None:
                    return None
                parts.append(f"{entry.name}\0{digest.hex()}")
                stats.append((entry.path, stat_key(info)))
            else:
                parts.append(f"{entry.name}\0{safe.file_kind(info.st_mode)}")
        return Listing(tuple(parts), tuple(stats))

    def memo(self, tree: Path, key: str) -> Any:
        """A small result remembered with the digests of ``tree`` (None when absent)."""
        return self.files(tree).memo(key)

    def remember(self, tree: Path, key: str, value: Any) -> None:
        self.files(tree).remember(key, value)

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
        if sha256(body).digest() != body_digest:
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
        self._report_damage(path, f"cached rendering of {where}", why, "rendering it", where)
        return None

    @staticmethod
    def _report_damage(path: Path, what: str, why: str, again: str, where: str) -> None:
        safe.notify(
            Notice(
                CODE_CORRUPT,
                f"{path}: {what} is damaged ({why}); {again} again",
                "warning",
                file=where,
            )
        )
        with contextlib.suppress(OSError):
            path.unlink()

    def put(self, key: str, record: Recorded) -> None:
        """Store an entry (atomically); a cache that cannot be written is reported once and
        then left alone."""
        codec, compress = _compressor()
        body = compress(pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL))
        header = _HEADER.pack(_MAGIC, sha256(body).digest(), len(body), codec)
        self._write(self._entry(key), header + body)
        self.written += 1

    def _write(self, final: Path, data: bytes) -> None:
        entry = _EntryFile(self, final)
        try:
            entry.out.write(data)
            entry.commit()
        except BaseException:
            entry.abort()
            raise

    # -- finished packages ---------------------------------------------------------------------

    def has_package(self, key: str) -> bool:
        return self.has(key + PACKAGE_SUFFIX)

    def package(self, key: str, where: str) -> CachedPackage | None:
        """The finished package of ``key`` with its digest checked, open for copying; None when
        absent, or damaged (with a notice)."""
        if not self._ready(create=False):
            return None
        path = self._entry(key + PACKAGE_SUFFIX)
        try:
            handle = open(path, "rb")  # noqa: SIM115 - the CachedPackage closes it
        except FileNotFoundError:
            return None
        except OSError as exc:
            why = f"cannot read it: {exc.strerror}"
            self._report_damage(path, f"cached {where}", why, "building it", where)
            return None
        try:
            why, found = self._open_package(handle)
        except OSError as exc:
            why, found = f"cannot read it: {exc.strerror}", None
        if found is None:
            handle.close()
            self._report_damage(path, f"cached {where}", why, "building it", where)
            return None
        with contextlib.suppress(OSError):
            os.utime(path)
        return found

    @staticmethod
    def _open_package(handle: IO[bytes]) -> tuple[str, CachedPackage | None]:
        header = handle.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return "it is truncated", None
        magic, body_digest, length, codec = _HEADER.unpack(header)
        if magic != _PACKAGE_MAGIC:
            return "it is not a finished-package entry", None
        digest = sha256()
        seen = 0
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            seen += len(chunk)
        if seen != length:
            return "it is truncated", None
        if digest.digest() != body_digest:
            return "its digest does not match its content", None
        handle.seek(_HEADER.size)
        (meta_length,) = _META_LENGTH.unpack(handle.read(_META_LENGTH.size))
        try:
            meta = pickle.loads(handle.read(meta_length))
            _decompressing(codec)
        except Exception as exc:
            return f"it cannot be decoded ({type(exc).__name__})", None
        if not isinstance(meta, PackageMeta):
            return "it holds something else", None
        return "", CachedPackage(meta, handle, codec)

    def package_writer(self, key: str, meta: PackageMeta) -> PackageWriter:
        return PackageWriter(self, self._entry(key + PACKAGE_SUFFIX), meta)

    # -- maintenance ---------------------------------------------------------------------------

    def _entries(self) -> Iterator[tuple[Path, os.stat_result]]:
        try:
            shards = sorted(os.scandir(self.directory), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            return
        for shard in shards:
            if not shard.is_dir(follow_symlinks=False):
                continue
            with os.scandir(shard.path) as found:
                for entry in found:
                    with contextlib.suppress(FileNotFoundError):
                        yield Path(entry.path), entry.stat(follow_symlinks=False)

    def info(self) -> RenderedInfo:
        entries = packages = total = 0
        if self._ready(create=False):
            for path, info in self._entries():
                total += info.st_size
                if path.name.startswith("."):
                    continue
                if path.name.endswith(PACKAGE_SUFFIX):
                    packages += 1
                elif not path.name.endswith(INDEX_SUFFIX):
                    entries += 1
        return RenderedInfo(self.root, entries, total, self.max_bytes, packages)

    def bound(self, max_bytes: int | None = None) -> tuple[int, int]:
        """Remove least recently used entries until the cache holds at most ``max_bytes``
        (default: its bound), and temporary files of dead runs; (entries removed, bytes)."""
        limit = self.max_bytes if max_bytes is None else max_bytes
        if not self._ready(create=False):
            return 0, 0
        now = time.time()
        live: list[tuple[int, int, Path]] = []
        removed = freed = 0
        for path, info in self._entries():
            if path.name.startswith("."):  # a write in progress, or left by a killed run
                if now - info.st_mtime > _STALE_TMP_SECONDS or _writer_gone(path.name):
                    with contextlib.suppress(OSError):
                        path.unlink()
                continue
            live.append((info.st_mtime_ns, info.st_size, path))
        total = sum(size for _, size, _ in live)
        if total <= limit:
            return 0, 0
        for _, size, path in sorted(live, key=lambda item: item[0]):
            if total <= limit:
                break
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed += 1
                freed += size
            total -= size
        return removed, freed

    def prune(self, older_than: float | None = None) -> tuple[int, int, int]:
        """Remove entries not used for ``older_than`` seconds (all with ``None``); (rendered
        bundles removed, finished packages removed, bytes freed). Safe while other runs use the
        cache: they render again."""
        if not self._ready(create=False):
            return 0, 0, 0
        now = time.time()
        bundles = packages = freed = 0
        for path, info in self._entries():
            if path.name.startswith(".") and now - info.st_mtime < _STALE_TMP_SECONDS:
                continue  # a write in progress
            if older_than is not None and now - info.st_mtime < older_than:
                continue
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                freed += info.st_size
                if path.name.endswith(PACKAGE_SUFFIX):
                    packages += 1
                elif not path.name.startswith(".") and not path.name.endswith(INDEX_SUFFIX):
                    bundles += 1
        return bundles, packages, freed

    def finish(self, wrote: bool = False) -> None:
        """After a run: save what was learnt of the input files, and keep the cache within its
        bound if this run (or, with ``wrote``, its worker processes) added to it."""
        self._listings.clear()
        self._rooted.clear()
        self._inside.clear()
        saved = False
        for index in self._indexes.values():
            if index.changed:
                index.save()
                saved = True
        if self.written or wrote or saved:
            self.bound()


# -- finished packages -----------------------------------------------------------------------------


@dataclass(slots=True)
class PackageMeta:
    """What a finished package holds besides its bytes."""

    name: str
    counts: tuple[int, int, int, int] = (0, 0, 0, 0)  # channels, bundles, deprecations, others
    notices: list[tuple[str, Notice]] = field(default_factory=list)  # sent while building it
    later: list[Notice] = field(default_factory=list)  # sent after reading (migrate level)
    error: str = ""  # the package was left out with this error (no bytes)


def package_meta(path: Path) -> PackageMeta | None:
    """The meta of the finished-package entry at ``path`` (None when it is no whole entry)."""
    try:
        with open(path, "rb") as handle:
            found = RenderCache._open_package(handle)[1]
            return None if found is None else found.meta
    except OSError:
        return None


class CachedPackage:
    """A finished package from the cache, its digest checked: its notices, its counts, and its
    bytes (:meth:`chunks`, read once)."""

    def __init__(self, meta: PackageMeta, handle: IO[bytes], codec: int) -> None:
        self.meta = meta
        self._handle = handle
        self._codec = codec

    @property
    def name(self) -> str:
        return self.meta.name

    def chunks(self) -> Iterator[bytes]:
        """The package's output (UTF-8), decompressed as it is read; the file is closed after."""
        decompress = _decompressing(self._codec)
        try:
            while data := self._handle.read(_CHUNK):
                out = decompress(data)
                if out:
                    yield out
        finally:
            self.close()

    def close(self) -> None:
        self._handle.close()


_TEMPORARY = re.compile(r"\.[0-9a-f]{1,8}-([0-9]+)-")  # _EntryFile's names: key, pid


def _writer_gone(name: str) -> bool:
    """Whether the temporary file ``name`` was being written by a process of this machine that
    has ended (a worker stopped early, a killed run): no one will finish or remove it."""
    found = _TEMPORARY.match(name)
    return found is not None and not safe.pid_alive(int(found.group(1)))


class _EntryFile:
    """A private temporary file beside an entry that becomes the entry on :meth:`commit`
    (``os.replace``: concurrent readers see a whole entry or none)."""

    def __init__(self, cache: RenderCache, final: Path) -> None:
        self.final = final
        self._shown = f"the rendered-bundle cache {cache.root}"
        try:
            cache._ready(create=True)
            final.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            handle, self._name = tempfile.mkstemp(
                prefix=f".{final.name[:8]}-{os.getpid()}-", dir=final.parent
            )
        except OSError as exc:
            raise self._failure(exc) from None
        self.out: IO[bytes] = guarded(os.fdopen(handle, "wb"), self._shown, elsewhere=CACHE)

    def _failure(self, exc: OSError) -> OutputError:
        return OutputError(
            f"{self.final.parent}: cannot write the rendered-bundle cache ({exc.strerror}); "
            "use --no-cache or set OLMCAT_CACHE_DIR"
        )

    def commit(self) -> None:
        self.out.close()
        try:
            os.replace(self._name, self.final)
        except OSError as exc:
            raise self._failure(exc) from None

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self.out.close()
        with contextlib.suppress(OSError):
            os.unlink(self._name)


class PackageWriter:
    """Fills the entry of a finished package while its output is written: ``write`` each
    chunk, then ``commit`` (or ``abort``). The entry's file is made at the first write."""

    def __init__(self, cache: RenderCache, final: Path, meta: PackageMeta) -> None:
        self._cache = cache
        self._final = final
        self._meta = meta
        self._entry: _EntryFile | None = None
        self._digest = sha256()
        self._length = 0
        self._compressing = _Compressing()
        self._done = False

    def _open(self) -> _EntryFile:
        if self._entry is None:
            self._entry = _EntryFile(self._cache, self._final)
            self._entry.out.write(b"\0" * _HEADER.size)  # filled in by commit
            meta = pickle.dumps(self._meta, protocol=pickle.HIGHEST_PROTOCOL)
            self._emit(_META_LENGTH.pack(len(meta)) + meta)
        return self._entry

    def _emit(self, data: bytes) -> None:
        if data:
            assert self._entry is not None
            self._entry.out.write(data)
            self._digest.update(data)
            self._length += len(data)

    def write(self, text: str) -> None:
        try:
            self._open()
            self._emit(self._compressing.compress(text.encode("utf-8", "surrogateescape")))
        except BaseException:
            self.abort()
            raise

    def commit(self) -> None:
        try:
            entry = self._open()
            self._emit(self._compressing.flush())
            entry.out.seek(0)
            entry.out.write(
                _HEADER.pack(
                    _PACKAGE_MAGIC, self._digest.digest(), self._length, self._compressing.codec
                )
            )
            entry.commit()
        except BaseException:
            self.abort()
            raise
        self._done = True
        self._cache.written += 1

    def abort(self) -> None:
        if not self._done:
            self._done = True
            if self._entry is not None:
                self._entry.abort()


class PackageOutputs:
    """The finished packages of one run: its output (format and everything after reading that
    decides a package's bytes: ``context``) over a :class:`RenderCache`.

    The reader looks a package up by the keys of its bundles (:meth:`key`, :meth:`has`,
    :meth:`take`), and registers a package it builds (:meth:`building`) with the notices it
    sent; later steps add theirs (:meth:`later`); the writer stores the bytes
    (:meth:`writer`)."""

    def __init__(self, cache: RenderCache, context: str) -> None:
        self.cache = cache
        self.context = context
        self.hits = 0
        self._pending: dict[str, tuple[str, PackageMeta]] = {}

    def key(self, name: str, parts: Iterable[str]) -> str:
        return self.cache.key("finished-package", self.context, name, *parts)

    def has(self, key: str) -> bool:
        return self.cache.has_package(key)

    def take(self, key: str, name: str) -> CachedPackage | None:
        found = self.cache.package(key, f"package {name!r}")
        if found is not None and found.name != name:  # a key collision cannot happen; a bug can
            found.close()
            return None
        if found is not None:
            self.hits += 1
        return found

    def building(self, key: str, name: str, notices: list[tuple[str, Notice]]) -> None:
        self._pending[name] = (key, PackageMeta(name, notices=notices))

    def skipped(self, key: str, name: str, notices: list[tuple[str, Notice]], error: str) -> None:
        """A package left out with ``error``: stored at once (it has no bytes)."""
        self.cache.package_writer(key, PackageMeta(name, notices=notices, error=error)).commit()

    def later(self, name: str) -> list[Notice] | None:
        """Where notices sent about package ``name`` after reading go (None: not stored)."""
        pending = self._pending.get(name)
        return None if pending is None else pending[1].later

    def writer(self, name: str, counts: tuple[int, int, int, int]) -> PackageWriter | None:
        pending = self._pending.pop(name, None)
        if pending is None:
            return None
        key, meta = pending
        meta.counts = counts
        return self.cache.package_writer(key, meta)


# -- the cache a command uses ---------------------------------------------------------------------


@dataclass(slots=True)
class _Choice:
    """What the command asked for (``--no-cache``, ``--cache-verify``); the cache is made when
    first used, so that a bad setting is reported inside the command."""

    enabled: bool
    verify: bool
    made: RenderCache | None = None


_current: contextvars.ContextVar[_Choice | None] = contextvars.ContextVar(
    "olmcat_render_cache", default=None
)


def current_cache() -> RenderCache | None:
    """The cache chosen with :func:`use_cache` (the CLI chooses one unless ``--no-cache``), or
    None: readers then render every bundle directory afresh."""
    choice = _current.get()
    if choice is None or not choice.enabled:
        return None
    if choice.made is None:
        choice.made = RenderCache(context=behaviour_context(), verify=choice.verify)
    return choice.made


@contextlib.contextmanager
def use_cache(enabled: bool = True, *, verify: bool = False) -> Iterator[None]:
    """Let readers of bundle directories use the default cache (``verify``: hash every input
    file again) while the block runs, unless they are given one; what it learnt is saved when
    the block ends."""
    choice = _Choice(enabled, verify)
    token = _current.set(choice)
    try:
        yield
    finally:
        _current.reset(token)
        if choice.made is not None:
            with contextlib.suppress(OutputError):  # reported when the run wrote to it
                choice.made.finish()
