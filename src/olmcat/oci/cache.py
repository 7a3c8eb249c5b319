"""A content-addressed blob cache shared by every command and every concurrent run.

Layout under the root (``$OLMCAT_CACHE_DIR``, else ``$XDG_CACHE_HOME/olmcat``, else
``~/.cache/olmcat``)::

    blobs/sha256/<hex>   one file per blob or manifest, named by its digest
    tmp/                 downloads in progress and scratch image layouts

A blob is written to a private file in ``tmp/``, verified against its digest and only then
renamed into ``blobs/`` (``os.replace`` is atomic), so a reader sees a complete, verified blob or
none; two runs fetching the same blob both succeed and one copy stays. Files are never modified
in place; a cache hit refreshes the file's mtime, which ``prune --older-than`` uses.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from olmcat.errors import InputError, OutputError
from olmcat.files import safe
from olmcat.files.cachedir import cache_dir_ready, default_cache_dir
from olmcat.files.output import CACHE, guarded
from olmcat.oci.media import is_digest

__all__ = ["BlobCache", "CacheInfo", "PruneResult", "default_cache_dir"]

_CHUNK = 1 << 20
# Scratch left behind by a killed run is removed by prune once it is this old.
_STALE_TMP_SECONDS = 24 * 3600
# Scratch entries name the process that made them ("pull-<pid>-...", "blob-<pid>-...").
_OWNED = re.compile(r"^[a-z]+-(\d+)-")


@dataclass(frozen=True, slots=True)
class CacheInfo:
    root: Path
    blobs: int
    bytes: int
    scratch_bytes: int


@dataclass(frozen=True, slots=True)
class PruneResult:
    removed: int
    bytes: int
    kept: int


class BlobCache:
    """Blobs by digest under ``root``. Thread-safe and safe across processes."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else default_cache_dir()
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._swept = False
        self._root_checked = False

    def _check_root(self, create: bool = False) -> bool:
        """Apply the cache-directory policy (:mod:`olmcat.files.cachedir`) once; False when the
        cache does not exist (and ``create`` is off)."""
        if not self._root_checked:
            self._root_checked = cache_dir_ready(self.root, create)
        return self._root_checked

    # -- paths -----------------------------------------------------------------------------

    def blob_path(self, digest: str) -> Path:
        if not is_digest(digest):
            raise InputError(f"unsupported digest {digest!r}")
        algorithm, encoded = digest.split(":", 1)
        return self.root / "blobs" / algorithm / encoded

    def _ensure(self, directory: Path) -> None:
        self._check_root(create=True)
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(
                f"{directory}: cannot create the cache directory ({exc.strerror}); set "
                "OLMCAT_CACHE_DIR to a writable directory"
            ) from exc

    def scratch_dir(self, prefix: str) -> Path:
        """A new private directory under ``tmp/`` (same file system as the blobs: hardlinks
        from blobs into it work)."""
        tmp = self._tmp()
        return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=tmp))

    def _tmp(self) -> Path:
        """``tmp/``, swept once per process of what killed runs left (their pid is gone)."""
        tmp = self.root / "tmp"
        self._ensure(tmp)
        with self._lock:
            if self._swept:
                return tmp
            self._swept = True
        for entry in tmp.iterdir():
            match = _OWNED.match(entry.name)
            if match is None or safe.pid_alive(int(match.group(1))):
                continue
            with contextlib.suppress(OSError):
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink()
        return tmp

    # -- reading ---------------------------------------------------------------------------

    def get(self, digest: str) -> Path | None:
        """The cached file of ``digest``, or ``None``. Counts a hit or a miss."""
        path = self.blob_path(digest)
        self._check_root()
        try:
            os.utime(path)
        except FileNotFoundError:
            with self._lock:
                self.misses += 1
            return None
        except OSError:
            if not path.is_file():
                with self._lock:
                    self.misses += 1
                return None
        with self._lock:
            self.hits += 1
        return path

    def read(self, digest: str) -> bytes | None:
        path = self.get(digest)
        return None if path is None else path.read_bytes()

    # -- writing ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def writer(self, digest: str, what: str) -> Iterator[IO[bytes]]:
        """A file to write the blob into; on a clean exit it is verified and put in place."""
        final = self.blob_path(digest)
        self._ensure(final.parent)
        tmp = self._tmp()
        handle, name = tempfile.mkstemp(prefix=f"blob-{os.getpid()}-", dir=tmp)
        temporary = Path(name)
        try:
            with guarded(os.fdopen(handle, "wb"), f"the cache {self.root}", elsewhere=CACHE) as out:
                yield out
            self._verify(temporary, digest, what)
            os.replace(temporary, final)
        finally:
            temporary.unlink(missing_ok=True)

    def put(self, digest: str, data: bytes, what: str) -> Path:
        with self.writer(digest, what) as out:
            out.write(data)
        return self.blob_path(digest)

    @staticmethod
    def _verify(path: Path, digest: str, what: str) -> None:
        algorithm = digest.split(":", 1)[0]
        hasher = hashlib.new(algorithm)
        with path.open("rb") as data:
            while chunk := data.read(_CHUNK):
                hasher.update(chunk)
        got = f"{algorithm}:{hasher.hexdigest()}"
        if got != digest:
            raise InputError(f"{what}: digest mismatch: expected {digest}, got {got}")

    # -- maintenance -----------------------------------------------------------------------

    def _blob_files(self) -> Iterator[Path]:
        blobs = self.root / "blobs"
        if not blobs.is_dir():
            return
        for algorithm in sorted(blobs.iterdir()):
            if algorithm.is_dir():
                yield from (p for p in sorted(algorithm.iterdir()) if p.is_file())

    def info(self) -> CacheInfo:
        self._check_root()
        count = total = 0
        for path in self._blob_files():
            with contextlib.suppress(FileNotFoundError):
                total += path.stat().st_size
                count += 1
        scratch = 0
        tmp = self.root / "tmp"
        if tmp.is_dir():
            for directory, _, files in os.walk(tmp):
                for name in files:
                    with contextlib.suppress(FileNotFoundError):
                        scratch += (Path(directory) / name).lstat().st_size
        return CacheInfo(self.root, count, total, scratch)

    def prune(self, older_than: float | None = None) -> PruneResult:
        """Remove blobs not used for ``older_than`` seconds (all with ``None``) and stale scratch.

        A concurrent run that still reads a removed blob keeps its open file; one that looks for
        it later downloads it again.
        """
        self._check_root()
        now = time.time()
        removed = freed = kept = 0
        for path in self._blob_files():
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue
            if older_than is not None and now - stat.st_mtime < older_than:
                kept += 1
                continue
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed += 1
                freed += stat.st_size
        tmp = self.root / "tmp"
        if tmp.is_dir():
            for entry in tmp.iterdir():
                with contextlib.suppress(FileNotFoundError):
                    if now - entry.lstat().st_mtime < _STALE_TMP_SECONDS:
                        continue  # may belong to a run in progress
                    if entry.is_dir() and not entry.is_symlink():
                        shutil.rmtree(entry, ignore_errors=True)
                    else:
                        entry.unlink()
        return PruneResult(removed, freed, kept)
