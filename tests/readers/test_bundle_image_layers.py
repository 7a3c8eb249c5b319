"""Bundle images in the layer shapes real images have: the rendering depends only on the files the
image holds once its layers are applied, never on tar member order or layer split.

Every release of opm in the table unpacks the whole image into a directory (containerd until
v1.52, containers/image from v1.53: both apply layers in order with whiteouts) and reads
``manifests/`` with ``fs.ReadDir``, which sorts by file name; sub-directories of ``manifests/``
are skipped. So each image here must render exactly as the directory that holds its final files
(built independently by the test), at every release whose rules differ. The oracle checks the
same images in tests/differential/test_render_images.py.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from olmcat.go.opm import opm_release
from olmcat.readers.bundlerender import render_bundle_dir, render_source
from olmcat.writers.fbc import bundle_json, render_json
from tests.support.builders import crd_doc
from tests.support.builders import csv as csv_doc
from tests.support.bundleimages import (
    Image,
    Member,
    bundle_labels,
    bundle_members,
    directory,
    file,
    opaque,
    single_layer,
    whiteout,
)

REF = "quay.io/example/demo-bundle:v1.0.0"
RELEASES = ("1.26.5", "1.28.0", "1.46.0", "1.73.0")


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


def rendered(source: Path | str, tag: str, image: str | None = REF) -> str:
    if isinstance(source, Path) and source.is_dir() and (source / "manifests").is_dir():
        bundle = render_bundle_dir(source, image=image, release=opm_release(tag))
    else:
        bundle = render_source(source, image=image, release=opm_release(tag))
    return "".join(render_json([bundle_json(bundle)]))


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


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_images_render_as_the_directory_of_their_final_files(tmp_path: Path, shape: str) -> None:
    bundle = demo_bundle(tmp_path)
    image, final = SHAPES[shape](bundle, tmp_path)
    archive = image.write_oci_archive(tmp_path / "image.tar", ref=REF)
    layout = image.write_layout(tmp_path / "layout")
    docker = image.write_docker_archive(tmp_path / "docker.tar", ref=REF)
    for tag in RELEASES:
        expected = rendered(final, tag)
        assert rendered(archive, tag) == expected, (shape, tag)
        assert rendered(f"oci:{layout}", tag) == expected, (shape, tag)
        assert rendered(docker, tag) == expected, (shape, tag)


def test_the_release_decides_the_order_and_the_layers_do_not(tmp_path: Path) -> None:
    bundle = demo_bundle(tmp_path)
    import base64
    import json

    def kinds(text: str) -> list[str]:
        blob = json.loads(text)
        out = []
        for p in blob["properties"]:
            if p["type"] == "olm.bundle.object":
                obj = json.loads(base64.b64decode(p["value"]["data"]))
                out.append(f"{obj['kind']}/{obj['metadata']['name']}")
        return out

    file_names = [
        "ConfigMap/demo-config",
        "Service/demo-metrics",
        "ClusterServiceVersion/demo.v1.0.0",
        "CustomResourceDefinition/gadgets.example.com",
        "CustomResourceDefinition/widgets.example.com",
    ]
    for shape in ("one-layer-reverse", "file-per-layer", "whiteouts"):
        image, _ = SHAPES[shape](bundle, tmp_path / shape)
        archive = image.write_oci_archive(tmp_path / f"{shape}.tar", ref=REF)
        assert kinds(rendered(archive, "1.26.5")) == file_names
        by_value = kinds(rendered(archive, "1.46.0"))
        assert sorted(by_value) == sorted(file_names) and by_value != file_names
        # v1.28-v1.45 with an image: one olm.csv.metadata, no objects.
        assert kinds(rendered(archive, "1.28.0")) == []
        assert kinds(rendered(archive, "1.28.0", image="")) == by_value
