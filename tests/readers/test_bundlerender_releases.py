"""Rendering bundles as each opm release renders them (``--opm-version``): the ``render-…`` rows of
``olmcat.go.opm.BEHAVIOURS``, each tested at the release before and at the release that
changed it. Cases named after a Go test are operator-registry's own test table at that tag
(``git show TAG:PATH``), rebuilt as bundle directories; v1.26.5 is also checked against the real
binary in tests/differential/test_render_images.py.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import InputError, UsageError, ValidationError
from olmcat.go.opm import opm_release
from olmcat.model import RelatedImage
from olmcat.model.csvmetadata import as_rendered_by
from olmcat.notices import NoticeLog
from olmcat.readers.bundlerender import render_bundle_dir, render_bundles
from tests.support.builders import crd_doc
from tests.support.builders import csv as csv_doc
from tests.support.bundletrees import deployment, write_bundle
from tests.support.paths import parse_stream

IMAGE = "test.registry/foo-operator/foo-bundle:v0.2.0"


def foo_bundle(root: Path, **spec: Any) -> Path:
    """A bundle shaped like operator-registry's alpha/action/testdata/foo-bundle-v0.2.0: the CSV
    in a file whose name sorts before the CRD's, so file order is (CSV, CRD), while the CRD's
    olm.bundle.object value (base64 of ``{"apiVersion":"apiextensions…``) sorts before the
    CSV's (``{"apiVersion":"operators…``)."""
    bundle = root / "foo"
    (bundle / "manifests").mkdir(parents=True)
    (bundle / "metadata").mkdir()
    csv = csv_doc(
        "foo.v0.2.0",
        "0.2.0",
        customresourcedefinitions={
            "owned": [{"name": "foos.test.foo", "version": "v1", "kind": "Foo"}]
        },
        **spec,
    )
    (bundle / "manifests" / "foo.v0.2.0.csv.yaml").write_text(yaml.safe_dump(csv))
    crd = crd_doc("foos", "test.foo", "Foo", ["v1"])
    (bundle / "manifests" / "foos.test.foo.crd.yaml").write_text(yaml.safe_dump(crd))
    annotations = {
        "operators.operatorframework.io.bundle.package.v1": "foo",
        "operators.operatorframework.io.bundle.channels.v1": "beta",
    }
    (bundle / "metadata" / "annotations.yaml").write_text(
        yaml.safe_dump({"annotations": annotations})
    )
    return bundle


def kinds(bundle: Any) -> list[str]:
    """The kind of each manifest property, in order (CSVMetadata for olm.csv.metadata)."""
    out = []
    for p in bundle.properties:
        if p.type == "olm.bundle.object":
            out.append(json.loads(base64.b64decode(json.loads(p.value)["data"]))["kind"])
        elif p.type == "olm.csv.metadata":
            out.append("CSVMetadata")
    return out


def types(bundle: Any) -> list[str]:
    return [p.type for p in bundle.properties]


def release_render(path: Path, tag: str, **kwargs: Any) -> Any:
    return render_bundle_dir(path, release=opm_release(tag), **kwargs)


# -- render-objects-sorted (v1.28.0, 2ee231b3) ----------------------------------------------------


@pytest.mark.parametrize("tag", ["1.26.5", "1.27.1"])
def test_objects_follow_file_names_up_to_v1_27(tmp_path: Path, tag: str) -> None:
    bundle = foo_bundle(tmp_path)
    assert kinds(release_render(bundle, tag)) == [
        "ClusterServiceVersion",
        "CustomResourceDefinition",
    ]


@pytest.mark.parametrize("tag", ["1.28.0", "1.46.0", "1.71.0", "1.73.0"])
def test_objects_are_sorted_by_value_from_v1_28(tmp_path: Path, tag: str) -> None:
    # v1.46.0 alpha/action/render_test.go TestRender "Success/BundleDirectory" (and
    # "Success/BundleImage"): Objects [csv, crd], properties [object(crd), object(csv)].
    bundle = foo_bundle(tmp_path)
    rendered = release_render(bundle, tag)
    assert types(rendered) == ["olm.gvk", "olm.package", "olm.bundle.object", "olm.bundle.object"]
    assert kinds(rendered) == ["CustomResourceDefinition", "ClusterServiceVersion"]


def config_map_keys(bundle: Any) -> list[str]:
    out = []
    for p in bundle.properties:
        if p.type == "olm.bundle.object":
            obj = json.loads(base64.b64decode(json.loads(p.value)["data"]))
            if obj["kind"] == "ConfigMap":
                out.append(obj["data"]["k"])
    return out


def test_sorted_objects_order_by_base64_text_not_by_manifest_text(tmp_path: Path) -> None:
    # Two ConfigMaps whose JSON text orders one way ('_' < '~') and whose base64 text orders
    # the other way: the property value (base64) decides from v1.28.
    def manifest(key: str) -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "data": {"k": key},
            "kind": "ConfigMap",
            "metadata": {"name": "a"},
        }

    def b64(obj: dict[str, Any]) -> str:
        return base64.b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode()

    assert b64(manifest("~")) < b64(manifest("_"))  # the premise, independently of olmcat
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    (bundle / "manifests" / "50-low.yaml").write_text(yaml.safe_dump(manifest("_")))
    (bundle / "manifests" / "51-high.yaml").write_text(yaml.safe_dump(manifest("~")))
    assert config_map_keys(release_render(bundle, "1.27")) == ["_", "~"]  # file names
    assert config_map_keys(release_render(bundle, "1.28")) == ["~", "_"]  # value text


def test_properties_file_objects_are_dropped_up_to_v1_27_and_sorted_from_v1_28(
    tmp_path: Path,
) -> None:
    extra_object = {"data": base64.b64encode(b'{"kind":"Secret"}').decode()}
    meta = {"displayName": "from properties.yaml"}
    bundle = write_bundle(
        tmp_path,
        "demo",
        "1.0.0",
        properties=[
            {"type": "olm.bundle.object", "value": extra_object},
            {"type": "olm.csv.metadata", "value": meta},
        ],
    )
    old = release_render(bundle, "1.26")
    # renderBundleObjects: properties.yaml's olm.bundle.object goes, olm.csv.metadata keeps
    # its sorted place (before olm.package), the CSV object follows.
    assert types(old) == ["olm.csv.metadata", "olm.package", "olm.bundle.object"]
    assert kinds(old) == ["CSVMetadata", "ClusterServiceVersion"]
    new = release_render(bundle, "1.46")
    assert types(new) == [
        "olm.package",
        "olm.bundle.object",
        "olm.bundle.object",
        "olm.csv.metadata",
    ]
    values = [p.value for p in new.properties if p.type == "olm.bundle.object"]
    assert values == sorted(values) and len(values) == 2


# -- render-csv-metadata-by-default (v1.28.0 until v1.46.0) -------------------------------


@pytest.mark.parametrize("tag", ["1.28.0", "1.37.0", "1.45.0"])
def test_bundles_with_an_image_render_csv_metadata_from_v1_28_to_v1_45(
    tmp_path: Path, tag: str
) -> None:
    # v1.28.0 alpha/action/render_test.go TestRender "Success/BundleImage": properties end with
    # mustBuildCSVMetadata(csv) and hold no olm.bundle.object.
    bundle = foo_bundle(tmp_path, displayName="Foo <Operator>", description="a & b")
    rendered = release_render(bundle, tag, image=IMAGE)
    assert types(rendered) == ["olm.gvk", "olm.package", "olm.csv.metadata"]
    metadata = json.loads(rendered.properties[-1].value)
    assert metadata["displayName"] == "Foo <Operator>" and metadata["description"] == "a & b"
    assert "Foo <Operator>" in rendered.properties[-1].value  # SetEscapeHTML(false)
    # Without an image reference every manifest stays an object (sorted).
    assert kinds(release_render(bundle, tag)) == [
        "CustomResourceDefinition",
        "ClusterServiceVersion",
    ]


def test_csv_go_cannot_decode_stays_an_object_from_v1_28_to_v1_45(tmp_path: Path) -> None:
    bundle = foo_bundle(tmp_path, installModes="not a list")
    rendered = release_render(bundle, "1.45", image=IMAGE)
    assert kinds(rendered) == ["ClusterServiceVersion"]


def test_the_v1_28_default_is_the_implementation_every_command_shares(tmp_path: Path) -> None:
    # render at v1.40.0 is what migrate, add and templates make of today's rendering
    # (olmcat.model.csvmetadata.as_rendered_by): one code path, one olm.csv.metadata.
    bundle = foo_bundle(tmp_path, displayName="Foo <Operator>")
    log = NoticeLog()
    old = release_render(bundle, "1.40", image=IMAGE, notify=log)
    today = release_render(bundle, "1.73", image=IMAGE)
    assert as_rendered_by(today, opm_release("1.40")) == old
    assert [n.code for n in log] == ["render.csv-metadata-default"]


def test_the_v1_28_default_does_not_decode_spec_release(tmp_path: Path) -> None:
    # spec.release came with operator-framework/api v0.37.0 (opm v1.62.0): before, a release Go
    # would now refuse is an unknown field, dropped.
    bundle = foo_bundle(tmp_path, release="01")
    assert types(release_render(bundle, "1.40", image=IMAGE))[-1] == "olm.csv.metadata"
    level = "bundle-object-to-csv-metadata"
    [kept] = render_bundles([bundle], image=IMAGE, release="1.61", migrate_level=level)
    assert types(kept)[-1] == "olm.csv.metadata"
    with pytest.raises(InputError, match="leading zeroes"):
        render_bundles([bundle], image=IMAGE, release="1.62", migrate_level=level)


@pytest.mark.parametrize(("tag", "expected"), [("1.27.1", 2), ("1.46.0", 2)])
def test_images_keep_objects_outside_v1_28_to_v1_45(
    tmp_path: Path, tag: str, expected: int
) -> None:
    bundle = foo_bundle(tmp_path)
    assert len(kinds(release_render(bundle, tag, image=IMAGE))) == expected


# -- render-migrate-level (v1.46.0, c80e8751) -----------------------------------------------------


def test_migrate_level_replaces_objects_from_v1_46(tmp_path: Path) -> None:
    bundle = foo_bundle(tmp_path, displayName="Foo")
    [rendered] = render_bundles(
        [bundle],
        image=IMAGE,
        release=opm_release("1.46"),
        migrate_level="bundle-object-to-csv-metadata",
    )
    assert types(rendered) == ["olm.gvk", "olm.package", "olm.csv.metadata"]
    # Without an image the migration leaves the bundle alone (Image == "" is skipped).
    [plain] = render_bundles(
        [bundle], release=opm_release("1.46"), migrate_level="bundle-object-to-csv-metadata"
    )
    assert kinds(plain) == ["CustomResourceDefinition", "ClusterServiceVersion"]


def test_migrate_level_before_v1_46_is_refused_naming_the_release(tmp_path: Path) -> None:
    bundle = foo_bundle(tmp_path)
    # The one check every command shares (olmcat.go.opm.check_migrate_level): a usage error.
    with pytest.raises(UsageError, match=r"came with opm v1\.46\.0"):
        render_bundles(
            [bundle], release=opm_release("1.45"), migrate_level="bundle-object-to-csv-metadata"
        )
    result = CliRunner().invoke(
        cli,
        [
            "render",
            str(bundle),
            "--opm-version",
            "1.45",
            "--migrate-level",
            "bundle-object-to-csv-metadata",
        ],
    )
    assert result.exit_code == 2
    assert "v1.46.0" in result.output and "opm v1.45.0" in result.output


def test_cli_opm_version_and_migrate_level(tmp_path: Path) -> None:
    bundle = foo_bundle(tmp_path)
    runner = CliRunner()
    old = runner.invoke(cli, ["render", str(bundle), "--opm-version", "1.26"])
    new = runner.invoke(cli, ["render", str(bundle)])  # default: the newest release
    assert old.exit_code == 0 and new.exit_code == 0, old.output + new.output

    def object_kinds(text: str) -> list[str]:
        [blob] = parse_stream(text)
        return [
            json.loads(base64.b64decode(p["value"]["data"]))["kind"]
            for p in blob["properties"]
            if p["type"] == "olm.bundle.object"
        ]

    assert object_kinds(old.stdout) == ["ClusterServiceVersion", "CustomResourceDefinition"]
    assert object_kinds(new.stdout) == ["CustomResourceDefinition", "ClusterServiceVersion"]
    migrated = runner.invoke(
        cli,
        [
            "render",
            str(bundle),
            "--image",
            IMAGE,
            "--opm-version",
            "v1.71.0",
            "--migrate-level",
            "bundle-object-to-csv-metadata",
            "-o",
            "yaml",
        ],
    )
    assert migrated.exit_code == 0, migrated.output
    [blob] = list(yaml.safe_load_all(migrated.stdout))
    assert [p["type"] for p in blob["properties"]][-1] == "olm.csv.metadata"
    bad = runner.invoke(cli, ["render", str(bundle), "--opm-version", "1.99"])
    assert bad.exit_code == 2 and "v1.26.5 to v1.73.0" in bad.output


# -- render-package-release (v1.62.0), -numeric-release (v1.64.0), -from-build-metadata ---------


def package_value(bundle: Any) -> dict[str, Any]:
    [value] = [json.loads(p.value) for p in bundle.properties if p.type == "olm.package"]
    return value  # type: ignore[no-any-return]


def test_spec_release_is_ignored_before_v1_62_and_carried_from_v1_62(tmp_path: Path) -> None:
    bundle = write_bundle(
        tmp_path, "demo", "1.0.0", csv=csv_doc("demo.v1.0.0", "1.0.0", release="2")
    )
    assert package_value(release_render(bundle, "1.61")) == {
        "packageName": "demo",
        "version": "1.0.0",
    }
    rendered = release_render(bundle, "1.62")
    assert package_value(rendered) == {"packageName": "demo", "version": "1.0.0", "release": "2"}
    assert next(p.value for p in rendered.properties if p.type == "olm.package") == (
        '{"packageName":"demo","version":"1.0.0","release":"2"}'
    )


# v1.64.0 pkg/registry/csv_test.go TestGetRelease (f410a396), as YAML CSVs.
GET_RELEASE = [
    ("string release", '"1.0.0"', "1.0.0"),
    ("integer numeric release", "20250104", "20250104"),
    ("float numeric release", "0.20250104", "0.20250104"),
    ("large integer release", "20250104235959", "20250104235959"),
    ("null release", "null", ""),
]


@pytest.mark.parametrize(("name", "text", "want"), GET_RELEASE, ids=[c[0] for c in GET_RELEASE])
def test_get_release_table_of_v1_64(tmp_path: Path, name: str, text: str, want: str) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    csv_file = next((bundle / "manifests").iterdir())
    csv_file.write_text(csv_file.read_text().replace("spec:\n", f"spec:\n  release: {text}\n"))
    value = package_value(release_render(bundle, "1.64"))
    assert value.get("release", "") == want


@pytest.mark.parametrize("text", ["true", "[1]", "{a: 1}"])
def test_get_release_invalid_type_fails_from_v1_64(tmp_path: Path, text: str) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    csv_file = next((bundle / "manifests").iterdir())
    csv_file.write_text(csv_file.read_text().replace("spec:\n", f"spec:\n  release: {text}\n"))
    with pytest.raises(ValidationError, match="release field must be a string or number"):
        release_render(bundle, "1.64")
    assert "release" not in package_value(release_render(bundle, "1.61"))


def test_numeric_release_fails_on_v1_62_and_v1_63(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0", csv=csv_doc("demo.v1.0.0", "1.0.0", release=7))
    with pytest.raises(
        ValidationError, match="cannot unmarshal number into Go value of type string"
    ):
        release_render(bundle, "1.63")
    assert package_value(release_render(bundle, "1.64"))["release"] == "7"


@pytest.mark.parametrize(
    ("number", "text"),
    [(1.5, "1.5"), (1e21, "1e+21"), (1234567.5, "1.2345675e+06"), (0.00001, "1e-05"), (-2.0, "-2")],
)
def test_numeric_release_formats_as_go(tmp_path: Path, number: float, text: str) -> None:
    bundle = write_bundle(
        tmp_path, "demo", "1.0.0", csv=csv_doc("demo.v1.0.0", "1.0.0", release=number)
    )
    assert package_value(release_render(bundle, "1.73"))["release"] == text


def test_release_from_build_metadata_from_v1_62_until_v1_67(tmp_path: Path) -> None:
    csv = csv_doc("demo.v1.0.0", "1.0.0+3")
    csv["metadata"]["annotations"] = {"olm.substitutesFor": "demo.v0.9.0"}
    bundle = write_bundle(tmp_path, "demo", "1.0.0", csv=csv)
    assert package_value(release_render(bundle, "1.61")) == {
        "packageName": "demo",
        "version": "1.0.0+3",
    }
    assert package_value(release_render(bundle, "1.62")) == {
        "packageName": "demo",
        "version": "1.0.0",
        "release": "3",
    }
    assert package_value(release_render(bundle, "1.66")) == package_value(
        release_render(bundle, "1.62")
    )
    assert package_value(release_render(bundle, "1.67")) == {
        "packageName": "demo",
        "version": "1.0.0+3",
    }


def test_substitutes_for_without_build_metadata_fails_from_v1_62_until_v1_67(
    tmp_path: Path,
) -> None:
    csv = csv_doc("demo.v1.0.0", "1.0.0")
    csv["metadata"]["annotations"] = {"olm.substitutesFor": "demo.v0.9.0"}
    bundle = write_bundle(tmp_path, "demo", "1.0.0", csv=csv)
    with pytest.raises(ValidationError, match="no release version expressed as build metadata"):
        release_render(bundle, "1.65")
    assert package_value(release_render(bundle, "1.67"))["version"] == "1.0.0"


def test_properties_file_package_release_must_be_a_string_from_v1_62(tmp_path: Path) -> None:
    # property.Package gained Release string (v1.62.0): a properties.yaml olm.package whose
    # release is no string no longer decodes; before, the unknown field was ignored. (The
    # package property derived from the annotations comes later and wins either way.)
    bundle = write_bundle(
        tmp_path,
        "demo",
        "1.0.0",
        properties=[
            {
                "type": "olm.package",
                "value": {"packageName": "demo", "version": "1.0.0", "release": 5},
            }
        ],
    )
    assert package_value(release_render(bundle, "1.61")) == {
        "packageName": "demo",
        "version": "1.0.0",
    }
    with pytest.raises(ValidationError, match=r"olm\.package"):
        release_render(bundle, "1.62")


# -- encoding-go122-json (v1.41.0) -----------------------------------------------------------


def test_equal_related_images_follow_the_go_release_of_each_opm(tmp_path: Path) -> None:
    # 100 entries naming three images: past 12 elements pdqsort's pattern breaking decides the
    # order of equal images, and its shifts changed with Go 1.22 (opm v1.41.0).
    rng = random.Random(7)
    related = [{"name": f"n{i}", "image": f"quay.io/x/i:{rng.randrange(3)}"} for i in range(100)]
    csv = csv_doc("demo.v1.0.0", "1.0.0", relatedImages=related)
    bundle = write_bundle(tmp_path, "demo", "1.0.0", csv=csv)
    orders = {}
    for tag in ("1.26.5", "1.40.0", "1.41.0", "1.73.0"):
        rendered = release_render(bundle, tag)
        assert [r.image for r in rendered.related_images] == sorted(r["image"] for r in related)
        orders[tag] = [r.name for r in rendered.related_images]
    assert orders["1.26.5"] == orders["1.40.0"]
    assert orders["1.41.0"] == orders["1.73.0"]
    assert orders["1.26.5"] != orders["1.41.0"]


def test_operator_images_keep_their_rules_across_releases(tmp_path: Path) -> None:
    csv = csv_doc("demo.v1.0.0", "1.0.0", install=deployment("quay.io/a/op:1"))
    bundle = write_bundle(tmp_path, "demo", "1.0.0", csv=csv)
    for tag in ("1.26", "1.46", "1.73"):
        assert release_render(bundle, tag, image="quay.io/a/b:1").related_images == (
            RelatedImage("", "quay.io/a/b:1"),
            RelatedImage("", "quay.io/a/op:1"),
        )
