"""The normalized catalog model every reader produces and every writer consumes.

Independent of any input format. A catalog is a stream of :class:`PackageCatalog` values, one per
package, so that readers and writers hold one package at a time, never the whole catalog.
Everything is immutable; property values and unknown blobs are kept as compact JSON text so that
nothing is lost or re-encoded on the way through.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from olmcat.errors import InputError
from olmcat.model import graph
from olmcat.model.property import TYPE_DEPRECATED, TYPE_PACKAGE, Property, parse_package

SCHEMA_PACKAGE = "olm.package"
SCHEMA_CHANNEL = "olm.channel"
SCHEMA_BUNDLE = "olm.bundle"
SCHEMA_DEPRECATIONS = "olm.deprecations"


@dataclass(frozen=True, slots=True)
class Icon:
    base64data: str
    mediatype: str


@dataclass(frozen=True, slots=True)
class Package:
    name: str
    default_channel: str = ""
    icon: Icon | None = None
    description: str = ""
    properties: tuple[Property, ...] = ()


@dataclass(frozen=True, slots=True)
class ChannelEntry:
    name: str
    replaces: str = ""
    skips: tuple[str, ...] = ()
    skip_range: str = ""

    def edges(self) -> tuple[str, ...]:
        """Names this entry upgrades from directly (replaces and skips; not skipRange)."""
        return (self.replaces, *self.skips) if self.replaces else self.skips


@dataclass(frozen=True, slots=True)
class Channel:
    name: str
    package: str
    entries: tuple[ChannelEntry, ...] = ()
    properties: tuple[Property, ...] = ()

    def entry(self, name: str) -> ChannelEntry | None:
        for entry in self.entries:
            if entry.name == name:
                return entry
        return None

    # Conveniences over olmcat.model.graph, where the algorithms live.

    def heads(self) -> list[str]:
        """Entries no other entry replaces or skips, sorted. A valid channel has exactly one."""
        return graph.heads(self.entries)

    def head(self) -> str:
        """The channel head; raises ValidationError unless there is exactly one."""
        return graph.single_head(self)

    def replaces_chain(self, start: str) -> list[str]:
        """``start`` and then each bundle it replaces, in order, stopping at a cycle or a gap."""
        return graph.replaces_chain(self.entries, start)


@dataclass(frozen=True, slots=True)
class RelatedImage:
    name: str
    image: str


@dataclass(frozen=True, slots=True)
class Bundle:
    name: str
    package: str
    image: str = ""
    properties: tuple[Property, ...] = ()
    related_images: tuple[RelatedImage, ...] = ()

    def properties_of(self, type_: str) -> list[Property]:
        return [p for p in self.properties if p.type == type_]

    @property
    def version(self) -> str:
        """The version of the first ``olm.package`` property ("" without one, or if unreadable).

        Callers parse it with the semver dialect their question needs."""
        for item in self.properties:
            if item.type == TYPE_PACKAGE:
                try:
                    return parse_package(item).version
                except InputError:
                    return ""
        return ""


@dataclass(frozen=True, slots=True)
class DeprecationEntry:
    """``schema`` is olm.package, olm.channel or olm.bundle; ``name`` is empty for a package."""

    schema: str
    name: str
    message: str


@dataclass(frozen=True, slots=True)
class Deprecation:
    package: str
    entries: tuple[DeprecationEntry, ...] = ()


@dataclass(frozen=True, slots=True)
class Meta:
    """A blob of a schema olmcat does not model, passed through as compact JSON text."""

    schema: str
    package: str
    name: str
    blob: str


@dataclass(frozen=True, slots=True)
class PackageCatalog:
    """Everything one package contributes to a catalog: the unit readers stream."""

    package: Package
    channels: tuple[Channel, ...] = ()
    bundles: tuple[Bundle, ...] = ()
    deprecations: tuple[Deprecation, ...] = ()
    others: tuple[Meta, ...] = ()

    @property
    def name(self) -> str:
        return self.package.name

    def channel(self, name: str) -> Channel | None:
        for channel in self.channels:
            if channel.name == name:
                return channel
        return None

    def bundle(self, name: str) -> Bundle | None:
        for bundle in self.bundles:
            if bundle.name == name:
                return bundle
        return None

    def deprecated_names(self) -> tuple[bool, set[str], set[str]]:
        """(package deprecated, deprecated channels, deprecated bundles) from olm.deprecations and
        the legacy ``olm.deprecated`` bundle property."""
        package = False
        channels: set[str] = set()
        bundles = {b.name for b in self.bundles if b.properties_of(TYPE_DEPRECATED)}
        for deprecation in self.deprecations:
            for entry in deprecation.entries:
                if entry.schema == SCHEMA_PACKAGE:
                    package = True
                elif entry.schema == SCHEMA_CHANNEL:
                    channels.add(entry.name)
                elif entry.schema == SCHEMA_BUNDLE:
                    bundles.add(entry.name)
        return package, channels, bundles


@dataclass(slots=True)
class CatalogStats:
    """Counts gathered while a catalog streams through a writer."""

    packages: int = 0
    channels: int = 0
    bundles: int = 0
    deprecations: int = 0
    others: int = 0
    skipped: list[str] = field(default_factory=list)

    def add(self, pkg: PackageCatalog) -> None:
        self.packages += 1
        self.channels += len(pkg.channels)
        self.bundles += len(pkg.bundles)
        self.deprecations += len(pkg.deprecations)
        self.others += len(pkg.others)


def counted(packages: Iterable[PackageCatalog], stats: CatalogStats) -> Iterator[PackageCatalog]:
    """Pass packages through, counting them into ``stats``."""
    for pkg in packages:
        stats.add(pkg)
        yield pkg
