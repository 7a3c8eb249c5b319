"""The first document of a manifest file, decoded as the legacy loader's Go code decodes it.

The ``initializer`` opens every file with Kubernetes' ``NewYAMLOrJSONDecoder(file, 30)`` and calls
``Decode`` once, so only the first document counts, and "first" has Go's meaning:

* a file whose first 30 bytes start (after whitespace) with ``{`` is JSON: the first JSON value;
* otherwise it is YAML split at lines starting with ``---`` (only a comment may follow the
  dashes): the text up to the first such line that has something before it. A file starting with
  a comment or a blank line and then ``---`` therefore has a first document holding only that
  comment, which decodes to nothing; CR LF line ends become LF.

The YAML text is parsed (yaml.v2 rules, see :mod:`olmcat.files.yaml`) and converted to JSON as
``sigs.k8s.io/yaml`` does: map keys become strings (a float key is printed as a float32), values
that JSON cannot hold (infinities, NaN, null keys) fail the whole file. Decoding into an
``Unstructured`` object then needs a mapping with a non-empty string ``kind``; decoding into the
loader's ``PackageManifest`` struct first turns numbers and booleans that land in string fields
into strings (``sigs.k8s.io/yaml`` does that for typed targets) and fails on any other mismatch.
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from olmcat.errors import InputError
from olmcat.files import json as jsonio
from olmcat.files import safe
from olmcat.files import yaml as goyaml
from olmcat.files.yaml import GoLoader
from olmcat.go.json import RawNumber, go_float
from olmcat.go.typed import decode_error
from olmcat.notices import discard

JSON_SNIFF_BYTES = 30
_INT64 = range(-(2**63), 2**63)
_INTEGER = re.compile(r"-?[0-9]+")
# unicode.IsSpace: what bytes.TrimLeftFunc skips before looking for "{".
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000")
)


class NotDecodable(Exception):
    """Go's decoder fails on the file's first document (the message says why)."""


# -- yaml.v2's plain scalars ----------------------------------------------------------------------

_GO_SCALAR_TAG = "tag:olmcat,2024:yaml.v2-plain-scalar"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_V2_WORDS: dict[str, Any] = {
    **dict.fromkeys(["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE"], True),
    **dict.fromkeys(["on", "On", "ON"], True),
    **dict.fromkeys(["n", "N", "no", "No", "NO", "false", "False", "FALSE"], False),
    **dict.fromkeys(["off", "Off", "OFF"], False),
    **dict.fromkeys(["", "~", "null", "Null", "NULL"], None),
    **dict.fromkeys([".nan", ".NaN", ".NAN"], math.nan),
    **dict.fromkeys([".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"], math.inf),
    **dict.fromkeys(["-.inf", "-.Inf", "-.INF"], -math.inf),
}
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_GO_DECIMAL_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_PREFIXES = {"0x": 16, "0X": 16, "0o": 8, "0O": 8, "0b": 2, "0B": 2}


def _go_parse_int(text: str) -> int | None:
    """``strconv.ParseInt(text, 0, 64)`` (underscores already removed), or None."""
    sign, digits = (-1, text[1:]) if text[:1] == "-" else (1, text[1:] if text[:1] == "+" else text)
    base = 10
    if digits[:2] in _PREFIXES:
        base, digits = _PREFIXES[digits[:2]], digits[2:]
    elif len(digits) > 1 and digits[0] == "0":
        base, digits = 8, digits[1:]
    if not digits:
        return None
    try:
        value = sign * int(digits, base)
    except ValueError:
        return None
    if not digits.isascii() or not digits.isalnum():
        return None
    return value if -(2**63) <= value < 2**63 else None


def _go_parse_uint(text: str) -> int | None:
    if text[:1] in "+-":
        return None
    value = _go_parse_int("+" + text) if text else None
    if value is not None:
        return value
    digits, base = text, 10
    if digits[:2] in _PREFIXES:
        base, digits = _PREFIXES[digits[:2]], digits[2:]
    elif len(digits) > 1 and digits[0] == "0":
        base, digits = 8, digits[1:]
    try:
        parsed = int(digits, base) if digits and digits.isascii() and digits.isalnum() else -1
    except ValueError:
        return None
    return parsed if 0 <= parsed < 2**64 else None


def _go_parse_float(text: str) -> float | None:
    """``strconv.ParseFloat(text, 64)`` for decimal text; None on a syntax or range error."""
    if not _GO_DECIMAL_FLOAT.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def v2_scalar(text: str) -> Any:
    """What yaml.v2 makes of a plain (unquoted) scalar: its YAML 1.1 booleans (``y``, ``on``,
    ...), nulls, numbers in Go's syntax (``0o17``, ``1e3``, ``08`` is a float), else the text."""
    if text in _V2_WORDS:
        return _V2_WORDS[text]
    first = text[0]
    if first == ".":
        value = _go_parse_float(text)
        return text if value is None else value
    if first not in "+-0123456789":
        return text
    plain = text.replace("_", "")
    for parse in (_go_parse_int, _go_parse_uint):
        number = parse(plain)
        if number is not None:
            return number
    if _YAML_STYLE_FLOAT.fullmatch(plain):
        value = _go_parse_float(plain)
        if value is not None:
            return value
    return text


class V2Loader(GoLoader):
    """The libyaml parser with yaml.v2's resolution of plain scalars; map keys are turned into
    the strings sigs.k8s.io/yaml makes of them as they are read (so ``true`` and ``1`` stay two
    keys, as in Go, instead of colliding in a Python dict)."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode and implicit[0] and value != "<<":
            return _GO_SCALAR_TAG
        return super().resolve(kind, value, implicit)

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[str, Any]:
        if isinstance(node, yaml.MappingNode):
            self.flatten_mapping(node)
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, list | dict):
                raise NotDecodable(f"unsupported map key of type {type(key).__name__}")
            mapping[_key(key)] = self.construct_object(value_node, deep=deep)
        return mapping


# Plain texts v2_scalar may change: numbers, .inf / .nan, ~ (by their first character) and the
# words of _V2_WORDS; any other plain text is a string.
_V2_FIRST = frozenset("+-.0123456789~")
_V2_SPECIAL = (_V2_FIRST, frozenset(w for w in _V2_WORDS if w[:1] not in _V2_FIRST))


def _view_scalar(text: str) -> Any:
    """``_to_json(v2_scalar(text))``: a plain scalar as Go's JSON view holds it."""
    value = v2_scalar(text)
    if value is None or type(value) is str or type(value) is bool:
        return value
    if type(value) is float and not math.isfinite(value):
        raise goyaml.NotPlain  # decoding fails on it later, from the loader's value
    return _normal_number(value)


def _view_key(text: str) -> str:
    return _key(v2_scalar(text))


class V2StrictLoader(V2Loader):
    """:class:`V2Loader` refusing a key given twice in one mapping (yaml.v2's UnmarshalStrict)."""

    duplicate_keys_refused = True


def _construct_go_scalar(loader: V2Loader, node: yaml.ScalarNode) -> Any:
    return v2_scalar(loader.construct_scalar(node))


V2Loader.add_constructor(_GO_SCALAR_TAG, _construct_go_scalar)


def is_json(data: bytes) -> bool:
    """``GuessJSONStream``: the first 30 bytes, leading whitespace dropped, start with ``{``."""
    head = data[:JSON_SNIFF_BYTES].decode("utf-8", errors="replace")
    return head.lstrip(_GO_SPACE).startswith("{")


def yaml_chunks(data: bytes) -> Iterator[bytes]:
    """The documents ``YAMLReader.Read`` returns one after the other (the first is what a single
    ``Decode`` sees). Raises NotDecodable at a ``---`` line followed by anything but a comment."""
    buffer: list[bytes] = []
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for raw in lines:
        line = raw[:-1] if raw.endswith(b"\r") else raw
        if line.startswith(b"---"):
            _check_separator(line)
            if buffer:
                yield b"".join(buffer)
                buffer = []
        buffer.append(line + b"\n")
    if buffer:
        yield b"".join(buffer)


def first_yaml_chunk(data: bytes) -> bytes | None:
    """``next(yaml_chunks(data), None)``, without splitting the whole file into lines when it
    has no CR (most files)."""
    if b"\r" in data:
        return next(yaml_chunks(data), None)
    if not data:
        return None
    if data.startswith(b"---"):
        _check_separator(data[: _line_end(data, 0)])
    at = data.find(b"\n---")
    if at < 0:
        return data if data.endswith(b"\n") else data + b"\n"
    _check_separator(data[at + 1 : _line_end(data, at + 1)])
    return data[: at + 1]


def _line_end(data: bytes, start: int) -> int:
    end = data.find(b"\n", start)
    return len(data) if end < 0 else end


def _check_separator(line: bytes) -> None:
    rest = line[3:].decode("utf-8", errors="replace").strip(_GO_SPACE)
    if rest and not rest.startswith("#"):
        raise NotDecodable(f"invalid YAML document separator: {rest[:40]}")


@dataclass(frozen=True, slots=True)
class FirstDocument:
    """The first document: ``raw`` as yaml.v2 / encoding/json produced it (YAML scalars keep
    their type), ``fmt`` is ``json`` or ``yaml``. Absent (empty file) when ``empty``.

    A YAML document built straight from the parser's events (``view``) holds what
    ``sigs.k8s.io/yaml`` makes of it already (the untyped JSON view); ``source`` is its text,
    for the rare typed decode that needs the YAML values themselves."""

    raw: Any
    fmt: str
    empty: bool = False
    view: bool = False
    source: bytes = b""


def first_document(data: bytes, where: str = "<document>") -> FirstDocument:
    """Parse the first document of a file as the YAML-or-JSON decoder sees it; ``where`` (the
    file) names it in the notices the YAML loader reports (duplicate keys, ...)."""
    if is_json(data):
        text = data.decode("utf-8", errors="replace").lstrip(" \t\r\n")
        try:
            value, _ = jsonio.raw_decode_deep(_JSON, text)
        except ValueError as exc:
            raise NotDecodable(f"not valid JSON: {exc}") from None
        except RecursionError:
            raise NotDecodable(_too_deep()) from None
        limit = safe.limits().max_depth
        if jsonio.depth(value, limit) > limit:
            raise NotDecodable(_too_deep())
        return FirstDocument(value, "json")
    chunk = first_yaml_chunk(data)
    if chunk is None:
        return FirstDocument(None, "yaml", empty=True)  # Go: EOF
    try:
        # Bounded as every YAML olmcat reads: depth before parsing, alias expansion. Most
        # documents are built from parser events into Go's JSON view in one pass; the others
        # (anchors, tags, merge keys, ...) go through the full loader.
        value, view = goyaml.first_built_or_loaded(
            V2Loader,
            chunk,
            where=where,
            scalar=_view_scalar,
            key=_view_key,
            special=_V2_SPECIAL,
        )
    except InputError as exc:
        raise NotDecodable(str(exc).removeprefix(f"{where}: ")) from None
    except yaml.YAMLError as exc:
        raise NotDecodable(f"not valid YAML: {str(exc).splitlines()[0]}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise NotDecodable(f"not valid YAML: {exc}") from None
    return FirstDocument(value, "yaml", view=view, source=chunk if view else b"")


def _loaded(document: FirstDocument) -> Any:
    """A built document's YAML values, as the full loader gives them (its notices were sent
    when the document was first read)."""
    with safe.notices_to(discard):
        return next(goyaml.load_all_with(V2Loader, document.source, where="<document>"), None)


def _too_deep() -> str:
    return (
        f"nested deeper than {safe.limits().max_depth} levels; refusing to read it (raise the "
        "limit with --max-depth if the document is genuine)"
    )


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json_int(text: str) -> Any:
    return _normal_number(int(text))


def _json_float(text: str) -> Any:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text} is out of range")
    return _normal_number(value)


_JSON = json.JSONDecoder(
    parse_float=_json_float, parse_int=_json_int, parse_constant=_reject_constant
)


def _normal_number(value: int | float) -> int | RawNumber:
    """A number as Kubernetes' decoder holds it after the JSON round trip: an int64 when its
    text is an integer, else a float64 (kept as Go's text of it)."""
    if isinstance(value, int) and value in _INT64:
        return value
    if isinstance(value, int):
        value = float(value)
    if not math.isfinite(value):
        raise NotDecodable("json: unsupported value: a non-finite number")
    text = go_float(value)
    return int(text) if _INTEGER.fullmatch(text) else RawNumber(text)


def unstructured(document: FirstDocument) -> dict[str, Any]:
    """Decode into ``unstructured.Unstructured``: a mapping with a non-empty string ``kind``.

    Values are JSON-normalized (string keys, int64 or float64 numbers)."""
    if document.empty:
        raise NotDecodable("the file is empty")
    value = _to_json(document.raw) if document.fmt == "yaml" and not document.view else document.raw
    if not isinstance(value, dict):
        raise NotDecodable(f"the first document is not a mapping ({_json_kind(value)})")
    kind = value.get("kind")
    if not isinstance(kind, str) or not kind:
        raise NotDecodable("the first document has no kind")
    return value


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str) and not isinstance(value, RawNumber):
        return "string"
    if isinstance(value, list):
        return "list"
    return "number"


def _to_json(value: Any, target: Any = None) -> Any:
    """``sigs.k8s.io/yaml``'s YAML-to-JSON conversion (``target`` is the typed struct layout the
    JSON will be decoded into, for its string coercion; None for untyped maps)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = _key(key)
            out[name] = _to_json(item, _field_target(target, name))
        return out
    if isinstance(value, list):
        element = target[2:] if isinstance(target, str) and target.startswith("[]") else None
        return [_to_json(item, element) for item in value]
    if target == "string" and not isinstance(value, str) and value is not None:
        return _as_string(value)
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return _normal_number(value)
    return str(value)  # yaml.v2 has no other scalar types; binary data arrives as text


def yaml_to_json(value: Any) -> Any:
    """``sigs.k8s.io/yaml``'s conversion of a :class:`V2Loader` document into JSON values for an
    untyped target (``interface{}``, ``json.RawMessage``); NotDecodable where Go fails."""
    return _to_json(value)


def _as_string(value: Any) -> Any:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float32_g(value)
    return value


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        if math.isinf(key):
            return ".inf" if key > 0 else "-.inf"
        if math.isnan(key):
            return ".nan"
        return format_float32_g(key)
    raise NotDecodable(f"unsupported map key {key!r}")


_PACKAGE_MANIFEST = {
    "packagename": "string",
    "defaultchannel": "string",
    "channels": "[]registry.PackageChannel",
}
_PACKAGE_CHANNEL = {"name": "string", "currentcsv": "string"}


def _field_target(target: Any, name: str) -> Any:
    if target == "registry.PackageManifest":
        return _PACKAGE_MANIFEST.get(name.lower())
    if target == "registry.PackageChannel":
        return _PACKAGE_CHANNEL.get(name.lower())
    return None


def format_float32_g(value: float) -> str:
    """``strconv.FormatFloat(value, 'g', -1, 32)``: the shortest digits that read back as the
    same float32, in %e form when the exponent is below -4 or at least 6."""
    try:
        single = struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return "+Inf" if value > 0 else "-Inf"
    if not math.isfinite(single):  # infinite, NaN, or beyond float32's range
        return "NaN" if math.isnan(single) else "+Inf" if single > 0 else "-Inf"
    if single == 0:
        return "-0" if math.copysign(1.0, single) < 0 else "0"
    for precision in range(1, 10):
        text = f"{single:.{precision - 1}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            break
    mantissa, _, exponent_text = text.partition("e")
    negative = mantissa.startswith("-")
    digits = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    exponent = int(exponent_text)
    sign = "-" if negative else ""
    if exponent < -4 or exponent >= 6:
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{body}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    point = exponent + 1  # digits before the decimal point
    if point <= 0:
        return f"{sign}0." + "0" * -point + digits
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


@dataclass(frozen=True, slots=True)
class PackageManifest:
    """The loader's ``registry.PackageManifest``: what a file holds when decoded into it."""

    package_name: str
    channels: tuple[tuple[str, str], ...]  # (name, currentCSV) in file order
    default_channel: str


def package_manifest(document: FirstDocument) -> PackageManifest:
    """Decode into ``registry.PackageManifest`` as ``LoadPackagesWalkFunc`` does (any file may be
    one; most decode to an empty packageName). Raises NotDecodable where Go's decode fails."""
    if document.empty:
        raise NotDecodable("EOF (the file is empty)")
    if document.fmt == "yaml":
        if not document.view:
            value = _to_json(document.raw, "registry.PackageManifest")
        elif _coerced_fields(document.raw):
            value = _to_json(_loaded(document), "registry.PackageManifest")
        else:
            value = document.raw  # the typed decode would change nothing
        ordered = sorted(value.items()) if isinstance(value, dict) else None  # a Go map
    else:
        value = document.raw
        ordered = list(value.items()) if isinstance(value, dict) else None
    problem = decode_error(value, "registry.PackageManifest", "json")
    if problem is not None:
        raise NotDecodable(f"cannot decode it into a package manifest: {problem}")
    if ordered is None:
        return PackageManifest("", (), "")
    fields = _fold(ordered)
    channels = []
    for channel in fields.get("channels") or []:
        channel_fields = _fold(list(channel.items()) if isinstance(channel, dict) else [])
        channels.append((channel_fields.get("name") or "", channel_fields.get("currentcsv") or ""))
    return PackageManifest(
        fields.get("packagename") or "", tuple(channels), fields.get("defaultchannel") or ""
    )


def _coerced_fields(view: Any) -> bool:
    """Does a JSON view hold a number or boolean in a string field of ``PackageManifest``? Then
    the typed decode turns the YAML value (not its JSON form) into a string."""
    if type(view) is not dict:
        return False
    for key, value in view.items():
        folded = key.lower()
        if folded in ("packagename", "defaultchannel") and _scalar_not_string(value):
            return True
        if folded == "channels" and type(value) is list:
            for channel in value:
                if type(channel) is dict and any(
                    k.lower() in ("name", "currentcsv") and _scalar_not_string(v)
                    for k, v in channel.items()
                ):
                    return True
    return False


def _scalar_not_string(value: Any) -> bool:
    return type(value) is bool or type(value) is int or type(value) is RawNumber


def _fold(items: list[tuple[str, Any]]) -> dict[str, Any]:
    """Field values by lower-cased name; a later key wins, as in Go's decoder. Null leaves the
    field as it was."""
    out: dict[str, Any] = {}
    for key, item in items:
        if item is not None:
            out[key.lower()] = item
    return out
