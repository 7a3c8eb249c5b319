"""olmcat.diff.delta: deltas are self-contained and, merged onto old, give new's channels."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings

from olmcat.diff.compare import diff_catalogs
from olmcat.diff.delta import delta_catalog, delta_package
from olmcat.model import (
    Channel,
    Deprecation,
    DeprecationEntry,
    Meta,
    PackageCatalog,
)
from olmcat.model.graph import closure as channel_closure
from olmcat.readers.fbc import FbcCatalog
from olmcat.writers.fbc import write_directory
from tests.support.diff_strategies import (
    LINEAR,
    A,
    B,
    C,
    D,
    E,
    any_pairs,
    bundle,
    channel,
    grown_pairs,
    package,
)
from tests.support.diffcheck import merge, problems

Pair = tuple[list[PackageCatalog], list[PackageCatalog]]


# -- the checks a delta must pass (written here, independent of olmcat) ---------------------------


def entries_by_channel(pkg: PackageCatalog) -> dict[str, dict[str, object]]:
    return {c.name: {e.name: e for e in c.entries} for c in pkg.channels}


def delta(old: list[PackageCatalog], new: list[PackageCatalog]) -> list[PackageCatalog]:
    return list(delta_catalog(old, new))


# -- hand-built cases -----------------------------------------------------------------------------


def test_identical_and_removed_give_nothing() -> None:
    assert delta([LINEAR], [LINEAR]) == []
    assert delta([LINEAR], []) == []


def test_new_package_is_copied_whole() -> None:
    assert delta([], [LINEAR]) == [LINEAR]


def test_new_head_only() -> None:
    new = package(
        [channel("stable", E(A.name), E(B.name, A.name), E(C.name, B.name), E(D.name, C.name))],
        [A, B, C, D],
    )
    (out,) = delta([LINEAR], [new])
    assert [e.name for e in out.channels[0].entries] == [D.name]
    assert [b.name for b in out.bundles] == [D.name]
    assert problems([out]) == []


def test_changed_middle_bundle_pulls_in_the_chain_to_the_head() -> None:
    # opm's delta would hold B and D only: two heads. Ours adds C, which connects them.
    changed_b = replace(B, image="quay.io/rebuilt/b")
    new = package(
        [channel("stable", E(A.name), E(B.name, A.name), E(C.name, B.name), E(D.name, C.name))],
        [A, changed_b, C, D],
    )
    (out,) = delta([LINEAR], [new])
    assert [e.name for e in out.channels[0].entries] == [B.name, C.name, D.name]
    assert out.bundle(B.name) == changed_b
    assert problems([out]) == []


def test_entry_reached_by_skips_keeps_the_chain_to_its_skipper() -> None:
    old = package(
        [channel("stable", E(A.name), E(B.name, A.name), E(C.name, A.name, skips=(B.name,)))],
        [A, B, C],
    )
    changed_b = replace(B, image="quay.io/rebuilt/b")
    new = replace(old, bundles=(A, changed_b, C))
    (out,) = delta([old], [new])
    assert [e.name for e in out.channels[0].entries] == [B.name, C.name]
    assert problems([out]) == []


def test_package_change_alone_brings_the_default_channel_head() -> None:
    new = replace(LINEAR, package=replace(LINEAR.package, description="now with docs"))
    (out,) = delta([LINEAR], [new])
    assert out.package == new.package
    assert [(c.name, [e.name for e in c.entries]) for c in out.channels] == [("stable", [C.name])]
    assert [b.name for b in out.bundles] == [C.name]
    assert problems([out]) == []


def test_default_channel_is_present_when_another_channel_changed() -> None:
    old = package([LINEAR.channels[0], channel("fast", E(B.name), E(C.name, B.name))], [A, B, C])
    new = package(
        [LINEAR.channels[0], channel("fast", E(B.name), E(C.name, B.name), E(D.name, C.name))],
        [A, B, C, D],
    )
    (out,) = delta([old], [new])
    assert [(c.name, [e.name for e in c.entries]) for c in out.channels] == [
        ("fast", [D.name]),
        ("stable", [C.name]),
    ]
    assert problems([out]) == []


def test_deprecation_pulls_in_what_it_names() -> None:
    deprecations = (
        Deprecation(
            "etcd",
            (
                DeprecationEntry("olm.bundle", A.name, "too old"),
                DeprecationEntry("olm.channel", "fast", "use stable"),
            ),
        ),
    )
    old = package([LINEAR.channels[0], channel("fast", E(C.name))], [A, B, C])
    new = replace(old, deprecations=deprecations)
    (out,) = delta([old], [new])
    assert out.deprecations == deprecations
    assert {c.name for c in out.channels} == {"stable", "fast"}
    assert [e.name for e in out.channel("stable").entries] == [A.name, B.name, C.name]  # type: ignore[union-attr]
    assert problems([out]) == []


def test_channel_properties_or_unknown_blobs_alone() -> None:
    from olmcat.model.property import Property

    with_props = replace(
        LINEAR, channels=(replace(LINEAR.channels[0], properties=(Property("x.p", "1"),)),)
    )
    (out,) = delta([LINEAR], [with_props])
    assert [e.name for e in out.channels[0].entries] == [C.name]
    assert out.channels[0].properties == (Property("x.p", "1"),)
    meta = Meta("x.custom", "etcd", "m", '{"schema":"x.custom","package":"etcd","name":"m"}')
    (out,) = delta([LINEAR], [replace(LINEAR, others=(meta,))])
    assert out.others == (meta,)
    assert problems([out]) == []


def test_channel_invalid_in_new_is_copied_whole() -> None:
    broken = package([channel("stable", E(A.name), E(B.name), E(C.name, B.name))], [A, B, C])
    old = replace(broken, bundles=(A, B))
    old = replace(old, channels=(channel("stable", E(A.name), E(B.name)),))
    (out,) = delta([old], [broken])
    assert out.channels[0].entries == broken.channels[0].entries


def test_channel_closure_with_unknown_wanted_names() -> None:
    ch = LINEAR.channels[0]
    assert [e.name for e in channel_closure(ch, ["nope"])] == [C.name]
    assert [e.name for e in channel_closure(ch, [A.name])] == [A.name, B.name, C.name]
    empty = Channel("x", "etcd")
    assert channel_closure(empty, [A.name]) == ()


def test_written_with_the_fbc_writer(tmp_path: Path) -> None:
    new = package(
        [channel("stable", E(A.name), E(B.name, A.name), E(C.name, B.name), E(D.name, C.name))],
        [A, B, C, D],
    )
    write_directory(delta_catalog([LINEAR], [new]), tmp_path / "out")
    with FbcCatalog(tmp_path / "out") as back:
        (pkg,) = list(back)
    assert [b.name for b in pkg.bundles] == [D.name]
    blobs = (tmp_path / "out" / "etcd" / "catalog.json").read_text()
    assert json.loads(blobs.split("\n}\n")[0] + "\n}")["schema"] == "olm.package"


def test_delta_package_of_new_without_channels() -> None:
    assert delta_package(None, replace(LINEAR, channels=())) is None


def test_skipped_only_release() -> None:
    # A head that only uses skipRange (no replaces) over a truncated channel.
    e = bundle("etcd.v4.0.0", "4.0.0")
    old = package([channel("stable", E(C.name, skip_range="<2.0.0"))], [C])
    new = package([channel("stable", E(e.name, skip_range="<4.0.0"))], [e])
    (out,) = delta([old], [new])
    assert problems([out]) == []
    assert [x.name for x in out.bundles] == [e.name]


# -- properties on generated catalogs -------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grown_pairs())
def test_grown_delta_is_valid_and_merges_back(pair: Pair) -> None:
    old, new = pair
    assert problems(new) == []
    out = delta(old, new)
    assert problems(out) == []
    merged = merge(old, out)
    for pkg in new:
        back = merged[pkg.name]
        assert back.package == pkg.package
        assert entries_by_channel(back) == entries_by_channel(pkg)
        assert {c.name: c.heads() for c in back.channels} == {
            c.name: c.heads() for c in pkg.channels
        }
        assert {b.name: b for b in back.bundles} == {b.name: b for b in pkg.bundles}
    assert bool(out) == (not diff_catalogs(old, new).is_empty())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_pairs())
def test_delta_is_valid_whenever_new_is(pair: Pair) -> None:
    old, new = pair
    assume(problems(new) == [])
    out = delta(old, new)
    assert problems(out) == []
    if out:
        assert not diff_catalogs(old, new).is_empty()
    # heads of every channel the delta carries are new's heads
    by_name = {p.name: p for p in new}
    for pkg in out:
        for ch in pkg.channels:
            assert ch.heads() == by_name[pkg.name].channel(ch.name).heads()  # type: ignore[union-attr]
