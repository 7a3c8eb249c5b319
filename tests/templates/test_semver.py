"""Semver template rules, each checked on a small pool of bundle directories.

Expected channels are worked out by hand from the rules of opm's ``alpha/template/semver``
(v1.26.5 and v1.72); the differential tests compare the same code with the oracle's bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from olmcat.errors import InputError
from olmcat.go.opm import opm_release
from olmcat.notices import NoticeLog
from olmcat.templates import BundleResolver, render_template, render_text
from olmcat.templates.semver import parse
from tests.support.paths import parse_stream
from tests.support.template_strategies import POOL, write_pool


@pytest.fixture(scope="module")
def refs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_pool(tmp_path_factory.mktemp("pool"))


def ref(version: str, package: str = "demo") -> str:
    return next(b.ref for b in POOL if b.package == package and b.version == version)


def template(*, major: bool | None = None, minor: bool | None = None, **lists: list[str]) -> str:
    doc: dict[str, Any] = {"schema": "olm.semver"}
    if major is not None:
        doc["generateMajorChannels"] = major
    if minor is not None:
        doc["generateMinorChannels"] = minor
    for archetype, versions in lists.items():
        if archetype == "preference":
            doc["defaultChannelTypePreference"] = versions
            continue
        doc[archetype] = {"bundles": [{"image": ref(v)} for v in versions]}
    return json.dumps(doc)


def render(refs: dict[str, Path], text: str, opm: str = "1.26") -> list[dict[str, Any]]:
    notices = NoticeLog()
    with BundleResolver(bundle_dirs=refs, notify=notices) as resolver:
        config = render_template("semver", text, resolver, opm=opm)  # type: ignore[arg-type]
        return parse_stream("".join(render_text(config, opm=opm)))  # type: ignore[arg-type]


def channels(blobs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    return {b["name"]: b["entries"] for b in blobs if b["schema"] == "olm.channel"}


def default_channel(blobs: list[dict[str, Any]]) -> str:
    return str(next(b for b in blobs if b["schema"] == "olm.package")["defaultChannel"])


def test_minor_channels_chain_the_highest_patch_of_each_minor(refs: dict[str, Path]) -> None:
    blobs = render(refs, template(stable=["0.1.0", "0.1.1", "0.2.0", "1.0.0", "1.0.1", "1.1.0"]))
    assert channels(blobs) == {
        # 0.x: 0.1.1 heads 0.1 and skips 0.1.0; 0.2.0 replaces 0.1.1 (the previous minor's max)
        "stable-v0.1": [{"name": "demo.v0.1.0"}, {"name": "demo.v0.1.1", "skips": ["demo.v0.1.0"]}],
        "stable-v0.2": [
            {"name": "demo.v0.2.0", "replaces": "demo.v0.1.1", "skips": ["demo.v0.1.0"]}
        ],
        # a new major starts a new run: no edges back to 0.x
        "stable-v1.0": [{"name": "demo.v1.0.0"}, {"name": "demo.v1.0.1", "skips": ["demo.v1.0.0"]}],
        "stable-v1.1": [
            {"name": "demo.v1.1.0", "replaces": "demo.v1.0.1", "skips": ["demo.v1.0.0"]}
        ],
    }
    assert default_channel(blobs) == "stable-v1.1"
    assert [b["name"] for b in blobs if b["schema"] == "olm.bundle"] == sorted(
        f"demo.v{v}" for v in ("0.1.0", "0.1.1", "0.2.0", "1.0.0", "1.0.1", "1.1.0")
    )


def test_major_channels_and_template_order_does_not_matter(refs: dict[str, Path]) -> None:
    blobs = render(
        refs, template(major=True, minor=False, fast=["2.1.5", "2.0.0", "2.1.0", "1.2.3", "10.0.0"])
    )
    assert channels(blobs) == {
        "fast-v1": [{"name": "demo.v1.2.3"}],
        "fast-v2": [
            # only the highest patch of a minor gets edges: 2.1.0 is skipped by 2.1.5
            {"name": "demo.v2.0.0"},
            {"name": "demo.v2.1.0"},
            {"name": "demo.v2.1.5", "replaces": "demo.v2.0.0", "skips": ["demo.v2.1.0"]},
        ],
        "fast-v10": [{"name": "demo.v10.0.0"}],
    }
    # the channel created last in the most stable archetype: version 10.0.0
    assert default_channel(blobs) == "fast-v10"


def test_most_stable_archetype_gives_the_default_channel(refs: dict[str, Path]) -> None:
    blobs = render(refs, template(candidate=["2.1.0"], fast=["1.0.0"], stable=["0.1.0"]))
    assert default_channel(blobs) == "stable-v0.1"
    assert set(channels(blobs)) == {"candidate-v2.1", "fast-v1.0", "stable-v0.1"}


def test_generate_flags_default_differently_in_v126_and_v172(refs: dict[str, Path]) -> None:
    text = template(major=True, stable=["1.0.0"])
    # v1.26.5 presets generateMinorChannels: true before reading the file
    assert set(channels(render(refs, text, "1.26"))) == {"stable-v1", "stable-v1.0"}
    # v1.72 turns minor channels on only when neither flag is set
    assert set(channels(render(refs, text, "1.72"))) == {"stable-v1"}
    assert set(channels(render(refs, template(stable=["1.0.0"]), "1.72"))) == {"stable-v1.0"}


def test_no_stream_kind_is_refused_as_v126_crashes_on_it(refs: dict[str, Path]) -> None:
    text = template(major=False, minor=False, stable=["1.0.0"])
    with pytest.raises(InputError, match="no channel would be generated"):
        render(refs, text, "1.26")
    assert set(channels(render(refs, text, "1.72"))) == {"stable-v1.0"}


def test_both_kinds_default_to_the_preferred_kind(refs: dict[str, Path]) -> None:
    both = {"major": True, "minor": True}
    text = template(**both, stable=["1.0.0", "2.0.0"])
    # v1.27.1 and later: the preferred kind, minor unless the template says major
    assert default_channel(render(refs, text, "1.72")) == "stable-v2.0"
    # v1.26.5: the channel Go's map iteration meets first, the major one in 7 of 8 runs
    assert default_channel(render(refs, text, "1.26")) == "stable-v2"
    major = template(**both, stable=["1.0.0", "2.0.0"], preference="major")  # type: ignore[arg-type]
    assert default_channel(render(refs, major)) == "stable-v2"
    assert default_channel(render(refs, major, "1.72")) == "stable-v2"
    # olmcat's deviation: v1.26.5 refuses the field, olmcat follows it
    minor = template(**both, stable=["1.0.0", "2.0.0"], preference="minor")  # type: ignore[arg-type]
    assert default_channel(render(refs, minor, "1.26")) == "stable-v2.0"
    # not a tie: stable-v2.1 is created by a later bundle than stable-v2
    assert default_channel(render(refs, template(**both, stable=["2.0.0", "2.1.0"]))) == (
        "stable-v2.1"
    )


def test_ambiguous_v126_default_channel_is_reported(refs: dict[str, Path]) -> None:
    notices = NoticeLog()
    text = template(major=True, minor=True, stable=["1.0.0", "2.0.0"])
    with BundleResolver(bundle_dirs=refs) as resolver:
        render_template("semver", text, resolver, opm="1.26", notify=notices)
    assert notices.codes()["template.ambiguous-default-channel"] == 1
    assert "7 of 8 runs" in notices.notices[0].message
    notices = NoticeLog()
    with BundleResolver(bundle_dirs=refs) as resolver:
        render_template("semver", text, resolver, opm="1.72", notify=notices)
    assert not notices.codes()


def test_version_zero_keeps_v126_empty_default_channel(refs: dict[str, Path]) -> None:
    text = template(candidate=["0.0.0"])
    assert default_channel(render(refs, text, "1.26")) == ""
    assert default_channel(render(refs, text, "1.72")) == "candidate-v0.0"


def test_v172_copies_icon_and_description_of_the_default_head(refs: dict[str, Path]) -> None:
    text = template(stable=["1.1.0", "2.0.0"])
    package = render(refs, text, "1.72")[0]
    assert package["description"] == "Demo <two> & more"
    assert package["icon"]["mediatype"] == "image/png"
    assert "icon" not in render(refs, text, "1.26")[0]


@pytest.mark.parametrize(
    "text,message",
    [
        (template(stable=["1.1.0", "1.1.0+build.7"]), "differ only by build metadata"),
        (
            json.dumps(
                {"schema": "olm.semver", "stable": {"bundles": [{"image": ref("1.0.0")}] * 2}}
            ),
            "duplicate bundle name",
        ),
        (
            json.dumps(
                {
                    "schema": "olm.semver",
                    "stable": {
                        "bundles": [{"image": ref("1.0.0")}, {"image": ref("1.0.0", "other")}]
                    },
                }
            ),
            "does not belong",
        ),
        (json.dumps({"schema": "olm.semver"}), "no bundles"),
        (
            json.dumps({"schema": "olm.semver", "stable": {"bundles": [{"image": ""}]}}),
            "empty image",
        ),
    ],
)
def test_refusals(refs: dict[str, Path], text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        render(refs, text)


def test_two_images_of_one_bundle_are_refused(refs: dict[str, Path], tmp_path: Path) -> None:
    """opm v1.26.5 writes both olm.bundle blobs, in Go map order: an invalid catalog that differs
    from run to run. olmcat refuses the template (a named deviation)."""
    copy = dict(refs)
    copy["example.com/demo:copy"] = refs[ref("1.0.0")]
    text = json.dumps(
        {
            "schema": "olm.semver",
            "candidate": {"bundles": [{"image": ref("1.0.0")}]},
            "stable": {"bundles": [{"image": "example.com/demo:copy"}]},
        }
    )
    with pytest.raises(InputError, match=r'are both bundle "demo\.v1\.0\.0"'):
        render(copy, text)


def test_build_metadata_is_fine_across_archetypes(refs: dict[str, Path]) -> None:
    blobs = render(refs, template(candidate=["1.1.0+build.7"], stable=["1.1.0"]))
    assert set(channels(blobs)) == {"candidate-v1.1", "stable-v1.1"}


@pytest.mark.parametrize(
    "text,message",
    [
        ("schema: olm.semver\nunknown: 1\n", 'unknown field "unknown"'),
        ("schema: olm.semver\nstable:\n  bundles: []\n  extra: 1\n", 'unknown field "extra"'),
        ("schema: other\n", "unknown schema"),
        ("schema: olm.semver\nschema: olm.semver\n", "given twice"),
        (
            "schema: olm.semver\ndefaultChannelTypePreference: major\n",
            "needs generateMajorChannels",
        ),
        (
            "schema: olm.semver\ngenerateMinorChannels: false\ngenerateMajorChannels: true\n"
            "defaultChannelTypePreference: minor\n",
            "needs generateMinorChannels",
        ),
        ("schema: olm.semver\ndefaultChannelTypePreference: patch\n", "unknown defaultChannel"),
        ("schema: olm.semver\ngenerateMajorChannels: 3\n", "true or false"),
    ],
)
def test_strict_reading(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse(text, "t.yaml")


def test_reading_matches_field_names_case_insensitively_and_yaml_v2_booleans() -> None:
    parsed = parse(
        "Schema: olm.semver\nGenerateMajorChannels: y\nstable:\n  Bundles:\n  - Image: a\n",
        "t",
        opm=opm_release("1.26"),
    )
    assert parsed.generate_major and parsed.generate_minor
    assert parsed.bundles["stable"] == ("a",)
