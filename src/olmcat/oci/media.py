"""Media types, descriptors, digests and platforms shared by the registry client and the copier."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Final

from olmcat.errors import InputError

__all__ = [
    "ACCEPT_MANIFESTS",
    "DOCKER_CONFIG",
    "DOCKER_LAYER_GZIP",
    "DOCKER_MANIFEST",
    "DOCKER_MANIFEST_LIST",
    "INDEX_TYPES",
    "MANIFEST_TYPES",
    "OCI_CONFIG",
    "OCI_INDEX",
    "OCI_LAYER_GZIP",
    "OCI_LAYER_ZSTD",
    "OCI_MANIFEST",
    "Descriptor",
    "Platform",
    "check_digest",
    "digest_of",
    "is_digest",
    "manifest_media_type",
    "parse_json_object",
    "parse_platform",
]

OCI_MANIFEST: Final = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX: Final = "application/vnd.oci.image.index.v1+json"
OCI_CONFIG: Final = "application/vnd.oci.image.config.v1+json"
OCI_LAYER: Final = "application/vnd.oci.image.layer.v1.tar"
OCI_LAYER_GZIP: Final = "application/vnd.oci.image.layer.v1.tar+gzip"
OCI_LAYER_ZSTD: Final = "application/vnd.oci.image.layer.v1.tar+zstd"
DOCKER_MANIFEST: Final = "application/vnd.docker.distribution.manifest.v2+json"
DOCKER_MANIFEST_LIST: Final = "application/vnd.docker.distribution.manifest.list.v2+json"
DOCKER_CONFIG: Final = "application/vnd.docker.container.image.v1+json"
DOCKER_LAYER_GZIP: Final = "application/vnd.docker.image.rootfs.diff.tar.gzip"
DOCKER_SCHEMA1: Final = (
    "application/vnd.docker.distribution.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.v1+prettyjws",
)

INDEX_TYPES: Final = frozenset({OCI_INDEX, DOCKER_MANIFEST_LIST})
MANIFEST_TYPES: Final = frozenset({OCI_MANIFEST, DOCKER_MANIFEST})
# What we can read, best first; schema 1 is not asked for, so a registry converts or refuses.
ACCEPT_MANIFESTS: Final = ", ".join(
    (OCI_INDEX, DOCKER_MANIFEST_LIST, OCI_MANIFEST, DOCKER_MANIFEST)
)

_DIGEST_RE: Final = re.compile(r"(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})")
_ARCH_ALIASES: Final = {"x86_64": "amd64", "x86-64": "amd64", "aarch64": "arm64"}


def is_digest(text: str) -> bool:
    return _DIGEST_RE.fullmatch(text) is not None


def digest_of(data: bytes, algorithm: str = "sha256") -> str:
    return f"{algorithm}:{hashlib.new(algorithm, data).hexdigest()}"


def check_digest(data: bytes, digest: str, what: str) -> None:
    """Raise :class:`InputError` unless ``data`` hashes to ``digest``."""
    if not is_digest(digest):
        raise InputError(f"{what}: unsupported digest {digest!r}")
    got = digest_of(data, digest.split(":", 1)[0])
    if got != digest:
        raise InputError(f"{what}: digest mismatch: expected {digest}, got {got}")


@dataclass(frozen=True, slots=True)
class Platform:
    os: str
    architecture: str
    variant: str = ""

    def __str__(self) -> str:
        base = f"{self.os}/{self.architecture}"
        return f"{base}/{self.variant}" if self.variant else base

    def matches(self, other: Platform) -> bool:
        """``other`` is what a descriptor says; an empty wanted variant accepts any."""
        return (
            self.os == other.os
            and self.architecture == other.architecture
            and (not self.variant or self.variant == other.variant)
        )

    @classmethod
    def from_json(cls, value: object) -> Platform | None:
        if not isinstance(value, dict):
            return None
        os_name, arch = value.get("os"), value.get("architecture")
        if not isinstance(os_name, str) or not isinstance(arch, str) or not os_name or not arch:
            return None
        variant = value.get("variant")
        return cls(os_name, arch, variant if isinstance(variant, str) else "")


def parse_platform(text: str) -> Platform:
    """``os/arch[/variant]`` as ``--platform`` takes it (``x86_64`` means ``amd64``)."""
    parts = text.strip().lower().split("/")
    if len(parts) not in (2, 3) or not all(parts):
        raise InputError(f"invalid platform {text!r} (expected os/arch[/variant])")
    return Platform(parts[0], _ARCH_ALIASES.get(parts[1], parts[1]), parts[2] if parts[2:] else "")


@dataclass(frozen=True, slots=True)
class Descriptor:
    """An OCI content descriptor: what a manifest says about a blob or a child manifest."""

    media_type: str
    digest: str
    size: int
    platform: Platform | None = None

    @classmethod
    def from_json(cls, value: object, what: str) -> Descriptor:
        if not isinstance(value, dict):
            raise InputError(f"{what}: malformed descriptor")
        digest, size = value.get("digest"), value.get("size")
        media_type = value.get("mediaType", "")
        if not isinstance(digest, str) or not is_digest(digest):
            raise InputError(f"{what}: invalid or unsupported digest {digest!r}")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise InputError(f"{what}: descriptor of {digest} has no valid size")
        if not isinstance(media_type, str):
            raise InputError(f"{what}: descriptor of {digest} has a non-string mediaType")
        return cls(media_type, digest, size, Platform.from_json(value.get("platform")))


def parse_json_object(data: bytes, what: str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{what} is not valid JSON: {exc}") from exc
    except RecursionError:
        raise InputError(f"{what} is not valid JSON: nested too deeply") from None
    if not isinstance(value, dict):
        raise InputError(f"{what} is not a JSON object")
    return value


def manifest_media_type(document: dict[str, Any], declared: str, what: str) -> str:
    """The media type of a manifest: the document's own field, else the declared one, else
    what its shape says. Schema 1 is refused with a clear message."""
    media_type = document.get("mediaType")
    if not isinstance(media_type, str) or not media_type:
        media_type = declared.split(";", 1)[0].strip()
    if media_type in DOCKER_SCHEMA1 or document.get("schemaVersion") == 1:
        raise InputError(
            f"{what}: Docker schema 1 manifests are not supported (push the image again with a "
            "current client)"
        )
    if media_type in INDEX_TYPES or media_type in MANIFEST_TYPES:
        return media_type
    if "manifests" in document:
        return OCI_INDEX
    if "layers" in document and "config" in document:
        return OCI_MANIFEST
    raise InputError(f"{what}: unsupported manifest media type {media_type!r}")
