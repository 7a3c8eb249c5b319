"""Bundle resolution: the documented order, mapping files, archives, ambiguity, errors."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import tarfile
from pathlib import Path

import pytest

from olmcat.errors import InputError, ValidationError
from olmcat.go.opm import NEWEST, opm_release
from olmcat.model import Bundle, Package, PackageCatalog
from olmcat.model import property as prop
from olmcat.readers.bundlerender import render_bundle_dir
from olmcat.templates.resolve import BundleResolver, read_mapping_file
from olmcat.writers.fbc import write_directory
from tests.support.template_strategies import POOL, write_pool

REF = next(b.ref for b in POOL if b.name == "demo.v1.0.0")


@pytest.fixture
def refs(tmp_path: Path) -> dict[str, Path]:
    return write_pool(tmp_path / "pool")


def catalog_with(tmp_path: Path, *bundles: Bundle) -> Path:
    out = tmp_path / "catalog"
    by_package: dict[str, list[Bundle]] = {}
    for bundle in bundles:
        by_package.setdefault(bundle.package, []).append(bundle)
    write_directory(
        (PackageCatalog(Package(p), (), tuple(b)) for p, b in sorted(by_package.items())), out
    )
    return out


def marker(name: str, package: str, image: str) -> Bundle:
    return Bundle(name, package, image, (prop.package(package, "1.0.0"),))


def oci_layout(bundle_dir: Path, out: Path) -> Path:
    """An OCI image layout holding ``bundle_dir``'s manifests/ and metadata/ as one layer."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for top in ("manifests", "metadata"):
            tar.add(bundle_dir / top, arcname=top)
    layer = gzip.compress(buffer.getvalue(), mtime=0)
    config = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            "config": {"Labels": {"operators.operatorframework.io.bundle.package.v1": "demo"}},
            "rootfs": {
                "type": "layers",
                "diff_ids": ["sha256:" + hashlib.sha256(buffer.getvalue()).hexdigest()],
            },
        }
    ).encode()

    def desc(media: str, data: bytes) -> dict[str, object]:
        return {
            "mediaType": media,
            "digest": "sha256:" + hashlib.sha256(data).hexdigest(),
            "size": len(data),
        }

    manifest = json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": desc("application/vnd.oci.image.config.v1+json", config),
            "layers": [desc("application/vnd.oci.image.layer.v1.tar+gzip", layer)],
        }
    ).encode()
    (out / "blobs" / "sha256").mkdir(parents=True)
    for blob in (layer, config, manifest):
        (out / "blobs" / "sha256" / hashlib.sha256(blob).hexdigest()).write_bytes(blob)
    (out / "oci-layout").write_text('{"imageLayoutVersion":"1.0.0"}')
    index = {
        "schemaVersion": 2,
        "manifests": [desc("application/vnd.oci.image.manifest.v1+json", manifest)],
    }
    (out / "index.json").write_text(json.dumps(index))
    return out


def test_bundle_dir_renders_as_opm_render_with_the_reference(refs: dict[str, Path]) -> None:
    with BundleResolver(bundle_dirs=refs) as resolver:
        found = resolver.resolve(REF)
    assert found.bundle == render_bundle_dir(refs[REF], image=REF, release=NEWEST)
    assert found.csv is not None and found.csv["metadata"]["name"] == "demo.v1.0.0"
    assert found.source.startswith("bundle dir")


def test_order_bundle_dir_then_catalog_then_archive(refs: dict[str, Path], tmp_path: Path) -> None:
    catalog = catalog_with(tmp_path, marker("from-catalog", "demo", REF))
    archive = oci_layout(refs[REF], tmp_path / "archive")
    with BundleResolver(bundle_dirs=refs, catalogs=(catalog,), archives={REF: archive}) as resolver:
        assert resolver.resolve(REF).bundle.name == "demo.v1.0.0"
    with BundleResolver(catalogs=(catalog,), archives={REF: archive}) as resolver:
        assert resolver.resolve(REF).bundle.name == "from-catalog"
    with BundleResolver(archives={REF: archive}) as resolver:
        found = resolver.resolve(REF)
    assert found.bundle == render_bundle_dir(refs[REF], image=REF, release=NEWEST)
    assert found.source == f"archive {archive}"


def test_images_render_as_the_release_asked_for_and_catalog_blobs_stay(
    refs: dict[str, Path], tmp_path: Path
) -> None:
    """Rendered sources follow the template's release (v1.40.0 writes olm.csv.metadata for a
    bundle with an image, v1.26.5 sorts related images with Go 1.19); a catalog's blob is
    returned as the catalog holds it, marked for as_rendered_by."""
    archive = oci_layout(refs[REF], tmp_path / "archive")
    old = opm_release("1.40")
    with BundleResolver(bundle_dirs=refs) as resolver:
        from_dir = resolver.resolve(REF, old)
        assert resolver.resolve(REF) != from_dir  # the memo is per release
    with BundleResolver(archives={REF: archive}) as resolver:
        from_archive = resolver.resolve(REF, old)
    for found in (from_dir, from_archive):
        assert found.bundle == render_bundle_dir(refs[REF], image=REF, release=old)
        assert found.form == "release"
        objects = [p.type for p in found.bundle.properties if p.type in prop.OBJECT_TYPES]
        assert objects == [prop.TYPE_CSV_METADATA]
    catalog = catalog_with(tmp_path, marker("from-catalog", "demo", REF))
    with BundleResolver(catalogs=(catalog,)) as resolver:
        from_catalog = resolver.resolve(REF, old)
    assert from_catalog.bundle == marker("from-catalog", "demo", REF)
    assert from_catalog.form == "current"


def test_registry_hook_comes_last(refs: dict[str, Path], tmp_path: Path) -> None:
    pulled: list[str] = []

    def fetch(ref: str, dest: Path) -> None:
        pulled.append(ref)
        for part in ("manifests", "metadata"):
            (dest / part).mkdir()
            for file in (refs[REF] / part).iterdir():
                (dest / part / file.name).write_bytes(file.read_bytes())

    catalog = catalog_with(tmp_path, marker("from-catalog", "demo", "other:1"))
    with BundleResolver(catalogs=(catalog,), fetcher=fetch) as resolver:
        assert resolver.resolve("other:1").bundle.name == "from-catalog"
        assert resolver.resolve(REF).bundle.name == "demo.v1.0.0"
        assert resolver.resolve(REF).source == "registry"
    assert pulled == [REF]  # resolved once, then remembered


def test_unresolvable_and_ambiguous(tmp_path: Path) -> None:
    with (
        BundleResolver() as resolver,
        pytest.raises(InputError, match="cannot resolve bundle image x:1"),
    ):
        resolver.resolve("x:1")
    catalog = catalog_with(tmp_path, marker("a", "p", "shared:1"), marker("b", "q", "shared:1"))
    with (
        BundleResolver(catalogs=(catalog,)) as resolver,
        pytest.raises(InputError, match="several bundles"),
    ):
        resolver.resolve("shared:1")


def test_archive_without_bundle_content(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    (empty / "manifests").mkdir(parents=True)
    (empty / "metadata").mkdir()
    (empty / "manifests" / "x.txt").write_text("x")
    (empty / "metadata" / "annotations.yaml").write_text("annotations: {}\n")
    archive = oci_layout(empty, tmp_path / "archive")
    with (
        BundleResolver(archives={"x:1": archive}) as resolver,
        pytest.raises(
            ValidationError, match=rf"^{re.escape(str(archive))}.*?/metadata: no annotations file"
        ),
    ):
        resolver.resolve("x:1")


def test_mapping_file(tmp_path: Path) -> None:
    path = tmp_path / "map.txt"
    path.write_text("# bundles\nquay.io/a:1=bundles/a\n\nquay.io/b:1 /abs/b\n")
    assert read_mapping_file(path) == {
        "quay.io/a:1": tmp_path / "bundles" / "a",
        "quay.io/b:1": Path("/abs/b"),
    }
    path.write_text("quay.io/a:1=x\nquay.io/a:1=y\n")
    with pytest.raises(InputError, match="mapped twice"):
        read_mapping_file(path)
    path.write_text("just-one-word\n")
    with pytest.raises(InputError, match=r"map.txt:1: expected"):
        read_mapping_file(path)
