"""An independent reference for upgrade paths: exhaustive search over a channel's upgrade edges.

Written from the OLM rules, not from olmcat's graph code: the catalog is plain data (opm's golden
FBC read as JSON, or olmcat model objects turned into plain dicts), the successor relation is
spelled out here, and every bundle reachable from the installed one is found by breadth-first
search over *all* edges -- no resolver choice, no shortcut. Only the blang skipRange parser is
borrowed (olmcat.go.semver, a codec layer that is itself tested against Go), because its quirks
are part of what OLM evaluates.

* legacy edge X -> E: E replaces X, E skips X, or E's skipRange holds X's version;
* semver edge X -> E: E's version satisfies Masterminds ``^X, != X`` -- same major (1.x+), same
  minor (0.x), same patch (0.0.x), higher than X, no pre-release unless X has one.
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import semver

from olmcat.errors import InputError
from olmcat.go.semver import parse_skip_range
from tests.support.paths import parse_stream

Successors = Callable[[str, "semver.Version | None"], set[str]]


@dataclass
class RefEntry:
    name: str
    replaces: str = ""
    skips: tuple[str, ...] = ()
    skip_range: str = ""


@dataclass
class RefPackage:
    name: str
    default_channel: str
    channels: dict[str, dict[str, RefEntry]] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    deprecated: set[str] = field(default_factory=set)


_TOLERANT = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)$")


def version(text: str, *, tolerant: bool = True) -> semver.Version | None:
    """A semver version; ``tolerant`` forgives a leading v and missing minor/patch (blang's
    ParseTolerant), otherwise strict."""
    text = text.strip()
    try:
        return semver.Version.parse(text)
    except ValueError:
        if not tolerant:
            return None
    match = _TOLERANT.match(text)
    if match is None:
        return None
    major, minor, patch, rest = match.groups()
    try:
        return semver.Version.parse(f"{major}.{minor or 0}.{patch or 0}{rest}")
    except ValueError:
        return None


def load_golden(directory: Path) -> dict[str, RefPackage]:
    """Every package of an opm-written FBC directory (``<pkg>/catalog.json``)."""
    packages: dict[str, RefPackage] = {}
    for path in sorted(directory.glob("*/catalog.json")):
        for blob in parse_stream(path.read_text(encoding="utf-8")):
            _add_blob(packages, blob)
    return packages


def _add_blob(packages: dict[str, RefPackage], blob: dict[str, Any]) -> None:
    schema = blob.get("schema")
    if schema == "olm.package":
        packages.setdefault(blob["name"], RefPackage(blob["name"], blob.get("defaultChannel", "")))
        packages[blob["name"]].default_channel = blob.get("defaultChannel", "")
        return
    package = packages.setdefault(blob["package"], RefPackage(blob["package"], ""))
    if schema == "olm.channel":
        package.channels[blob["name"]] = {
            e["name"]: RefEntry(
                e["name"],
                e.get("replaces", ""),
                tuple(e.get("skips") or ()),
                e.get("skipRange", ""),
            )
            for e in blob.get("entries") or []
        }
    elif schema == "olm.bundle":
        for prop in blob.get("properties") or []:
            if prop["type"] == "olm.package":
                package.versions.setdefault(blob["name"], prop["value"]["version"])
            if prop["type"] == "olm.deprecated":
                package.deprecated.add(blob["name"])
    elif schema == "olm.deprecations":
        for entry in blob.get("entries") or []:
            reference = entry.get("reference") or {}
            if reference.get("schema") == "olm.bundle":
                package.deprecated.add(reference.get("name", ""))


def from_model(pkg: Any) -> RefPackage:
    """An olmcat PackageCatalog as plain reference data (attributes only, no olmcat logic)."""
    out = RefPackage(pkg.package.name, pkg.package.default_channel)
    for channel in pkg.channels:
        out.channels[channel.name] = {
            e.name: RefEntry(e.name, e.replaces, tuple(e.skips), e.skip_range)
            for e in channel.entries
        }
    for bundle in pkg.bundles:
        for prop in bundle.properties:
            if prop.type == "olm.package":
                import json

                out.versions.setdefault(bundle.name, json.loads(prop.value)["version"])
    for deprecation in pkg.deprecations:
        for entry in deprecation.entries:
            if entry.schema == "olm.bundle":
                out.deprecated.add(entry.name)
    return out


# ------------------------------------------------------------------------------------------------
# Edges
# ------------------------------------------------------------------------------------------------


def _covers(skip_range: str, v: semver.Version | None) -> bool:
    if not skip_range or v is None:
        return False
    try:
        return parse_skip_range(skip_range).contains(str(v))
    except InputError:
        return False


def legacy_successors(entries: Mapping[str, RefEntry]) -> Successors:
    def successors(name: str, v: semver.Version | None) -> set[str]:
        found = set()
        for entry in entries.values():
            if entry.name == name:
                continue
            if (name and (entry.replaces == name or name in entry.skips)) or _covers(
                entry.skip_range, v
            ):
                found.add(entry.name)
        return found

    return successors


def caret_successor(candidate: semver.Version, installed: semver.Version) -> bool:
    """Masterminds ``^installed, != installed`` on ``candidate``, spelled out."""
    if candidate.prerelease and not installed.prerelease:
        return False
    if candidate.compare(installed) <= 0:
        return False
    if installed.major > 0:
        return candidate.major == installed.major
    if candidate.major != 0:
        return False
    if installed.minor > 0:
        return candidate.minor == installed.minor
    return candidate.minor == 0 and candidate.patch == installed.patch


def semver_successors(names: Iterable[str], versions: Mapping[str, semver.Version]) -> Successors:
    pool = [n for n in names if n in versions]

    def successors(name: str, v: semver.Version | None) -> set[str]:
        if v is None:
            return set()
        return {n for n in pool if caret_successor(versions[n], v)}

    return successors


# ------------------------------------------------------------------------------------------------
# Search
# ------------------------------------------------------------------------------------------------


def reachable(
    start: str,
    start_version: semver.Version | None,
    successors: Successors,
    versions: Mapping[str, semver.Version],
) -> dict[str, str | None]:
    """Every name reachable from ``start`` (breadth first, all edges), with its predecessor."""
    parents: dict[str, str | None] = {start: None}
    queue = deque([(start, start_version)])
    while queue:
        name, v = queue.popleft()
        for nxt in sorted(successors(name, v)):
            if nxt not in parents:
                parents[nxt] = name
                queue.append((nxt, versions.get(nxt)))
    return parents


def valid_path(
    path: list[str],
    start_version: semver.Version | None,
    successors: Successors,
    versions: Mapping[str, semver.Version],
) -> bool:
    """Each step of ``path`` is an edge."""
    current_version = start_version
    for here, nxt in itertools.pairwise(path):
        if nxt not in successors(here, current_version):
            return False
        current_version = versions.get(nxt)
    return True


def legacy_heads(entries: Mapping[str, RefEntry]) -> list[str]:
    pointed = {t for e in entries.values() for t in (e.replaces, *e.skips) if t}
    return sorted(n for n in entries if n not in pointed)


def semver_heads(
    entries: Iterable[str], versions: Mapping[str, semver.Version], deprecated: set[str]
) -> set[str]:
    """The bundles OLM v1 would install fresh: highest version, non-deprecated first (a set when
    several share that version)."""
    names = [n for n in entries if n in versions]
    if not names:
        return set()
    preferred = [n for n in names if n not in deprecated] or names
    top = max(versions[n] for n in preferred)
    return {n for n in preferred if versions[n].compare(top) == 0}
