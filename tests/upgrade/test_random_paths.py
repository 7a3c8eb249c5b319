"""Random graphs and inventories: upgrade-check's verdicts against an exhaustive search."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from olmcat.model import SCHEMA_BUNDLE, Deprecation, DeprecationEntry
from olmcat.upgrade import check_operator
from tests.support import upgrade_reference as ref
from tests.support.upgrade_strategies import graphs_and_inventories


def _successor_cycle(
    entries: dict[str, ref.RefEntry], successors: ref.Successors, versions: dict[str, object]
) -> bool:
    """Whether the successor relation among entries has a cycle (depth-first colouring)."""
    colour: dict[str, int] = {}

    def visit(name: str) -> bool:
        colour[name] = 1
        for nxt in successors(name, versions.get(name)):  # type: ignore[arg-type]
            if nxt not in entries:
                continue
            if colour.get(nxt) == 1 or (nxt not in colour and visit(nxt)):
                return True
        colour[name] = 2
        return False

    return any(name not in colour and visit(name) for name in sorted(entries))


@settings(max_examples=150, deadline=None)
@given(graphs_and_inventories())
def test_legacy_verdicts_agree_with_exhaustive_search(case: tuple) -> None:
    pkg, rows = case
    model = ref.from_model(pkg)
    entries = model.channels["stable"]
    versions = {n: v for n, t in model.versions.items() if (v := ref.version(t)) is not None}
    successors = ref.legacy_successors(entries)
    heads = ref.legacy_heads(entries)
    valid = len(heads) == 1 and not _successor_cycle(entries, successors, versions)
    for item in rows:
        verdict = check_operator(item, pkg, pkg, semantics="legacy")
        if not heads:
            assert verdict.head is None and "no-path" in verdict.conditions
            continue
        assert verdict.head in heads
        start_version = ref.version(item.version)
        reached = ref.reachable(item.bundle, start_version, successors, versions)
        if "no-path" not in verdict.conditions:
            assert verdict.path is not None
            assert verdict.path[0] == item.bundle and verdict.path[-1] == verdict.head
            assert ref.valid_path(verdict.path, start_version, successors, versions)
            assert verdict.head in reached
            continue
        assert verdict.path is None
        if valid:
            # one head, no cycle: the walk can only end at the head, so no path means none exists
            assert verdict.head not in reached, verdict.to_json()
        elif verdict.head in reached:
            # the resolver took a turn that leads elsewhere: a dead end or a loop
            stop = verdict.stops_at
            assert stop is not None
            dead_end = not successors(stop, versions.get(stop, start_version))
            looped = any("cycle" in note for note in verdict.notes)
            assert dead_end or looped, verdict.to_json()


@settings(max_examples=150, deadline=None)
@given(graphs_and_inventories(), st.sets(st.integers(0, 6), max_size=2))
def test_semver_verdicts_agree_with_exhaustive_search(case: tuple, deprecated_at: set[int]) -> None:
    pkg, rows = case
    names = [b.name for b in pkg.bundles]
    dead = {names[i] for i in deprecated_at if i < len(names)}
    if dead:
        entries_ = tuple(DeprecationEntry(SCHEMA_BUNDLE, n, "gone soon") for n in sorted(dead))
        pkg = replace(pkg, deprecations=(Deprecation(pkg.name, entries_),))
    model = ref.from_model(pkg)
    entries = model.channels["stable"]
    versions = {
        n: v for n, t in model.versions.items() if (v := ref.version(t, tolerant=False)) is not None
    }
    heads = ref.semver_heads(entries, versions, model.deprecated)
    successors = ref.semver_successors(entries, versions)
    for item in rows:
        verdict = check_operator(item, pkg, pkg, semantics="semver")
        assert verdict.head in heads
        start_version = ref.version(item.version, tolerant=False)
        reached = ref.reachable(item.bundle, start_version, successors, versions)
        if item.bundle in heads or heads & set(reached):
            assert "no-path" not in verdict.conditions, verdict.to_json()
            assert verdict.path is not None and verdict.path[-1] == verdict.head
            assert verdict.path[0] == item.bundle
            assert ref.valid_path(verdict.path, start_version, successors, versions)
        else:
            assert "no-path" in verdict.conditions, verdict.to_json()
            assert verdict.path is None


@settings(max_examples=100, deadline=None)
@given(graphs_and_inventories())
def test_cluster_extension_verdicts_agree_with_exhaustive_search(case: tuple) -> None:
    """OLM v1 with catalog edges: the highest successor each step (never a lower version)."""
    pkg, rows = case
    model = ref.from_model(pkg)
    entries = model.channels["stable"]
    versions = {
        n: v for n, t in model.versions.items() if (v := ref.version(t, tolerant=False)) is not None
    }
    successors = ref.legacy_successors(entries)
    heads = ref.legacy_heads(entries)
    valid = len(heads) == 1 and not _successor_cycle(entries, successors, versions)
    for row in rows:
        item = replace(row, origin="ClusterExtension", channels=("stable",))
        verdict = check_operator(item, pkg, pkg, semantics="legacy")
        start_version = ref.version(item.version, tolerant=False)
        reached = ref.reachable(item.bundle, start_version, successors, versions)
        if "no-path" not in verdict.conditions:
            assert verdict.path is not None and verdict.path[0] == item.bundle
            assert verdict.path[-1] == verdict.head
            assert ref.valid_path(verdict.path, start_version, successors, versions)
        elif valid and heads[0] in reached:
            # OLM v1 never takes a successor below the installed version (the installed bundle
            # is a candidate too, and the highest version wins), so a path that needs a step
            # down is no path for it: the walk must have stopped where every way on goes down
            stop = verdict.stops_at
            assert stop is not None, verdict.to_json()
            here = versions.get(stop, start_version)
            onward = successors(stop, here)
            assert here is not None
            assert all(n in versions and versions[n].compare(here) <= 0 for n in onward), (
                verdict.to_json()
            )
