"""The opm releases olmcat imitates, and which behaviours each one has.

olmcat writes what opm writes; where opm's output or verdicts changed between releases, the release
a pipeline pins (``--opm-version``) selects the behaviour. :data:`RELEASES` is every
operator-registry tag from v1.26.5 (the oracle) to v1.73.0. :data:`BEHAVIOURS` ties each change
that alters output or verdicts to the release and upstream commit that introduced it;
``docs/opm-releases.md`` is that table for readers, and a test keeps the two in step.

Code asks a release a question by behaviour name (``release.has("…")``), never by comparing
version numbers itself, so that each behaviour's starting release is written down once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from olmcat.errors import UsageError

__all__ = [
    "BEHAVIOURS",
    "MIGRATE_LEVELS",
    "NEWEST",
    "OLDEST",
    "RELEASES",
    "Behaviour",
    "MigrateLevel",
    "OpmRelease",
    "as_release",
    "check_migrate_level",
    "introduced",
    "opm_release",
]

_TAGS = (
    "v1.26.5",
    "v1.27.0",
    "v1.27.1",
    "v1.28.0",
    "v1.29.0",
    "v1.30.0",
    "v1.30.1",
    "v1.31.0",
    "v1.32.0",
    "v1.33.0",
    "v1.34.0",
    "v1.35.0",
    "v1.36.0",
    "v1.37.0",
    "v1.38.0",
    "v1.39.0",
    "v1.40.0",
    "v1.41.0",
    "v1.42.0",
    "v1.43.0",
    "v1.43.1",
    "v1.44.0",
    "v1.45.0",
    "v1.46.0",
    "v1.47.0",
    "v1.48.0",
    "v1.49.0",
    "v1.50.0",
    "v1.51.0",
    "v1.52.0",
    "v1.53.0",
    "v1.54.0",
    "v1.55.0",
    "v1.56.0",
    "v1.57.0",
    "v1.58.0",
    "v1.59.0",
    "v1.60.0",
    "v1.61.0",
    "v1.62.0",
    "v1.63.0",
    "v1.64.0",
    "v1.65.0",
    "v1.66.0",
    "v1.67.0",
    "v1.68.0",
    "v1.69.0",
    "v1.70.0",
    "v1.71.0",
    "v1.72.0",
    "v1.73.0",
)


@dataclass(frozen=True, order=True)
class OpmRelease:
    """One released opm (operator-registry tag)."""

    major: int
    minor: int
    patch: int

    @property
    def tag(self) -> str:
        """The git tag, e.g. ``v1.46.0``; also the stable text used in cache keys."""
        return f"v{self.major}.{self.minor}.{self.patch}"

    def __str__(self) -> str:
        return self.tag

    def at_least(self, tag: str) -> bool:
        """True when this release is ``tag`` or newer."""
        return self >= _parse_tag(tag)

    def has(self, behaviour: str) -> bool:
        """True when ``behaviour`` (a name in :data:`BEHAVIOURS`) is in force at this release."""
        try:
            found = _BY_NAME[behaviour]
        except KeyError:
            raise KeyError(f"unknown opm behaviour {behaviour!r}") from None
        return self.at_least(found.since) and (
            found.until is None or not self.at_least(found.until)
        )


@dataclass(frozen=True)
class Behaviour:
    """A change in opm's output or verdicts, tied to where it came from."""

    name: str
    since: str
    """The first release (tag) that behaves this way."""
    commit: str
    """The upstream commit (operator-registry) that introduced it."""
    summary: str
    until: str | None = None
    """The first release that no longer behaves this way (``None``: still in force)."""


def _parse_tag(tag: str) -> OpmRelease:
    parts = tag.removeprefix("v").split(".")
    major, minor, patch = (int(p) for p in parts)
    return OpmRelease(major, minor, patch)


RELEASES: tuple[OpmRelease, ...] = tuple(_parse_tag(t) for t in _TAGS)
OLDEST = RELEASES[0]
NEWEST = RELEASES[-1]

# Sorted by release, then name (h23-render's render/validate rows merge into the same order).
BEHAVIOURS: tuple[Behaviour, ...] = (
    Behaviour(
        "template-semver-channel-preference",
        "v1.27.1",
        "7629c6f991fc8dcce91bcb5ee4e998678bbd7779",
        "semver templates read defaultChannelTypePreference (before: an unknown field); when one "
        "bundle creates a major and a minor channel, the preferred kind is the default channel "
        "(before: whichever Go's map iteration met first, the major channel in 7 of 8 runs), and "
        "a channel first created at 0.0.0 can be the default",
    ),
    Behaviour(
        "template-semver-generate-defaults",
        "v1.27.1",
        "7629c6f991fc8dcce91bcb5ee4e998678bbd7779",
        "semver templates make minor channels only when neither generate flag is set (before: "
        "generateMinorChannels was true unless the template set it false)",
    ),
    Behaviour(
        "encoding-meta-reencoded",
        "v1.28.0",
        "2ee231b3235cb38aeb045845627a7d7ffb98d1b4",
        "blobs of schemas opm does not model are decoded into a map and encoded again (keys "
        "sorted, numbers as float64, no HTML escaping) instead of passed through as written "
        "after a plain text replacement of \\u003c, \\u003e and \\u0026",
    ),
    Behaviour(
        "render-csv-metadata-by-default",
        "v1.28.0",
        "2ee231b3235cb38aeb045845627a7d7ffb98d1b4",
        "rendering a bundle that has an image reference writes one olm.csv.metadata property for "
        "its CSV and no olm.bundle.object at all (the CSV's objects stay when it does not "
        "decode); bundles without an image keep one olm.bundle.object per manifest",
        until="v1.46.0",
    ),
    Behaviour(
        "render-sqlite-csv-metadata-by-default",
        "v1.28.0",
        "2ee231b3235cb38aeb045845627a7d7ffb98d1b4",
        "rendering or migrating an SQLite database writes one olm.csv.metadata property (last) "
        "instead of the olm.bundle.object properties for bundles that have a bundle path and a "
        "CSV that decodes",
        until="v1.46.0",
    ),
    Behaviour(
        "encoding-deprecations-typed",
        "v1.32.0",
        "f2285a21a7a48d8fe584e916875405e5d48e9149",
        "olm.deprecations blobs are decoded into declcfg.Deprecation (unknown fields dropped, "
        "fields in struct order) and written after the other blobs of their package (before: "
        "an unknown schema, passed through)",
    ),
    Behaviour(
        "template-semver-channel-scoped-links",
        "v1.37.0",
        "2096c4f5d0d2cb3ed31767d406afe10786565f01",
        "semver templates link each channel on its own: the last entry of each minor version "
        "replaces the last entry of the previous minor version of the same channel and skips "
        "the lower entries of its own minor version (before and after: one pass over all entries "
        "of an archetype, stream kind and major version, where a minor channel's first entry "
        "replaces the previous minor's head and skips every lower entry of that major)",
        until="v1.61.0",
    ),
    Behaviour(
        "template-semver-skip-replaced-head",
        "v1.37.0",
        "2096c4f5d0d2cb3ed31767d406afe10786565f01",
        "with channel-scoped links, an entry that replaces the previous minor version's last "
        "entry also skips it (listed first among its skips)",
        until="v1.57.0",
    ),
    Behaviour(
        "encoding-go122-json",
        "v1.41.0",
        "773f39dc602a802aa94b4378523eeaef86025885",
        "opm is built with Go 1.22 or newer: JSON strings write U+0008 and U+000C as \\b and "
        "\\f (before: \\u0008, \\u000c), and sort.Slice orders equal keys of more than 12 "
        "elements differently (olmcat always writes the Go 1.22 form: see the Deviations table)",
    ),
    Behaviour(
        "encoding-bundle-name-omitempty",
        "v1.44.0",
        "dff7915e80b476bf817e25e8101455716e6352be",
        "an olm.bundle blob without name or package is written without those fields (before: "
        '"name":"" and "package":"")',
    ),
    Behaviour(
        "template-basic-schema",
        "v1.44.0",
        "dff7915e80b476bf817e25e8101455716e6352be",
        "basic templates are one olm.template.basic document whose entries are the blobs "
        "(before: a plain FBC stream); opm refuses the other form",
    ),
    Behaviour(
        "render-migrate-level",
        "v1.46.0",
        "c80e8751e716c069017b55279a0f29d0254d426a",
        "--migrate-level (none, bundle-object-to-csv-metadata) on render, migrate and "
        "alpha render-template: bundle-object-to-csv-metadata replaces a bundle's "
        "olm.bundle.object properties by one olm.csv.metadata property, last",
    ),
    Behaviour(
        "render-csv-release-field",
        "v1.62.0",
        "4fdcf1a0212ffaefd04c1756ab4ffdbb935f0681",
        "the CSV's spec.release is decoded (operator-framework/api v0.37.0): a release that is "
        "not a string of dot-separated alphanumeric identifiers without leading zeros (null and "
        '"" included) makes building olm.csv.metadata fail',
    ),
    Behaviour(
        "template-semver-package-metadata",
        "v1.65.0",
        "2095729b2418de4c548c6e1aefd824b80f5842f6",
        "semver templates copy the description and the first icon of the default channel "
        "head's CSV to the olm.package blob",
    ),
)

_BY_NAME = {b.name: b for b in BEHAVIOURS}


def opm_release(text: str) -> OpmRelease:
    """The release ``text`` names: ``X.Y.Z`` exactly, or ``X.Y`` for that line's newest patch
    (``1.26`` is v1.26.5); a leading ``v`` is allowed. ``ValueError`` names the known range."""
    wanted = text.strip().removeprefix("v").split(".")
    known = f"opm releases {OLDEST.tag} to {NEWEST.tag}"
    if len(wanted) not in (2, 3) or not all(p.isdigit() for p in wanted):
        raise ValueError(f"{text!r} is not an opm release (X.Y or X.Y.Z); olmcat knows {known}")
    numbers = tuple(int(p) for p in wanted)
    matches = [r for r in RELEASES if (r.major, r.minor, r.patch)[: len(numbers)] == numbers]
    if not matches:
        raise ValueError(f"opm {text} is not a release olmcat knows; it knows {known}")
    return matches[-1]


def as_release(value: OpmRelease | str) -> OpmRelease:
    """``value`` itself, or the release its text names (see :func:`opm_release`)."""
    return value if isinstance(value, OpmRelease) else opm_release(value)


def introduced(behaviour: str) -> str:
    """The tag of the first release that has ``behaviour`` (for messages)."""
    try:
        return _BY_NAME[behaviour].since
    except KeyError:
        raise KeyError(f"unknown opm behaviour {behaviour!r}") from None


# -- migration levels (opm's --migrate-level, since v1.46.0) -------------------------------------

MigrateLevel = Literal["none", "bundle-object-to-csv-metadata"]
MIGRATE_TO_CSV_METADATA: Final = "bundle-object-to-csv-metadata"
MIGRATE_LEVELS: Final[tuple[MigrateLevel, ...]] = ("none", "bundle-object-to-csv-metadata")


def check_migrate_level(level: str, release: OpmRelease) -> MigrateLevel:
    """``level`` if ``release`` knows it; otherwise :class:`~olmcat.errors.UsageError` naming
    the release that introduced migration levels."""
    if level == "none":
        return "none"
    if level != MIGRATE_TO_CSV_METADATA:
        raise UsageError(f"unknown migration level {level!r}: one of {', '.join(MIGRATE_LEVELS)}")
    if not release.has("render-migrate-level"):
        since = introduced("render-migrate-level")
        raise UsageError(
            f"--migrate-level {level}: opm {release.tag} has no migration levels; they came "
            f"with opm {since} (use --opm-version {since.removeprefix('v')} or later)"
        )
    return MIGRATE_TO_CSV_METADATA
