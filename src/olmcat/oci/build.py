"""Write a file-based catalog as a one-layer image, reproducibly.

The image holds the FBC directory at ``/configs`` and carries the
``operators.operatorframework.io.index.configs.v1=/configs`` label, like the last layer of an
image from ``opm generate dockerfile``. The bytes depend only on the catalog's files: entries
sorted, owner root, fixed modes, mtime 0, gzip without a time stamp, no creation date in the
config -- so the same catalog built twice (before and after a trip to disk) has the same digest.

It is a catalog *carrier*: it has no ``opm`` to serve it. A CatalogSource needs an image that runs
``opm serve``; build one ``FROM`` an opm base image with this image's ``/configs``, or let the
cluster's catalog tooling extract it (see docs/registry.md).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import tarfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from olmcat.errors import InputError
from olmcat.oci.archive import CONFIGS_LABEL
from olmcat.oci.media import (
    OCI_CONFIG,
    OCI_LAYER_GZIP,
    OCI_MANIFEST,
    Descriptor,
    digest_of,
    is_digest,
)
from olmcat.oci.registry import Manifest

__all__ = ["CATALOG_PATH", "BuiltImage", "build_catalog_image"]

CATALOG_PATH = "/configs"
_MAX_FILES = 1_000_000


@dataclass(frozen=True)
class BuiltImage:
    """An image held in memory: manifest, config and one layer."""

    manifest: Manifest
    blobs: dict[str, bytes]

    @property
    def digest(self) -> str:
        return self.manifest.digest

    def __str__(self) -> str:
        return "rebuilt catalog image"

    # The copy Endpoint protocol, as a source.
    def get_manifest(self, reference: str) -> Manifest:
        if reference not in ("", self.manifest.digest) and is_digest(reference):
            raise InputError(f"rebuilt catalog image has no manifest {reference}")
        return self.manifest

    def manifest_digest(self, reference: str) -> str | None:
        return self.manifest.digest

    def has_blob(self, digest: str, size: int) -> bool:
        return digest in self.blobs

    def blob_chunks(self, digest: str, size: int) -> Iterator[bytes]:
        yield self.blobs[digest]

    def put_blob(
        self, digest: str, size: int, source: Callable[[], Iterable[bytes]], origin: object
    ) -> bool:
        raise InputError("the rebuilt catalog image is read-only")

    def put_manifest(self, reference: str, manifest: Manifest) -> None:
        raise InputError("the rebuilt catalog image is read-only")


def _layer(root: Path, prefix: str) -> bytes:
    buffer = io.BytesIO()
    count = 0
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:

        def add(name: str, path: Path | None) -> None:
            info = tarfile.TarInfo(name)
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            if path is None:
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                tar.addfile(info)
                return
            data = path.read_bytes()
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))

        add(prefix + "/", None)
        for directory, dirnames, filenames in os.walk(root):
            dirnames.sort()
            here = Path(directory)
            rel = here.relative_to(root).as_posix()
            base = prefix if rel == "." else f"{prefix}/{rel}"
            if rel != ".":
                add(base + "/", None)
            for name in sorted(filenames):
                path = here / name
                if path.is_symlink() or not path.is_file():
                    raise InputError(f"{path}: only regular files can go into a catalog image")
                count += 1
                if count > _MAX_FILES:
                    raise InputError(f"{root}: more than {_MAX_FILES} files")
                add(f"{base}/{name}", path)
    return buffer.getvalue()


def build_catalog_image(
    configs: Path,
    *,
    labels: dict[str, str] | None = None,
    platform: tuple[str, str] = ("linux", "amd64"),
) -> BuiltImage:
    """The FBC directory ``configs`` as an OCI image (see the module doc)."""
    if not configs.is_dir():
        raise InputError(f"{configs}: not a directory")
    plain = _layer(configs, CATALOG_PATH.lstrip("/"))
    layer = gzip.compress(plain, compresslevel=6, mtime=0)
    config = {
        "architecture": platform[1],
        "os": platform[0],
        "config": {"Labels": {**(labels or {}), CONFIGS_LABEL: CATALOG_PATH}},
        "rootfs": {"type": "layers", "diff_ids": [digest_of(plain)]},
        "history": [{"created_by": "olmcat: file-based catalog at /configs", "empty_layer": False}],
    }
    config_bytes = json.dumps(config, sort_keys=True, separators=(",", ":")).encode()
    config_desc = Descriptor(OCI_CONFIG, digest_of(config_bytes), len(config_bytes))
    layer_desc = Descriptor(OCI_LAYER_GZIP, digest_of(layer), len(layer))
    manifest = {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST,
        "config": {
            "mediaType": config_desc.media_type,
            "digest": config_desc.digest,
            "size": config_desc.size,
        },
        "layers": [
            {
                "mediaType": layer_desc.media_type,
                "digest": layer_desc.digest,
                "size": layer_desc.size,
            }
        ],
    }
    manifest_bytes = json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()
    return BuiltImage(
        Manifest(manifest_bytes, OCI_MANIFEST, digest_of(manifest_bytes)),
        {config_desc.digest: config_bytes, layer_desc.digest: layer},
    )
