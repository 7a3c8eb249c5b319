"""``olmcat diff`` and delta catalogs on the real corpus in ../shared/corpus.

The expected differences between the two index releases are derived from opm's own goldens
(``expected/index-upstream-old.json`` and ``expected/index-upstream.json``) by plain set
comparison of the parsed JSON, never from olmcat's output. Every test here skips with a reason
when ../shared is absent.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.diff.compare import CatalogDiff, diff_catalogs
from olmcat.diff.delta import delta_catalog
from olmcat.readers.catalog import open_catalog
from olmcat.readers.fbc import FbcCatalog
from tests.support.diffcheck import merge, mirror, problems, without_impact
from tests.support.paths import catalog_blobs, corpus_path

OLD_DB = "sqlite/index-upstream-old.db"
NEW_DB = "sqlite/index-upstream.db"
OLD_GOLDEN = "expected/index-upstream-old.json"
NEW_GOLDEN = "expected/index-upstream.json"

EVERY_CATALOG = [
    "sqlite/small.db",
    "sqlite/deprecated.db",
    "sqlite/deprecate-before.db",
    "sqlite/upstream-subset.db",
    OLD_DB,
    NEW_DB,
    "sqlite/index-upstream-synth.db",
    *(
        f"sqlite/schemas/{build}-small.db"
        for build in (
            "v1.0.1",
            "v1.1.1",
            "v1.4.0",
            "c218b1de-golangmigrate",
            "c161f66a-m1",
            "v1.5.0",
            "v1.5.1",
            "c0a888bc-m4",
            "v1.5.3",
            "v1.6.0",
            "c71151f3-m6",
            "v1.7.0",
            "v1.10.0",
            "v1.12.8",
            "v1.13.0",
            "v1.13.7",
            "v1.14.0",
            "v1.17.0",
            "v1.17.1",
            "v1.18.0",
        )
    ),
    "expected/small.json",
    "expected/deprecated.json",
    "expected/deprecate-before.json",
    "expected/upstream-subset.json",
    "expected/upstream-subset.yaml",
    OLD_GOLDEN,
    NEW_GOLDEN,
    "expected/index-upstream-synth.json",
    "expected/schemas/v1.18.0-small.json",
    "expected/alpha-diff/old.fbc",
    "expected/alpha-diff/new.fbc",
    "images/test-index-v1.oci.tar",
    "images/test-index-v0-old.oci.tar",
    "pkgman/upstream-subset",
    "bundles/upstream",
]

# The same catalog in two forms: a database, its opm golden, the image holding it, the manifests.
SAME_CATALOG = [
    (NEW_DB, NEW_GOLDEN),
    (OLD_DB, OLD_GOLDEN),
    ("images/test-index-v1.oci.tar", NEW_GOLDEN),
    ("images/test-index-v1.oci.tar", NEW_DB),
    ("images/test-index-v0-old.oci.tar", OLD_DB),
    ("sqlite/small.db", "expected/small.json"),
    ("sqlite/deprecated.db", "expected/deprecated.json"),
    ("sqlite/index-upstream-synth.db", "expected/index-upstream-synth.json"),
    ("sqlite/upstream-subset.db", "expected/upstream-subset.json"),
    ("sqlite/upstream-subset.db", "expected/upstream-subset.yaml"),
    ("pkgman/upstream-subset", "expected/upstream-subset.json"),
    ("sqlite/schemas/v1.18.0-small.db", "expected/schemas/v1.18.0-small.json"),
]


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def compare(old_ref: str, new_ref: str) -> CatalogDiff:
    with open_catalog(corpus_path(old_ref)) as old, open_catalog(corpus_path(new_ref)) as new:
        return diff_catalogs(old, new)


@pytest.mark.parametrize("reference", EVERY_CATALOG)
def test_diff_with_itself_is_empty_and_exits_0(reference: str) -> None:
    path = str(corpus_path(reference))
    code, out, err = invoke("diff", path, path)
    assert (code, out) == (0, "catalogs are identical\n"), err


@pytest.mark.parametrize(("first", "second"), SAME_CATALOG)
def test_same_catalog_in_different_forms_is_identical(first: str, second: str) -> None:
    result = compare(first, second)
    assert result.is_empty(), [p.name for p in result.packages]


# -- acceptance: index-upstream-old -> index-upstream, expected from opm's goldens ----------------


def golden(name: str) -> dict[str, dict[str, dict[str, Any]]]:
    """{package: {"package": blob, "channel/<name>": blob, "bundle/<name>": blob}}."""
    out: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for blob in catalog_blobs(corpus_path(name)):
        if blob["schema"] == "olm.package":
            out[blob["name"]]["package"] = blob
        elif blob["schema"] in ("olm.channel", "olm.bundle"):
            kind = blob["schema"].removeprefix("olm.")
            out[blob["package"]][f"{kind}/{blob['name']}"] = blob
    return out


def heads(channel_blob: dict[str, Any]) -> set[str]:
    entries = channel_blob["entries"]
    incoming = {e["replaces"] for e in entries if e.get("replaces")}
    incoming |= {s for e in entries for s in e.get("skips", [])}
    return {e["name"] for e in entries} - incoming


def as_sets(bundle_blob: dict[str, Any]) -> tuple[Any, ...]:
    """A bundle as opm wrote it, compared the way the issue asks: properties and images as sets."""
    props = {json.dumps(p, sort_keys=True) for p in bundle_blob.get("properties", [])}
    images = {json.dumps(i, sort_keys=True) for i in bundle_blob.get("relatedImages") or []}
    return bundle_blob["image"], frozenset(props), frozenset(images)


def names(blobs: dict[str, Any], kind: str) -> set[str]:
    return {key.split("/", 1)[1] for key in blobs if key.startswith(kind + "/")}


def test_index_release_diff_matches_the_goldens() -> None:
    old, new = golden(OLD_GOLDEN), golden(NEW_GOLDEN)
    result = compare(OLD_DB, NEW_DB)
    by_name = {p.name: p for p in result.packages}

    added_packages = set(new) - set(old)
    assert len(added_packages) == 9 and not set(old) - set(new)
    assert {n for n, p in by_name.items() if p.status == "added"} == added_packages
    for name in added_packages:
        pkg = by_name[name]
        assert {b.name for b in pkg.bundles} == names(new[name], "bundle")
        assert {c.name for c in pkg.channels} == names(new[name], "channel")

    common = set(old) & set(new)
    assert len(common) == 30
    assert {n for n, p in by_name.items() if p.status == "changed"} == common
    for name in sorted(common):
        before, after = old[name], new[name]
        pkg = by_name[name]
        # exactly one bundle added in each package
        added = names(after, "bundle") - names(before, "bundle")
        assert len(added) == 1 and not names(before, "bundle") - names(after, "bundle")
        assert [(b.name, b.status) for b in pkg.bundles if b.status != "changed"] == [
            (added.pop(), "added")
        ]
        (newest,) = names(after, "bundle") - names(before, "bundle")
        # channels: added ones, and head moves (always onto the new bundle)
        moved = {}
        for channel in names(after, "channel"):
            if channel not in names(before, "channel"):
                continue
            was, now = heads(before[f"channel/{channel}"]), heads(after[f"channel/{channel}"])
            if was != now:
                assert now == {newest}
                moved[channel] = (sorted(was), sorted(now))
        reported = {
            c.name: (list(c.heads.old), list(c.heads.new))
            for c in pkg.channels
            if c.status == "changed" and c.heads is not None
        }
        assert reported == moved, name
        assert {c.name for c in pkg.channels if c.status == "added"} == (
            names(after, "channel") - names(before, "channel")
        )
        assert all(c.status != "removed" and not c.entries_removed for c in pkg.channels)
        # the previous heads lost their olm.bundle.object properties; nothing else changed
        changed = {
            b
            for b in names(before, "bundle")
            if as_sets(before[f"bundle/{b}"]) != as_sets(after[f"bundle/{b}"])
        }
        assert {b.name for b in pkg.bundles if b.status == "changed"} == changed
        previous_heads = {h for was, _ in moved.values() for h in was}
        assert changed <= previous_heads
        for bundle in pkg.bundles:
            if bundle.status == "changed":
                assert bundle.objects and all(o.status == "removed" for o in bundle.objects)
                assert bundle.version is None and bundle.image is None
                assert bundle.properties == ()  # only manifests went away
                old_objects = [
                    p
                    for p in before[f"bundle/{bundle.name}"]["properties"]
                    if p["type"] == "olm.bundle.object"
                ]
                assert len(bundle.objects) == len(old_objects)
                assert not any(
                    p["type"] == "olm.bundle.object"
                    for p in after[f"bundle/{bundle.name}"]["properties"]
                )
        # package fields, compared on the goldens
        for key, field in (("defaultChannel", pkg.default_channel), ("icon", pkg.icon)):
            assert (field is not None) == (before["package"].get(key) != after["package"].get(key))
    assert result.stranded() == []
    summary = result.summary()
    assert summary["bundles"]["added"] == 39 and summary["bundles"]["removed"] == 0
    assert summary["packages"] == {"added": 9, "removed": 0, "changed": 30}


def test_index_release_cli_exit_status_and_json() -> None:
    code, out, _ = invoke(
        "diff", "--format", "json", str(corpus_path(OLD_DB)), str(corpus_path(NEW_DB))
    )
    assert code == 1
    document = json.loads(out)
    assert document["summary"]["packages"] == {"added": 9, "removed": 0, "changed": 30}
    assert "olm.bundle.object" not in out
    code, _, _ = invoke(
        "diff", "--fail-on", "stranded", str(corpus_path(OLD_DB)), str(corpus_path(NEW_DB))
    )
    assert code == 0


def test_index_release_mirror_and_reverse_impact() -> None:
    forward, backward = compare(OLD_DB, NEW_DB), compare(NEW_DB, OLD_DB)
    assert without_impact(backward.to_json()) == mirror(without_impact(forward.to_json()))
    # Going back, every install of a bundle the new release added is stranded, and so is every
    # install on a channel the new release added.
    added = {(p.name, b.name) for p in forward.packages for b in p.bundles if b.status == "added"}
    on_new_channels = {
        (p.name, c.name, e.name)
        for p in forward.packages
        if p.status == "changed"
        for c in p.channels
        if c.status == "added"
        for e in c.entries_added
    }
    assert on_new_channels
    stranded = backward.stranded()
    assert {(pkg, s.bundle) for pkg, s in stranded} == added | {
        (pkg, bundle) for pkg, _, bundle in on_new_channels
    }
    assert {
        (pkg, s.channel, s.bundle) for pkg, s in stranded if s.reason == "channel-removed"
    } == on_new_channels


def test_old_image_to_new_database_is_the_same_diff() -> None:
    a = compare("images/test-index-v0-old.oci.tar", NEW_GOLDEN)
    b = compare(OLD_DB, NEW_DB)
    assert a.to_json() == b.to_json()


def test_deprecatetruncate_is_reported() -> None:
    # deprecatetruncate of etcdoperator.v0.9.0: opm leaves deprecated bundles out, v0.6.1 was
    # truncated and channel beta deleted. Installs of v0.9.0 still upgrade (v0.9.2 replaces it).
    result = compare("sqlite/deprecate-before.db", "sqlite/deprecated.db")
    (pkg,) = result.packages
    assert [(c.name, c.status) for c in pkg.channels] == [
        ("alpha", "changed"),
        ("beta", "removed"),
        ("stable", "changed"),
    ]
    assert [(b.name, b.status) for b in pkg.bundles] == [
        ("etcdoperator.v0.6.1", "removed"),
        ("etcdoperator.v0.9.0", "removed"),
    ]
    assert sorted((s.channel, s.bundle, s.reason) for _, s in result.stranded()) == [
        ("alpha", "etcdoperator.v0.6.1", "no-path"),
        ("beta", "etcdoperator.v0.6.1", "channel-removed"),
        ("beta", "etcdoperator.v0.9.0", "channel-removed"),
        ("stable", "etcdoperator.v0.6.1", "no-path"),
    ]
    assert [(d.channel, d.entry, d.replaces) for d in pkg.impact.dangling_replaces] == [
        ("alpha", "etcdoperator.v0.9.2", "etcdoperator.v0.9.0"),
        ("stable", "etcdoperator.v0.9.2", "etcdoperator.v0.9.0"),
    ]


# -- delta catalogs -------------------------------------------------------------------------------


def test_index_release_delta_is_valid_and_merges_back(tmp_path: Path) -> None:
    out = tmp_path / "delta"
    code, _, err = invoke(
        "diff",
        "--summary",
        "--emit-delta",
        str(out),
        str(corpus_path(OLD_DB)),
        str(corpus_path(NEW_DB)),
    )
    assert code == 1, err
    with FbcCatalog(out) as delta_reader:
        delta = list(delta_reader)
    assert problems(delta) == []
    assert len(delta) == 39
    with FbcCatalog(corpus_path(OLD_GOLDEN)) as old_reader:
        old = list(old_reader)
    with FbcCatalog(corpus_path(NEW_GOLDEN)) as new_reader:
        new = list(new_reader)
    merged = merge(old, delta)
    assert set(merged) == {p.name for p in new}
    for pkg in new:
        back = merged[pkg.name]
        assert {c.name: c.heads() for c in back.channels} == {
            c.name: c.heads() for c in pkg.channels
        }
        assert {c.name: set(c.entries) for c in back.channels} == {
            c.name: set(c.entries) for c in pkg.channels
        }
        assert back.package == pkg.package


def canonical(blobs: list[dict[str, Any]]) -> list[str]:
    """Blobs as sorted JSON texts; property order aside (opm v1.24's ``alpha diff`` re-sorted
    properties, the delta keeps the new catalog's blob as it is)."""
    out = []
    for blob in blobs:
        if "properties" in blob:
            key = lambda p: json.dumps(p, sort_keys=True)  # noqa: E731
            blob = {**blob, "properties": sorted(blob["properties"], key=key)}
        out.append(json.dumps(blob, sort_keys=True))
    return sorted(out)


def test_delta_matches_opm_alpha_diff_where_opm_is_right() -> None:
    """opm v1.24 ``alpha diff old new``: here (a new head, nothing else) opm's output is valid."""
    reference = corpus_path("expected/alpha-diff/small-minus-prometheus-0.22.2.to.small.yaml")
    expected = [d for d in yaml.safe_load_all(reference.read_text()) if d]
    old_ref, new_ref = "expected/alpha-diff/old.fbc", "expected/alpha-diff/new.fbc"
    with open_catalog(corpus_path(old_ref)) as old, open_catalog(corpus_path(new_ref)) as new:
        from olmcat.writers.fbc import blobs

        ours = [json.loads(text) for pkg in delta_catalog(old, new) for text in blobs(pkg)]
    assert canonical(ours) == canonical(expected)


def test_delta_on_every_pair_of_index_releases() -> None:
    # Forward and backward: the backward delta has nothing to add but must still be valid.
    for first, second in (
        (OLD_DB, NEW_DB),
        (NEW_DB, OLD_DB),
        (NEW_DB, "sqlite/index-upstream-synth.db"),
    ):
        with open_catalog(corpus_path(first)) as old, open_catalog(corpus_path(second)) as new:
            assert problems(list(delta_catalog(old, new))) == [], (first, second)
