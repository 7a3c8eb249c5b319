"""The legacy registry's upgrade-graph bookkeeping, shared by the SQLite and directory readers.

The legacy loaders stored a package's graph as ``channel_entry`` rows: one row per edge into a
bundle, pointing at the row of the bundle it replaces. opm turns those rows back into channel
entries (``listBundlesQuery``): starting from the rows of minimal depth (the channel heads) it
follows ``replaces`` pointers; the bundle those chains reach from a row is its ``replaces``, every
other pointer out of the bundle's rows is a ``skips`` entry.

The directory readers build the same rows in memory exactly as the loader's
``addPackageChannels`` inserted them, and run the same conversion, so a package-manifest tree
migrates to what ``initializer`` + ``opm migrate`` produce.
"""

from __future__ import annotations

import base64
import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from olmcat.errors import InputError, ValidationError
from olmcat.go import json as gojson
from olmcat.go.sort import sort_slice
from olmcat.go.typed import decode_error
from olmcat.model import (
    Bundle,
    Channel,
    ChannelEntry,
    Icon,
    PackageCatalog,
    RelatedImage,
    manifests,
)
from olmcat.model import property as prop
from olmcat.model.property import Property
from olmcat.notices import Notice, NoticeSink


@dataclass(slots=True)
class EntryRow:
    """One ``channel_entry`` row."""

    entry_id: int
    channel: str
    bundle: str
    replaces: int | None  # entry_id of the row of the replaced bundle
    depth: int | None


def channel_entries(
    rows: Iterable[EntryRow],
    tip: int | None,
    known: Callable[[str], bool],
    skip_range: Callable[[str], str],
) -> dict[str, list[ChannelEntry]]:
    """Channel entries per channel, for the bundles ``known`` accepts, sorted by bundle name.

    ``tip`` is the minimal depth over the whole database (opm computes it globally).
    """
    rows = list(rows)
    by_id = {row.entry_id: row for row in rows}
    on_chain: set[int] = set()
    frontier = [row.entry_id for row in rows if tip is not None and row.depth == tip]
    while frontier:
        entry_id = frontier.pop()
        if entry_id in on_chain:
            continue
        on_chain.add(entry_id)
        target = by_id[entry_id].replaces if entry_id in by_id else None
        if target is not None:
            frontier.append(target)

    grouped: dict[str, dict[str, list[EntryRow]]] = defaultdict(lambda: defaultdict(list))
    for row in sorted(rows, key=lambda r: r.entry_id):
        grouped[row.channel][row.bundle].append(row)

    out: dict[str, list[ChannelEntry]] = {}
    for channel, bundles in grouped.items():
        entries = []
        for bundle, bundle_rows in sorted(bundles.items()):
            if not known(bundle):
                continue
            pointers = [
                (r.entry_id in on_chain, by_id[r.replaces].bundle)
                for r in bundle_rows
                if r.replaces in by_id
            ]
            replaced = [name for chained, name in pointers if chained]
            entries.append(
                ChannelEntry(
                    name=bundle,
                    replaces=max(replaced) if replaced else "",
                    skips=tuple(name for chained, name in pointers if not chained),
                    skip_range=skip_range(bundle),
                )
            )
        out[channel] = entries
    return out


@dataclass(frozen=True, slots=True)
class GraphBundle:
    """What the loader reads of a bundle to lay out its channel rows."""

    name: str
    replaces: str
    skips: tuple[str, ...]


class ChannelRowBuilder:
    """Builds ``channel_entry`` rows the way ``addPackageChannels`` inserted them."""

    START_DEPTH = 0

    def __init__(self, bundles: dict[str, GraphBundle]) -> None:
        self.bundles = bundles
        self.rows: list[EntryRow] = []
        # Bundles visited on a replaces chain: the loader gave each an olm.package property.
        self.reached: set[str] = set()

    def _insert(self, channel: str, bundle: str, depth: int) -> EntryRow:
        row = EntryRow(len(self.rows) + 1, channel, bundle, None, depth)
        self.rows.append(row)
        return row

    def add_channel(self, channel: str, head: str) -> list[str]:
        """Insert the rows of one channel; returns the loader's errors for it (if any)."""
        errors: list[str] = []
        current = self._insert(channel, head, self.START_DEPTH)
        name = head
        depth = self.START_DEPTH + 1
        visited = {head}
        while True:
            bundle = self.bundles.get(name)
            if bundle is None:
                errors.append(f"channel {channel!r}: bundle {name!r} does not exist")
                break
            self.reached.add(name)
            for skip in bundle.skips:
                skipped = self._insert(channel, skip, depth)
                synthesized = self._insert(channel, name, depth)
                synthesized.replaces = skipped.entry_id
                depth += 1
            if not bundle.replaces:
                break
            replaced = self._insert(channel, bundle.replaces, depth)
            if bundle.replaces in visited:
                errors.append(f"channel {channel!r}: cycle, {name} replaces {bundle.replaces}")
                break
            visited.add(bundle.replaces)
            current.replaces = replaced.entry_id
            if bundle.replaces not in self.bundles:
                errors.append(
                    f"channel {channel!r}: {name} replaces {bundle.replaces!r}, "
                    "which does not exist"
                )
                break
            current, name = replaced, bundle.replaces
            depth += 1
        return errors


@dataclass(slots=True)
class StoredBundle:
    """A bundle as the legacy registry stored it (operatorbundle, properties, dependencies and
    related_image rows)."""

    name: str
    package: str
    version: str
    image: str
    properties: list[Property]
    dependencies: list[tuple[str, str]]  # (type, raw JSON value)
    manifests: list[str]  # raw JSON documents, in stored order
    csv: dict[str, Any] | None
    images: list[str]  # related_image rows


def _json_object(raw: str, what: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise InputError(f"{what} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise InputError(f"{what} must be a JSON object")
    return value


def _gvk(raw: str, what: str) -> prop.GVK:
    value = _json_object(raw, f"{what} GVK")
    return prop.GVK(
        manifests.as_str(value.get("group")),
        manifests.as_str(value.get("kind")),
        manifests.as_str(value.get("version")),
    )


def stored_bundle(bundle: StoredBundle, where: str, notify: NoticeSink | None = None) -> Bundle:
    """The olm.bundle opm makes of a stored bundle (``ConvertAPIBundleToModelBundle`` + render).

    ``olm.gvk`` properties and GVK dependencies are rebuilt (struct field order, unknown fields
    dropped), package dependencies become ``olm.package.required``, other dependency types are
    dropped, an ``olm.package`` property is added when none is stored, and every manifest becomes
    an ``olm.bundle.object``. Related images: the CSV's relatedImages (with names) followed by
    every other stored image, sorted by image.
    """
    out: list[Property] = []
    provided: set[prop.GVK] = set()
    required: set[prop.GVK] = set()
    has_package = False
    for p in bundle.properties:
        if p.type == prop.TYPE_GVK:
            provided.add(_gvk(p.value, where))
        else:
            has_package = has_package or p.type == prop.TYPE_PACKAGE
            out.append(p)
    for type_, raw in bundle.dependencies:
        if type_ == prop.TYPE_GVK:
            required.add(_gvk(raw, where))
        elif type_ == prop.TYPE_PACKAGE:
            value = _json_object(raw, f"{where} dependency {type_}")
            out.append(
                prop.package_required(
                    manifests.as_str(value.get("packageName")),
                    manifests.as_str(value.get("version")),
                )
            )
        elif notify is not None:
            notify(
                Notice(
                    "legacy.dependency-dropped",
                    f"{where}: dependency of type {type_!r} left out, as opm migrate leaves out "
                    "every dependency but olm.gvk and olm.package",
                    "info",
                    package=bundle.package,
                    bundle=bundle.name,
                )
            )
    if not has_package:
        out.append(prop.package(bundle.package, bundle.version))
    out.extend(prop.gvk(g.group, g.version, g.kind) for g in provided)
    out.extend(prop.gvk_required(g.group, g.version, g.kind) for g in required)
    out.extend(prop.bundle_object(raw.encode()) for raw in bundle.manifests)

    related = (
        [RelatedImage(n, i) for n, i in manifests.csv_related_images(bundle.csv)]
        if bundle.manifests
        else []
    )
    known = {ri.image for ri in related}
    for image in dict.fromkeys(bundle.images):
        if image not in known:
            related.append(RelatedImage("", image))
    # opm appends the stored images in Go map order, then sorts with Go's unstable sort.Slice;
    # with pdqsort reproduced, ties come out as opm's do whatever that map order was (checked
    # for every permutation on the corpus case that has ties).
    sort_slice(related, lambda x, y: x.image < y.image)
    return Bundle(
        name=bundle.name,
        package=bundle.package,
        image=bundle.image,
        properties=prop.opm_order(out),
        related_images=tuple(related),
    )


def decode_package_icon(
    icon: tuple[str, str] | None, notify: NoticeSink, what: str, *, package: str = ""
) -> Icon | None:
    """The package icon from a CSV's first icon, decoded as opm decodes it (see
    ``manifests.decode_icon``) and re-encoded. opm leaves the icon out when the data is not
    base64 (a warning) or decodes to nothing (the operator-sdk scaffold's empty icon; a note)."""
    if icon is None:
        return None
    data, mediatype = icon
    decoded = manifests.decode_icon(data)
    if decoded is None:
        notify(
            Notice(
                "legacy.icon-invalid",
                f"{what} is not valid base64; the package has no icon",
                package=package,
            )
        )
        return None
    if not decoded:
        notify(
            Notice(
                "legacy.icon-empty",
                f"{what} is empty; the package has no icon, as opm leaves it out",
                "info",
                package=package,
            )
        )
        return None
    return Icon(base64.b64encode(decoded).decode(), mediatype)


def head_icon(
    csv_json: str | None, head: str, where: str, notify: NoticeSink, *, package: str = ""
) -> Icon | None:
    """The package icon as ``opm migrate`` finds it: the default channel head's stored CSV is
    decoded into ``v1alpha1.ClusterServiceVersion`` (a CSV that does not decode, or no CSV,
    makes opm refuse the whole catalog), then its first icon is used."""
    if not csv_json:
        raise ValidationError(
            f"{where}: the default channel head {head!r} has no stored CSV; opm migrate refuses "
            "the catalog"
        )
    try:
        csv = gojson.loads(csv_json)
    except ValueError as exc:
        raise ValidationError(
            f"{where}: the CSV of the default channel head {head!r} is not valid JSON ({exc}); "
            "opm migrate refuses the catalog"
        ) from None
    problem = decode_error(csv, "olm.ClusterServiceVersion")
    if problem is not None:
        raise ValidationError(
            f"{where}: the CSV of the default channel head {head!r} does not decode into a "
            f"ClusterServiceVersion ({problem}); opm migrate refuses the catalog"
        )
    icons = manifests.as_list(_folded(manifests.as_dict(csv).get("spec")).get("icon"))
    if not icons:
        return None
    first = _folded(icons[0])
    icon = (manifests.as_str(first.get("base64data")), manifests.as_str(first.get("mediatype")))
    return decode_package_icon(icon, notify, f"{where}: icon of bundle {head!r}", package=package)


def _folded(value: Any) -> dict[str, Any]:
    """An object's fields as Go's decoder assigns them to a struct: names matched ignoring case,
    the last of the (sorted) keys wins, null leaves a field alone."""
    out: dict[str, Any] = {}
    for key, item in sorted(manifests.as_dict(value).items()):
        if item is not None:
            out[key.lower()] = item
    return out


# Property types opm's model parses (alpha/property.Parse), with the struct each decodes into.
_PROPERTY_TYPES = {
    prop.TYPE_PACKAGE: "property.Package",
    prop.TYPE_PACKAGE_REQUIRED: "property.PackageRequired",
    prop.TYPE_GVK: "property.GVK",
    prop.TYPE_GVK_REQUIRED: "property.GVKRequired",
    "olm.channel": "property.Channel",
    prop.TYPE_BUNDLE_OBJECT: "property.File",
}


def check_like_opm(catalog: PackageCatalog, where: str) -> None:
    """Refuse what ``opm migrate`` refuses: its model validation (``model.Validate``) of one
    package. The message names the package, channel or bundle and opm's rule."""
    problems = _opm_model_problems(catalog)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ValidationError(f"{where}: opm migrate refuses the catalog: {problems[0]}{more}")


def _opm_model_problems(catalog: PackageCatalog) -> list[str]:
    problems: list[str] = []
    channels = {c.name: c for c in catalog.channels}
    if catalog.package.default_channel not in channels:
        problems.append("the default channel must be set and be one of the channels")
    if not channels:
        problems.append("a package must contain at least one channel")
    for channel in catalog.channels:
        label = f"channel {channel.name!r}"
        if not channel.name:
            problems.append("a channel name must not be empty")
        if not channel.entries:
            problems.append(f"{label} must contain at least one bundle")
            continue
        problems += [f"{label}: {p}" for p in _replaces_chain_problems(channel)]
        for entry in channel.entries:
            for index, skip in enumerate(entry.skips):
                if not skip:
                    problems.append(f"{label}: bundle {entry.name!r}: skip[{index}] is empty")
    for bundle in catalog.bundles:
        label = f"bundle {bundle.name!r}"
        if not bundle.name:
            problems.append("a bundle name must not be empty")
        packages = 0
        for index, property_ in enumerate(bundle.properties):
            struct = _PROPERTY_TYPES.get(property_.type)
            if struct == "property.File" and _plain_inline_file(property_.value):
                continue  # what prop.bundle_object writes: decodes, no ref
            try:
                value = gojson.loads(property_.value)
            except ValueError:
                problems.append(f"{label}: property {index} ({property_.type}) is not JSON")
                continue
            if struct is not None:
                problem = decode_error(value, struct)
                if problem is None and struct == "property.File":
                    fields = _folded(value)
                    if fields.get("ref") and fields.get("data"):
                        problem = "fields 'ref' and 'data' are mutually exclusive"
                if problem is not None:
                    problems.append(f"{label}: property {index} ({property_.type}): {problem}")
            packages += property_.type == prop.TYPE_PACKAGE
        if packages != 1:
            problems.append(f'{label}: must be exactly one property with type "olm.package"')
        if not bundle.image and not bundle.properties_of(prop.TYPE_BUNDLE_OBJECT):
            problems.append(f"{label}: bundle image must be set")
    return problems


_BASE64_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _plain_inline_file(value: str) -> bool:
    """Whether ``value`` is exactly ``{"data":"<standard padded base64>"}`` -- what every
    reader writes for a manifest (``prop.bundle_object``), most of a catalog's bytes: opm's
    ``property.File`` decodes it (a ``[]byte`` from StdEncoding, no ``ref``), so parsing it and
    decoding the base64 only to learn that can be skipped. Anything else (escapes, other fields,
    line breaks in the base64) returns False and gets the full check."""
    if not (value.startswith('{"data":"') and value.endswith('"}')):
        return False
    data = value[9:-2]
    body = data.rstrip("=")
    return (
        len(data) % 4 == 0
        and len(data) - len(body) <= 2
        and body.isascii()
        and not body.encode().translate(None, _BASE64_ALPHABET)
    )


def _replaces_chain_problems(channel: Channel) -> list[str]:
    """opm's ``validateReplacesChain``: one head, no replaces cycle from it, nothing stranded."""
    incoming: set[str] = set()
    for entry in channel.entries:
        if entry.replaces:
            incoming.add(entry.replaces)
        incoming.update(entry.skips)
    heads = sorted(e.name for e in channel.entries if e.name not in incoming)
    if not heads:
        return ["no channel head found in graph"]
    if len(heads) > 1:
        return [f"multiple channel heads found in graph: {', '.join(heads)}"]
    by_name = {e.name: e for e in channel.entries}
    chain = {heads[0]}
    current = by_name.get(heads[0])
    while current is not None:
        if current.replaces in chain:
            return [f"detected cycle in replaces chain of upgrade graph at {current.replaces}"]
        chain.add(current.replaces)
        current = by_name.get(current.replaces)
    skipped = {s for e in channel.entries for s in e.skips}
    stranded = sorted(set(by_name) - chain - skipped)
    if stranded:
        return [f"channel contains one or more stranded bundles: {', '.join(stranded)}"]
    return []
