"""oc-mirror v2 ImageSetConfiguration: loading, validation and what it selects.

Expected selections are written down from oc-mirror's and catalog-filter's own code and unit
tests, never from olmcat's output:

* ``tests/data/isc/jaeger-product`` transcribes the graph of catalog-filter's (and oc-mirror's)
  test catalog ``jaeger-product`` (entries, edges, versions, bundle images); the expectations on
  it are those of ``TestFilterCatalog`` (oc-mirror
  ``internal/pkg/operator/catalog_handler_test.go``) and ``TestFilter_FilterCatalog``
  (catalog-filter ``mirror-filter_test.go``). The other two packages of that test catalog
  (3scale-operator, devworkspace-operator) are stored as large
  files the mirror we read does not hold, so their cases are not reproduced;
* the small ``pkg1`` catalogs are catalog-filter's own unit-test inputs;
* the configuration files are oc-mirror's test data (``tests/unit/testdata/config/valid.yaml``,
  ``tests/unit/testdata/isc.yaml``) and the cases of its ``validate_test.go``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import InputError
from olmcat.mirror import isc
from olmcat.model import (
    SCHEMA_BUNDLE,
    SCHEMA_CHANNEL,
    SCHEMA_PACKAGE,
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    DeprecationEntry,
    Package,
    PackageCatalog,
)
from olmcat.model import property as prop
from olmcat.notices import Notice
from olmcat.readers.catalog import open_catalog
from tests.support.paths import DATA

JAEGER = DATA / "isc"
J = "jaeger-operator.v"


def jaeger() -> PackageCatalog:
    with open_catalog(JAEGER) as catalog:
        (pkg,) = list(catalog.packages())
    return pkg


def operator(text: str) -> isc.IscOperator:
    document = yaml.safe_load(
        "kind: ImageSetConfiguration\napiVersion: mirror.openshift.io/v2alpha1\nmirror:\n"
        "  operators:\n" + "\n".join("  " + line for line in text.strip("\n").splitlines())
    )
    (entry,) = isc.parse_image_set_config(document).operators
    return entry


def kept(pkg: PackageCatalog, op: isc.IscOperator) -> set[str]:
    selection = isc.select_package(pkg, op)
    assert selection is not None
    return set(selection.bundles)


# ------------------------------------------------------------------------------------------------
# jaeger-product: oc-mirror's and catalog-filter's expectations
# ------------------------------------------------------------------------------------------------


def test_no_packages_keeps_the_head_of_every_channel() -> None:
    assert kept(jaeger(), operator("- catalog: r.io/idx:v1")) == {J + "1.51.0-1"}


def test_full_keeps_everything() -> None:
    op = operator("- catalog: r.io/idx:v1\n  full: true")
    selection = isc.select_package(jaeger(), op)
    assert selection is not None and selection.whole and len(selection.bundles) == 6
    listed = operator("- catalog: r.io/idx:v1\n  full: true\n  packages:\n  - name: jaeger-product")
    assert len(kept(jaeger(), listed)) == 6


def test_a_channel_without_range_keeps_its_head() -> None:
    op = operator(
        "- catalog: r.io/idx:v1\n  packages:\n  - name: jaeger-product\n    channels:\n"
        "    - name: stable"
    )
    assert kept(jaeger(), op) == {J + "1.51.0-1"}


def test_min_version_keeps_from_there_up_to_the_head() -> None:
    op = operator(
        "- catalog: r.io/idx:v1\n  packages:\n  - name: jaeger-product\n    channels:\n"
        "    - name: stable\n      minVersion: 1.47.1-5"
    )
    assert kept(jaeger(), op) == {J + "1.51.0-1", J + "1.47.1-5"}


def test_min_and_max_keep_the_stretch_and_the_in_range_skips() -> None:
    # the head of the stretch is the 1.42.0-5 rebuild (build metadata +0.1687199951.p) that
    # skips 1.42.0-5; both are within <=1.42.0-5, and 1.34.1-5 below them
    op = operator(
        "- catalog: r.io/idx:v1\n  packages:\n  - name: jaeger-product\n    channels:\n"
        "    - name: stable\n      minVersion: 1.34.1-5\n      maxVersion: 1.42.0-5"
    )
    assert kept(jaeger(), op) == {
        J + "1.34.1-5",
        J + "1.42.0-5",
        J + "1.42.0-5-0.1687199951.p",
    }


def test_the_filtered_catalog_is_valid_and_keeps_the_selection(tmp_path: Path) -> None:
    config = tmp_path / "isc.yaml"
    config.write_text(
        "kind: ImageSetConfiguration\napiVersion: mirror.openshift.io/v2alpha1\nmirror:\n"
        "  operators:\n  - catalog: registry.redhat.io/redhat/redhat-operator-index:v4.16\n"
        "    packages:\n    - name: jaeger-product\n      channels:\n      - name: stable\n"
        "        minVersion: 1.34.1-5\n        maxVersion: 1.42.0-5\n"
    )
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli, ["filter", str(JAEGER), str(out), "--image-set-config", str(config)]
    )
    assert result.exit_code == 0, result.stderr
    assert "kept 1 packages, 1 channels, 3 bundles" in result.stderr
    validated = CliRunner().invoke(cli, ["validate", str(out)])
    assert validated.exit_code == 0, validated.stdout
    with open_catalog(out) as catalog:
        (pkg,) = list(catalog.packages())
    assert {b.name for b in pkg.bundles} == {
        J + "1.34.1-5",
        J + "1.42.0-5",
        J + "1.42.0-5-0.1687199951.p",
    }


# ------------------------------------------------------------------------------------------------
# catalog-filter's unit-test catalogs (pkg1)
# ------------------------------------------------------------------------------------------------


def bundle(name: str, version: str) -> Bundle:
    return Bundle(name, "pkg1", f"quay.io/pkg1/{name}", (prop.package("pkg1", version),))


def pkg1(default: str, *channels: Channel, bundles: tuple[Bundle, ...] = ()) -> PackageCatalog:
    return PackageCatalog(Package("pkg1", default_channel=default), channels, bundles)


def ch(name: str, *entries: ChannelEntry) -> Channel:
    return Channel(name, "pkg1", entries)


E = ChannelEntry
TWO_CHANNELS = pkg1(
    "ch1",
    ch("ch1", E("b1", "b0")),
    ch("ch2", E("b3", "b2")),
    bundles=(bundle("b1", "1.0.0"), bundle("b3", "2.0.0")),
)


def test_default_channel_filtered_out_needs_a_new_one() -> None:
    op = operator("- catalog: c\n  packages:\n  - name: pkg1\n    channels:\n    - name: ch2")
    with pytest.raises(InputError, match=r"the default channel .ch1. was filtered out"):
        isc.select_package(TWO_CHANNELS, op)
    op = operator(
        "- catalog: c\n  packages:\n  - name: pkg1\n    defaultChannel: ch2\n    channels:\n"
        "    - name: ch2"
    )
    selection = isc.select_package(TWO_CHANNELS, op)
    assert selection is not None
    assert (dict(selection.channels), selection.default_channel) == ({"ch2": ("b3",)}, "ch2")
    assert selection.bundles == {"b3"}
    op = operator(
        "- catalog: c\n  packages:\n  - name: pkg1\n    defaultChannel: ch2\n    channels:\n"
        "    - name: ch1"
    )
    with pytest.raises(
        InputError, match=r"specified default channel override .ch2. does not exist"
    ):
        isc.select_package(TWO_CHANNELS, op)


def test_a_range_that_empties_the_default_channel_is_an_error() -> None:
    pkg = pkg1(
        "ch1",
        ch("ch1", E("b1", "b0"), E("b0")),
        bundles=(bundle("b1", "1.0.0"), bundle("b0", "0.1.0")),
    )
    op = operator(
        "- catalog: c\n  packages:\n  - name: pkg1\n    channels:\n    - name: ch1\n"
        "      minVersion: 100.0.1"
    )
    with pytest.raises(InputError, match="results in an empty channel"):
        isc.select_package(pkg, op)


def test_a_cycle_has_no_head() -> None:
    pkg = pkg1(
        "ch1",
        ch("ch1", E("b1", "b0"), E("b0", "b1")),
        bundles=(bundle("b1", "1.0.0"), bundle("b0", "0.1.0")),
    )
    op = operator(
        "- catalog: c\n  packages:\n  - name: pkg1\n    channels:\n    - name: ch1\n"
        "      minVersion: 1.0.0\n      maxVersion: 1.9.0"
    )
    with pytest.raises(InputError, match="no channel heads found"):
        isc.select_package(pkg, op)


def test_deprecations_follow_the_selection() -> None:
    pkg = PackageCatalog(
        Package("pkg1"),
        (ch("ch1", E("b2", "b1", ("b0",)), E("b1")), ch("ch2", E("b5", "b4", ("b3",)), E("b4"))),
        tuple(
            bundle(f"b{i}", v)
            for i, v in enumerate(["0.0.1", "0.1.0", "0.2.0", "3.0.0", "4.0.0", "5.0.0"])
        ),
        (
            Deprecation(
                "pkg1",
                (
                    DeprecationEntry(SCHEMA_PACKAGE, "", "p"),
                    DeprecationEntry(SCHEMA_CHANNEL, "ch1", "c1"),
                    DeprecationEntry(SCHEMA_CHANNEL, "ch2", "c2"),
                    DeprecationEntry(SCHEMA_BUNDLE, "b1", "x"),
                    DeprecationEntry(SCHEMA_BUNDLE, "b2", "y"),
                    DeprecationEntry(SCHEMA_BUNDLE, "b4", "z"),
                ),
            ),
        ),
    )
    op = operator("- catalog: c\n  packages:\n  - name: pkg1\n    channels:\n    - name: ch1")
    selection = isc.select_package(pkg, op)
    assert selection is not None and selection.bundles == {"b2"}
    result = isc.apply_selection(pkg, selection)
    assert [c.name for c in result.channels] == ["ch1"]
    assert [e.name for e in result.channels[0].entries] == ["b2"]
    assert [(e.schema, e.name) for e in result.deprecations[0].entries] == [
        (SCHEMA_PACKAGE, ""),
        (SCHEMA_CHANNEL, "ch1"),
        (SCHEMA_BUNDLE, "b2"),
    ]


def test_a_chain_entry_outside_the_range_is_kept_when_needed() -> None:
    # catalog-filter's TestFilter_FilterCatalog_WithLogger: b2 (2.0.0) skips b1 (1.0.0); the range
    # >=1.0.0 <=1.9.9 holds only b1, yet b2 is kept: it is the head of the stretch
    pkg = pkg1(
        "ch",
        ch("ch", E("b2", skips=("b1",)), E("b1")),
        bundles=(bundle("b1", "1.0.0"), bundle("b2", "2.0.0")),
    )
    pkg = PackageCatalog(Package("pkg1"), pkg.channels, pkg.bundles)
    op = operator(
        "- catalog: c\n  packages:\n  - name: pkg1\n    channels:\n    - name: ch\n"
        "      minVersion: 1.0.0\n      maxVersion: 1.9.9"
    )
    assert kept(pkg, op) == {"b1", "b2"}


# ------------------------------------------------------------------------------------------------
# Rules of oc-mirror's own (filterCatalog, config validation)
# ------------------------------------------------------------------------------------------------


def test_full_with_a_version_range_is_an_error() -> None:
    # oc-mirror: "failed to filter catalog: Full: true cannot be mixed with versionRange"
    op = operator(
        "- catalog: c\n  full: true\n  packages:\n  - name: jaeger-product\n    minVersion: 1.30.2"
    )
    with pytest.raises(InputError, match="Full: true cannot be mixed with versionRange"):
        isc.select_package(jaeger(), op)


def test_equal_min_and_max_keep_exactly_that_version() -> None:
    # catalog-filter v0.0.5 (OCPBUGS-61497: "return only requested version"); oc-mirror's test
    # expects "error finding specific bundle: specific version 77.77.77 not found in bundles"
    op = operator(
        "- catalog: c\n  packages:\n  - name: jaeger-product\n    minVersion: 1.47.1-5\n"
        "    maxVersion: 1.47.1-5"
    )
    assert kept(jaeger(), op) == {J + "1.47.1-5"}
    op = operator(
        "- catalog: c\n  packages:\n  - name: jaeger-product\n    minVersion: 77.77.77\n"
        "    maxVersion: 77.77.77"
    )
    with pytest.raises(InputError, match=r"specific version 77\.77\.77 not found in bundles"):
        isc.select_package(jaeger(), op)


def test_a_package_that_is_not_in_the_catalog_is_reported() -> None:
    # oc-mirror "package not found - logs warning - should pass": nothing selected, no error
    notices: list[Notice] = []
    op = operator("- catalog: c\n  packages:\n  - name: chocolate-factory-operator")
    assert list(isc.filter_packages_isc([jaeger()], op, notify=notices.append)) == []
    assert [(n.code, n.package) for n in notices] == [
        ("isc.package-not-in-catalog", "chocolate-factory-operator")
    ]
    assert "chocolate-factory-operator" in notices[0].message


def test_a_non_strict_bundle_version_fails_the_package() -> None:
    pkg = pkg1("ch1", ch("ch1", E("b1")), bundles=(bundle("b1", "v1.0"),))
    with pytest.raises(InputError, match="not strict semver"):
        isc.select_package(pkg, operator("- catalog: c"))


OC_MIRROR_VALID = """\
---
apiVersion: mirror.openshift.io/v2alpha1
kind: ImageSetConfiguration
mirror:
  platform:
    channels:
      - name: stable-4.7
      - name: stable-4.6
        minVersion: 4.6.3
        maxVersion: 4.6.13
      - name: okd
        type: okd
    graph: true
  operators:
    - catalog: redhat-operators:v4.7
      full: true
    - catalog: certified-operators:v4.7
      full: true
      packages:
        - name: couchbase-operator
        - name: mongodb-operator
          minVersion: '1.4.0'
        - name: crunchy-postgresql-operator
          channels:
            - name: 'stable'
    - catalog: community-operators:v4.7
  samples:
    - name: ruby
  additionalimages:
    - name: registry.redhat.io/ubi8/ubi:latest
  blockedimages:
    - name: alpine
"""


def test_oc_mirrors_valid_config_loads(tmp_path: Path) -> None:
    path = tmp_path / "valid.yaml"
    path.write_text(OC_MIRROR_VALID)
    config = isc.load_image_set_config(path)
    assert [(o.catalog, o.full, len(o.packages)) for o in config.operators] == [
        ("redhat-operators:v4.7", True, 0),
        ("certified-operators:v4.7", True, 3),
        ("community-operators:v4.7", False, 0),
    ]
    certified = isc.choose_operator(config, "certified-operators:v4.7")
    mongodb = certified.package("mongodb-operator")
    assert mongodb is not None and mongodb.min_version == "1.4.0"
    assert certified.packages[2].channels == (isc.IscChannel("stable"),)
    with pytest.raises(InputError, match="choose one with --isc-catalog"):
        isc.choose_operator(config)


@pytest.mark.parametrize(
    ("operators", "message"),
    [
        ("- catalog: c\n  packages:\n  - name: p\n  - name: p", "duplicate package entry 'p'"),
        (
            "- catalog: c\n  packages:\n  - name: p\n    channels:\n    - name: s\n    - name: s",
            "duplicate channel entry 's'",
        ),
        (
            "- catalog: c\n  packages:\n  - name: p\n    maxVersion: not-a-version",
            "maxVersion 'not-a-version' must respect semantic versioning notation",
        ),
        (
            "- catalog: c\n  packages:\n  - name: p\n    minVersion: 1.0.0\n    channels:\n"
            "    - name: s\n      maxVersion: 2.0.0",
            "mixing both filtering by minVersion/maxVersion and filtering by channel",
        ),
        ("- catalog: c\n- catalog: c", "catalog 'c': duplicate found in configuration"),
        ("- catalog: c\n  packages:\n  - name: p\n    minVersion: 4.16", "expected a string"),
        ("- catalog: c\n  packages:\n  - channels: []", "the package name must be specified"),
        ("- catalog: c\n  packages:\n  - name: p\n    bundles: [x]", "unknown field 'bundles'"),
    ],
)
def test_invalid_configs_are_refused_as_oc_mirror_refuses_them(
    operators: str, message: str
) -> None:
    with pytest.raises(InputError, match=message):
        operator(operators) if operators.count("- catalog") == 1 else isc.parse_image_set_config(
            yaml.safe_load(
                "kind: ImageSetConfiguration\nmirror:\n  operators:\n"
                + "\n".join("  " + line for line in operators.splitlines())
            )
        )


def test_top_level_shape() -> None:
    with pytest.raises(
        InputError, match="cannot parse 'ImageSetConfig' as 'ImageSetConfiguration'"
    ):
        isc.parse_image_set_config({"kind": "ImageSetConfig", "mirror": {}})
    with pytest.raises(InputError, match="configuration missing the `mirror` stanza"):
        isc.parse_image_set_config({"kind": "ImageSetConfiguration"})
    # oc-mirror v1's storageConfig is not a v2 field
    with pytest.raises(InputError, match="unknown field 'storageConfig'"):
        isc.parse_image_set_config(
            {"kind": "ImageSetConfiguration", "storageConfig": {}, "mirror": {}}
        )


# ------------------------------------------------------------------------------------------------
# mirror plan: the selection's images, the ClusterCatalog
# ------------------------------------------------------------------------------------------------


def test_cluster_catalog_names_follow_oc_mirror() -> None:
    assert isc.cluster_catalog_name("mirror.example.com:5000/olm/redhat-operator-index:v4.16") == (
        "cc-redhat-operator-index-v4-16"
    )
    digest = "sha256:" + "0123456789abcdef" * 4
    assert isc.cluster_catalog_name(f"m.io/ns/idx@{digest}") == "cc-idx-0123456789ab"
    assert (
        isc.target_reference(
            isc.IscOperator(
                "registry.redhat.io/redhat/redhat-operator-index:v4.16",
                target_catalog="x/y",
                target_tag="t",
            )
        )
        == "registry.redhat.io/x/y:t"
    )


def test_mirror_plan_with_an_image_set_config(tmp_path: Path) -> None:
    config = tmp_path / "isc.yaml"
    config.write_text(
        "kind: ImageSetConfiguration\napiVersion: mirror.openshift.io/v2alpha1\nmirror:\n"
        "  operators:\n  - catalog: registry.redhat.io/redhat/redhat-operator-index:v4.16\n"
        "    targetCatalog: mirrored/operator-index\n"
        "    packages:\n    - name: jaeger-product\n      channels:\n      - name: stable\n"
        "        minVersion: 1.47.1-5\n"
    )
    out = tmp_path / "plan"
    result = CliRunner().invoke(
        cli,
        [
            "mirror",
            "plan",
            str(JAEGER),
            "mirror.example.com:5000/olm",
            str(out),
            "--image-set-config",
            str(config),
        ],
    )
    assert result.exit_code == 0, result.stderr
    mapping = (out / "mapping.txt").read_text().splitlines()
    sources = sorted(line.split("=", 1)[0] for line in mapping)
    digests = {"5dfb4b1c", "cea64466"}  # 1.47.1-5 and 1.51.0-1
    bundles = [s for s in sources if "jaeger-operator-bundle" in s]
    assert len(bundles) == 2 and {b.split(":")[-1][:8] for b in bundles} == digests
    # the catalog image as oc-mirror pushes it (targetCatalog applied) is mirrored too
    assert "registry.redhat.io/mirrored/operator-index:v4.16" in sources
    source = yaml.safe_load((out / "catalogSource.yaml").read_text())
    catalog = yaml.safe_load((out / "clusterCatalog.yaml").read_text())
    assert (
        catalog["apiVersion"] == "olm.operatorframework.io/v1"
        and catalog["kind"] == "ClusterCatalog"
    )
    assert catalog["spec"] == {
        "priority": 0,
        "source": {"image": {"ref": source["spec"]["image"]}, "type": "Image"},
    }
    assert catalog["metadata"]["name"] == isc.cluster_catalog_name(source["spec"]["image"])
    assert json.dumps(catalog).count("createdAt") == 0  # deterministic output


# ------------------------------------------------------------------------------------------------
# The corpus, with oc-mirror's documented configurations (docs/features/filtering.md); the kept
# bundles are worked out by hand from catalog-filter's filterByVersionRange / filterChannelHead
# ------------------------------------------------------------------------------------------------

K = "kiali-operator.v"
CD = "couchdb-operator.v"


@pytest.fixture(scope="module")
def upstream() -> dict[str, PackageCatalog]:
    from tests.support.paths import corpus_path

    with open_catalog(corpus_path("expected", "index-upstream.json")) as catalog:
        return {p.name: p for p in catalog.packages({"kiali", "couchdb-operator"})}


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        # heads of every channel (alpha and stable both end at 1.36.0)
        ("- name: kiali", {K + "1.36.0"}),
        # a pure replaces chain: from 1.30.0 up to the head, in both channels
        (
            "- name: kiali\n  minVersion: 1.30.0",
            {K + v for v in ("1.30.0", "1.31.0", "1.32.0", "1.33.0", "1.34.0", "1.35.0", "1.36.0")},
        ),
        # maxVersion: the stretch starts at 1.9.1 (the lowest entry with all 7 in-range bundles
        # below it); the head is not included
        (
            "- name: kiali\n  channels:\n  - name: stable\n    maxVersion: 1.9.1",
            {K + v for v in ("0.18.1", "1.1.0", "1.3.1", "1.4.2", "1.6.1", "1.7.0", "1.9.1")},
        ),
        # skipRange plays no part; the stretch is 1.4.3 down to (not including) 1.0.14
        (
            "- name: couchdb-operator\n  channels:\n  - name: v1.4\n    minVersion: 1.4.2\n"
            "    maxVersion: 1.4.3",
            {CD + "1.4.2", CD + "1.4.3"},
        ),
    ],
)
def test_documented_configurations_on_the_corpus(
    upstream: dict[str, PackageCatalog], config: str, expected: set[str]
) -> None:
    op = operator(
        "- catalog: quay.io/example/index:v1\n  packages:\n"
        + "\n".join("  " + line for line in config.splitlines())
    )
    package = upstream[op.packages[0].name]
    assert kept(package, op) == expected


def test_full_channel_with_default_channel_on_the_corpus(
    upstream: dict[str, PackageCatalog],
) -> None:
    op = operator(
        "- catalog: c\n  full: true\n  packages:\n  - name: couchdb-operator\n"
        "    defaultChannel: v1.2\n    channels:\n    - name: v1.2"
    )
    selection = isc.select_package(upstream["couchdb-operator"], op)
    assert selection is not None and selection.default_channel == "v1.2"
    assert selection.bundles == {CD + "1.0.14", CD + "1.2.1"}
    # kiali's default channel is stable: keeping only alpha needs defaultChannel
    op = operator("- catalog: c\n  packages:\n  - name: kiali\n    channels:\n    - name: alpha")
    with pytest.raises(InputError, match="a new default channel must be configured"):
        isc.select_package(upstream["kiali"], op)
