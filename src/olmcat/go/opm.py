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
    "behaviour",
    "check_migrate_level",
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

    def has(self, name: str) -> bool:
        """True when the behaviour ``name`` (a row of :data:`BEHAVIOURS`) is in force at this
        release."""
        found = behaviour(name)
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

BEHAVIOURS: tuple[Behaviour, ...] = (
    # Sorted by the release that introduced each behaviour, then by name.
    Behaviour(
        "encoding-html-escape-replacement",
        "v1.26.5",
        "fd099516ef679bd14d53212f40b4dae8f61ca8b7",
        "every catalog document's JSON text has \\u003c, \\u003e and \\u0026 replaced by <, > "
        "and & before it is parsed (byte for byte, whatever precedes them): a string holding "
        "those six characters as text (a JSON example inside an annotation, written with an "
        "escaped backslash) becomes an invalid \\< escape and the catalog is refused",
        until="v1.28.0",
    ),
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
        "render-objects-sorted",
        "v1.28.0",
        "2ee231b3235cb38aeb045845627a7d7ffb98d1b4",
        "a rendered bundle's olm.bundle.object properties are sorted with the other properties "
        "by their value text (the base64 of each manifest), then moved to the end, instead of "
        "following the manifests' file names; an olm.bundle.object or olm.csv.metadata from "
        "properties.yaml moves to the end with them",
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
        "validate-blob-generic-decode",
        "v1.28.0",
        "2ee231b3235cb38aeb045845627a7d7ffb98d1b4",
        "every blob is decoded into a generic map before its schema is read (Meta.UnmarshalJSON): "
        "top-level keys differing only in case are refused, a number beyond float64's range "
        "anywhere in a blob is refused, and the 'properties' of blobs of other schemas are no "
        "longer parsed",
    ),
    Behaviour(
        "validate-csv-metadata-parsed",
        "v1.28.0",
        "2ee231b3235cb38aeb045845627a7d7ffb98d1b4",
        "olm.csv.metadata properties are decoded into their Go type, so a field of the wrong type "
        "is refused",
    ),
    Behaviour(
        "validate-bundle-object-ref-dropped",
        "v1.30.0",
        "5e3fa99bfd024d4c73a29456e68f1cb9bc4e4504",
        "an olm.bundle.object 'ref' (a file beside the catalog file) is no longer read: no "
        "refusal for a missing file or for 'ref' beside 'data'",
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
        "validate-deprecations",
        "v1.32.0",
        "f7c6429a51fcfd3c27f1e340a81c622c8429b716",
        "olm.deprecations blobs are read and checked (package, references, messages)",
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
        "elements differently (render and render-template follow each release; migrations and "
        "add write the Go 1.22 form: see the Deviations table)",
    ),
    Behaviour(
        "validate-package-name-dns1123",
        "v1.41.0",
        "6bb0a3e9d60393e61992c0654bc663341c652ba0",
        "package names must be DNS-1123 labels",
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
        "validate-unique-bundle-versions",
        "v1.47.0",
        "c5512c7091fa83be66a668ac24c559bc620ac2eb",
        "two bundles of one package may not have the same version",
    ),
    Behaviour(
        "encoding-json-then-yaml",
        "v1.56.0",
        "53ad34f192cbe5265755ef825c18b0005bfba1a6",
        "Kubernetes 1.33's YAMLOrJSONDecoder: a file that starts with '{' but whose first or "
        "second document is no JSON is read on from that document as YAML (a YAML flow mapping, "
        "a JSON object followed by YAML documents); before, the file was refused",
    ),
    Behaviour(
        "validate-replaces-chain-stops-at-skipped",
        "v1.58.0",
        "3f87beaf715423db3ee5de39e4c5307402a347ef",
        "the replaces chain stops at an entry another entry skips: entries reached only through "
        "it are stranded, and cycles beyond it are no longer seen",
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
        "render-package-release",
        "v1.62.0",
        "6212dc2a245d99e0e828454186f3ab4046d2741f",
        "a rendered bundle's olm.package property carries the CSV's spec.release as "
        '"release" (a string; anything else fails the render), and an olm.package property '
        'from properties.yaml keeps its "release"',
    ),
    Behaviour(
        "render-release-from-build-metadata",
        "v1.62.0",
        "6212dc2a245d99e0e828454186f3ab4046d2741f",
        "a CSV with the olm.substitutesFor annotation and no spec.release has its version split "
        'at "+": the build metadata becomes the olm.package release (no "+" fails the render)',
        until="v1.67.0",
    ),
    Behaviour(
        "render-numeric-release",
        "v1.64.0",
        "f410a396abe01dbe6a46b6d90d34bdd844306388",
        "a numeric spec.release is accepted: whole numbers are written as integers, others as "
        "Go's %g; any other type fails the render",
    ),
    Behaviour(
        "validate-image-references",
        "v1.64.0",
        "81aee76714444d98e39a56dcc9229a633ca4b36f",
        "bundle images and related images must be valid pull specs",
    ),
    Behaviour(
        "template-semver-package-metadata",
        "v1.65.0",
        "2095729b2418de4c548c6e1aefd824b80f5842f6",
        "semver templates copy the description and the first icon of the default channel "
        "head's CSV to the olm.package blob",
    ),
    Behaviour(
        "validate-bundle-release",
        "v1.68.0",
        "e514cfd6afaa5db6508ac94a999a56c8d698dc12",
        "bundle releases are parsed and checked: valid release, names normalized from version "
        "and release, no build metadata beside a release",
    ),
    Behaviour(
        "validate-skip-range",
        "v1.69.0",
        "1ead90f34cdafbacb0e3208639250824c9aa8821",
        "skipRange must parse as a blang/semver range",
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


def behaviour(name: str) -> Behaviour:
    """The row of :data:`BEHAVIOURS` called ``name`` (its ``since`` names the release that
    introduced it, for messages); KeyError when there is none."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown opm behaviour {name!r}") from None


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
        since = behaviour("render-migrate-level").since
        raise UsageError(
            f"--migrate-level {level}: opm {release.tag} has no migration levels; they came "
            f"with opm {since} (use --opm-version {since.removeprefix('v')} or later, or leave "
            "--migrate-level out)"
        )
    return MIGRATE_TO_CSV_METADATA
