"""olm.csv.metadata release by release: the v1.28.0-v1.45 default, the v1.46.0 migration level
and the v1.62.0 spec.release check.

The bundle is the one of operator-registry's ``TestMigrations`` (``git show
v1.46.0:alpha/action/migrations/migrations_test.go``: ``unmigratedCatalogFBC``, whose CSV and CRD
are ``fooRawCsv`` and ``fooRawCrd``); its expectation there, ``csvMetadataCatalogFBC``, builds the
olm.csv.metadata value with ``MustBuildCSVMetadata``, so the value below is written out by hand
from ``property.CSVMetadata``'s fields and JSON tags at v1.46.0: the CRD description keeps name,
version and kind (``group`` is not a CRDDescription field), the two struct fields
``apiServiceDefinitions`` and ``provider`` are never omitted, every other empty field is.
"""

from __future__ import annotations

import json

import pytest

from olmcat.errors import InputError, UsageError
from olmcat.go.opm import check_migrate_level, opm_release
from olmcat.model import Bundle
from olmcat.model import property as prop
from olmcat.model.csvmetadata import as_rendered_by, csv_metadata, default_csv_metadata
from olmcat.notices import NoticeLog

FOO_RAW_CSV = (
    b'{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion", '
    b'"metadata": {"name": "foo.v0.1.0"}, "spec": {"displayName": "Foo Operator", '
    b'"customresourcedefinitions": {"owned": [{"group": "test.foo", "version": "v1", '
    b'"kind": "Foo", "name": "foos.test.foo"}]}, "version": "0.1.0", "relatedImages": '
    b'[{"name": "operator", "image": "test.registry/foo-operator/foo:v0.1.0"}]}}'
)
FOO_RAW_CRD = (
    b"---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
    b"  name: foos.test.foo\nspec:\n  group: test.foo\n  names:\n    kind: Foo\n"
    b"    plural: foos\n  versions:\n    - name: v1"
)
FOO_CSV_METADATA = (
    '{"apiServiceDefinitions":{},"crdDescriptions":{"owned":[{"name":"foos.test.foo",'
    '"version":"v1","kind":"Foo"}]},"displayName":"Foo Operator","provider":{}}'
)
KEPT = (
    prop.gvk("test.foo", "v1", "Foo"),
    prop.gvk_required("test.bar", "v1alpha1", "Bar"),
    prop.package("foo", "0.1.0"),
    prop.package_required("bar", "<0.1.0"),
)
IMAGE = "quay.io/openshift-community-operators/foo:v0.1.0"


def unmigrated(image: str = IMAGE, csv: bytes = FOO_RAW_CSV) -> Bundle:
    objects = (prop.bundle_object(FOO_RAW_CRD), prop.bundle_object(csv))
    return Bundle("foo.v0.1.0", "foo", image, (*KEPT, *objects))


def test_v146_migration_replaces_the_objects_by_one_csv_metadata() -> None:
    migrated = as_rendered_by(unmigrated(), opm_release("1.46"), "bundle-object-to-csv-metadata")
    assert migrated.properties[:4] == KEPT
    assert [p.type for p in migrated.properties[4:]] == ["olm.csv.metadata"]
    assert migrated.properties[4].value == FOO_CSV_METADATA
    # "none" (and no level) leaves the bundle as rendered
    assert as_rendered_by(unmigrated(), opm_release("1.46"), "none") == unmigrated()


def test_migration_level_needs_v146() -> None:
    with pytest.raises(UsageError, match=r"opm v1\.45\.0 .* came with opm v1\.46\.0"):
        check_migrate_level("bundle-object-to-csv-metadata", opm_release("1.45"))
    assert check_migrate_level("none", opm_release("1.26")) == "none"
    assert check_migrate_level("bundle-object-to-csv-metadata", opm_release("1.46.0"))
    with pytest.raises(UsageError, match="unknown migration level"):
        check_migrate_level("all", opm_release("1.73"))


@pytest.mark.parametrize("release", ["1.28", "1.35", "1.45"])
def test_v128_to_v145_render_csv_metadata_by_default(release: str) -> None:
    """v1.28.0's ObjectsAndPropertiesFromBundle: with an image, the CSV becomes olm.csv.metadata
    and the CRD gets no property (its TestRender expects exactly that property list)."""
    log = NoticeLog()
    rendered = as_rendered_by(unmigrated(), opm_release(release), notify=log)
    assert rendered.properties == (*KEPT, prop.Property("olm.csv.metadata", FOO_CSV_METADATA))
    assert log.codes()["render.csv-metadata-default"] == 1
    # without an image every manifest stays an olm.bundle.object
    assert as_rendered_by(unmigrated(image=""), opm_release(release)) == unmigrated(image="")


@pytest.mark.parametrize("release", ["1.26", "1.27", "1.46", "1.73"])
def test_other_releases_keep_the_objects(release: str) -> None:
    assert as_rendered_by(unmigrated(), opm_release(release)) == unmigrated()


def test_v128_undecodable_csv_keeps_its_object_or_all_objects_from_a_database() -> None:
    bad = FOO_RAW_CSV.replace(b'"version": "0.1.0"', b'"version": "x.y"')
    bundle = unmigrated(csv=bad)
    rendered = default_csv_metadata(bundle, opm_release("1.40"))
    # an image: the CSV's object stays, the CRD is dropped
    assert rendered.properties == (*KEPT, prop.bundle_object(bad))
    # a database row: all or nothing
    assert default_csv_metadata(bundle, opm_release("1.40"), from_sqlite=True) == bundle
    # the v1.46.0 migration fails instead
    with pytest.raises(InputError, match=r"foo\.v0\.1\.0"):
        as_rendered_by(bundle, opm_release("1.46"), "bundle-object-to-csv-metadata")


def _csv_with_release(release: object) -> dict[str, object]:
    csv = json.loads(FOO_RAW_CSV)
    csv["spec"]["release"] = release
    return csv


@pytest.mark.parametrize("release", ["1", "alpha.1", "rc-2.x", "0"])
def test_v162_release_field_accepts_prerelease_identifiers(release: str) -> None:
    assert csv_metadata(_csv_with_release(release)).value == FOO_CSV_METADATA


@pytest.mark.parametrize("release", ["01", "", "a..b", "a_b", None, 5, "18446744073709551616"])
def test_v162_release_field_refuses_what_operator_release_refuses(release: object) -> None:
    csv = _csv_with_release(release)
    with pytest.raises(InputError, match=r"spec\.release"):
        csv_metadata(csv)
    # before v1.62.0 the field does not exist and is ignored
    assert csv_metadata(csv, release_field=False).value == FOO_CSV_METADATA
    bundle = unmigrated(csv=json.dumps(csv).encode())
    assert as_rendered_by(bundle, opm_release("1.61"), "bundle-object-to-csv-metadata")
    with pytest.raises(InputError, match=r"spec\.release"):
        as_rendered_by(bundle, opm_release("1.62"), "bundle-object-to-csv-metadata")
