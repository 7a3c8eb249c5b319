"""The oracle itself answers: opm and the initializer run on the bundled example."""

from __future__ import annotations

from pathlib import Path

from tests.support import oracle
from tests.support.paths import FIXTURES, parse_stream


def test_initializer_and_migrate_reproduce_the_bundled_example(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    assert oracle.initializer(FIXTURES / "example" / "manifests", db, cwd=tmp_path).ok
    run = oracle.migrate(db, tmp_path / "out", cwd=tmp_path)
    assert run.ok, run.stderr
    for expected in sorted((FIXTURES / "example" / "expected").glob("*/catalog.json")):
        produced = tmp_path / "out" / expected.parent.name / "catalog.json"
        assert parse_stream(produced.read_text()) == parse_stream(expected.read_text())
