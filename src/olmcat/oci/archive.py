"""Read an index image saved to disk and pull its operator catalog out, without a container runtime.

Three on-disk forms are accepted:

* an OCI image layout directory (``oci-layout``, ``index.json``, ``blobs/<alg>/<hex>``);
* an oci-archive: that layout inside a tar file (plain, gzip, bzip2 or xz; ``tarfile`` detects it);
  blobs are read with ``TarFile.extractfile``, the archive is never unpacked to disk;
* a ``docker save`` tar: the legacy form (``manifest.json`` with ``Config``/``Layers``/``RepoTags``)
  and the docker >= 25 form, which also holds an OCI layout (then ``index.json`` is used).

Image selection, when the archive holds several images (multi-arch index, several tags):
candidates are the image manifests reachable from ``index.json`` (nested indexes followed depth
first, in document order; buildkit attestation manifests skipped) or the entries of
``manifest.json``. ``ref`` keeps those whose ``org.opencontainers.image.ref.name`` /
``io.containerd.image.name`` annotation or ``RepoTags`` entry equals it. ``platform``
("os/arch[/variant]") keeps the matching ones; without it the linux/amd64 ones are kept if there
are any. The first remaining candidate in document order is chosen.

Catalog extraction applies the layers in order but only for the labelled path (the sqlite DB file
or the FBC configs dir) and what it needs: OCI/AUFS whiteouts (``.wh.<name>``, ``.wh..wh..opq``)
of later layers are honoured, symlinks are resolved inside the image root (never on the host) and
the result is written as plain files and directories only — ``dest_dir`` never receives a link.
Several paths (a bundle image's ``manifests`` and ``metadata``) are extracted in one pass: each
layer is inflated once for all of them (``ImageArchive.extract_directories``).
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import importlib
import io
import json
import os
import posixpath
import re
import shutil
import stat
import tarfile
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Final, Literal, TypeAlias, cast

from olmcat.errors import InputError, OutputError
from olmcat.files import safe
from olmcat.files.output import SCRATCH, guarded, is_no_room, room_advice

__all__ = [
    "CONFIGS_LABEL",
    "DATABASE_LABEL",
    "DEFAULT_PLATFORM",
    "CatalogInImage",
    "ImageArchive",
    "ImageEntry",
    "Layer",
    "bounded_tar",
    "extract_catalog",
    "is_image_archive",
    "open_image",
]

DATABASE_LABEL: Final = "operators.operatorframework.io.index.database.v1"
CONFIGS_LABEL: Final = "operators.operatorframework.io.index.configs.v1"
DEFAULT_PLATFORM: Final = "linux/amd64"

# Module-level alias: inside ImageArchive the attribute ``os`` shadows the module.
_StrPath: TypeAlias = "str | os.PathLike[str]"

_INDEX_TYPES: Final = frozenset(
    {
        "application/vnd.oci.image.index.v1+json",
        "application/vnd.docker.distribution.manifest.list.v2+json",
    }
)
_MANIFEST_TYPES: Final = frozenset(
    {
        "application/vnd.oci.image.manifest.v1+json",
        "application/vnd.docker.distribution.manifest.v2+json",
    }
)
_REF_ANNOTATIONS: Final = ("org.opencontainers.image.ref.name", "io.containerd.image.name")

# Manifests, indexes and configs are read whole; real ones are KiB. A larger one is refused with an
# error rather than loaded (no silent truncation).
_MAX_JSON_BYTES: Final = 32 << 20
_MAX_INDEX_DEPTH: Final = 8
_MAX_SYMLINKS: Final = 40  # as Linux ELOOP
_MAX_PASSES: Final = 16
_CHUNK: Final = 1 << 20
# An image archive holds a few blobs per image; a tar of more members is no image archive.
_MAX_MEMBERS: Final = 100_000
# Pax and GNU long-name headers are read into memory whole; real ones are a few hundred bytes.
_MAX_HEADER: Final = 1 << 20

_DIGEST_RE: Final = re.compile(r"(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})")
_BLOB_NAME_RE: Final = re.compile(r"(?:blobs/sha256/)?([a-f0-9]{64})(?:\.json)?")
_ARCH_ALIASES: Final = {"x86_64": "amd64", "x86-64": "amd64", "aarch64": "arm64"}
_MAGIC: Final = {
    b"\x1f\x8b": "gzip",
    b"\x28\xb5\x2f\xfd": "zstd",
    b"\xfd7zXZ\x00": "xz",
    b"BZh": "bzip2",
}


# --------------------------------------------------------------------------------------------
# Public data types


@dataclass(frozen=True)
class Layer:
    """One layer of the chosen image, in application order."""

    index: int
    source: str  # path of the blob inside the layout / archive
    media_type: str  # "" when the archive does not say (legacy docker save)
    digest: str | None  # digest of the blob as stored; None when the archive gives none
    size: int | None  # size from the descriptor; None when the archive gives none
    diff_id: str | None  # digest of the uncompressed tar (config rootfs.diff_ids)


@dataclass(frozen=True)
class ImageEntry:
    """One image the archive offers (a candidate for selection)."""

    platform: str  # "os/arch[/variant]", "" when unknown
    refs: tuple[str, ...]
    manifest_digest: str | None  # None for legacy docker save entries


@dataclass(frozen=True)
class CatalogInImage:
    """Where ``extract_catalog`` put the catalog."""

    kind: Literal["sqlite", "fbc"]
    path: Path  # host path of the DB file / configs dir, inside dest_dir
    label: str  # DATABASE_LABEL or CONFIGS_LABEL
    image_path: str  # the label's value, e.g. "/database/index.db"
    labels: dict[str, str]
    platform: str
    manifest_digest: str | None


# --------------------------------------------------------------------------------------------
# Small helpers


class _StreamError(Exception):
    """A read or decompression failure inside a layer stream (kept apart from consumer errors)."""


class _Need(Exception):
    """Control flow: a path that must be tracked in another pass over the layers."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


def _show(text: str) -> str:
    """A name from the archive, safe for a one-line message."""
    if text and text.isprintable() and text.strip() == text:
        return text
    return repr(text)


def _obj(value: object) -> dict[str, Any] | None:
    return cast(dict[str, Any], value) if isinstance(value, dict) else None


def _clean_rel(name: str) -> str | None:
    """Normalise a path inside an outer archive / layout; None if it climbs out."""
    norm = posixpath.normpath(name.lstrip("/")) if name.lstrip("/") else "."
    if norm == ".." or norm.startswith("../"):
        return None
    return "" if norm == "." else norm


def _split_image_path(name: str) -> list[str] | None:
    """Components of a path inside an image; None if it contains ``..``."""
    parts = [p for p in name.split("/") if p not in ("", ".")]
    return None if ".." in parts else parts


@dataclass(frozen=True)
class _Platform:
    os: str
    arch: str
    variant: str | None = None

    def __str__(self) -> str:
        base = f"{self.os}/{self.arch}"
        return f"{base}/{self.variant}" if self.variant else base

    def matches(self, want: _Platform) -> bool:
        return (
            self.os == want.os
            and self.arch == want.arch
            and (want.variant is None or self.variant == want.variant)
        )


def _platform_from(value: object) -> _Platform | None:
    data = _obj(value)
    if data is None:
        return None
    os_name, arch = data.get("os"), data.get("architecture")
    if not isinstance(os_name, str) or not isinstance(arch, str) or not os_name or not arch:
        return None
    variant = data.get("variant")
    return _Platform(os_name, arch, variant if isinstance(variant, str) and variant else None)


def _parse_platform(archive: str, text: str) -> _Platform:
    parts = text.strip().lower().split("/")
    if len(parts) not in (2, 3) or not all(parts):
        raise InputError(f"{archive}: invalid platform {text!r} (expected os/arch[/variant])")
    arch = _ARCH_ALIASES.get(parts[1], parts[1])
    return _Platform(parts[0], arch, parts[2] if len(parts) == 3 else None)


class _Inflated(Exception):
    """A stream decompressed to more bytes than its budget allows."""


class _HashingRaw(io.RawIOBase):
    """Pass-through reader that hashes and counts what flows through it (at most ``budget``)."""

    def __init__(self, src: Any, algorithm: str, budget: int | None = None) -> None:
        super().__init__()
        self._src = src
        self.hash = hashlib.new(algorithm)
        self.count = 0
        self._budget = budget

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        try:
            data: bytes = self._src.read(len(view))
        except Exception as exc:  # any decoder's error: zlib, gzip, lzma, zstandard, ...
            raise _StreamError(f"{type(exc).__name__}: {exc}") from exc
        n = len(data)
        if self._budget is not None and self.count + n > self._budget:
            raise _Inflated(self.count + n)
        view[:n] = data
        self.hash.update(data)
        self.count += n
        return n


class _SafeTarInfo(tarfile.TarInfo):
    """TarInfo that refuses huge pax / GNU long-name headers: tarfile reads those into memory
    whole, so a few compressed bytes could claim gigabytes (the only hook tarfile offers)."""

    def _proc_pax(self, tarfile: tarfile.TarFile) -> tarfile.TarInfo:
        self._check_header()
        return super()._proc_pax(tarfile)  # type: ignore[misc,no-any-return]

    def _proc_gnulong(self, tarfile: tarfile.TarFile) -> tarfile.TarInfo:
        self._check_header()
        return super()._proc_gnulong(tarfile)  # type: ignore[misc,no-any-return]

    def _check_header(self) -> None:
        if self.size > _MAX_HEADER:
            raise tarfile.HeaderError(
                f"extended header of {self.size} bytes (more than {_MAX_HEADER} is no real tar)"
            )


def _open_tar(**kwargs: Any) -> tarfile.TarFile:
    return tarfile.open(tarinfo=_SafeTarInfo, **kwargs)


def _drain(reader: IO[bytes]) -> None:
    while reader.read(_CHUNK):
        pass


def _zstd_reader(src: IO[bytes]) -> IO[bytes] | None:
    """A zstd decompressing reader if some zstd module is importable (stdlib 3.14+ or zstandard)."""
    with contextlib.suppress(ImportError):
        stdlib_zstd = importlib.import_module("compression.zstd")
        return cast(IO[bytes], stdlib_zstd.ZstdFile(src))
    try:
        zstandard = importlib.import_module("zstandard")
    except ImportError:
        return None
    return cast(IO[bytes], zstandard.ZstdDecompressor().stream_reader(src, read_across_frames=True))


# --------------------------------------------------------------------------------------------
# Blob stores: a layout directory or a tar archive


class _Store:
    def size(self, rel: str) -> int | None:
        raise NotImplementedError

    def open(self, rel: str) -> IO[bytes]:
        raise NotImplementedError

    def close(self) -> None:
        pass


class _DirStore(_Store):
    def __init__(self, root: Path) -> None:
        self._root = root
        safe.add_root(root)  # a blob linked out of the layout is refused

    def _path(self, rel: str) -> Path | None:
        clean = _clean_rel(rel)
        return None if clean is None else self._root.joinpath(*clean.split("/"))

    def size(self, rel: str) -> int | None:
        path = self._path(rel)
        if path is None or not path.is_file():
            return None
        return path.stat().st_size

    def open(self, rel: str) -> IO[bytes]:
        path = self._path(rel)
        assert path is not None
        return safe.open_binary(path, bounded=False)


class _TarStore(_Store):
    def __init__(self, tar: tarfile.TarFile, compressed: int, name: str) -> None:
        self._tar = tar
        self._members: dict[str, tarfile.TarInfo] = {}
        # Listing a compressed tar decompresses all of it: bound the members and the bytes.
        budget = safe.limits().archive_budget(compressed)
        for count, member in enumerate(tar, 1):  # later duplicates win, as when tar extracts
            if count > _MAX_MEMBERS:
                raise InputError(f"{name}: more than {_MAX_MEMBERS} members; not an image archive")
            if member.offset_data + member.size > budget:
                raise InputError(_bomb_message(name, "the archive", budget, compressed))
            clean = _clean_rel(member.name)
            if clean:
                self._members[clean] = member

    def _resolve(self, rel: str) -> tarfile.TarInfo | None:
        # docker save links duplicate layer.tar files; follow links within the archive only.
        name = _clean_rel(rel)
        for _ in range(_MAX_SYMLINKS):
            if name is None:
                return None
            member = self._members.get(name)
            if member is None:
                return None
            if member.isreg():
                return member
            if member.issym():
                name = _clean_rel(posixpath.join(posixpath.dirname(name), member.linkname))
            elif member.islnk():
                name = _clean_rel(member.linkname)
            else:
                return None
        return None

    def size(self, rel: str) -> int | None:
        member = self._resolve(rel)
        return None if member is None else member.size

    def open(self, rel: str) -> IO[bytes]:
        member = self._resolve(rel)
        assert member is not None
        handle = self._tar.extractfile(member)
        assert handle is not None
        return handle

    def close(self) -> None:
        self._tar.close()


# --------------------------------------------------------------------------------------------
# Detection


@contextlib.contextmanager
def bounded_tar(stream: IO[bytes], compressed: int, what: str) -> Iterator[tarfile.TarFile]:
    """A streaming tar over a decompressed ``stream`` (``compressed`` bytes of blob), refusing
    to decompress past the archive limits or to hold huge extended headers in memory."""
    budget = safe.limits().archive_budget(compressed)
    plain = io.BufferedReader(_HashingRaw(stream, "sha256", budget), _CHUNK)
    try:
        with _open_tar(fileobj=plain, mode="r|") as tar:
            yield tar
    except _Inflated:
        raise InputError(_bomb_message(what, "the layer", budget, compressed)) from None
    except _StreamError as exc:
        raise InputError(f"{what}: corrupt layer ({exc})") from None


def _bomb_message(name: str, what: str, budget: int, compressed: int) -> str:
    limits = safe.limits()
    return (
        f"{name}: {what} decompresses to more than {safe.size_text(budget)}; refusing a "
        f"possible decompression bomb (allowed: {limits.archive_ratio} times its "
        f"{safe.size_text(compressed)} compressed, never less than "
        f"{safe.size_text(safe.ARCHIVE_FLOOR)}, never more than "
        f"{safe.size_text(limits.max_archive_size)}; see --max-archive-ratio, --max-archive-size)"
    )


def looks_like_tar(path: _StrPath) -> bool:
    """A regular file named like a tar, or whose bytes start like one (or a compressed one)."""
    p = Path(path)
    if p.name.lower().endswith((".tar", ".tar.gz", ".tgz", ".tar.xz", ".tar.bz2", ".tar.zst")):
        return True
    try:
        with p.open("rb") as fh:
            head = fh.read(512)
    except OSError:
        return False
    return any(head.startswith(magic) for magic in _MAGIC) or head[257:262] == b"ustar"


def is_image_archive(path: _StrPath) -> bool:
    """Cheap check: an OCI layout dir, or a tar with oci-layout, index.json or manifest.json.

    Never raises; for a tar it stops at the first marker found (a compressed tar is decompressed
    only up to there, and never beyond the archive limits).
    """
    p = Path(path)
    try:
        if p.is_dir():
            # The layout spec requires oci-layout; an FBC directory may well hold an index.json.
            return (p / "oci-layout").is_file()
        if not p.is_file():
            return False
        budget = safe.limits().archive_budget(p.stat().st_size)
        with _open_tar(name=p, mode="r:*") as tar:
            for count, member in enumerate(tar, 1):
                if count > _MAX_MEMBERS or member.offset_data + member.size > budget:
                    return False
                if _clean_rel(member.name) in ("oci-layout", "index.json", "manifest.json"):
                    return True
    except Exception:
        return False
    return False


# --------------------------------------------------------------------------------------------
# The image


@dataclass
class _Candidate:
    manifest_digest: str | None
    refs: list[str]
    platform: _Platform | None  # from the index descriptor, if it says
    manifest_size: int | None = None
    docker_entry: dict[str, Any] | None = None
    config: dict[str, Any] | None = None  # loaded lazily

    def names(self) -> str:
        return ", ".join(self.refs) if self.refs else (self.manifest_digest or "(untagged)")


class ImageArchive:
    """An image chosen from an archive on disk; use ``open_image`` (a context manager)."""

    path: Path
    format: Literal["oci-layout", "oci-archive", "docker-archive"]
    images: tuple[ImageEntry, ...]
    manifest_digest: str | None
    refs: tuple[str, ...]
    config: dict[str, Any]
    labels: dict[str, str]
    os: str
    architecture: str
    variant: str | None
    layers: tuple[Layer, ...]

    def __init__(
        self,
        path: _StrPath,
        *,
        platform: str | None = None,
        ref: str | None = None,
    ) -> None:
        self.path = Path(path)
        self._name = str(path)
        self._inflated = 0  # bytes decompressed from layers in the current pass
        self._store: _Store = self._open_store()
        try:
            self._load(platform, ref)
        except BaseException:
            self._store.close()
            raise

    # -- context manager -------------------------------------------------------------------

    def __enter__(self) -> ImageArchive:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._store.close()

    @property
    def platform(self) -> str:
        return str(_Platform(self.os, self.architecture, self.variant))

    def _fail(self, message: str) -> InputError:
        return InputError(f"{self._name}: {message}")

    # -- opening ---------------------------------------------------------------------------

    def _open_store(self) -> _Store:
        p = self.path
        expected = "expected an OCI layout directory, an oci-archive or a docker-save tar"
        if not p.exists():
            raise self._fail("does not exist")
        if p.is_dir():
            if not ((p / "oci-layout").is_file() or (p / "index.json").is_file()):
                raise self._fail(f"not an image archive (no oci-layout or index.json; {expected})")
            self.format = "oci-layout"
            return _DirStore(p)
        try:
            info = os.stat(p)
        except OSError as exc:
            raise self._fail(f"cannot read: {exc.strerror}") from None
        if not stat.S_ISREG(info.st_mode):
            raise self._fail(f"{safe.file_kind(info.st_mode)}, not an image archive ({expected})")
        if info.st_size == 0:
            raise self._fail(f"empty file, not an image archive ({expected})")
        try:
            tar = _open_tar(name=p, mode="r:*")  # the store owns it until close()
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise self._fail(f"not an image archive ({expected}): {exc}") from exc
        try:
            store = _TarStore(tar, info.st_size, self._name)
        except (tarfile.TarError, OSError, EOFError, _StreamError) as exc:
            tar.close()
            raise self._fail(f"not an image archive (unreadable tar: {exc})") from exc
        except BaseException:
            tar.close()
            raise
        if store.size("index.json") is not None:
            self.format = "oci-archive"
        elif store.size("manifest.json") is not None:
            self.format = "docker-archive"
        else:
            store.close()
            raise self._fail(
                f"not an image archive (tar has no index.json or manifest.json; {expected})"
            )
        return store

    def _read_json(self, rel: str, *, digest: str | None, size: int | None, what: str) -> Any:
        actual = self._store.size(rel)
        label = digest or rel
        if actual is None:
            raise self._fail(f"missing {'blob ' if digest else ''}{_show(label)} ({what})")
        if size is not None and actual != size:
            raise self._fail(
                f"size mismatch for {_show(label)} ({what}): descriptor says {size} bytes, "
                f"blob has {actual}"
            )
        if actual > _MAX_JSON_BYTES:
            raise self._fail(
                f"{_show(label)} ({what}) is {actual} bytes, over the {_MAX_JSON_BYTES} limit"
            )
        with self._store.open(rel) as handle:
            data = handle.read()
        if digest is not None:
            algorithm, expected = digest.split(":", 1)
            got = hashlib.new(algorithm, data).hexdigest()
            if got != expected:
                raise self._fail(
                    f"digest mismatch for blob {digest} ({what}): got {algorithm}:{got}"
                )
        try:
            return json.loads(data)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            problem = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
            raise self._fail(f"{_show(label)} ({what}) is not valid JSON: {problem}") from None

    def _digest(self, value: object, what: str) -> str:
        if isinstance(value, str) and _DIGEST_RE.fullmatch(value):
            return value
        shown = _show(value) if isinstance(value, str) else repr(value)
        raise self._fail(f"invalid or unsupported digest {shown} in {what}")

    @staticmethod
    def _blob_path(digest: str) -> str:
        algorithm, encoded = digest.split(":", 1)
        return f"blobs/{algorithm}/{encoded}"

    def _read_blob_json(self, desc: dict[str, Any], what: str) -> Any:
        digest = self._digest(desc.get("digest"), what)
        size = desc.get("size")
        return self._read_json(
            self._blob_path(digest),
            digest=digest,
            size=size if isinstance(size, int) else None,
            what=what,
        )

    def _load(self, platform: str | None, ref: str | None) -> None:
        want = None if platform is None else _parse_platform(self._name, platform)
        if self.format == "docker-archive":
            candidates = self._docker_candidates()
        else:
            if self._store.size("index.json") is None:
                raise self._fail("missing index.json")
            index = self._read_json("index.json", digest=None, size=None, what="index.json")
            candidates = {}
            self._walk_index(index, "index.json", [], 0, set(), candidates)
            if not candidates:
                raise self._fail("index.json lists no image manifest")
        pool = list(candidates.values())
        for cand in pool:
            if cand.platform is None:  # the descriptor did not say; the config does
                cand.platform = _platform_from(self._candidate_config(cand))
        self.images = tuple(
            ImageEntry(str(c.platform or ""), tuple(c.refs), c.manifest_digest) for c in pool
        )
        chosen = self._choose(pool, want, ref)
        self.manifest_digest = chosen.manifest_digest
        self.refs = tuple(chosen.refs)
        self._build(chosen)

    def _choose(
        self, pool: list[_Candidate], want: _Platform | None, ref: str | None
    ) -> _Candidate:
        if ref is not None:
            tagged = [c for c in pool if ref in c.refs]
            if not tagged:
                found = "; ".join(c.names() for c in pool)
                raise self._fail(f"no image named {_show(ref)} (images: {found})")
            pool = tagged
        if want is not None:
            matching = [c for c in pool if c.platform is not None and c.platform.matches(want)]
            if not matching:
                found = ", ".join(sorted({str(c.platform or "unknown") for c in pool}))
                raise self._fail(f"no image for platform {want} (platforms: {found})")
            return matching[0]
        default = _parse_platform(self._name, DEFAULT_PLATFORM)
        preferred = [c for c in pool if c.platform is not None and c.platform.matches(default)]
        return (preferred or pool)[0]

    def _walk_index(
        self,
        index: object,
        what: str,
        refs: list[str],
        depth: int,
        seen: set[str],
        out: dict[str, _Candidate],
    ) -> None:
        doc = _obj(index)
        manifests = None if doc is None else doc.get("manifests")
        if not isinstance(manifests, list):
            raise self._fail(f"{what} is not an image index (no manifests list)")
        if depth > _MAX_INDEX_DEPTH:
            raise self._fail(f"image indexes nested deeper than {_MAX_INDEX_DEPTH}")
        for raw in manifests:
            desc = _obj(raw)
            if desc is None:
                raise self._fail(f"malformed descriptor in {what}")
            digest = self._digest(desc.get("digest"), what)
            annotations = _obj(desc.get("annotations")) or {}
            if annotations.get("vnd.docker.reference.type") == "attestation-manifest":
                continue
            plat = _platform_from(desc.get("platform"))
            if plat is not None and plat.os == "unknown":
                continue  # buildkit attestations and other non-runnable artifacts
            names = list(refs)
            for key in _REF_ANNOTATIONS:
                value = annotations.get(key)
                if isinstance(value, str) and value and value not in names:
                    names.append(value)
            media_type = desc.get("mediaType")
            size = desc.get("size")
            doc_child: Any = None
            if media_type not in _INDEX_TYPES and media_type not in _MANIFEST_TYPES:
                if media_type is not None:
                    continue  # an artifact or schema we do not run (e.g. signatures)
                # No media type in the descriptor: the blob itself tells.
                doc_child = self._read_blob_json(desc, f"manifest {digest}")
                child = _obj(doc_child) or {}
                media_type = (
                    "application/vnd.oci.image.index.v1+json"
                    if "manifests" in child
                    else "application/vnd.oci.image.manifest.v1+json"
                )
            if media_type in _INDEX_TYPES:
                if digest in seen:
                    raise self._fail(f"image index {digest} refers to itself")
                if doc_child is None:
                    doc_child = self._read_blob_json(desc, f"image index {digest}")
                self._walk_index(
                    doc_child, f"image index {digest}", names, depth + 1, seen | {digest}, out
                )
                continue
            existing = out.get(digest)
            if existing is not None:
                existing.refs.extend(n for n in names if n not in existing.refs)
                continue
            out[digest] = _Candidate(
                digest, names, plat, manifest_size=size if isinstance(size, int) else None
            )

    def _docker_candidates(self) -> dict[str, _Candidate]:
        entries = self._read_json("manifest.json", digest=None, size=None, what="manifest.json")
        if not isinstance(entries, list) or not entries:
            raise self._fail("manifest.json is not a non-empty list of images")
        out: dict[str, _Candidate] = {}
        for i, raw in enumerate(entries):
            entry = _obj(raw)
            if entry is None or not isinstance(entry.get("Config"), str):
                raise self._fail(f"manifest.json entry {i} has no Config")
            if not isinstance(entry.get("Layers"), list):
                raise self._fail(f"manifest.json entry {i} has no Layers list")
            tags = entry.get("RepoTags") or []
            refs = [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []
            out[str(i)] = _Candidate(None, refs, None, docker_entry=entry)
        return out

    def _manifest(self, cand: _Candidate) -> dict[str, Any]:
        assert cand.manifest_digest is not None
        what = f"manifest {cand.manifest_digest}"
        doc = _obj(
            self._read_blob_json({"digest": cand.manifest_digest, "size": cand.manifest_size}, what)
        )
        if (
            doc is None
            or _obj(doc.get("config")) is None
            or not isinstance(doc.get("layers"), list)
        ):
            raise self._fail(f"{what} is not an image manifest (no config/layers)")
        return doc

    def _candidate_config(self, cand: _Candidate) -> dict[str, Any]:
        if cand.config is not None:
            return cand.config
        if cand.docker_entry is not None:
            rel = cast(str, cand.docker_entry["Config"])
            match = _BLOB_NAME_RE.fullmatch(_clean_rel(rel) or "")
            digest = f"sha256:{match.group(1)}" if match else None
            config = self._read_json(rel, digest=digest, size=None, what="image config")
        else:
            desc = cast(dict[str, Any], self._manifest(cand)["config"])
            config = self._read_blob_json(desc, "image config")
        if _obj(config) is None:
            raise self._fail("image config is not a JSON object")
        cand.config = cast(dict[str, Any], config)
        return cand.config

    def _build(self, cand: _Candidate) -> None:
        config = self._candidate_config(cand)
        self.config = config
        plat = _platform_from(config) or cand.platform
        self.os = plat.os if plat else ""
        self.architecture = plat.arch if plat else ""
        self.variant = plat.variant if plat else None
        inner = _obj(config.get("config")) or {}
        raw_labels = inner.get("Labels") or {}
        labels = _obj(raw_labels)
        if labels is None or not all(isinstance(v, str) for v in labels.values()):
            raise self._fail("image config has malformed Labels (expected a string map)")
        self.labels = cast(dict[str, str], dict(labels))
        rootfs = _obj(config.get("rootfs")) or {}
        diff_ids = rootfs.get("diff_ids")

        layers: list[Layer] = []
        if cand.docker_entry is not None:
            paths = cast(list[Any], cand.docker_entry["Layers"])
            if not isinstance(diff_ids, list) or len(diff_ids) != len(paths):
                raise self._fail(
                    "image config rootfs.diff_ids does not match manifest.json Layers "
                    "(needed to verify the layers)"
                )
            for i, (rel, diff_id) in enumerate(zip(paths, diff_ids, strict=True)):
                if not isinstance(rel, str) or _clean_rel(rel) is None:
                    raise self._fail(f"manifest.json layer {i} has an invalid path {rel!r}")
                match = re.fullmatch(r"blobs/(sha256|sha512)/([a-f0-9]+)", _clean_rel(rel) or "")
                digest = f"{match.group(1)}:{match.group(2)}" if match else None
                if digest is not None:
                    digest = self._digest(digest, f"manifest.json layer {i}")
                layers.append(
                    Layer(i, rel, "", digest, None, self._digest(diff_id, "rootfs.diff_ids"))
                )
        else:
            manifest = self._manifest(cand)
            descs = cast(list[Any], manifest["layers"])
            ids = diff_ids if isinstance(diff_ids, list) and len(diff_ids) == len(descs) else None
            for i, raw in enumerate(descs):
                desc = _obj(raw)
                if desc is None:
                    raise self._fail(f"malformed layer descriptor {i} in {cand.manifest_digest}")
                digest = self._digest(desc.get("digest"), f"layer {i} of {cand.manifest_digest}")
                media_type = desc.get("mediaType")
                size = desc.get("size")
                layers.append(
                    Layer(
                        i,
                        self._blob_path(digest),
                        media_type if isinstance(media_type, str) else "",
                        digest,
                        size if isinstance(size, int) else None,
                        self._digest(ids[i], "rootfs.diff_ids") if ids else None,
                    )
                )
        self.layers = tuple(layers)

    # -- layers ----------------------------------------------------------------------------

    def _layer_name(self, layer: Layer) -> str:
        return f"layer {layer.index} ({layer.digest or _show(layer.source)})"

    def _compression(self, layer: Layer, head: bytes) -> str:
        sniffed = next((kind for magic, kind in _MAGIC.items() if head.startswith(magic)), None)
        media = layer.media_type
        declared = (
            "gzip"
            if "gzip" in media
            else "zstd"
            if "zstd" in media
            else "none"
            if media == "" or media.endswith(".tar")
            else None
        )
        if sniffed in ("gzip", "zstd"):
            return sniffed  # the bytes win over a mislabelled media type
        if sniffed is not None:
            raise self._fail(f"{self._layer_name(layer)}: unsupported compression {sniffed}")
        if declared is None:
            raise self._fail(
                f"{self._layer_name(layer)}: unsupported layer media type {_show(media)}"
            )
        return "none"

    @contextlib.contextmanager
    def _layer_tar(self, layer: Layer) -> Iterator[tarfile.TarFile]:
        """Stream a layer as a tar; its digest, size and diff_id are checked when it is done."""
        name = self._layer_name(layer)
        actual = self._store.size(layer.source)
        if actual is None:
            raise self._fail(f"missing blob {layer.digest or _show(layer.source)} ({name})")
        if layer.size is not None and actual != layer.size:
            raise self._fail(
                f"size mismatch for blob {layer.digest} ({name}): descriptor says "
                f"{layer.size} bytes, blob has {actual}"
            )
        algorithm = layer.digest.split(":", 1)[0] if layer.digest else "sha256"
        with self._store.open(layer.source) as src:
            raw = _HashingRaw(src, algorithm)
            raw_buf = io.BufferedReader(raw, _CHUNK)
            try:
                kind = self._compression(layer, raw_buf.peek(8)[:8])
            except _StreamError as exc:
                raise self._fail(f"{name}: cannot read blob: {exc}") from exc
            decoded: IO[bytes]
            if kind == "gzip":
                decoded = cast(IO[bytes], gzip.GzipFile(fileobj=raw_buf, mode="rb"))
            elif kind == "zstd":
                reader = _zstd_reader(raw_buf)
                if reader is None:
                    raise self._fail(
                        f"{name}: unsupported compression zstd (install the 'zstandard' "
                        "package to read zstd layers)"
                    )
                decoded = reader
            else:
                decoded = raw_buf
            limits = safe.limits()
            budget = min(limits.archive_budget(actual), limits.max_archive_size - self._inflated)
            plain = _HashingRaw(decoded, "sha256", budget)
            plain_buf = io.BufferedReader(plain, _CHUNK)
            try:
                with _open_tar(fileobj=plain_buf, mode="r|") as tar:
                    yield tar
                try:  # the tar may end before its padding / the compressed stream's end
                    _drain(plain_buf)
                except _StreamError:
                    if kind != "gzip":
                        raise
                    # Trailing garbage after the last gzip member: not part of the layer content.
                _drain(raw_buf)
            except _Inflated:
                raise self._fail(_bomb_message(name, "its content", budget, actual)) from None
            except (_StreamError, tarfile.TarError, EOFError) as exc:
                with contextlib.suppress(Exception):
                    _drain(raw_buf)
                self._check_digest(layer, raw)
                raise self._fail(f"{name}: corrupt layer ({exc})") from exc
            finally:
                self._inflated += plain.count
            self._check_digest(layer, raw)
            if layer.size is not None and raw.count != layer.size:
                raise self._fail(f"{name}: read {raw.count} bytes, descriptor says {layer.size}")
            if layer.diff_id is not None:
                got = f"sha256:{plain.hash.hexdigest()}"
                if layer.diff_id.startswith("sha256:") and got != layer.diff_id:
                    raise self._fail(
                        f"digest mismatch for {name}: uncompressed content is {got}, "
                        f"config rootfs.diff_ids says {layer.diff_id}"
                    )

    def _check_digest(self, layer: Layer, raw: _HashingRaw) -> None:
        if layer.digest is None:
            return
        got = f"{layer.digest.split(':', 1)[0]}:{raw.hash.hexdigest()}"
        if got != layer.digest:
            raise self._fail(
                f"digest mismatch for blob {layer.digest} ({self._layer_name(layer)}): got {got}"
            )

    # -- catalog ---------------------------------------------------------------------------

    def extract_catalog(
        self,
        dest_dir: _StrPath,
        *,
        kind: Literal["sqlite", "fbc"] | None = None,
    ) -> CatalogInImage:
        """Materialise the labelled DB file / configs dir under ``dest_dir`` (see module doc).

        ``kind`` forces which label to use; by default the database label wins when an image
        carries both. ``dest_dir`` must be absent or empty; on error it is left as it was.
        """
        label, value = self._catalog_label(kind)
        parts = _split_image_path(value)
        if parts is None:
            raise self._fail(f"label {label}={_show(value)} contains '..'")
        if not parts:
            raise self._fail(f"label {label}={_show(value)} names the image root")
        image_path = "/".join(parts)
        want_kind: Literal["sqlite", "fbc"] = "sqlite" if label == DATABASE_LABEL else "fbc"

        dest = Path(dest_dir)
        created = not dest.exists()
        if created:
            try:
                dest.mkdir(parents=True)
            except OSError as exc:
                raise OutputError(f"{dest}: cannot create directory: {exc}") from exc
        elif not dest.is_dir() or any(dest.iterdir()):
            raise OutputError(f"{dest}: exists and is not an empty directory")
        try:
            try:
                out = self._materialise(image_path, value, want_kind, dest)
            except OSError as exc:
                # File contents are written through a guard naming them (_Tree._write); this is
                # creating directories and links while extracting, or reading the archive.
                if is_no_room(exc):
                    raise OutputError(
                        f"{self._name}: cannot extract {_show(value)} into {dest}: "
                        f"{exc.strerror}; {room_advice(exc, elsewhere=SCRATCH)}"
                    ) from None
                raise self._fail(f"cannot read {_show(value)}: {exc.strerror}") from None
        except BaseException:
            with contextlib.suppress(OSError):
                for child in list(dest.iterdir()):
                    if child.is_dir() and not child.is_symlink():
                        shutil.rmtree(child, ignore_errors=True)
                    else:
                        child.unlink(missing_ok=True)
            if created:
                with contextlib.suppress(OSError):
                    dest.rmdir()
            raise
        return CatalogInImage(
            kind=want_kind,
            path=out,
            label=label,
            image_path=value,
            labels=dict(self.labels),
            platform=self.platform,
            manifest_digest=self.manifest_digest,
        )

    def extract_directory(self, image_path: str, dest: _StrPath) -> Path:
        """Materialise the directory ``image_path`` of the image (e.g. a bundle image's
        ``manifests``) as ``dest``, which must not exist; same rules as catalog extraction."""
        parts = _split_image_path(image_path)
        if not parts:
            raise self._fail(f"{_show(image_path)}: not a directory path inside the image")
        target = Path(dest)
        if target.exists():
            raise OutputError(f"{target}: already exists")
        holder = Path(tempfile.mkdtemp(prefix=".olmcat-extract-", dir=target.parent))
        try:
            out = self._materialise("/".join(parts), f"/{image_path.strip('/')}", "fbc", holder)
            out.rename(target)
        finally:
            shutil.rmtree(holder, ignore_errors=True)
        return target

    def extract_directories(self, image_paths: Sequence[str], dest: _StrPath) -> list[Path]:
        """Materialise several directories of the image (a bundle image's ``manifests`` and
        ``metadata``) under ``dest`` at their image paths (``dest/manifests``, ...), reading each
        layer once for all of them; same rules and errors as :meth:`extract_directory`, the
        directories checked in the order given. ``dest`` must exist and not hold them yet."""
        wanted: list[tuple[str, str, Literal["sqlite", "fbc"]]] = []
        for image_path in image_paths:
            parts = _split_image_path(image_path)
            if not parts:
                raise self._fail(f"{_show(image_path)}: not a directory path inside the image")
            wanted.append(("/".join(parts), f"/{image_path.strip('/')}", "fbc"))
        root = Path(dest)
        targets = [root.joinpath(*path.split("/")) for path, _, _ in wanted]
        for target in targets:
            if target.exists():
                raise OutputError(f"{target}: already exists")
        holder = Path(tempfile.mkdtemp(prefix=".olmcat-extract-", dir=root))
        try:
            outs = self._materialise_all(wanted, holder)
            for out, target in zip(outs, targets, strict=True):
                target.parent.mkdir(parents=True, exist_ok=True)
                out.rename(target)
        finally:
            shutil.rmtree(holder, ignore_errors=True)
        return targets

    def _catalog_label(self, kind: Literal["sqlite", "fbc"] | None) -> tuple[str, str]:
        order = {
            None: (DATABASE_LABEL, CONFIGS_LABEL),
            "sqlite": (DATABASE_LABEL,),
            "fbc": (CONFIGS_LABEL,),
        }[kind]
        for label in order:
            value = self.labels.get(label)
            if value is not None and value.strip():
                return label, value.strip()
        found = ", ".join(sorted(self.labels)) or "none"
        raise self._fail(f"no catalog label {' or '.join(order)} (labels found: {found})")

    def _materialise(
        self, image_path: str, shown: str, want: Literal["sqlite", "fbc"], dest: Path
    ) -> Path:
        return self._materialise_all([(image_path, shown, want)], dest)[0]

    def _materialise_all(
        self, wanted: Sequence[tuple[str, str, Literal["sqlite", "fbc"]]], dest: Path
    ) -> list[Path]:
        """Apply the layers once for every wanted (image path, shown name, kind) and write each
        under ``dest``; another pass only when links lead outside what was tracked."""
        stage = Path(tempfile.mkdtemp(prefix=".olmcat-stage-", dir=dest))
        last = wanted[0][1]
        label_paths = tuple(path for path, _, _ in wanted)
        scopes = set(label_paths)
        try:
            for _ in range(_MAX_PASSES):
                self._inflated = 0
                tree = _Tree(self, stage, frozenset(scopes), label_paths)
                for layer in self.layers:
                    with self._layer_tar(layer) as tar:
                        tree.apply(tar, layer)
                # Each wanted path as if alone: the first that needs more names a failure.
                culprit, needs = None, set[str]()
                for path, shown, _ in wanted:
                    found = tree.needs_of(path) if tree.needs else tree.collect_needs(path)
                    if found and found <= scopes:
                        raise self._fail(f"cannot resolve links under {_show(shown)}")
                    if found and culprit is None:
                        culprit = shown
                    needs |= found
                needs.update(tree.needs)  # hardlinks of paths followed only for links
                if not needs:
                    outs = []
                    for path, shown, want in wanted:
                        out = dest.joinpath(*path.split("/"))
                        tree.emit(path, shown, want, out)
                        outs.append(out)
                    return outs
                scopes |= needs
                shutil.rmtree(stage)
                stage.mkdir()
                last = culprit or wanted[0][1]
            raise self._fail(f"too many link indirections under {_show(last)}")
        finally:
            shutil.rmtree(stage, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# Applying layers to the labelled paths


@dataclass
class _Node:
    kind: Literal["dir", "file", "symlink"]
    layer: int
    target: str = ""  # symlink target as written in the layer
    has_data: bool = False  # file content is on the host (only for paths in scope)
    children: dict[str, _Node] = field(default_factory=dict)


class _Tree:
    """The image filesystem restricted to some paths (``scopes``) and their ancestors.

    ``label_paths`` are the directories / files wanted (a catalog's label path, or a bundle's
    ``manifests`` and ``metadata``): one tree, so each layer is read once for all of them.

    Paths in scope have their content written under ``stage`` (plain files and dirs only); their
    ancestors are tracked as nodes without content so whiteouts and links through them resolve.
    Links are never created on the host: symlinks stay in the tree, hardlinks become host hardlinks
    (within ``stage``) or are requested as new scopes when their target is not tracked.
    """

    def __init__(
        self,
        image: ImageArchive,
        stage: Path,
        scopes: frozenset[str],
        label_paths: tuple[str, ...],
    ) -> None:
        self._image = image
        self._stage = stage
        self._scopes = scopes
        self._label_paths = label_paths
        self._label_path = label_paths[0]  # the one being resolved (named in messages)
        self.root = _Node("dir", -1)
        self.needs: dict[str, str] = {}  # hardlink target to track -> the link's path (first)
        self._deleted_by: dict[str, Layer] = {}

    # -- paths -----------------------------------------------------------------------------

    def _in_scope(self, path: str) -> bool:
        return any(path == s or path.startswith(s + "/") for s in self._scopes)

    def _tracked(self, path: str) -> bool:
        return (
            path == ""
            or self._in_scope(path)
            or any(s.startswith(path + "/") for s in self._scopes)
        )

    def _host(self, path: str) -> Path:
        return self._stage.joinpath(*path.split("/"))

    def lookup(self, path: str) -> _Node | None:
        node = self.root
        for name in path.split("/") if path else []:
            if node.kind != "dir":
                return None
            child = node.children.get(name)
            if child is None:
                return None
            node = child
        return node

    def _rm_host(self, path: str) -> None:
        host = self._host(path)
        if host.is_dir() and not host.is_symlink():
            shutil.rmtree(host)
        else:
            host.unlink(missing_ok=True)

    # -- layer application -----------------------------------------------------------------

    def apply(self, tar: tarfile.TarFile, layer: Layer) -> None:
        fail = self._image._fail
        lname = self._image._layer_name(layer)
        for member in tar:
            if member.name.startswith("/"):
                raise fail(f"{lname}: absolute path {_show(member.name)} rejected")
            parts = _split_image_path(member.name)
            if parts is None:
                raise fail(f"{lname}: path {_show(member.name)} with '..' rejected")
            if not parts:
                continue  # the root directory itself
            path = "/".join(parts)
            base = parts[-1]
            if base.startswith(".wh."):
                self._whiteout(parts[:-1], base, layer)
                continue
            if not self._tracked(path):
                continue
            if member.isdir():
                self._put(path, _Node("dir", layer.index), layer)
                if self._in_scope(path):
                    self._host(path).mkdir(parents=True, exist_ok=True)
            elif member.issym():
                self._put(path, _Node("symlink", layer.index, target=member.linkname), layer)
            elif member.islnk():
                self._hardlink(path, member, layer)
            elif member.isreg():
                in_scope = self._in_scope(path)
                self._put(path, _Node("file", layer.index, has_data=in_scope), layer)
                if in_scope:
                    self._write(path, tar, member)
            elif self._in_scope(path):
                raise fail(
                    f"{lname}: {_show(member.name)} is a device or fifo, not allowed in a catalog"
                )

    def _whiteout(self, dir_parts: list[str], base: str, layer: Layer) -> None:
        had = [p for p in self._label_paths if self.lookup(p) is not None]
        if base == ".wh..wh..opq":
            parent_path = "/".join(dir_parts)
            node = self.lookup(parent_path)
            if node is not None and node.kind == "dir":
                for name in list(node.children):
                    child_path = f"{parent_path}/{name}" if parent_path else name
                    if not self._prune(node.children[name], child_path, layer.index):
                        del node.children[name]
        elif base.startswith(".wh..wh."):
            return  # AUFS bookkeeping (.wh..wh.plnk, .wh..wh.aufs), not a deletion
        elif len(base) > 4:
            path = "/".join([*dir_parts, base[4:]])
            parent = self.lookup("/".join(dir_parts))
            node = None if parent is None or parent.kind != "dir" else parent.children.get(base[4:])
            if parent is not None and node is not None and not self._prune(node, path, layer.index):
                del parent.children[base[4:]]
        for label_path in had:
            if self.lookup(label_path) is None:
                self._deleted_by[label_path] = layer

    def _prune(self, node: _Node, path: str, layer: int) -> bool:
        """Remove what lower layers put at ``path``; keep what this layer added (spec: whiteouts
        apply only to lower layers, whatever their position in the tar). True if it survives."""
        if node.kind == "dir":
            for name in list(node.children):
                if not self._prune(node.children[name], f"{path}/{name}", layer):
                    del node.children[name]
            if node.layer == layer or node.children:
                return True
        elif node.layer == layer:
            return True
        self._rm_host(path)
        return False

    def _parent(self, path: str, layer: Layer) -> _Node:
        node = self.root
        parts = path.split("/")[:-1]
        for i, name in enumerate(parts):
            child = node.children.get(name)
            if child is None:
                child = _Node("dir", layer.index)
                node.children[name] = child
            elif child.kind != "dir":
                # A runtime would write through the symlink / fail on the file; refuse instead.
                raise self._image._fail(
                    f"{self._image._layer_name(layer)}: {_show(path)} lies under "
                    f"{_show('/'.join(parts[: i + 1]))}, which is a {child.kind}, not a directory"
                )
            node = child
        return node

    def _put(self, path: str, new: _Node, layer: Layer) -> _Node:
        parent = self._parent(path, layer)
        name = path.rsplit("/", 1)[-1]
        old = parent.children.get(name)
        if old is not None:
            if old.kind == "dir" and new.kind == "dir":
                old.layer = new.layer  # only attributes change
                return old
            self._rm_host(path)
        parent.children[name] = new
        return new

    def _write(self, path: str, tar: tarfile.TarFile, member: tarfile.TarInfo) -> None:
        host = self._host(path)
        host.parent.mkdir(parents=True, exist_ok=True)
        source = tar.extractfile(member)
        assert source is not None
        # O_EXCL|O_NOFOLLOW: never write through anything already there (old path was removed).
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        shown = f"{_show('/' + path)} of {self._image._name} (extracting into {self._stage.parent})"
        with source:
            file = os.fdopen(os.open(host, flags, 0o644), "wb")
            with guarded(file, shown, elsewhere=SCRATCH) as target:
                shutil.copyfileobj(source, target, _CHUNK)

    def _hardlink(self, path: str, member: tarfile.TarInfo, layer: Layer) -> None:
        lname = self._image._layer_name(layer)
        parts = _split_image_path(member.linkname)
        if member.linkname.startswith("/") or parts is None or not parts:
            raise self._image._fail(
                f"{lname}: hardlink {_show(member.name)} -> {_show(member.linkname)} escapes "
                "the layer"
            )
        target = "/".join(parts)
        node = self.lookup(target) if self._tracked(target) else None
        if node is not None and node.kind == "symlink":
            self._put(path, _Node("symlink", layer.index, target=node.target), layer)
            return
        if not self._in_scope(path):
            self._put(path, _Node("file", layer.index), layer)  # an ancestor: its kind suffices
            return
        if not self._in_scope(target):
            self.needs.setdefault(target, path)  # content not kept in this pass: ask again
            return
        if node is None or node.kind == "dir":
            raise self._image._fail(
                f"{lname}: hardlink {_show(member.name)} -> {_show(member.linkname)}: "
                "target is not a file in this or a lower layer"
            )
        self._put(path, _Node("file", layer.index, has_data=True), layer)
        host = self._host(path)
        host.parent.mkdir(parents=True, exist_ok=True)
        _link_or_copy(self._host(target), host)

    # -- resolution and output -------------------------------------------------------------

    def resolve(self, path: str) -> tuple[str, _Node | None]:
        """Follow symlinks inside the image root. Raises _Need for paths not tracked yet."""
        fail = self._image._fail
        pending = path.split("/") if path else []
        done: list[str] = []
        node = self.root
        hops = 0
        while pending:
            name = pending.pop(0)
            if name in ("", "."):
                continue
            if name == "..":
                if not done:
                    raise fail(f"link under {_show(self._label_path)} escapes the image root")
                done.pop()
                node = cast(_Node, self.lookup("/".join(done)))
                continue
            current = "/".join([*done, name])
            if not self._tracked(current):
                rest = pending[: pending.index("..")] if ".." in pending else pending
                raise _Need("/".join([current, *[p for p in rest if p not in ("", ".")]]))
            child = node.children.get(name) if node.kind == "dir" else None
            if child is None or (child.kind == "file" and pending):
                return "/".join([current, *pending]), None
            if child.kind == "symlink":
                hops += 1
                if hops > _MAX_SYMLINKS:
                    raise fail(f"too many levels of symlinks under {_show(self._label_path)}")
                if child.target.startswith("/"):
                    done, node = [], self.root
                pending = child.target.split("/") + pending
                continue
            done.append(name)
            node = child
        return "/".join(done), node

    def needs_of(self, label_path: str) -> set[str]:
        """The hardlink targets asked for by members at or under ``label_path``."""
        return {
            target
            for target, member in self.needs.items()
            if member == label_path or member.startswith(label_path + "/")
        }

    def collect_needs(self, path: str) -> set[str]:
        self._label_path = path
        needs: set[str] = set()
        self._walk(path, None, (), needs)
        return needs

    def emit(self, path: str, shown: str, want: Literal["sqlite", "fbc"], out: Path) -> None:
        self._label_path = path
        resolved, node = self.resolve(path)
        if node is None:
            deleted_by = self._deleted_by.get(path)
            if resolved == path and deleted_by is not None:
                raise self._image._fail(
                    f"label path {_show(shown)} was deleted by a whiteout in "
                    f"{self._image._layer_name(deleted_by)}"
                )
            where = "" if resolved == path else f" (resolves to /{_show(resolved)})"
            raise self._image._fail(
                f"label path {_show(shown)}{where} is not present in the image layers"
            )
        if want == "sqlite" and node.kind != "file":
            raise self._image._fail(f"label path {_show(shown)} is a directory, not a DB file")
        if want == "fbc" and node.kind != "dir":
            raise self._image._fail(f"label path {_show(shown)} is a file, not a configs dir")
        out.parent.mkdir(parents=True, exist_ok=True)
        self._walk(path, out, (), None)

    def _walk(
        self, path: str, out: Path | None, stack: tuple[str, ...], needs: set[str] | None
    ) -> None:
        """Copy ``path`` (links resolved) to ``out``; with ``needs``, collect missing scopes."""
        try:
            resolved, node = self.resolve(path)
        except _Need as need:
            if needs is None:
                raise
            needs.add(need.path)
            return
        if resolved == "":
            raise self._image._fail(
                f"link {_show(path)} under {_show(self._label_path)} resolves to the image root"
            )
        if node is not None and not self._in_scope(resolved):
            if needs is None:
                raise _Need(resolved)
            needs.add(resolved)
            return
        if node is None:
            if path == self._label_path or needs is not None:
                return  # reported by emit with the whiteout / absence detail
            raise self._image._fail(
                f"link {_show(path)} under {_show(self._label_path)} points to "
                f"/{_show(resolved)}, which does not exist"
            )
        if node.kind == "file":
            if out is not None:
                _link_or_copy(self._host(resolved), out)
            return
        if resolved in stack:
            raise self._image._fail(
                f"symlink loop at {_show(path)} under {_show(self._label_path)}"
            )
        if out is not None:
            out.mkdir()
        for name in sorted(node.children):
            self._walk(
                f"{resolved}/{name}", None if out is None else out / name, (*stack, resolved), needs
            )


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


# --------------------------------------------------------------------------------------------
# Entry points


def open_image(
    path: _StrPath,
    *,
    platform: str | None = None,
    ref: str | None = None,
) -> ImageArchive:
    """Open an image archive and choose one image in it (see the module doc for the rule).

    Use as a context manager. Raises InputError naming the archive when it cannot be read.
    """
    return ImageArchive(path, platform=platform, ref=ref)


def extract_catalog(
    path: _StrPath,
    dest_dir: _StrPath,
    *,
    platform: str | None = None,
    ref: str | None = None,
    kind: Literal["sqlite", "fbc"] | None = None,
) -> CatalogInImage:
    """Open the archive, choose the image and materialise its catalog under ``dest_dir``."""
    with open_image(path, platform=platform, ref=ref) as image:
        return image.extract_catalog(dest_dir, kind=kind)
