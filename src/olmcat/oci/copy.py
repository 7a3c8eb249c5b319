"""Copy images between registries and OCI layouts, byte for byte, so every digest survives.

An image is copied as its manifest bytes: a manifest list / image index whole (every platform,
children first, each by digest), then the list itself under the target tag. Blobs go first and
only when missing: the destination is asked with a HEAD (or a stat in a layout), a blob of the same
registry is mounted across repositories, and everything else streams from source to destination
(from the cache when it holds the blob) with its digest checked on the way. An image whose target
already has the source's digest is not touched, so an interrupted copy resumes where it stopped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from olmcat.errors import InputError
from olmcat.oci.layout import OciLayout
from olmcat.oci.media import (
    INDEX_TYPES,
    Descriptor,
    is_digest,
    manifest_media_type,
    parse_json_object,
)
from olmcat.oci.registry import Manifest, Registry, file_chunks

__all__ = [
    "CopyResult",
    "Endpoint",
    "LayoutEndpoint",
    "RegistryEndpoint",
    "copy_image",
    "image_blobs",
]

Progress = Callable[[int], None]
_MAX_DEPTH = 4


class Endpoint(Protocol):
    """One repository of a registry, or an OCI layout, as a copy source or destination."""

    def __str__(self) -> str: ...

    def get_manifest(self, reference: str) -> Manifest: ...

    def manifest_digest(self, reference: str) -> str | None: ...

    def has_blob(self, digest: str, size: int) -> bool: ...

    def blob_chunks(self, digest: str, size: int) -> Iterator[bytes]: ...

    def put_blob(
        self, digest: str, size: int, source: Callable[[], Iterable[bytes]], origin: Endpoint
    ) -> bool:
        """Store a blob; ``False`` when it was mounted instead of transferred."""
        ...

    def put_manifest(self, reference: str, manifest: Manifest) -> None: ...


class RegistryEndpoint:
    def __init__(self, registry: Registry, repository: str) -> None:
        self.registry = registry
        self.repository = repository

    def __str__(self) -> str:
        return f"{self.registry.host}/{self.repository}"

    def get_manifest(self, reference: str) -> Manifest:
        return self.registry.get_manifest(self.repository, reference)

    def manifest_digest(self, reference: str) -> str | None:
        head = self.registry.head_manifest(self.repository, reference)
        return None if head is None else head[0]

    def has_blob(self, digest: str, size: int) -> bool:
        return self.registry.has_blob(self.repository, digest)

    def blob_chunks(self, digest: str, size: int) -> Iterator[bytes]:
        cached = self.registry.cache.get(digest)
        if cached is not None:
            yield from file_chunks(cached)
            return
        stream = self.registry.open_blob(self.repository, digest, size)
        try:
            for chunk in stream.chunks():
                self.registry.stats.add(bytes_down=len(chunk))
                yield chunk
        finally:
            stream.close()

    def put_blob(
        self, digest: str, size: int, source: Callable[[], Iterable[bytes]], origin: Endpoint
    ) -> bool:
        if (
            isinstance(origin, RegistryEndpoint)
            and origin.registry.host == self.registry.host
            and origin.repository != self.repository
            and self.registry.mount_blob(self.repository, digest, origin.repository)
        ):
            return False
        self.registry.upload_blob(self.repository, digest, size, source)
        return True

    def put_manifest(self, reference: str, manifest: Manifest) -> None:
        self.registry.put_manifest(self.repository, reference, manifest)


class LayoutEndpoint:
    """An OCI layout; a reference is a ref name in index.json or a digest."""

    def __init__(self, layout: OciLayout) -> None:
        self.layout = layout

    def __str__(self) -> str:
        return f"oci:{self.layout.root}"

    def _descriptor(self, reference: str) -> Descriptor | None:
        if is_digest(reference):
            if not self.layout.has_blob(reference):
                return None
            return Descriptor("", reference, self.layout.blob_path(reference).stat().st_size)
        return self.layout.find(reference)

    def get_manifest(self, reference: str) -> Manifest:
        descriptor = self._descriptor(reference)
        if descriptor is None:
            raise InputError(f"{self}: no image named {reference!r}")
        data = self.layout.read_blob(descriptor.digest)
        document = parse_json_object(data, f"{self} manifest {descriptor.digest}")
        media_type = manifest_media_type(document, descriptor.media_type, f"{self} {reference}")
        return Manifest(data, media_type, descriptor.digest)

    def manifest_digest(self, reference: str) -> str | None:
        descriptor = self._descriptor(reference)
        if descriptor is None or not self.layout.has_blob(descriptor.digest, descriptor.size):
            return None
        return descriptor.digest

    def has_blob(self, digest: str, size: int) -> bool:
        return self.layout.has_blob(digest, size)

    def blob_chunks(self, digest: str, size: int) -> Iterator[bytes]:
        return self.layout.blob_chunks(digest, size)

    def put_blob(
        self, digest: str, size: int, source: Callable[[], Iterable[bytes]], origin: Endpoint
    ) -> bool:
        self.layout.write_blob(digest, source(), f"{origin} blob {digest}")
        return True

    def put_manifest(self, reference: str, manifest: Manifest) -> None:
        if not self.layout.has_blob(manifest.digest, len(manifest.data)):
            self.layout.write_blob(manifest.digest, [manifest.data], f"manifest {manifest.digest}")
        if not is_digest(reference):
            self.layout.set_ref(
                reference, Descriptor(manifest.media_type, manifest.digest, len(manifest.data))
            )


@dataclass
class CopyResult:
    digest: str
    present: bool = False  # the target already had this digest: nothing was copied
    bytes: int = 0  # blob bytes transferred (not mounted or skipped)
    blobs_copied: int = 0
    blobs_skipped: int = 0
    blobs_mounted: int = 0
    manifests: int = 0


def image_blobs(manifest: Manifest) -> list[Descriptor]:
    """Config and layers of an image manifest (anything else a manifest lists: ``subject``
    and friends are references, not content, and are not copied)."""
    document = manifest.json()
    out = []
    config = document.get("config")
    if config is not None:
        out.append(Descriptor.from_json(config, f"manifest {manifest.digest} config"))
    layers = document.get("layers")
    if not isinstance(layers, list):
        raise InputError(f"manifest {manifest.digest} has no layers list")
    out += [Descriptor.from_json(d, f"manifest {manifest.digest} layer") for d in layers]
    return out


def children(index: Manifest) -> list[Descriptor]:
    entries = index.json().get("manifests")
    if not isinstance(entries, list):
        raise InputError(f"image index {index.digest} has no manifests list")
    return [Descriptor.from_json(d, f"image index {index.digest}") for d in entries]


class BlobLocks:
    """One lock per (destination, digest), so two workers never upload the same blob at once."""

    def __init__(self) -> None:
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._guard = threading.Lock()

    def get(self, destination: str, digest: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault((destination, digest), threading.Lock())


_DEFAULT_LOCKS = BlobLocks()


def copy_image(
    source: Endpoint,
    source_ref: str,
    destination: Endpoint,
    destination_ref: str,
    *,
    progress: Progress | None = None,
    locks: BlobLocks | None = None,
    expect_digest: str | None = None,
) -> CopyResult:
    """Copy one image (or whole manifest list) and name it ``destination_ref`` there.

    ``expect_digest`` refuses a source whose manifest digest is not the pinned one. Returns
    ``present=True`` without copying when the destination already has that digest.
    """
    manifest = source.get_manifest(source_ref)
    if expect_digest is not None and manifest.digest != expect_digest:
        raise InputError(
            f"{source}@{source_ref}: has digest {manifest.digest}, not {expect_digest}"
        )
    result = CopyResult(manifest.digest)
    if destination.manifest_digest(destination_ref) == manifest.digest:
        result.present = True
        return result
    _copy_tree(source, destination, manifest, result, progress, locks or _DEFAULT_LOCKS, 0)
    destination.put_manifest(destination_ref, manifest)
    result.manifests += 1
    return result


def _copy_tree(
    source: Endpoint,
    destination: Endpoint,
    manifest: Manifest,
    result: CopyResult,
    progress: Progress | None,
    locks: BlobLocks,
    depth: int,
) -> None:
    if manifest.media_type in INDEX_TYPES:
        if depth >= _MAX_DEPTH:
            raise InputError(f"{source}: image indexes nested deeper than {_MAX_DEPTH}")
        for child in children(manifest):
            if destination.manifest_digest(child.digest) == child.digest:
                continue
            child_manifest = source.get_manifest(child.digest)
            _copy_tree(source, destination, child_manifest, result, progress, locks, depth + 1)
            destination.put_manifest(child.digest, child_manifest)
            result.manifests += 1
        return
    for blob in image_blobs(manifest):
        with locks.get(str(destination), blob.digest):
            if destination.has_blob(blob.digest, blob.size):
                result.blobs_skipped += 1
                if progress is not None:
                    progress(blob.size)
                continue

            def content(blob: Descriptor = blob) -> Iterator[bytes]:
                for chunk in source.blob_chunks(blob.digest, blob.size):
                    if progress is not None:
                        progress(len(chunk))
                    yield chunk

            if destination.put_blob(blob.digest, blob.size, content, source):
                result.blobs_copied += 1
                result.bytes += blob.size
            else:
                result.blobs_mounted += 1
                if progress is not None:
                    progress(blob.size)
