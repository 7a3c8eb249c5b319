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

from pathlib import Path

import pytest

from olmcat.go.opm import opm_release
from olmcat.readers.bundlerender import render_bundle_dir, render_source
from olmcat.writers.fbc import bundle_json, render_json
from tests.support.bundleimages import SHAPES, demo_bundle

REF = "quay.io/example/demo-bundle:v1.0.0"
RELEASES = ("1.26.5", "1.28.0", "1.46.0", "1.73.0")


def rendered(source: Path | str, tag: str, image: str | None = REF) -> str:
    if isinstance(source, Path) and source.is_dir() and (source / "manifests").is_dir():
        bundle = render_bundle_dir(source, image=image, release=opm_release(tag))
    else:
        bundle = render_source(source, image=image, release=opm_release(tag))
    return "".join(render_json([bundle_json(bundle)]))


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


@pytest.mark.parametrize("shape", ["file-per-layer", "whiteouts", "opaque-directory"])
def test_each_layer_is_read_once_for_both_directories(
    tmp_path: Path, shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from olmcat.oci.archive import ImageArchive, Layer

    bundle = demo_bundle(tmp_path)
    image, final = SHAPES[shape](bundle, tmp_path)
    archive = image.write_oci_archive(tmp_path / "image.tar", ref=REF)
    streamed: list[int] = []
    original = ImageArchive._layer_tar

    def counting(self: ImageArchive, layer: Layer) -> object:
        streamed.append(layer.index)
        return original(self, layer)

    monkeypatch.setattr(ImageArchive, "_layer_tar", counting)
    assert rendered(archive, "1.26.5") == rendered(final, "1.26.5")
    assert streamed == list(range(len(image.layers)))  # manifests/ and metadata/ in one pass
