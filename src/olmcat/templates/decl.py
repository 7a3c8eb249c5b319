"""opm's ``declcfg`` as a template renderer sees it: blobs decoded into Go structs and written back.

``opm alpha render-template`` does not copy the blobs of a template: it decodes each into its Go
struct (``declcfg.Package``, ``Channel``, ``Bundle``; since v1.32.0 also ``Deprecation``) and
marshals the struct again, so field order becomes the struct's, unknown fields disappear, field
names match case-insensitively, ``null`` and missing lists are written as ``null``, and an icon is
base64 decoded and re-encoded. Blobs of other schemas pass through as raw JSON (before v1.28.0) or
as a re-encoded map. This module reproduces those decoders and the writer's order
(``writeToEncoder``): packages by name; per package its ``olm.package`` blobs, channels and bundles
each sorted by name with Go's unstable sort, other blobs stable-sorted by schema (since v1.32.0:
then the ``olm.deprecations`` blobs); blobs of no package last, in input order. Which release does
what is asked of the :class:`~olmcat.go.opm.OpmRelease` (``release.has(...)``).
"""

from __future__ import annotations

import base64
import binascii
import json
import json.scanner
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from olmcat.errors import EncodingError, InputError, OutputError
from olmcat.go.json import RawNumber, compact, encode, go_float, go_marshal, go_string
from olmcat.go.opm import OpmRelease
from olmcat.go.sort import sort_slice

OutputFormat = Literal["json", "yaml"]


@dataclass(frozen=True, slots=True)
class Blob:
    """One output blob: its schema, the package it is written under, its name, and its compact
    JSON text exactly as opm marshals it."""

    schema: str
    package: str
    name: str
    text: str


@dataclass(slots=True)
class Config:
    """``declcfg.DeclarativeConfig``: blobs by kind, in the order they were loaded."""

    packages: list[Blob] = field(default_factory=list)
    channels: list[Blob] = field(default_factory=list)
    bundles: list[Blob] = field(default_factory=list)
    deprecations: list[Blob] = field(default_factory=list)
    others: list[Blob] = field(default_factory=list)


# -- decoding a JSON object into a Go struct ------------------------------------------------------


class RawDict(dict[str, Any]):
    """A JSON object that also remembers its raw text and that of each value
    (``json.RawMessage``)."""

    raw: dict[str, str]
    raw_text: str | None = None


class RawList(list[Any]):
    """A JSON array that also remembers the raw text of each element."""

    raw: list[str]


_RAW_DECODER = json.JSONDecoder(parse_float=RawNumber)
_SPACE = " \t\r\n"


def parse_json_raw(text: str, index: int = 0) -> tuple[Any, int]:
    """Decode the JSON value at ``index`` keeping raw value texts (string escapes, number
    spelling, key order) for every object member and array element; returns (value, end)."""
    while index < len(text) and text[index] in _SPACE:
        index += 1
    if index < len(text) and text[index] == "{":
        out = RawDict()
        out.raw = {}
        start = index
        index += 1
        while True:
            while text[index] in _SPACE:
                index += 1
            if text[index] == "}":
                out.raw_text = text[start : index + 1]
                return out, index + 1
            if text[index] == ",":
                index += 1
                continue
            key, index = _RAW_DECODER.raw_decode(text, index)
            while text[index] in _SPACE:
                index += 1
            index += 1  # ':'
            while text[index] in _SPACE:
                index += 1
            value, end = parse_json_raw(text, index)
            out[key] = value  # a repeated key: the last wins, as in Go
            out.raw[key] = text[index:end]
            index = end
    if index < len(text) and text[index] == "[":
        items = RawList()
        items.raw = []
        index += 1
        while True:
            while text[index] in _SPACE:
                index += 1
            if text[index] == "]":
                return items, index + 1
            if text[index] == ",":
                index += 1
                continue
            value, end = parse_json_raw(text, index)
            items.append(value)
            items.raw.append(text[index:end])
            index = end
    value, end = _RAW_DECODER.raw_decode(text, index)
    return value, end


@dataclass(frozen=True, slots=True)
class Source:
    """Where a decoded document came from: JSON keeps raw values as written (compacted on
    output), YAML was converted by sigs.k8s.io/yaml (keys sorted, numbers as Go formats them).
    ``reencoded``: the release decodes every blob into a map and encodes it again before the
    typed decode (``declcfg.Meta`` since v1.28.0), so raw values come out as Go encodes that map
    (keys sorted, numbers as float64, no HTML escaping)."""

    where: str
    from_yaml: bool
    reencoded: bool = False

    def raw(self, value: Any, raw_text: str | None = None) -> str:
        """A ``json.RawMessage`` value as opm writes it (compacted, no HTML escaping)."""
        if self.reencoded:
            return go_marshal(_as_float64(value), escape_html=False)
        if self.from_yaml or raw_text is None:
            return go_marshal(value, escape_html=False) if self.from_yaml else encode(value)
        return compact(raw_text)


def raw_member(container: Any, key: str) -> str | None:
    """The raw text of ``container[key]`` when the container came from JSON text."""
    raw = getattr(container, "raw", None)
    return raw.get(key) if isinstance(raw, dict) else None


def _is_string(value: Any) -> bool:
    return isinstance(value, str) and not isinstance(value, RawNumber)


def _go_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, RawNumber | int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def struct_fields(obj: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """The fields ``json.Unmarshal`` would set: keys matched exactly, else case-insensitively;
    for repeated matches the last one in document order wins."""
    out: dict[str, Any] = {}
    folded = {name.lower(): name for name in names}
    for key, value in obj.items():
        target = key if key in names else folded.get(key.lower())
        if target is not None:
            out[target] = value
    return out


def matched_key(obj: dict[str, Any], name: str, names: Sequence[str]) -> str:
    """The key of ``obj`` that set field ``name`` (the last one mapping to it)."""
    folded = {n.lower(): n for n in names}
    found = ""
    for key in obj:
        if (key if key in names else folded.get(key.lower())) == name:
            found = key
    return found


class Decoder:
    """Typed field access with Go's errors: a value of the wrong JSON type is refused."""

    def __init__(self, source: Source, what: str) -> None:
        self.source = source
        self.what = what

    def fail(self, message: str) -> InputError:
        return InputError(f"{self.source.where}: {self.what}: {message}")

    def string(self, fields: dict[str, Any], key: str, at: str = "") -> str:
        value = fields.get(key)
        if value is None:  # null leaves a Go string as it was: empty
            return ""
        if not _is_string(value):
            raise self.fail(
                f"cannot unmarshal {_go_type(value)} into field {at}{key} of type string"
            )
        return str(value)

    def array(self, fields: dict[str, Any], key: str, at: str = "") -> list[Any] | None:
        """None for a missing or null list (a nil slice: written as ``null``)."""
        value = fields.get(key)
        if value is None:
            return None
        if not isinstance(value, list):
            raise self.fail(
                f"cannot unmarshal {_go_type(value)} into field {at}{key} of type array"
            )
        return value

    def obj(self, value: Any, at: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(f"cannot unmarshal {_go_type(value)} into {at} of type object")
        return value

    def properties(self, fields: dict[str, Any], at: str = "") -> str | None:
        """``[]property.Property`` as JSON text; None when empty (``omitempty``)."""
        items = self.array(fields, "properties", at)
        if not items:
            return None
        out = []
        for index, item in enumerate(items):
            where = f"{at}properties[{index}]."
            item = self.obj(item, where[:-1])
            entry = struct_fields(item, ("type", "value"))
            type_ = self.string(entry, "type", where)
            value = entry.get("value")
            raw = raw_member(item, matched_key(item, "value", ("type", "value")))
            text = "null" if value is None else self.source.raw(value, raw)
            out.append(f'{{"type":{go_string(type_)},"value":{text}}}')
        return "[" + ",".join(out) + "]"


def _icon_text(decoder: Decoder, value: Any) -> str | None:
    if value is None:
        return None
    icon = struct_fields(decoder.obj(value, "icon"), ("base64data", "mediatype"))
    data = icon.get("base64data")
    if data is None:
        data_text = "null"  # a nil []byte
    elif not _is_string(data):
        raise decoder.fail(f"cannot unmarshal {_go_type(data)} into icon.base64data of []byte")
    else:
        # Go's StdEncoding skips CR and LF and needs padding; the bytes are re-encoded on output.
        cleaned = str(data).replace("\r", "").replace("\n", "")
        try:
            decoded = base64.b64decode(cleaned, validate=True)
        except (binascii.Error, ValueError):
            raise decoder.fail("icon.base64data: illegal base64 data") from None
        data_text = go_string(base64.b64encode(decoded).decode())
    mediatype = decoder.string(icon, "mediatype", "icon.")
    return f'{{"base64data":{data_text},"mediatype":{go_string(mediatype)}}}'


def package_blob(doc: dict[str, Any], source: Source) -> Blob:
    decoder = Decoder(source, "olm.package")
    fields = struct_fields(
        doc, ("schema", "name", "defaultChannel", "icon", "description", "properties")
    )
    name = decoder.string(fields, "name")
    decoder.what = f"olm.package {name!r}"
    parts = [
        f'"schema":{go_string(decoder.string(fields, "schema"))}',
        f'"name":{go_string(name)}',
        f'"defaultChannel":{go_string(decoder.string(fields, "defaultChannel"))}',
    ]
    icon = _icon_text(decoder, fields.get("icon"))
    if icon is not None:
        parts.append(f'"icon":{icon}')
    description = decoder.string(fields, "description")
    if description:
        parts.append(f'"description":{go_string(description)}')
    properties = decoder.properties(fields)
    if properties is not None:
        parts.append(f'"properties":{properties}')
    return Blob("olm.package", name, name, "{" + ",".join(parts) + "}")


def channel_blob(doc: dict[str, Any], source: Source) -> Blob:
    decoder = Decoder(source, "olm.channel")
    fields = struct_fields(doc, ("schema", "name", "package", "entries", "properties"))
    name, package = decoder.string(fields, "name"), decoder.string(fields, "package")
    decoder.what = f"olm.channel {package}/{name}"
    entries = decoder.array(fields, "entries")
    if entries is None:
        entries_text = "null"
    else:
        texts = []
        for index, item in enumerate(entries):
            at = f"entries[{index}]."
            entry = struct_fields(
                decoder.obj(item, at[:-1]), ("name", "replaces", "skips", "skipRange")
            )
            parts = [f'"name":{go_string(decoder.string(entry, "name", at))}']
            replaces = decoder.string(entry, "replaces", at)
            if replaces:
                parts.append(f'"replaces":{go_string(replaces)}')
            skips = decoder.array(entry, "skips", at)
            if skips:
                for skip in skips:
                    if not _is_string(skip):
                        raise decoder.fail(
                            f"cannot unmarshal {_go_type(skip)} into {at}skips of type string"
                        )
                parts.append('"skips":[' + ",".join(go_string(s) for s in skips) + "]")
            skip_range = decoder.string(entry, "skipRange", at)
            if skip_range:
                parts.append(f'"skipRange":{go_string(skip_range)}')
            texts.append("{" + ",".join(parts) + "}")
        entries_text = "[" + ",".join(texts) + "]"
    parts = [
        f'"schema":{go_string(decoder.string(fields, "schema"))}',
        f'"name":{go_string(name)}',
        f'"package":{go_string(package)}',
        f'"entries":{entries_text}',
    ]
    properties = decoder.properties(fields)
    if properties is not None:
        parts.append(f'"properties":{properties}')
    return Blob("olm.channel", package, name, "{" + ",".join(parts) + "}")


@dataclass(frozen=True, slots=True)
class BundleFields:
    """A template's ``olm.bundle`` blob decoded into ``declcfg.Bundle``."""

    schema: str
    name: str
    package: str
    image: str
    properties: str | None
    related_images: str | None

    def is_image_reference(self) -> bool:
        """opm's ``isBundleTemplate``: a schema and an image, no package, properties or
        related images."""
        return bool(
            self.schema
            and self.image
            and not self.package
            and not self.properties
            and not self.related_images
        )

    def text(self, opm: OpmRelease) -> str:
        parts = [f'"schema":{go_string(self.schema)}']
        omitempty = opm.has("encoding-bundle-name-omitempty")
        if self.name or not omitempty:
            parts.append(f'"name":{go_string(self.name)}')
        if self.package or not omitempty:
            parts.append(f'"package":{go_string(self.package)}')
        parts.append(f'"image":{go_string(self.image)}')
        if self.properties is not None:
            parts.append(f'"properties":{self.properties}')
        if self.related_images is not None:
            parts.append(f'"relatedImages":{self.related_images}')
        return "{" + ",".join(parts) + "}"


def bundle_fields(doc: dict[str, Any], source: Source) -> BundleFields:
    decoder = Decoder(source, "olm.bundle")
    fields = struct_fields(
        doc, ("schema", "name", "package", "image", "properties", "relatedImages")
    )
    related = decoder.array(fields, "relatedImages")
    related_text = None
    if related:
        texts = []
        for index, item in enumerate(related):
            at = f"relatedImages[{index}]."
            image = struct_fields(decoder.obj(item, at[:-1]), ("name", "image"))
            texts.append(
                f'{{"name":{go_string(decoder.string(image, "name", at))},'
                f'"image":{go_string(decoder.string(image, "image", at))}}}'
            )
        related_text = "[" + ",".join(texts) + "]"
    return BundleFields(
        schema=decoder.string(fields, "schema"),
        name=decoder.string(fields, "name"),
        package=decoder.string(fields, "package"),
        image=decoder.string(fields, "image"),
        properties=decoder.properties(fields),
        related_images=related_text,
    )


def deprecation_blob(doc: dict[str, Any], source: Source) -> Blob:
    """``declcfg.Deprecation`` (since v1.32.0; before, the blob passes as an unknown schema)."""
    decoder = Decoder(source, "olm.deprecations")
    fields = struct_fields(doc, ("schema", "package", "entries"))
    package = decoder.string(fields, "package")
    decoder.what = f"olm.deprecations of package {package!r}"
    entries = decoder.array(fields, "entries")
    if entries is None:
        entries_text = "null"
    else:
        texts = []
        for index, item in enumerate(entries):
            at = f"entries[{index}]."
            entry = struct_fields(decoder.obj(item, at[:-1]), ("reference", "message"))
            ref_value = entry.get("reference")
            reference = (
                struct_fields(decoder.obj(ref_value, at + "reference"), ("schema", "name"))
                if ref_value is not None
                else {}
            )
            ref_parts = [f'"schema":{go_string(decoder.string(reference, "schema", at))}']
            ref_name = decoder.string(reference, "name", at)
            if ref_name:
                ref_parts.append(f'"name":{go_string(ref_name)}')
            texts.append(
                f'{{"reference":{{{",".join(ref_parts)}}},'
                f'"message":{go_string(decoder.string(entry, "message", at))}}}'
            )
        entries_text = "[" + ",".join(texts) + "]"
    text = (
        f'{{"schema":{go_string(decoder.string(fields, "schema"))},'
        f'"package":{go_string(package)},"entries":{entries_text}}}'
    )
    return Blob("olm.deprecations", package, "", text)


def _as_float64(value: Any) -> Any:
    """Numbers as a ``map[string]interface{}`` holds them: float64."""
    if isinstance(value, dict):
        return {k: _as_float64(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_float64(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, RawNumber | int | float) and not _is_string(value):
        number = float(value)
        return RawNumber(go_float(number))
    return value


def meta_blob(doc: dict[str, Any], source: Source, opm: OpmRelease, schema: str) -> Blob:
    """A blob of a schema the writer does not model (``declcfg.Meta``)."""
    decoder = Decoder(source, f"{schema} blob")
    fields = struct_fields(doc, ("package", "name"))
    package = decoder.string(fields, "package")
    name = fields.get("name") if _is_string(fields.get("name")) else ""
    # Up to v1.27 the raw blob is kept; since v1.28.0 it is decoded into a map and encoded again.
    if not opm.has("encoding-meta-reencoded"):
        text = source.raw(doc, getattr(doc, "raw_text", None))
    else:
        text = go_marshal(_as_float64(doc), escape_html=False)
    return Blob(schema, package, str(name or ""), text)


# -- writing --------------------------------------------------------------------------------------


def ordered(config: Config, opm: OpmRelease) -> Iterator[tuple[str, list[Blob]]]:
    """``(package, blobs)`` in ``writeToEncoder``'s order; package "" holds the blobs of no
    package and comes last."""
    names = sorted(
        {
            b.package
            for group in (
                config.packages,
                config.channels,
                config.bundles,
                config.others,
                config.deprecations,
            )
            for b in group
        }
    )

    def by_package(blobs: Iterable[Blob]) -> dict[str, list[Blob]]:
        grouped: dict[str, list[Blob]] = {}
        for blob in blobs:
            grouped.setdefault(blob.package, []).append(blob)
        return grouped

    packages, channels = by_package(config.packages), by_package(config.channels)
    bundles, others = by_package(config.bundles), by_package(config.others)
    deprecations = by_package(config.deprecations)
    for name in names:
        if not name:
            continue
        out = list(packages.get(name, []))
        group = list(channels.get(name, []))
        sort_slice(group, lambda a, b: a.name < b.name)
        out += group
        group = list(bundles.get(name, []))
        sort_slice(group, lambda a, b: a.name < b.name)
        out += group
        out += sorted(others.get(name, []), key=lambda b: b.schema)  # stable, by schema only
        if opm.has("encoding-deprecations-typed"):
            out += deprecations.get(name, [])
        yield name, out
    root = others.get("", [])
    if root:
        yield "", root


_SURROGATE_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


# Characters Go's JSON encoder writes raw and yaml.v2's reader refuses or folds; a raw value may
# spell them as escapes instead, which yaml.v2 decodes without complaint.
_REREAD_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u(?:00[89][0-9a-fA-F]|007[fF]|[fF]{3}[eEfF])")


def _yaml_document(text: str) -> Iterator[str]:
    """One blob as opm's YAML writer writes it (``render_yaml``, plus escaped specials)."""
    from olmcat.go.yaml import ReadAsIs, dump_document
    from olmcat.writers.fbc import render_yaml

    if not _REREAD_ESCAPE.search(text):
        yield from render_yaml([text])
        return
    decoder = json.JSONDecoder()
    plain = decoder.parse_string  # type: ignore[attr-defined]

    def parse_string(source: str, end: int, strict: bool = True) -> tuple[str, int]:
        value, stop = plain(source, end, strict)
        token = source[end - 1 : stop]
        if _REREAD_ESCAPE.search(token) and not _LITERAL_REREAD.search(token):
            return ReadAsIs(value), stop
        return value, stop

    decoder.parse_string = parse_string  # type: ignore[attr-defined]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    yield dump_document(decoder.decode(text))


_LITERAL_REREAD = re.compile(r"[\x7f-\x9f\ufffe\uffff]")


def render_blobs(blobs: Iterable[Blob], output: OutputFormat) -> Iterator[str]:
    from olmcat.writers.fbc import render_json

    if output == "json":
        yield from render_json(b.text for b in blobs)
        return
    for blob in blobs:
        if _SURROGATE_ESCAPE.search(blob.text):
            # opm's JSON -> YAML step parses the JSON text with yaml.v2, which refuses these.
            raise OutputError(
                f"{blob.schema} {blob.name!r}: cannot be written as YAML: a raw JSON value "
                "holds a UTF-16 surrogate escape (yaml.v2: found invalid Unicode character "
                "escape code)"
            )
        try:
            yield from _yaml_document(blob.text)
        except (ValueError, EncodingError) as exc:  # text yaml.v2 cannot write: opm fails too
            raise OutputError(
                f"{blob.schema} {blob.name!r}: cannot be written as YAML: {exc}"
            ) from None


def write(config: Config, output: OutputFormat, opm: OpmRelease) -> Iterator[str]:
    """The bytes ``declcfg.WriteJSON`` / ``WriteYAML`` write for ``config``."""
    for _, blobs in ordered(config, opm):
        yield from render_blobs(blobs, output)


def load_all_v2(text: str, where: str = "<input>", *, unique_keys: bool = False) -> Iterator[Any]:
    """The documents of a YAML stream as opm's YAML-or-JSON decoder makes them: yaml.v2's
    scalars (``y``, ``1e3``, ``0o17``, ...) converted to JSON values by sigs.k8s.io/yaml, read
    under the same bounds (depth, aliases, size) as every other YAML input; ``unique_keys``
    refuses duplicate mapping keys (yaml.v2's UnmarshalStrict)."""
    from olmcat.files import godecode
    from olmcat.files.yaml import load_all_with

    loader = godecode.V2StrictLoader if unique_keys else godecode.V2Loader
    try:
        for document in load_all_with(loader, text, where=where):
            if document is not None:
                yield godecode.yaml_to_json(document)
    except godecode.NotDecodable as exc:
        raise InputError(f"{where}: {exc}") from None


def loads_documents(
    text: str, where: str, opm: OpmRelease | None = None
) -> Iterator[tuple[dict[str, Any] | Any, Source]]:
    """The documents of a template as the k8s YAML-or-JSON decoder reads them: a stream is JSON
    when it starts with ``{`` (after whitespace), otherwise YAML documents (``opm``: the release
    whose blob decoding applies; None: the oldest)."""
    reencoded = opm is not None and opm.has("encoding-meta-reencoded")
    if text.lstrip(" \t\r\n").startswith("{"):
        source = Source(where, from_yaml=False, reencoded=reencoded)
        if not reencoded:
            # Before v1.28.0 these three are un-escaped in each document's raw text first.
            text = text.replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&")
        index, number = 0, 0
        while True:
            while index < len(text) and text[index] in _SPACE:
                index += 1
            if index >= len(text):
                return
            number += 1
            try:
                doc, end = parse_json_raw(text, index)
            except (ValueError, IndexError):
                raise InputError(f"{where}: document {number} is not valid JSON") from None
            yield doc, source
            index = end
    source = Source(where, from_yaml=True, reencoded=reencoded)
    try:
        documents = list(load_all_v2(text, where))
    except InputError:
        raise  # the bounded loader's one line already names the file
    except Exception as exc:  # yaml errors of libyaml
        raise InputError(f"{where}: not valid YAML: {str(exc).splitlines()[0]}") from None
    for doc in documents:
        yield doc, source


def schema_of(doc: Any, source: Source) -> str:
    """The ``schema`` of a blob (matched case-insensitively, as ``declcfg.Meta`` does)."""
    if not isinstance(doc, dict):
        raise InputError(f"{source.where}: a blob must be an object, got {_go_type(doc)}")
    fields = struct_fields(doc, ("schema", "package"))
    schema = fields.get("schema")
    if schema is None or schema == "":
        raise InputError(
            f"{source.where}: object {json.dumps(doc)[:120]} is missing root schema field"
        )
    if not _is_string(schema):
        raise InputError(f"{source.where}: schema must be a string, got {_go_type(schema)}")
    return str(schema)
