"""The update-mode algorithms on their own: bundles in, channels out (no files).

Expected graphs follow opm's code (pkg/registry, pkg/sqlite at v1.72); the cases an ascending
build can reach were also built with the oracle (``bundle-index index --mode``), and
tests/differential/test_bundles_index.py checks the same code on generated trees. The round trip
is checked against opm's own migration of the whole corpus index.
"""

from __future__ import annotations

import pytest

from olmcat.readers.fbc import FbcCatalog
from olmcat.readers.update_modes import (
    AddRefused,
    IndexBundle,
    PackageIndex,
    add_order,
    build_package,
)
from tests.support.paths import corpus_path


def bundle(name: str, version: str, channels: str = "stable", **kwargs: str) -> IndexBundle:
    defaults = {"default_channel": "stable"}
    defaults.update(kwargs)
    return IndexBundle(
        name=name,
        package="demo",
        version=version,
        path=f"img/{name}",
        channels=tuple(channels.split(",")) if channels else (),
        where=f"/t/demo/{version}",
        **defaults,  # type: ignore[arg-type]
    )


def entries(index: PackageIndex, channel: str) -> list[tuple[str, str, tuple[str, ...]]]:
    (found,) = [c for c in index.channels() if c.name == channel]
    return [(e.name, e.replaces, e.skips) for e in found.entries]


def test_add_order_is_semver_precedence_then_text() -> None:
    versions = ["1.10.0", "v1.2.0", "1.2.0-rc.1", "1.2.0+b.2", "1.2.0+b.10", "junk", "", "0.9.0"]
    ordered = sorted(versions, key=lambda v: add_order(v, fallback="zz-dir"))
    # Pre-releases first; build ids after the bare version, compared as pre-release identifiers
    # (numerically); a leading v is tolerated; what is no version goes last, by text (the
    # directory name stands in for a missing one).
    assert ordered == [
        "0.9.0",
        "1.2.0-rc.1",
        "v1.2.0",
        "1.2.0+b.2",
        "1.2.0+b.10",
        "1.10.0",
        "junk",
        "",
    ]


def test_replaces_call_lays_out_the_chain_and_refuses_what_it_prunes() -> None:
    index = PackageIndex("demo")
    index.add_replaces([bundle("a", "1.0.0"), bundle("b", "1.1.0", replaces="a", skips=("x",))])
    assert entries(index, "stable") == [("a", "", ()), ("b", "a", ("x",))]
    with pytest.raises(AddRefused, match="add prunes bundle c"):
        PackageIndex("demo").add_replaces(
            [bundle("a", "1.0.0"), bundle("b", "1.1.0", replaces="a"), bundle("c", "0.5.0")]
        )


def test_a_refused_call_leaves_the_index_as_it_was() -> None:
    index = PackageIndex("demo")
    index.add_semver(bundle("a", "1.0.0"))
    before = (index.default_channel, dict(index.heads), [(r.bundle, r.depth) for r in index.rows])
    with pytest.raises(AddRefused, match="already added to index"):
        index.add_semver(bundle("a2", "1.0.0"))
    assert (index.default_channel, index.heads, [(r.bundle, r.depth) for r in index.rows]) == before


def test_semver_inserts_between_versions_in_each_channel() -> None:
    index = PackageIndex("demo")
    for item in (bundle("a", "1.0.0"), bundle("c", "1.2.0"), bundle("b", "1.1.0", "stable,fast")):
        index.add_semver(item)
    # An add below the head links the next version up to it (any order, not only ascending).
    assert entries(index, "stable") == [("a", "", ()), ("b", "a", ()), ("c", "b", ())]
    assert entries(index, "fast") == [("b", "", ())]


def test_semver_default_channel_must_be_a_channel() -> None:
    # FOREIGN KEY constraint failed: package.default_channel references a channel row.
    with pytest.raises(AddRefused, match=r"the default channel \(beta\) does not exist"):
        PackageIndex("demo").add_semver(bundle("a", "1.0.0", default_channel="beta"))


def test_skippatch_depth_check() -> None:
    result = build_package(
        "demo",
        [bundle("a", "0.9.0"), bundle("b", "1.0.0"), bundle("c", "1.0.1")],
        "semver-skippatch",
    )
    assert [r.bundle.name for r in result.refused] == ["c"]
    assert "Invalid graph" in result.refused[0].reason
    assert result.index.members() == ["a", "b"]


def test_build_package_falls_back_to_semver_and_says_why() -> None:
    result = build_package(
        "demo", [bundle("a", "1.0.0"), bundle("b", "1.1.0")], "replaces-then-semver"
    )
    assert result.mode == "semver"
    assert "add prunes bundle a" in result.fallback
    assert entries(result.index, "stable") == [("a", "", ()), ("b", "a", ())]
    with pytest.raises(AddRefused, match="replaces mode refuses it"):
        build_package("demo", [bundle("a", "v1")], "replaces-then-semver")


def test_substitutes_for_is_refused_as_without_enable_alpha() -> None:
    with pytest.raises(AddRefused, match="SubstitutesFor is an alpha-only feature"):
        PackageIndex("demo").add_replaces([bundle("a", "1.0.0", substitutes_for="z")])


def test_rows_from_a_catalog_give_its_channels_back() -> None:
    """``from_channels`` (for adding to an existing catalog): the rows it lays out convert back
    to the very channels opm migrated, for every package of the corpus index (replaces and
    semver packages, skips, dangling replaces of cleared bundles)."""
    catalog = FbcCatalog(str(corpus_path("expected/index-upstream.json")))
    count = 0
    for pkg in catalog.packages():
        stored = [
            IndexBundle(b.name, pkg.name, b.version, b.image or b.name, (), where=b.name)
            for b in pkg.bundles
        ]
        default = pkg.package.default_channel
        index = PackageIndex.from_channels(pkg.name, default, pkg.channels, stored)
        assert index.channels() == pkg.channels, pkg.name
        assert index.default_channel == default
        count += 1
    assert count == 39
