"""``--opm-version`` and ``--migrate-level`` on every command that writes what an opm release
writes: migrate sqlite, migrate pkgman, add, template; render-template is covered in
tests/templates/test_pinned_releases.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from tests.support.builders import BundleSpec, PackageSpec, make_index_db
from tests.support.paths import catalog_blobs, parse_stream
from tests.support.template_strategies import POOL, write_bundle_dir

LEVEL = ("--migrate-level", "bundle-object-to-csv-metadata")


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def property_types(blob: dict[str, Any]) -> list[str]:
    return [p["type"] for p in blob.get("properties", [])]


def bundles_of(blobs: list[dict[str, Any]]) -> dict[str, list[str]]:
    return {b["name"]: property_types(b) for b in blobs if b["schema"] == "olm.bundle"}


@pytest.fixture
def database(tmp_path: Path) -> Path:
    """One bundle with a bundle path (its image) and one without."""
    bundles = [
        BundleSpec("demo.v0.2.0", "0.2.0", replaces="demo.v0.1.0", image="quay.io/x/demo:0.2.0"),
        BundleSpec("demo.v0.1.0", "0.1.0"),
    ]
    return make_index_db(
        tmp_path / "index.db", [PackageSpec("demo", "stable", {"stable": bundles})]
    )


def test_migrate_sqlite_per_release(database: Path) -> None:
    code, out, err = invoke("migrate", "sqlite", "-q", str(database), "-")
    assert code == 0, err
    assert bundles_of(parse_stream(out))["demo.v0.2.0"][-1] == "olm.bundle.object"
    # v1.28.0-v1.45: olm.csv.metadata for the bundle with a bundle path, by default
    code, out, err = invoke("migrate", "sqlite", "-q", "--opm-version", "1.40", str(database), "-")
    assert code == 0, err
    types = bundles_of(parse_stream(out))
    assert types["demo.v0.2.0"][-1] == "olm.csv.metadata"
    assert "olm.bundle.object" not in types["demo.v0.2.0"]
    assert types["demo.v0.1.0"][-1] == "olm.bundle.object"
    # the migration level exists since v1.46.0 ...
    code, _, err = invoke(
        "migrate", "sqlite", "-q", "--opm-version", "1.45", *LEVEL, str(database), "-"
    )
    assert code == 2 and "came with opm v1.46.0" in err
    # ... and in the newest release
    code, out, err = invoke("migrate", "sqlite", "-q", *LEVEL, str(database), "-")
    assert code == 0, err
    assert bundles_of(parse_stream(out))["demo.v0.2.0"][-1] == "olm.csv.metadata"


def test_unknown_release_is_a_usage_error_naming_the_range(database: Path, tmp_path: Path) -> None:
    for args in (
        ("migrate", "sqlite", "--opm-version", "1.74", str(database), "-"),
        ("migrate", "pkgman", "--opm-version", "2", str(tmp_path)),
        ("add", "--opm-version", "v1.25.0", str(tmp_path), "x", "out"),
        ("template", "basic", "--opm-version", "latest", str(database), "-"),
        ("render-template", "--opm-version", "1.26.4", "-"),
    ):
        code, _, err = invoke(*args)
        assert code == 2, args
        assert "v1.26.5 to v1.73.0" in err, (args, err)


@pytest.fixture
def bundle_tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    for bundle in POOL:
        if bundle.package == "demo" and bundle.version in ("1.0.0", "1.0.1"):
            write_bundle_dir(root, bundle)
    return root


def test_migrate_pkgman_migrate_level(bundle_tree: Path) -> None:
    template = "quay.io/acme/{package}-bundle:{version}"
    args = ("migrate", "pkgman", str(bundle_tree), "--image-ref-template", template)
    code, out, err = invoke(*args)
    assert code == 0, err
    assert all("olm.bundle.object" in t for t in bundles_of(parse_stream(out)).values())
    code, out, err = invoke(*args, *LEVEL)
    assert code == 0, err
    types = bundles_of(parse_stream(out))
    assert sorted(types) == ["demo.v1.0.0", "demo.v1.0.1"]
    assert all(t[-1] == "olm.csv.metadata" and "olm.bundle.object" not in t for t in types.values())
    code, _, err = invoke(*args, *LEVEL, "--opm-version", "1.26")
    assert code == 2 and "opm v1.26.5 has no migration levels" in err


def test_add_migrates_only_the_new_bundles(bundle_tree: Path, tmp_path: Path) -> None:
    first = bundle_tree / "demo" / "1.0.0"
    second = bundle_tree / "demo" / "1.0.1"
    (tmp_path / "empty").mkdir()
    code, _, err = invoke(
        "add", "-q", str(tmp_path / "empty"), f"quay.io/a/demo:1.0.0={first}", str(tmp_path / "one")
    )
    assert code == 0, err
    new = f"quay.io/a/demo:1.0.1={second}"
    code, _, err = invoke(
        "add", "-q", "--mode", "semver", *LEVEL, str(tmp_path / "one"), new, str(tmp_path / "two")
    )
    assert code == 0, err
    types = bundles_of(list(catalog_blobs(tmp_path / "two")))
    assert types["demo.v1.0.0"][-1] == "olm.bundle.object"  # already in the catalog: kept
    assert types["demo.v1.0.1"][-1] == "olm.csv.metadata"
    assert "olm.bundle.object" not in types["demo.v1.0.1"]
    old = ("--opm-version", "1.44", *LEVEL)
    code, _, err = invoke("add", "-q", *old, str(tmp_path / "one"), new, str(tmp_path / "three"))
    assert code == 2 and "v1.46.0" in err


def test_template_inline_bundles_are_written_migrated(bundle_tree: Path, tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    images = ("--image-ref-template", "quay.io/acme/{package}-bundle:{version}")
    code, _, err = invoke("migrate", "pkgman", "-q", *images, str(bundle_tree), str(catalog))
    assert code == 0, err
    out = tmp_path / "templates"
    args = ("template", "basic", "--inline-bundles", str(catalog), str(out))
    code, stdout, err = invoke(*args, *LEVEL)
    assert code == 0, err
    document = json.loads((out / "demo.json").read_text())
    assert document["schema"] == "olm.template.basic"
    inline = [e for e in document["entries"] if e["schema"] == "olm.bundle"]
    assert len(inline) == 2
    assert all(property_types(b)[-1] == "olm.csv.metadata" for b in inline)
    # rendering that template gives other bundle properties than the catalog has: reported
    assert "round trip: 0 exact, 1 with differences" in stdout
    code, stdout, err = invoke(*args[:-1], str(tmp_path / "plain"))
    assert code == 0 and "round trip: 1 exact" in stdout
