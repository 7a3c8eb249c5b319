"""Every installed version of every package of the corpus' old/new pairs gets a verdict that an
exhaustive search over NEW's graph confirms, under both semantics.

The catalogs under test are the SQLite databases (read by olmcat); the reference graph is opm's
golden FBC of the same databases, read as plain JSON (tests/support/upgrade_reference.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from olmcat.upgrade import Installed, OperatorVerdict, upgrade_check
from tests.support import upgrade_reference as ref
from tests.support.paths import corpus_path

PAIRS = {
    "index-upstream": ("index-upstream-old", "index-upstream"),
    "deprecated": ("deprecate-before", "deprecated"),
}


def _inventory(old: dict[str, ref.RefPackage]) -> list[Installed]:
    rows = []
    for package in sorted(old.values(), key=lambda p: p.name):
        for channel, entries in sorted(package.channels.items()):
            for name in sorted(entries):
                if name in package.versions:  # a skipped name without a bundle is not installable
                    rows.append(
                        Installed(
                            "list",
                            package.name,
                            channel=channel,
                            bundle=name,
                            version=package.versions[name],
                            namespace=f"{package.name}.{channel}",
                            name=name,
                        )
                    )
    return rows


@pytest.fixture(scope="module", params=sorted(PAIRS))
def pair(
    request: pytest.FixtureRequest,
) -> tuple[str, Path, Path, dict[str, ref.RefPackage], dict[str, ref.RefPackage]]:
    old_name, new_name = PAIRS[request.param]
    old_db = corpus_path("sqlite", f"{old_name}.db")
    new_db = corpus_path("sqlite", f"{new_name}.db")
    old = ref.load_golden(corpus_path("expected", f"{old_name}.json"))
    new = ref.load_golden(corpus_path("expected", f"{new_name}.json"))
    return request.param, old_db, new_db, old, new


def _check_legacy(verdict: OperatorVerdict, new: dict[str, ref.RefPackage]) -> str:
    item = verdict.installed
    package = new.get(item.package)
    if package is None:
        assert verdict.status == "package-removed"
        return "package-removed"
    entries = package.channels.get(item.channel)
    if entries is None:
        assert "channel-removed" in verdict.conditions, verdict.to_json()
        return "channel-removed"
    versions = {n: v for n, t in package.versions.items() if (v := ref.version(t)) is not None}
    start_version = ref.version(item.version)
    heads = ref.legacy_heads(entries)
    assert len(heads) == 1, f"{item.package}/{item.channel} has heads {heads}"
    head = heads[0]
    assert verdict.head == head
    successors = ref.legacy_successors(entries)
    reached = ref.reachable(item.bundle, start_version, successors, versions)
    if head in reached:
        assert "no-path" not in verdict.conditions, verdict.to_json()
        assert verdict.path is not None and verdict.path[0] == item.bundle
        assert verdict.path[-1] == head
        assert ref.valid_path(verdict.path, start_version, successors, versions)
        return "ready"
    assert "no-path" in verdict.conditions, verdict.to_json()
    assert verdict.path is None
    return "no-path"


def _check_semver(verdict: OperatorVerdict, new: dict[str, ref.RefPackage]) -> str:
    item = verdict.installed
    package = new.get(item.package)
    if package is None:
        assert verdict.status == "package-removed"
        return "package-removed"
    entries = package.channels.get(item.channel)
    if entries is None:
        assert "channel-removed" in verdict.conditions, verdict.to_json()
        return "channel-removed"
    # OLM v1 reads bundle versions strictly
    versions = {n: v for n, t in package.versions.items() if (v := ref.version(t, tolerant=False))}
    start_version = ref.version(item.version, tolerant=False)
    heads = ref.semver_heads(entries, versions, package.deprecated)
    assert verdict.head in heads
    successors = ref.semver_successors(entries, versions)
    reached = ref.reachable(item.bundle, start_version, successors, versions)
    # the installed bundle itself is a valid end when it is (one of) the newest
    if item.bundle in heads or heads & set(reached):
        assert "no-path" not in verdict.conditions, verdict.to_json()
        assert verdict.path is not None and verdict.path[0] == item.bundle
        assert verdict.path[-1] == verdict.head
        assert ref.valid_path(verdict.path, start_version, successors, versions)
        return "ready"
    assert "no-path" in verdict.conditions, verdict.to_json()
    return "no-path"


@pytest.mark.parametrize("semantics", ["legacy", "semver"])
def test_every_installed_version_gets_a_verdict_the_exhaustive_search_confirms(
    pair: tuple[str, Path, Path, dict[str, ref.RefPackage], dict[str, ref.RefPackage]],
    semantics: str,
) -> None:
    name, old_db, new_db, old, new = pair
    inventory = _inventory(old)
    report = upgrade_check(old_db, new_db, inventory, semantics=semantics)  # type: ignore[arg-type]
    assert len(report.operators) == len(inventory)
    tally: dict[str, int] = {}
    check = _check_legacy if semantics == "legacy" else _check_semver
    for verdict in report.operators:
        outcome = check(verdict, new)
        tally[outcome] = tally.get(outcome, 0) + 1
    assert tally.get("ready", 0) > 0
    if name == "deprecated":
        # deprecatetruncate cut etcd's v0.6.1 and channel beta (corpus README): installs there
        # must come out stranded, or the test would prove nothing about the negative verdicts
        assert tally.get("no-path", 0) > 0 and tally.get("channel-removed", 0) > 0, tally
