"""olmcat against ``initializer`` + ``opm migrate`` on package-manifest trees nobody tuned for:
generated ones (tests/support/pkgman_strategies.py) and every package-manifest tree of the corpus.

Each tree is migrated by the oracle (``initializer --permissive``, then ``opm migrate`` in JSON and
YAML) and by olmcat (``migrate pkgman --permissive``, and ``migrate sqlite`` of the initializer's
database); the outputs must be byte-identical (related images of equal image compared as a
multiset, see tests/support/differential.py) or both must refuse. Without ``--permissive``, olmcat
must refuse exactly the trees the initializer refuses.

``OLMCAT_DIFFERENTIAL_EXAMPLES=N`` runs N random examples instead of the fixed default set.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from tests.support import differential as diff
from tests.support import oracle
from tests.support.paths import CORPUS, FIXTURES
from tests.support.pkgman_strategies import pkgman_trees

EXAMPLES = int(os.environ.get("OLMCAT_DIFFERENTIAL_EXAMPLES", "0"))


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    oracle.require_oracle()
    path = diff.scratch("olmcat-pkgman-diff-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _write(files: dict[str, bytes], root: Path) -> None:
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _has_stray_files(files: dict[str, bytes]) -> bool:
    """Files olmcat's strict mode treats as notes where the initializer fails (a README, ...):
    the one named deviation of strict mode."""
    return any(not p.endswith((".yaml", ".yml", ".json")) for p in files)


def check_tree(tree: Path, work: Path, *, strict: bool = True) -> None:
    expected = diff.oracle_pkgman(tree, work, ("json", "yaml"))
    for output in ("json", "yaml"):
        actual = diff.olmcat_pkgman(tree, work, output)
        assert diff.differences(expected[output], actual) == [], f"migrate pkgman -o {output}"
    if expected["json"].ok:
        from_db = diff.olmcat_sqlite(work / "initializer.db", work)
        assert diff.differences(expected["json"], from_db) == [], "migrate sqlite"
    if strict:
        strict_expected = diff.oracle_pkgman(tree, work / "strict", permissive=False)["json"]
        strict_actual = diff.olmcat_pkgman(tree, work / "strict", permissive=False)
        problems = diff.differences(strict_expected, strict_actual)
        assert problems == [], "without --permissive"


@settings(
    max_examples=EXAMPLES or 40,
    derandomize=not EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(files=pkgman_trees())
def test_generated_trees_migrate_like_initializer_and_opm(
    files: dict[str, bytes], scratch: Path
) -> None:
    run = diff.scratch_in(scratch)
    try:
        _write(files, run / "tree")
        check_tree(run / "tree", run / "work", strict=not _has_stray_files(files))
    finally:
        shutil.rmtree(run, ignore_errors=True)


def test_bundled_example_tree(scratch: Path) -> None:
    check_tree(FIXTURES / "example" / "manifests", scratch / "example")


def test_corpus_package_manifest_tree(scratch: Path) -> None:
    tree = CORPUS / "pkgman" / "upstream-subset"
    if not tree.is_dir():
        pytest.skip(f"{tree} is absent: the corpus lives in ../shared")
    check_tree(tree, scratch / "corpus", strict=False)
