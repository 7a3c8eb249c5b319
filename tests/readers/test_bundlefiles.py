"""Reading one bundle directory as opm's bundle parser reads it (``bundleParser.Parse``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from olmcat.errors import InputError, ValidationError
from olmcat.notices import NoticeLog
from olmcat.readers.bundlefiles import (
    RawProperty,
    in_bundle_manifests,
    is_bundle_dir,
    load_bundle_dir,
    read_metadata,
)
from tests.support.builders import csv as csv_doc
from tests.support.bundletrees import write_bundle


def test_metadata_files_are_searched_in_name_order(tmp_path: Path) -> None:
    # The first file (by name) with non-empty annotations wins, and separately the first with
    # dependencies and the first with properties: one file may hold all three.
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    (bundle / "metadata" / "00-all.yaml").write_text(
        "annotations: {operators.operatorframework.io.bundle.package.v1: other}\n"
        "dependencies: [{type: olm.label, value: {label: a}}]\n"
    )
    (bundle / "metadata" / "zz-properties.json").write_text(
        '{"properties": [{"type": "x", "value": {"b": 1,  "a": 2}}, {"type": "y"}]}'
    )
    metadata = read_metadata(bundle)
    assert metadata.annotations.package == "other"
    assert metadata.annotations_file.name == "00-all.yaml"
    assert metadata.dependencies == (RawProperty("olm.label", '{"label":"a"}'),)
    # JSON values keep their raw text; a missing value is "" (Go's nil RawMessage).
    assert metadata.properties == (RawProperty("x", '{"b": 1,  "a": 2}'), RawProperty("y", ""))
    assert metadata.properties_file is not None and metadata.properties_file.name.startswith("zz")


def test_yaml_null_and_missing_values_differ(tmp_path: Path) -> None:
    bundle = write_bundle(
        tmp_path,
        "demo",
        "1.0.0",
        dependencies="dependencies:\n- type: olm.gvk\n  value:\n- type: olm.gvk\n",
    )
    assert read_metadata(bundle).dependencies == (
        RawProperty("olm.gvk", "null"),
        RawProperty("olm.gvk", ""),
    )


def test_the_first_csv_names_the_bundle(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0", docs=[csv_doc("demo.later", "2.0.0")])
    log = NoticeLog()
    loaded = load_bundle_dir(bundle, notify=log)
    assert loaded.name == "demo.v1.0.0"
    assert [o["metadata"]["name"] for o in loaded.objects] == ["demo.v1.0.0"]
    assert log.codes() == {"bundledir.extra-csv-ignored": 1}


def test_no_csv_and_no_objects_are_refused(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    (bundle / "manifests" / "00-demo.v1.0.0.yaml").unlink()
    with pytest.raises(ValidationError, match="no bundle objects found"):
        load_bundle_dir(bundle)
    (bundle / "manifests" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n")
    with pytest.raises(ValidationError, match="no ClusterServiceVersion"):
        load_bundle_dir(bundle)


def test_bundle_dir_tests(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    assert is_bundle_dir(bundle) and not is_bundle_dir(bundle / "manifests")
    assert in_bundle_manifests(bundle / "manifests" / "demo.package.yaml")
    assert not in_bundle_manifests(tmp_path / "demo" / "demo.package.yaml")


def test_symlinks_must_stay_inside_the_input(tmp_path: Path) -> None:
    outside = tmp_path / "outside.yaml"
    outside.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: secret}\n")
    bundle = write_bundle(tmp_path / "root", "demo", "1.0.0")
    (bundle / "manifests" / "link.yaml").symlink_to(outside)
    with pytest.raises(InputError, match=r"link\.yaml: a symbolic link to .*outside"):
        load_bundle_dir(bundle)
    # A link to a file elsewhere inside the root (a shared CRD) is read, as docker COPY reads it.
    (bundle / "manifests" / "link.yaml").unlink()
    shared = tmp_path / "root" / "demo" / "shared.yaml"
    shared.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared}\n")
    (bundle / "manifests" / "link.yaml").symlink_to(shared)
    with pytest.raises(InputError):
        load_bundle_dir(bundle)  # outside the bundle directory, the default root
    loaded = load_bundle_dir(bundle, root=tmp_path / "root")
    assert [o["metadata"]["name"] for o in loaded.objects][-1] == "shared"
