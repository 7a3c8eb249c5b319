"""rm, prune, prune-stranded and deprecate-truncate on small catalogs built in code."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import InputError, OutputError, ValidationError
from olmcat.maintain import deprecate_truncate, prune_packages, prune_stranded, remove_packages
from olmcat.model import (
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    DeprecationEntry,
    Package,
    PackageCatalog,
)
from olmcat.model import property as prop
from olmcat.notices import NoticeLog
from olmcat.readers.catalog import open_catalog
from olmcat.writers.fbc import write_directory
from tests.support.paths import catalog_blobs


def bundle(name: str, package: str, version: str) -> Bundle:
    return Bundle(name, package, f"example.com/{name}:1", (prop.package(package, version),))


def package(
    name: str, default: str, channels: dict[str, list[ChannelEntry]], **kw: Any
) -> PackageCatalog:
    names = sorted(
        {e.name for entries in channels.values() for e in entries} | set(kw.pop("extra", ()))
    )
    return PackageCatalog(
        Package(name, default),
        tuple(Channel(c, name, tuple(e)) for c, e in sorted(channels.items())),
        tuple(bundle(n, name, n.split(".v", 1)[1]) for n in names),
        **kw,
    )


E = ChannelEntry


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    """a: stable 1.0.0 <- 1.1.0 <- 1.2.0 (skips 1.0.5), beta has 1.1.0 <- 1.3.0; b: one bundle;
    c: a bundle no channel lists."""
    packages = [
        package(
            "a",
            "stable",
            {
                "stable": [
                    E("a.v1.0.0"),
                    E("a.v1.1.0", "a.v1.0.0"),
                    E("a.v1.2.0", "a.v1.1.0", ("a.v1.0.5",)),
                ],
                "beta": [E("a.v1.1.0"), E("a.v1.3.0", "a.v1.1.0")],
            },
        ),
        package("b", "stable", {"stable": [E("b.v1.0.0")]}),
        package("c", "stable", {"stable": [E("c.v1.0.0")]}, extra=["c.v0.9.0"]),
    ]
    out = tmp_path / "catalog"
    write_directory(packages, out)
    return out


def read(path: Path) -> dict[str, PackageCatalog]:
    with open_catalog(path) as source:
        return {p.name: p for p in source.packages()}


def test_rm_removes_packages_and_stranded_bundles(catalog: Path, tmp_path: Path) -> None:
    notices = NoticeLog()
    result = remove_packages(catalog, tmp_path / "out", ["b"], notify=notices)
    after = read(tmp_path / "out")
    assert sorted(after) == ["a", "c"]
    # like opm's RemoveStrandedBundles after a removal: c's unlisted bundle goes too
    assert [b.name for b in after["c"].bundles] == ["c.v1.0.0"]
    assert notices.codes()["maintain.stranded-bundle-removed"] == 1
    summary = result.diff.summary()
    assert summary["packages"] == {"added": 0, "removed": 1, "changed": 1}
    assert read(catalog).keys() == {"a", "b", "c"}  # the input is untouched


def test_rm_refuses_an_unknown_package_unless_permissive(catalog: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no package found for packagename zz"):
        remove_packages(catalog, tmp_path / "out", ["zz"])
    assert not (tmp_path / "out").exists()
    notices = NoticeLog()
    remove_packages(catalog, tmp_path / "out", ["zz", "b"], permissive=True, notify=notices)
    assert notices.codes()["maintain.package-missing"] == 1


def test_prune_keeps_only_the_named_packages(catalog: Path, tmp_path: Path) -> None:
    notices = NoticeLog()
    result = prune_packages(catalog, tmp_path / "out", ["a", "c", "nope"], notify=notices)
    assert sorted(read(tmp_path / "out")) == ["a", "c"]
    assert result.details == {"kept": ["a", "c"], "removed": ["b"]}
    assert notices.codes()["maintain.package-missing"] == 1


def test_prune_stranded(catalog: Path, tmp_path: Path) -> None:
    result = prune_stranded(catalog, tmp_path / "out")
    assert [b.name for b in read(tmp_path / "out")["c"].bundles] == ["c.v1.0.0"]
    assert result.diff.summary()["bundles"]["removed"] == 1


def test_in_place_is_atomic_and_keeps_the_directory(catalog: Path) -> None:
    inode = catalog.stat().st_ino
    remove_packages(catalog, None, ["b"], in_place=True)
    assert sorted(read(catalog)) == ["a", "c"]
    assert catalog.stat().st_ino != inode  # a new directory took its place
    assert [p.name for p in catalog.parent.iterdir()] == ["catalog"]  # no staging left behind
    with pytest.raises(OutputError, match="either OUT or --in-place"):
        remove_packages(catalog, catalog.parent / "x", ["a"], in_place=True)


def test_in_place_refuses_other_forms(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    db.write_bytes(b"SQLite format 3\0")
    with pytest.raises(OutputError, match="FBC directory"):
        prune_stranded(db, None, in_place=True)


def test_a_failure_leaves_in_place_catalog_as_it_was(catalog: Path) -> None:
    before = {p: p.read_bytes() for p in catalog.rglob("*.json")}
    with pytest.raises(ValidationError):
        deprecate_truncate(catalog, None, ["example.com/a.v1.2.0:1"], in_place=True)
    assert {p: p.read_bytes() for p in catalog.rglob("*.json")} == before
    assert os.listdir(catalog.parent) == ["catalog"]


def test_deprecate_truncate_marks_instead_of_deleting(catalog: Path, tmp_path: Path) -> None:
    notices = NoticeLog()
    result = deprecate_truncate(
        catalog, tmp_path / "out", ["example.com/a.v1.1.0:1"], notify=notices
    )
    after = read(tmp_path / "out")["a"]
    before = read(catalog)["a"]
    assert after.channels == before.channels and after.bundles == before.bundles
    (deprecation,) = after.deprecations
    # 1.1.0 is deprecated; 1.0.0 is below it in the only channel it shares with 1.1.0, so opm
    # would truncate it; channel beta is not headed by 1.1.0, so it stays undeprecated
    assert {(e.schema, e.name) for e in deprecation.entries} == {
        ("olm.bundle", "a.v1.1.0"),
        ("olm.bundle", "a.v1.0.0"),
    }
    assert result.details["packages"]["a"]["truncated"] == ["a.v1.0.0"]
    assert notices.codes()["maintain.deprecated"] == 2


def test_deprecate_truncate_as_opm(catalog: Path, tmp_path: Path) -> None:
    result = deprecate_truncate(
        catalog, tmp_path / "out", ["example.com/a.v1.1.0:1"], truncate=True
    )
    after = read(tmp_path / "out")["a"]
    assert {c.name: [(e.name, e.replaces) for e in c.entries] for c in after.channels} == {
        # 1.1.0 is left out, its replacers keep a dangling replaces; 1.0.0 is truncated
        "beta": [("a.v1.3.0", "a.v1.1.0")],
        "stable": [("a.v1.2.0", "a.v1.1.0")],
    }
    assert sorted(b.name for b in after.bundles) == ["a.v1.2.0", "a.v1.3.0"]
    assert result.diff.summary()["impact"]["danglingReplaces"] == 2


def test_deprecating_the_default_head_needs_every_head(catalog: Path, tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="head of the default channel"):
        deprecate_truncate(catalog, tmp_path / "o1", ["example.com/a.v1.2.0:1"])
    with pytest.raises(ValidationError, match=r"must deprecate a\.v1\.3\.0"):
        deprecate_truncate(
            catalog, tmp_path / "o2", ["example.com/a.v1.2.0:1"], allow_package_removal=True
        )
    images = ["example.com/a.v1.2.0:1", "example.com/a.v1.3.0:1"]
    deprecate_truncate(catalog, tmp_path / "o3", images, allow_package_removal=True)
    (deprecation,) = read(tmp_path / "o3")["a"].deprecations
    assert deprecation.entries[0] == DeprecationEntry("olm.package", "", "package a is deprecated")
    deprecate_truncate(catalog, tmp_path / "o4", images, allow_package_removal=True, truncate=True)
    assert "a" not in read(tmp_path / "o4")


def test_existing_deprecations_are_kept_and_merged(tmp_path: Path) -> None:
    pkg = package(
        "a",
        "stable",
        {"stable": [E("a.v1.0.0"), E("a.v1.1.0", "a.v1.0.0")]},
        deprecations=(Deprecation("a", (DeprecationEntry("olm.bundle", "a.v1.0.0", "old"),)),),
    )
    write_directory([pkg], tmp_path / "in")
    deprecate_truncate(
        tmp_path / "in", tmp_path / "out", ["example.com/a.v1.0.0:1"], message="gone"
    )
    (deprecation,) = read(tmp_path / "out")["a"].deprecations
    assert deprecation.entries == (DeprecationEntry("olm.bundle", "a.v1.0.0", "old"),)


def test_unknown_image(catalog: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="missing from the catalog: nope:1"):
        deprecate_truncate(catalog, tmp_path / "out", ["nope:1"])


def test_cli_summary_report_and_usage(catalog: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    report = tmp_path / "r.json"
    result = runner.invoke(
        cli, ["rm", str(catalog), "b", str(tmp_path / "out"), "--report", str(report)]
    )
    assert result.exit_code == 0, result.output
    assert "package b" not in result.stdout and "- b" in result.stdout
    document = json.loads(report.read_text())
    assert document["schema"] == "olmcat.maintain.v1" and document["details"] == {"removed": ["b"]}
    assert document["diff"]["summary"]["packages"]["removed"] == 1
    assert runner.invoke(cli, ["rm", str(catalog), "b"]).exit_code == 2  # no OUT
    result = runner.invoke(cli, ["rm", str(catalog), "zz", str(tmp_path / "o2")])
    assert result.exit_code == 1 and "no package found" in result.output
    result = runner.invoke(cli, ["prune-stranded", str(catalog), str(tmp_path / "o3"), "--details"])
    assert "- bundle c.v0.9.0" in result.stdout
    assert [b["name"] for b in catalog_blobs(tmp_path / "o3") if b["schema"] == "olm.bundle"] == [
        "a.v1.0.0",
        "a.v1.1.0",
        "a.v1.2.0",
        "a.v1.3.0",
        "b.v1.0.0",
        "c.v1.0.0",
    ]


def test_in_place_without_renameat2(catalog: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the kernel cannot exchange two paths atomically, the old catalog is moved aside
    and the new one renamed in; either way nothing is left behind."""
    from olmcat.maintain import rewrite

    monkeypatch.setattr(rewrite, "_exchange", lambda a, b: False)
    prune_stranded(catalog, None, in_place=True)
    assert [b.name for b in read(catalog)["c"].bundles] == ["c.v1.0.0"]
    assert os.listdir(catalog.parent) == ["catalog"]
