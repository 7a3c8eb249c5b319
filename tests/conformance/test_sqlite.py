"""Conformance: ``migrate sqlite`` against opm's own output for every corpus database.

The goldens in ../shared/corpus/expected are ``opm migrate`` (v1.26.5, same sqlite logic as v1.72)
run on a copy of each DB. JSON must match byte for byte, YAML blob for blob. Every remaining
difference is listed in KNOWN_DIFFERENCES with its reason and checked to be exactly that.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from olmcat.migrate import migrate_sqlite
from tests.support.paths import corpus_path, parse_stream

# (database, golden directory) for every DB opm could migrate.
WITH_GOLDEN = [
    ("sqlite/small.db", "expected/small.json"),
    ("sqlite/deprecated.db", "expected/deprecated.json"),
    ("sqlite/deprecate-before.db", "expected/deprecate-before.json"),
    ("sqlite/upstream-subset.db", "expected/upstream-subset.json"),
    ("sqlite/index-upstream.db", "expected/index-upstream.json"),
    ("sqlite/index-upstream-old.db", "expected/index-upstream-old.json"),
    ("sqlite/index-upstream-synth.db", "expected/index-upstream-synth.json"),
] + [
    (f"sqlite/schemas/{build}-small.db", f"expected/schemas/{build}-small.json")
    for build in (
        "v1.6.0",
        "v1.7.0",
        "v1.10.0",
        "v1.12.8",
        "v1.13.0",
        "v1.13.7",
        "v1.14.0",
        "v1.17.0",
        "v1.17.1",
        "v1.18.0",
    )
]

# Schemas opm cannot migrate (its in-place upgrade breaks below schema 7). Their reference is the
# same manifests loaded at schema 7; what may differ is only what the old database never recorded.
WITHOUT_GOLDEN = [
    "v1.4.0",
    "c218b1de-golangmigrate",
    "c161f66a-m1",
    "v1.5.0",
    "v1.5.1",
    "c0a888bc-m4",
    "v1.5.3",
    "c71151f3-m6",
]

# (golden directory, package) -> why olmcat's bytes differ from opm's. Empty: every difference
# found so far has been fixed (the last one, the order of equal related images, by reproducing
# Go's pdqsort in olmcat.go.sort).
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {}


def _migrate(db: Path, out: Path, output: str = "json") -> None:
    """Migrate, and check the input database is byte-for-byte untouched (opm rewrites it)."""
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    siblings = sorted(p.name for p in db.parent.iterdir())
    result = migrate_sqlite(db, out, output=output)  # type: ignore[arg-type]
    assert result.stats.packages > 0
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in db.parent.iterdir()) == siblings


def _tie_insensitive(blobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The blobs with related images ordered by (image, name): hides only the tie order."""
    for blob in blobs:
        if "relatedImages" in blob:
            blob["relatedImages"].sort(key=lambda ri: (ri["image"], ri["name"]))
    return blobs


def _compare_tree(ours: Path, golden: Path, golden_name: str, filename: str) -> None:
    ours_pkgs = sorted(p.name for p in ours.iterdir())
    golden_pkgs = sorted(p.name for p in golden.iterdir())
    assert ours_pkgs == golden_pkgs
    for pkg in golden_pkgs:
        expected = (golden / pkg / filename).read_bytes()
        actual = (ours / pkg / filename).read_bytes()
        reason = KNOWN_DIFFERENCES.get((golden_name, pkg))
        if reason is None:
            assert actual == expected, f"{pkg}/{filename} differs from opm's output"
        else:
            assert actual != expected, (
                f"known difference for {pkg} no longer occurs: update the list"
            )
            assert _tie_insensitive(parse_stream(actual.decode())) == _tie_insensitive(
                parse_stream(expected.decode())
            ), f"{pkg} differs in more than the known way: {reason}"


@pytest.mark.parametrize(("db", "golden"), WITH_GOLDEN, ids=[g for _, g in WITH_GOLDEN])
def test_json_is_byte_identical_to_opm(db: str, golden: str, tmp_path: Path) -> None:
    db_path, golden_path = corpus_path(db), corpus_path(golden)
    _migrate(db_path, tmp_path / "out")
    _compare_tree(tmp_path / "out", golden_path, golden, "catalog.json")


def _by_name(directory: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    blobs: dict[tuple[str, str, str], dict[str, Any]] = {}
    for path in sorted(directory.glob("*/catalog.json")):
        for blob in parse_stream(path.read_text()):
            blobs[(blob["schema"], blob.get("package", blob.get("name", "")), blob["name"])] = blob
    return blobs


def _props(blob: dict[str, Any], type_: str) -> list[Any]:
    return [p["value"] for p in blob.get("properties", []) if p["type"] == type_]


def _gvks(blob: dict[str, Any], type_: str) -> set[tuple[str, str, str]]:
    return {(v["group"], v["kind"], v["version"]) for v in _props(blob, type_)}


@pytest.mark.parametrize("build", WITHOUT_GOLDEN)
def test_schemas_opm_cannot_migrate_match_the_schema7_reference(build: str, tmp_path: Path) -> None:
    """Packages, channels, entries, bundle names, olm.package properties, bundle objects and
    related images equal the schema-7 reference. The only other differences allowed are named:

    * olm.gvk: loaders before schema 7 recorded fewer provided APIs (one served version per CRD,
      not every CRD), and opm's migrations build olm.gvk from those rows only, so the old DB
      yields a subset of the reference's GVKs;
    * olm.gvk.required: databases before schema 3 have no api_requirer table, so required APIs
      were never recorded.
    """
    db_path = corpus_path(f"sqlite/schemas/{build}-small.db")
    reference = _by_name(corpus_path("expected/schemas/v1.7.0-small.json"))
    _migrate(db_path, tmp_path / "out")
    ours = _by_name(tmp_path / "out")
    assert sorted(ours) == sorted(reference)
    has_requirer = "api_requirer" in {
        row[0]
        for row in sqlite3.connect(f"file:{db_path}?mode=ro&immutable=1", uri=True).execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
        )
    }
    for key, expected in reference.items():
        actual = ours[key]
        if key[0] != "olm.bundle":
            assert actual == expected, key
            continue
        for field in ("image", "relatedImages"):
            assert actual.get(field) == expected.get(field), (key, field)
        for type_ in ("olm.package", "olm.bundle.object"):
            assert _props(actual, type_) == _props(expected, type_), (key, type_)
        assert _gvks(actual, "olm.gvk") <= _gvks(expected, "olm.gvk"), key
        if has_requirer:
            assert _gvks(actual, "olm.gvk.required") == _gvks(expected, "olm.gvk.required"), key
        else:
            assert _gvks(actual, "olm.gvk.required") == set(), key
        named = {"olm.package", "olm.bundle.object", "olm.gvk", "olm.gvk.required"}
        rest = [p for p in actual["properties"] if p["type"] not in named]
        assert rest == [p for p in expected["properties"] if p["type"] not in named], key


def test_yaml_is_identical_to_opm_blob_for_blob(tmp_path: Path) -> None:
    db_path = corpus_path("sqlite/upstream-subset.db")
    golden = corpus_path("expected/upstream-subset.yaml")
    _migrate(db_path, tmp_path / "out", output="yaml")
    pkgs = sorted(p.name for p in golden.iterdir())
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == pkgs
    for pkg in pkgs:
        expected = (golden / pkg / "catalog.yaml").read_text()
        actual = (tmp_path / "out" / pkg / "catalog.yaml").read_text()
        expected_docs = expected.split("---\n")[1:]
        actual_docs = actual.split("---\n")[1:]
        assert len(actual_docs) == len(expected_docs), pkg
        for index, (ours, theirs) in enumerate(zip(actual_docs, expected_docs, strict=True)):
            assert ours == theirs, f"{pkg} blob {index} differs"


def test_known_differences_refer_to_corpus_packages(corpus: Path) -> None:
    for golden, pkg in KNOWN_DIFFERENCES:
        assert (corpus / golden / pkg / "catalog.json").is_file()


def _expected_from_database(db_path: Path) -> dict[str, Any]:
    """What a migration must contain, read straight from the database with plain SQL and JSON."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro&immutable=1", uri=True)
    packages = dict(conn.execute("SELECT name, default_channel FROM package"))
    stored = {
        name: (csv, bundle)
        for name, csv, bundle in conn.execute("SELECT name, csv, bundle FROM operatorbundle")
    }
    rows = conn.execute(
        "SELECT entry_id, package_name, channel_name, operatorbundle_name, replaces, depth "
        "FROM channel_entry"
    ).fetchall()
    name_of = {row[0]: row[3] for row in rows}
    channels: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for _, pkg, channel, bundle, replaces, _depth in sorted(rows, key=lambda r: r[5]):
        if bundle not in stored:
            continue
        bundle_entries = channels.setdefault((pkg, channel), {})
        # The shallowest row of a bundle carries its replaces edge; deeper rows are skips.
        first_row = bundle not in bundle_entries
        entry = bundle_entries.setdefault(bundle, {"name": bundle})
        if replaces is not None and first_row:
            entry["replaces"] = name_of[replaces]
        elif replaces is not None:
            entry.setdefault("skips", []).append(name_of[replaces])
    bundles: dict[str, dict[str, Any]] = {}
    for _, pkg, _, bundle, _, _ in rows:
        if bundle not in stored:
            continue
        csv_text, bundle_text = (v.decode() if isinstance(v, bytes) else v for v in stored[bundle])
        csv = json.loads(csv_text)
        objects = [raw for raw, _ in _split(bundle_text)]
        spec = csv["spec"]
        images = {ri["image"] for ri in spec.get("relatedImages", [])}
        for deployment in spec["install"]["spec"]["deployments"]:
            pod = deployment["spec"]["template"]["spec"]
            images |= {
                c["image"] for c in pod.get("containers", []) + pod.get("initContainers", [])
            }
        bundles[bundle] = {
            "package": {"packageName": pkg, "version": spec["version"]},
            "objects": [base64.b64encode(o.encode()).decode() for o in objects],
            "images": images,
        }
    return {"packages": packages, "channels": channels, "bundles": bundles}


def _split(text: str) -> list[tuple[str, Any]]:
    decoder, index, out = json.JSONDecoder(), 0, []
    while index < len(text):
        if text[index].isspace():
            index += 1
            continue
        value, end = decoder.raw_decode(text, index)
        out.append((text[index:end], value))
        index = end
    return out


@pytest.mark.parametrize("build", ["v1.0.1", "v1.1.1"])
def test_pre_migration_databases_keep_their_own_content(build: str, tmp_path: Path) -> None:
    """v1.0.1 / v1.1.1 were built from their own tag's manifests, so they are checked against
    their own tables (no opm reference exists for them)."""
    db_path = corpus_path(f"sqlite/schemas/{build}-small.db")
    expected = _expected_from_database(db_path)
    _migrate(db_path, tmp_path / "out")
    ours = _by_name(tmp_path / "out")
    packages = {k[2]: b for k, b in ours.items() if k[0] == "olm.package"}
    assert {n: b["defaultChannel"] for n, b in packages.items()} == expected["packages"]
    channels = {(k[1], k[2]): b for k, b in ours.items() if k[0] == "olm.channel"}
    assert sorted(channels) == sorted(expected["channels"])
    for key, blob in channels.items():
        want = sorted(expected["channels"][key].values(), key=lambda e: e["name"])
        got = [{k: v for k, v in e.items() if k != "skipRange"} for e in blob["entries"]]
        assert got == want, key
    bundles = {k[2]: b for k, b in ours.items() if k[0] == "olm.bundle"}
    assert sorted(bundles) == sorted(expected["bundles"])
    for name, blob in bundles.items():
        want = expected["bundles"][name]
        assert _props(blob, "olm.package") == [want["package"]], name
        assert [v["data"] for v in _props(blob, "olm.bundle.object")] == want["objects"], name
        assert {ri["image"] for ri in blob.get("relatedImages", [])} == want["images"], name
