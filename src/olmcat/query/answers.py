"""Offline answers to the questions asked of a registry's gRPC API, of catalogd with jq, or of OLM.

Every function takes an opened catalog (:func:`olmcat.readers.catalog.open_catalog`, any form)
and returns
plain JSON-ready values, so that an FBC, the SQLite database it was migrated from and an index
image holding either give the same answers:

* :func:`packages`, :func:`channels`, :func:`bundles`, :func:`bundle` — the listings of 003 §7.3.6;
* :func:`head` (gRPC ``GetBundleForChannel``), :func:`replaced_by` (``GetBundleThatReplaces``);
* :func:`upgrade_path` — the steps OLM (v0) takes from an installed version to the channel head;
* :func:`resolve` — the bundle OLM 1.0 picks for a package, channel and version range;
* :func:`install_modes` — install modes and webhooks of the channel heads, and whether OLM v1
  (operator-controller v1.11.0, :func:`olmcat.olmv1.check.check_catalog_bundle`) installs each.

Bundle versions come from the ``olm.package`` property. Lists are sorted by version, then name.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from olmcat.errors import InputError, ValidationError
from olmcat.model import Bundle, Channel, PackageCatalog
from olmcat.model import property as prop
from olmcat.model.graph import olm_v0_walk, olm_v1_choice, olm_v1_walk, single_head
from olmcat.model.versions import Version, olm_v0_version, opm_version
from olmcat.model.versions import version_range as parse_version_range
from olmcat.readers.source import CatalogSource

Row = dict[str, Any]


def iter_packages(catalog: CatalogSource, only: set[str] | None = None) -> Iterator[PackageCatalog]:
    """Packages of ``catalog``, only those named in ``only`` when given.

    Readers that can load chosen packages (FBC, SQLite) are asked for just those.
    """
    return catalog.packages(only)


def get_package(catalog: CatalogSource, name: str) -> PackageCatalog:
    if name in catalog.package_names():
        for pkg in iter_packages(catalog, {name}):
            return pkg
    raise InputError(f"no package {name!r} in the catalog")


# ------------------------------------------------------------------------------------------------
# Helpers over one package
# ------------------------------------------------------------------------------------------------


def _order(version: str, name: str) -> tuple[bool, Version, str]:
    parsed = opm_version(version)
    return (parsed is None, parsed or Version(0), name)


def _channel(pkg: PackageCatalog, name: str | None) -> Channel:
    wanted = name or pkg.package.default_channel
    channel = pkg.channel(wanted)
    if channel is None:
        known = ", ".join(sorted(c.name for c in pkg.channels)) or "none"
        raise InputError(f"package {pkg.name!r} has no channel {wanted!r} (channels: {known})")
    return channel


def _head(channel: Channel) -> str:
    try:
        return single_head(channel)
    except ValidationError as exc:
        raise InputError(str(exc)) from None


def _channels_of(pkg: PackageCatalog) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for channel in sorted(pkg.channels, key=lambda c: c.name):
        for entry in channel.entries:
            out.setdefault(entry.name, [])
            if channel.name not in out[entry.name]:
                out[entry.name].append(channel.name)
    return out


def _bundle_row(pkg: PackageCatalog, bundle: Bundle, channels: dict[str, list[str]]) -> Row:
    return {
        "name": bundle.name,
        "package": pkg.name,
        "version": bundle.version,
        "image": bundle.image,
        "channels": channels.get(bundle.name, []),
    }


# ------------------------------------------------------------------------------------------------
# Listings
# ------------------------------------------------------------------------------------------------


def packages(catalog: CatalogSource) -> list[Row]:
    """Every package: name, default channel, channel names (gRPC ListPackages / GetPackage)."""
    return [
        {
            "name": pkg.name,
            "defaultChannel": pkg.package.default_channel,
            "channels": sorted(c.name for c in pkg.channels),
        }
        for pkg in catalog.packages()
    ]


def channels(catalog: CatalogSource, package: str) -> list[Row]:
    """The channels of a package with their head and entries (by version)."""
    pkg = get_package(catalog, package)
    versions = {b.name: b.version for b in pkg.bundles}
    rows = []
    for channel in sorted(pkg.channels, key=lambda c: c.name):
        heads = channel.heads()
        names = sorted(
            {e.name for e in channel.entries}, key=lambda n: _order(versions.get(n, ""), n)
        )
        rows.append(
            {
                "package": pkg.name,
                "name": channel.name,
                "default": channel.name == pkg.package.default_channel,
                "head": heads[0] if len(heads) == 1 else None,
                "entries": names,
            }
        )
    return rows


def bundles(catalog: CatalogSource, package: str, channel: str | None = None) -> list[Row]:
    """The bundles of a package, or of one of its channels."""
    pkg = get_package(catalog, package)
    in_channels = _channels_of(pkg)
    chosen = pkg.bundles
    if channel is not None:
        names = {e.name for e in _channel(pkg, channel).entries}
        chosen = tuple(b for b in pkg.bundles if b.name in names)
    rows = [_bundle_row(pkg, b, in_channels) for b in chosen]
    return sorted(rows, key=lambda r: _order(r["version"], r["name"]))


def _objects(bundle: Bundle) -> list[Row]:
    out = []
    for item in bundle.properties_of(prop.TYPE_BUNDLE_OBJECT):
        data = prop.bundle_object_data(item)
        if data is None:
            out.append({"ref": json.loads(item.value).get("ref", "")})
            continue
        try:
            manifest = json.loads(data)
        except ValueError:
            out.append({"kind": "", "name": "", "error": "not valid JSON"})
            continue
        metadata = manifest.get("metadata") if isinstance(manifest, dict) else None
        name = metadata.get("name", "") if isinstance(metadata, dict) else ""
        kind = manifest.get("kind", "") if isinstance(manifest, dict) else ""
        out.append({"kind": kind, "name": name})
    return out


def bundle(catalog: CatalogSource, name: str, package: str | None = None) -> Row:
    """One bundle in full: channel entries, properties (manifests summarized), related images."""
    found: list[tuple[PackageCatalog, Bundle]] = []
    only = {package} if package is not None else None
    for pkg in iter_packages(catalog, only):
        match = pkg.bundle(name)
        if match is not None:
            found.append((pkg, match))
    if not found:
        where = f" in package {package!r}" if package is not None else ""
        raise InputError(f"no bundle {name!r}{where}")
    if len(found) > 1:
        names = ", ".join(pkg.name for pkg, _ in found)
        raise InputError(f"bundle {name!r} is in several packages ({names}); choose with --package")
    pkg, chosen = found[0]
    entries = []
    for channel in sorted(pkg.channels, key=lambda c: c.name):
        entry = channel.entry(name)
        if entry is not None:
            entries.append(
                {
                    "channel": channel.name,
                    "replaces": entry.replaces,
                    "skips": list(entry.skips),
                    "skipRange": entry.skip_range,
                }
            )
    return {
        "name": chosen.name,
        "package": pkg.name,
        "version": chosen.version,
        "image": chosen.image,
        "deprecated": chosen.name in pkg.deprecated_names()[2],
        "channels": entries,
        "properties": [
            {"type": p.type, "value": p.parsed()}
            for p in chosen.properties
            if p.type not in prop.OBJECT_TYPES
        ],
        "objects": _objects(chosen),
        "csvMetadata": bool(chosen.properties_of(prop.TYPE_CSV_METADATA)),
        "relatedImages": [{"name": r.name, "image": r.image} for r in chosen.related_images],
    }


# ------------------------------------------------------------------------------------------------
# gRPC-style graph questions
# ------------------------------------------------------------------------------------------------


def head(catalog: CatalogSource, package: str, channel: str | None = None) -> Row:
    """The head of a channel (default: the default channel): GetBundleForChannel."""
    pkg = get_package(catalog, package)
    chosen = _channel(pkg, channel)
    name = _head(chosen)
    found = pkg.bundle(name)
    return {
        "package": pkg.name,
        "channel": chosen.name,
        "name": name,
        "version": found.version if found is not None else "",
        "image": found.image if found is not None else "",
    }


def replaced_by(
    catalog: CatalogSource, name: str, package: str | None = None, channel: str | None = None
) -> list[Row]:
    """Entries that replace or skip ``name``, per channel: GetBundleThatReplaces.

    The registry answers one arbitrary row when several match; all of them are listed here.
    """
    rows = []
    only = {package} if package is not None else None
    for pkg in iter_packages(catalog, only):
        versions = {b.name: b.version for b in pkg.bundles}
        for chosen in sorted(pkg.channels, key=lambda c: c.name):
            if channel is not None and chosen.name != channel:
                continue
            for entry in chosen.entries:
                via = (
                    "replaces"
                    if entry.replaces == name
                    else "skips"
                    if name in entry.skips
                    else None
                )
                if via is not None:
                    rows.append(
                        {
                            "package": pkg.name,
                            "channel": chosen.name,
                            "name": entry.name,
                            "version": versions.get(entry.name, ""),
                            "via": via,
                        }
                    )
    rows.sort(key=lambda r: (r["package"], r["channel"], _order(r["version"], r["name"])))
    return rows


@dataclass(frozen=True, slots=True)
class _Position:
    name: str
    version: Version | None


def upgrade_path(
    catalog: CatalogSource,
    package: str,
    start: str,
    channel: str | None = None,
    semantics: str = "legacy",
) -> Row:
    """The updates OLM applies one at a time from ``start`` until the head of the channel.

    ``start`` is a bundle name, or a version (then the entry of that version, or a version the
    catalog does not hold, reachable only through skipRange). ``legacy`` semantics: at each step
    the candidates are the entries that replace the current bundle, skip it, or whose skipRange
    holds its version; the one nearest the head wins (so a head whose skipRange covers the
    version is taken at once, as the OLM docs order it), then the highest version
    (:func:`olmcat.model.graph.olm_v0_walk`). ``semver`` semantics: OLM v1's semver mode -- any
    higher version of the channel within ``^current``, the highest first; the head is the
    channel's highest version (:func:`olmcat.model.graph.olm_v1_walk`).
    """
    if semantics not in ("legacy", "semver"):
        raise InputError(f"unknown semantics {semantics!r} (legacy or semver)")
    pkg = get_package(catalog, package)
    chosen = _channel(pkg, channel)
    known = {b.name: opm_version(b.version) for b in pkg.bundles}
    versions = {name: v for name, v in known.items() if v is not None}
    referenced = {e.name for e in chosen.entries}
    referenced.update(t for e in chosen.entries for t in (e.replaces, *e.skips) if t)
    if start in referenced:
        current = _Position(start, versions.get(start))
    else:
        wanted = olm_v0_version(start)
        if wanted is None:
            raise InputError(
                f"{start!r} is neither a bundle of channel {chosen.name!r} nor a version"
            )
        same = sorted(e.name for e in chosen.entries if versions.get(e.name) == wanted)
        current = _Position(same[0] if same else "", wanted)
    if semantics == "legacy":
        head_name = _head(chosen)
        walk = olm_v0_walk(chosen, current.name, current.version, versions, head=head_name)
    else:
        pool = [e.name for e in chosen.entries if e.name in versions]
        if not pool:
            raise InputError(f"channel {chosen.name!r} has no bundle with a semver version")
        head_name = olm_v1_choice(pool, versions, pkg.deprecated_names()[2])
        walk = olm_v1_walk([chosen], current.name, current.version, versions, semver=True)
    steps: list[Row] = []
    for step in walk.steps:
        version = versions.get(step.name)
        steps.append(
            {
                "name": step.name,
                "version": str(version) if version is not None else "",
                "via": step.via,
            }
        )
    return {
        "package": pkg.name,
        "channel": chosen.name,
        "semantics": semantics,
        "head": head_name,
        "from": {
            "name": current.name,
            "version": str(current.version) if current.version is not None else "",
        },
        "steps": steps,
        "reachesHead": (walk.end or current.name) == head_name and not walk.looped,
    }


@functools.total_ordering
class _Reversed:
    """Sorts versions highest first inside a min() key."""

    __slots__ = ("version",)

    def __init__(self, version: Version) -> None:
        self.version = version

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Reversed) and self.version.compare(other.version) == 0

    def __lt__(self, other: _Reversed) -> bool:
        return self.version.compare(other.version) > 0

    def __hash__(self) -> int:
        return hash(str(self.version))


# ------------------------------------------------------------------------------------------------
# OLM 1.0
# ------------------------------------------------------------------------------------------------


def resolve(
    catalog: CatalogSource,
    package: str,
    channel: str | None = None,
    version_range: str | None = None,
) -> Row:
    """The bundle OLM 1.0 installs for ``packageName``/``channel``/``version`` of an extension.

    Candidates: the bundles of the channel (of every channel without one) whose version is in the
    range (003 §7.3.8.3, :func:`olmcat.go.semver.parse_constraint`); non-deprecated bundles first,
    then the highest version.
    """
    constraint = parse_version_range(version_range) if version_range else None
    pkg = get_package(catalog, package)
    in_channels = _channels_of(pkg)
    candidates = list(pkg.bundles)
    if channel is not None:
        names = {e.name for e in _channel(pkg, channel).entries}
        candidates = [b for b in candidates if b.name in names]
    deprecated = pkg.deprecated_names()[2]
    matching: list[tuple[Bundle, Version]] = []
    for candidate in candidates:
        version = opm_version(candidate.version)
        if version is None:
            continue
        if constraint is None or constraint.contains(version):
            matching.append((candidate, version))
    if not matching:
        what = f" matching version {version_range!r}" if version_range else ""
        where = f" in channel {channel!r}" if channel is not None else ""
        raise InputError(f"no package {package!r}{what} found{where}")

    def rank(item: tuple[Bundle, Version]) -> tuple[bool, _Reversed, str]:
        return (item[0].name in deprecated, _Reversed(item[1]), item[0].name)

    chosen, version = min(matching, key=rank)
    return {
        "package": pkg.name,
        "channel": channel,
        "range": version_range,
        "name": chosen.name,
        "version": str(version),
        "image": chosen.image,
        "channels": in_channels.get(chosen.name, []),
        "deprecated": chosen.name in deprecated,
    }


def _csv(bundle: Bundle) -> tuple[dict[str, Any] | None, str]:
    """The CSV (or its olm.csv.metadata) of a bundle, and which property it came from."""
    for item in bundle.properties_of(prop.TYPE_BUNDLE_OBJECT):
        try:
            data = prop.bundle_object_data(item)
        except InputError:
            continue
        if data is None or b"ClusterServiceVersion" not in data:
            continue
        try:
            manifest = json.loads(data)
        except ValueError:
            continue
        if isinstance(manifest, dict) and manifest.get("kind") == "ClusterServiceVersion":
            return manifest, prop.TYPE_BUNDLE_OBJECT
    for item in bundle.properties_of(prop.TYPE_CSV_METADATA):
        value = item.parsed()
        if isinstance(value, dict):
            return value, prop.TYPE_CSV_METADATA
    return None, ""


def _install_facts(bundle: Bundle) -> tuple[list[str], int | None, str] | None:
    """(supported install modes, number of webhooks or None when unknown, source)."""
    csv, source = _csv(bundle)
    if csv is None:
        return None
    spec = csv.get("spec") if source == prop.TYPE_BUNDLE_OBJECT else csv
    spec = spec if isinstance(spec, dict) else {}
    modes = [
        str(m.get("type"))
        for m in spec.get("installModes") or []
        if isinstance(m, dict) and m.get("supported") is True
    ]
    webhooks: int | None = None
    if source == prop.TYPE_BUNDLE_OBJECT:
        # olm.csv.metadata does not carry webhook definitions: unknown there.
        definitions = spec.get("webhookdefinitions")
        webhooks = len(definitions) if isinstance(definitions, list) else 0
    return modes, webhooks, source


def install_modes(
    catalog: CatalogSource,
    *,
    all_namespaces: bool = False,
    no_webhooks: bool = False,
    installable: bool = False,
    gates: Mapping[str, bool] | None = None,
) -> list[Row]:
    """Install modes and webhooks of every channel head whose CSV the catalog holds, and OLM v1's
    verdict on it.

    ``all_namespaces`` keeps heads supporting AllNamespaces; ``no_webhooks`` keeps heads known to
    define no webhooks (a head described only by ``olm.csv.metadata`` is left out: that property
    has no webhook definitions). Together they are 2024's technology-preview rule (003 §7.3.6's
    jq query), no longer what OLM v1 installs: ``olmv1`` is operator-controller v1.11.0's verdict
    (``installable``, ``refused`` or ``unknown``, from the catalog alone: no image is read) under
    ``gates`` (default: v1.11.0's), ``olmv1Reasons`` its reasons with their rule IDs
    (:mod:`olmcat.olmv1.check`); ``installable`` keeps the heads it installs.
    """
    from olmcat.olmv1.check import check_catalog_bundle

    rows: list[Row] = []
    for pkg in catalog.packages():
        heads: dict[str, list[str]] = {}
        for channel in sorted(pkg.channels, key=lambda c: c.name):
            names = channel.heads()
            if len(names) == 1:
                heads.setdefault(names[0], []).append(channel.name)
        for name, in_channels in heads.items():
            found = pkg.bundle(name)
            facts = _install_facts(found) if found is not None else None
            if found is None or facts is None:
                continue
            modes, webhooks, source = facts
            if all_namespaces and "AllNamespaces" not in modes:
                continue
            if no_webhooks and webhooks != 0:
                continue
            verdict = check_catalog_bundle(found, gates=gates, channels=in_channels)
            if installable and verdict.verdict != "installable":
                continue
            rows.append(
                {
                    "package": pkg.name,
                    "name": name,
                    "version": found.version,
                    "channels": in_channels,
                    "installModes": modes,
                    "webhooks": webhooks,
                    "source": source,
                    "olmv1": verdict.verdict,
                    "olmv1Reasons": [r.to_json() for r in verdict.reasons],
                }
            )
    rows.sort(key=lambda r: (r["package"], _order(r["version"], r["name"])))
    return rows
