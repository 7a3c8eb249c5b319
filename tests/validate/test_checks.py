"""``olmcat validate``: every corpus golden passes; hand-built broken catalogs report exactly their
defects (one test per rule, message and location asserted); the command's output and exit codes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import InputError
from olmcat.validate.checks import Problem, Summary, check_package, validate
from tests.support.builders import BundleSpec, PackageSpec, make_index_db, simple_package
from tests.support.paths import CORPUS, corpus_path

# -- building FBC catalogs --------------------------------------------------------------------


def pkg(name: str = "foo", default: str | None = "stable", **more: Any) -> dict[str, Any]:
    blob: dict[str, Any] = {"schema": "olm.package", "name": name, **more}
    if default is not None:
        blob["defaultChannel"] = default
    return blob


def ch(name: str, *entries: dict[str, Any], package: str = "foo") -> dict[str, Any]:
    return {"schema": "olm.channel", "name": name, "package": package, "entries": list(entries)}


def entry(name: str, replaces: str = "", **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, **more}
    if replaces:
        out["replaces"] = replaces
    return out


def bnd(
    name: str,
    version: str,
    package: str = "foo",
    *,
    props: list[dict[str, Any]] | None = None,
    image: str | None = None,
) -> dict[str, Any]:
    properties = [{"type": "olm.package", "value": {"packageName": package, "version": version}}]
    return {
        "schema": "olm.bundle",
        "name": name,
        "package": package,
        "image": f"quay.io/example/{package}-bundle:v{version}" if image is None else image,
        "properties": properties if props is None else props,
    }


def good_package(package: str = "foo") -> list[dict[str, Any]]:
    """A valid package: stable = v0.1.0 <- v0.2.0."""
    return [
        pkg(package),
        ch(
            "stable",
            entry(f"{package}.v0.1.0"),
            entry(f"{package}.v0.2.0", f"{package}.v0.1.0"),
            package=package,
        ),
        bnd(f"{package}.v0.1.0", "0.1.0", package),
        bnd(f"{package}.v0.2.0", "0.2.0", package),
    ]


def write_fbc(root: Path, *blobs: Any, name: str = "catalog.json") -> Path:
    """Blobs as a concatenated JSON stream in root/name; returns the root directory."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(b, indent=2) + "\n" for b in blobs))
    return root


def run_validation(ref: Path | str) -> list[Problem]:
    return list(validate(ref))


def facts(problems: list[Problem]) -> list[tuple[str, str, str, str, str, str]]:
    """(severity, rule, message, file, channel, bundle) of each problem; package is in the
    file location or asserted separately."""
    return [(p.severity, p.rule, p.message, p.file, p.channel, p.bundle) for p in problems]


def at(root: Path, document: int, name: str = "catalog.json") -> str:
    return f"{root / name}#{document}"


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
]
SCHEMA_GOLDENS = [
    "v1.6.0-small.json",
    "v1.7.0-small.json",
    "v1.10.0-small.json",
    "v1.12.8-small.json",
    "v1.13.0-small.json",
    "v1.13.7-small.json",
    "v1.14.0-small.json",
    "v1.17.0-small.json",
    "v1.17.1-small.json",
    "v1.18.0-small.json",
]


def test_every_golden_of_the_corpus_is_listed() -> None:
    expected = corpus_path("expected")
    found = sorted(p.name for p in expected.iterdir() if p.suffix in (".json", ".yaml"))
    assert found == sorted(GOLDENS)
    assert sorted(p.name for p in (expected / "schemas").iterdir()) == sorted(SCHEMA_GOLDENS)


@pytest.mark.parametrize(
    "golden", GOLDENS + [f"schemas/{name}" for name in SCHEMA_GOLDENS], ids=str
)
def test_corpus_goldens_are_valid(golden: str) -> None:
    summary = Summary()
    problems = list(validate(corpus_path("expected", *golden.split("/")), summary=summary))
    assert [p for p in problems if p.severity == "error"] == []
    assert summary.valid() and summary.packages > 0


def test_dangling_replaces_of_deprecated_bundles_are_warnings() -> None:
    # opm leaves deprecated bundles out, and the entries that replaced them keep their replaces.
    root = corpus_path("expected", "deprecated.json")
    problems = run_validation(root)
    assert facts(problems) == [
        (
            "warning",
            "replaces-outside",
            f'entry "etcdoperator.v0.9.2" replaces "etcdoperator.v0.9.0", which is not in '
            f'channel "{channel}" (allowed for the tail of the channel)',
            f"{root}/etcd/catalog.json#{document}",
            channel,
            "",
        )
        for document, channel in ((2, "alpha"), (3, "stable"))
    ]


@pytest.mark.parametrize(
    "reference",
    ["sqlite/small.db", "sqlite/index-upstream.db", "images/test-index-v1.oci.tar"],
)
def test_corpus_databases_and_images_are_valid(reference: str) -> None:
    summary = Summary()
    assert list(validate(corpus_path(*reference.split("/")), summary=summary)) == []
    assert summary.packages > 0
    assert summary.kind == ("image" if reference.startswith("images") else "sqlite")


def test_corpus_package_manifests_are_valid_with_the_loader_note() -> None:
    root = corpus_path("pkgman", "upstream-subset")
    summary = Summary()
    problems = list(validate(root, summary=summary))
    assert (summary.kind, summary.packages, summary.errors) == ("pkgman", 40, 0)
    assert [(p.severity, p.rule, p.file) for p in problems] == [
        (
            "warning",
            "reader",
            str(root / "litmuschaos" / "1.9.0" / "chaosengines.litmuschaos.io.crd.yaml"),
        )
    ]


def test_corpus_tests_skip_without_the_shared_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support import paths

    monkeypatch.setattr(paths, "CORPUS", Path("/nonexistent/shared/corpus"))
    with pytest.raises(pytest.skip.Exception, match="is absent"):
        paths.corpus_path("expected")
    assert CORPUS.name == "corpus"


# -- a valid hand-built catalog -------------------------------------------------------------------


def test_a_valid_catalog_has_no_problems(tmp_path: Path) -> None:
    root = write_fbc(tmp_path / "fbc", *good_package("foo"), *good_package("bar"))
    summary = Summary()
    assert list(validate(root, summary=summary)) == []
    assert (summary.kind, summary.packages, summary.errors, summary.warnings) == ("fbc", 2, 0, 0)


def test_blobs_of_one_package_may_be_spread_over_files(tmp_path: Path) -> None:
    blobs = good_package()
    root = tmp_path / "fbc"
    write_fbc(root, blobs[0], name="foo/package.yaml.json")
    write_fbc(root, *blobs[1:], name="foo/more/rest.json")
    assert run_validation(root) == []


# -- blob rules -----------------------------------------------------------------------------------


def test_parse(tmp_path: Path) -> None:
    root = write_fbc(tmp_path / "fbc", *good_package())
    (root / "broken.json").write_text('{"schema": "olm.package", "name": "bar"}\n{"schema": ')
    problems = run_validation(root)
    assert (problems[0].rule, problems[0].file) == ("parse", str(root / "broken.json"))
    assert problems[0].message.startswith("document 2 is not valid JSON: ")
    # The document before the broken one was read: package bar has neither channels nor default.
    assert [(p.rule, p.package, p.file) for p in problems[1:]] == [
        ("no-channels", "bar", f"{root / 'broken.json'}#1"),
        ("default-channel", "bar", f"{root / 'broken.json'}#1"),
    ]


def test_parse_yaml(tmp_path: Path) -> None:
    root = write_fbc(tmp_path / "fbc", *good_package())
    (root / "broken.yaml").write_text("schema: olm.package\nname: [unclosed\n")
    problems = run_validation(root)
    assert [(p.rule, p.file) for p in problems] == [("parse", str(root / "broken.yaml"))]
    assert problems[0].message.startswith("not valid YAML: ")


def test_blob(tmp_path: Path) -> None:
    root = write_fbc(tmp_path / "fbc", *good_package(), ["not", "an", "object"])
    assert facts(run_validation(root)) == [
        ("error", "blob", "a catalog blob must be an object, got an array", at(root, 5), "", "")
    ]


def test_schema(tmp_path: Path) -> None:
    root = write_fbc(tmp_path / "fbc", {"name": "foo"}, *good_package(), {"schema": ""})
    message = "blob has no schema (a non-empty 'schema' string)"
    assert facts(run_validation(root)) == [
        ("error", "schema", message, at(root, 1), "", ""),
        ("error", "schema", message, at(root, 6), "", ""),
    ]


def test_field_type(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[1]["entries"][1]["skips"] = "foo.v0.0.1"
    blobs[3]["image"] = 42
    root = write_fbc(tmp_path / "fbc", *blobs, {"schema": "olm.bundle", "name": 7, "package": "x"})
    assert facts(run_validation(root)) == [
        ("error", "field-type", "olm.bundle blob: name must be strings", at(root, 5), "", ""),
        (
            "error",
            "field-type",
            'olm.channel "stable": field "entries[1].skips" must be a list, got a string',
            at(root, 2),
            "stable",
            "",
        ),
        (
            "error",
            "field-type",
            'olm.bundle "foo.v0.2.0": field "image" must be a string, got a number',
            at(root, 4),
            "",
            "foo.v0.2.0",
        ),
    ]


def test_required_field(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[1]["entries"].append({"replaces": "foo.v0.2.0"})
    root = write_fbc(
        tmp_path / "fbc",
        *blobs,
        {"schema": "olm.bundle", "name": "orphan.v1.0.0"},
        {"schema": "olm.package"},
        {"schema": "olm.bundle", "name": "foo.v0.3.0", "package": "foo", "properties": [{}]},
    )
    assert facts(run_validation(root)) == [
        (
            "error",
            "required-field",
            'olm.bundle blob "orphan.v1.0.0" has no package',
            at(root, 5),
            "",
            "",
        ),
        ("error", "required-field", "olm.package blob has no name", at(root, 6), "", ""),
        (
            "error",
            "required-field",
            'olm.channel "stable": field "entries[2].name" is required',
            at(root, 2),
            "stable",
            "",
        ),
        (
            "error",
            "required-field",
            'olm.bundle "foo.v0.3.0": field "properties[0].type" is required',
            at(root, 7),
            "",
            "foo.v0.3.0",
        ),
        (
            "error",
            "required-field",
            'olm.bundle "foo.v0.3.0": properties[0] (no type) has no value',
            at(root, 7),
            "",
            "foo.v0.3.0",
        ),
    ]


def test_unknown_package(tmp_path: Path) -> None:
    root = write_fbc(
        tmp_path / "fbc",
        *good_package(),
        ch("stable", entry("bar.v1.0.0"), package="bar"),
        bnd("bar.v1.0.0", "1.0.0", "bar"),
    )
    problems = run_validation(root)
    assert facts(problems) == [
        (
            "error",
            "unknown-package",
            'olm.channel blob "stable" names package "bar", which has no olm.package blob',
            at(root, 5),
            "stable",
            "",
        ),
        (
            "error",
            "unknown-package",
            'olm.bundle blob "bar.v1.0.0" names package "bar", which has no olm.package blob',
            at(root, 6),
            "",
            "bar.v1.0.0",
        ),
    ]
    assert {p.package for p in problems} == {"bar"}


@pytest.mark.parametrize(
    ("index", "rule", "what", "channel", "bundle"),
    [
        (0, "duplicate-package", 'package "foo"', "", ""),
        (1, "duplicate-channel", 'channel "stable" of package "foo"', "stable", ""),
        (2, "duplicate-bundle", 'bundle "foo.v0.1.0" of package "foo"', "", "foo.v0.1.0"),
    ],
)
def test_duplicates(
    tmp_path: Path, index: int, rule: str, what: str, channel: str, bundle: str
) -> None:
    blobs = good_package()
    root = tmp_path / "fbc"
    write_fbc(root, *blobs)
    write_fbc(root, blobs[index], name="zz-again.json")
    problems = run_validation(root)
    assert facts(problems) == [
        (
            "error",
            rule,
            f"duplicate {what}: first defined in {at(root, index + 1)}",
            at(root, 1, "zz-again.json"),
            channel,
            bundle,
        )
    ]
    assert problems[0].package == "foo"


def test_duplicate_deprecations(tmp_path: Path) -> None:
    deprecations = {"schema": "olm.deprecations", "package": "foo", "entries": []}
    root = write_fbc(tmp_path / "fbc", *good_package(), deprecations, deprecations)
    assert facts(run_validation(root)) == [
        (
            "error",
            "duplicate-deprecations",
            f'duplicate olm.deprecations of package "foo": first defined in {at(root, 5)}',
            at(root, 6),
            "",
            "",
        )
    ]


# -- package rules --------------------------------------------------------------------------------


def test_package_name(tmp_path: Path) -> None:
    root = write_fbc(tmp_path / "fbc", *good_package("Foo.Operator"))
    assert facts(run_validation(root)) == [
        (
            "error",
            "package-name",
            'package name "Foo.Operator" is not a valid RFC 1123 label (lowercase letters, '
            "digits and '-', starting and ending with a letter or digit, at most 63 characters)",
            at(root, 1),
            "",
            "",
        )
    ]


def test_default_channel_missing(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[0] = pkg(default=None)
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert facts(run_validation(root)) == [
        ("error", "default-channel", 'package "foo" has no default channel', at(root, 1), "", "")
    ]


def test_default_channel_not_a_channel(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[0] = pkg(default="fast")
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert facts(run_validation(root)) == [
        (
            "error",
            "default-channel",
            'default channel "fast" is not a channel of package "foo" (channels: stable)',
            at(root, 1),
            "",
            "",
        )
    ]


def test_no_channels(tmp_path: Path) -> None:
    root = write_fbc(tmp_path / "fbc", pkg())
    assert facts(run_validation(root)) == [
        ("error", "no-channels", 'package "foo" has no channels', at(root, 1), "", ""),
        (
            "error",
            "default-channel",
            'default channel "stable" is not a channel of package "foo" (channels: none)',
            at(root, 1),
            "",
            "",
        ),
    ]


# -- channel rules --------------------------------------------------------------------------------


def test_empty_channel(tmp_path: Path) -> None:
    root = write_fbc(tmp_path / "fbc", *good_package(), ch("fast"))
    assert facts(run_validation(root)) == [
        ("error", "empty-channel", 'channel "fast" has no entries', at(root, 5), "fast", "")
    ]


def test_duplicate_entry(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[1]["entries"].append(entry("foo.v0.1.0"))
    root = write_fbc(tmp_path / "fbc", *blobs)
    problems = facts(run_validation(root))
    assert problems[0] == (
        "error",
        "duplicate-entry",
        'channel "stable" lists entry "foo.v0.1.0" 2 times',
        at(root, 2),
        "stable",
        "",
    )
    assert len(problems) == 1


def test_missing_bundle(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[1]["entries"].append(entry("foo.v0.3.0", "foo.v0.2.0"))
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert facts(run_validation(root)) == [
        (
            "error",
            "missing-bundle",
            'channel "stable" entry "foo.v0.3.0" has no olm.bundle blob',
            at(root, 2),
            "stable",
            "",
        )
    ]


def test_a_broken_bundle_blob_is_not_also_a_missing_bundle(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[3]["relatedImages"] = "quay.io/example/foo:1"
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert [p.rule for p in run_validation(root)] == ["field-type"]


def test_channel_head_several(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[1]["entries"].append(entry("foo.v0.2.1", "foo.v0.1.0"))
    blobs.append(bnd("foo.v0.2.1", "0.2.1"))
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert facts(run_validation(root)) == [
        (
            "error",
            "channel-head",
            'channel "stable" has 2 heads (foo.v0.2.0, foo.v0.2.1); exactly one entry may be '
            "replaced or skipped by no other",
            at(root, 2),
            "stable",
            "",
        )
    ]


def test_channel_head_none_and_replaces_cycle(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[1]["entries"][0]["replaces"] = "foo.v0.2.0"
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert facts(run_validation(root)) == [
        (
            "error",
            "replaces-cycle",
            'replaces cycle in channel "stable": foo.v0.1.0 -> foo.v0.2.0 -> foo.v0.1.0',
            at(root, 2),
            "stable",
            "",
        ),
        (
            "error",
            "channel-head",
            'channel "stable" has no head: every entry is replaced or skipped by another',
            at(root, 2),
            "stable",
            "",
        ),
    ]


def test_replaces_cycle_below_the_head(tmp_path: Path) -> None:
    # head v0.3.0 -> v0.2.0 -> v0.1.0 -> v0.2.0: one head, and a cycle under it.
    blobs = good_package()
    blobs[1]["entries"][0]["replaces"] = "foo.v0.2.0"
    blobs[1]["entries"].append(entry("foo.v0.3.0", "foo.v0.2.0"))
    blobs.append(bnd("foo.v0.3.0", "0.3.0"))
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert [(p.rule, p.message) for p in run_validation(root)] == [
        (
            "replaces-cycle",
            'replaces cycle in channel "stable": foo.v0.1.0 -> foo.v0.2.0 -> foo.v0.1.0',
        )
    ]


def test_stranded(tmp_path: Path) -> None:
    blobs = good_package()
    # v0.0.1 is replaced by nobody and replaces nothing ... but v0.0.2 skips it (allowed);
    # v0.0.5 is neither on the chain from the head nor skipped: stranded, as is v0.0.6 under it.
    blobs[1]["entries"] += [
        entry("foo.v0.0.1"),
        entry("foo.v0.0.5"),
        entry("foo.v0.0.6", "foo.v0.0.5"),
    ]
    blobs[1]["entries"][1]["skips"] = ["foo.v0.0.1"]
    blobs[1]["entries"][0]["skips"] = ["foo.v0.0.6"]
    blobs += [bnd("foo.v0.0.1", "0.0.1"), bnd("foo.v0.0.5", "0.0.5"), bnd("foo.v0.0.6", "0.0.6")]
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert facts(run_validation(root)) == [
        (
            "error",
            "stranded",
            'channel "stable" has stranded entries, neither reachable from head "foo.v0.2.0" '
            "along replaces nor skipped: foo.v0.0.5",
            at(root, 2),
            "stable",
            "",
        )
    ]


def test_replaces_chain_stops_at_a_skipped_target(tmp_path: Path) -> None:
    # opm: a replaces edge to a skipped entry is not followed, so v0.1.0's own predecessor
    # v0.0.9 is stranded although it is on the replaces chain.
    blobs = good_package()
    blobs[1]["entries"][1]["skips"] = ["foo.v0.1.0"]
    blobs[1]["entries"][0]["replaces"] = "foo.v0.0.9"
    blobs[1]["entries"].append(entry("foo.v0.0.9"))
    blobs.append(bnd("foo.v0.0.9", "0.0.9"))
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert [(p.rule, p.message.split(": ")[-1]) for p in run_validation(root)] == [
        ("stranded", "foo.v0.0.9")
    ]


def test_empty_skip(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[1]["entries"][1]["skips"] = ["foo.v0.0.1", ""]
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert facts(run_validation(root)) == [
        (
            "error",
            "empty-skip",
            'entry "foo.v0.2.0" of channel "stable": skips[1] is empty',
            at(root, 2),
            "stable",
            "",
        )
    ]


def test_skip_range(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[1]["entries"][1]["skipRange"] = ">=0.1.0 <0.2"
    root = write_fbc(tmp_path / "fbc", *blobs)
    problems = facts(run_validation(root))
    assert problems == [
        (
            "error",
            "skip-range",
            'entry "foo.v0.2.0" of channel "stable" has an invalid skipRange: invalid skipRange '
            '">=0.1.0 <0.2": version "0.2" in "<0.2": MAJOR.MINOR.PATCH is required',
            at(root, 2),
            "stable",
            "",
        )
    ]


# -- bundle rules ---------------------------------------------------------------------------------


def test_bundle_not_in_channel(tmp_path: Path) -> None:
    root = write_fbc(tmp_path / "fbc", *good_package(), bnd("foo.v0.3.0", "0.3.0"))
    assert facts(run_validation(root)) == [
        (
            "error",
            "bundle-not-in-channel",
            'bundle "foo.v0.3.0" is not an entry of any channel of package "foo"',
            at(root, 5),
            "",
            "foo.v0.3.0",
        )
    ]


def test_package_property_count(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[2]["properties"] = []
    blobs[3]["properties"] *= 2
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert facts(run_validation(root)) == [
        (
            "error",
            "package-property",
            f'bundle "foo.v0.{n}.0" must have exactly one olm.package property, found {count}',
            at(root, n + 2),
            "",
            f"foo.v0.{n}.0",
        )
        for n, count in ((1, 0), (2, 2))
    ]


def test_package_property_names_another_package(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[3]["properties"][0]["value"]["packageName"] = "foooperator"
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert facts(run_validation(root)) == [
        (
            "error",
            "package-property",
            'bundle "foo.v0.2.0" is in package "foo" but its olm.package property names '
            '"foooperator"',
            at(root, 4),
            "",
            "foo.v0.2.0",
        )
    ]


def test_version(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[3]["properties"][0]["value"]["version"] = "v0.2"
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert facts(run_validation(root)) == [
        (
            "error",
            "version",
            'bundle "foo.v0.2.0" olm.package version: invalid version "v0.2": MAJOR.MINOR.PATCH '
            "is required",
            at(root, 4),
            "",
            "foo.v0.2.0",
        )
    ]


def test_duplicate_version(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[3]["properties"][0]["value"]["version"] = "0.1.0"
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert facts(run_validation(root)) == [
        (
            "error",
            "duplicate-version",
            'bundle "foo.v0.1.0" has version 0.1.0, as foo.v0.2.0 does',
            at(root, 3),
            "",
            "foo.v0.1.0",
        ),
        (
            "error",
            "duplicate-version",
            'bundle "foo.v0.2.0" has version 0.1.0, as foo.v0.1.0 does',
            at(root, 4),
            "",
            "foo.v0.2.0",
        ),
    ]


def test_property(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[3]["properties"] += [
        {"type": "olm.gvk", "value": ["example.com", "v1", "Foo"]},
        {"type": "olm.package.required", "value": {"packageName": "", "versionRange": ">=1.0.0"}},
    ]
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert facts(run_validation(root)) == [
        (
            "error",
            "property",
            'bundle "foo.v0.2.0" properties[1] (olm.gvk): property olm.gvk value must be a JSON '
            'object, got ["example.com","v1","Foo"]',
            at(root, 4),
            "",
            "foo.v0.2.0",
        ),
        (
            "error",
            "property",
            'bundle "foo.v0.2.0" properties[2] (olm.package.required): packageName must not be '
            "empty",
            at(root, 4),
            "",
            "foo.v0.2.0",
        ),
    ]


def test_gvk(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[2]["properties"].append(
        {"type": "olm.gvk.required", "value": {"group": "", "kind": "", "version": "v1"}}
    )
    blobs[3]["properties"].append(
        {"type": "olm.gvk", "value": {"group": "example.com", "kind": "Foo", "version": ""}}
    )
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert facts(run_validation(root)) == [
        (
            "error",
            "gvk",
            'bundle "foo.v0.1.0" properties[1] (olm.gvk.required): kind must not be empty',
            at(root, 3),
            "",
            "foo.v0.1.0",
        ),
        (
            "error",
            "gvk",
            'bundle "foo.v0.2.0" properties[1] (olm.gvk): version must not be empty',
            at(root, 4),
            "",
            "foo.v0.2.0",
        ),
    ]


def test_version_range(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[3]["properties"].append(
        {"type": "olm.package.required", "value": {"packageName": "bar", "versionRange": "~1.2"}}
    )
    root = write_fbc(tmp_path / "fbc", *blobs)
    problems = facts(run_validation(root))
    assert len(problems) == 1
    severity, rule, message, file, _, bundle = problems[0]
    assert (severity, rule, file, bundle) == ("error", "version-range", at(root, 4), "foo.v0.2.0")
    assert message.startswith(
        'bundle "foo.v0.2.0" properties[1] (olm.package.required): invalid skipRange "~1.2"'
    )


def test_bundle_object(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[3]["properties"] += [
        {"type": "olm.bundle.object", "value": {"data": "not base64!"}},
        {"type": "olm.bundle.object", "value": {"ref": "objects/csv.yaml", "data": "e30="}},
        {"type": "olm.bundle.object", "value": {"data": "e30=\n"}},  # Go drops the newline
    ]
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert facts(run_validation(root)) == [
        (
            "error",
            "bundle-object",
            f'bundle "foo.v0.2.0" properties[{n}] (olm.bundle.object): {message}',
            at(root, 4),
            "",
            "foo.v0.2.0",
        )
        for n, message in (
            (1, "'data' is not valid base64"),
            (2, "fields 'ref' and 'data' are mutually exclusive"),
        )
    ]


def test_bundle_image(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[3]["image"] = ""
    blobs[2]["image"] = ""
    blobs[2]["properties"].append({"type": "olm.bundle.object", "value": {"data": "e30="}})
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert facts(run_validation(root)) == [
        (
            "error",
            "bundle-image",
            'bundle "foo.v0.2.0" has no image and no olm.bundle.object properties',
            at(root, 4),
            "",
            "foo.v0.2.0",
        )
    ]


# -- deprecation rules ----------------------------------------------------------------------------


def deprecations(*entries: tuple[str, str, str]) -> dict[str, Any]:
    return {
        "schema": "olm.deprecations",
        "package": "foo",
        "entries": [
            {"reference": {"schema": schema, **({"name": name} if name else {})}, "message": text}
            for schema, name, text in entries
        ],
    }


def test_deprecations_that_resolve_are_valid(tmp_path: Path) -> None:
    blob = deprecations(
        ("olm.package", "", "use bar"),
        ("olm.channel", "stable", "use fast"),
        ("olm.bundle", "foo.v0.1.0", "CVE-2024-0001"),
    )
    assert run_validation(write_fbc(tmp_path / "fbc", *good_package(), blob)) == []


def test_deprecation_reference(tmp_path: Path) -> None:
    blob = deprecations(
        ("olm.package", "foo", "named"),
        ("olm.channel", "fast", "gone"),
        ("olm.bundle", "foo.v9.0.0", "gone"),
        ("olm.operator", "x", "what"),
    )
    root = write_fbc(tmp_path / "fbc", *good_package(), blob)
    assert facts(run_validation(root)) == [
        (
            "error",
            "deprecation-reference",
            message,
            at(root, 5),
            channel,
            bundle,
        )
        for message, channel, bundle in (
            (
                "olm.deprecations entries[0]: an olm.package reference must not have a name "
                '(found "foo")',
                "",
                "",
            ),
            (
                'olm.deprecations entries[1]: cannot deprecate channel "fast": no such channel '
                'in package "foo"',
                "fast",
                "",
            ),
            (
                'olm.deprecations entries[2]: cannot deprecate bundle "foo.v9.0.0": no such '
                'bundle in package "foo"',
                "",
                "foo.v9.0.0",
            ),
            (
                'olm.deprecations entries[3]: unknown reference schema "olm.operator" (expected '
                "olm.package, olm.channel or olm.bundle)",
                "",
                "",
            ),
        )
    ]


def test_duplicate_deprecation_entry_and_message(tmp_path: Path) -> None:
    blob = deprecations(
        ("olm.bundle", "foo.v0.1.0", "old"),
        ("olm.bundle", "foo.v0.1.0", ""),
    )
    root = write_fbc(tmp_path / "fbc", *good_package(), blob)
    assert facts(run_validation(root)) == [
        (
            "error",
            "duplicate-deprecation-entry",
            'olm.deprecations entries[1]: olm.bundle "foo.v0.1.0" is deprecated more than once',
            at(root, 5),
            "",
            "foo.v0.1.0",
        ),
        (
            "error",
            "deprecation-message",
            "olm.deprecations entries[1]: the deprecation of olm.bundle has no message",
            at(root, 5),
            "",
            "foo.v0.1.0",
        ),
    ]


# -- everything at once, other forms, the model entry point --------------------------------------


def test_every_problem_is_reported_in_one_run(tmp_path: Path) -> None:
    broken = good_package("bar")
    broken[0]["defaultChannel"] = "fast"
    broken[3]["properties"] = []
    root = write_fbc(tmp_path / "fbc", *good_package("foo"), *broken, {"schema": 1})
    rules = [(p.rule, p.package) for p in run_validation(root)]
    assert rules == [
        ("schema", ""),
        ("default-channel", "bar"),
        ("package-property", "bar"),
    ]


def test_yaml_files_are_located_by_document(tmp_path: Path) -> None:
    import yaml

    blobs = good_package()
    blobs[1]["entries"][1]["skips"] = [""]
    root = tmp_path / "fbc"
    root.mkdir()
    (root / "index.yaml").write_text(yaml.safe_dump_all(blobs))
    assert [(p.rule, p.file) for p in run_validation(root)] == [
        ("empty-skip", f"{root / 'index.yaml'}#2")
    ]


def test_check_package_on_a_model_locates_by_names() -> None:
    from olmcat.model import Bundle, Channel, ChannelEntry, Package, PackageCatalog
    from olmcat.model.property import package

    model = PackageCatalog(
        Package("foo", "stable"),
        (Channel("stable", "foo", (ChannelEntry("foo.v1.0.0"), ChannelEntry("foo.v2.0.0"))),),
        (Bundle("foo.v1.0.0", "foo", "img:1", (package("foo", "1.0.0"),)),),
    )
    problems = check_package(model)
    assert [(p.rule, p.location) for p in problems] == [
        ("missing-bundle", "package foo, channel stable"),
        ("channel-head", "package foo, channel stable"),
    ]
    assert str(problems[0]) == (
        'package foo, channel stable: error: channel "stable" entry "foo.v2.0.0" has no '
        "olm.bundle blob [missing-bundle]"
    )


def test_sqlite_problems_name_package_channel_and_bundle(tmp_path: Path) -> None:
    spec = simple_package("demo", ("0.2.0", "0.1.0"))
    spec.channels["stable"][0].properties.append(
        ("olm.gvk", json.dumps({"group": "example.com", "kind": "", "version": "v1"}))
    )
    db = make_index_db(tmp_path / "index.db", [spec, simple_package("ok")])
    summary = Summary()
    problems = list(validate(db, summary=summary))
    assert (summary.kind, summary.packages) == ("sqlite", 2)
    assert [(p.rule, p.file, p.package, p.bundle) for p in problems] == [
        ("gvk", "", "demo", "demo.v0.2.0")
    ]
    assert problems[0].location == "package demo, bundle demo.v0.2.0"


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


def test_legacy(tmp_path: Path) -> None:
    root = tmp_path / "manifests"
    _package_manifest(root, "good", "good.v0.2.0", {"0.1.0": "", "0.2.0": "good.v0.1.0"})
    _package_manifest(root, "bad", "bad.v0.3.0", {"0.1.0": ""})
    _package_manifest(root, "worse", "worse.v0.2.0", {"0.2.0": "worse.v0.1.0"})
    summary = Summary()
    problems = list(validate(root, summary=summary))
    assert (summary.kind, summary.packages) == ("pkgman", 1)
    assert facts(problems) == [
        (
            "error",
            "legacy",
            "channel 'stable' points at currentCSV 'bad.v0.3.0', which is not in any version "
            f"directory of {root / 'bad'}",
            str(root / "bad" / "bad.package.yaml"),
            "",
            "",
        ),
        (
            "error",
            "legacy",
            problems[1].message,
            str(root / "worse" / "worse.package.yaml"),
            "",
            "",
        ),
    ]
    assert [p.package for p in problems] == ["bad", "worse"]
    assert "worse.v0.1.0" in problems[1].message


def test_reader_notes(tmp_path: Path) -> None:
    """What the permissive readers say becomes problems: skipped packages and bundle directories
    are errors, anything else a warning; a leading existing path becomes the location."""
    from olmcat.validate.checks import _reader_note

    here = str(tmp_path)
    assert _reader_note(f'skipped package "it\'s": {here}: no channels') == Problem(
        "error", "legacy", "no channels", here, "it's"
    )
    assert _reader_note(f"skipped bundle directory {here}/b: {here}: no CSV") == Problem(
        "error", "legacy", "no CSV", here
    )
    assert _reader_note("skipped bundle directory /gone/b: no CSV") == Problem(
        "error", "legacy", "no CSV", "/gone/b"
    )
    assert _reader_note(f"{here}: icon is not valid base64; left out") == Problem(
        "warning", "reader", "icon is not valid base64; left out", here
    )
    assert _reader_note("/gone: something") == Problem("warning", "reader", "/gone: something")


def test_unreadable_input_raises(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file or directory"):
        run_validation(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no catalog files"):
        run_validation(tmp_path / "empty")


def test_image_archive_with_an_fbc_names_files_inside_the_image(tmp_path: Path) -> None:
    """An OCI layout holding /configs: locations are <archive>:/configs/<file>#<document>."""
    import hashlib
    import io
    import tarfile

    blobs = good_package()
    blobs[1]["entries"][1]["skips"] = [""]
    catalog = "".join(json.dumps(b) + "\n" for b in blobs).encode()
    layer = io.BytesIO()
    with tarfile.open(fileobj=layer, mode="w") as tar:
        for directory in ("configs", "configs/foo"):
            info = tarfile.TarInfo(directory)
            info.type = tarfile.DIRTYPE
            tar.addfile(info)
        info = tarfile.TarInfo("configs/foo/catalog.json")
        info.size = len(catalog)
        tar.addfile(info, io.BytesIO(catalog))
    layout = tmp_path / "image"
    (layout / "blobs" / "sha256").mkdir(parents=True)

    def put(data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        (layout / "blobs" / "sha256" / digest).write_bytes(data)
        return f"sha256:{digest}"

    layer_bytes = layer.getvalue()
    layer_digest = put(layer_bytes)
    config = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            "config": {"Labels": {"operators.operatorframework.io.index.configs.v1": "/configs"}},
            "rootfs": {"type": "layers", "diff_ids": [layer_digest]},
        }
    ).encode()
    config_digest = put(config)
    manifest = json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {
                "mediaType": "application/vnd.oci.image.config.v1+json",
                "digest": config_digest,
                "size": len(config),
            },
            "layers": [
                {
                    "mediaType": "application/vnd.oci.image.layer.v1.tar",
                    "digest": layer_digest,
                    "size": len(layer_bytes),
                }
            ],
        }
    ).encode()
    manifest_digest = put(manifest)
    (layout / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
    (layout / "index.json").write_text(
        json.dumps(
            {
                "schemaVersion": 2,
                "manifests": [
                    {
                        "mediaType": "application/vnd.oci.image.manifest.v1+json",
                        "digest": manifest_digest,
                        "size": len(manifest),
                    }
                ],
            }
        )
    )
    summary = Summary()
    problems = list(validate(layout, summary=summary))
    assert summary.kind == "image"
    assert [(p.rule, p.file) for p in problems] == [
        ("empty-skip", f"{layout}:/configs/foo/catalog.json#2")
    ]


# -- the command ----------------------------------------------------------------------------------


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_cli_valid_catalog(tmp_path: Path) -> None:
    root = write_fbc(tmp_path / "fbc", *good_package())
    code, out, err = invoke("validate", str(root))
    assert (code, out) == (0, "")
    assert err.startswith(f"{root}: valid: 1 packages, 0 errors, 0 warnings (")


def test_cli_text_reports_every_problem_and_fails(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[1]["entries"].append(entry("foo.v0.3.0", "foo.v0.2.0"))
    blobs.append(bnd("foo.v0.4.0", "0.4.0"))
    root = write_fbc(tmp_path / "fbc", *blobs)
    code, out, err = invoke("validate", str(root))
    assert code == 1
    assert out.splitlines() == [
        f'{at(root, 2)} (package foo, channel stable): error: channel "stable" entry '
        '"foo.v0.3.0" has no olm.bundle blob [missing-bundle]',
        f'{at(root, 5)} (package foo, bundle foo.v0.4.0): error: bundle "foo.v0.4.0" is not an '
        'entry of any channel of package "foo" [bundle-not-in-channel]',
    ]
    assert "invalid: 1 packages, 2 errors, 0 warnings" in err


def test_cli_json(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[1]["entries"][0]["replaces"] = "foo.v0.0.9"
    root = write_fbc(tmp_path / "fbc", *blobs)
    code, out, _ = invoke("validate", "--format", "json", "-q", str(root))
    assert code == 0
    document = json.loads(out)
    assert document == {
        "catalog": str(root),
        "kind": "fbc",
        "valid": True,
        "strict": False,
        "packages": 1,
        "errors": 0,
        "warnings": 1,
        "problems": [
            {
                "severity": "warning",
                "rule": "replaces-outside",
                "message": 'entry "foo.v0.1.0" replaces "foo.v0.0.9", which is not in channel '
                '"stable" (allowed for the tail of the channel)',
                "file": at(root, 2),
                "package": "foo",
                "channel": "stable",
                "bundle": "",
            }
        ],
    }


def test_cli_strict_fails_on_warnings(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[1]["entries"][0]["replaces"] = "foo.v0.0.9"
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert invoke("validate", "-q", str(root))[0] == 0
    code, out, err = invoke("validate", "--strict", str(root))
    assert code == 1
    assert "[replaces-outside]" in out
    assert "invalid: 1 packages, 0 errors, 1 warnings" in err
    code, out, _ = invoke("validate", "--strict", "--format", "json", "-q", str(root))
    assert code == 1 and json.loads(out)["valid"] is False


def test_cli_unreadable_input_is_one_line(tmp_path: Path) -> None:
    code, out, err = invoke("validate", str(tmp_path / "missing"))
    assert (code, out) == (1, "")
    assert err == f"olmcat: error: {tmp_path / 'missing'}: no such file or directory\n"


def test_cli_stdin(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[2]["properties"] = []
    text = "".join(json.dumps(b) for b in blobs)
    result = CliRunner().invoke(cli, ["validate", "-q", "-"], input=text)
    assert result.exit_code == 1
    assert result.stdout.startswith("<stdin>#3 (package foo, bundle foo.v0.1.0): error: ")


def test_cli_sqlite_and_package_manifests(tmp_path: Path) -> None:
    db = make_index_db(
        tmp_path / "index.db",
        [PackageSpec("x", "stable", {"stable": [BundleSpec("x.v1.0.0", "1.0.0")]})],
    )
    assert invoke("validate", "-q", str(db))[0] == 0
    root = tmp_path / "manifests"
    _package_manifest(root, "bad", "bad.v0.3.0", {"0.1.0": ""})
    code, out, _ = invoke("validate", "-q", str(root))
    assert code == 1
    assert out.startswith(f"{root / 'bad' / 'bad.package.yaml'} (package bad): error: channel ")
    assert out.rstrip().endswith("[legacy]")


def test_cli_validates_a_copy_of_a_corpus_golden(tmp_path: Path) -> None:
    source = corpus_path("expected", "small.json")
    copy = tmp_path / "small"
    shutil.copytree(source, copy)
    # Break it: the default channel names no channel.
    path = copy / "etcd" / "catalog.json"
    text = path.read_text()
    assert '"defaultChannel": "alpha"' in text
    path.write_text(text.replace('"defaultChannel": "alpha"', '"defaultChannel": "omega"'))
    code, out, _ = invoke("validate", "-q", str(copy))
    assert code == 1
    assert out == (
        f'{path}#1 (package etcd): error: default channel "omega" is not a channel of package '
        '"etcd" (channels: alpha, beta, stable) [default-channel]\n'
    )
