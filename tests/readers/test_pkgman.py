"""The package-manifest reader on trees built in code: the legacy loader's rules, one per test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import ValidationError
from olmcat.readers.pkgman import PkgmanCatalog
from tests.support.builders import crd_doc
from tests.support.builders import csv as csv_doc
from tests.support.paths import parse_stream


def write_package(
    root: Path,
    name: str,
    channels: list[tuple[str, str]],
    versions: dict[str, list[dict[str, Any]]],
    default: str | None = None,
) -> Path:
    """<root>/<name>/<name>.package.yaml plus one directory per version with its manifests."""
    pkg_dir = root / name
    pkg_dir.mkdir(parents=True)
    manifest: dict[str, Any] = {
        "packageName": name,
        "channels": [{"name": c, "currentCSV": h} for c, h in channels],
    }
    if default is not None:
        manifest["defaultChannel"] = default
    (pkg_dir / f"{name}.package.yaml").write_text(yaml.safe_dump(manifest))
    for version, docs in versions.items():
        (pkg_dir / version).mkdir()
        for index, doc in enumerate(docs):
            filename = f"{index:02d}-{doc['metadata']['name']}.yaml"
            (pkg_dir / version / filename).write_text(yaml.safe_dump(doc))
    return pkg_dir


def chain(name: str, *versions: str) -> dict[str, list[dict[str, Any]]]:
    """Version dirs where each CSV replaces the previous version."""
    out = {}
    for index, version in enumerate(versions):
        spec = {"replaces": f"{name}.v{versions[index - 1]}"} if index else {}
        out[version] = [csv_doc(f"{name}.v{version}", version, **spec)]
    return out


def read(root: Path, **kwargs: Any) -> list[Any]:
    return list(PkgmanCatalog(root, **kwargs))


def test_channels_follow_replaces_from_current_csv(tmp_path: Path) -> None:
    write_package(
        tmp_path, "demo", [("stable", "demo.v0.3.0")], chain("demo", "0.1.0", "0.2.0", "0.3.0")
    )
    (pkg,) = read(tmp_path)
    entries = pkg.channel("stable").entries
    assert [(e.name, e.replaces) for e in entries] == [
        ("demo.v0.1.0", ""),
        ("demo.v0.2.0", "demo.v0.1.0"),
        ("demo.v0.3.0", "demo.v0.2.0"),
    ]
    # The only channel is the default even though defaultChannel is not set (loader rule).
    assert pkg.package.default_channel == "stable"


def test_skips_and_skip_range_come_from_the_csv(tmp_path: Path) -> None:
    versions = chain("demo", "0.1.0", "0.2.0")
    head = versions["0.2.0"][0]
    head["spec"]["skips"] = ["demo.v0.1.5"]
    head["metadata"]["annotations"] = {"olm.skipRange": "<0.2.0"}
    write_package(tmp_path, "demo", [("stable", "demo.v0.2.0")], versions)
    (pkg,) = read(tmp_path)
    entry = pkg.channel("stable").entry("demo.v0.2.0")
    assert (entry.replaces, entry.skips, entry.skip_range) == (
        "demo.v0.1.0",
        ("demo.v0.1.5",),
        "<0.2.0",
    )


def test_provided_and_required_apis_become_properties(tmp_path: Path) -> None:
    crd = crd_doc("widgets", "example.com", "Widget", ["v1alpha1", "v1"])
    csv = csv_doc(
        "demo.v1.0.0",
        "1.0.0",
        customresourcedefinitions={
            "owned": [{"name": "widgets.example.com", "version": "v1", "kind": "Widget"}],
            "required": [{"name": "gadgets.other.io", "version": "v2", "kind": "Gadget"}],
        },
    )
    write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], {"1.0.0": [csv, crd]})
    (pkg,) = read(tmp_path)
    props = [(p.type, json.loads(p.value)) for p in pkg.bundles[0].properties]
    assert ("olm.gvk", {"group": "example.com", "kind": "Widget", "version": "v1"}) in props
    assert ("olm.gvk", {"group": "example.com", "kind": "Widget", "version": "v1alpha1"}) in props
    assert ("olm.gvk.required", {"group": "other.io", "kind": "Gadget", "version": "v2"}) in props
    assert ("olm.package", {"packageName": "demo", "version": "1.0.0"}) in props
    objects = [v for t, v in props if t == "olm.bundle.object"]
    assert len(objects) == 2  # CSV and CRD, in file-name order


def test_non_manifest_files_are_skipped(tmp_path: Path) -> None:
    pkg_dir = write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    (pkg_dir / "ci.yaml").write_text("reviewers: [someone]\n")
    (pkg_dir / "1.0.0" / "Dockerfile").write_text("FROM scratch\n")
    (pkg_dir / "1.0.0" / "README.md").write_text("# not yaml: [\n")
    (pkg,) = read(tmp_path)
    assert [b.name for b in pkg.bundles] == ["demo.v1.0.0"]


def test_indexignore_excludes_files(tmp_path: Path) -> None:
    pkg_dir = write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    (pkg_dir / "1.0.0" / "broken.yaml").write_text("kind: [unclosed\n")
    (pkg_dir / ".indexignore").write_text("broken.yaml\n")
    (pkg,) = read(tmp_path)
    assert [b.name for b in pkg.bundles] == ["demo.v1.0.0"]


def test_bundle_in_no_channel_is_left_out_with_a_warning(tmp_path: Path) -> None:
    versions = chain("demo", "1.0.0")
    versions["9.9.9"] = [csv_doc("demo.v9.9.9", "9.9.9")]
    write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], versions)
    warnings: list[str] = []
    (pkg,) = read(tmp_path, warn=warnings.append)
    assert [b.name for b in pkg.bundles] == ["demo.v1.0.0"]
    assert any("demo.v9.9.9" in w and "is in no channel" in w for w in warnings)


RULES = {
    "no-channels": (
        lambda root: write_package(root, "demo", [], chain("demo", "1.0.0")),
        "package 'demo' has no channels",
    ),
    "current-csv-missing": (
        lambda root: write_package(
            root, "demo", [("stable", "demo.v2.0.0")], chain("demo", "1.0.0")
        ),
        "channel 'stable' points at currentCSV 'demo.v2.0.0', which is not in any version",
    ),
    "two-csvs-in-a-version": (
        lambda root: write_package(
            root,
            "demo",
            [("stable", "demo.v1.0.0")],
            {"1.0.0": [csv_doc("demo.v1.0.0", "1.0.0"), csv_doc("demo.v1.0.1", "1.0.1")]},
        ),
        "a version directory must hold exactly one ClusterServiceVersion, found 2",
    ),
    "owned-crd-missing": (
        lambda root: write_package(
            root,
            "demo",
            [("stable", "demo.v1.0.0")],
            {
                "1.0.0": [
                    csv_doc(
                        "demo.v1.0.0",
                        "1.0.0",
                        customresourcedefinitions={
                            "owned": [{"name": "foos.example.com", "version": "v1", "kind": "Foo"}]
                        },
                    )
                ]
            },
        ),
        "the CSV owns CRDs that are not in the version directory: foos.example.com v1/Foo",
    ),
    "replaces-missing": (
        lambda root: write_package(
            root,
            "demo",
            [("stable", "demo.v2.0.0")],
            {"2.0.0": [csv_doc("demo.v2.0.0", "2.0.0", replaces="demo.v1.0.0")]},
        ),
        "demo.v2.0.0 replaces 'demo.v1.0.0', which does not exist",
    ),
    "replaces-cycle": (
        lambda root: write_package(
            root,
            "demo",
            [("stable", "demo.v2.0.0")],
            {
                "1.0.0": [csv_doc("demo.v1.0.0", "1.0.0", replaces="demo.v2.0.0")],
                "2.0.0": [csv_doc("demo.v2.0.0", "2.0.0", replaces="demo.v1.0.0")],
            },
        ),
        "cycle, demo.v1.0.0 replaces demo.v2.0.0",
    ),
    "default-channel-unknown": (
        lambda root: write_package(
            root,
            "demo",
            [("a", "demo.v1.0.0"), ("b", "demo.v1.0.0")],
            chain("demo", "1.0.0"),
            default="c",
        ),
        "defaultChannel 'c' is not one of the channels",
    ),
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_legacy_rule_violations_name_file_and_rule(rule: str, tmp_path: Path) -> None:
    build, message = RULES[rule]
    build(tmp_path)
    with pytest.raises(ValidationError) as info:
        read(tmp_path)
    assert message in str(info.value)
    assert str(tmp_path / "demo") in str(info.value)


def test_permissive_skips_invalid_packages_and_keeps_the_rest(tmp_path: Path) -> None:
    write_package(tmp_path, "good", [("stable", "good.v1.0.0")], chain("good", "1.0.0"))
    write_package(tmp_path, "bad", [("stable", "bad.v9.0.0")], chain("bad", "1.0.0"))
    warnings: list[str] = []
    catalog = PkgmanCatalog(tmp_path, permissive=True, warn=warnings.append)
    assert [p.name for p in catalog] == ["good"]
    assert catalog.skipped == ["bad"]
    assert len(warnings) == 1 and warnings[0].startswith("skipped package 'bad':")


def test_cli_strict_stops_at_the_first_invalid_package(tmp_path: Path) -> None:
    write_package(tmp_path, "bad", [("stable", "bad.v9.0.0")], chain("bad", "1.0.0"))
    result = CliRunner().invoke(cli, ["migrate", "pkgman", str(tmp_path), str(tmp_path / "out")])
    assert result.exit_code == 1
    assert result.stderr.startswith("olmcat: error: ")
    assert "currentCSV 'bad.v9.0.0'" in result.stderr
    assert not (tmp_path / "out").exists()


def test_cli_permissive_reports_the_count(tmp_path: Path) -> None:
    src = tmp_path / "src"
    write_package(src, "good", [("stable", "good.v1.0.0")], chain("good", "1.0.0"))
    write_package(src, "bad", [("stable", "bad.v9.0.0")], chain("bad", "1.0.0"))
    result = CliRunner().invoke(
        cli, ["migrate", "pkgman", "--permissive", str(src), str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.stderr
    assert "olmcat: warning: skipped package 'bad'" in result.stderr
    assert "1 invalid packages skipped" in result.stderr
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["good"]


def test_cli_without_out_streams_the_catalog_to_stdout(tmp_path: Path) -> None:
    write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    result = CliRunner().invoke(cli, ["migrate", "pkgman", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    schemas = [b["schema"] for b in parse_stream(result.stdout)]
    assert schemas == ["olm.package", "olm.channel", "olm.bundle"]
    assert "to stdout" in result.stderr


def test_cli_yaml_stream_has_document_separators(tmp_path: Path) -> None:
    write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    result = CliRunner().invoke(cli, ["migrate", "pkgman", "-q", "-o", "yaml", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("---\n") == 3
    assert [d["schema"] for d in yaml.safe_load_all(result.stdout)] == [
        "olm.package",
        "olm.channel",
        "olm.bundle",
    ]


def test_unsafe_package_name_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "src"
    pkg_dir = write_package(src, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    (pkg_dir / "demo.package.yaml").write_text(
        yaml.safe_dump(
            {"packageName": "..", "channels": [{"name": "s", "currentCSV": "demo.v1.0.0"}]}
        )
    )
    result = CliRunner().invoke(cli, ["migrate", "pkgman", str(src), str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "package name '..' cannot be used as a directory name" in result.stderr
    assert not (tmp_path / "out").exists()


def test_missing_directory_is_a_one_line_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["migrate", "pkgman", str(tmp_path / "nope")])
    assert result.exit_code == 1
    assert result.stderr.strip() == f"olmcat: error: {tmp_path / 'nope'}: no such directory"
