"""The behaviour table: sorted, one row per name, named by area, each row's commit first released
in its ``since`` tag (checked in operator-registry's history where the mirror is present). That
docs/opm-releases.md shows the same rows is tests/docs/test_opm_releases_page.py's job."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from olmcat.go.opm import BEHAVIOURS, RELEASES, behaviour, opm_release

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
        assert re.fullmatch(r"[a-z]+(-[a-z0-9]+)+", row.name), row.name
        assert row.summary.strip(), row.name


def test_behaviour_finds_each_row_by_name_and_refuses_unknown_names() -> None:
    for row in BEHAVIOURS:
        assert behaviour(row.name) is row
    with pytest.raises(KeyError, match="unknown opm behaviour 'render-nothing'"):
        behaviour("render-nothing")
    with pytest.raises(KeyError, match="unknown opm behaviour"):
        opm_release("1.46").has("render-nothing")


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
