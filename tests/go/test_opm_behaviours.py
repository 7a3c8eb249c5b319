"""The behaviour table: sorted, named by area, each row's commit first released in its ``since``
tag (checked in operator-registry's history where the mirror is present), and the rows shown in
docs/opm-releases.md."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from olmcat.go.opm import BEHAVIOURS, RELEASES, opm_release
from tests.support.paths import ROOT

MIRROR = Path("/work/.mirror/operator-framework+operator-registry/repo")
AREAS = ("template-", "render-", "validate-", "encoding-")


def test_rows_are_sorted_by_release_then_name_and_named_by_area() -> None:
    keys = [(opm_release(b.since), b.name) for b in BEHAVIOURS]
    assert keys == sorted(keys)
    assert len({b.name for b in BEHAVIOURS}) == len(BEHAVIOURS)
    for row in BEHAVIOURS:
        assert row.name.startswith(AREAS), row.name
        assert re.fullmatch(r"[0-9a-f]{40}", row.commit), row.name
        assert row.until is None or opm_release(row.until) > opm_release(row.since)


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(MIRROR), *args], capture_output=True, text=True)


@pytest.mark.parametrize("row", BEHAVIOURS, ids=lambda b: b.name)
def test_each_commit_is_first_released_in_its_since_tag(row: object) -> None:
    from olmcat.go.opm import Behaviour

    assert isinstance(row, Behaviour)
    if shutil.which("git") is None or not MIRROR.is_dir():
        pytest.skip("no operator-registry mirror with history here")
    if _git("cat-file", "-e", row.commit).returncode != 0:
        pytest.skip(f"commit {row.commit[:8]} is not in this mirror")
    since = opm_release(row.since)
    assert _git("merge-base", "--is-ancestor", row.commit, since.tag).returncode == 0
    earlier = [r for r in RELEASES if r < since]
    if earlier:  # v1.26.5 rows describe what the oldest release already does
        previous = earlier[-1].tag
        assert _git("merge-base", "--is-ancestor", row.commit, previous).returncode != 0


def test_the_docs_page_lists_every_render_validate_and_encoding_row() -> None:
    page = (ROOT / "docs" / "opm-releases.md").read_text()
    for row in BEHAVIOURS:
        if row.name.startswith("template-"):
            continue  # the template rows are h23-templates' part of the page
        line = next((x for x in page.splitlines() if f"`{row.name}`" in x), "")
        assert line.startswith(f"| {row.since} | {row.until or ''} |"), row.name
        assert row.commit[:8] in line, row.name
