"""Typed helpers for bundle properties (the counterpart of operator-registry's ``alpha/property``).

A :class:`Property` keeps its value as compact JSON *text*: opm passes property values through as
raw JSON, so their key order and string escapes must survive a migration unchanged. Builders
produce the exact text opm's builders produce (struct field order, no HTML escaping); parsers give
typed views for the rest of olmcat.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from olmcat.errors import InputError
from olmcat.go.json import go_string

TYPE_PACKAGE = "olm.package"
TYPE_PACKAGE_REQUIRED = "olm.package.required"
TYPE_GVK = "olm.gvk"
TYPE_GVK_REQUIRED = "olm.gvk.required"
TYPE_BUNDLE_OBJECT = "olm.bundle.object"
TYPE_CSV_METADATA = "olm.csv.metadata"
TYPE_CHANNEL = "olm.channel"
TYPE_SKIPS = "olm.skips"
TYPE_SKIP_RANGE = "olm.skipRange"
TYPE_LABEL = "olm.label"
TYPE_DEPRECATED = "olm.deprecated"
TYPE_CONSTRAINT = "olm.constraint"

# Properties opm moves to the end of a bundle's list, keeping their relative order.
OBJECT_TYPES = frozenset({TYPE_BUNDLE_OBJECT, TYPE_CSV_METADATA})


@dataclass(frozen=True, slots=True, order=True)
class Property:
    """One ``{"type": ..., "value": ...}`` entry; ``value`` is compact JSON text."""

    type: str
    value: str

    def parsed(self) -> Any:
        return json.loads(self.value)


@dataclass(frozen=True, slots=True)
class PackageValue:
    package_name: str
    version: str


@dataclass(frozen=True, slots=True)
class PackageRequiredValue:
    package_name: str
    version_range: str


@dataclass(frozen=True, slots=True, order=True)
class GVK:
    group: str
    kind: str
    version: str


def build(type_: str, fields: list[tuple[str, str]]) -> Property:
    """A property whose value is a JSON object of string fields, in the order given."""
    body = ",".join(f"{go_string(k)}:{go_string(v)}" for k, v in fields)
    return Property(type_, "{" + body + "}")


def package(name: str, version: str, release: str = "") -> Property:
    """``olm.package``; ``release`` (opm v1.62 and later) is left out when empty."""
    fields = [("packageName", name), ("version", version)]
    return build(TYPE_PACKAGE, [*fields, ("release", release)] if release else fields)


def package_required(name: str, version_range: str) -> Property:
    return build(TYPE_PACKAGE_REQUIRED, [("packageName", name), ("versionRange", version_range)])


def gvk(group: str, version: str, kind: str) -> Property:
    return build(TYPE_GVK, [("group", group), ("kind", kind), ("version", version)])


def gvk_required(group: str, version: str, kind: str) -> Property:
    return build(TYPE_GVK_REQUIRED, [("group", group), ("kind", kind), ("version", version)])


def bundle_object(data: bytes) -> Property:
    """``olm.bundle.object`` carrying a manifest inline (base64 of its JSON)."""
    return Property(TYPE_BUNDLE_OBJECT, '{"data":"' + base64.b64encode(data).decode() + '"}')


def _object(prop: Property) -> dict[str, Any]:
    try:
        value = json.loads(prop.value)
    except ValueError as exc:
        raise InputError(f"property {prop.type} value is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise InputError(f"property {prop.type} value must be a JSON object, got {prop.value[:60]}")
    return value


def _string_field(value: dict[str, Any], key: str, prop: Property) -> str:
    field = value.get(key, "")
    if not isinstance(field, str):
        raise InputError(f"property {prop.type} field {key!r} must be a string: {prop.value[:80]}")
    return field


def parse_package(prop: Property) -> PackageValue:
    value = _object(prop)
    return PackageValue(
        _string_field(value, "packageName", prop), _string_field(value, "version", prop)
    )


def parse_package_required(prop: Property) -> PackageRequiredValue:
    value = _object(prop)
    return PackageRequiredValue(
        _string_field(value, "packageName", prop), _string_field(value, "versionRange", prop)
    )


def parse_gvk(prop: Property) -> GVK:
    value = _object(prop)
    return GVK(
        _string_field(value, "group", prop),
        _string_field(value, "kind", prop),
        _string_field(value, "version", prop),
    )


def bundle_object_data(prop: Property) -> bytes | None:
    """The manifest bytes of an inline ``olm.bundle.object``; None for a file reference."""
    value = _object(prop)
    data = value.get("data")
    if not data:
        return None
    if not isinstance(data, str):
        raise InputError(f"property {prop.type} field 'data' must be a base64 string")
    try:
        return base64.b64decode(data, validate=True)
    except ValueError as exc:
        raise InputError(f"property {prop.type} field 'data' is not valid base64: {exc}") from None


def deduplicate(props: list[Property]) -> list[Property]:
    """Drop repeated (type, value) pairs, keeping the first (``property.Deduplicate``)."""
    seen: set[Property] = set()
    out: list[Property] = []
    for prop in props:
        if prop not in seen:
            seen.add(prop)
            out.append(prop)
    return out


def opm_order(props: list[Property]) -> tuple[Property, ...]:
    """The order opm writes a bundle's properties in.

    Deduplicated; everything but manifests sorted by (type, value text); ``olm.bundle.object`` /
    ``olm.csv.metadata`` last, in their original order.
    """
    unique = deduplicate(props)
    others = sorted(p for p in unique if p.type not in OBJECT_TYPES)
    objects = [p for p in unique if p.type in OBJECT_TYPES]
    return (*others, *objects)
