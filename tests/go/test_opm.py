"""The opm release table: every tag from v1.26.5 to v1.73.0, and how a release is named."""

from __future__ import annotations

import pytest

from olmcat.go.opm import NEWEST, OLDEST, RELEASES, opm_release


def test_range_is_the_oracle_to_the_last_sqlite_reading_release() -> None:
    assert OLDEST.tag == "v1.26.5"
    assert NEWEST.tag == "v1.73.0"
    assert list(RELEASES) == sorted(RELEASES)
    assert len(RELEASES) == 51


@pytest.mark.parametrize(
    ("text", "tag"),
    [("1.26", "v1.26.5"), ("v1.46.0", "v1.46.0"), ("1.43", "v1.43.1"), ("1.71.0", "v1.71.0")],
)
def test_a_minor_line_means_its_newest_patch(text: str, tag: str) -> None:
    assert opm_release(text).tag == tag


@pytest.mark.parametrize("text", ["1.25", "1.74.0", "1.46.1", "latest", "1", "1.x"])
def test_unknown_releases_name_the_range(text: str) -> None:
    with pytest.raises(ValueError, match=r"v1\.26\.5 to v1\.73\.0"):
        opm_release(text)


def test_at_least_compares_releases() -> None:
    assert opm_release("1.46").at_least("v1.46.0")
    assert not opm_release("1.45").at_least("v1.46.0")
