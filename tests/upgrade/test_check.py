"""Per-operator verdicts on small hand-built catalogs (expected values worked out by hand)."""

from __future__ import annotations

import json

from olmcat.model import (
    SCHEMA_BUNDLE,
    SCHEMA_CHANNEL,
    SCHEMA_PACKAGE,
    Deprecation,
    DeprecationEntry,
    PackageCatalog,
    RelatedImage,
)
from olmcat.model import property as prop
from olmcat.upgrade import Installed, check_operator
from olmcat.upgrade.maxocp import parse_target
from tests.support.diff_strategies import E, bundle, channel, package

A, B, C, D = (bundle(f"etcd.v{v}", v) for v in ("1.0.0", "1.5.0", "2.0.0", "2.1.0"))
# stable: A <- B <- C <- D (replaces); fast: A <- D (D skips A)
OLD = package(
    [
        channel("stable", E(A.name), E(B.name, A.name), E(C.name, B.name)),
        channel("beta", E(A.name), E(B.name, A.name)),
    ],
    [A, B, C],
)
NEW = package(
    [
        channel("stable", E(A.name), E(B.name, A.name), E(C.name, B.name), E(D.name, C.name)),
        channel("fast", E(B.name), E(D.name, B.name)),
    ],
    [A, B, C, D],
)


def installed(
    channel_name: str = "stable", bundle_name: str = A.name, version: str = "1.0.0", **kw: object
) -> Installed:
    return Installed(
        "list", "etcd", channel=channel_name, bundle=bundle_name, version=version, **kw
    )  # type: ignore[arg-type]


def test_ready_with_the_path_olm_v0_takes() -> None:
    verdict = check_operator(installed(), OLD, NEW)
    assert verdict.status == "ready" and not verdict.blocks
    assert verdict.path == [A.name, B.name, C.name, D.name] and verdict.head == D.name
    assert verdict.resolver == "OLM v0"


def test_package_removed_and_not_in_catalog() -> None:
    verdict = check_operator(installed(), OLD, None)
    assert verdict.status == "package-removed" and verdict.blocks and verdict.path is None
    verdict = check_operator(installed(source="other-catalog"), None, None)
    assert verdict.status == "not-in-catalog" and not verdict.blocks
    assert "Subscription source: other-catalog" in verdict.notes[0]


def test_removed_channel_maps_to_the_channel_holding_the_installed_bundle() -> None:
    # beta (A, B) is gone; fast holds B and shares it with beta, stable holds A and B too and is
    # the default channel -- stable wins: it holds the installed bundle A, fast does not
    verdict = check_operator(installed("beta"), OLD, NEW)
    assert verdict.status == "channel-removed" and verdict.blocks
    assert verdict.suggested_channel == "stable"
    assert any("after switching the Subscription to stable: " in n for n in verdict.notes)
    verdict = check_operator(installed("beta", B.name, "1.5.0"), OLD, NEW)
    assert verdict.suggested_channel == "stable"  # both hold B and share 1 entry: default wins


def test_no_path_when_nothing_upgrades_from_the_installed_bundle() -> None:
    # a version NEW never heard of, in no edge: stranded
    verdict = check_operator(installed("stable", "etcd.v0.5.0", "0.5.0"), OLD, NEW)
    assert verdict.status == "no-path" and verdict.blocks and verdict.path is None
    assert verdict.stops_at == "etcd.v0.5.0"
    assert not verdict.in_old and not verdict.in_new
    # ... unless a skipRange catches it
    caught = package([channel("stable", E(A.name), E(B.name, A.name, skip_range="<1.0.0"))], [A, B])
    verdict = check_operator(installed("stable", "etcd.v0.5.0", "0.5.0"), OLD, caught)
    assert verdict.status == "ready" and verdict.path == ["etcd.v0.5.0", B.name]


def test_semver_needs_a_manual_step_across_majors() -> None:
    verdict = check_operator(installed(), OLD, NEW, semantics="semver")
    assert verdict.status == "no-path" and verdict.head == D.name
    assert verdict.stops_at == B.name  # 1.0.0 -> 1.5.0 is within ^1.0.0; 2.x is not
    verdict = check_operator(installed("stable", C.name, "2.0.0"), OLD, NEW, semantics="semver")
    assert verdict.path == [C.name, D.name]


def test_deprecations_that_now_apply() -> None:
    deprecated = PackageCatalog(
        NEW.package,
        NEW.channels,
        NEW.bundles,
        (
            Deprecation(
                "etcd",
                (
                    DeprecationEntry(SCHEMA_PACKAGE, "", "use etcd-ng"),
                    DeprecationEntry(SCHEMA_CHANNEL, "stable", "stable is frozen"),
                    DeprecationEntry(SCHEMA_BUNDLE, A.name, "CVE-1"),
                    DeprecationEntry(SCHEMA_BUNDLE, D.name, "not this one"),
                ),
            ),
        ),
    )
    verdict = check_operator(installed(), OLD, deprecated)
    assert verdict.status == "deprecated" and not verdict.blocks
    assert [(d["kind"], d["name"], d["new"]) for d in verdict.deprecations] == [
        ("package", "etcd", "yes"),
        ("channel", "stable", "yes"),
        ("bundle", A.name, "yes"),
    ]
    # already deprecated in OLD: reported, but not as new
    verdict = check_operator(installed(), deprecated, deprecated)
    assert {d["new"] for d in verdict.deprecations} == {"no"}


def test_max_openshift_version_from_the_csv_then_the_catalog() -> None:
    capped = bundle(A.name, "1.0.0", prop.Property("olm.maxOpenShiftVersion", '"4.15"'))
    old = package([channel("stable", E(A.name))], [capped])
    target = parse_target("4.16")
    # no CSV: the catalog's bundle is read (and said so)
    verdict = check_operator(installed(), old, NEW, target_ocp=target)
    assert verdict.status == "blocked-max-ocp" and verdict.blocks
    assert verdict.max_ocp_source == "catalog" and "in the catalog" in verdict.notes[0]
    assert any("upgrading to NEW's head etcd.v2.1.0 (no maximum)" in n for n in verdict.notes)
    # the CSV wins: OpenShift reads the installed CSV's annotation
    annotation = json.dumps({"properties": [{"type": "olm.maxOpenShiftVersion", "value": "4.16"}]})
    verdict = check_operator(installed(properties=annotation), old, NEW, target_ocp=target)
    assert verdict.status == "ready" and verdict.max_ocp_source == "csv"
    # an invalid value blocks even without a target
    bad = json.dumps({"properties": [{"type": "olm.maxOpenShiftVersion", "value": "4.16.1"}]})
    verdict = check_operator(installed(properties=bad), old, NEW)
    assert verdict.status == "blocked-max-ocp"
    assert verdict.to_json()["maxOpenShiftVersion"] == {
        "value": '"4.16.1"',
        "valid": False,
        "source": "csv",
    }


def test_a_csv_without_the_properties_annotation_blocks_nothing() -> None:
    # OpenShift reads olm.maxOpenShiftVersion only from the installed CSV's
    # operatorframework.io/properties annotation (operator-lifecycle-manager
    # pkg/controller/operators/openshift/helpers.go maxOpenShiftVersion: no annotation, no
    # maximum); the catalog's bundle declaring one changes nothing on the cluster (issue 21)
    capped = bundle(A.name, "1.0.0", prop.Property("olm.maxOpenShiftVersion", '"4.15"'))
    old = package([channel("stable", E(A.name))], [capped])
    target = parse_target("4.16")
    verdict = check_operator(installed(has_csv=True), old, NEW, target_ocp=target)
    assert verdict.status == "ready" and not verdict.blocks
    assert verdict.max_ocp_source == "csv" and not verdict.max_ocp.declared
    assert verdict.to_json()["maxOpenShiftVersion"] is None
    assert [n for n in verdict.notes if "maxOpenShiftVersion" in n] == [
        f"bundle {A.name} in the catalog declares olm.maxOpenShiftVersion 4.15, but the "
        "installed CSV has no operatorframework.io/properties annotation: OpenShift reads the "
        "maximum only from there, so this cluster does not enforce it"
    ]
    assert not any("no CSV in the inventory" in n for n in verdict.notes)
    # an annotation that lists other properties only: the same
    others = json.dumps({"properties": [{"type": "olm.package", "value": {}}]})
    verdict = check_operator(
        installed(has_csv=True, properties=others), old, NEW, target_ocp=target
    )
    assert verdict.status == "ready"
    assert any(
        "does not list it in its operatorframework.io/properties" in n for n in verdict.notes
    )
    # an invalid maximum in the catalog is not enforced either
    bad = bundle(A.name, "1.0.0", prop.Property("olm.maxOpenShiftVersion", '"4.15.1"'))
    verdict = check_operator(
        installed(has_csv=True), package([channel("stable", E(A.name))], [bad]), NEW
    )
    assert verdict.status == "ready"


def test_moved_images_are_listed() -> None:
    moved_a = bundle(A.name, "1.0.0", image="registry.example.com/etcd/bundle:1.0.0")
    moved_a = type(moved_a)(
        moved_a.name,
        moved_a.package,
        moved_a.image,
        moved_a.properties,
        (RelatedImage("operator", "registry.example.com/etcd/operator:1.0.0"),),
    )
    old_a = type(A)(
        A.name,
        A.package,
        A.image,
        A.properties,
        (RelatedImage("operator", "quay.io/etcd/operator:1.0.0"),),
    )
    old = package([channel("stable", E(A.name))], [old_a])
    new = package([channel("stable", E(A.name))], [moved_a])
    verdict = check_operator(installed(), old, new)
    assert verdict.status == "ready"
    assert verdict.images_moved == [
        {
            "kind": "bundle",
            "name": "",
            "old": A.image,
            "new": "registry.example.com/etcd/bundle:1.0.0",
        },
        {
            "kind": "related",
            "name": "operator",
            "old": "quay.io/etcd/operator:1.0.0",
            "new": "registry.example.com/etcd/operator:1.0.0",
        },
    ]


def test_cluster_extension_range_and_self_certified() -> None:
    base = dict(bundle=A.name, version="1.0.0", name="etcd", namespace="etcd")
    # OLM v1: the highest successor in any listed channel (fast offers D straight from B)
    ext = Installed("ClusterExtension", "etcd", channels=("stable", "fast"), **base)  # type: ignore[arg-type]
    verdict = check_operator(ext, OLD, NEW)
    assert verdict.path == [A.name, B.name, D.name] and verdict.resolver == "OLM v1 catalog edges"
    # a version range caps the head
    capped = Installed(
        "ClusterExtension", "etcd", channels=("stable",), version_range="<2.0.0", **base
    )  # type: ignore[arg-type]
    verdict = check_operator(capped, OLD, NEW)
    assert verdict.head == B.name and verdict.path == [A.name, B.name]
    # SelfCertified: straight to the newest
    free = Installed("ClusterExtension", "etcd", channels=("stable",), self_certified=True, **base)  # type: ignore[arg-type]
    verdict = check_operator(free, OLD, NEW, semantics="semver")
    assert verdict.path == [A.name, D.name]
    # one of two channels gone: a note; all gone: channel-removed
    partly = Installed("ClusterExtension", "etcd", channels=("beta", "stable"), **base)  # type: ignore[arg-type]
    verdict = check_operator(partly, OLD, NEW)
    assert verdict.status == "ready" and any("beta" in n for n in verdict.notes)
    gone = Installed("ClusterExtension", "etcd", channels=("beta",), **base)  # type: ignore[arg-type]
    assert check_operator(gone, OLD, NEW).status == "channel-removed"


def test_json_record_shape() -> None:
    record = check_operator(installed(namespace="ops", name="etcd"), OLD, NEW).to_json()
    assert list(record) == [
        "namespace",
        "name",
        "kind",
        "package",
        "channel",
        "installed",
        "status",
        "conditions",
        "blocks",
        "path",
        "head",
        "headVersion",
        "stopsAt",
        "resolver",
        "suggestedChannel",
        "maxOpenShiftVersion",
        "deprecations",
        "imagesMoved",
        "notes",
    ]
    assert record["installed"] == {"name": A.name, "version": "1.0.0", "inOld": True, "inNew": True}
