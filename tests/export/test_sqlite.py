"""olmcat export sqlite: row counts equal what the FBC says, read with plain json; keys hold."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import OutputError
from olmcat.export.sqlite import export_sqlite, write_database
from olmcat.model import Package, PackageCatalog
from tests.support.paths import FIXTURES, catalog_blobs, corpus_path

EXAMPLE_FBC = FIXTURES / "example" / "expected"


def expected_counts(blobs: list[dict[str, Any]]) -> dict[str, int]:
    bundles = [b for b in blobs if b["schema"] == "olm.bundle"]
    entries = [e for b in blobs if b["schema"] == "olm.channel" for e in b["entries"]]
    return {
        "packages": sum(b["schema"] == "olm.package" for b in blobs),
        "channels": sum(b["schema"] == "olm.channel" for b in blobs),
        "entries": len(entries),
        "entry_skips": sum(len(e.get("skips", [])) for e in entries),
        "bundles": len(bundles),
        "properties": sum(len(b.get("properties", [])) for b in bundles),
        "related_images": sum(len(b.get("relatedImages", [])) for b in bundles),
        "deprecations": sum(len(b["entries"]) for b in blobs if b["schema"] == "olm.deprecations"),
    }


def table_counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return {
            table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in expected_counts([])
        }


def test_example_catalog_rows_match_the_fbc(tmp_path: Path) -> None:
    out = tmp_path / "catalog.sqlite"
    result = export_sqlite(EXAMPLE_FBC, out)
    expected = expected_counts(list(catalog_blobs(EXAMPLE_FBC)))
    assert table_counts(out) == expected
    assert result.rows == expected
    with sqlite3.connect(out) as conn:
        conn.execute("PRAGMA foreign_keys = ON")
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        heads = dict(conn.execute("SELECT package || '/' || name, head FROM channels"))
    assert heads["hello-operator/beta"] == "hello-operator.v0.3.0"


def test_descriptions_are_searchable(tmp_path: Path) -> None:
    out = tmp_path / "catalog.sqlite"
    packages = [
        PackageCatalog(Package("etcd", description="A distributed key value store")),
        PackageCatalog(Package("kiali", description="Service mesh observability")),
    ]
    write_database(packages, out)
    with sqlite3.connect(out) as conn:
        found = conn.execute(
            "SELECT name FROM packages_fts WHERE packages_fts MATCH 'mesh'"
        ).fetchall()
    assert found == [("kiali",)]


def test_existing_output_is_refused_and_a_failure_leaves_nothing(tmp_path: Path) -> None:
    out = tmp_path / "catalog.sqlite"
    out.write_text("keep me")
    with pytest.raises(OutputError, match="already exists"):
        export_sqlite(EXAMPLE_FBC, out)
    assert out.read_text() == "keep me"
    gone = tmp_path / "gone.sqlite"
    with pytest.raises(Exception, match="no such"):
        export_sqlite(tmp_path / "no-such-catalog", gone)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["catalog.sqlite"]


def test_cli_writes_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "x.sqlite"
    result = CliRunner().invoke(cli, ["export", "sqlite", str(EXAMPLE_FBC), str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output
    again = CliRunner().invoke(cli, ["export", "sqlite", str(EXAMPLE_FBC), str(out)])
    assert again.exit_code == 1 and "already exists" in again.output


def test_corpus_database_and_its_golden_export_the_same_rows(tmp_path: Path) -> None:
    db = corpus_path("sqlite", "index-upstream.db")
    golden = corpus_path("expected", "index-upstream.json")
    export_sqlite(db, tmp_path / "a.sqlite")
    export_sqlite(golden, tmp_path / "b.sqlite")
    assert table_counts(tmp_path / "a.sqlite") == expected_counts(list(catalog_blobs(golden)))
    query = "SELECT package, name, version, image FROM bundles ORDER BY package, name"
    with sqlite3.connect(tmp_path / "a.sqlite") as a, sqlite3.connect(tmp_path / "b.sqlite") as b:
        assert a.execute(query).fetchall() == b.execute(query).fetchall()
