"""The model rules: what opm's ``ConvertToModel`` and ``model.Validate`` check of each package,
every problem reported (opm stops at the first), each located at the blob it comes from.

Rule names are those of :mod:`olmcat.validate.rules`; severities are decided there. Channel graphs
are checked with :mod:`olmcat.model.graph`, walked both ways opm has walked them (v1.26 follows
``replaces`` through skipped entries, v1.58 and later stop there), so each verdict can be told
apart and explained.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson
import yaml

from olmcat.errors import InputError
from olmcat.files import yaml as yamlio
from olmcat.go import json as gojson
from olmcat.go.semver import Version, parse_skip_range
from olmcat.model import (
    SCHEMA_BUNDLE,
    SCHEMA_CHANNEL,
    SCHEMA_DEPRECATIONS,
    SCHEMA_PACKAGE,
    Bundle,
    Channel,
    ChannelEntry,
    DeprecationEntry,
    PackageCatalog,
    graph,
)
from olmcat.model import property as prop
from olmcat.model.versions import opm_version
from olmcat.readers.fbcscan import Position, json_type
from olmcat.validate.problems import Findings, Problem
from olmcat.validate.pullspec import pull_spec_problem
from olmcat.validate.rules import RuleSet

# Kubernetes' IsDNS1123Label.
_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_RELEASE_MAX_LENGTH = 20  # the CSV CRD's limit on spec.release, which opm enforces
_PRERELEASE_CHARS = re.compile(r"[0-9A-Za-z-]+")


def q(text: str) -> str:
    """Quote a name for a message, keeping the message on one line."""
    return json.dumps(text, ensure_ascii=False)


@dataclass(slots=True)
class Locations:
    """Where each blob of a package came from, and which blobs were too broken to model.

    Broken blobs are left out of the model; remembering them keeps one defect from being reported
    again as a dangling reference (an entry "without a bundle" whose bundle blob was malformed).
    """

    blobs: dict[tuple[str, str], Position] = field(default_factory=dict)  # (schema, name)
    broken: set[tuple[str, str]] = field(default_factory=set)
    file: str = ""  # where the whole package came from, when blobs have no positions

    def of(self, schema: str, name: str) -> Position | None:
        found = self.blobs.get((schema, name))
        if found is None and self.file:
            return Position(self.file)
        return found

    def is_broken(self, schema: str, name: str | None = None) -> bool:
        if name is None:
            return any(s == schema for s, _ in self.broken)
        return (schema, name) in self.broken


# -- decoding property values the way Go's encoding/json does --------------------------------------


def _field(fields: Mapping[str, str], key: str) -> str | None:
    """The struct field a JSON key fills: an exact match, else a case-insensitive one (Go)."""
    if key in fields:
        return key
    folded = key.casefold()
    for name in fields:
        if name.casefold() == folded:
            return name
    return None


# The last text _go_base64 accepted and its bytes: an olm.bundle.object's data is checked as
# base64 and then decoded again to parse the manifest; this spares the second decode (~10 % of a
# validation). Identity, not equality, is checked, so a stale entry is never used.
_last_decoded: tuple[str, bytes] | None = None


def _go_base64(text: str) -> bool:
    global _last_decoded
    # encoding/json decodes []byte with base64.StdEncoding, which skips \r and \n.
    data = text.replace("\r", "").replace("\n", "")
    try:
        # strict decoding accepts only what the check below accepts, and gives the same bytes,
        # without its extra regular-expression pass over the data
        decoded = binascii.a2b_base64(data, strict_mode=True)
    except (binascii.Error, ValueError):
        try:
            decoded = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            return False
    _last_decoded = (text, decoded)
    return True


def _base64_bytes(text: str) -> bytes:
    """``text`` decoded as the bundle-object check decodes it (no validation: characters
    outside the alphabet are skipped), reusing _go_base64's work when it just accepted it; a
    text that passes validation decodes to the same bytes either way."""
    last = _last_decoded
    if last is not None and last[0] is text:
        return last[1]
    return base64.b64decode(text.replace("\r", "").replace("\n", ""))


def _kind_problem(kind: str, value: Any) -> str | None:
    if value is None:
        return None
    if kind == "string":
        return None if isinstance(value, str) else f"{json_type(value)} is not a string"
    if kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
        return None if ok else f"{json_type(value)} {_show(value)} is not an integer"
    if kind == "bool":
        return None if isinstance(value, bool) else f"{json_type(value)} is not a boolean"
    if kind == "bytes":
        if not isinstance(value, str):
            return f"{json_type(value)} is not a base64 string"
        return None if _go_base64(value) else "not valid base64"
    if kind == "object":
        return None if isinstance(value, dict) else f"{json_type(value)} is not an object"
    if kind == "strings":
        if not isinstance(value, list):
            return f"{json_type(value)} is not a list"
        bad = [v for v in value if v is not None and not isinstance(v, str)]
        return f"a list item is {json_type(bad[0])}, not a string" if bad else None
    if kind == "string-map":
        if not isinstance(value, dict):
            return f"{json_type(value)} is not an object"
        bad = [v for v in value.values() if v is not None and not isinstance(v, str)]
        return f"a value is {json_type(bad[0])}, not a string" if bad else None
    if kind.startswith("objects:") or kind.startswith("struct:"):
        spec = _STRUCTS[kind.split(":", 1)[1]]
        items = value if kind.startswith("objects:") else [value]
        if kind.startswith("objects:") and not isinstance(value, list):
            return f"{json_type(value)} is not a list"
        for item in items:
            problem = go_struct_problem(item, spec)
            if problem is not None:
                return problem
        return None
    raise AssertionError(kind)


def _show(value: Any) -> str:
    return str(value) if isinstance(value, (int, float, str)) else ""


def go_struct_problem(value: Any, fields: Mapping[str, str]) -> str | None:
    """Why ``json.Unmarshal`` of ``value`` into a struct with ``fields`` (JSON name -> kind)
    fails, or ``None``. Unknown keys are ignored and null leaves a field unset, as in Go."""
    if value is None:
        return None
    if not isinstance(value, dict):
        return f"cannot unmarshal {json_type(value)} into an object"
    for key, item in value.items():
        kind = fields.get(key)
        if kind is None:
            name = _field(fields, key)
            if name is None:
                continue
            kind = fields[name]
        elif kind == "string" and (item is None or isinstance(item, str)):
            continue  # the common case, decided without the general check
        problem = _kind_problem(kind, item)
        if problem is not None:
            return f"field {q(key)}: {problem}"
    return None


def go_struct(value: Any, fields: Mapping[str, str]) -> dict[str, Any]:
    """The fields ``json.Unmarshal`` would fill (call :func:`go_struct_problem` first)."""
    out: dict[str, Any] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            name = _field(fields, key)
            if name is not None and item is not None:
                out[name] = item
    return out


_STRUCTS: dict[str, dict[str, str]] = {
    "installMode": {"type": "string", "supported": "bool"},
    "link": {"name": "string", "url": "string"},
    "maintainer": {"name": "string", "email": "string"},
    "gvk": {"group": "string", "version": "string", "kind": "string"},
    "descriptions": {"owned": "objects:any", "required": "objects:any"},
    "any": {},
}

# property.Parse of opm v1.72: the value of each known type must decode into its struct.
PROPERTY_STRUCTS: dict[str, dict[str, str]] = {
    prop.TYPE_PACKAGE: {"packageName": "string", "version": "string", "release": "string"},
    prop.TYPE_PACKAGE_REQUIRED: {"packageName": "string", "versionRange": "string"},
    prop.TYPE_GVK: {"group": "string", "kind": "string", "version": "string"},
    prop.TYPE_GVK_REQUIRED: {"group": "string", "kind": "string", "version": "string"},
    prop.TYPE_BUNDLE_OBJECT: {"data": "bytes"},
    "olm.channel": {"channelName": "string", "priority": "int"},
}
# olm.csv.metadata (opm v1.28 and later): the fields of a CSV spec it keeps.
CSV_METADATA_STRUCT: dict[str, str] = {
    "annotations": "string-map",
    "apiServiceDefinitions": "struct:descriptions",
    "crdDescriptions": "struct:descriptions",
    "description": "string",
    "displayName": "string",
    "installModes": "objects:installMode",
    "keywords": "strings",
    "labels": "string-map",
    "links": "objects:link",
    "maintainers": "objects:maintainer",
    "maturity": "string",
    "minKubeVersion": "string",
    "nativeAPIs": "objects:gvk",
    "provider": "struct:link",
}


def release_problem(release: str) -> str | None:
    """opm v1.72's ``model.NewRelease``: why ``release`` is refused, or ``None``."""
    if len(release) > _RELEASE_MAX_LENGTH:
        return f"longer than {_RELEASE_MAX_LENGTH} characters"
    for index, part in enumerate(release.split(".")):
        if not part:
            return f"part {index} is empty"
        if part.isdigit() and part.isascii():
            if len(part) > 1 and part[0] == "0":
                return f"part {index} ({q(part)}) is a number with a leading zero"
        elif not _PRERELEASE_CHARS.fullmatch(part):
            return f"part {index} ({q(part)}) has characters other than [0-9A-Za-z-]"
    return None


# -- packages -------------------------------------------------------------------------------------


class PackageChecker:
    """Every model rule over one package."""

    def __init__(self, pkg: PackageCatalog, where: Locations, out: Findings) -> None:
        self.pkg = pkg
        self.name = pkg.name
        self.where = where
        self.out = out

    def add(
        self,
        rule: str,
        message: str,
        *,
        schema: str = SCHEMA_PACKAGE,
        channel: str = "",
        bundle: str = "",
    ) -> None:
        key = {SCHEMA_CHANNEL: channel, SCHEMA_BUNDLE: bundle}.get(schema, self.name)
        if schema == SCHEMA_DEPRECATIONS:
            key = ""
        self.out.add(
            rule,
            message,
            at=self.where.of(schema, key),
            package=self.name,
            channel=channel,
            bundle=bundle,
        )

    def run(self) -> None:
        self.package()
        bundle_names = {b.name for b in self.pkg.bundles}
        for channel in self.pkg.channels:
            self.channel(channel, bundle_names)
        self.bundles()
        self.deprecations()

    # -- package --------------------------------------------------------------------------------

    def package(self) -> None:
        pkg = self.pkg
        if not _DNS1123_LABEL.fullmatch(self.name) or len(self.name) > 63:
            self.add(
                "invalid-package-name",
                f"package name {q(self.name)} is not a DNS-1123 label (lower-case letters, "
                "digits and '-', starting and ending with a letter or digit, at most 63 "
                "characters)",
            )
        names = [c.name for c in pkg.channels]
        if not names and not self.where.is_broken(SCHEMA_CHANNEL):
            self.add("no-channels", f"package {q(self.name)} has no channels")
        default = pkg.package.default_channel
        if not default:
            self.add("no-default-channel", f"package {q(self.name)} has no default channel")
        elif default not in names and not self.where.is_broken(SCHEMA_CHANNEL, default):
            known = ", ".join(sorted(names)) or "none"
            self.add(
                "unknown-default-channel",
                f"default channel {q(default)} is not a channel of package {q(self.name)} "
                f"(channels: {known})",
            )
        icon = pkg.package.icon
        if icon is not None and (not icon.base64data or not icon.mediatype):
            missing = "base64data" if not icon.base64data else "mediatype"
            self.add("incomplete-icon", f"the icon of package {q(self.name)} has no {missing}")

    # -- channels -------------------------------------------------------------------------------

    def channel(self, channel: Channel, bundle_names: set[str]) -> None:
        name = channel.name

        def add(rule: str, message: str) -> None:
            self.add(rule, message, schema=SCHEMA_CHANNEL, channel=name)

        if not channel.entries:
            add("empty-channel", f"channel {q(name)} has no entries")
            return
        counts = Counter(e.name for e in channel.entries)
        for entry_name, count in sorted(counts.items()):
            if count > 1:
                add(
                    "duplicate-entry",
                    f"channel {q(name)} lists entry {q(entry_name)} {count} times",
                )
        for entry in channel.entries:
            if (
                entry.name
                and entry.name not in bundle_names
                and not self.where.is_broken(SCHEMA_BUNDLE, entry.name)
            ):
                add(
                    "missing-bundle",
                    f"channel {q(name)} entry {q(entry.name)} has no olm.bundle blob",
                )
            for position, skip in enumerate(entry.skips):
                if not skip:
                    add(
                        "empty-skip",
                        f"entry {q(entry.name)} of channel {q(name)}: skips[{position}] is empty",
                    )
            if entry.skip_range:
                try:
                    parse_skip_range(entry.skip_range)
                except InputError as exc:
                    add(
                        "invalid-skip-range",
                        f"entry {q(entry.name)} of channel {q(name)} has an invalid "
                        f"skipRange: {exc}",
                    )
            if entry.replaces and entry.replaces not in counts:
                add(
                    "replaces-outside-channel",
                    f"entry {q(entry.name)} replaces {q(entry.replaces)}, which is not in "
                    f"channel {q(name)} (allowed for the tail of the channel)",
                )
        self.graph(channel, add)

    def graph(self, channel: Channel, add: Callable[[str, str], None]) -> None:
        """opm's ``validateReplacesChain``, as v1.26 and as v1.58+ walk it."""
        name = channel.name
        heads = graph.heads(channel.entries)
        if not heads:
            add(
                "channel-head",
                f"channel {q(name)} has no head: every entry is replaced or skipped by another",
            )
            return
        if len(heads) > 1:
            add(
                "channel-head",
                f"channel {q(name)} has {len(heads)} heads ({', '.join(heads)}); exactly one "
                "entry may be replaced or skipped by no other",
            )
            return
        head = heads[0]
        by_name = {e.name: e for e in channel.entries}
        skipped = {s for e in channel.entries for s in e.skips}
        old = graph.replaces_chain(channel.entries, head)  # v1.26: through skipped entries
        new = graph.opm_chain(by_name, head)  # v1.58+: stops at a skipped replaces target
        old_cycle = _closing_cycle(old, by_name, set())
        new_cycle = _closing_cycle(new, by_name, skipped)
        if new_cycle:
            add(
                "replaces-cycle",
                f"replaces cycle in channel {q(name)}: {' -> '.join(new_cycle)}",
            )
            return
        if old_cycle:
            add(
                "replaces-cycle-through-skipped",
                f"replaces cycle in channel {q(name)} through skipped entries: "
                f"{' -> '.join(old_cycle)} (opm v1.26 follows replaces through skipped "
                "entries and refuses it; v1.58 and later stop at the skipped entry)",
            )
        stranded_new = sorted(set(by_name) - set(new) - skipped)
        stranded_old = [] if old_cycle else sorted(set(by_name) - set(old) - skipped)
        if stranded_old:
            add(
                "stranded-bundle",
                f"channel {q(name)} has stranded entries, neither reachable from head "
                f"{q(head)} along replaces nor skipped: {', '.join(stranded_old)}",
            )
        late = [n for n in stranded_new if n not in stranded_old]
        if late:
            stop = new[-1]
            target = by_name[stop].replaces
            skippers = sorted(e.name for e in channel.entries if target in e.skips)
            add(
                "chain-ends-at-skipped",
                f"channel {q(name)}: entries {', '.join(late)} are stranded for opm v1.58 and "
                f"later: the replaces chain from head {q(head)} ends at {q(stop)}, because "
                f"{q(stop)} replaces {q(target)}, which {', '.join(map(q, skippers))} skips "
                "(older opm followed the chain through it). Fix: add "
                f"{', '.join(late)} to the skips of {q(skippers[0])}, or make {q(stop)} replace "
                "an entry that is not skipped",
            )

    # -- bundles --------------------------------------------------------------------------------

    def bundles(self) -> None:
        in_channels = {e.name for c in self.pkg.channels for e in c.entries}
        versions: dict[str, list[str]] = defaultdict(list)
        for bundle in self.pkg.bundles:

            def add(rule: str, message: str, bundle_name: str = bundle.name) -> None:
                self.add(rule, message, schema=SCHEMA_BUNDLE, bundle=bundle_name)

            if bundle.name not in in_channels and not self.where.is_broken(SCHEMA_CHANNEL):
                add(
                    "bundle-not-in-channel",
                    f"bundle {q(bundle.name)} is not an entry of any channel of package "
                    f"{q(self.name)}",
                )
            version = check_bundle(bundle, add)
            if version is not None and bundle.name in in_channels:
                versions[version].append(bundle.name)
        for version, names in sorted(versions.items()):
            if len(names) > 1:
                for name in sorted(names):
                    others = ", ".join(n for n in sorted(names) if n != name)
                    self.add(
                        "duplicate-version",
                        f"bundle {q(name)} has version {version}, as {others} does",
                        schema=SCHEMA_BUNDLE,
                        bundle=name,
                    )

    # -- deprecations ---------------------------------------------------------------------------

    def deprecations(self) -> None:
        deprecations = self.pkg.deprecations
        if len(deprecations) > 1:
            self.add(
                "duplicate-deprecations",
                f"package {q(self.name)} has {len(deprecations)} olm.deprecations blobs; at "
                "most one is allowed",
                schema=SCHEMA_DEPRECATIONS,
            )
        channels = {c.name for c in self.pkg.channels}
        bundles = {b.name for b in self.pkg.bundles}
        for deprecation in deprecations:
            seen: set[tuple[str, str]] = set()
            for index, entry in enumerate(deprecation.entries):
                self.deprecation_entry(index, entry, channels, bundles, seen)

    def deprecation_entry(
        self,
        index: int,
        entry: DeprecationEntry,
        channels: set[str],
        bundles: set[str],
        seen: set[tuple[str, str]],
    ) -> None:
        def add(rule: str, message: str) -> None:
            self.add(
                rule,
                message,
                schema=SCHEMA_DEPRECATIONS,
                channel=entry.name if entry.schema == SCHEMA_CHANNEL else "",
                bundle=entry.name if entry.schema == SCHEMA_BUNDLE else "",
            )

        at = f"olm.deprecations entries[{index}]"
        key = (entry.schema, entry.name)
        if key in seen:
            add(
                "duplicate-deprecation-entry",
                f"{at}: {entry.schema} {q(entry.name)} is deprecated more than once",
            )
        seen.add(key)
        if not entry.message:
            add("deprecation-message", f"{at}: the deprecation of {entry.schema} has no message")
        if entry.schema == SCHEMA_PACKAGE:
            if entry.name:
                add(
                    "deprecation-reference",
                    f"{at}: an olm.package reference must not have a name (found {q(entry.name)})",
                )
        elif entry.schema == SCHEMA_CHANNEL:
            if entry.name not in channels and not self.where.is_broken(SCHEMA_CHANNEL, entry.name):
                add(
                    "deprecation-reference",
                    f"{at}: cannot deprecate channel {q(entry.name)}: no such channel in "
                    f"package {q(self.name)}",
                )
        elif entry.schema == SCHEMA_BUNDLE:
            if entry.name not in bundles and not self.where.is_broken(SCHEMA_BUNDLE, entry.name):
                add(
                    "deprecation-reference",
                    f"{at}: cannot deprecate bundle {q(entry.name)}: no such bundle in "
                    f"package {q(self.name)}",
                )
        elif not entry.schema:
            add("deprecation-reference", f"{at}: the reference has no schema")
        else:
            add(
                "deprecation-reference",
                f"{at}: unknown reference schema {q(entry.schema)} (expected olm.package, "
                "olm.channel or olm.bundle)",
            )


def _closing_cycle(
    chain: list[str], by_name: Mapping[str, ChannelEntry], skipped: set[str]
) -> list[str]:
    """The cycle a chain walk stopped before closing (``[a, b, a]``), or ``[]``. ``skipped``
    targets end the walk without a cycle (opm v1.58+)."""
    last = by_name.get(chain[-1])
    if last is None or not last.replaces or last.replaces in skipped:
        return []
    if last.replaces not in chain:
        return []
    return [*chain[chain.index(last.replaces) :], last.replaces]


# -- bundle properties ----------------------------------------------------------------------------


def check_bundle(bundle: Bundle, add: Callable[[str, str], None]) -> str | None:
    """The bundle rules of one bundle; returns its version string (with release, as opm compares
    versions) when it has a valid one."""
    quoted = q(bundle.name)
    packages: list[dict[str, Any]] = []
    has_objects = False
    for index, item in enumerate(bundle.properties):
        at = f"bundle {quoted} properties[{index}] ({item.type or 'no type'})"
        try:
            value = gojson.loads(item.value)
        except ValueError:
            add("invalid-property", f"{at}: the value is not valid JSON")
            continue
        if not item.type:
            add("property-without-type", f"bundle {quoted} properties[{index}] has no type")
            continue
        if item.type == prop.TYPE_BUNDLE_OBJECT:
            has_objects = True
        struct = PROPERTY_STRUCTS.get(item.type)
        if struct is not None:
            problem = go_struct_problem(value, struct)
            if problem is not None:
                add("invalid-property", f"{at}: {problem}")
                continue
            fields = go_struct(value, struct)
            _check_known_property(item.type, fields, at, add)
            if item.type == prop.TYPE_PACKAGE:
                packages.append(fields)
        elif item.type == prop.TYPE_CSV_METADATA:
            problem = go_struct_problem(value, CSV_METADATA_STRUCT)
            if problem is not None:
                add("invalid-csv-metadata", f"{at}: {problem}")
    if not bundle.image and not has_objects:
        add("no-bundle-image", f"bundle {quoted} has no image and no olm.bundle.object properties")
    problem = pull_spec_problem(bundle.image)
    if problem is not None:
        add("invalid-image-reference", f"bundle {quoted} image {q(bundle.image)}: {problem}")
    for index, related in enumerate(bundle.related_images):
        problem = pull_spec_problem(related.image)
        if problem is not None:
            add(
                "invalid-image-reference",
                f"bundle {quoted} relatedImages[{index}].image {q(related.image)}: {problem}",
            )
        elif not related.image:
            add(
                "related-image-without-image",
                f"bundle {quoted} relatedImages[{index}] ({q(related.name)}) has no image",
            )
    if len(packages) != 1:
        add(
            "package-property-count",
            f"bundle {quoted} must have exactly one olm.package property, found {len(packages)}",
        )
        return None
    return _check_package_property(bundle, packages[0], add)


def _check_known_property(
    type_: str, fields: dict[str, Any], at: str, add: Callable[[str, str], None]
) -> None:
    if type_ in (prop.TYPE_GVK, prop.TYPE_GVK_REQUIRED):
        missing = [k for k in ("kind", "version") if not fields.get(k)]
        if missing:
            add("incomplete-gvk", f"{at}: {' and '.join(missing)} must not be empty")
    elif type_ == prop.TYPE_PACKAGE_REQUIRED:
        if not fields.get("packageName"):
            add("package-required-no-name", f"{at}: packageName must not be empty")
        version_range = str(fields.get("versionRange", ""))
        try:
            # OLM v0 reads versionRange with blang's ParseRange, as it reads skipRange.
            parse_skip_range(version_range)
        except InputError as exc:
            reason = str(exc).split(": ", 1)[-1]  # drop the parser's "invalid skipRange ..."
            add(
                "package-required-version-range",
                f"{at}: versionRange {q(version_range)} is not a semver range, so OLM can never "
                f"resolve this dependency ({reason})",
            )
    elif type_ == prop.TYPE_BUNDLE_OBJECT:
        data = str(fields.get("data", ""))
        if data:
            manifest = _base64_bytes(data)
            try:
                _load_manifest(manifest)
            except yaml.YAMLError as exc:
                reason = str(exc).splitlines()[0]
                add(
                    "invalid-bundle-object",
                    f"{at}: the decoded data is not a YAML or JSON manifest: {reason}",
                )


def _load_manifest(data: bytes) -> None:
    """Parse a bundle object as opm's ``yaml.ToJSON`` must: JSON (almost always) or YAML."""
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        yamlio.load(data)


def _check_package_property(
    bundle: Bundle, value: dict[str, Any], add: Callable[[str, str], None]
) -> str | None:
    quoted = q(bundle.name)
    package_name = str(value.get("packageName", ""))
    if package_name != bundle.package:
        add(
            "package-property-mismatch",
            f"bundle {quoted} is in package {q(bundle.package)} but its olm.package property "
            f"names {q(package_name)}",
        )
    version_text = str(value.get("version", ""))
    version: Version | None = opm_version(version_text)
    if version is None:
        add(
            "invalid-version",
            f"bundle {quoted} olm.package version {q(version_text)} is not a strict semver "
            "version (MAJOR.MINOR.PATCH[-pre][+build])",
        )
        return None
    release = str(value.get("release", ""))
    if release:
        problem = release_problem(release)
        if problem is not None:
            add("invalid-release", f"bundle {quoted} olm.package release {q(release)}: {problem}")
            return None
        if version.build:
            add(
                "build-metadata-with-release",
                f"bundle {quoted}: version {version} has build metadata and a release "
                f"({q(release)}); opm allows only one of them",
            )
        full = f"{version}-{release}"
        normalized = f"{bundle.package}-v{full}"
        if bundle.name != normalized:
            add(
                "bundle-name-not-normalized",
                f"bundle {quoted} has release {q(release)}, so its name must be {q(normalized)}",
            )
        return full
    return str(version)


def check_package(
    pkg: PackageCatalog,
    *,
    rules: RuleSet | None = None,
    locations: Locations | None = None,
    out: Findings | None = None,
) -> list[Problem]:
    """Every model rule of one package. With ``out`` the problems go there (and ``[]`` is
    returned); otherwise they are returned, under ``rules`` (default: opm v1.72's)."""
    sink = out if out is not None else Findings(rules or RuleSet.build())
    PackageChecker(pkg, locations or Locations(), sink).run()
    return [] if out is not None else sink.take()
