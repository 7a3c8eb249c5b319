"""Bundle images against the real ``opm render`` (the oracle, v1.26.5), byte for byte.

* Images of real layer shapes (tests/readers/test_bundle_image_layers.py: tar orders, one layer
  per file, a base layer, whiteouts, an opaque directory, an overwritten file, sub-directories
  of manifests/, a copy elsewhere in the image) are pushed as built into a loopback registry in
  a private network namespace and rendered by ``opm render --use-http REF``; olmcat renders the
  same image saved as an oci-archive, with ``--opm-version 1.26``.
* Rules of ``renderBundleObjects`` (v1.26.5): an olm.bundle.object in properties.yaml is dropped,
  an olm.csv.metadata there keeps its sorted place; related images naming one image many times
  come out in Go 1.19's order (the oracle's Go), exactly.
* ``bundle-index render`` (the oracle pushes bundle directories as images and renders them)
  against ``olmcat render`` pulling the same images from a registry of the test session.

Run alone: ``pytest tests/differential/test_render_images.py``.
"""

from __future__ import annotations

import json
import random
import shutil
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.go.opm import opm_release
from olmcat.readers.bundlerender import render_source
from olmcat.writers.fbc import bundle_json, render_json
from tests.support import registry as reg
from tests.support.builders import csv as csv_doc
from tests.support.bundleimages import SHAPES, demo_bundle, single_layer
from tests.support.bundletrees import bundle_image, deployment, oracle_render, write_bundle
from tests.support.oracle import require_bundle_index
from tests.support.registry import Registries, clean_env, push
from tests.support.registry_netns import PREFIX, OracleRegistry

pytestmark = pytest.mark.differential


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OracleRegistry]:
    with OracleRegistry(tmp_path_factory.mktemp("oracle-registry")) as registry:
        yield registry


def opm_render(oracle: OracleRegistry, ref: str) -> str:
    code, out, err = oracle.opm("render", "--use-http", ref)
    assert code == 0, err
    return out


def olmcat_render(archive: Path, ref: str) -> str:
    bundle = render_source(archive, image=ref, release=opm_release("1.26.5"))
    return "".join(render_json([bundle_json(bundle)]))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_layer_shapes_render_as_opm_renders_them(
    oracle: OracleRegistry, tmp_path: Path, shape: str
) -> None:
    bundle = demo_bundle(tmp_path)
    image, _ = SHAPES[shape](bundle, tmp_path)
    ref = f"{PREFIX}/shapes:{shape}"
    oracle.push_layout(ref, image.write_layout(tmp_path / "layout"))
    archive = image.write_oci_archive(tmp_path / "image.tar")
    assert olmcat_render(archive, ref) == opm_render(oracle, ref)


def test_properties_file_objects_and_metadata_as_v1_26_renders_them(
    oracle: OracleRegistry, tmp_path: Path
) -> None:
    bundle = write_bundle(
        tmp_path,
        "demo",
        "1.0.0",
        properties=[
            {"type": "olm.bundle.object", "value": {"data": "eyJraW5kIjoiU2VjcmV0In0="}},
            {"type": "olm.csv.metadata", "value": {"displayName": "from <properties>"}},
            {"type": "olm.maxOpenShiftVersion", "value": "4.12"},
        ],
    )
    ref = f"{PREFIX}/props:v1"
    image = single_layer(bundle)
    oracle.push_layout(ref, image.write_layout(tmp_path / "layout"))
    expected = opm_render(oracle, ref)
    assert olmcat_render(image.write_oci_archive(tmp_path / "image.tar"), ref) == expected
    types = [p["type"] for p in json.loads(expected)["properties"]]
    assert types == [
        "olm.csv.metadata",
        "olm.maxOpenShiftVersion",
        "olm.package",
        "olm.bundle.object",
    ]


def test_equal_related_images_in_go_1_19_order(oracle: OracleRegistry, tmp_path: Path) -> None:
    rng = random.Random(7)
    related = [{"name": f"n{i}", "image": f"quay.io/x/i:{rng.randrange(3)}"} for i in range(100)]
    csv = csv_doc(
        "demo.v1.0.0", "1.0.0", relatedImages=related, install=deployment("quay.io/x/i:1")
    )
    bundle = write_bundle(tmp_path, "demo", "1.0.0", csv=csv)
    ref = f"{PREFIX}/ties:v1"
    image = single_layer(bundle)
    oracle.push_layout(ref, image.write_layout(tmp_path / "layout"))
    expected = opm_render(oracle, ref)
    archive = image.write_oci_archive(tmp_path / "image.tar")
    assert olmcat_render(archive, ref) == expected
    newer = render_source(archive, image=ref, release=opm_release("1.41.0"))
    assert "".join(render_json([bundle_json(newer)])) != expected  # Go 1.22's shifts


def test_backspace_and_form_feed_as_go_1_19_escapes_them(
    oracle: OracleRegistry, tmp_path: Path
) -> None:
    """``olmcat render --opm-version 1.26`` writes U+0008 / U+000C as the oracle's Go 1.19 does
    (``\\u0008``, ``\\u000c``), in the blob and inside each manifest's base64; v1.41.0 and later
    are built with Go 1.22 (``\\b``, ``\\f``)."""
    csv = csv_doc(
        "demo.v1.0.0",
        "1.0.0",
        description="bell\x08and\x0cfeed",
        relatedImages=[{"name": "odd\x08\x0cname", "image": "quay.io/x/odd:1"}],
    )
    bundle = write_bundle(tmp_path, "demo", "1.0.0", csv=csv)
    ref = f"{PREFIX}/escapes:v1"
    image = single_layer(bundle)
    oracle.push_layout(ref, image.write_layout(tmp_path / "layout"))
    expected = opm_render(oracle, ref)
    assert "\\u0008" in expected and "\\u000c" in expected
    archive = image.write_oci_archive(tmp_path / "image.tar")
    runner = CliRunner()
    old = runner.invoke(cli, ["render", str(archive), "--image", ref, "--opm-version", "1.26"])
    assert old.exit_code == 0, old.output
    assert old.stdout == expected
    new = runner.invoke(cli, ["render", str(archive), "--image", ref, "--opm-version", "1.41"])
    assert new.exit_code == 0, new.output
    assert "\\u0008" not in new.stdout and '"odd\\b\\fname"' in new.stdout


@pytest.mark.registry
def test_bundle_index_render_equals_olmcat_render_from_a_registry(
    registries: Registries, tmp_path: Path
) -> None:
    """The oracle's own image build and render (bundle-index) against olmcat pulling the same
    images (built as bundle-index builds them) from a registry of the test session."""
    require_bundle_index()
    server = registries.plain
    tree = tmp_path / "tree"
    shutil.copytree(demo_bundle(tmp_path), tree / "demo" / "1.0.0")
    write_bundle(
        tree,
        "other",
        "0.1.0",
        dependencies=[{"type": "olm.package", "value": {"packageName": "demo", "version": ">=1"}}],
    )
    renders = oracle_render(tree, tmp_path / "work")
    assert renders.failures == {}
    for package, version in (("demo", "1.0.0"), ("other", "0.1.0")):
        archive = bundle_image(tree / package / version, tmp_path / f"{package}.tar")
        push(server, f"{package}-bundle", version, _archive_as_test_image(archive))
        result = CliRunner(env=clean_env(tmp_path)).invoke(
            cli,
            [
                "render",
                f"{server.host}/{package}-bundle:{version}",
                "--use-http",
                "--opm-version",
                "1.26",
                "--image",
                f"{PREFIX}/{package}-bundle:{version}",
            ],
        )
        assert result.exit_code == 0, result.output
        assert result.stdout == renders.texts[f"{package}-{version}"], package


def _archive_as_test_image(archive: Path) -> reg.TestImage:
    """The blobs of a one-image oci-archive, unchanged, for tests.support.registry.push."""
    with tarfile.open(archive) as tar:
        files = {}
        for member in tar:
            handle = tar.extractfile(member) if member.isfile() else None
            if handle is not None:
                files[member.name] = handle.read()
    entry = json.loads(files["index.json"])["manifests"][0]
    manifest = files[f"blobs/sha256/{entry['digest'][7:]}"]
    document = json.loads(manifest)
    blobs = [
        reg.Blob(d["mediaType"], files[f"blobs/sha256/{d['digest'][7:]}"])
        for d in [document["config"], *document["layers"]]
    ]
    return reg.TestImage(reg.Blob(entry["mediaType"], manifest), tuple(blobs))
