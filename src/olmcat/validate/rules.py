"""Every rule ``olmcat validate`` checks: a stable ID, a name, which opm releases enforce it,
why it exists and how to fix a catalog that breaks it.

IDs never change meaning and are never reused; ``docs/rules.md`` lists them (a test keeps the two
in step). A rule is enforced by a range of opm releases (``since`` up to, not including,
``until``, found in operator-registry's history); it is an *error* when the chosen compatibility
level (``--compat``: any release from v1.26.5 to v1.73.0) is in that range and a *warning*
otherwise, so ``--compat v1.26`` gives opm v1.26.5's verdict and the default ``--compat v1.72``
gives opm v1.72's. Rules no opm enforces are always warnings: olmcat's verdict is never stricter
than opm's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from olmcat.errors import InputError
from olmcat.go.opm import OLDEST, RELEASES, OpmRelease, opm_release
from olmcat.go.opm import behaviour as opm_behaviour

Severity = Literal["error", "warning"]
Compat = str
"""A compatibility level: an opm release as ``vX.Y`` (that line's newest patch) or ``vX.Y.Z``."""
COMPAT_LEVELS: tuple[Compat, ...] = ("v1.26", "v1.72")
"""The levels the differential tests and v1.72's test tables pin; any release is accepted."""
DEFAULT_COMPAT: Compat = "v1.72"

# Which releases enforce a rule, as written in the table below: BOTH means from the oldest
# release on (``until`` may end it), V172 from ``since`` on, V126 from the oldest release until
# ``until``, NONE never.
BOTH: tuple[str, ...] = ("v1.26", "v1.72")
V126: tuple[str, ...] = ("v1.26",)
V172: tuple[str, ...] = ("v1.72",)
NONE: tuple[str, ...] = ()


def compat_release(compat: Compat | OpmRelease) -> OpmRelease:
    """The release a compatibility level names (InputError naming the known range)."""
    if isinstance(compat, OpmRelease):
        return compat
    try:
        return opm_release(compat)
    except ValueError as error:
        raise InputError(f"--compat {compat}: {error}") from None


def normalize_compat(compat: Compat) -> Compat:
    """``1.26`` / ``v1.26`` -> ``v1.26``; ``1.46.0`` -> ``v1.46.0`` (checked)."""
    compat_release(compat)
    return "v" + compat.strip().removeprefix("v")


@dataclass(frozen=True, slots=True)
class Rule:
    """One check. Releases ``since`` (inclusive) to ``until`` (exclusive) refuse a catalog
    breaking it (``enforced`` False: none does); ``opm_says`` is (the gist of) opm's message;
    ``fix`` is the hint every problem of this rule carries."""

    id: str
    name: str
    summary: str
    enforced: bool
    opm_says: str
    fix: str
    default_enabled: bool = True
    since: str = ""
    """The first release that enforces the rule when v1.26.5 does not ("" for v1.26.5)."""
    until: str = ""
    """The first release that no longer enforces it ("" while v1.73.0 still does)."""

    def enforced_by(self, release: OpmRelease) -> bool:
        if not self.enforced:
            return False
        if self.since and not release.at_least(self.since):
            return False
        return not (self.until and release.at_least(self.until))

    def severity(self, compat: Compat | OpmRelease) -> Severity:
        return "error" if self.enforced_by(compat_release(compat)) else "warning"

    @property
    def releases(self) -> str:
        """The releases that enforce the rule, for tables: ``v1.26.5 and later``,
        ``v1.26.5 to v1.27.1``, ``none``."""
        if not self.enforced:
            return "none"
        first = self.since or OLDEST.tag
        if not self.until:
            return f"{first} and later"
        last = max(r for r in RELEASES if not r.at_least(self.until))
        return f"{first} to {last.tag}"

    @property
    def opm(self) -> tuple[str, ...]:
        """The pinned levels (``COMPAT_LEVELS``) at which the rule is an error."""
        return tuple(c for c in COMPAT_LEVELS if self.enforced_by(compat_release(c)))

    @property
    def label(self) -> str:
        return f"{self.id} {self.name}"


def _r(
    id: str,
    name: str,
    opm: tuple[str, ...],
    summary: str,
    opm_says: str,
    fix: str,
    *,
    default_enabled: bool = True,
    behaviour: str = "",
) -> Rule:
    """A table row. ``behaviour`` names the row of :data:`olmcat.go.opm.BEHAVIOURS` that changed
    the rule: the release that starts enforcing it (V172) or stops (V126)."""
    since = until = ""
    if behaviour:
        changed = opm_behaviour(behaviour)
        if changed.until is not None:  # enforced exactly while the behaviour is in force
            since = "" if changed.since == OLDEST.tag else changed.since
            until = changed.until
        else:
            since, until = (changed.since, "") if opm == V172 else ("", changed.since)
    if opm == V126 and not until:
        raise ValueError(f"{id}: a rule only v1.26 enforces needs the behaviour that ended it")
    return Rule(id, name, summary, bool(opm), opm_says, fix, default_enabled, since, until)


RULES: tuple[Rule, ...] = (
    # -- files and documents ---------------------------------------------------------------------
    _r(
        "OLMCAT-FS001",
        "stray-file",
        BOTH,
        "A file in the catalog directory is not a catalog file, but opm loads every file that no "
        ".indexignore excludes (README.md, Dockerfile, notes.txt ...).",
        "unmarshal error / error converting YAML to JSON (opm serve, validate and render fail)",
        "move the file out of the catalog directory, or list it in a .indexignore file there",
    ),
    _r(
        "OLMCAT-FS002",
        "unparsable-file",
        BOTH,
        "A catalog file is not a valid JSON stream or YAML document stream, or exceeds a reading "
        "bound (nesting depth, YAML alias expansion).",
        "invalid character ... / error converting YAML to JSON",
        "fix the syntax at the position shown; for a bound, flatten the document (or raise "
        "--max-depth / --max-yaml-alias-ratio if it is genuine)",
    ),
    _r(
        "OLMCAT-FS003",
        "unreadable-file",
        BOTH,
        "A catalog file cannot be read, or is not UTF-8 text.",
        "open ...: permission denied / invalid character",
        "make the file readable UTF-8 text, or exclude it with .indexignore",
    ),
    _r(
        "OLMCAT-FS004",
        "empty-document",
        BOTH,
        "A YAML document holds only blanks or comments (for example a comment after the last "
        "'---'); opm's decoder turns it into an empty blob.",
        "unmarshal error: unexpected end of JSON input",
        "remove the empty document (the '---' line and what follows it)",
    ),
    _r(
        "OLMCAT-FS006",
        "escaped-html-escape",
        V126,
        "A string holds the text \\u003c, \\u003e or \\u0026 (its backslash written as "
        "\\\\, as in a JSON example inside a CSV annotation). opm v1.26 and v1.27 replace those "
        "six characters by <, > and & in each document's JSON before parsing it, which leaves an "
        "invalid \\< escape; v1.28 and later read the text as it is.",
        "unmarshal error: invalid character '<' in string escape code at offset N",
        "write the characters themselves (<, > and &) in the embedded text, or spell the "
        "backslash \\u005c in a JSON file",
        behaviour="encoding-html-escape-replacement",
    ),
    _r(
        "OLMCAT-FS007",
        "invalid-utf8-in-json",
        NONE,
        "A string of a JSON catalog file holds bytes that are not UTF-8. opm reads each such "
        "byte as U+FFFD (the replacement character), so what it serves differs from the file; "
        "in a YAML file the same bytes are an error (OLMCAT-FS003).",
        "(valid; the text changes)",
        "write the text in UTF-8",
    ),
    _r(
        "OLMCAT-FS008",
        "json-then-yaml",
        V126,
        "A file starts as JSON (its first character is '{') but its first or second document "
        "is no JSON (a YAML flow mapping such as {schema: olm.package}, or a JSON object "
        "followed by YAML documents). Kubernetes 1.33's decoder (opm v1.56.0 and later) then "
        "reads the rest of the file as YAML; earlier releases refuse the file.",
        "invalid character ... looking for beginning of object key string",
        "write the file all in JSON or all in YAML (start a YAML file with '---')",
        behaviour="encoding-json-then-yaml",
    ),
    _r(
        "OLMCAT-FS005",
        "empty-catalog",
        NONE,
        "The catalog holds no package. opm accepts an empty catalog (it serves nothing); olmcat "
        "warns because an empty catalog is usually a wrong path or an over-broad .indexignore.",
        "(valid)",
        "check the path and the .indexignore files",
    ),
    # -- blobs -----------------------------------------------------------------------------------
    _r(
        "OLMCAT-BL001",
        "blob-not-object",
        BOTH,
        "Every document of a catalog file must be a JSON object (a blob).",
        "cannot unmarshal array/string into Go value of type declcfg.Meta",
        "make the document an object with a 'schema' field",
    ),
    _r(
        "OLMCAT-BL002",
        "missing-schema",
        BOTH,
        "Every blob needs a non-empty string 'schema'.",
        "object '...' is missing root schema field",
        "add a 'schema' (olm.package, olm.channel, olm.bundle, olm.deprecations or your own)",
    ),
    _r(
        "OLMCAT-BL003",
        "field-type",
        BOTH,
        "A field of a blob has the wrong JSON type (for example 'relatedImages' given as an "
        "object instead of a list), or an icon's 'base64data' is not base64 (opm decodes it "
        "into bytes).",
        "parse bundle: json: cannot unmarshal object into Go struct field ... of type []... / "
        "parse package: illegal base64 data at input byte N",
        "give the field the type the FBC schema defines",
    ),
    _r(
        "OLMCAT-BL004",
        "required-field",
        BOTH,
        "A field opm requires is missing or empty (a package's name, a channel's or bundle's "
        "package, a channel entry's name, a property's value).",
        "config contains package with no name / package name must be set for bundle ...",
        "set the field",
    ),
    _r(
        "OLMCAT-BL005",
        "unknown-package",
        BOTH,
        "A channel or bundle names a package that has no olm.package blob.",
        'unknown package "..." for channel/bundle "..."',
        "add the olm.package blob, or correct the blob's 'package'",
    ),
    _r(
        "OLMCAT-BL006",
        "duplicate-package",
        BOTH,
        "Two olm.package blobs have the same name.",
        'duplicate package "..."',
        "remove one of them",
    ),
    _r(
        "OLMCAT-BL007",
        "duplicate-channel",
        BOTH,
        "Two olm.channel blobs of one package have the same name.",
        'package "..." has duplicate channel "..."',
        "merge their entries into one olm.channel blob",
    ),
    _r(
        "OLMCAT-BL008",
        "duplicate-bundle",
        BOTH,
        "Two olm.bundle blobs of one package have the same name.",
        'package "..." has duplicate bundle "..."',
        "remove one of them",
    ),
    _r(
        "OLMCAT-BL009",
        "other-blob-properties",
        V126,
        "A blob of another schema has 'properties' that are not a list of {type, value} "
        "objects; opm v1.26 parses them for every blob, v1.72 only for its own schemas.",
        "json: cannot unmarshal ... into Go struct field tmp.properties",
        "make 'properties' a list of objects with a string 'type', or rename the field",
        behaviour="validate-blob-generic-decode",
    ),
    _r(
        "OLMCAT-BL010",
        "duplicate-key",
        V172,
        "Two top-level keys of a blob differ only in case ('name' and 'Name'); opm v1.72 "
        "matches keys case-insensitively and refuses such blobs.",
        'duplicate keys for key "...": [...]',
        "keep one spelling of the key",
        behaviour="validate-blob-generic-decode",
    ),
    _r(
        "OLMCAT-BL011",
        "number-out-of-range",
        V172,
        "A number of a JSON catalog file is beyond float64's range (1e400, or more than 308 "
        "digits). Since v1.28 opm decodes every blob into generic values first and refuses it; "
        "YAML reads such a number as a string. From v1.56 a file whose only or second and last "
        "document fails so is read again as YAML and accepted.",
        "json: cannot unmarshal number 1e400 into Go value of type float64",
        "write the number as a string, or within float64's range",
        behaviour="validate-blob-generic-decode",
    ),
    # -- packages --------------------------------------------------------------------------------
    _r(
        "OLMCAT-PK001",
        "invalid-package-name",
        V172,
        "A package name must be a DNS-1123 label: lower-case letters, digits and '-', starting "
        "and ending with a letter or digit, at most 63 characters.",
        'invalid package name "...": [a lowercase RFC 1123 label must consist of ...]',
        "rename the package (in every blob and olm.package property that names it)",
        behaviour="validate-package-name-dns1123",
    ),
    _r(
        "OLMCAT-PK002",
        "no-default-channel",
        BOTH,
        "A package must name its default channel.",
        'invalid package "...": default channel must be set',
        "set 'defaultChannel' of the olm.package blob",
    ),
    _r(
        "OLMCAT-PK003",
        "unknown-default-channel",
        BOTH,
        "The default channel must be one of the package's channels.",
        'invalid channel "...": channel must contain at least one bundle',
        "set 'defaultChannel' to an existing channel, or add that channel",
    ),
    _r(
        "OLMCAT-PK004",
        "no-channels",
        BOTH,
        "A package must have at least one channel.",
        "package must contain at least one channel",
        "add an olm.channel blob for the package",
    ),
    _r(
        "OLMCAT-PK005",
        "duplicate-version",
        V172,
        "Two bundles of one package have the same version (and release).",
        "duplicate versions found in bundles: [{1.0.0: [a, b]}]",
        "give each bundle its own version, or remove the copy",
        behaviour="validate-unique-bundle-versions",
    ),
    _r(
        "OLMCAT-PK006",
        "incomplete-icon",
        NONE,
        "A package icon should have both 'base64data' and 'mediatype' (opm has this check "
        "written but switched off).",
        "(not checked)",
        "set both fields of the icon, or remove the icon",
        default_enabled=False,
    ),
    # -- channels --------------------------------------------------------------------------------
    _r(
        "OLMCAT-CH001",
        "empty-channel",
        BOTH,
        "A channel must have at least one entry.",
        'invalid channel "...": channel must contain at least one bundle',
        "add an entry, or remove the channel",
    ),
    _r(
        "OLMCAT-CH002",
        "duplicate-entry",
        BOTH,
        "A channel lists the same bundle twice.",
        'invalid package "...", channel "...": duplicate entry "..."',
        "remove the repeated entry",
    ),
    _r(
        "OLMCAT-CH003",
        "stranded-bundle",
        BOTH,
        "Every entry must be reachable from the channel head along 'replaces', or be skipped "
        "by another entry.",
        "channel contains one or more stranded bundles: ...",
        "make an entry replace the stranded bundle, or list it in an entry's 'skips'",
    ),
    _r(
        "OLMCAT-CH004",
        "missing-bundle",
        BOTH,
        "Every channel entry needs an olm.bundle blob of the same name in the package.",
        'no olm.bundle blobs found in package "..." for olm.channel entries [...]',
        "add the bundle's olm.bundle blob, or remove the entry",
    ),
    _r(
        "OLMCAT-CH005",
        "channel-head",
        BOTH,
        "A channel needs exactly one head: one entry that no other entry replaces or skips.",
        "no channel head found in graph / multiple channel heads found in graph: ...",
        "make the newest entry replace or skip the other head(s)",
    ),
    _r(
        "OLMCAT-CH006",
        "replaces-cycle",
        BOTH,
        "Following 'replaces' from the head comes back to an entry already passed.",
        "detected cycle in replaces chain of upgrade graph: a -> b -> a",
        "break the cycle: the oldest entry of the chain must not replace a newer one",
    ),
    _r(
        "OLMCAT-CH007",
        "chain-ends-at-skipped",
        V172,
        "Since opm v1.58 the replaces chain stops at an entry that another entry skips, so "
        "entries reached only through a skipped entry's 'replaces' are stranded (opm before "
        "v1.58 followed the chain through it). Catalogs migrated from index images hit this "
        "when an entry both replaces and skips the same bundle.",
        "channel contains one or more stranded bundles: ...",
        "add the stranded entries to the 'skips' of the entry that skips the chain's last "
        "reachable bundle, or drop the skip so the chain continues",
        behaviour="validate-replaces-chain-stops-at-skipped",
    ),
    _r(
        "OLMCAT-CH008",
        "replaces-cycle-through-skipped",
        V126,
        "opm v1.26 follows 'replaces' through skipped entries and refuses a cycle found "
        "there; v1.72 stops at the skipped entry and does not see it.",
        "detected cycle in replaces chain of upgrade graph: ...",
        "break the cycle among the skipped entries",
        behaviour="validate-replaces-chain-stops-at-skipped",
    ),
    _r(
        "OLMCAT-CH009",
        "replaces-outside-channel",
        NONE,
        "An entry replaces a bundle that is not in the channel. opm allows this (the tail of a "
        "channel may replace a bundle that was pruned); elsewhere it usually is a typo.",
        "(valid)",
        "check the name, or drop 'replaces' if the old bundle is gone on purpose",
    ),
    _r(
        "OLMCAT-CH010",
        "empty-skip",
        BOTH,
        "An entry of 'skips' is an empty string.",
        'invalid bundle "...": skip[0] is empty',
        "remove the empty entry from 'skips'",
    ),
    _r(
        "OLMCAT-CH011",
        "invalid-skip-range",
        V172,
        "'skipRange' must parse as a blang/semver range.",
        'invalid bundle "...": invalid skipRange "...": ...',
        "write the range like '>=1.0.0 <1.2.0'",
        behaviour="validate-skip-range",
    ),
    # -- bundles ---------------------------------------------------------------------------------
    _r(
        "OLMCAT-BU001",
        "bundle-not-in-channel",
        BOTH,
        "Every bundle must be an entry of at least one channel of its package.",
        'package "...", bundle "..." not found in any channel entries',
        "add the bundle to a channel, or remove its olm.bundle blob",
    ),
    _r(
        "OLMCAT-BU002",
        "package-property-count",
        BOTH,
        "A bundle must have exactly one olm.package property.",
        'package "..." bundle "..." must have exactly 1 "olm.package" property, found N',
        "give the bundle one olm.package property {packageName, version}",
    ),
    _r(
        "OLMCAT-BU003",
        "package-property-mismatch",
        BOTH,
        "The olm.package property must name the bundle's own package.",
        'package "..." does not match "olm.package" property "..."',
        "correct packageName of the olm.package property",
    ),
    _r(
        "OLMCAT-BU004",
        "invalid-version",
        BOTH,
        "The version of the olm.package property must be strict semver (no 'v', three numbers).",
        'error parsing bundle "..." version "...": ...',
        "write the version as MAJOR.MINOR.PATCH[-pre][+build]",
    ),
    _r(
        "OLMCAT-BU005",
        "invalid-release",
        V172,
        "The 'release' of the olm.package property must be dot-separated semver pre-release "
        "identifiers, at most 20 characters.",
        'error parsing bundle "..." release version "...": ...',
        "use letters, digits and '-' in dot-separated parts, no leading zeros",
        behaviour="validate-bundle-release",
    ),
    _r(
        "OLMCAT-BU006",
        "bundle-name-not-normalized",
        V172,
        "A bundle with a release must be named <package>-v<version>-<release>.",
        'invalid bundle "...": name "..." does not match normalized name "..."',
        "rename the bundle (and its channel entries) to the normalized name",
        behaviour="validate-bundle-release",
    ),
    _r(
        "OLMCAT-BU007",
        "build-metadata-with-release",
        V172,
        "A version with build metadata (+...) cannot also have a release.",
        "cannot use build metadata in version with a release version",
        "drop the build metadata or the release",
        behaviour="validate-bundle-release",
    ),
    _r(
        "OLMCAT-BU008",
        "no-bundle-image",
        BOTH,
        "A bundle needs an image, or inline olm.bundle.object properties.",
        'invalid bundle "...": bundle image must be set',
        "set the bundle's 'image'",
    ),
    _r(
        "OLMCAT-BU009",
        "invalid-image-reference",
        V172,
        "The bundle image and every relatedImages[].image must be valid image pull specs "
        "(docker reference grammar, lower-case repository, valid digest).",
        'package "..." bundle "..." image: invalid image pull spec "...": ...',
        "correct the pull spec",
        behaviour="validate-image-references",
    ),
    _r(
        "OLMCAT-BU010",
        "invalid-bundle-object",
        BOTH,
        "An olm.bundle.object property must carry base64 'data' that decodes to a YAML or JSON "
        "manifest.",
        "parse property at index N as bundle object / convert bundle object ... to JSON",
        "re-encode the manifest as standard base64",
    ),
    _r(
        "OLMCAT-BU011",
        "bundle-object-ref",
        V126,
        "opm v1.26 resolves an olm.bundle.object 'ref' as a relative path to a file beside the "
        "catalog file, and refuses 'ref' together with 'data'; v1.72 ignores 'ref'.",
        "fields 'ref' and 'data' are mutually exclusive / get data for bundle object ...",
        "inline the manifest as 'data'",
        behaviour="validate-bundle-object-ref-dropped",
    ),
    _r(
        "OLMCAT-BU012",
        "related-image-without-image",
        NONE,
        "A relatedImages entry has no image (opm has this check written but switched off: "
        "some CSVs use 'value' instead of 'image').",
        "(not checked)",
        "set 'image' of the related image, or remove the entry",
        default_enabled=False,
    ),
    # -- properties ------------------------------------------------------------------------------
    _r(
        "OLMCAT-PR001",
        "invalid-property",
        BOTH,
        "A bundle property of a type opm knows (olm.package, olm.package.required, olm.gvk, "
        "olm.gvk.required, olm.bundle.object, olm.channel) does not parse as that type, or a "
        "property value is not JSON.",
        'parse properties for bundle "...": parse property[N] of type "...": ...',
        "give the property value the fields and types of its type",
    ),
    _r(
        "OLMCAT-PR002",
        "invalid-csv-metadata",
        V172,
        "An olm.csv.metadata property does not parse as CSV metadata (v1.72 knows the type, "
        "v1.26 treats it as any JSON).",
        'parse property[N] of type "olm.csv.metadata": json: cannot unmarshal ...',
        "give the fields the types of a ClusterServiceVersion's spec",
        behaviour="validate-csv-metadata-parsed",
    ),
    _r(
        "OLMCAT-PR003",
        "property-without-type",
        NONE,
        "A property has no type; opm keeps it, but nothing can use it.",
        "(valid)",
        "set the property's 'type'",
    ),
    _r(
        "OLMCAT-PR004",
        "incomplete-gvk",
        NONE,
        "An olm.gvk or olm.gvk.required property has no kind or no version; OLM cannot match it.",
        "(valid)",
        "set kind and version",
    ),
    _r(
        "OLMCAT-PR005",
        "package-required-version-range",
        NONE,
        "The versionRange of an olm.package.required property does not parse as a semver "
        "range, so OLM can never satisfy the dependency. No opm checks versionRange.",
        "(valid)",
        "write versionRange as a range, e.g. '>=0.1.0' (a bare version such as 'v0.1.0' is "
        "not a range)",
    ),
    _r(
        "OLMCAT-PR006",
        "package-required-no-name",
        NONE,
        "An olm.package.required property has an empty packageName.",
        "(valid)",
        "set packageName",
    ),
    # -- deprecations (opm v1.26 does not know olm.deprecations) --------------------------------
    _r(
        "OLMCAT-DE001",
        "deprecations-unknown-package",
        V172,
        "An olm.deprecations blob names a package that has no olm.package blob.",
        'cannot apply deprecations to an unknown package "..."',
        "correct the blob's 'package', or remove the blob",
        behaviour="validate-deprecations",
    ),
    _r(
        "OLMCAT-DE002",
        "duplicate-deprecations",
        V172,
        "A package has more than one olm.deprecations blob.",
        'expected a maximum of one deprecation per package: "..."',
        "merge the entries into one olm.deprecations blob",
        behaviour="validate-deprecations",
    ),
    _r(
        "OLMCAT-DE003",
        "deprecation-reference",
        V172,
        "A deprecation entry must reference olm.package (without a name), or an existing "
        "olm.channel or olm.bundle of the package.",
        'cannot deprecate bundle "..." for package "...": bundle not found',
        "correct the reference, or remove the entry",
        behaviour="validate-deprecations",
    ),
    _r(
        "OLMCAT-DE004",
        "duplicate-deprecation-entry",
        V172,
        "The same package, channel or bundle is deprecated twice.",
        "duplicate deprecation entry ... for package ...",
        "remove the repeated entry",
        behaviour="validate-deprecations",
    ),
    _r(
        "OLMCAT-DE005",
        "deprecation-message",
        V172,
        "Every deprecation entry needs a message.",
        "invalid deprecation: message must be set",
        "write a message that tells users what to do instead",
        behaviour="validate-deprecations",
    ),
    _r(
        "OLMCAT-DE006",
        "malformed-deprecations",
        V172,
        "An olm.deprecations blob has no package, or fields of the wrong type.",
        "package name must be set for deprecation item N / parse deprecation: json: ...",
        "give the blob a 'package' and entries of {reference: {schema, name}, message}",
        behaviour="validate-deprecations",
    ),
    # -- other catalog forms ---------------------------------------------------------------------
    _r(
        "OLMCAT-LG001",
        "legacy-rejected",
        BOTH,
        "A package or bundle of a package-manifest or bundle directory that opm's legacy loader "
        "(initializer, opm registry add) would refuse, so it never reaches the catalog.",
        "(the loader's error; the package is left out)",
        "fix the manifests as the message says",
    ),
    _r(
        "OLMCAT-LG002",
        "reader-notice",
        NONE,
        "Something the reader left out, rewrote or defaulted while reading a non-FBC catalog.",
        "(opm logs a warning, if anything)",
        "see the message",
    ),
)

_BY_KEY: dict[str, Rule] = {}
for _rule in RULES:
    _BY_KEY[_rule.id.lower()] = _rule
    _BY_KEY[_rule.name.lower()] = _rule
    _BY_KEY[_rule.id.lower().removeprefix("olmcat-")] = _rule


def rule(key: str) -> Rule:
    """A rule by ID (``OLMCAT-CH003``, ``CH003``) or name (``stranded-bundle``)."""
    found = _BY_KEY.get(key.strip().lower())
    if found is None:
        raise InputError(f"unknown rule {key!r}: see 'olmcat validate --list-rules'")
    return found


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rules of one run: which are on, and at which opm compatibility level."""

    compat: Compat = DEFAULT_COMPAT
    enabled: frozenset[str] = frozenset(r.id for r in RULES if r.default_enabled)

    @property
    def release(self) -> OpmRelease:
        return compat_release(self.compat)

    @classmethod
    def build(
        cls,
        compat: Compat = DEFAULT_COMPAT,
        enable: Iterable[str] = (),
        disable: Iterable[str] = (),
    ) -> RuleSet:
        """Default rules, minus ``disable``, plus ``enable`` (IDs or names). ``all`` in
        ``enable`` starts from every rule, in ``disable`` from none; named rules then apply, so
        ``--disable all --enable X`` runs X only and ``--enable all --disable X`` all but X.
        ``compat`` is any opm release from v1.26.5 to v1.73.0 (InputError otherwise)."""
        compat = normalize_compat(compat)
        everything = {r.id for r in RULES}
        enabled = {r.id for r in RULES if r.default_enabled}
        if "all" in enable:
            enabled = set(everything)
        if "all" in disable:
            enabled = set()
        enabled -= {rule(key).id for key in disable if key != "all"}
        enabled |= {rule(key).id for key in enable if key != "all"}
        return cls(compat, frozenset(enabled))

    def is_on(self, rule_id: str) -> bool:
        return rule_id in self.enabled
