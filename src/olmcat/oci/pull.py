"""Pull an index image's catalog out of a registry (or any transport) without a container runtime.

For a registry image: the manifest is resolved (a tag by a HEAD, so a cached manifest is not
downloaded again), a manifest list / image index narrowed to ``--platform`` (default
linux/amd64), the config read for the catalog label, and then only the layers needed go through
the blob cache:

* SQLite (``operators.operatorframework.io.index.database.v1``): layers are read from the top
  down until one holds the label's path. When that layer has the DB as a regular file and no layer
  above it touches the path (no whiteout, link or file over one of its directories), that layer is
  all that is needed -- the DB of a 150 MB index comes without the opm binary layers below it.
  Anything less plain (a link, a whiteout, a DB only in a lower layer's directory replaced above)
  falls back to every layer, so the archive reader applies the whole stack;
* FBC (``...configs.v1``): files of a configs directory may come from any layer, so all layers.

The chosen layers are handed to :mod:`olmcat.oci.archive` as a scratch OCI layout of hardlinks
into the cache, so one reader applies whiteouts, resolves links inside the image root and checks
every digest, whatever the transport.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tarfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal, cast

from olmcat.errors import InputError
from olmcat.files import safe
from olmcat.files.output import CACHE, writing
from olmcat.oci.archive import (
    CONFIGS_LABEL,
    DATABASE_LABEL,
    DEFAULT_PLATFORM,
    CatalogInImage,
    bounded_tar,
    extract_catalog,
)
from olmcat.oci.media import (
    INDEX_TYPES,
    OCI_INDEX,
    OCI_MANIFEST,
    Descriptor,
    Platform,
    digest_of,
    parse_json_object,
    parse_platform,
)
from olmcat.oci.reference import ImageReference
from olmcat.oci.registry import Manifest, Registry, RegistryOptions, RegistryPool, current_options
from olmcat.oci.transport import ImageLocation, parse_location

__all__ = [
    "PulledImage",
    "extract_image_catalog",
    "open_layer",
    "pulled_layout",
    "resolve_image",
]

_MAX_INDEX_DEPTH = 4
_MAX_CONFIG = 32 << 20  # image configs are KiB; as the archive reader bounds them


@dataclass(frozen=True, slots=True)
class PulledImage:
    """One image resolved in a registry: its manifest and config, not yet its layers."""

    registry: Registry
    repository: str
    reference: str  # the tag or digest asked for
    manifest: Manifest  # the platform's image manifest
    index: Manifest | None  # the manifest list / index it was chosen from, if any
    config: dict[str, object]
    layers: tuple[Descriptor, ...]
    config_descriptor: Descriptor

    @property
    def labels(self) -> dict[str, str]:
        inner = self.config.get("config")
        labels = inner.get("Labels") if isinstance(inner, dict) else None
        if not isinstance(labels, dict):
            return {}
        return {str(k): v for k, v in labels.items() if isinstance(v, str)}

    @property
    def digest(self) -> str:
        """The digest a user pulls by: the index's when there is one."""
        return (self.index or self.manifest).digest


def select_platform(index: Manifest, want: Platform, what: str) -> Descriptor:
    """The first image manifest of ``index`` for ``want`` (document order, as the runtimes do)."""
    document = index.json()
    entries = document.get("manifests")
    if not isinstance(entries, list):
        raise InputError(f"{what}: image index without a manifests list")
    seen = []
    for i, raw in enumerate(entries):
        desc = Descriptor.from_json(raw, f"{what} entry {i}")
        if desc.platform is None or desc.platform.os == "unknown":
            continue  # attestations and other artifacts
        seen.append(str(desc.platform))
        if want.matches(desc.platform):
            return desc
    found = ", ".join(sorted(set(seen))) or "none"
    raise InputError(f"{what}: no image for platform {want} (platforms: {found})")


def resolve_image(
    registry: Registry, repository: str, reference: str, platform: str | None = None
) -> PulledImage:
    """Resolve ``repository:reference`` to the image manifest for ``platform`` and its config."""
    want = parse_platform(platform or DEFAULT_PLATFORM)
    what = f"{registry.host}/{repository}{'@' if ':' in reference else ':'}{reference}"
    manifest = registry.get_manifest(repository, reference)
    index: Manifest | None = None
    depth = 0
    while manifest.media_type in INDEX_TYPES:
        depth += 1
        if depth > _MAX_INDEX_DEPTH:
            raise InputError(f"{what}: image indexes nested deeper than {_MAX_INDEX_DEPTH}")
        index = index or manifest
        child = select_platform(manifest, want, what)
        manifest = registry.get_manifest(repository, child.digest)
    document = manifest.json()
    config_desc = Descriptor.from_json(document.get("config"), f"{what} config")
    raw_layers = document.get("layers")
    if not isinstance(raw_layers, list):
        raise InputError(f"{what}: image manifest without a layers list")
    layers = tuple(
        Descriptor.from_json(layer, f"{what} layer {i}") for i, layer in enumerate(raw_layers)
    )
    if config_desc.size > _MAX_CONFIG:
        raise InputError(
            f"{what}: image config of {config_desc.size} bytes (more than {_MAX_CONFIG} is no "
            "image config)"
        )
    config_path = registry.fetch_blob(repository, config_desc.digest, config_desc.size)
    config = parse_json_object(safe.read_bytes(config_path), f"{what} config")
    return PulledImage(
        registry, repository, reference, manifest, index, config, layers, config_desc
    )


# --------------------------------------------------------------------------------------------
# Finding the layer that holds the DB


@contextlib.contextmanager
def open_layer(path: Path, what: str) -> Iterator[tarfile.TarFile]:
    """A layer blob (plain, gzip or zstd tar) as a streaming tar."""
    import gzip

    with path.open("rb") as raw:
        head = raw.read(4)
        raw.seek(0)
        stream: IO[bytes]
        if head[:2] == b"\x1f\x8b":
            stream = cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb"))
        elif head == b"\x28\xb5\x2f\xfd":
            stream = _zstd(raw, what)
        else:
            stream = raw
        try:
            with bounded_tar(stream, path.stat().st_size, what) as tar:
                yield tar
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise InputError(f"{what}: corrupt layer ({exc})") from exc


def _zstd(raw: IO[bytes], what: str) -> IO[bytes]:
    with contextlib.suppress(ImportError):
        import compression.zstd  # type: ignore[import-not-found]  # Python >= 3.14

        return cast(IO[bytes], compression.zstd.ZstdFile(raw))
    try:
        import zstandard
    except ImportError:
        raise InputError(
            f"{what}: zstd layer, and no zstd module is installed (pip install zstandard)"
        ) from None
    return cast(IO[bytes], zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True))


LayerVerdict = Literal["absent", "plain", "complex"]


def _layer_verdict(tar: tarfile.TarFile, path: str) -> LayerVerdict:
    """How a layer touches ``path`` (no leading ``/``): not at all, with the file itself as a
    regular file, or in any way that needs the full layer stack to judge."""
    parts = path.split("/")
    ancestors = {"/".join(parts[:i]) for i in range(1, len(parts))}
    found: LayerVerdict = "absent"
    for member in tar:
        name = "/".join(p for p in member.name.split("/") if p not in ("", "."))
        directory, _, base = name.rpartition("/")
        if base.startswith(".wh."):
            hidden = base[len(".wh.") :]
            target = (
                directory if hidden == ".wh..opq" else "/".join(filter(None, [directory, hidden]))
            )
            if target == path or target in ancestors or (hidden == ".wh..opq" and not directory):
                return "complex"
            continue
        if name == path:
            if not member.isreg():
                return "complex"
            found = "plain"
        elif name in ancestors and not member.isdir():
            return "complex"
    return found


def _layers_for_database(image: PulledImage, label_path: str) -> tuple[Descriptor, ...]:
    path = "/".join(p for p in label_path.split("/") if p not in ("", "."))
    for position in range(len(image.layers) - 1, -1, -1):
        desc = image.layers[position]
        blob = image.registry.fetch_blob(image.repository, desc.digest, desc.size)
        with open_layer(blob, f"{image.registry.host}/{image.repository}@{desc.digest}") as tar:
            verdict = _layer_verdict(tar, path)
        if verdict == "plain":
            return (desc,)
        if verdict == "complex":
            break
    return image.layers  # let the archive reader apply (and judge) the whole stack


# --------------------------------------------------------------------------------------------
# Extracting


def _scratch_layout(image: PulledImage, layers: tuple[Descriptor, ...]) -> Path:
    """An OCI layout of hardlinks into the cache holding the manifest, config and ``layers``.

    With fewer layers than the image has, the manifest is rewritten to list only those (and the
    config's diff_ids are then not checked against them); every blob is still verified.
    """
    cache = image.registry.cache
    root = cache.scratch_dir("pull-")
    shown = f"a copy of {image.repository} in {root.parent}"
    blobs = root / "blobs" / "sha256"
    blobs.mkdir(parents=True)

    def link(digest: str, source: Path) -> None:
        algorithm, encoded = digest.split(":", 1)
        target = root / "blobs" / algorithm / encoded
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            return
        try:
            os.link(source, target)
        except OSError:
            with writing(shown, elsewhere=CACHE):
                shutil.copyfile(source, target)

    config_path = image.registry.fetch_blob(
        image.repository, image.config_descriptor.digest, image.config_descriptor.size
    )
    link(image.config_descriptor.digest, config_path)
    for desc in layers:
        link(desc.digest, image.registry.fetch_blob(image.repository, desc.digest, desc.size))
    if layers == image.layers:
        manifest_data = image.manifest.data
    else:
        document = image.manifest.json()
        document["layers"] = [
            layer
            for layer in document["layers"]
            if layer.get("digest") in {d.digest for d in layers}
        ]
        manifest_data = json.dumps(document).encode()
    manifest_digest = digest_of(manifest_data)
    with writing(shown, elsewhere=CACHE):
        (blobs / manifest_digest.split(":", 1)[1]).write_bytes(manifest_data)
    index = {
        "schemaVersion": 2,
        "mediaType": OCI_INDEX,
        "manifests": [
            {
                "mediaType": image.manifest.media_type
                if image.manifest.media_type
                else OCI_MANIFEST,
                "digest": manifest_digest,
                "size": len(manifest_data),
            }
        ],
    }
    with writing(shown, elsewhere=CACHE):
        (root / "index.json").write_text(json.dumps(index))
        (root / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
    return root


@contextlib.contextmanager
def pulled_layout(
    reference: ImageReference,
    *,
    platform: str | None = None,
    options: RegistryOptions | None = None,
    check: Callable[[PulledImage], None] | None = None,
) -> Iterator[Path]:
    """Pull the image ``reference`` names through the blob cache and yield a scratch OCI layout
    of it (hardlinks into the cache; :func:`olmcat.oci.archive.open_image` reads it). ``check``
    sees the resolved manifest and config (labels) before any layer is fetched, so an image of
    the wrong kind is refused without downloading it. The layout is removed on exit."""
    repository = (
        f"{reference.namespace}/{reference.name}" if reference.namespace else reference.name
    )
    with RegistryPool(options or current_options()) as pool:
        registry = pool.get(reference.registry)
        image = resolve_image(registry, repository, reference.digest or reference.tag, platform)
        if check is not None:
            check(image)
        scratch = _scratch_layout(image, image.layers)
        try:
            yield scratch
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def extract_image_catalog(
    location: ImageLocation | str,
    dest_dir: Path,
    *,
    platform: str | None = None,
    options: RegistryOptions | None = None,
    kind: Literal["sqlite", "fbc"] | None = None,
) -> CatalogInImage:
    """Materialise the catalog of the image at ``location`` (any transport) under ``dest_dir``.

    The result names the real manifest digest (the index's for a multi-arch image).
    """
    if isinstance(location, str):
        parsed = parse_location(location)
        if parsed is None:  # a plain path: the archive reader tells the format apart
            return extract_catalog(Path(location), dest_dir, platform=platform, kind=kind)
        location = parsed
    if location.transport != "docker":
        assert location.path is not None
        if not location.path.exists():
            raise InputError(f"{location.text}: {location.path} does not exist")
        return extract_catalog(
            location.path, dest_dir, platform=platform, ref=location.ref, kind=kind
        )
    ref = location.reference
    assert ref is not None
    repository = f"{ref.namespace}/{ref.name}" if ref.namespace else ref.name
    with RegistryPool(options or current_options()) as pool:
        registry = pool.get(ref.registry)
        image = resolve_image(registry, repository, ref.digest or ref.tag, platform)
        labels = image.labels
        order = {
            None: (DATABASE_LABEL, CONFIGS_LABEL),
            "sqlite": (DATABASE_LABEL,),
            "fbc": (CONFIGS_LABEL,),
        }[kind]
        label = next((name for name in order if labels.get(name, "").strip()), None)
        if label is None:
            found = ", ".join(sorted(labels)) or "none"
            raise InputError(
                f"{location.text}: no catalog label {' or '.join(order)} (labels found: {found})"
            )
        if label == DATABASE_LABEL:
            layers = _layers_for_database(image, labels[label].strip())
        else:
            layers = image.layers
        scratch = _scratch_layout(image, layers)
        try:
            found_catalog = extract_catalog(
                scratch, dest_dir, kind="sqlite" if label == DATABASE_LABEL else "fbc"
            )
        except InputError as exc:
            # Name the image, not the scratch layout, in the message.
            raise InputError(str(exc).replace(str(scratch), location.text)) from None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return CatalogInImage(
        kind=found_catalog.kind,
        path=found_catalog.path,
        label=found_catalog.label,
        image_path=found_catalog.image_path,
        labels=found_catalog.labels,
        platform=found_catalog.platform,
        manifest_digest=image.digest,
    )
