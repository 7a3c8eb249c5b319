"""What changed between two versions of a catalog, as upgrade-graph changes.

:func:`diff_catalogs` walks two package streams (both sorted by name, as every reader yields them)
in lockstep, so memory holds one pair of packages plus the result, never a whole catalog. The
result is a :class:`CatalogDiff` of frozen dataclasses; :meth:`CatalogDiff.to_json` turns it into
the stable JSON document below, which ``olmcat diff --format json`` prints.

Comparison rules: bundles, channels and packages are matched by name. Property lists are compared
per type *as sets* (order and duplicates do not count), related images as sets of (name, image),
``olm.bundle.object`` manifests by decoded content and reported by kind and name (never as
base64). A bundle's version is the ``version`` of its ``olm.package`` property.

Upgrade impact (:class:`UpgradeImpact`) is computed per channel. A bundle can *reach* the channel
head (with several heads: the one of highest version; the others are orphans) when a chain of
entries leads from it to that head, where entry ``E`` upgrades from ``X`` if
``E`` replaces ``X``, skips ``X``, or ``E``'s skipRange (blang/semver syntax) contains ``X``'s
version. With ``semantics="semver"`` (OLM v1's semver mode) the head is instead the channel's
highest version and ``E`` upgrades from ``X`` when ``E``'s version is within ``^X`` (higher, same
major; same minor below 1.0.0). A bundle of the old channel is a **stranded install** when it
could reach the head of the old channel but cannot reach the head of the new one (reason
``no-path``), or when its channel
(``channel-removed``) or package (``package-removed``) is gone. Also reported: channels whose
number of heads grows past one (``multipleHeads``), replaces/skips cycles that are new
(``cycles``), and ``replaces`` targets that were entries of the old channel but are not entries
of the new one (``danglingReplaces``). Impact describes ``old -> new`` and is not symmetric; every
other part of ``diff(b, a)`` is the mirror image of ``diff(a, b)`` (added <-> removed,
old <-> new).

JSON shape (``schema`` ``olmcat.diff.v1``; keys are always present; lists are sorted as stated;
``Change`` is ``{"old": X | null, "new": X | null}``, ``null`` on the side where the thing is
absent; a ``status`` is ``"added"``, ``"removed"`` or ``"changed"``)::

    {
      "schema": "olmcat.diff.v1",
      "identical": bool,
      "summary": {
        "packages":     {"added": int, "removed": int, "changed": int},
        "channels":     {"added": int, "removed": int, "changed": int},
        "entries":      {"added": int, "removed": int},
        "bundles":      {"added": int, "removed": int, "changed": int},
        "deprecations": {"added": int, "removed": int, "changed": int},
        "impact": {"stranded": int, "multipleHeads": int, "cycles": int,
                   "danglingReplaces": int}
      },
      "packages": [                                   # by name
        {
          "name": str, "status": status,
          "defaultChannel": Change[str] | null,       # null when unchanged
          "icon": Change[str] | null,                 # "<mediatype> sha256:<12 hex> (<n> chars)"
          "description": Change[str] | null,
          "properties": [PropertyChange],             # package-level properties
          "channels": [                               # by name
            {
              "name": str, "status": status,
              "heads": {"old": [str], "new": [str]} | null,   # null when unchanged
              "entries": {"added": [Entry], "removed": [Entry]},  # by name
              "edges": [      # of entries in both; by entry: replaces, skips by target, skipRange
                {"entry": str, "kind": "replaces" | "skips" | "skipRange",
                 "old": str | null, "new": str | null}
              ],
              "properties": [PropertyChange]
            }
          ],
          "bundles": [                                # by name
            {
              "name": str, "status": status,
              "version": Change[str] | null, "image": Change[str] | null,
              "properties": [PropertyChange],         # not olm.bundle.object: see objects
              "relatedImages": {"added": [RelatedImage], "removed": [RelatedImage]},
              "objects": [{"kind": str, "name": str, "status": status}]   # by kind, name
            }
          ],
          "deprecations": [                           # by schema, name
            {"schema": "olm.package" | "olm.channel" | "olm.bundle", "name": str,
             "status": status, "message": Change[str]}
          ],
          "others": [{"schema": str, "name": str, "status": status}],  # unknown-schema blobs
          "impact": {
            "stranded": [{"channel": str, "bundle": str, "version": str,
                          "reason": "no-path" | "channel-removed" | "package-removed"}],
            "multipleHeads": [{"channel": str, "heads": [str]}],
            "cycles": [{"channel": str, "bundles": [str]}],
            "danglingReplaces": [{"channel": str, "entry": str, "replaces": str}]
          }
        }
      ]
    }

    Entry          = {"name": str, "replaces": str | null, "skips": [str], "skipRange": str | null}
    RelatedImage   = {"name": str, "image": str}          # by name, then image
    PropertyChange = {"type": str, "added": [JSON value], "removed": [JSON value]}
                     # by type; values sorted by their compact JSON text

For an added or removed bundle only ``version`` and ``image`` are filled in (its properties are
not listed); an added or removed channel lists all its entries; an added or removed package
lists all its channels and bundles that way. Blobs that belong to no package are not compared.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

import orjson

from olmcat.errors import InputError
from olmcat.model import (
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    Icon,
    Meta,
    Package,
    PackageCatalog,
    RelatedImage,
)
from olmcat.model.graph import (
    olm_v1_choice,
    reaching_head,
    semver_reaching,
    target_head,
    upgrade_cycles,
)
from olmcat.model.property import TYPE_BUNDLE_OBJECT, Property
from olmcat.model.versions import Version, olm_v0_version

__all__ = [
    "JSON_SCHEMA",
    "BundleDiff",
    "CatalogDiff",
    "ChannelDiff",
    "Cycle",
    "DanglingReplaces",
    "DeprecationChange",
    "EdgeChange",
    "EntryInfo",
    "HeadsChange",
    "MultipleHeads",
    "ObjectChange",
    "OtherChange",
    "PackageDiff",
    "PropertyChange",
    "StrandedInstall",
    "UpgradeImpact",
    "ValueChange",
    "bundle_version",
    "bundles_differ",
    "diff_catalogs",
    "diff_package",
    "entries_differ",
    "paired",
    "reaching_head",
    "target_head",
]

JSON_SCHEMA: Final = "olmcat.diff.v1"

Status = Literal["added", "removed", "changed"]
EdgeKind = Literal["replaces", "skips", "skipRange"]
StrandReason = Literal["no-path", "channel-removed", "package-removed"]


# -- result types ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ValueChange:
    """A scalar that differs; ``None`` on the side where it is absent."""

    old: str | None
    new: str | None

    def to_json(self) -> dict[str, Any]:
        return {"old": self.old, "new": self.new}


@dataclass(frozen=True, slots=True)
class PropertyChange:
    """Values (compact JSON text, sorted) of one property type that were added or removed."""

    type: str
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "added": [json.loads(v) for v in self.added],
            "removed": [json.loads(v) for v in self.removed],
        }


@dataclass(frozen=True, slots=True)
class EntryInfo:
    """A channel entry as it was added or removed."""

    name: str
    replaces: str = ""
    skips: tuple[str, ...] = ()
    skip_range: str = ""

    @classmethod
    def of(cls, entry: ChannelEntry) -> EntryInfo:
        return cls(entry.name, entry.replaces, entry.skips, entry.skip_range)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "replaces": self.replaces or None,
            "skips": list(self.skips),
            "skipRange": self.skip_range or None,
        }


@dataclass(frozen=True, slots=True)
class EdgeChange:
    """One upgrade edge of an entry present in both channels: ``old``/``new`` is the target
    (a bundle name, or the skipRange text); ``None`` where the edge does not exist."""

    entry: str
    kind: EdgeKind
    old: str | None
    new: str | None

    @property
    def status(self) -> Status:
        if self.old is None:
            return "added"
        return "removed" if self.new is None else "changed"

    def to_json(self) -> dict[str, Any]:
        return {"entry": self.entry, "kind": self.kind, "old": self.old, "new": self.new}


@dataclass(frozen=True, slots=True)
class HeadsChange:
    old: tuple[str, ...]
    new: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"old": list(self.old), "new": list(self.new)}


@dataclass(frozen=True, slots=True)
class ChannelDiff:
    name: str
    status: Status
    heads: HeadsChange | None = None
    entries_added: tuple[EntryInfo, ...] = ()
    entries_removed: tuple[EntryInfo, ...] = ()
    edges: tuple[EdgeChange, ...] = ()
    properties: tuple[PropertyChange, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "heads": self.heads.to_json() if self.heads else None,
            "entries": {
                "added": [e.to_json() for e in self.entries_added],
                "removed": [e.to_json() for e in self.entries_removed],
            },
            "edges": [e.to_json() for e in self.edges],
            "properties": [p.to_json() for p in self.properties],
        }


@dataclass(frozen=True, slots=True)
class ObjectChange:
    """A manifest of ``olm.bundle.object`` properties, named by kind and metadata.name."""

    kind: str
    name: str
    status: Status

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "status": self.status}


@dataclass(frozen=True, slots=True)
class BundleDiff:
    name: str
    status: Status
    version: ValueChange | None = None
    image: ValueChange | None = None
    properties: tuple[PropertyChange, ...] = ()
    related_images_added: tuple[RelatedImage, ...] = ()
    related_images_removed: tuple[RelatedImage, ...] = ()
    objects: tuple[ObjectChange, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "version": self.version.to_json() if self.version else None,
            "image": self.image.to_json() if self.image else None,
            "properties": [p.to_json() for p in self.properties],
            "relatedImages": {
                "added": [{"name": r.name, "image": r.image} for r in self.related_images_added],
                "removed": [
                    {"name": r.name, "image": r.image} for r in self.related_images_removed
                ],
            },
            "objects": [o.to_json() for o in self.objects],
        }


@dataclass(frozen=True, slots=True)
class DeprecationChange:
    """A deprecation entry; ``name`` is empty for the package itself."""

    schema: str
    name: str
    status: Status
    message: ValueChange

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": self.schema,
            "name": self.name,
            "status": self.status,
            "message": self.message.to_json(),
        }


@dataclass(frozen=True, slots=True)
class OtherChange:
    """A blob of a schema olmcat does not model."""

    schema: str
    name: str
    status: Status

    def to_json(self) -> dict[str, Any]:
        return {"schema": self.schema, "name": self.name, "status": self.status}


@dataclass(frozen=True, slots=True)
class StrandedInstall:
    """An install of ``bundle`` from ``channel`` that has no upgrade path any more."""

    channel: str
    bundle: str
    version: str
    reason: StrandReason

    def to_json(self) -> dict[str, Any]:
        return {
            "channel": self.channel,
            "bundle": self.bundle,
            "version": self.version,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class MultipleHeads:
    channel: str
    heads: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"channel": self.channel, "heads": list(self.heads)}


@dataclass(frozen=True, slots=True)
class Cycle:
    channel: str
    bundles: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"channel": self.channel, "bundles": list(self.bundles)}


@dataclass(frozen=True, slots=True)
class DanglingReplaces:
    channel: str
    entry: str
    replaces: str

    def to_json(self) -> dict[str, Any]:
        return {"channel": self.channel, "entry": self.entry, "replaces": self.replaces}


@dataclass(frozen=True, slots=True)
class UpgradeImpact:
    stranded: tuple[StrandedInstall, ...] = ()
    multiple_heads: tuple[MultipleHeads, ...] = ()
    cycles: tuple[Cycle, ...] = ()
    dangling_replaces: tuple[DanglingReplaces, ...] = ()

    def is_empty(self) -> bool:
        return not (self.stranded or self.multiple_heads or self.cycles or self.dangling_replaces)

    def to_json(self) -> dict[str, Any]:
        return {
            "stranded": [s.to_json() for s in self.stranded],
            "multipleHeads": [m.to_json() for m in self.multiple_heads],
            "cycles": [c.to_json() for c in self.cycles],
            "danglingReplaces": [d.to_json() for d in self.dangling_replaces],
        }


@dataclass(frozen=True, slots=True)
class PackageDiff:
    name: str
    status: Status
    default_channel: ValueChange | None = None
    icon: ValueChange | None = None
    description: ValueChange | None = None
    properties: tuple[PropertyChange, ...] = ()
    channels: tuple[ChannelDiff, ...] = ()
    bundles: tuple[BundleDiff, ...] = ()
    deprecations: tuple[DeprecationChange, ...] = ()
    others: tuple[OtherChange, ...] = ()
    impact: UpgradeImpact = UpgradeImpact()

    def to_json(self) -> dict[str, Any]:
        def change(value: ValueChange | None) -> dict[str, Any] | None:
            return value.to_json() if value else None

        return {
            "name": self.name,
            "status": self.status,
            "defaultChannel": change(self.default_channel),
            "icon": change(self.icon),
            "description": change(self.description),
            "properties": [p.to_json() for p in self.properties],
            "channels": [c.to_json() for c in self.channels],
            "bundles": [b.to_json() for b in self.bundles],
            "deprecations": [d.to_json() for d in self.deprecations],
            "others": [o.to_json() for o in self.others],
            "impact": self.impact.to_json(),
        }


def _count(statuses: Iterable[str]) -> dict[str, int]:
    counts = Counter(statuses)
    return {"added": counts["added"], "removed": counts["removed"], "changed": counts["changed"]}


@dataclass(frozen=True, slots=True)
class CatalogDiff:
    """Every package that differs, by name."""

    packages: tuple[PackageDiff, ...] = ()

    def is_empty(self) -> bool:
        return not self.packages

    def package(self, name: str) -> PackageDiff | None:
        for pkg in self.packages:
            if pkg.name == name:
                return pkg
        return None

    def stranded(self) -> list[tuple[str, StrandedInstall]]:
        """Every stranded install as (package, install)."""
        return [(p.name, s) for p in self.packages for s in p.impact.stranded]

    def summary(self) -> dict[str, Any]:
        """The ``summary`` object of :meth:`to_json`."""
        pkgs = self.packages
        channels = [c for p in pkgs for c in p.channels]
        return {
            "packages": _count(p.status for p in pkgs),
            "channels": _count(c.status for c in channels),
            "entries": {
                "added": sum(len(c.entries_added) for c in channels),
                "removed": sum(len(c.entries_removed) for c in channels),
            },
            "bundles": _count(b.status for p in pkgs for b in p.bundles),
            "deprecations": _count(d.status for p in pkgs for d in p.deprecations),
            "impact": {
                "stranded": sum(len(p.impact.stranded) for p in pkgs),
                "multipleHeads": sum(len(p.impact.multiple_heads) for p in pkgs),
                "cycles": sum(len(p.impact.cycles) for p in pkgs),
                "danglingReplaces": sum(len(p.impact.dangling_replaces) for p in pkgs),
            },
        }

    def to_json(self) -> dict[str, Any]:
        """The documented JSON document (see the module docstring), as plain Python values."""
        return {
            "schema": JSON_SCHEMA,
            "identical": self.is_empty(),
            "summary": self.summary(),
            "packages": [p.to_json() for p in self.packages],
        }


# -- pairing --------------------------------------------------------------------------------------


def _checked(packages: Iterable[PackageCatalog], side: str) -> Iterator[PackageCatalog]:
    previous: str | None = None
    for pkg in packages:
        if previous is not None and pkg.name <= previous:
            problem = "twice" if pkg.name == previous else f"after {previous!r}"
            raise InputError(
                f"{side} catalog: package {pkg.name!r} comes {problem}; "
                "packages must stream sorted by name, each once"
            )
        previous = pkg.name
        yield pkg


def paired(
    old: Iterable[PackageCatalog],
    new: Iterable[PackageCatalog],
    packages: set[str] | None = None,
) -> Iterator[tuple[PackageCatalog | None, PackageCatalog | None]]:
    """Walk two name-sorted package streams in lockstep: ``(old, new)`` per package name, with
    ``None`` on the side that lacks it. Only names in ``packages`` when that is given."""
    old_it, new_it = _checked(old, "old"), _checked(new, "new")
    o, n = next(old_it, None), next(new_it, None)
    while o is not None or n is not None:
        if n is None or (o is not None and o.name < n.name):
            pair: tuple[PackageCatalog | None, PackageCatalog | None] = (o, None)
            o = next(old_it, None)
        elif o is None or n.name < o.name:
            pair = (None, n)
            n = next(new_it, None)
        else:
            pair = (o, n)
            o, n = next(old_it, None), next(new_it, None)
        name = (pair[0] or pair[1]).name  # type: ignore[union-attr]
        if packages is None or name in packages:
            yield pair


def diff_catalogs(
    old: Iterable[PackageCatalog],
    new: Iterable[PackageCatalog],
    *,
    packages: set[str] | None = None,
    semantics: str = "legacy",
) -> CatalogDiff:
    """Compare two catalogs given as name-sorted package streams (``open_catalog(...)``)."""
    found = []
    for old_pkg, new_pkg in paired(old, new, packages):
        result = diff_package(old_pkg, new_pkg, semantics=semantics)
        if result is not None:
            found.append(result)
    return CatalogDiff(tuple(found))


# -- small helpers --------------------------------------------------------------------------------


def bundle_version(bundle: Bundle | None) -> str:
    """The version of a bundle's ``olm.package`` property ("" when it has none or it is bad)."""
    return bundle.version if bundle is not None else ""


def _by_type(props: Iterable[Property]) -> dict[str, set[str]]:
    grouped: dict[str, set[str]] = defaultdict(set)
    for prop in props:
        grouped[prop.type].add(prop.value)
    return grouped


def _property_changes(
    old: Iterable[Property], new: Iterable[Property], skip: frozenset[str] = frozenset()
) -> tuple[PropertyChange, ...]:
    a, b = _by_type(old), _by_type(new)
    changes = []
    for type_ in sorted((a.keys() | b.keys()) - skip):
        before, after = a.get(type_, set()), b.get(type_, set())
        if before != after:
            changes.append(
                PropertyChange(type_, tuple(sorted(after - before)), tuple(sorted(before - after)))
            )
    return tuple(changes)


def _value(old: str | None, new: str | None) -> ValueChange | None:
    return None if old == new else ValueChange(old, new)


def _icon_text(icon: Icon | None) -> str | None:
    if icon is None:
        return None
    digest = hashlib.sha256(icon.base64data.encode()).hexdigest()[:12]
    return f"{icon.mediatype or '?'} sha256:{digest} ({len(icon.base64data)} chars)"


# -- bundles --------------------------------------------------------------------------------------


def _object_identity(value: str) -> tuple[str, str]:
    """(kind, name) of an ``olm.bundle.object`` value, decoding its base64 manifest."""
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        data = parsed.get("data")
        if isinstance(data, str) and data:
            try:
                # orjson: whole CSVs are decoded only to be named, several times faster than json
                manifest = orjson.loads(base64.b64decode(data, validate=True))
            except (ValueError, binascii.Error):
                manifest = None
            if isinstance(manifest, dict):
                kind = manifest.get("kind")
                metadata = manifest.get("metadata")
                name = metadata.get("name") if isinstance(metadata, dict) else None
                return (
                    kind if isinstance(kind, str) and kind else "?",
                    name if isinstance(name, str) else "",
                )
        ref = parsed.get("ref")
        if isinstance(ref, str) and ref:
            return "file", ref
    digest = hashlib.sha256(value.encode()).hexdigest()[:12]
    return "?", f"sha256:{digest}"


def _object_changes(old: Bundle, new: Bundle) -> tuple[ObjectChange, ...]:
    before = {p.value for p in old.properties if p.type == TYPE_BUNDLE_OBJECT}
    after = {p.value for p in new.properties if p.type == TYPE_BUNDLE_OBJECT}
    if before == after:
        return ()
    # Only the values that differ are decoded; a (kind, name) on both sides is "changed".
    gone = Counter(_object_identity(v) for v in before - after)
    came = Counter(_object_identity(v) for v in after - before)
    changes = []
    for key in sorted(gone.keys() | came.keys()):
        both = min(gone[key], came[key])
        changes += [ObjectChange(*key, "changed")] * both
        changes += [ObjectChange(*key, "removed")] * (gone[key] - both)
        changes += [ObjectChange(*key, "added")] * (came[key] - both)
    return tuple(changes)


def bundles_differ(old: Bundle, new: Bundle) -> bool:
    """Whether two bundles differ under the diff's rules (properties and images as sets)."""
    if old == new:
        return False
    return (
        old.image != new.image
        or _by_type(old.properties) != _by_type(new.properties)
        or set(old.related_images) != set(new.related_images)
    )


def _bundle_change(old: Bundle, new: Bundle) -> BundleDiff | None:
    if not bundles_differ(old, new):
        return None
    return BundleDiff(
        new.name,
        "changed",
        version=_value(bundle_version(old), bundle_version(new)),
        image=_value(old.image, new.image),
        properties=_property_changes(
            old.properties, new.properties, frozenset({TYPE_BUNDLE_OBJECT})
        ),
        related_images_added=tuple(
            sorted(
                set(new.related_images) - set(old.related_images), key=lambda r: (r.name, r.image)
            )
        ),
        related_images_removed=tuple(
            sorted(
                set(old.related_images) - set(new.related_images), key=lambda r: (r.name, r.image)
            )
        ),
        objects=_object_changes(old, new),
    )


def _bundle_presence(bundle: Bundle, status: Status) -> BundleDiff:
    version, image = bundle_version(bundle), bundle.image
    if status == "added":
        return BundleDiff(bundle.name, status, ValueChange(None, version), ValueChange(None, image))
    return BundleDiff(bundle.name, status, ValueChange(version, None), ValueChange(image, None))


def _bundle_diffs(old: Iterable[Bundle], new: Iterable[Bundle]) -> tuple[BundleDiff, ...]:
    before = {b.name: b for b in old}
    after = {b.name: b for b in new}
    diffs = []
    for name in sorted(before.keys() | after.keys()):
        a, b = before.get(name), after.get(name)
        if a is None and b is not None:
            diffs.append(_bundle_presence(b, "added"))
        elif b is None and a is not None:
            diffs.append(_bundle_presence(a, "removed"))
        elif a is not None and b is not None:
            change = _bundle_change(a, b)
            if change is not None:
                diffs.append(change)
    return tuple(diffs)


# -- channels -------------------------------------------------------------------------------------


def entries_differ(old: ChannelEntry, new: ChannelEntry) -> bool:
    """Whether two entries of one name have different upgrade edges (skips as a set)."""
    return (
        old.replaces != new.replaces
        or old.skip_range != new.skip_range
        or set(old.skips) != set(new.skips)
    )


def _edge_changes(old: ChannelEntry, new: ChannelEntry) -> list[EdgeChange]:
    edges = []
    if old.replaces != new.replaces:
        edges.append(EdgeChange(new.name, "replaces", old.replaces or None, new.replaces or None))
    for target in sorted(set(old.skips) ^ set(new.skips)):
        gained = target in new.skips
        edges.append(
            EdgeChange(new.name, "skips", None if gained else target, target if gained else None)
        )
    if old.skip_range != new.skip_range:
        edges.append(
            EdgeChange(new.name, "skipRange", old.skip_range or None, new.skip_range or None)
        )
    return edges


def _sorted_entries(entries: Iterable[ChannelEntry]) -> tuple[EntryInfo, ...]:
    return tuple(EntryInfo.of(e) for e in sorted(entries, key=lambda e: e.name))


def _channel_diff(old: Channel | None, new: Channel | None) -> ChannelDiff | None:
    if old is None and new is not None:
        heads = tuple(new.heads())
        return ChannelDiff(
            new.name,
            "added",
            HeadsChange((), heads) if heads else None,
            entries_added=_sorted_entries(new.entries),
            properties=_property_changes((), new.properties),
        )
    if new is None and old is not None:
        heads = tuple(old.heads())
        return ChannelDiff(
            old.name,
            "removed",
            HeadsChange(heads, ()) if heads else None,
            entries_removed=_sorted_entries(old.entries),
            properties=_property_changes(old.properties, ()),
        )
    assert old is not None and new is not None
    if old == new:
        return None
    before = {e.name: e for e in old.entries}
    after = {e.name: e for e in new.entries}
    edges: list[EdgeChange] = []
    for name in sorted(before.keys() & after.keys()):
        edges += _edge_changes(before[name], after[name])
    old_heads, new_heads = tuple(old.heads()), tuple(new.heads())
    result = ChannelDiff(
        new.name,
        "changed",
        HeadsChange(old_heads, new_heads) if old_heads != new_heads else None,
        entries_added=_sorted_entries(after[n] for n in after.keys() - before.keys()),
        entries_removed=_sorted_entries(before[n] for n in before.keys() - after.keys()),
        edges=tuple(edges),
        properties=_property_changes(old.properties, new.properties),
    )
    changed = (
        result.heads or result.entries_added or result.entries_removed or edges or result.properties
    )
    return result if changed else None


# -- channel graphs -------------------------------------------------------------------------------


def _versions(names: Iterable[str], *sources: Mapping[str, Bundle]) -> dict[str, Version]:
    """Parsed versions of ``names``, taken from the first source that has the bundle."""
    out: dict[str, Version] = {}
    for name in names:
        for source in sources:
            bundle = source.get(name)
            if bundle is not None:
                version = olm_v0_version(bundle)
                if version is not None:
                    out[name] = version
                break
    return out


def _reaching(channel: Channel, versions: Mapping[str, Version], semantics: str) -> set[str]:
    """Names that can reach the channel's target: its head along catalog edges (legacy), or its
    highest version by semver steps (semver)."""
    if semantics != "semver":
        return reaching_head(channel, versions)
    pool = [e.name for e in channel.entries if e.name in versions]
    if not pool:
        return set()
    return semver_reaching(olm_v1_choice(pool, versions), versions)


def _stranded_all(
    channel: Channel, bundles: Mapping[str, Bundle], reason: StrandReason, semantics: str
) -> list[StrandedInstall]:
    """Installs of a channel that disappears: those that had a path to its head."""
    names = [e.name for e in channel.entries]
    reach = _reaching(channel, _versions(names, bundles), semantics)
    return [
        StrandedInstall(channel.name, name, bundle_version(bundles.get(name)), reason)
        for name in sorted(set(names) & reach)
    ]


def _impact(
    old: PackageCatalog | None, new: PackageCatalog | None, semantics: str = "legacy"
) -> UpgradeImpact:
    old_channels = {c.name: c for c in old.channels} if old else {}
    new_channels = {c.name: c for c in new.channels} if new else {}
    old_bundles = {b.name: b for b in old.bundles} if old else {}
    new_bundles = {b.name: b for b in new.bundles} if new else {}
    stranded: list[StrandedInstall] = []
    heads: list[MultipleHeads] = []
    cycles: list[Cycle] = []
    dangling: list[DanglingReplaces] = []
    # Versions feed skipRange matching, so an unchanged channel can only be affected by bundles.
    same_bundles = old_bundles == new_bundles
    for name in sorted(old_channels.keys() | new_channels.keys()):
        before, after = old_channels.get(name), new_channels.get(name)
        if before is not None and before == after and same_bundles:
            continue
        if after is None:
            assert before is not None
            reason: StrandReason = "package-removed" if new is None else "channel-removed"
            stranded += _stranded_all(before, old_bundles, reason, semantics)
            continue
        old_names = [e.name for e in before.entries] if before is not None else []
        if before is not None:
            old_reach = _reaching(before, _versions(old_names, old_bundles), semantics)
            new_names = [e.name for e in after.entries]
            candidates = _versions([*new_names, *old_names], new_bundles, old_bundles)
            new_reach = _reaching(after, candidates, semantics)
            for bundle in sorted(set(old_names)):
                if bundle in old_reach and bundle not in new_reach:
                    version = bundle_version(old_bundles.get(bundle))
                    stranded.append(StrandedInstall(name, bundle, version, "no-path"))
        old_heads = before.heads() if before is not None else []
        new_heads = after.heads()
        if len(new_heads) > 1 and len(new_heads) > len(old_heads):
            heads.append(MultipleHeads(name, tuple(new_heads)))
        known = set(upgrade_cycles(before)) if before is not None else set()
        cycles += [Cycle(name, group) for group in upgrade_cycles(after) if group not in known]
        current = {e.name for e in after.entries}
        gone = set(old_names) - current
        dangling += [
            DanglingReplaces(name, e.name, e.replaces)
            for e in sorted(after.entries, key=lambda e: e.name)
            if e.replaces in gone
        ]
    return UpgradeImpact(tuple(stranded), tuple(heads), tuple(cycles), tuple(dangling))


# -- packages -------------------------------------------------------------------------------------


def _deprecation_changes(
    old: Iterable[Deprecation], new: Iterable[Deprecation]
) -> tuple[DeprecationChange, ...]:
    before = {(e.schema, e.name): e.message for d in old for e in d.entries}
    after = {(e.schema, e.name): e.message for d in new for e in d.entries}
    changes = []
    for key in sorted(before.keys() | after.keys()):
        a, b = before.get(key), after.get(key)
        if a == b:
            continue
        status: Status = "added" if a is None else "removed" if b is None else "changed"
        changes.append(DeprecationChange(*key, status, ValueChange(a, b)))
    return tuple(changes)


def _other_changes(old: Iterable[Meta], new: Iterable[Meta]) -> tuple[OtherChange, ...]:
    before = {(m.schema, m.name): m.blob for m in old}
    after = {(m.schema, m.name): m.blob for m in new}
    changes = []
    for key in sorted(before.keys() | after.keys()):
        a, b = before.get(key), after.get(key)
        if a != b:
            status: Status = "added" if a is None else "removed" if b is None else "changed"
            changes.append(OtherChange(*key, status))
    return tuple(changes)


def _package_fields(old: Package | None, new: Package | None) -> dict[str, Any]:
    return {
        "default_channel": _value(
            old.default_channel if old else None, new.default_channel if new else None
        ),
        "icon": _value(
            _icon_text(old.icon) if old else None, _icon_text(new.icon) if new else None
        ),
        "description": _value(old.description if old else None, new.description if new else None),
        "properties": _property_changes(
            old.properties if old else (), new.properties if new else ()
        ),
    }


def diff_package(
    old: PackageCatalog | None, new: PackageCatalog | None, *, semantics: str = "legacy"
) -> PackageDiff | None:
    """The differences of one package between two catalogs (None if there are none);
    ``semantics`` (legacy or semver) decides which installs count as stranded."""
    if old is None and new is None:
        return None
    if old is not None and new is not None and old == new:
        return None
    name = (new or old).name  # type: ignore[union-attr]
    old_channels = {c.name: c for c in old.channels} if old else {}
    new_channels = {c.name: c for c in new.channels} if new else {}
    channels = []
    for channel_name in sorted(old_channels.keys() | new_channels.keys()):
        change = _channel_diff(old_channels.get(channel_name), new_channels.get(channel_name))
        if change is not None:
            channels.append(change)
    fields = _package_fields(old.package if old else None, new.package if new else None)
    result = PackageDiff(
        name,
        "added" if old is None else "removed" if new is None else "changed",
        channels=tuple(channels),
        bundles=_bundle_diffs(old.bundles if old else (), new.bundles if new else ()),
        deprecations=_deprecation_changes(
            old.deprecations if old else (), new.deprecations if new else ()
        ),
        others=_other_changes(old.others if old else (), new.others if new else ()),
        impact=_impact(old, new, semantics),
        **fields,
    )
    if result.status == "changed" and not (
        result.default_channel
        or result.icon
        or result.description
        or result.properties
        or result.channels
        or result.bundles
        or result.deprecations
        or result.others
    ):
        return None  # only order or duplicates differ
    return result
