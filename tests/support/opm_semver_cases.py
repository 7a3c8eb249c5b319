# ruff: noqa: E501 (one channel entry per line, as in the Go tables)
"""operator-registry's own semver template test tables, release by release, as data.

Each :class:`SemverCase` is one subtest of ``alpha/template/semver/semver_test.go`` at the tag that
introduced the behaviour it pins (``git show TAG:alpha/template/semver/semver_test.go`` in
operator-registry), written as the input a template gives the channel generator (bundle names and
versions per archetype, the generate flags, the default channel preference) and opm's expected
channels and default channel:

* v1.26.5 (the oracle): ``TestLinkChannels`` and ``TestGenerateChannels``: one pass over all entries
  of an archetype, stream kind and major version ("edge-scoped").
* v1.27.1 (``template-semver-channel-preference``, ``template-semver-generate-defaults``):
  ``TestGenerateChannels`` with ``defaultChannelTypePreference`` (its two "Mismatch" cases call the
  generator with a preference for a kind not generated, which template reading refuses; the
  generator ignores it) and ``TestReadFile`` (:data:`READ_CASES`).
* v1.37.0 (``template-semver-channel-scoped-links``, ``template-semver-skip-replaced-head``):
  ``TestLinkChannels``, ``TestGenerateChannels``: each channel linked on its own.
* v1.57.0 (``template-semver-skip-replaced-head`` ends): the same tables without the skip of the
  replaced head.
* v1.61.0 (``template-semver-channel-scoped-links`` ends): edge-scoped again.
* v1.65.0 (``template-semver-package-metadata``): ``TestPopulatePackageMetadata``
  (:data:`METADATA_CASES`).

``TestLinkChannels`` calls ``linkChannels`` on hand-made unlinked channels; each case here gives the
bundles of those channels to the generator with major channels only, which makes exactly those
unlinked channels (the archetype is the channel name's prefix, the version the bundle name after
``a-v``). Entries list ``replaces`` and ``skips`` only when set (opm writes both ``omitempty``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Entry = dict[str, Any]


@dataclass(frozen=True)
class SemverCase:
    tag: str  # the operator-registry tag whose test holds the case
    source: str  # Go test function
    name: str  # subtest name
    bundles: Mapping[str, Mapping[str, str]]  # archetype -> bundle name -> version
    major: bool  # generateMajorChannels
    minor: bool  # generateMinorChannels
    channels: Mapping[str, Sequence[Entry]]  # opm's channels, entries in order
    preference: str = ""  # defaultChannelTypePreference ("": none, before v1.27.1)
    default: str | None = None  # opm's default channel (None: the Go test does not check it)

    @property
    def id(self) -> str:
        return f"{self.tag}/{self.source}/{self.name}"


# TestGenerateChannels' channelOperatorVersions (every tag): all in the stable archetype.
GENERATE_VERSIONS: Mapping[str, str] = {
    "a-v0.1.0": "0.1.0",
    "a-v0.1.1": "0.1.1",
    "a-v1.1.0": "1.1.0",
    "a-v1.2.1": "1.2.1",
    "a-v1.3.1": "1.3.1",
    "a-v2.1.0": "2.1.0",
    "a-v1.3.1-beta": "1.3.1-beta",
    "a-v2.1.1": "2.1.1",
    "a-v2.3.1": "2.3.1",
    "a-v2.3.2": "2.3.2",
    "a-v3.1.0": "3.1.0",
    "a-v3.1.1": "3.1.1",
    "a-v1.3.1-alpha": "1.3.1-alpha",
    "a-v1.4.1": "1.4.1",
    "a-v1.4.1-beta1": "1.4.1-beta1",
    "a-v1.4.1-beta2": "1.4.1-beta2",
}

# fmt: off
CASES: tuple[SemverCase, ...] = (
    SemverCase(
        "v1.26.5",
        "TestLinkChannels",
        "No edges between successive major channels",
        bundles={"stable": {"a-v0.1.0": "0.1.0", "a-v0.1.1": "0.1.1", "a-v1.1.0": "1.1.0", "a-v1.2.1": "1.2.1", "a-v1.3.1": "1.3.1", "a-v2.1.0": "2.1.0", "a-v2.1.1": "2.1.1", "a-v2.3.1": "2.3.1", "a-v2.3.2": "2.3.2"}},
        major=True,
        minor=False,
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
        },
    ),
    SemverCase(
        "v1.26.5",
        "TestGenerateChannels",
        "Edges between minor channels",
        bundles={"stable": GENERATE_VERSIONS},
        major=False,
        minor=True,
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.27.1",
        "TestGenerateChannels",
        "Edges between minor channels",
        bundles={"stable": GENERATE_VERSIONS},
        major=False,
        minor=True,
        preference="minor",
        default="stable-v3.1",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.27.1",
        "TestGenerateChannels",
        "No edges between major channels",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=False,
        preference="major",
        default="stable-v3",
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.27.1",
        "TestGenerateChannels",
        "Preference for minor default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=True,
        preference="minor",
        default="stable-v3.1",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.27.1",
        "TestGenerateChannels",
        "Preference for major default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=True,
        preference="major",
        default="stable-v3",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.27.1",
        "TestGenerateChannels",
        "Mismatch generate/preference minor/major default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=False,
        minor=True,
        preference="major",
        default="stable-v3.1",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.27.1",
        "TestGenerateChannels",
        "Mismatch generate/preference major/minor default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=False,
        preference="minor",
        default="stable-v3",
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.37.0",
        "TestLinkChannels",
        "No edges between successive major channels",
        bundles={"stable": {"a-v0.1.0": "0.1.0", "a-v0.1.1": "0.1.1", "a-v1.1.0": "1.1.0", "a-v1.2.1": "1.2.1", "a-v1.3.1": "1.3.1", "a-v2.1.0": "2.1.0", "a-v2.1.1": "2.1.1", "a-v2.3.1": "2.3.1", "a-v2.3.2": "2.3.2"}},
        major=True,
        minor=False,
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0", "skips": ["a-v1.1.0"]},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.2.1"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.1", "a-v2.3.1"]},
            ],
        },
    ),
    SemverCase(
        "v1.37.0",
        "TestLinkChannels",
        "No edges between successive major channels where last edge is X change",
        bundles={"stable": {"a-v0.1.0": "0.1.0", "a-v0.1.1": "0.1.1", "a-v1.1.0": "1.1.0", "a-v1.2.1": "1.2.1", "a-v1.3.1": "1.3.1", "a-v2.1.0": "2.1.0"}},
        major=True,
        minor=False,
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0", "skips": ["a-v1.1.0"]},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.2.1"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
            ],
        },
    ),
    SemverCase(
        "v1.37.0",
        "TestLinkChannels",
        "No edges between successive major channels where last edge is archetype change",
        bundles={"candidate": {"a-v2.3.2": "2.3.2"}, "stable": {"a-v1.1.0": "1.1.0", "a-v1.2.1": "1.2.1", "a-v1.3.1": "1.3.1", "a-v2.1.0": "2.1.0", "a-v2.1.1": "2.1.1", "a-v2.3.1": "2.3.1"}},
        major=True,
        minor=False,
        channels={
            "candidate-v2": [
                {"name": "a-v2.3.2"},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0", "skips": ["a-v1.1.0"]},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.2.1"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1", "replaces": "a-v2.1.1", "skips": ["a-v2.1.1"]},
            ],
        },
    ),
    SemverCase(
        "v1.37.0",
        "TestGenerateChannels",
        "Edges between minor channels",
        bundles={"stable": GENERATE_VERSIONS},
        major=False,
        minor=True,
        preference="minor",
        default="stable-v3.1",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "skips": ["a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "skips": ["a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "skips": ["a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.37.0",
        "TestGenerateChannels",
        "No edges between major channels",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=False,
        preference="major",
        default="stable-v3",
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0", "skips": ["a-v1.1.0"]},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.3.1", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.1", "a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.37.0",
        "TestGenerateChannels",
        "Preference for minor default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=True,
        preference="minor",
        default="stable-v3.1",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "skips": ["a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "skips": ["a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "skips": ["a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0", "skips": ["a-v1.1.0"]},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.3.1", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.1", "a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.37.0",
        "TestGenerateChannels",
        "Preference for major default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=True,
        preference="major",
        default="stable-v3",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "skips": ["a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "skips": ["a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "skips": ["a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0", "skips": ["a-v1.1.0"]},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.3.1", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.1", "a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.37.0",
        "TestGenerateChannels",
        "Mismatch generate/preference minor/major default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=False,
        minor=True,
        preference="major",
        default="stable-v3.1",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "skips": ["a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "skips": ["a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "skips": ["a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.37.0",
        "TestGenerateChannels",
        "Mismatch generate/preference major/minor default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=False,
        preference="minor",
        default="stable-v3",
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0", "skips": ["a-v1.1.0"]},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.3.1", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.1", "a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.57.0",
        "TestLinkChannels",
        "No edges between successive major channels",
        bundles={"stable": {"a-v0.1.0": "0.1.0", "a-v0.1.1": "0.1.1", "a-v1.1.0": "1.1.0", "a-v1.2.1": "1.2.1", "a-v1.3.1": "1.3.1", "a-v2.1.0": "2.1.0", "a-v2.1.1": "2.1.1", "a-v2.3.1": "2.3.1", "a-v2.3.2": "2.3.2"}},
        major=True,
        minor=False,
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1"},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.3.1"]},
            ],
        },
    ),
    SemverCase(
        "v1.57.0",
        "TestLinkChannels",
        "No edges between successive major channels where last edge is X change",
        bundles={"stable": {"a-v0.1.0": "0.1.0", "a-v0.1.1": "0.1.1", "a-v1.1.0": "1.1.0", "a-v1.2.1": "1.2.1", "a-v1.3.1": "1.3.1", "a-v2.1.0": "2.1.0"}},
        major=True,
        minor=False,
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1"},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
            ],
        },
    ),
    SemverCase(
        "v1.57.0",
        "TestLinkChannels",
        "No edges between successive major channels where last edge is archetype change",
        bundles={"candidate": {"a-v2.3.2": "2.3.2"}, "stable": {"a-v1.1.0": "1.1.0", "a-v1.2.1": "1.2.1", "a-v1.3.1": "1.3.1", "a-v2.1.0": "2.1.0", "a-v2.1.1": "2.1.1", "a-v2.3.1": "2.3.1"}},
        major=True,
        minor=False,
        channels={
            "candidate-v2": [
                {"name": "a-v2.3.2"},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1"},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1", "replaces": "a-v2.1.1"},
            ],
        },
    ),
    SemverCase(
        "v1.57.0",
        "TestGenerateChannels",
        "Edges between minor channels",
        bundles={"stable": GENERATE_VERSIONS},
        major=False,
        minor=True,
        preference="minor",
        default="stable-v3.1",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "skips": ["a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "skips": ["a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "skips": ["a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.57.0",
        "TestGenerateChannels",
        "No edges between major channels",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=False,
        preference="major",
        default="stable-v3",
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.57.0",
        "TestGenerateChannels",
        "Preference for minor default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=True,
        preference="minor",
        default="stable-v3.1",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "skips": ["a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "skips": ["a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "skips": ["a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.57.0",
        "TestGenerateChannels",
        "Preference for major default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=True,
        preference="major",
        default="stable-v3",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "skips": ["a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "skips": ["a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "skips": ["a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.57.0",
        "TestGenerateChannels",
        "Mismatch generate/preference minor/major default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=False,
        minor=True,
        preference="major",
        default="stable-v3.1",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "skips": ["a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "skips": ["a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "skips": ["a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.57.0",
        "TestGenerateChannels",
        "Mismatch generate/preference major/minor default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=False,
        preference="minor",
        default="stable-v3",
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.61.0",
        "TestLinkChannels",
        "No edges between successive major channels",
        bundles={"stable": {"a-v0.1.0": "0.1.0", "a-v0.1.1": "0.1.1", "a-v1.1.0": "1.1.0", "a-v1.2.1": "1.2.1", "a-v1.3.1": "1.3.1", "a-v2.1.0": "2.1.0", "a-v2.1.1": "2.1.1", "a-v2.3.1": "2.3.1", "a-v2.3.2": "2.3.2"}},
        major=True,
        minor=False,
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
        },
    ),
    SemverCase(
        "v1.61.0",
        "TestLinkChannels",
        "No edges between successive major channels where last edge is X change",
        bundles={"stable": {"a-v0.1.0": "0.1.0", "a-v0.1.1": "0.1.1", "a-v1.1.0": "1.1.0", "a-v1.2.1": "1.2.1", "a-v1.3.1": "1.3.1", "a-v2.1.0": "2.1.0"}},
        major=True,
        minor=False,
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
            ],
        },
    ),
    SemverCase(
        "v1.61.0",
        "TestLinkChannels",
        "No edges between successive major channels where last edge is archetype change",
        bundles={"candidate": {"a-v2.3.2": "2.3.2"}, "stable": {"a-v1.1.0": "1.1.0", "a-v1.2.1": "1.2.1", "a-v1.3.1": "1.3.1", "a-v2.1.0": "2.1.0", "a-v2.1.1": "2.1.1", "a-v2.3.1": "2.3.1"}},
        major=True,
        minor=False,
        channels={
            "candidate-v2": [
                {"name": "a-v2.3.2"},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.61.0",
        "TestLinkChannels",
        "Minimum viable major channel",
        bundles={"stable": {"a-v0.1.0": "0.1.0"}},
        major=True,
        minor=False,
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
            ],
        },
    ),
    SemverCase(
        "v1.61.0",
        "TestGenerateChannels",
        "Edges between minor channels",
        bundles={"stable": GENERATE_VERSIONS},
        major=False,
        minor=True,
        preference="minor",
        default="stable-v3.1",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.61.0",
        "TestGenerateChannels",
        "No edges between major channels",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=False,
        preference="major",
        default="stable-v3",
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.61.0",
        "TestGenerateChannels",
        "Preference for minor default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=True,
        preference="minor",
        default="stable-v3.1",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.61.0",
        "TestGenerateChannels",
        "Preference for major default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=True,
        preference="major",
        default="stable-v3",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.61.0",
        "TestGenerateChannels",
        "Mismatch generate/preference minor/major default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=False,
        minor=True,
        preference="major",
        default="stable-v3.1",
        channels={
            "stable-v0.1": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1.1": [
                {"name": "a-v1.1.0"},
            ],
            "stable-v1.2": [
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
            ],
            "stable-v1.3": [
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
            ],
            "stable-v1.4": [
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2.1": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
            ],
            "stable-v2.3": [
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3.1": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
    SemverCase(
        "v1.61.0",
        "TestGenerateChannels",
        "Mismatch generate/preference major/minor default channel",
        bundles={"stable": GENERATE_VERSIONS},
        major=True,
        minor=False,
        preference="minor",
        default="stable-v3",
        channels={
            "stable-v0": [
                {"name": "a-v0.1.0"},
                {"name": "a-v0.1.1", "skips": ["a-v0.1.0"]},
            ],
            "stable-v1": [
                {"name": "a-v1.1.0"},
                {"name": "a-v1.2.1", "replaces": "a-v1.1.0"},
                {"name": "a-v1.3.1-alpha"},
                {"name": "a-v1.3.1-beta"},
                {"name": "a-v1.3.1", "replaces": "a-v1.2.1", "skips": ["a-v1.1.0", "a-v1.3.1-alpha", "a-v1.3.1-beta"]},
                {"name": "a-v1.4.1-beta1"},
                {"name": "a-v1.4.1-beta2"},
                {"name": "a-v1.4.1", "replaces": "a-v1.3.1", "skips": ["a-v1.1.0", "a-v1.2.1", "a-v1.3.1-alpha", "a-v1.3.1-beta", "a-v1.4.1-beta1", "a-v1.4.1-beta2"]},
            ],
            "stable-v2": [
                {"name": "a-v2.1.0"},
                {"name": "a-v2.1.1", "skips": ["a-v2.1.0"]},
                {"name": "a-v2.3.1"},
                {"name": "a-v2.3.2", "replaces": "a-v2.1.1", "skips": ["a-v2.1.0", "a-v2.3.1"]},
            ],
            "stable-v3": [
                {"name": "a-v3.1.0"},
                {"name": "a-v3.1.1", "skips": ["a-v3.1.0"]},
            ],
        },
    ),
)
# fmt: on


# -- v1.27.1 TestReadFile: which templates readFile accepts -----------------------------------------

_IMAGES = {
    "candidate": [
        "0.1.0",
        "0.1.1",
        "0.1.2",
        "0.1.3",
        "0.2.0",
        "0.2.1",
        "0.2.2",
        "0.3.0",
        "1.0.0",
        "1.0.1",
        "1.1.0",
    ],
    "fast": ["0.2.1", "0.2.2", "0.3.0", "1.0.1", "1.1.0"],
    "stable": ["1.0.1"],
}


def _read_template(major: str, minor: str, preference: str, extra: str = "") -> str:
    lines = ["---", "schema: olm.semver", f"generateMajorChannels: {major}"]
    lines.append(f"generateMinorChannels: {minor}")
    if preference:
        lines.append(f"defaultChannelTypePreference: {preference}")
    for archetype, versions in _IMAGES.items():
        lines += [f"{archetype}:", "    bundles:"]
        lines += [f"        - image: quay.io/foo/olm:testoperator.v{v}" for v in versions]
    return "\n".join(lines) + "\n" + extra


@dataclass(frozen=True)
class ReadCase:
    name: str
    text: str
    valid: bool  # opm v1.27.1 reads it
    opm_says: str = ""  # what the Go test checks of opm's error
    field: str = ""  # the template field olmcat's refusal names


READ_CASES: tuple[ReadCase, ...] = (
    ReadCase("valid", _read_template("true", "true", "minor"), True),
    ReadCase(
        "unknown channel prefix",
        _read_template("true", "true", "", "invalid:\n    bundles:\n        - image: x\n"),
        False,
        'error unmarshaling JSON: while decoding JSON: json: unknown field "invalid"',
        "invalid",
    ),
    ReadCase(
        "generate/default mismatch, minor/major",
        _read_template("true", "false", "minor"),
        False,
        "schema attribute mismatch",
        "defaultChannelTypePreference",
    ),
    ReadCase(
        "generate/default mismatch, major/minor",
        _read_template("false", "true", "major"),
        False,
        "schema attribute mismatch",
        "defaultChannelTypePreference",
    ),
    ReadCase(
        "unknown defaultchanneltypepreference",
        _read_template("false", "true", "foo"),
        False,
        "unknown DefaultChannelTypePreference",
        "defaultChannelTypePreference",
    ),
)


# -- v1.65.0 TestPopulatePackageMetadata: the package's icon and description -----------------------


def _csv(spec: str) -> str:
    return (
        '{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion", '
        f'"metadata": {{"name": "test.v1.0.0"}}, "spec": {{{spec}}}}}'
    )


@dataclass(frozen=True)
class MetadataCase:
    """The default channel's entries (None: no such channel, or no package at all), the CSV of
    each bundle by name ("": a bundle without CSV JSON), and what opm puts on the package."""

    name: str
    entries: Sequence[str] | None
    csvs: Mapping[str, str]
    description: str = ""
    icon: tuple[bytes, str] | None = None  # decoded data, mediatype


METADATA_CASES: tuple[MetadataCase, ...] = (
    MetadataCase(
        "successfully populate icon and description from head bundle",
        ["test-operator-v1.0.0", "test-operator-v1.1.0"],
        {
            "test-operator-v1.0.0": _csv(
                '"description": "Old description", '
                '"icon": [{"base64data": "b2xkZGF0YQ==", "mediatype": "image/png"}]'
            ),
            "test-operator-v1.1.0": _csv(
                '"description": "Test operator provides awesome functionality", '
                '"icon": [{"base64data": "aGVsbG93b3JsZA==", "mediatype": "image/svg+xml"}]'
            ),
        },
        "Test operator provides awesome functionality",
        (b"helloworld", "image/svg+xml"),
    ),
    MetadataCase("no packages in config", None, {}),
    MetadataCase("default channel not found", None, {}),
    MetadataCase("empty channel entries", [], {}),
    MetadataCase("head bundle not found in bundles", ["missing-bundle"], {}),
    MetadataCase("bundle has no CSV JSON", ["test-bundle"], {"test-bundle": ""}),
    MetadataCase(
        "CSV has no description",
        ["test-bundle"],
        {"test-bundle": _csv('"icon": [{"base64data": "aGVsbG8=", "mediatype": "image/png"}]')},
        icon=(b"hello", "image/png"),
    ),
    MetadataCase(
        "CSV has no icon",
        ["test-bundle"],
        {"test-bundle": _csv('"description": "Test description"')},
        "Test description",
    ),
    MetadataCase(
        "CSV has empty description",
        ["test-bundle"],
        {
            "test-bundle": _csv(
                '"description": "", "icon": [{"base64data": "aGVsbG8=", "mediatype": "image/png"}]'
            )
        },
        icon=(b"hello", "image/png"),
    ),
    MetadataCase(
        "CSV has empty icons array",
        ["test-bundle"],
        {"test-bundle": _csv('"description": "Test description", "icon": []')},
        "Test description",
    ),
    MetadataCase(
        "CSV has multiple icons - uses first one",
        ["test-bundle"],
        {
            "test-bundle": _csv(
                '"description": "Test description", "icon": ['
                '{"base64data": "Zmlyc3Q=", "mediatype": "image/png"}, '
                '{"base64data": "c2Vjb25k", "mediatype": "image/svg+xml"}]'
            )
        },
        "Test description",
        (b"first", "image/png"),
    ),
)
