"""Reading a registry+v1 bundle as operator-controller v1.11.0's rukpak reads it
(``rukpak/bundle/source``): ``source_test.go``'s cases, and what differs from opm's reading."""

from __future__ import annotations

import base64
import json
import shutil
from collections.abc import Mapping
from pathlib import Path

import pytest

from olmcat.errors import InputError, ValidationError
from olmcat.model import Bundle
from olmcat.model.property import Property
from olmcat.notices import NoticeLog
from olmcat.olmv1.bundle import (
    RegistryV1,
    from_catalog_bundle,
    read_bundle,
    read_bundle_dir,
    read_bundle_image,
)
from tests.support.bundleimages import single_layer
from tests.support.paths import FIXTURES

WEBHOOK = FIXTURES / "olmv1" / "webhook-bundle"

CSV = """apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: test.v1.0.0
  annotations:
    olm.properties: '[{"type":"from-csv-annotations-key", "value":"from-csv-annotations-value"}]'
spec:
  installModes:
  - type: AllNamespaces
    supported: true
"""


def bundle_dir(
    root: Path, files: dict[str, str], package: str | None = "test", properties: str = ""
) -> Path:
    """bundlefs.Builder(): metadata/annotations.yaml (with the package, if any), optional
    metadata/properties.yaml and manifests/."""
    (root / "manifests").mkdir(parents=True)
    (root / "metadata").mkdir()
    if package is not None:
        (root / "metadata" / "annotations.yaml").write_text(
            f"annotations:\n  operators.operatorframework.io.bundle.package.v1: {package}\n"
        )
    if properties:
        (root / "metadata" / "properties.yaml").write_text(properties)
    for name, text in files.items():
        (root / "manifests" / name).write_text(text)
    return root


# -- source_test.go -------------------------------------------------------------------------------


def test_from_fs_success(tmp_path: Path) -> None:
    """Test_FromFS_Success: the package from annotations.yaml; properties.yaml merged into the
    CSV's olm.properties annotation after the CSV's own."""
    path = bundle_dir(
        tmp_path / "b",
        {"csv.yaml": CSV},
        properties="properties:\n- type: from-file-key\n  value: from-file-value\n",
    )
    rv1 = read_bundle_dir(path)
    assert rv1.package_name == "test"
    assert json.loads(rv1.csv["metadata"]["annotations"]["olm.properties"]) == [
        {"type": "from-csv-annotations-key", "value": "from-csv-annotations-value"},
        {"type": "from-file-key", "value": "from-file-value"},
    ]
    assert rv1.csv["metadata"]["annotations"]["olm.properties"] == (
        '[{"type":"from-csv-annotations-key","value":"from-csv-annotations-value"},'
        '{"type":"from-file-key","value":"from-file-value"}]'
    )


SERVICE = "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n"


@pytest.mark.parametrize(
    ("files", "package", "message"),
    [
        ({"service.yaml": SERVICE}, "test", 'no ClusterServiceVersion found in "manifests"'),
        ({"csv.yaml": CSV}, None, "annotations.yaml: no such file"),
        ({}, "test", "no ClusterServiceVersion found"),
    ],
    ids=[
        "Test_FromFS_Fails[1/4] bundle missing ClusterServiceVersion manifest",
        "Test_FromFS_Fails[2,3/4] bundle missing metadata/annotations.yaml",
        "Test_FromFS_Fails[4/4] bundle missing manifests",
    ],
)
def test_from_fs_fails(
    tmp_path: Path, files: dict[str, str], package: str | None, message: str
) -> None:
    path = bundle_dir(tmp_path / "b", files, package=package)
    with pytest.raises((InputError, ValidationError), match=message):
        read_bundle_dir(path)


def test_from_fs_fails_without_manifests_directory(tmp_path: Path) -> None:
    path = bundle_dir(tmp_path / "b", {})
    shutil.rmtree(path / "manifests")
    with pytest.raises(InputError, match="manifests: no such directory"):
        read_bundle_dir(path)


# -- how operator-controller reads a bundle, unlike opm -------------------------------------------


def test_every_document_and_list_items_are_read(tmp_path: Path) -> None:
    two = SERVICE + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
    items = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s1\n"
        "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s2\n"
    )
    path = bundle_dir(tmp_path / "b", {"a.yaml": two, "b.yaml": items, "csv.yaml": CSV})
    rv1 = read_bundle_dir(path)
    assert [(o["kind"], o["metadata"]["name"]) for o in rv1.others] == [
        ("Service", "s"),
        ("ConfigMap", "c"),
        ("Secret", "s1"),
        ("Secret", "s2"),
    ]


def test_a_document_without_kind_is_an_error(tmp_path: Path) -> None:
    path = bundle_dir(tmp_path / "b", {"csv.yaml": CSV, "x.yaml": "metadata:\n  name: x\n"})
    with pytest.raises(ValidationError, match=r'error parsing objects in "manifests/x\.yaml"'):
        read_bundle_dir(path)


def test_a_subdirectory_of_manifests_is_an_error(tmp_path: Path) -> None:
    path = bundle_dir(tmp_path / "b", {"csv.yaml": CSV})
    (path / "manifests" / "sub").mkdir()
    with pytest.raises(ValidationError, match=r'subdirectories are not allowed .*"manifests/sub"'):
        read_bundle_dir(path)


def test_the_last_csv_wins_with_a_notice(tmp_path: Path) -> None:
    second = CSV.replace("test.v1.0.0", "test.v2.0.0")
    path = bundle_dir(tmp_path / "b", {"a.yaml": CSV, "b.yaml": second})
    log = NoticeLog()
    rv1 = read_bundle_dir(path, log)
    assert rv1.csv_name == "test.v2.0.0"
    assert [n.code for n in log] == ["olmv1.bundle.extra-csv"]


def test_fixture_bundle() -> None:
    rv1 = read_bundle_dir(WEBHOOK)
    assert (rv1.package_name, rv1.csv_name) == ("webhook-operator", "webhook-operator.v0.0.5")
    assert [c["metadata"]["name"] for c in rv1.crds] == ["webhooktests.webhook.operators.coreos.io"]
    assert rv1.others == ()
    assert rv1.supported_install_modes() == {"AllNamespaces"}


# -- catalogs and images --------------------------------------------------------------------------


def _object(manifest: Mapping[str, object]) -> Property:
    data = base64.b64encode(json.dumps(manifest).encode()).decode()
    return Property("olm.bundle.object", json.dumps({"data": data}))


def test_from_catalog_bundle_reads_olm_bundle_objects() -> None:
    csv: dict[str, object] = {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {"name": "p.v1"},
    }
    crd: dict[str, object] = {
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "a.example.com"},
    }
    package = Property("olm.package", '{"packageName":"p","version":"1.0.0"}')
    bundle = Bundle("p.v1", "p", "img", (package, _object(csv), _object(crd)))
    rv1 = from_catalog_bundle(bundle)
    assert isinstance(rv1, RegistryV1)
    assert (rv1.package_name, rv1.csv_name, len(rv1.crds)) == ("p", "p.v1", 1)
    assert rv1.properties == ({"type": "olm.package", "value": json.loads(package.value)},)


def test_from_catalog_bundle_without_objects_is_none() -> None:
    metadata = Property("olm.csv.metadata", '{"displayName":"p"}')
    assert from_catalog_bundle(Bundle("p.v1", "p", "img", (metadata,))) is None


@pytest.mark.parametrize("form", ["oci", "oci-archive", "docker-archive"])
def test_bundle_images_saved_to_disk(tmp_path: Path, form: str) -> None:
    image = single_layer(WEBHOOK)
    if form == "oci":
        (tmp_path / "layout").mkdir()
        ref = f"oci:{image.write_layout(tmp_path / 'layout')}"
    elif form == "oci-archive":
        ref = f"oci-archive:{image.write_oci_archive(tmp_path / 'b.tar')}"
    else:
        ref = f"docker-archive:{image.write_docker_archive(tmp_path / 'b.tar')}"
    from_image = read_bundle_image(ref)
    assert from_image.source == ref
    from_dir = read_bundle_dir(WEBHOOK)
    assert (from_image.csv, from_image.crds) == (from_dir.csv, from_dir.crds)


def test_read_bundle_takes_directories_and_images(tmp_path: Path) -> None:
    assert read_bundle(WEBHOOK).csv_name == "webhook-operator.v0.0.5"
    archive = single_layer(WEBHOOK).write_oci_archive(tmp_path / "b.tar")
    assert read_bundle(str(archive)).csv_name == "webhook-operator.v0.0.5"
