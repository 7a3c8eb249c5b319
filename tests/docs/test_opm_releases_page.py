"""docs/opm-releases.md's table is go/opm.py's BEHAVIOURS: same behaviours, releases, commits, in
the same order (the order itself is tests/go/test_opm_behaviours.py's)."""

from __future__ import annotations

import re

from olmcat.go.opm import BEHAVIOURS
from tests.support.paths import ROOT

PAGE = ROOT / "docs" / "opm-releases.md"
ROW = re.compile(
    r"^\| (v[\d.]+) \| (v[\d.]+)? ?\| `([a-z0-9-]+)` \| \[`([0-9a-f]{8})`\]"
    r"\(https://github\.com/operator-framework/operator-registry/commit/([0-9a-f]{40})\)"
    r" \| (.+) \|$"
)


def rows() -> list[tuple[str, str | None, str, str, str]]:
    text = PAGE.read_text()
    table = text.split("<!-- behaviours:start -->", 1)[1].split("<!-- behaviours:end -->", 1)[0]
    out = []
    for line in table.strip().splitlines()[2:]:
        match = ROW.match(line)
        assert match, f"not a behaviour row: {line[:100]}"
        since, until, name, short, commit, summary = match.groups()
        assert commit.startswith(short) and summary.strip()
        out.append((since, until, name, commit, summary))
    return out


def test_the_page_lists_every_behaviour_as_the_code_has_it() -> None:
    page = [(since, until, name, commit) for since, until, name, commit, _ in rows()]
    code = [(b.since, b.until, b.name, b.commit) for b in BEHAVIOURS]
    assert page == code
