"""Hand-made package-manifest trees, one per legacy-loader rule issue 10 lists: olmcat must write
what ``initializer`` + ``opm migrate`` write (JSON and YAML), ``olmcat migrate sqlite`` of the
initializer's database must too, and without ``--permissive`` both must refuse or both agree."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import differential as diff
from tests.support import oracle
from tests.support.builders import csv as csv_doc
from tests.support.pkgman_trees import CASES, write_package


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    oracle.require_oracle()
    path = diff.scratch("olmcat-cases-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("case", sorted(CASES))
def test_case_migrates_like_initializer_and_opm(case: str, scratch: Path) -> None:
    tree, work = scratch / case / "tree", scratch / case / "work"
    CASES[case](tree)
    expected = diff.oracle_pkgman(tree, work, ("json", "yaml"))
    for output in ("json", "yaml"):
        actual = diff.olmcat_pkgman(tree, work, output)
        assert diff.differences(expected[output], actual) == [], output
    if expected["json"].ok:
        from_db = diff.olmcat_sqlite(work / "initializer.db", work)
        assert diff.differences(expected["json"], from_db) == [], "migrate sqlite"
    strict_expected = diff.oracle_pkgman(tree, work / "strict", permissive=False)["json"]
    strict_actual = diff.olmcat_pkgman(tree, work / "strict", permissive=False)
    assert diff.differences(strict_expected, strict_actual) == [], "without --permissive"


def test_equal_images_in_long_related_image_lists(scratch: Path) -> None:
    # 100 related images naming three images: Go's unstable sort breaks patterns with a random
    # generator whose shifts differ between the oracle's Go 1.19 and current Go, which olmcat
    # follows. The lists hold the same entries; only the order of equal images may differ.
    rng = random.Random(7)
    related = [{"name": f"n{i}", "image": f"quay.io/x/i:{rng.randrange(3)}"} for i in range(100)]
    tree, work = scratch / "ties" / "tree", scratch / "ties" / "work"
    doc = csv_doc("demo.v1.0.0", "1.0.0", relatedImages=related)
    write_package(tree, "demo", [("stable", "demo.v1.0.0")], {"1.0.0": [doc]})
    expected = diff.oracle_pkgman(tree, work)["json"]
    actual = diff.olmcat_pkgman(tree, work)
    assert diff.differences(expected, actual) == []
    assert expected.files != actual.files  # the order of equal images is Go-version dependent
