"""``olmcat validate``'s rules: every corpus golden passes; each hand-built broken catalog reports
exactly its defects (rule ID, file and line), under both compatibility levels; the issue's cases.

Catalog files are written one blob per line (tests/support/fbc_catalogs.py), so the Nth blob of a
file is at line N, column 1: expected positions are counted, not taken from the code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from olmcat.model import Bundle, Channel, ChannelEntry, Package, PackageCatalog
from olmcat.model.property import Property
from olmcat.validate import Problem, RuleSet, Summary, validate
from olmcat.validate.checks import check_package
from tests.support.builders import make_index_db, simple_package
from tests.support.fbc_catalogs import (
    good_package,
    write_fbc,
)
from tests.support.paths import corpus_path
from tests.support.validate_cases import CASES

Blobs = list[dict[str, Any]]


def run(ref: Path | str, compat: str = "v1.72", **kw: Any) -> tuple[list[Problem], Summary]:
    summary = Summary()
    rules = RuleSet.build(compat, **kw)  # type: ignore[arg-type]
    return list(validate(ref, rules=rules, summary=summary)), summary


def ids(problems: list[Problem]) -> list[tuple[str, str, int]]:
    """(rule ID, severity, line) of each problem."""
    return [(p.rule, p.severity, p.line) for p in problems]


# -- the corpus ---------------------------------------------------------------------------------

GOLDENS = [
    "deprecate-before.json",
    "deprecated.json",
    "index-upstream-old.json",
    "index-upstream-synth.json",
    "index-upstream.json",
    "small.json",
    "upstream-subset.json",
    "upstream-subset.yaml",
    "schemas/v1.6.0-small.json",
    "schemas/v1.10.0-small.json",
    "schemas/v1.18.0-small.json",
]


@pytest.mark.parametrize("golden", GOLDENS)
def test_corpus_goldens_pass_the_opm_that_made_them(golden: str) -> None:
    problems, summary = run(corpus_path("expected", *golden.split("/")), "v1.26")
    assert [p for p in problems if p.severity == "error"] == []
    assert summary.valid() and summary.packages > 0


# The goldens were made by opm v1.26.5; v1.64 and later refuse two related images of strimzi
# (written "operator@@sha256:..." in the operator's CSV), so under v1.72 these are errors.
STRIMZI_BAD_IMAGES = {
    ("OLMCAT-BU009", "strimzi-cluster-operator.v0.20.0"),
    ("OLMCAT-BU009", "strimzi-cluster-operator.v0.20.1"),
}


@pytest.mark.parametrize("golden", GOLDENS)
def test_corpus_goldens_under_v172_fail_only_on_invalid_pull_specs(golden: str) -> None:
    problems, _ = run(corpus_path("expected", *golden.split("/")))
    errors = {(p.rule, p.bundle) for p in problems if p.severity == "error"}
    assert errors == (STRIMZI_BAD_IMAGES if golden.startswith("upstream-subset") else set())
    if errors:
        assert "invalid reference format" in problems[0].message


def test_the_only_warnings_of_the_deprecated_golden_are_dangling_replaces() -> None:
    # opm leaves deprecated bundles out; the entries that replaced them keep their replaces.
    problems, _ = run(corpus_path("expected", "deprecated.json"))
    assert {(p.rule, p.severity, p.channel) for p in problems} == {
        ("OLMCAT-CH009", "warning", "alpha"),
        ("OLMCAT-CH009", "warning", "stable"),
    }


@pytest.mark.parametrize("reference", ["sqlite/small.db", "images/test-index-v1.oci.tar"])
def test_corpus_databases_and_images_are_valid(reference: str) -> None:
    problems, summary = run(corpus_path(*reference.split("/")))
    assert problems == [] and summary.packages > 0


def test_package_manifests_report_the_readers_notes_as_warnings() -> None:
    root = corpus_path("pkgman", "upstream-subset")
    problems, summary = run(root, "v1.26")
    assert (summary.kind, summary.packages, summary.errors) == ("pkgman", 40, 0)
    assert {(p.rule, p.severity, p.bundle) for p in problems} == {
        ("OLMCAT-LG002", "warning", ""),
        *((rule, "warning", bundle) for rule, bundle in STRIMZI_BAD_IMAGES),
    }


# -- a valid hand-built catalog -------------------------------------------------------------------


def test_a_valid_catalog_has_no_problems(tmp_path: Path) -> None:
    root = write_fbc(tmp_path / "fbc", *good_package("foo"), *good_package("bar"))
    problems, summary = run(root)
    assert problems == []
    assert (summary.kind, summary.packages, summary.errors, summary.warnings) == ("fbc", 2, 0, 0)


@pytest.mark.parametrize("case", sorted(CASES), ids=str)
def test_each_rule(case: str, tmp_path: Path) -> None:
    blobs, expected, _ = CASES[case]
    root = write_fbc(tmp_path / "fbc", *blobs)
    problems, _ = run(root)
    assert [(p.rule, p.line) for p in problems] == expected
    assert all(p.file == str(root / "catalog.json") for p in problems)
    assert all(p.column == 1 for p in problems if p.line)


@pytest.mark.parametrize("case", sorted(CASES), ids=str)
def test_compat_v126_downgrades_the_rules_v126_lacks(case: str, tmp_path: Path) -> None:
    blobs, _, accepted_by_v126 = CASES[case]
    root = write_fbc(tmp_path / "fbc", *blobs)
    _, summary = run(root, "v1.26")
    assert summary.valid() == accepted_by_v126


# -- other forms ----------------------------------------------------------------------------------


def _package_manifest(root: Path, name: str, head: str, versions: dict[str, str]) -> None:
    """A package-manifest package: one channel 'stable' at ``head``; version dir -> replaces."""
    directory = root / name
    directory.mkdir(parents=True)
    (directory / f"{name}.package.yaml").write_text(
        f"packageName: {name}\nchannels:\n- name: stable\n  currentCSV: {head}\n"
        "defaultChannel: stable\n"
    )
    for version, replaces in versions.items():
        (directory / version).mkdir()
        spec = f"  version: {version}\n" + (f"  replaces: {replaces}\n" if replaces else "")
        (directory / version / "csv.yaml").write_text(
            "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\n"
            f"metadata:\n  name: {name}.v{version}\nspec:\n{spec}"
        )


def test_packages_the_legacy_loader_refuses_are_errors(tmp_path: Path) -> None:
    root = tmp_path / "manifests"
    _package_manifest(root, "good", "good.v0.2.0", {"0.1.0": "", "0.2.0": "good.v0.1.0"})
    _package_manifest(root, "bad", "bad.v0.3.0", {"0.1.0": ""})
    _package_manifest(root, "worse", "worse.v0.2.0", {"0.2.0": "worse.v0.1.0"})
    problems, summary = run(root)
    assert (summary.kind, summary.packages) == ("pkgman", 1)
    errors = [p for p in problems if p.severity == "error"]
    assert [(p.rule, p.package) for p in errors] == [
        ("OLMCAT-LG001", "bad"),
        ("OLMCAT-LG001", "worse"),
    ]
    assert "currentCSV 'bad.v0.3.0'" in errors[0].message
    assert "worse.v0.1.0" in errors[1].message
    # The bundles of the packages left out are in no channel: the reader says so (warnings).
    assert sorted(p.bundle for p in problems if p.severity == "warning") == [
        "bad.v0.1.0",
        "worse.v0.2.0",
    ]


def test_sqlite_problems_name_package_channel_and_bundle(tmp_path: Path) -> None:
    spec = simple_package("demo", ("0.2.0", "0.1.0"))
    spec.channels["stable"][0].properties.append(
        ("olm.gvk", json.dumps({"group": "example.com", "kind": "", "version": "v1"}))
    )
    db = make_index_db(tmp_path / "index.db", [spec, simple_package("ok")])
    problems, summary = run(db)
    assert (summary.kind, summary.packages) == ("sqlite", 2)
    assert [(p.rule, p.file, p.package, p.bundle) for p in problems] == [
        ("OLMCAT-PR004", "", "demo", "demo.v0.2.0")
    ]
    assert problems[0].location == "package demo, bundle demo.v0.2.0"


def test_check_package_works_on_any_model() -> None:
    bundle = Bundle(
        "foo.v1.0.0",
        "foo",
        "quay.io/x/foo:v1",
        (Property("olm.package", '{"packageName":"foo","version":"1.0.0"}'),),
    )
    pkg = PackageCatalog(
        Package("foo", "stable"),
        (Channel("stable", "foo", (ChannelEntry("foo.v1.0.0"), ChannelEntry("foo.v0.9.0"))),),
        (bundle,),
    )
    assert [(p.rule, p.channel) for p in check_package(pkg)] == [
        ("OLMCAT-CH004", "stable"),
        ("OLMCAT-CH005", "stable"),
    ]


def test_unreadable_input_raises(tmp_path: Path) -> None:
    from olmcat.errors import InputError

    with pytest.raises(InputError):
        list(validate(tmp_path / "missing"))
