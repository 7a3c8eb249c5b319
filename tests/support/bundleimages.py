"""Bundle images with the layer shapes real images have, built by hand (``tarfile``, ``gzip``,
``hashlib``; never olmcat's own image writer), for tests of how bundle images are read.

A layer is a list of :class:`Member` in tar order, exactly as given (no sorting): real bundle
images come from ``docker build`` / ``buildah`` (``COPY manifests /manifests/`` writes a
directory's files in the builder's own order, one layer per ``COPY``), from ``operator-sdk``
(one layer) and from rebuilt images whose upper layers delete files with whiteouts. Helpers:
:func:`bundle_members` (a bundle directory's files in a chosen tar order),
:func:`whiteout` / :func:`opaque` (AUFS/OCI deletion markers). An :class:`Image` is written as
an OCI layout, an oci-archive, a docker-archive, or turned into a :class:`TestImage` for
:func:`tests.support.registry.push`.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import random
import shutil
import tarfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml

from tests.support.builders import crd_doc
from tests.support.builders import csv as csv_doc
from tests.support.registry import OCI_CONFIG, OCI_MANIFEST, Blob, TestImage

LAYER_GZIP = "application/vnd.oci.image.layer.v1.tar+gzip"
Order = Literal["sorted", "reverse", "shuffled", "directories-last"]


@dataclass(frozen=True)
class Member:
    """One tar member: a file, a directory or a symlink (``target``)."""

    name: str
    kind: Literal["file", "dir", "symlink"] = "file"
    data: bytes = b""
    target: str = ""


def file(name: str, data: bytes | str) -> Member:
    return Member(name, "file", data.encode() if isinstance(data, str) else data)


def directory(name: str) -> Member:
    return Member(name, "dir")


def symlink(name: str, target: str) -> Member:
    return Member(name, "symlink", target=target)


def whiteout(path: str) -> Member:
    """The marker that deletes ``path`` (and what is below it) from the layers underneath."""
    parent, _, base = path.rpartition("/")
    return file(f"{parent}/.wh.{base}" if parent else f".wh.{base}", b"")


def opaque(path: str) -> Member:
    """The marker that hides everything the layers underneath have in directory ``path``."""
    return file(f"{path}/.wh..wh..opq", b"")


def layer_tar(members: Iterable[Member]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for member in members:
            info = tarfile.TarInfo(member.name)
            info.mtime = 0
            if member.kind == "dir":
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            elif member.kind == "symlink":
                info.type, info.linkname, info.mode = tarfile.SYMTYPE, member.target, 0o777
                tar.addfile(info)
            else:
                info.size, info.mode = len(member.data), 0o644
                tar.addfile(info, io.BytesIO(member.data))
    return buffer.getvalue()


def bundle_members(
    bundle_dir: Path,
    *,
    order: Order = "sorted",
    tops: tuple[str, ...] = ("manifests", "metadata"),
    seed: int = 0,
    prefix: str = "",
) -> list[Member]:
    """The files (and directories) of ``bundle_dir``'s ``tops`` as tar members in ``order``:
    ``sorted`` (each directory before its files), ``reverse``, ``shuffled`` (with ``seed``), or
    ``directories-last`` (files first, their directory entries after them, as some builders
    write them). ``prefix`` puts them under another directory of the image."""
    members: list[Member] = []
    for top in tops:
        root = bundle_dir / top
        if not root.is_dir():
            continue
        members.append(directory(prefix + top))
        for path in sorted(root.rglob("*")):
            name = prefix + path.relative_to(bundle_dir).as_posix()
            members.append(directory(name) if path.is_dir() else file(name, path.read_bytes()))
    if order == "reverse":
        members.reverse()
    elif order == "shuffled":
        random.Random(seed).shuffle(members)
    elif order == "directories-last":
        members = [m for m in members if m.kind != "dir"] + [m for m in members if m.kind == "dir"]
    return members


def bundle_labels(bundle_dir: Path) -> dict[str, str]:
    document = yaml.safe_load((bundle_dir / "metadata" / "annotations.yaml").read_text()) or {}
    return {str(k): str(v) for k, v in (document.get("annotations") or {}).items()}


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass
class Image:
    """A single-platform image: ``layers`` bottom first, each a list of members in tar order."""

    layers: list[list[Member]]
    labels: Mapping[str, str] = field(default_factory=dict)

    def blobs(self) -> tuple[bytes, list[bytes], bytes]:
        """(config, gzipped layers, manifest) as bytes."""
        plain = [layer_tar(members) for members in self.layers]
        compressed = [gzip.compress(data, mtime=0) for data in plain]
        config = json.dumps(
            {
                "architecture": "amd64",
                "os": "linux",
                "config": {"Labels": dict(self.labels)},
                "rootfs": {"type": "layers", "diff_ids": [_sha(p) for p in plain]},
            },
            sort_keys=True,
        ).encode()
        manifest = json.dumps(
            {
                "schemaVersion": 2,
                "mediaType": OCI_MANIFEST,
                "config": {"mediaType": OCI_CONFIG, "digest": _sha(config), "size": len(config)},
                "layers": [
                    {"mediaType": LAYER_GZIP, "digest": _sha(c), "size": len(c)} for c in compressed
                ],
            }
        ).encode()
        return config, compressed, manifest

    def test_image(self) -> TestImage:
        config, layers, manifest = self.blobs()
        return TestImage(
            Blob(OCI_MANIFEST, manifest),
            (Blob(OCI_CONFIG, config), *(Blob(LAYER_GZIP, layer) for layer in layers)),
        )

    def layout_files(self, ref: str = "") -> list[tuple[str, bytes]]:
        config, layers, manifest = self.blobs()
        annotations = {"org.opencontainers.image.ref.name": ref} if ref else {}
        index = json.dumps(
            {
                "schemaVersion": 2,
                "manifests": [
                    {
                        "mediaType": OCI_MANIFEST,
                        "digest": _sha(manifest),
                        "size": len(manifest),
                        "annotations": annotations,
                    }
                ],
            }
        ).encode()
        blobs = {f"blobs/sha256/{_sha(b)[7:]}": b for b in (config, *layers, manifest)}
        return [("oci-layout", b'{"imageLayoutVersion": "1.0.0"}'), ("index.json", index)] + [
            (name, data) for name, data in blobs.items()
        ]

    def write_layout(self, path: Path, ref: str = "") -> Path:
        for name, data in self.layout_files(ref):
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_bytes(data)
        return path

    def write_oci_archive(self, path: Path, ref: str = "") -> Path:
        path.write_bytes(layer_tar(file(name, data) for name, data in self.layout_files(ref)))
        return path

    def write_docker_archive(self, path: Path, ref: str = "") -> Path:
        config, layers, _ = self.blobs()
        plain = [gzip.decompress(layer) for layer in layers]
        entry = {
            "Config": _sha(config)[7:] + ".json",
            "RepoTags": [ref] if ref else [],
            "Layers": [_sha(p)[7:] + "/layer.tar" for p in plain],
        }
        members = [file(entry["Config"], config)]
        members += [file(_sha(p)[7:] + "/layer.tar", p) for p in plain]
        members.append(file("manifest.json", json.dumps([entry]).encode()))
        path.write_bytes(layer_tar(members))
        return path


def single_layer(bundle_dir: Path, order: Order = "sorted", seed: int = 0) -> Image:
    return Image([bundle_members(bundle_dir, order=order, seed=seed)], bundle_labels(bundle_dir))


# -- a demo bundle and the layer shapes the tests build of it ----------------------------------


def demo_bundle(root: Path) -> Path:
    """A CSV, two CRDs, a ConfigMap, a Service: file-name order and value order disagree."""
    bundle = root / "demo"
    (bundle / "manifests").mkdir(parents=True)
    (bundle / "metadata").mkdir()
    owned = [
        {"name": "widgets.example.com", "version": "v1", "kind": "Widget"},
        {"name": "gadgets.example.com", "version": "v1", "kind": "Gadget"},
    ]
    files = {
        "demo.clusterserviceversion.yaml": csv_doc(
            "demo.v1.0.0", "1.0.0", customresourcedefinitions={"owned": owned}
        ),
        "example.com_widgets.yaml": crd_doc("widgets", "example.com", "Widget", ["v1"]),
        "example.com_gadgets.yaml": crd_doc("gadgets", "example.com", "Gadget", ["v1"]),
        "demo-config_v1_configmap.yaml": {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "demo-config"},
            "data": {"a": "<b>"},
        },
        "demo-metrics_v1_service.yaml": {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "demo-metrics"},
            "spec": {"ports": [{"port": 8443}]},
        },
    }
    for name, document in files.items():
        (bundle / "manifests" / name).write_text(yaml.safe_dump(document))
    annotations = {
        "operators.operatorframework.io.bundle.package.v1": "demo",
        "operators.operatorframework.io.bundle.channels.v1": "stable",
        "operators.operatorframework.io.bundle.manifests.v1": "manifests/",
        "operators.operatorframework.io.bundle.metadata.v1": "metadata/",
    }
    (bundle / "metadata" / "annotations.yaml").write_text(
        yaml.safe_dump({"annotations": annotations})
    )
    return bundle


def _copy(bundle: Path, target: Path) -> Path:
    shutil.copytree(bundle, target)
    return target


def _stray(bundle: Path) -> list[Member]:
    """A lower layer's extra manifests that an upper layer deletes."""
    stale = csv_doc("demo.v0.9.0", "0.9.0")
    return [
        file("manifests/aaa-stale-csv.yaml", yaml.safe_dump(stale)),
        file("manifests/zz-removed_v1_configmap.yaml", "kind: ConfigMap\napiVersion: v1\n"),
    ]


# (name, image builder, how the final directory differs from the bundle directory)
Shape = Callable[[Path, Path], tuple[Image, Path]]


def one_layer(order: str, seed: int = 0) -> Shape:
    def build(bundle: Path, work: Path) -> tuple[Image, Path]:
        return single_layer(bundle, order, seed), bundle  # type: ignore[arg-type]

    return build


def two_copies(bundle: Path, work: Path) -> tuple[Image, Path]:
    # `COPY manifests /manifests/` then `COPY metadata /metadata/`: one layer each.
    manifests = bundle_members(bundle, tops=("manifests",), order="reverse")
    metadata = bundle_members(bundle, tops=("metadata",))
    return Image([metadata, manifests], bundle_labels(bundle)), bundle


def file_per_layer(bundle: Path, work: Path) -> tuple[Image, Path]:
    layers = [[m] for m in bundle_members(bundle, order="directories-last")]
    layers.reverse()
    return Image(layers, bundle_labels(bundle)), bundle


def base_then_bundle(bundle: Path, work: Path) -> tuple[Image, Path]:
    # A base image layer below (as FROM something other than scratch gives).
    base = [directory("etc"), file("etc/os-release", "ID=test\n"), directory("bin")]
    return Image([base, bundle_members(bundle, order="shuffled", seed=3)], bundle_labels(bundle)), (
        bundle
    )


def whiteouts(bundle: Path, work: Path) -> tuple[Image, Path]:
    # A rebuilt image: the lower layer holds stale manifests, the upper one deletes them.
    lower = bundle_members(bundle) + _stray(bundle)
    upper = [
        whiteout("manifests/aaa-stale-csv.yaml"),
        whiteout("manifests/zz-removed_v1_configmap.yaml"),
    ]
    return Image([lower, upper], bundle_labels(bundle)), bundle


def opaque_directory(bundle: Path, work: Path) -> tuple[Image, Path]:
    # The upper layer replaces manifests/ wholesale (opaque marker first, as buildah writes).
    lower = [directory("manifests"), *_stray(bundle)]
    upper = [opaque("manifests"), *bundle_members(bundle, order="reverse")]
    return Image([lower, upper], bundle_labels(bundle)), bundle


def overwritten(bundle: Path, work: Path) -> tuple[Image, Path]:
    # A file written in a lower layer and again, changed, in an upper one: the upper wins.
    final = _copy(bundle, work / "final")
    service = final / "manifests" / "demo-metrics_v1_service.yaml"
    changed = service.read_text().replace("8443", "9443")
    service.write_text(changed)
    lower = bundle_members(bundle)
    upper = [file("manifests/demo-metrics_v1_service.yaml", changed)]
    return Image([lower, upper], bundle_labels(bundle)), final


def sub_directories(bundle: Path, work: Path) -> tuple[Image, Path]:
    # Files in a sub-directory of manifests/ are not bundle objects (ReadDir skips directories).
    final = _copy(bundle, work / "final")
    nested = final / "manifests" / "extra"
    nested.mkdir()
    (nested / "00-other_v1_configmap.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nested}\n"
    )
    return single_layer(final, "reverse"), final


def under_a_prefix_too(bundle: Path, work: Path) -> tuple[Image, Path]:
    # Another copy of the files elsewhere in the image (/opt/...) changes nothing.
    members = bundle_members(bundle, prefix="opt/copy/") + bundle_members(bundle, order="reverse")
    return Image([[directory("opt"), directory("opt/copy"), *members]], bundle_labels(bundle)), (
        bundle
    )


SHAPES: dict[str, Shape] = {
    "one-layer-sorted": one_layer("sorted"),
    "one-layer-reverse": one_layer("reverse"),
    "one-layer-shuffled": one_layer("shuffled", 11),
    "one-layer-directories-last": one_layer("directories-last"),
    "two-copies": two_copies,
    "file-per-layer": file_per_layer,
    "base-then-bundle": base_then_bundle,
    "whiteouts": whiteouts,
    "opaque-directory": opaque_directory,
    "overwritten": overwritten,
    "sub-directories": sub_directories,
    "under-a-prefix-too": under_a_prefix_too,
}
