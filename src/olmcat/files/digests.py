"""File digests remembered by what ``stat`` says of each file, so a re-run reads only what changed.

The rendered-bundle cache keys every read by the SHA-256 of each file it opens. Hashing a whole
community tree (70,000 files, 2 GB) on every run costs more than everything else a warm run does,
so the digests are remembered in a small index per input tree (a :class:`FileIndex`), each with
the file's device, inode, size, modification time and change time (nanoseconds).

**Trust model.** A remembered digest is used when all five are what they were when the file was
hashed. Writing a file changes its mtime and its ctime; ``touch -d``, ``tar`` or ``rsync -t`` can
set the mtime back, but not the ctime: the kernel sets it to the current time on every change of
content or metadata, and no system call lets a user choose it. Replacing a file (an editor's
rename) changes the inode. What is *not* detected:

* a change made while the system clock was set back to the very instant (to the nanosecond) of
  the earlier change, which needs root;
* writes that bypass the filesystem (the block device), or a filesystem that does not keep ctime
  (some FUSE and network filesystems: use ``--cache-verify`` there);
* a change in the same clock tick as the file was hashed: guarded against by never remembering a
  file whose mtime or ctime is less than :data:`RACY_SECONDS` old when it is hashed (as git does
  for its index), so such files are hashed again on the next run.

``verify`` (the commands' ``--cache-verify``) hashes every file again, ignoring what is
remembered, and remembers the fresh digests.

The index of an input tree lives in the cache root's ``rendered/`` directory, written as a whole
and renamed into place (``os.replace``), with the SHA-256 of its content in front: a damaged
index is reported and rebuilt, and concurrent runs each see a whole index (the last one written
wins; either is correct). Besides digests it holds *memos*: small results derived only from
files' contents and keyed by their digests (what a ``metadata/`` directory declares, what the
package-manifest loader finds in a directory), so that a warm run does not parse them again.
"""

from __future__ import annotations

import os
import pickle
import stat
import struct
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from olmcat.errors import InputError
from olmcat.files import safe

__all__ = ["RACY_SECONDS", "FileIndex", "Stat", "sha256", "stat_key"]

if TYPE_CHECKING:
    from _hashlib import HASH


def sha256(data: bytes = b"") -> HASH:
    """hashlib's SHA-256, imported at the first use: hashlib loads OpenSSL's libcrypto (~4 MiB
    of resident memory), which a run without the cache never needs."""
    import hashlib

    return hashlib.sha256(data)


RACY_SECONDS = 2.0
_MAGIC = b"OLMCATFI"
_FORMAT = 2
_HEADER = struct.Struct(">8sB32sQ")  # magic, format, SHA-256 of the (compressed) body, length
_STAT = struct.Struct(">QQQqq")  # device, inode, size, mtime ns, ctime ns; the digest follows

Stat = tuple[int, int, int, int, int]  # device, inode, size, mtime ns, ctime ns


def stat_key(info: os.stat_result) -> Stat:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _packed(info: os.stat_result) -> bytes:
    return _STAT.pack(info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


@dataclass(slots=True)
class _Loaded:
    digests: dict[str, bytes] = field(default_factory=dict)  # path -> packed stat + SHA-256
    memos: dict[str, Any] = field(default_factory=dict)


class FileIndex:
    """Digests of the files of one input tree, by path, trusted while their stat is unchanged.

    ``load`` and ``store`` read and write the index's bytes (the cache does: it owns the
    directory and its policy); ``None`` keeps it in memory only. ``damaged`` is called with a
    reason when the stored index cannot be used (it is then rebuilt)."""

    def __init__(
        self,
        load: Callable[[], bytes | None] | None = None,
        store: Callable[[bytes], None] | None = None,
        *,
        verify: bool = False,
        damaged: Callable[[str], None] | None = None,
    ) -> None:
        self.verify = verify
        self._store = store
        self._old = _decode(load() if load is not None else None, damaged)
        self._new: dict[str, bytes] = {}
        self._memos: dict[str, Any] = {}
        self._changed = False
        self.hashed = self.remembered = 0  # files read and hashed / digests taken as remembered

    # -- digests ------------------------------------------------------------------------------

    def digest(self, path: str, info: os.stat_result) -> bytes | None:
        """The SHA-256 of the regular file ``path`` whose ``stat`` (links followed) is
        ``info``: remembered when unchanged, else read (under the input policy) and hashed.
        None when the input policy refuses to read it (the read itself then says why)."""
        if not stat.S_ISREG(info.st_mode) or info.st_size > safe.limits().max_file_size:
            return None
        packed = _packed(info)
        known = self._new.get(path) or self._old.digests.get(path)
        if known is not None and known[: _STAT.size] == packed and not self.verify:
            self.remembered += 1
            if path not in self._new:
                self._new[path] = known
            return known[_STAT.size :]
        try:
            data = safe.read_bytes(path)
        except InputError:
            return None
        digest = sha256(data).digest()
        self.hashed += 1
        try:
            after = os.stat(path)
        except OSError:
            return digest
        age = time.time_ns() - max(after.st_mtime_ns, after.st_ctime_ns)
        if _packed(after) == packed and age > RACY_SECONDS * 1e9:
            # Unchanged while read, and old enough that a later change shows in its times.
            self._new[path] = packed + digest
            self._changed = True
        return digest

    # -- memos --------------------------------------------------------------------------------

    def memo(self, key: str) -> Any:
        """What :meth:`remember` stored under ``key`` (a digest of everything it depends on),
        or None."""
        value = self._memos.get(key)
        if value is None:
            value = self._old.memos.get(key)
            if value is not None:
                self._memos[key] = value
        return value

    def remember(self, key: str, value: Any) -> None:
        self._memos[key] = value
        self._changed = True

    # -- storing ------------------------------------------------------------------------------

    @property
    def changed(self) -> bool:
        """Whether saving would write something new (a digest or memo learnt)."""
        return self._changed

    def save(self) -> None:
        """Write the index: what this run used, and what it did not look at but still exists
        (another command may read only part of the tree): digests of files that still exist,
        and other memos while they are not many more than the files."""
        if self._store is None or not self._changed:
            return
        digests = dict(self._new)
        for path, value in self._old.digests.items():
            if path not in digests and os.path.lexists(path):
                digests[path] = value
        memos = dict(self._memos)
        room = 4 * len(digests) + 1000 - len(memos)
        for key, value in self._old.memos.items():
            if room <= 0:
                break
            if key not in memos:
                memos[key] = value
                room -= 1
        body = _compress(pickle.dumps((digests, memos), protocol=pickle.HIGHEST_PROTOCOL))
        self._store(_HEADER.pack(_MAGIC, _FORMAT, sha256(body).digest(), len(body)) + body)
        self._changed = False


def _compress(data: bytes) -> bytes:
    """zstd (or zlib where it is missing: the first byte says which)."""
    try:
        import zstandard
    except ImportError:
        return b"z" + zlib.compress(data, 1)
    return b"s" + zstandard.ZstdCompressor(level=3).compress(data)


def _decompress(data: bytes) -> bytes:
    if data[:1] == b"z":
        return zlib.decompress(data[1:])
    if data[:1] == b"s":
        import zstandard

        return zstandard.ZstdDecompressor().decompress(data[1:])
    raise ValueError("unknown codec")


def _decode(data: bytes | None, damaged: Callable[[str], None] | None) -> _Loaded:
    if not data:
        return _Loaded()
    why = ""
    if len(data) < _HEADER.size:
        why = "it is truncated"
    else:
        magic, version, digest, length = _HEADER.unpack_from(data)
        body = data[_HEADER.size :]
        if magic != _MAGIC:
            why = "it is not a file index"
        elif version != _FORMAT:
            return _Loaded()  # another olmcat's format: start again, silently
        elif len(body) != length:
            why = "it is truncated"
        elif sha256(body).digest() != digest:
            why = "its digest does not match its content"
        else:
            try:
                digests, memos = pickle.loads(_decompress(body))
                if isinstance(digests, dict) and isinstance(memos, dict):
                    return _Loaded(digests, memos)
                why = "it holds something else"
            except Exception as exc:
                why = f"it cannot be decoded ({type(exc).__name__})"
    if damaged is not None:
        damaged(why)
    return _Loaded()


def index_name(root: Path) -> str:
    """The name of the index of the tree at ``root`` (its absolute path: the index's paths are
    the paths the readers open)."""
    return sha256(b"olmcat-file-index\0" + os.fsencode(os.path.abspath(root))).hexdigest()
