"""Validate a catalog of any form against opm's file-based catalog rules, reporting every problem.

opm's ``ConvertToModel`` and ``model.Validate`` stop at the first broken blob and lose track of
where it came from; here every rule is checked and each problem names its location: the file and
document number (``path#3``) for FBC input, otherwise package / channel / bundle.

Rules (``Problem.rule`` in brackets):

* blobs: a JSON object [blob] with a ``schema`` [schema]; fields of the declared type
  [field-type]; required fields set [required-field]; every channel, bundle and deprecations blob
  names a package that has an ``olm.package`` blob [unknown-package]; no package, channel, bundle
  or deprecations blob twice [duplicate-package], [duplicate-channel], [duplicate-bundle],
  [duplicate-deprecations]; files parse [parse].
* packages: the name is an RFC 1123 label [package-name]; a default channel that exists
  [default-channel]; at least one channel [no-channels].
* channels: entries [empty-channel], none twice [duplicate-entry], each with an ``olm.bundle``
  [missing-bundle]; exactly one head [channel-head]; no ``replaces`` cycle [replaces-cycle]; every
  entry reachable from the head along ``replaces`` or skipped [stranded]; skips not empty
  [empty-skip]; skipRange parses as blang/semver [skip-range].
* bundles: in a channel [bundle-not-in-channel]; exactly one ``olm.package`` property naming the
  bundle's package [package-property] with a semver version [version], unique in the package
  [duplicate-version]; known properties well-formed [property], GVKs with kind and version [gvk],
  package ranges that parse [version-range], ``olm.bundle.object`` with ``ref`` or valid base64
  ``data`` [bundle-object]; an image or inline objects [bundle-image].
* deprecations: references to a known schema and to an existing channel / bundle
  [deprecation-reference], each once [duplicate-deprecation-entry], with a message
  [deprecation-message].
* legacy directories: each package the loader would reject [legacy] (the package-manifest reader
  runs permissively, and its message becomes the problem).

Warnings never make a catalog invalid (unless the caller says so): a ``replaces`` target outside
the channel [replaces-outside], which FBC allows for the tail, and readers' notes [reader].
"""

from __future__ import annotations

import ast
import base64
import binascii
import json
import re
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from olmcat.errors import InputError
from olmcat.go import json as gojson
from olmcat.go.semver import parse_skip_range, parse_version
from olmcat.model import (
    SCHEMA_BUNDLE,
    SCHEMA_CHANNEL,
    SCHEMA_DEPRECATIONS,
    SCHEMA_PACKAGE,
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    DeprecationEntry,
    Package,
    PackageCatalog,
)
from olmcat.model import property as prop
from olmcat.readers.catalog import detect
from olmcat.readers.fbc import (
    BlobFields,
    bundle_blob,
    channel_blob,
    deprecations_blob,
    json_type,
    package_blob,
)

Severity = Literal["error", "warning"]
ERROR: Severity = "error"
WARNING: Severity = "warning"

_KNOWN_SCHEMAS = (SCHEMA_PACKAGE, SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS)
# Kubernetes' IsDNS1123Label: newer opm releases reject other package names.
_RFC1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


@dataclass(frozen=True, slots=True)
class Problem:
    """One broken rule. ``file`` is ``path#document`` for FBC input, empty otherwise."""

    severity: Severity
    rule: str
    message: str
    file: str = ""
    package: str = ""
    channel: str = ""
    bundle: str = ""

    @property
    def scope(self) -> str:
        parts = [
            f"{what} {name}"
            for what, name in (
                ("package", self.package),
                ("channel", self.channel),
                ("bundle", self.bundle),
            )
            if name
        ]
        return ", ".join(parts)

    @property
    def location(self) -> str:
        if self.file and self.scope:
            return f"{self.file} ({self.scope})"
        return self.file or self.scope or "catalog"

    def __str__(self) -> str:
        return f"{self.location}: {self.severity}: {self.message} [{self.rule}]"

    def to_dict(self) -> dict[str, str]:
        return {
            "severity": self.severity,
            "rule": self.rule,
            "message": self.message,
            "file": self.file,
            "package": self.package,
            "channel": self.channel,
            "bundle": self.bundle,
        }


@dataclass(slots=True)
class Summary:
    """Counts gathered while :func:`validate` runs."""

    kind: str = ""
    packages: int = 0
    errors: int = 0
    warnings: int = 0

    def count(self, problem: Problem) -> Problem:
        if problem.severity == ERROR:
            self.errors += 1
        else:
            self.warnings += 1
        return problem

    def valid(self, strict: bool = False) -> bool:
        return self.errors == 0 and not (strict and self.warnings)


def _q(text: str) -> str:
    """Quote a name for a message, keeping the message on one line."""
    return json.dumps(text, ensure_ascii=False)


# ------------------------------------------------------------------------------------------------
# Model rules: any reader's output
# ------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Locations:
    """Where each blob of a package came from, and which blobs were too broken to model.

    Broken blobs are left out of the model; remembering them keeps one defect from being reported
    again as a dangling reference (an entry "without a bundle" whose bundle blob was malformed).
    """

    blobs: dict[tuple[str, str], str] = field(default_factory=dict)  # (schema, name) -> where
    broken: set[tuple[str, str]] = field(default_factory=set)

    def of(self, schema: str, name: str) -> str:
        return self.blobs.get((schema, name), "")

    def is_broken(self, schema: str, name: str | None = None) -> bool:
        if name is None:
            return any(s == schema for s, _ in self.broken)
        return (schema, name) in self.broken


class _PackageChecker:
    def __init__(self, pkg: PackageCatalog, locations: Locations) -> None:
        self.pkg = pkg
        self.name = pkg.name
        self.where = locations
        self.problems: list[Problem] = []

    def add(
        self,
        rule: str,
        message: str,
        *,
        severity: Severity = ERROR,
        schema: str = SCHEMA_PACKAGE,
        channel: str = "",
        bundle: str = "",
    ) -> None:
        key = {SCHEMA_CHANNEL: channel, SCHEMA_BUNDLE: bundle}.get(schema, self.name)
        if schema == SCHEMA_DEPRECATIONS:
            key = ""
        self.problems.append(
            Problem(
                severity,
                rule,
                message,
                self.where.of(schema, key),
                self.name,
                channel,
                bundle,
            )
        )

    def run(self) -> list[Problem]:
        self.package()
        bundle_names = {b.name for b in self.pkg.bundles}
        for channel in self.pkg.channels:
            self.channel(channel, bundle_names)
        versions = self.bundles()
        self.duplicate_versions(versions)
        self.deprecations()
        return self.problems

    # -- package --------------------------------------------------------------------------------

    def package(self) -> None:
        pkg = self.pkg
        if not _RFC1123_LABEL.fullmatch(self.name) or len(self.name) > 63:
            self.add(
                "package-name",
                f"package name {_q(self.name)} is not a valid RFC 1123 label (lowercase letters, "
                "digits and '-', starting and ending with a letter or digit, at most 63 "
                "characters)",
            )
        names = [c.name for c in pkg.channels]
        if not names and not self.where.is_broken(SCHEMA_CHANNEL):
            self.add("no-channels", f"package {_q(self.name)} has no channels")
        default = pkg.package.default_channel
        if not default:
            self.add("default-channel", f"package {_q(self.name)} has no default channel")
        elif default not in names and not self.where.is_broken(SCHEMA_CHANNEL, default):
            known = ", ".join(sorted(names)) or "none"
            self.add(
                "default-channel",
                f"default channel {_q(default)} is not a channel of package {_q(self.name)} "
                f"(channels: {known})",
            )

    # -- channels -------------------------------------------------------------------------------

    def channel(self, channel: Channel, bundle_names: set[str]) -> None:
        name = channel.name

        def add(rule: str, message: str, severity: Severity = ERROR) -> None:
            self.add(rule, message, severity=severity, schema=SCHEMA_CHANNEL, channel=name)

        if not channel.entries:
            add("empty-channel", f"channel {_q(name)} has no entries")
            return
        counts = Counter(e.name for e in channel.entries)
        for entry_name, count in sorted(counts.items()):
            if count > 1:
                add(
                    "duplicate-entry",
                    f"channel {_q(name)} lists entry {_q(entry_name)} {count} times",
                )
        entry_names = set(counts)
        for index, entry in enumerate(channel.entries):
            at = f"entries[{index}]"
            if not entry.name:
                add("required-field", f"{at} of channel {_q(name)} has no name")
            elif entry.name not in bundle_names and not self.where.is_broken(
                SCHEMA_BUNDLE, entry.name
            ):
                add(
                    "missing-bundle",
                    f"channel {_q(name)} entry {_q(entry.name)} has no olm.bundle blob",
                )
            for position, skip in enumerate(entry.skips):
                if not skip:
                    add(
                        "empty-skip",
                        f"entry {_q(entry.name)} of channel {_q(name)}: skips[{position}] is empty",
                    )
            if entry.skip_range:
                try:
                    parse_skip_range(entry.skip_range)
                except InputError as exc:
                    add(
                        "skip-range",
                        f"entry {_q(entry.name)} of channel {_q(name)} has an invalid "
                        f"skipRange: {exc}",
                    )
            if entry.replaces and entry.replaces not in entry_names:
                add(
                    "replaces-outside",
                    f"entry {_q(entry.name)} replaces {_q(entry.replaces)}, which is not in "
                    f"channel {_q(name)} (allowed for the tail of the channel)",
                    WARNING,
                )
        self.graph(channel, add)

    def graph(self, channel: Channel, add: Callable[[str, str], None]) -> None:
        """Heads, cycles and stranded entries, by the rules of opm's validateReplacesChain."""
        name = channel.name
        by_name = {e.name: e for e in channel.entries}
        cycles = _replaces_cycles(by_name)
        for cycle in cycles:
            add(
                "replaces-cycle",
                f"replaces cycle in channel {_q(name)}: {' -> '.join(cycle)}",
            )
        heads = channel.heads()
        if not heads:
            add(
                "channel-head",
                f"channel {_q(name)} has no head: every entry is replaced or skipped by another",
            )
            return
        if len(heads) > 1:
            add(
                "channel-head",
                f"channel {_q(name)} has {len(heads)} heads ({', '.join(heads)}); exactly one "
                "entry may be replaced or skipped by no other",
            )
            return
        skipped = {s for e in channel.entries for s in e.skips}
        reached = {heads[0]}
        current = by_name.get(heads[0])
        # opm stops at a replaces edge whose target is skipped: skipped entries need no chain.
        while current is not None and current.replaces and current.replaces not in skipped:
            if current.replaces in reached:
                break  # the cycle is reported above
            reached.add(current.replaces)
            current = by_name.get(current.replaces)
        in_cycles = {n for cycle in cycles for n in cycle}
        stranded = sorted(set(by_name) - reached - skipped - in_cycles)
        if stranded:
            add(
                "stranded",
                f"channel {_q(name)} has stranded entries, neither reachable from head "
                f"{_q(heads[0])} along replaces nor skipped: {', '.join(stranded)}",
            )

    # -- bundles --------------------------------------------------------------------------------

    def bundles(self) -> dict[str, list[str]]:
        in_channels = {e.name for c in self.pkg.channels for e in c.entries}
        versions: dict[str, list[str]] = defaultdict(list)
        for bundle in self.pkg.bundles:

            def add(rule: str, message: str, bundle_name: str = bundle.name) -> None:
                self.add(rule, message, schema=SCHEMA_BUNDLE, bundle=bundle_name)

            if bundle.name not in in_channels and not self.where.is_broken(SCHEMA_CHANNEL):
                add(
                    "bundle-not-in-channel",
                    f"bundle {_q(bundle.name)} is not an entry of any channel of package "
                    f"{_q(self.name)}",
                )
            version = check_bundle_properties(bundle, add)
            if version is not None:
                versions[version].append(bundle.name)
            has_objects = any(p.type == prop.TYPE_BUNDLE_OBJECT for p in bundle.properties)
            if not bundle.image and not has_objects:
                add(
                    "bundle-image",
                    f"bundle {_q(bundle.name)} has no image and no olm.bundle.object properties",
                )
        return versions

    def duplicate_versions(self, versions: dict[str, list[str]]) -> None:
        for version, names in sorted(versions.items()):
            if len(names) > 1:
                for name in sorted(names):
                    others = ", ".join(n for n in sorted(names) if n != name)
                    self.add(
                        "duplicate-version",
                        f"bundle {_q(name)} has version {version}, as {others} does",
                        schema=SCHEMA_BUNDLE,
                        bundle=name,
                    )

    # -- deprecations ---------------------------------------------------------------------------

    def deprecations(self) -> None:
        deprecations = self.pkg.deprecations
        if len(deprecations) > 1:
            self.add(
                "duplicate-deprecations",
                f"package {_q(self.name)} has {len(deprecations)} olm.deprecations blobs; at "
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
                f"{at}: {entry.schema} {_q(entry.name)} is deprecated more than once",
            )
        seen.add(key)
        if not entry.message:
            add("deprecation-message", f"{at}: the deprecation of {entry.schema} has no message")
        if entry.schema == SCHEMA_PACKAGE:
            if entry.name:
                add(
                    "deprecation-reference",
                    f"{at}: an olm.package reference must not have a name (found {_q(entry.name)})",
                )
        elif entry.schema == SCHEMA_CHANNEL:
            if entry.name not in channels and not self.where.is_broken(SCHEMA_CHANNEL, entry.name):
                add(
                    "deprecation-reference",
                    f"{at}: cannot deprecate channel {_q(entry.name)}: no such channel in "
                    f"package {_q(self.name)}",
                )
        elif entry.schema == SCHEMA_BUNDLE:
            if entry.name not in bundles and not self.where.is_broken(SCHEMA_BUNDLE, entry.name):
                add(
                    "deprecation-reference",
                    f"{at}: cannot deprecate bundle {_q(entry.name)}: no such bundle in "
                    f"package {_q(self.name)}",
                )
        else:
            add(
                "deprecation-reference",
                f"{at}: unknown reference schema {_q(entry.schema)} (expected olm.package, "
                "olm.channel or olm.bundle)",
            )


def _replaces_cycles(by_name: dict[str, ChannelEntry]) -> list[list[str]]:
    """Cycles of the replaces graph, each once, starting at its smallest name and closed."""
    cycles: list[list[str]] = []
    done: set[str] = set()
    for start in sorted(by_name):
        path: list[str] = []
        position: dict[str, int] = {}
        current: str | None = start
        while current is not None and current in by_name and current not in done:
            if current in position:
                cycle = path[position[current] :]
                first = cycle.index(min(cycle))
                ordered = cycle[first:] + cycle[:first]
                cycles.append([*ordered, ordered[0]])
                break
            position[current] = len(path)
            path.append(current)
            current = by_name[current].replaces or None
        done.update(path)
    return sorted(cycles)


def check_bundle_properties(bundle: Bundle, add: Callable[[str, str], None]) -> str | None:
    """Check the properties of one bundle; returns its normalized version when it has one."""
    quoted = _q(bundle.name)
    packages: list[prop.PackageValue] = []
    for index, item in enumerate(bundle.properties):
        at = f"bundle {quoted} properties[{index}] ({item.type})"
        if not item.type:
            add("required-field", f"bundle {quoted} properties[{index}] has no type")
            continue
        try:
            value = json.loads(item.value)
        except ValueError:
            add("property", f"{at}: the value is not valid JSON")
            continue
        try:
            if item.type == prop.TYPE_PACKAGE:
                packages.append(prop.parse_package(item))
            elif item.type in (prop.TYPE_GVK, prop.TYPE_GVK_REQUIRED):
                gvk = prop.parse_gvk(item)
                missing = [k for k in ("kind", "version") if not getattr(gvk, k)]
                if missing:
                    add("gvk", f"{at}: {' and '.join(missing)} must not be empty")
            elif item.type == prop.TYPE_PACKAGE_REQUIRED:
                required = prop.parse_package_required(item)
                if not required.package_name:
                    add("property", f"{at}: packageName must not be empty")
                try:
                    parse_skip_range(required.version_range)
                except InputError as exc:
                    add("version-range", f"{at}: {exc}")
            elif item.type == prop.TYPE_BUNDLE_OBJECT:
                _check_bundle_object(value, at, add)
            elif item.type == prop.TYPE_CSV_METADATA and not isinstance(value, dict):
                add("property", f"{at}: the value must be a JSON object")
        except InputError as exc:
            add("property", f"{at}: {exc}")
    if len(packages) != 1:
        add(
            "package-property",
            f"bundle {quoted} must have exactly one olm.package property, found {len(packages)}",
        )
        return None
    value = packages[0]
    if value.package_name != bundle.package:
        add(
            "package-property",
            f"bundle {quoted} is in package {_q(bundle.package)} but its olm.package property "
            f"names {_q(value.package_name)}",
        )
    try:
        return str(parse_version(value.version))
    except InputError as exc:
        add("version", f"bundle {quoted} olm.package version: {exc}")
        return None


def _check_bundle_object(value: Any, at: str, add: Callable[[str, str], None]) -> None:
    if not isinstance(value, dict):
        add("bundle-object", f"{at}: the value must be a JSON object")
        return
    ref, data = value.get("ref"), value.get("data")
    if ref is not None and not isinstance(ref, str):
        add("bundle-object", f"{at}: 'ref' must be a string")
    if data is not None and not isinstance(data, str):
        add("bundle-object", f"{at}: 'data' must be a base64 string")
        return
    if ref and data:
        add("bundle-object", f"{at}: fields 'ref' and 'data' are mutually exclusive")
    if data:
        try:
            # Go's encoding/json drops \r and \n inside base64 before decoding.
            base64.b64decode(data.replace("\r", "").replace("\n", ""), validate=True)
        except (binascii.Error, ValueError):
            add("bundle-object", f"{at}: 'data' is not valid base64")


def check_package(pkg: PackageCatalog, locations: Locations | None = None) -> list[Problem]:
    """Every problem of one package of the model (all rules but the blob-level ones)."""
    return _PackageChecker(pkg, locations or Locations()).run()


# ------------------------------------------------------------------------------------------------
# FBC: blob-level rules, with file locations
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Blob:
    schema: str
    name: str
    where: str
    offset: int
    length: int


class _FbcScan:
    """Read an FBC once, checking envelopes and duplicates; blobs spill to a temporary file.

    Like :class:`olmcat.readers.fbc.FbcCatalog`, but tolerant: a broken file or blob becomes a
    problem and reading goes on, so that one run reports everything.
    """

    def __init__(self, source: str, shown: Callable[[str], str]) -> None:
        self.source = source
        self.shown = shown
        self.problems: list[Problem] = []  # envelope problems, reported before the packages
        self.by_package: dict[str, list[_Blob]] = defaultdict(list)
        self._spill: IO[bytes] = tempfile.TemporaryFile(prefix="olmcat-validate-")  # noqa: SIM115
        self._offset = 0
        self._seen: dict[tuple[str, str, str], str] = {}
        try:
            self._scan()
        except BaseException:
            self._spill.close()
            raise

    def close(self) -> None:
        self._spill.close()

    def _error(self, rule: str, message: str, where: str, package: str = "") -> None:
        self.problems.append(Problem(ERROR, rule, message, where, package))

    def _scan(self) -> None:
        from olmcat.readers.fbc import _documents, catalog_files

        if self.source == "-":
            self._file(None, sys.stdin, "<stdin>", _documents)
            return
        path = Path(self.source)
        files = list(catalog_files(path)) if path.is_dir() else [path]
        if path.is_dir() and not files:
            raise InputError(f"{path}: no catalog files (*.json, *.yaml, *.yml) found")
        for file in files:
            where = self.shown(str(file))
            try:
                with file.open(encoding="utf-8") as fh:
                    self._file(file, fh, where, _documents)
            except UnicodeDecodeError:
                self._error("parse", "not UTF-8 text", where)
            except OSError as exc:
                self._error("parse", f"cannot read: {exc.strerror}", where)

    def _file(
        self,
        path: Path | None,
        fh: IO[str],
        where: str,
        documents: Callable[[Path | None, IO[str], str], Iterator[tuple[int, Any]]],
    ) -> None:
        try:
            for number, blob in documents(path, fh, where):
                self._blob(blob, f"{where}#{number}")
        except InputError as exc:
            # Documents before the broken one have been taken; the message names the file.
            message = str(exc)
            prefix = f"{where}: "
            self._error("parse", message.removeprefix(prefix), where)

    def _blob(self, blob: Any, where: str) -> None:
        if not isinstance(blob, dict):
            self._error("blob", f"a catalog blob must be an object, got {json_type(blob)}", where)
            return
        schema = blob.get("schema")
        if not isinstance(schema, str) or not schema:
            self._error("schema", "blob has no schema (a non-empty 'schema' string)", where)
            return
        package_field, name = blob.get("package", ""), blob.get("name", "")
        bad = [k for k, v in (("package", package_field), ("name", name)) if not _is_str(v)]
        if bad:
            self._error("field-type", f"{schema} blob: {' and '.join(bad)} must be strings", where)
            return
        package_field, name = package_field or "", name or ""
        package = name if schema == SCHEMA_PACKAGE else package_field
        if schema in _KNOWN_SCHEMAS:
            if not package:
                what = "has no name" if schema == SCHEMA_PACKAGE else "has no package"
                label = f" {_q(name)}" if name else ""
                self._error("required-field", f"{schema} blob{label} {what}", where)
                return
            key = (schema, package, name)
            if key in self._seen:
                self._duplicate(schema, package, name, where)
                return
            self._seen[key] = where
        elif not package:
            return  # a blob of another schema that belongs to no package: not ours to check
        data = gojson.encode(blob).encode("utf-8")
        self._spill.write(data)
        self.by_package[package].append(_Blob(schema, name, where, self._offset, len(data)))
        self._offset += len(data)

    def _duplicate(self, schema: str, package: str, name: str, where: str) -> None:
        first = self._seen[(schema, package, name)]
        rule, what = {
            SCHEMA_PACKAGE: ("duplicate-package", f"package {_q(package)}"),
            SCHEMA_CHANNEL: ("duplicate-channel", f"channel {_q(name)} of package {_q(package)}"),
            SCHEMA_BUNDLE: ("duplicate-bundle", f"bundle {_q(name)} of package {_q(package)}"),
            SCHEMA_DEPRECATIONS: (
                "duplicate-deprecations",
                f"olm.deprecations of package {_q(package)}",
            ),
        }[schema]
        self.problems.append(
            Problem(
                ERROR,
                rule,
                f"duplicate {what}: first defined in {first}",
                where,
                package,
                name if schema == SCHEMA_CHANNEL else "",
                name if schema == SCHEMA_BUNDLE else "",
            )
        )

    def load(self, blob: _Blob) -> dict[str, Any]:
        self._spill.seek(blob.offset)
        value: dict[str, Any] = gojson.loads(self._spill.read(blob.length))
        return value


def _is_str(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _fbc_package(scan: _FbcScan, name: str, blobs: list[_Blob]) -> Iterator[Problem]:
    """Blob-level problems of one package, then the model rules over what could be read."""
    if not any(b.schema == SCHEMA_PACKAGE for b in blobs):
        for blob in blobs:
            if blob.schema in _KNOWN_SCHEMAS:
                label = f" {_q(blob.name)}" if blob.name else ""
                yield Problem(
                    ERROR,
                    "unknown-package",
                    f"{blob.schema} blob{label} names package {_q(name)}, which has no "
                    "olm.package blob",
                    blob.where,
                    name,
                    blob.name if blob.schema == SCHEMA_CHANNEL else "",
                    blob.name if blob.schema == SCHEMA_BUNDLE else "",
                )
        return
    problems: list[Problem] = []
    locations = Locations()
    package: Package | None = None
    channels: list[Channel] = []
    bundles: list[Bundle] = []
    deprecations: list[Deprecation] = []
    for blob in blobs:
        if blob.schema not in _KNOWN_SCHEMAS:
            continue
        locations.blobs[(blob.schema, blob.name)] = blob.where

        def report(rule: str, message: str, blob: _Blob = blob) -> None:
            problems.append(
                Problem(
                    ERROR,
                    rule,
                    message,
                    blob.where,
                    name,
                    blob.name if blob.schema == SCHEMA_CHANNEL else "",
                    blob.name if blob.schema == SCHEMA_BUNDLE else "",
                )
            )

        label = f" {_q(blob.name)}" if blob.name and blob.schema != SCHEMA_PACKAGE else ""
        fields = BlobFields(report, f"{blob.schema}{label}")
        data = scan.load(blob)
        if blob.schema == SCHEMA_PACKAGE:
            package = package_blob(data, fields)
        elif blob.schema == SCHEMA_CHANNEL:
            channel = channel_blob(data, fields)
            if fields.ok:
                channels.append(channel)
        elif blob.schema == SCHEMA_BUNDLE:
            bundle = bundle_blob(data, fields)
            if fields.ok:
                bundles.append(bundle)
        else:
            deprecation = deprecations_blob(data, fields)
            if fields.ok:
                deprecations.append(deprecation)
        if not fields.ok:
            locations.broken.add((blob.schema, blob.name))
    yield from problems
    assert package is not None
    pkg = PackageCatalog(package, tuple(channels), tuple(bundles), tuple(deprecations))
    yield from check_package(pkg, locations)


def _validate_fbc(
    source: str, summary: Summary, shown: Callable[[str], str] = str
) -> Iterator[Problem]:
    scan = _FbcScan(source, shown)
    try:
        yield from scan.problems
        for name in sorted(scan.by_package):
            blobs = scan.by_package[name]
            summary.packages += any(b.schema == SCHEMA_PACKAGE for b in blobs)
            yield from _fbc_package(scan, name, blobs)
    finally:
        scan.close()


# ------------------------------------------------------------------------------------------------
# Other forms: the readers' model, their warnings and the legacy loader's rejections
# ------------------------------------------------------------------------------------------------

# How the permissive legacy readers report what the loader would reject: a package by name, or a
# bundle-format directory by path.
_SKIPPED = re.compile(
    r"skipped (?:package (?P<name>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
    r"|bundle directory (?P<directory>.+?)): (?P<message>.*)",
    re.DOTALL,
)


def _split_file(text: str) -> tuple[str, str]:
    """("path", "rest") when a message starts with an existing path, else ("", text)."""
    file, _, rest = text.partition(": ")
    return (file, rest) if rest and Path(file).exists() else ("", text)


def _reader_note(message: str) -> Problem:
    """A reader's warning; what the permissive legacy loader skipped is an error."""
    skipped = _SKIPPED.fullmatch(message)
    if skipped is None:
        file, text = _split_file(message)
        return Problem(WARNING, "reader", text, file)
    file, text = _split_file(skipped["message"])
    if skipped["directory"] is not None:
        return Problem(ERROR, "legacy", text, file or skipped["directory"])
    try:
        name = ast.literal_eval(skipped["name"])  # the reader wrote the name's repr()
    except (SyntaxError, ValueError):
        name = skipped["name"]
    return Problem(ERROR, "legacy", text, file, str(name))


def validate(
    reference: str | Path,
    *,
    summary: Summary | None = None,
    platform: str | None = None,
) -> Iterator[Problem]:
    """Problems of the catalog at ``reference`` (any form), package by package.

    Raises :class:`InputError` when the input cannot be read at all. ``summary`` receives the
    counts as problems stream.
    """
    summary = summary if summary is not None else Summary()
    ref = str(reference)
    kind = detect(ref)
    summary.kind = kind
    for problem in _validate(ref, kind, summary, platform):
        yield summary.count(problem)


def _validate(ref: str, kind: str, summary: Summary, platform: str | None) -> Iterator[Problem]:
    if kind == "fbc":
        yield from _validate_fbc(ref, summary)
        return
    if kind == "image":
        yield from _validate_image(ref, summary, platform)
        return
    notes: list[str] = []
    from olmcat.readers.catalog import open_catalog

    with open_catalog(ref, notify=lambda n: notes.append(n.message), permissive=True) as catalog:
        yield from _stream_with_notes(catalog.packages(), notes, summary)


def _stream_with_notes(
    packages: Iterable[PackageCatalog], notes: list[str], summary: Summary
) -> Iterator[Problem]:
    """Model rules per package; reader warnings come out next to the package that caused them."""
    for pkg in packages:
        while notes:
            yield _reader_note(notes.pop(0))
        summary.packages += 1
        yield from check_package(pkg)
    while notes:
        yield _reader_note(notes.pop(0))


def _validate_image(ref: str, summary: Summary, platform: str | None) -> Iterator[Problem]:
    from olmcat.oci.pull import extract_image_catalog
    from olmcat.readers.sqlite import SqliteCatalog

    scratch = Path(tempfile.mkdtemp(prefix="olmcat-validate-"))
    try:
        found = extract_image_catalog(ref, scratch / "root", platform=platform)
        if found.kind == "fbc":
            root = str(found.path)
            image_root = found.image_path.rstrip("/")

            def shown(path: str) -> str:
                # Name files as they are inside the image, not in our scratch directory.
                inside = path[len(root) :] if path.startswith(root) else path
                return f"{ref}:{image_root}{inside}"

            yield from _validate_fbc(root, summary, shown)
            return
        notes: list[str] = []
        with SqliteCatalog(found.path, warn=notes.append) as catalog:
            yield from _stream_with_notes(catalog.packages(), notes, summary)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
