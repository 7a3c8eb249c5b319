"""The bundled example catalog in fixtures/example (the one the README migrates).

* every SQLite layout in fixtures/example/sqlite migrates to fixtures/example/expected byte for
  byte, except for the facts a layout cannot record (listed in NOT_RECORDED);
* the golden is checked fact by fact against the package manifests, read with plain PyYAML, so its
  correctness does not rest on olmcat alone;
* fixtures/make_examples.py reproduces the committed manifests byte for byte and databases with
  the same rows, which migrate to the same golden.

Nothing here needs ../shared: the example is self-contained.
"""

from __future__ import annotations

import ast
import base64
import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from olmcat.migrate import migrate_sqlite
from tests.support.paths import FIXTURES, parse_stream

SCRIPT = FIXTURES / "make_examples.py"
EXAMPLE = FIXTURES / "example"
EXPECTED = EXAMPLE / "expected"
MANIFESTS = EXAMPLE / "manifests"
SQLITE = EXAMPLE / "sqlite"
LAYOUTS = ["schema-13", "schema-7", "schema-5", "pre-migration"]

# layout -> {(package, bundle): properties of the golden that this layout cannot produce}.
NOT_RECORDED: dict[str, dict[tuple[str, str], list[dict[str, Any]]]] = {
    # opm v1.4.0's database has neither api_requirer (added by migration 003) nor dependencies
    # (migration 008): the CRDs a CSV requires were never written down, so world-operator's
    # requirement on hello-operator's Hello v1 API is lost. Everything else (versions, skip
    # range, related images, provided APIs) is recovered from the csv column and api_provider.
    "pre-migration": {
        ("world-operator", "world-operator.v1.0.0"): [
            {
                "type": "olm.gvk.required",
                "value": {"group": "example.com", "kind": "Hello", "version": "v1"},
            }
        ],
    },
}


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _without(
    blobs: list[dict[str, Any]], missing: dict[str, list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """``blobs`` with the properties in ``missing`` (bundle name -> properties) taken out."""
    out = []
    for blob in blobs:
        if blob.get("schema") == "olm.bundle" and blob["name"] in missing:
            blob = dict(blob)
            remaining = list(blob["properties"])
            for prop in missing[blob["name"]]:
                assert prop in remaining, f"{blob['name']}: golden lacks {prop}"
                remaining.remove(prop)
            blob["properties"] = remaining
        out.append(blob)
    return out


def assert_migrates_to_expected(db: Path, out: Path, layout: str) -> None:
    result = migrate_sqlite(db, out)
    assert result.warnings == []
    got, want = _files(out), _files(EXPECTED)
    assert sorted(got) == sorted(want)
    not_recorded = NOT_RECORDED.get(layout, {})
    for path, data in want.items():
        package = path.split("/")[0]
        missing = {b: props for (p, b), props in not_recorded.items() if p == package}
        if not missing:
            assert got[path] == data, f"{layout}: {path} differs from the golden"
            continue
        # Exactly the unrecordable facts differ, nothing else.
        assert got[path] != data
        assert parse_stream(got[path].decode()) == _without(parse_stream(data.decode()), missing)


# -- every layout migrates to the golden ---------------------------------------------------------


def test_every_committed_database_is_a_known_layout() -> None:
    assert sorted(p.stem for p in SQLITE.glob("*.db")) == sorted(LAYOUTS)
    assert set(NOT_RECORDED) <= set(LAYOUTS)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_layout_migrates_to_expected(layout: str, tmp_path: Path) -> None:
    assert_migrates_to_expected(SQLITE / f"{layout}.db", tmp_path / "out", layout)


def test_fixture_files_are_small() -> None:
    for path in EXAMPLE.rglob("*"):
        if path.is_file():
            assert path.stat().st_size < 64 * 1024, path


# -- the golden, checked against the manifests without olmcat ------------------------------------


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _manifest_packages() -> dict[str, dict[str, Any]]:
    """package -> {"package": package.yaml, "bundles": {CSV name: [objects in file order]}}."""
    packages: dict[str, dict[str, Any]] = {}
    for package_file in sorted(MANIFESTS.glob("*/*.package.yaml")):
        bundles: dict[str, list[Any]] = {}
        for version_dir in sorted(p for p in package_file.parent.iterdir() if p.is_dir()):
            objects = [_yaml(f) for f in sorted(version_dir.iterdir()) if f.is_file()]
            (csv,) = [o for o in objects if o["kind"] == "ClusterServiceVersion"]
            bundles[csv["metadata"]["name"]] = objects
        manifest = _yaml(package_file)
        assert package_file.name == f"{manifest['packageName']}.package.yaml"
        packages[manifest["packageName"]] = {"package": manifest, "bundles": bundles}
    return packages


def _csv(objects: list[Any]) -> dict[str, Any]:
    return next(o for o in objects if o["kind"] == "ClusterServiceVersion")


def _expected_blobs(package: str) -> dict[str, list[dict[str, Any]]]:
    blobs = parse_stream((EXPECTED / package / "catalog.json").read_text())
    by_schema: dict[str, list[dict[str, Any]]] = {}
    for blob in blobs:
        assert blob["schema"] == "olm.package" or blob["package"] == package
        by_schema.setdefault(blob["schema"], []).append(blob)
    return by_schema


def _channel_entries(channel_head: str, bundles: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """The legacy channel: the head and everything it replaces, transitively."""
    entries = []
    name: str | None = channel_head
    while name:
        spec = _csv(bundles[name])["spec"]
        annotations = _csv(bundles[name])["metadata"].get("annotations", {})
        entry: dict[str, Any] = {"name": name}
        if spec.get("replaces"):
            entry["replaces"] = spec["replaces"]
        if spec.get("skips"):
            entry["skips"] = spec["skips"]
        if annotations.get("olm.skipRange"):
            entry["skipRange"] = annotations["olm.skipRange"]
        entries.append(entry)
        name = spec.get("replaces")
    return sorted(entries, key=lambda e: e["name"])


def _props(bundle: dict[str, Any], type_: str) -> list[Any]:
    return [p["value"] for p in bundle["properties"] if p["type"] == type_]


def test_expected_packages_match_manifests() -> None:
    packages = _manifest_packages()
    assert sorted(packages) == sorted(p.name for p in EXPECTED.iterdir())
    assert sorted(packages) == ["hello-operator", "world-operator"]
    for name, pkg in packages.items():
        manifest, bundles = pkg["package"], pkg["bundles"]
        (package_blob,) = _expected_blobs(name)["olm.package"]
        assert package_blob["name"] == name
        assert package_blob["defaultChannel"] == manifest["defaultChannel"]
        # The icon is the first icon of the default channel head's CSV.
        heads = {c["name"]: c["currentCSV"] for c in manifest["channels"]}
        icons = _csv(bundles[heads[manifest["defaultChannel"]]])["spec"].get("icon")
        if icons:
            icon = package_blob["icon"]
            assert icon["mediatype"] == icons[0]["mediatype"]
            decoded = base64.b64decode(icon["base64data"])
            assert decoded == base64.b64decode(icons[0]["base64data"])
            assert decoded.startswith(b"\x89PNG\r\n\x1a\n")
        else:
            assert "icon" not in package_blob


def test_expected_channels_match_manifests() -> None:
    for name, pkg in _manifest_packages().items():
        channels = _expected_blobs(name)["olm.channel"]
        assert [c["name"] for c in channels] == sorted(
            c["name"] for c in pkg["package"]["channels"]
        )
        by_name = {c["name"]: c for c in channels}
        for channel in pkg["package"]["channels"]:
            want = _channel_entries(channel["currentCSV"], pkg["bundles"])
            assert by_name[channel["name"]]["entries"] == want, channel["name"]


def test_expected_bundles_match_manifests() -> None:
    for name, pkg in _manifest_packages().items():
        bundles = _expected_blobs(name)["olm.bundle"]
        assert [b["name"] for b in bundles] == sorted(pkg["bundles"])
        for bundle in bundles:
            objects = pkg["bundles"][bundle["name"]]
            csv = _csv(objects)
            assert bundle["package"] == name
            assert bundle["image"] == ""  # manifests loaded from a directory have no image
            types = {p["type"] for p in bundle["properties"]}
            assert types <= {"olm.package", "olm.gvk", "olm.gvk.required", "olm.bundle.object"}
            assert _props(bundle, "olm.package") == [
                {"packageName": name, "version": csv["spec"]["version"]}
            ]
            # Every manifest of the version directory, in file-name order, as JSON.
            decoded = [
                json.loads(base64.b64decode(v["data"])) for v in _props(bundle, "olm.bundle.object")
            ]
            assert decoded == objects
            assert bundle["properties"][-len(objects) :] == [
                {"type": "olm.bundle.object", "value": v}
                for v in _props(bundle, "olm.bundle.object")
            ]
            provided = {
                (o["spec"]["group"], o["spec"]["names"]["kind"], v["name"])
                for o in objects
                if o["kind"] == "CustomResourceDefinition"
                for v in o["spec"]["versions"]
            }
            assert {(g["group"], g["kind"], g["version"]) for g in _props(bundle, "olm.gvk")} == (
                provided
            )
            required = {
                (crd["name"].partition(".")[2], crd["kind"], crd["version"])
                for crd in csv["spec"].get("customresourcedefinitions", {}).get("required", [])
            }
            assert {
                (g["group"], g["kind"], g["version"]) for g in _props(bundle, "olm.gvk.required")
            } == required
            # Related images: spec.relatedImages with their names, then the deployments'
            # container images not already listed, unnamed; sorted by image.
            related = {ri["image"]: ri["name"] for ri in csv["spec"].get("relatedImages", [])}
            for deployment in csv["spec"]["install"]["spec"]["deployments"]:
                for container in deployment["spec"]["template"]["spec"]["containers"]:
                    related.setdefault(container["image"], "")
            assert bundle["relatedImages"] == [
                {"name": related[image], "image": image} for image in sorted(related)
            ]


def test_example_catalog_has_the_advertised_shape() -> None:
    """What the README promises about the example, read from the golden."""
    hello = _expected_blobs("hello-operator")
    channels = {c["name"]: c["entries"] for c in hello["olm.channel"]}
    assert channels["stable"] == [
        {"name": "hello-operator.v0.1.0"},
        {"name": "hello-operator.v0.2.0", "replaces": "hello-operator.v0.1.0"},
    ]
    assert channels["beta"][-1] == {
        "name": "hello-operator.v0.3.0",
        "replaces": "hello-operator.v0.2.0",
        "skips": ["hello-operator.v0.2.1"],
        "skipRange": "<0.2.0",
    }
    bundle_names = {b["name"] for b in hello["olm.bundle"]}
    assert "hello-operator.v0.2.1" not in bundle_names  # skipped, not in the catalog
    (world,) = _expected_blobs("world-operator")["olm.bundle"]
    assert _props(world, "olm.gvk.required") == [
        {"group": "example.com", "kind": "Hello", "version": "v1"}
    ]


# -- the generator ------------------------------------------------------------------------------


def test_generator_does_not_use_olmcat() -> None:
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {"__future__"}
    assert third_party <= {"yaml", "sqlite_utils"}


def test_generator_help() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, check=True
    )
    assert "--out" in done.stdout
    assert "hello-operator" in done.stdout


def _dump(db: Path) -> list[str]:
    """Every schema statement and every row, table by table. (Not ``iterdump()``: from Python
    3.13 it runs ``PRAGMA foreign_key_check`` first, which SQLite refuses on opm's schema, whose
    foreign keys name columns that are not unique.)"""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        master = "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY 1, 2"
        dump = [f"{kind} {name}: {sql}" for kind, name, sql in conn.execute(master)]
        tables = [name for kind, name, _ in conn.execute(master) if kind == "table"]
        for table in tables:
            dump += [f"{table}: {row!r}" for row in conn.execute(f'SELECT * FROM "{table}"')]
        return dump
    finally:
        conn.close()


def test_generator_reproduces_the_fixtures(tmp_path: Path) -> None:
    out = tmp_path / "example"
    subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out)], check=True, capture_output=True
    )
    assert _files(out / "manifests") == _files(MANIFESTS)
    assert sorted(p.name for p in (out / "sqlite").iterdir()) == sorted(
        p.name for p in SQLITE.iterdir()
    )
    for layout in LAYOUTS:
        db = out / "sqlite" / f"{layout}.db"
        assert _dump(db) == _dump(SQLITE / f"{layout}.db"), layout
        assert_migrates_to_expected(db, tmp_path / f"out-{layout}", layout)
