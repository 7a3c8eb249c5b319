"""olmcat.diff.compare on catalogs built in code: structure, impact, JSON shape, properties."""

from __future__ import annotations

import base64
import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from olmcat.diff.compare import (
    JSON_SCHEMA,
    CatalogDiff,
    StrandedInstall,
    diff_catalogs,
    diff_package,
    paired,
    reaching_head,
)
from olmcat.errors import InputError
from olmcat.go.semver import parse_version
from olmcat.model import (
    Deprecation,
    DeprecationEntry,
    Icon,
    Meta,
    PackageCatalog,
    RelatedImage,
)
from olmcat.model import property as prop
from tests.support.catalog_strategies import package_catalogs
from tests.support.diff_strategies import (
    LINEAR,
    PKG,
    A,
    B,
    C,
    D,
    E,
    any_pairs,
    bundle,
    channel,
    graph_catalogs,
    manifest,
    package,
)
from tests.support.diffcheck import mirror, without_impact


def one(old: PackageCatalog | None, new: PackageCatalog | None) -> CatalogDiff:
    return diff_catalogs([old] if old else [], [new] if new else [])


# -- structure ------------------------------------------------------------------------------------


def test_identical_is_empty() -> None:
    result = one(LINEAR, LINEAR)
    assert result.is_empty()
    assert result.to_json()["identical"] is True
    assert result.to_json()["packages"] == []


def test_order_and_duplicates_do_not_count() -> None:
    shuffled = replace(
        LINEAR,
        bundles=tuple(
            replace(b, properties=(*reversed(b.properties), *b.properties)) for b in LINEAR.bundles
        ),
    )
    assert one(LINEAR, shuffled).is_empty()


def test_new_head() -> None:
    new = package(
        [channel("stable", E(A.name), E(B.name, A.name), E(C.name, B.name), E(D.name, C.name))],
        [A, B, C, D],
    )
    result = one(LINEAR, new)
    (pkg,) = result.packages
    assert pkg.status == "changed"
    (ch,) = pkg.channels
    assert ch.heads is not None and (ch.heads.old, ch.heads.new) == ((C.name,), (D.name,))
    assert [e.name for e in ch.entries_added] == [D.name]
    assert ch.entries_added[0].replaces == C.name
    assert [(b.name, b.status) for b in pkg.bundles] == [(D.name, "added")]
    assert pkg.bundles[0].version is not None and pkg.bundles[0].version.new == "3.0.0"
    assert pkg.impact.is_empty()
    summary = result.summary()
    assert summary["bundles"] == {"added": 1, "removed": 0, "changed": 0}
    assert summary["entries"] == {"added": 1, "removed": 0}


def test_edges_changed() -> None:
    new = package(
        [
            channel(
                "stable",
                E(A.name),
                E(B.name, A.name, skips=("etcd.v0.9.0",)),
                E(C.name, A.name, skip_range=">=1.0.0 <2.0.0"),
            )
        ],
        [A, B, C],
    )
    (ch,) = one(LINEAR, new).packages[0].channels
    edges = [(e.entry, e.kind, e.old, e.new, e.status) for e in ch.edges]
    assert edges == [
        (B.name, "skips", None, "etcd.v0.9.0", "added"),
        (C.name, "replaces", B.name, A.name, "changed"),
        (C.name, "skipRange", None, ">=1.0.0 <2.0.0", "added"),
    ]
    assert ch.heads is not None and ch.heads.new == (B.name, C.name)


def test_bundle_details() -> None:
    crd = manifest("CustomResourceDefinition", "things.example.com")
    csv_old = manifest("ClusterServiceVersion", B.name, 1)
    csv_new = manifest("ClusterServiceVersion", B.name, 2)
    old_b = replace(
        B,
        properties=(*B.properties, prop.gvk("g", "v1", "K"), crd, csv_old),
        related_images=(RelatedImage("op", "quay.io/op:1"),),
    )
    new_b = replace(
        B,
        image="quay.io/moved/b",
        properties=(*B.properties, prop.gvk("g", "v2", "K"), csv_new),
        related_images=(RelatedImage("op", "quay.io/op:2"),),
    )
    old = replace(LINEAR, bundles=(A, old_b, C))
    new = replace(LINEAR, bundles=(A, new_b, C))
    (bd,) = one(old, new).packages[0].bundles
    assert bd.status == "changed"
    assert bd.image is not None and (bd.image.old, bd.image.new) == (B.image, "quay.io/moved/b")
    assert bd.version is None
    assert [(p.type, p.added, p.removed) for p in bd.properties] == [
        (
            "olm.gvk",
            ('{"group":"g","kind":"K","version":"v2"}',),
            ('{"group":"g","kind":"K","version":"v1"}',),
        )
    ]
    assert [(o.kind, o.name, o.status) for o in bd.objects] == [
        ("ClusterServiceVersion", B.name, "changed"),
        ("CustomResourceDefinition", "things.example.com", "removed"),
    ]
    assert bd.related_images_added == (RelatedImage("op", "quay.io/op:2"),)
    assert bd.related_images_removed == (RelatedImage("op", "quay.io/op:1"),)
    # base64 never reaches the output
    text = json.dumps(one(old, new).to_json())
    assert base64.b64encode(b'{"kind"').decode()[:8] not in text
    assert "olm.bundle.object" not in text


def test_package_fields_deprecations_and_others() -> None:
    old = replace(
        LINEAR,
        package=replace(LINEAR.package, icon=Icon("aGVsbG8=", "image/png"), description="one"),
        deprecations=(Deprecation(PKG, (DeprecationEntry("olm.bundle", A.name, "old"),)),),
        others=(Meta("x.custom", PKG, "m", '{"schema":"x.custom","package":"etcd","name":"m"}'),),
    )
    new = replace(
        LINEAR,
        package=replace(
            LINEAR.package,
            default_channel="fast",
            icon=Icon("d29ybGQ=", "image/png"),
            description="two",
        ),
        channels=(*LINEAR.channels, channel("fast", E(C.name))),
        deprecations=(
            Deprecation(
                PKG,
                (
                    DeprecationEntry("olm.bundle", A.name, "older"),
                    DeprecationEntry("olm.package", "", "gone soon"),
                ),
            ),
        ),
    )
    (pkg,) = one(old, new).packages
    assert pkg.default_channel is not None and pkg.default_channel.new == "fast"
    assert pkg.icon is not None and pkg.icon.old != pkg.icon.new
    assert pkg.icon.new is not None and pkg.icon.new.startswith("image/png sha256:")
    assert pkg.description is not None and (pkg.description.old, pkg.description.new) == (
        "one",
        "two",
    )
    assert [(c.name, c.status) for c in pkg.channels] == [("fast", "added")]
    assert [(d.schema, d.name, d.status) for d in pkg.deprecations] == [
        ("olm.bundle", A.name, "changed"),
        ("olm.package", "", "added"),
    ]
    assert [(o.schema, o.name, o.status) for o in pkg.others] == [("x.custom", "m", "removed")]


def test_added_and_removed_packages() -> None:
    other = replace(LINEAR, package=replace(LINEAR.package, name="zeta"))
    result = diff_catalogs([LINEAR], [other])
    assert [(p.name, p.status) for p in result.packages] == [("etcd", "removed"), ("zeta", "added")]
    removed, added = result.packages
    assert [b.status for b in removed.bundles] == ["removed"] * 3
    assert removed.channels[0].heads is not None and removed.channels[0].heads.old == (C.name,)
    assert added.channels[0].entries_added and not added.channels[0].entries_removed
    assert added.default_channel is not None and added.default_channel.old is None
    # every old install of a removed package is stranded
    assert [(s.bundle, s.reason) for s in removed.impact.stranded] == [
        (A.name, "package-removed"),
        (B.name, "package-removed"),
        (C.name, "package-removed"),
    ]


def test_packages_filter() -> None:
    other = replace(LINEAR, package=replace(LINEAR.package, name="zeta"))
    result = diff_catalogs([LINEAR], [other], packages={"zeta"})
    assert [p.name for p in result.packages] == ["zeta"]


def test_unsorted_stream_is_refused() -> None:
    zeta = replace(LINEAR, package=replace(LINEAR.package, name="zeta"))
    with pytest.raises(InputError, match="sorted by name"):
        diff_catalogs([zeta, LINEAR], [])
    with pytest.raises(InputError, match="twice"):
        list(paired([], [LINEAR, LINEAR]))


# -- upgrade impact -------------------------------------------------------------------------------


def stranded(result: CatalogDiff) -> list[tuple[str, str, str]]:
    return [(s.channel, s.bundle, s.reason) for _, s in result.stranded()]


def test_removed_middle_bundle_strands_the_tail() -> None:
    new = package([channel("stable", E(A.name), E(C.name, B.name))], [A, C])
    impact = one(LINEAR, new).packages[0].impact
    assert stranded(one(LINEAR, new)) == [("stable", A.name, "no-path")]
    assert impact.stranded[0] == StrandedInstall("stable", A.name, "1.0.0", "no-path")
    assert [(d.channel, d.entry, d.replaces) for d in impact.dangling_replaces] == [
        ("stable", C.name, B.name)
    ]
    assert [(m.channel, m.heads) for m in impact.multiple_heads] == [("stable", (A.name, C.name))]


def test_removed_middle_bundle_bridged_by_skips_is_fine() -> None:
    new = package([channel("stable", E(A.name), E(C.name, A.name, skips=(B.name,)))], [A, C])
    result = one(LINEAR, new)
    assert not result.is_empty()
    assert stranded(result) == []
    assert result.packages[0].impact.is_empty()


def test_skip_range_that_stops_covering_an_old_version() -> None:
    old = package(
        [
            channel(
                "stable",
                E(A.name),
                E(B.name, A.name),
                E(C.name, B.name, skip_range=">=1.0.0 <2.0.0"),
            )
        ],
        [A, B, C],
    )
    # Truncated to the head: the skipRange still reaches every old version...
    kept = package([channel("stable", E(C.name, B.name, skip_range=">=1.0.0 <2.0.0"))], [C])
    assert stranded(one(old, kept)) == []
    # ...until it is narrowed: 1.0.0 is no longer covered and nothing else replaces it.
    narrowed = package([channel("stable", E(C.name, B.name, skip_range=">=1.5.0 <2.0.0"))], [C])
    assert stranded(one(old, narrowed)) == [("stable", A.name, "no-path")]


def test_skip_range_uses_bundle_versions_not_names() -> None:
    # The name says 9.9.9 but the olm.package version is 1.0.0: the range is matched on 1.0.0.
    odd = bundle("etcd.v9.9.9", "1.0.0")
    old = package([channel("stable", E(odd.name), E(C.name, odd.name))], [odd, C])
    new = package([channel("stable", E(C.name, skip_range="<2.0.0"))], [C])
    assert stranded(one(old, new)) == []
    new_strict = package([channel("stable", E(C.name, skip_range="<1.0.0"))], [C])
    assert stranded(one(old, new_strict)) == [("stable", odd.name, "no-path")]


def test_replaces_target_renamed() -> None:
    renamed = bundle("etcd.v1.5.0-renamed", "1.5.0")
    new = package(
        [channel("stable", E(A.name), E(renamed.name, A.name), E(C.name, renamed.name))],
        [A, renamed, C],
    )
    result = one(LINEAR, new)
    assert stranded(result) == [("stable", B.name, "no-path")]
    (ch,) = result.packages[0].channels
    assert [(e.entry, e.kind, e.old, e.new) for e in ch.edges] == [
        (C.name, "replaces", B.name, renamed.name)
    ]
    assert result.packages[0].impact.dangling_replaces == ()  # C's new target exists


def test_cycle_is_reported_and_strands() -> None:
    new = package(
        [channel("stable", E(A.name, C.name), E(B.name, A.name), E(C.name, B.name))], [A, B, C]
    )
    impact = one(LINEAR, new).packages[0].impact
    assert [(c.channel, c.bundles) for c in impact.cycles] == [("stable", (A.name, B.name, C.name))]
    assert {s.bundle for s in impact.stranded} == {A.name, B.name, C.name}


def test_self_loop_is_a_cycle() -> None:
    new = package(
        [channel("stable", E(A.name), E(B.name, A.name), E(C.name, B.name, skips=(C.name,)))],
        [A, B, C],
    )
    impact = one(LINEAR, new).packages[0].impact
    assert [c.bundles for c in impact.cycles] == [(C.name,)]


def test_channel_removed_strands_its_installs() -> None:
    old = package([LINEAR.channels[0], channel("fast", E(B.name), E(C.name, B.name))], [A, B, C])
    result = one(old, LINEAR)
    assert stranded(result) == [
        ("fast", B.name, "channel-removed"),
        ("fast", C.name, "channel-removed"),
    ]


def test_already_stranded_installs_are_not_reported_again() -> None:
    # In old, A is already off the graph (a second head); it cannot *lose* a path it never had.
    old = package([channel("stable", E(A.name), E(B.name), E(C.name, B.name))], [A, B, C])
    new = package(
        [channel("stable", E(A.name), E(B.name), E(C.name, B.name), E(D.name, C.name))],
        [A, B, C, D],
    )
    result = one(old, new)
    assert stranded(result) == []
    assert result.packages[0].impact.multiple_heads == ()  # still two heads, not more


def test_reaching_head_follows_skip_range_through_gone_bundles() -> None:
    ch = channel("stable", E(C.name, skip_range=">=1.0.0 <2.0.0"), E(D.name, C.name))
    versions = {A.name: parse_version("1.0.0"), "etcd.v5": parse_version("5.0.0")}
    assert reaching_head(ch, versions) == {A.name, C.name, D.name}


def test_invalid_skip_range_covers_nothing() -> None:
    new = package([channel("stable", E(C.name, skip_range="not a range"))], [C])
    old = package([channel("stable", E(A.name), E(C.name, A.name))], [A, C])
    assert stranded(one(old, new)) == [("stable", A.name, "no-path")]


# -- JSON shape -----------------------------------------------------------------------------------

CHANGE = {"old": (str, type(None)), "new": (str, type(None))}
STATUS = {"added", "removed", "changed"}


def check(value: Any, shape: Any, where: str = "$") -> None:
    """A tiny structural schema: dict = exact keys, [x] = list of x, tuple = one of types."""
    if isinstance(shape, dict):
        assert isinstance(value, dict), where
        assert list(value) == list(shape), f"{where}: keys {list(value)} != {list(shape)}"
        for key, sub in shape.items():
            check(value[key], sub, f"{where}.{key}")
    elif isinstance(shape, list):
        assert isinstance(value, list), where
        for index, item in enumerate(value):
            check(item, shape[0], f"{where}[{index}]")
    elif isinstance(shape, set):
        assert value in shape, f"{where}: {value!r} not in {shape}"
    elif shape == "nullable-change":
        assert value is None or (isinstance(value, dict) and list(value) == ["old", "new"]), where
        if value is not None:
            check(value, CHANGE, where)
    elif shape == "any":
        pass
    else:
        assert isinstance(value, shape), f"{where}: {value!r} is not {shape}"


COUNTS = {"added": int, "removed": int, "changed": int}
PROPERTY = {"type": str, "added": ["any"], "removed": ["any"]}
ENTRY = {"name": str, "replaces": (str, type(None)), "skips": [str], "skipRange": (str, type(None))}
IMAGE = {"name": str, "image": str}
SHAPE = {
    "schema": {JSON_SCHEMA},
    "identical": bool,
    "summary": {
        "packages": COUNTS,
        "channels": COUNTS,
        "entries": {"added": int, "removed": int},
        "bundles": COUNTS,
        "deprecations": COUNTS,
        "impact": {"stranded": int, "multipleHeads": int, "cycles": int, "danglingReplaces": int},
    },
    "packages": [
        {
            "name": str,
            "status": STATUS,
            "defaultChannel": "nullable-change",
            "icon": "nullable-change",
            "description": "nullable-change",
            "properties": [PROPERTY],
            "channels": [
                {
                    "name": str,
                    "status": STATUS,
                    "heads": (dict, type(None)),
                    "entries": {"added": [ENTRY], "removed": [ENTRY]},
                    "edges": [
                        {
                            "entry": str,
                            "kind": {"replaces", "skips", "skipRange"},
                            "old": (str, type(None)),
                            "new": (str, type(None)),
                        }
                    ],
                    "properties": [PROPERTY],
                }
            ],
            "bundles": [
                {
                    "name": str,
                    "status": STATUS,
                    "version": "nullable-change",
                    "image": "nullable-change",
                    "properties": [PROPERTY],
                    "relatedImages": {"added": [IMAGE], "removed": [IMAGE]},
                    "objects": [{"kind": str, "name": str, "status": STATUS}],
                }
            ],
            "deprecations": [
                {
                    "schema": {"olm.package", "olm.channel", "olm.bundle"},
                    "name": str,
                    "status": STATUS,
                    "message": CHANGE,
                }
            ],
            "others": [{"schema": str, "name": str, "status": STATUS}],
            "impact": {
                "stranded": [
                    {
                        "channel": str,
                        "bundle": str,
                        "version": str,
                        "reason": {"no-path", "channel-removed", "package-removed"},
                    }
                ],
                "multipleHeads": [{"channel": str, "heads": [str]}],
                "cycles": [{"channel": str, "bundles": [str]}],
                "danglingReplaces": [{"channel": str, "entry": str, "replaces": str}],
            },
        }
    ],
}


def test_json_shape_of_a_rich_diff() -> None:
    new = package(
        [
            channel("stable", E(A.name), E(C.name, B.name, skips=("x",), skip_range="<1.0.0")),
            channel("fast", E(C.name)),
        ],
        [A, replace(C, image="moved"), D],
        icon=Icon("aGVsbG8=", "image/png"),
    )
    document = one(LINEAR, new).to_json()
    check(document, SHAPE)
    assert json.loads(json.dumps(document)) == document
    pkg = document["packages"][0]
    assert pkg["impact"]["stranded"] and pkg["impact"]["danglingReplaces"]
    assert pkg["channels"][1]["heads"] == {"old": [C.name], "new": [A.name, C.name]}
    assert pkg["bundles"][1]["image"] == {"old": C.image, "new": "moved"}
    assert pkg["icon"]["old"] is None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_pairs())
def test_json_shape_on_generated_pairs(
    pair: tuple[list[PackageCatalog], list[PackageCatalog]],
) -> None:
    old, new = pair
    check(diff_catalogs(old, new).to_json(), SHAPE)


# -- properties -----------------------------------------------------------------------------------


def assert_mirrored(a: list[PackageCatalog], b: list[PackageCatalog]) -> None:
    forward = diff_catalogs(a, b)
    backward = diff_catalogs(b, a)
    assert forward.is_empty() == backward.is_empty()
    assert without_impact(backward.to_json()) == mirror(without_impact(forward.to_json()))


# tests.support.catalog_strategies.package_catalogs is slow to draw, so these use fewer examples.
unique_catalogs = st.lists(package_catalogs(), max_size=4, unique_by=lambda p: p.name).map(
    lambda pkgs: sorted(pkgs, key=lambda p: p.name)
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(unique_catalogs)
def test_diff_with_itself_is_empty(catalog: list[PackageCatalog]) -> None:
    assert diff_catalogs(catalog, catalog).is_empty()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(unique_catalogs, unique_catalogs)
def test_mirror_on_arbitrary_catalogs(a: list[PackageCatalog], b: list[PackageCatalog]) -> None:
    assert_mirrored(a, b)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mirror_on_mutated_arbitrary_package(data: st.DataObject) -> None:
    # Same package name on both sides, so the "changed" paths are exercised, not only add/remove.
    a = data.draw(package_catalogs())
    b = data.draw(package_catalogs())
    b = replace(b, package=replace(b.package, name=a.name))
    assert_mirrored([a], [b])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_pairs())
def test_mirror_on_release_pairs(pair: tuple[list[PackageCatalog], list[PackageCatalog]]) -> None:
    assert_mirrored(*pair)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph_catalogs())
def test_generated_graphs_diff_empty_with_themselves(catalog: list[PackageCatalog]) -> None:
    result = diff_catalogs(catalog, catalog)
    assert result.is_empty() and result.stranded() == []


def test_mirror_helper_swaps() -> None:
    assert mirror({"status": "added", "old": None, "new": "x", "added": [1], "removed": []}) == {
        "status": "removed",
        "old": "x",
        "new": None,
        "added": [],
        "removed": [1],
    }


def test_semver_semantics_strand_installs_a_major_release_leaves_behind() -> None:
    # 1.0.0 <- 1.5.0 (head); NEW adds 2.0.0 replacing 1.5.0. Along replaces everything still
    # reaches the head; under OLM v1's semver mode 2.0.0 is out of ^1.x reach.
    old = package([channel("stable", E(A.name), E(B.name, A.name))], [A, B])
    new = package([channel("stable", E(A.name), E(B.name, A.name), E(C.name, B.name))], [A, B, C])
    legacy = diff_package(old, new)
    assert legacy is not None and legacy.impact.stranded == ()
    semver_diff = diff_package(old, new, semantics="semver")
    assert semver_diff is not None
    assert [(s.bundle, s.reason) for s in semver_diff.impact.stranded] == [
        (A.name, "no-path"),
        (B.name, "no-path"),
    ]
    # a minor release within the major strands nobody under either semantics
    minor = package([channel("stable", E(A.name), E(B.name, A.name))], [A, B])
    result = diff_package(package([channel("stable", E(A.name))], [A]), minor, semantics="semver")
    assert result is not None and result.impact.stranded == ()
