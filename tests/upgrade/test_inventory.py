"""Reading inventories: `oc get ... -o yaml` Lists, ClusterExtensions, CSV and YAML rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from olmcat.errors import InputError
from olmcat.notices import NoticeLog
from olmcat.upgrade import load_inventory, parse_inventory
from tests.support.paths import FIXTURES


def test_the_oc_get_fixture_yields_one_record_per_subscription() -> None:
    log = NoticeLog()
    items = load_inventory(FIXTURES / "inventory-oc-get.yaml", notify=log)
    subscriptions = [i for i in items if i.origin == "Subscription"]
    assert len(subscriptions) == 8 and len(items) == 8  # packageserver has no maximum: not listed
    by_package = {i.package: i for i in items}
    kiali = by_package["kiali"]
    assert (kiali.namespace, kiali.name, kiali.channel) == (
        "openshift-operators",
        "kiali",
        "stable",
    )
    assert (kiali.bundle, kiali.version) == ("kiali-operator.v1.35.0", "1.35.0")
    assert kiali.source == "community-operators"
    keycloak = by_package["keycloak-operator"]
    assert (
        keycloak.properties is not None
        and '"olm.maxOpenShiftVersion","value":"4.8"' in keycloak.properties
    )
    # a Subscription without a channel follows the default channel: left empty here
    assert by_package["mongodb-atlas-kubernetes"].channel == ""
    # manual approval: OLM resolved a newer CSV that is not installed yet
    assert by_package["couchdb-operator"].pending == "couchdb-operator.v1.4.3"
    codes = [n.code for n in log.notices]
    # 4 copies of the AllNamespaces operators' CSVs are skipped, as OLM skips them; the
    # packageserver CSV has no Subscription
    copied = [n for n in log.notices if n.code == "inventory.copied-csv"]
    assert len(copied) == 1 and copied[0].message.endswith(
        "4 copied ClusterServiceVersions (the same operator seen from other namespaces) skipped, "
        "as OLM skips them"
    )
    assert "inventory.csv-unmanaged" in codes


def _csv(name: str, namespace: str, **extra: object) -> dict[str, object]:
    metadata: dict[str, object] = {"name": name, "namespace": namespace}
    metadata.update(extra.pop("metadata", {}))  # type: ignore[arg-type]
    return {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": metadata,
        "spec": {"version": "1.0.0"},
        **extra,
    }


def test_copied_csvs_are_recognised_three_ways_and_unmanaged_blockers_are_kept() -> None:
    props = json.dumps(
        {
            "properties": [
                {"type": "olm.maxOpenShiftVersion", "value": "4.12"},
                {"type": "olm.package", "value": {"packageName": "p", "version": "1.0.0"}},
            ]
        }
    )
    annotations = {"operatorframework.io/properties": props}
    items = [
        _csv("p.v1", "ns1", metadata={"annotations": annotations}),
        _csv(
            "p.v1",
            "ns2",
            metadata={"labels": {"olm.copiedFrom": "ns1"}, "annotations": annotations},
        ),
        _csv(
            "p.v1", "ns3", metadata={"annotations": {**annotations, "olm.operatorNamespace": "ns1"}}
        ),
        _csv("p.v1", "ns4", metadata={"annotations": annotations}, status={"reason": "Copied"}),
    ]
    log = NoticeLog()
    found = parse_inventory(json.dumps({"kind": "List", "items": items}), "x.yaml", notify=log)
    assert [(i.origin, i.namespace, i.package) for i in found] == [
        ("ClusterServiceVersion", "ns1", "p")
    ]
    assert any("3 copied" in n.message for n in log.notices)


def test_cluster_extensions() -> None:
    items = load_inventory(FIXTURES / "inventory-clusterextensions.yaml")
    assert [(i.name, i.package, i.channels, i.version_range, i.self_certified) for i in items] == [
        ("kiali", "kiali", ("stable",), "", False),
        ("hpe-csi", "hpe-csi-operator", (), ">=1.0.0 <2.0.0", False),
        ("keycloak", "keycloak-operator", ("alpha",), "", True),
    ]
    assert items[0].bundle == "kiali-operator.v1.33.0" and items[0].version == "1.33.0"
    assert items[0].namespace == "istio-system" and all(i.olm_v1 for i in items)


def test_simple_csv_with_and_without_header() -> None:
    items = load_inventory(FIXTURES / "inventory-simple.csv")
    assert [(i.package, i.channel, i.version, i.namespace, i.bundle) for i in items][:2] == [
        ("kiali", "alpha", "1.34.0", "istio-system", "kiali-operator.v1.34.0"),
        ("keycloak-operator", "alpha", "13.0.0", "keycloak", ""),
    ]
    bare = parse_inventory("etcd, alpha, 0.9.0\nprometheus,preview,0.14.0\n")
    assert [(i.package, i.channel, i.version) for i in bare] == [
        ("etcd", "alpha", "0.9.0"),
        ("prometheus", "preview", "0.14.0"),
    ]
    with pytest.raises(InputError, match="unknown column color"):
        parse_inventory("package,channel,version,color\netcd,alpha,1.0.0,red\n", "bad.csv")


def test_simple_yaml_rows() -> None:
    text = (
        "- {package: etcd, channel: alpha, version: 0.9.0}\n- package: kiali\n  version: 1.35.0\n"
    )
    items = parse_inventory(text)
    assert [(i.package, i.channel, i.version) for i in items] == [
        ("etcd", "alpha", "0.9.0"),
        ("kiali", "", "1.35.0"),
    ]
    wrapped = parse_inventory("operators:\n- {package: etcd, channel: alpha, version: 0.9.0}\n")
    assert wrapped[0].package == "etcd"


def test_other_objects_are_reported_not_dropped_silently() -> None:
    log = NoticeLog()
    text = (
        "kind: List\nitems:\n- {kind: ConfigMap, metadata: {name: x}}\n"
        "- {kind: Subscription, metadata: {name: s, namespace: n},\n"
        "   spec: {name: etcd, channel: a}}\n"
    )
    items = parse_inventory(text, "inv.yaml", notify=log)
    assert len(items) == 1
    messages = [n.message for n in log.notices]
    assert any("kind ConfigMap is not part of an inventory" in m for m in messages)
    assert any("reports no installedCSV" in m for m in messages)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no installed operator found"),
        ("kind: List\nitems: []\n", "no installed operator found"),
        ("key: [unclosed\n", "neither YAML nor CSV"),
    ],
)
def test_unusable_inventories(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_inventory(text, "inv.yaml")


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read the inventory"):
        load_inventory(tmp_path / "absent.yaml")
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(InputError, match="not UTF-8"):
        load_inventory(binary)


def test_a_subscription_whose_csv_has_no_properties_annotation_has_a_csv() -> None:
    subscription = {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "Subscription",
        "metadata": {"name": "etcd", "namespace": "ops"},
        "spec": {"name": "etcd", "channel": "stable"},
        "status": {"installedCSV": "etcd.v1.0.0"},
    }
    text = json.dumps({"kind": "List", "items": [subscription, _csv("etcd.v1.0.0", "ops")]})
    log = NoticeLog()
    (item,) = parse_inventory(text, notify=log)
    assert item.has_csv and item.properties is None and item.version == "1.0.0"
    assert "inventory.csv-missing" not in log.codes()
    # without its CSV the inventory says so, and the catalog stands in
    text = json.dumps({"kind": "List", "items": [subscription]})
    (item,) = parse_inventory(text, notify=log)
    assert not item.has_csv and "inventory.csv-missing" in log.codes()
