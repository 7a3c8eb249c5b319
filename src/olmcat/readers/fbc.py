"""Read file-based catalogs (FBC) into the catalog model, one package at a time.

Input: a directory tree (every file that no ``.indexignore`` excludes, as opm loads it), a single
file, or ``-`` for stdin. Files hold a stream of JSON values or ``---``-separated YAML documents.
:mod:`olmcat.readers.fbcscan` finds and parses them (shared with ``olmcat validate``).

Blobs of one package may be spread over many files, so reading is two passes: the scan parses
every file once, checks each blob's envelope, finds duplicates, and spills the blob as compact JSON
to a temporary file, remembering only (package, schema, name, position, offset); the second pass
reads back one package's blobs at a time. Memory therefore holds one document during the first
pass and one package during the second, never the whole catalog.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any

from olmcat.errors import InputError
from olmcat.go import json as gojson
from olmcat.go.typed import valid_base64
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
    Icon,
    Meta,
    Package,
    PackageCatalog,
    RelatedImage,
)
from olmcat.model.property import Property
from olmcat.readers.fbcscan import (
    IGNORE_FILE,
    FbcScan,
    Position,
    catalog_files,
    is_ignored,
    json_type,
)
from olmcat.readers.source import selected

_ignored = is_ignored  # the name the legacy readers import

__all__ = [
    "IGNORE_FILE",
    "BlobFields",
    "FbcCatalog",
    "bundle_blob",
    "catalog_files",
    "channel_blob",
    "deprecations_blob",
    "describe_blob",
    "is_ignored",
    "json_type",
    "package_blob",
]


class FbcCatalog:
    """A file-based catalog on disk (or stdin), read one package at a time.

    The first pass is :class:`~olmcat.readers.fbcscan.FbcScan` in strict mode: the first file,
    document or envelope that opm would refuse raises :class:`InputError` naming its position.
    """

    def __init__(self, source: Path | str) -> None:
        self.source = source
        self._scan = FbcScan(source)
        if self._scan.files == 0:
            self._scan.close()
            raise InputError(f"{source}: no catalog files found (an empty directory)")

    def close(self) -> None:
        self._scan.close()

    def __enter__(self) -> FbcCatalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- pass 2 ---------------------------------------------------------------------------------

    def package_names(self) -> list[str]:
        return sorted(self._scan.by_package)

    def __iter__(self) -> Iterator[PackageCatalog]:
        return self.packages()

    def packages(self, only: Collection[str] | None = None) -> Iterator[PackageCatalog]:
        for name in selected(self.package_names(), only):
            yield self.package(name)

    def package(self, name: str) -> PackageCatalog:
        refs = self._scan.by_package.get(name)
        if not refs:
            raise InputError(f"{self.source}: no package {name!r} in the catalog")
        package: Package | None = None
        channels: list[Channel] = []
        bundles: list[Bundle] = []
        deprecations: list[Deprecation] = []
        others: list[Meta] = []
        for ref in refs:
            blob = self._scan.load(ref)
            fields = BlobFields(_raiser(ref.position), describe_blob(ref.schema, ref.name))
            if ref.schema == SCHEMA_PACKAGE:
                package = package_blob(blob, fields)
            elif ref.schema == SCHEMA_CHANNEL:
                channels.append(channel_blob(blob, fields))
            elif ref.schema == SCHEMA_BUNDLE:
                bundles.append(bundle_blob(blob, fields))
            elif ref.schema == SCHEMA_DEPRECATIONS:
                deprecations.append(deprecations_blob(blob, fields))
            else:
                others.append(Meta(ref.schema, name, ref.name, gojson.encode(blob)))
        if package is None:
            raise InputError(
                f"{refs[0].position}: package {name!r} has blobs but no olm.package blob"
            )
        return PackageCatalog(
            package, tuple(channels), tuple(bundles), tuple(deprecations), tuple(others)
        )

    def global_others(self) -> list[Meta]:
        """Blobs of unknown schemas that belong to no package."""
        return [
            Meta(ref.schema, "", ref.name, gojson.encode(self._scan.load(ref)))
            for ref in self._scan.global_blobs
        ]


def _raiser(where: Position) -> Callable[[str, str], None]:
    def report(rule: str, message: str) -> None:
        raise InputError(f"{where}: {message}")

    return report


def describe_blob(schema: str, name: str) -> str:
    """How messages name a blob: ``olm.bundle "foo.v1"``, ``olm.package``."""
    label = f" {_quote(name)}" if name and schema != SCHEMA_PACKAGE else ""
    return f"{schema}{label}"


# -- blob -> model --------------------------------------------------------------------------------


def _quote(text: str) -> str:
    """Quote a name for a message, keeping the message on one line."""
    return json.dumps(text, ensure_ascii=False)


class BlobFields:
    """Typed access to a blob's fields; every problem goes to ``report(rule, message)``.

    The reader raises on the first report, ``olmcat validate`` collects them all: one conversion
    from blobs to the model serves both."""

    def __init__(self, report: Callable[[str, str], None], what: str) -> None:
        self.report = report
        self.what = what
        self.ok = True

    def bad(self, rule: str, message: str) -> None:
        self.ok = False
        self.report(rule, f"{self.what}: {message}")

    def string(self, blob: dict[str, Any], key: str, at: str = "", required: bool = False) -> str:
        value = blob.get(key)
        label = f"{at}.{key}" if at else key
        if value is None:
            value = ""
        if not isinstance(value, str):
            self.bad(
                "field-type", f"field {_quote(label)} must be a string, got {json_type(value)}"
            )
            return ""
        if required and not value:
            self.bad("required-field", f"field {_quote(label)} is required")
        return value

    def items(self, blob: dict[str, Any], key: str, at: str = "") -> list[Any]:
        value = blob.get(key)
        label = f"{at}.{key}" if at else key
        if value is None:
            return []
        if not isinstance(value, list):
            self.bad("field-type", f"field {_quote(label)} must be a list, got {json_type(value)}")
            return []
        return value

    def obj(self, value: Any, label: str) -> dict[str, Any] | None:
        if not isinstance(value, dict):
            self.bad("field-type", f"{label} must be an object, got {json_type(value)}")
            return None
        return value

    def properties(
        self, blob: dict[str, Any], *, value_required: bool = False
    ) -> tuple[Property, ...]:
        """The blob's properties. opm requires a value only of bundle properties (it parses
        them); elsewhere a missing value is kept as ``null``, which is how opm writes it."""
        out = []
        for index, item in enumerate(self.items(blob, "properties")):
            at = f"properties[{index}]"
            entry = self.obj(item, at)
            if entry is None:
                continue
            type_ = self.string(entry, "type", at)
            if "value" not in entry:
                if value_required:
                    self.bad("required-field", f"{at} ({type_ or 'no type'}) has no value")
                    continue
                out.append(Property(type_, "null"))
                continue
            out.append(Property(type_, gojson.encode(entry["value"])))
        return tuple(out)


def package_blob(blob: dict[str, Any], fields: BlobFields) -> Package:
    icon = None
    raw_icon = blob.get("icon")
    if raw_icon is not None and fields.obj(raw_icon, "field 'icon'") is not None:
        data = fields.string(raw_icon, "base64data", "icon")
        # opm decodes the icon into bytes (encoding/json's base64) and refuses the package
        # ("parse package: illegal base64 data at input byte N").
        if data and not valid_base64(data):
            fields.bad("field-type", "field 'icon.base64data' is not valid base64")
        icon = Icon(data, fields.string(raw_icon, "mediatype", "icon"))
    return Package(
        name=fields.string(blob, "name", required=True),
        default_channel=fields.string(blob, "defaultChannel"),
        icon=icon,
        description=fields.string(blob, "description"),
        properties=fields.properties(blob),
    )


def channel_blob(blob: dict[str, Any], fields: BlobFields) -> Channel:
    entries = []
    for index, item in enumerate(fields.items(blob, "entries")):
        at = f"entries[{index}]"
        entry = fields.obj(item, at)
        if entry is None:
            continue
        skips = fields.items(entry, "skips", at)
        if not all(isinstance(s, str) for s in skips):
            fields.bad("field-type", f"field {_quote(at + '.skips')} must be a list of strings")
            skips = [s for s in skips if isinstance(s, str)]
        entries.append(
            ChannelEntry(
                name=fields.string(entry, "name", at, required=True),
                replaces=fields.string(entry, "replaces", at),
                skips=tuple(skips),
                skip_range=fields.string(entry, "skipRange", at),
            )
        )
    return Channel(
        name=fields.string(blob, "name", required=True),
        package=fields.string(blob, "package", required=True),
        entries=tuple(entries),
        properties=fields.properties(blob),
    )


def bundle_blob(blob: dict[str, Any], fields: BlobFields) -> Bundle:
    related = []
    for index, item in enumerate(fields.items(blob, "relatedImages")):
        at = f"relatedImages[{index}]"
        image = fields.obj(item, at)
        if image is not None:
            related.append(
                RelatedImage(fields.string(image, "name", at), fields.string(image, "image", at))
            )
    return Bundle(
        name=fields.string(blob, "name", required=True),
        package=fields.string(blob, "package", required=True),
        image=fields.string(blob, "image"),
        properties=fields.properties(blob, value_required=True),
        related_images=tuple(related),
    )


def deprecations_blob(blob: dict[str, Any], fields: BlobFields) -> Deprecation:
    entries = []
    for index, item in enumerate(fields.items(blob, "entries")):
        at = f"entries[{index}]"
        entry = fields.obj(item, at)
        if entry is None:
            continue
        reference = fields.obj(entry.get("reference"), f"{at}.reference")
        if reference is None:
            continue
        entries.append(
            DeprecationEntry(
                schema=fields.string(reference, "schema", f"{at}.reference", required=True),
                name=fields.string(reference, "name", f"{at}.reference"),
                message=fields.string(entry, "message", at),
            )
        )
    return Deprecation(
        package=fields.string(blob, "package", required=True), entries=tuple(entries)
    )
