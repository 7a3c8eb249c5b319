"""rm, prune and deprecate-truncate --truncate against the oracle: ``opm registry rm | prune |
deprecatetruncate`` on a copy of a corpus database, then ``opm migrate``, must give the bytes
olmcat writes from the untouched database; refusals must agree."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from olmcat.errors import OlmcatError
from olmcat.maintain import deprecate_truncate, prune_packages, remove_packages
from olmcat.readers.catalog import open_catalog
from tests.support import oracle
from tests.support.paths import corpus_path

pytestmark = pytest.mark.differential

EXAMPLES = int(os.environ.get("OLMCAT_ORACLE_EXAMPLES", "5"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _same_tree(a: Path, b: Path) -> bool:
    return subprocess.run(["diff", "-r", str(a), str(b)], capture_output=True).returncode == 0


def _oracle_then_migrate(db: Path, work: Path, *args: str) -> Path | None:
    """``opm registry ARGS -d copy``, then migrate; None when opm refused."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir()
    copy = work / "x.db"
    shutil.copyfile(db, copy)
    run = oracle.opm("registry", *args, "-d", copy, cwd=work)
    if not run.ok:
        return None
    out = work / "opm-out"
    assert oracle.opm("migrate", copy, out, cwd=work).ok
    out.mkdir(exist_ok=True)  # an index emptied by rm migrates to nothing at all
    return out


@functools.cache
def _images(db: Path) -> list[str]:
    with open_catalog(db) as source:
        return sorted(b.image for p in source.packages() for b in p.bundles if b.image)


@functools.cache
def _names(db: Path) -> list[str]:
    with open_catalog(db) as source:
        return source.package_names()


@SETTINGS
@given(data=st.data(), database=st.sampled_from(["small.db", "index-upstream.db"]))
def test_rm_and_prune(tmp_path: Path, data: st.DataObject, database: str) -> None:
    oracle.require_oracle()
    tmp_path = Path(tempfile.mkdtemp(dir=tmp_path))  # one per example
    db = corpus_path("sqlite", database)
    chosen = data.draw(st.lists(st.sampled_from(_names(db)), min_size=1, max_size=3, unique=True))
    verb = data.draw(st.sampled_from(["rm", "prune"]))
    ours = tmp_path / "ours"
    if verb == "rm":
        expected = _oracle_then_migrate(db, tmp_path / "work", "rm", "-o", ",".join(chosen))
        remove_packages(db, ours, chosen)
    else:
        expected = _oracle_then_migrate(db, tmp_path / "work", "prune", "-p", ",".join(chosen))
        prune_packages(db, ours, chosen)
    assert expected is not None
    assert _same_tree(expected, ours)


@SETTINGS
@given(
    data=st.data(),
    database=st.sampled_from(
        ["deprecate-before.db", "index-upstream.db", "index-upstream-synth.db"]
    ),
    allow=st.booleans(),
)
def test_deprecate_truncate(
    tmp_path: Path, data: st.DataObject, database: str, allow: bool
) -> None:
    oracle.require_oracle()
    tmp_path = Path(tempfile.mkdtemp(dir=tmp_path))  # one per example
    db = corpus_path("sqlite", database)
    chosen = data.draw(st.lists(st.sampled_from(_images(db)), min_size=1, max_size=3, unique=True))
    flags = ["--allow-package-removal"] if allow else []
    expected = _oracle_then_migrate(
        db, tmp_path / "work", "deprecatetruncate", "-b", ",".join(chosen), *flags
    )
    ours = tmp_path / "ours"
    try:
        deprecate_truncate(db, ours, chosen, truncate=True, allow_package_removal=allow)
    except OlmcatError as error:
        assert expected is None, f"opm deprecated {chosen}, olmcat refused: {error}"
        return
    assert expected is not None, f"opm refused {chosen}, olmcat did not"
    assert _same_tree(expected, ours)


def test_the_corpus_deprecation(tmp_path: Path) -> None:
    """deprecated.db is deprecate-before.db after deprecatetruncate of etcdoperator.v0.9.0."""
    before = corpus_path("sqlite", "deprecate-before.db")
    golden = corpus_path("expected", "deprecated.json")
    deprecate_truncate(
        before, tmp_path / "out", ["quay.io/fake/etcdoperator.v0.9.0:v0.9.0"], truncate=True
    )
    assert _same_tree(golden, tmp_path / "out")
