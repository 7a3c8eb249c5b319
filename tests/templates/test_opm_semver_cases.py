"""operator-registry's semver template tables (tests/support/opm_semver_cases.py), each case run
through olmcat's channel generator as the release of its tag, and as the releases either side of
each behaviour it pins."""

from __future__ import annotations

import base64
import json

import pytest

from olmcat.errors import InputError
from olmcat.go.opm import RELEASES, OpmRelease, opm_release
from olmcat.templates.semver import generate_channels, package_metadata, parse
from tests.support.opm_semver_cases import (
    CASES,
    METADATA_CASES,
    READ_CASES,
    MetadataCase,
    ReadCase,
    SemverCase,
)

BY_ID = {case.id: case for case in CASES}


def _run(case: SemverCase, release: OpmRelease) -> tuple[dict[str, list[dict[str, object]]], str]:
    return generate_channels(
        case.bundles,
        major=case.major,
        minor=case.minor,
        preference=case.preference,
        package="a",
        opm=release,
    )


@pytest.mark.parametrize("case_id", sorted(BY_ID), ids=str)
def test_case_at_its_tag(case_id: str) -> None:
    case = BY_ID[case_id]
    channels, default = _run(case, opm_release(case.tag))
    assert channels == {name: list(entries) for name, entries in case.channels.items()}
    if case.default is not None:
        assert default == case.default


# Which tags' tables hold for which releases: a table is in force from its tag until the next
# tag whose table differs (v1.27.1's and v1.61.0's channels are the same, v1.37.0's and v1.57.0's
# are their own).
SAME_CHANNELS = {
    "v1.26.5": ("v1.26.5", "v1.27.0", "v1.36.0"),
    "v1.27.1": ("v1.27.1", "v1.36.0", "v1.61.0", "v1.73.0"),
    "v1.37.0": ("v1.37.0", "v1.46.0", "v1.56.0"),
    "v1.57.0": ("v1.57.0", "v1.60.0"),
    "v1.61.0": ("v1.61.0", "v1.71.0", "v1.73.0"),
}


@pytest.mark.parametrize("case_id", sorted(BY_ID), ids=str)
def test_case_holds_across_the_releases_of_its_table(case_id: str) -> None:
    case = BY_ID[case_id]
    for tag in SAME_CHANNELS[case.tag]:
        if case.preference and not opm_release(tag).has("template-semver-channel-preference"):
            continue  # the field does not exist before v1.27.1
        channels, _ = _run(case, opm_release(tag))
        assert channels == {name: list(entries) for name, entries in case.channels.items()}, tag


def test_the_tables_disagree_where_the_history_says() -> None:
    """A case of one tag run as the release before its behaviour changed gives other channels:
    the tables really pin a change (no test here could pass with one rule for all)."""
    link = "TestLinkChannels/No edges between successive major channels"
    v137, v157, v161 = (BY_ID[f"{t}/{link}"] for t in ("v1.37.0", "v1.57.0", "v1.61.0"))
    assert _run(v137, opm_release("1.36"))[0] != v137.channels
    assert _run(v157, opm_release("1.56"))[0] != v157.channels
    assert _run(v161, opm_release("1.60"))[0] != v161.channels
    assert v137.channels != v157.channels != v161.channels


def test_every_release_is_covered_by_a_table() -> None:
    covered = {t for tags in SAME_CHANNELS.values() for t in tags}
    assert {c.tag for c in CASES} <= covered
    names = [r.tag for r in RELEASES]
    # the tables' tags are where the linking behaviours start or end
    for tag in ("v1.27.1", "v1.37.0", "v1.57.0", "v1.61.0"):
        assert tag in names


# -- v1.27.1 TestReadFile ------------------------------------------------------------------------


@pytest.mark.parametrize("case", READ_CASES, ids=lambda c: c.name)
def test_read_file_case(case: ReadCase) -> None:
    if case.valid:
        parse(case.text, "t.yaml", opm=opm_release("v1.27.1"))
        return
    with pytest.raises(InputError) as refused:
        parse(case.text, "t.yaml", opm=opm_release("v1.27.1"))
    assert case.field in str(refused.value)


# -- v1.65.0 TestPopulatePackageMetadata ---------------------------------------------------------


@pytest.mark.parametrize("case", METADATA_CASES, ids=lambda c: c.name)
def test_populate_package_metadata_case(case: MetadataCase) -> None:
    head = case.entries[-1] if case.entries else None
    text = case.csvs.get(head, "") if head is not None else ""
    fields = json.loads("{" + ",".join(package_metadata(json.loads(text) if text else None)) + "}")
    assert fields.get("description", "") == case.description
    if case.icon is None:
        assert "icon" not in fields
    else:
        data, mediatype = case.icon
        assert fields["icon"] == {
            "base64data": base64.b64encode(data).decode(),
            "mediatype": mediatype,
        }
