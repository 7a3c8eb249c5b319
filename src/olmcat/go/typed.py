"""Would Go's decoder accept this value for that struct? ``encoding/json`` and the unstructured
converter, reproduced as checks.

The legacy loader decodes parts of every CSV and CRD into typed Go structs (``v1.DeploymentSpec``
for operator images, ``apiextensions`` CRDs for provided APIs, ``ObjectMeta`` for annotations) and
rejects the bundle when that fails; ``opm migrate`` decodes the default channel head's CSV into
``v1alpha1.ClusterServiceVersion`` and fails when it cannot. A value fails when its JSON kind does
not fit the field (a number where a string is declared), a number does not fit the integer type,
or a type with its own decoder refuses the text (quantities, int-or-string, RFC 3339 times,
semantic versions, base64 bytes). Unknown fields are ignored, ``null`` fits anything but a
semantic version.

The struct layouts come from :mod:`olmcat.go.k8stypes` (generated from the Go sources) plus the
few small structs operator-registry declares itself (``REGISTRY_TYPES``). Values are parsed
manifests as olmcat reads them: ``int`` for integral numbers, :class:`RawNumber` for the rest.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any, Literal

from olmcat.errors import InputError
from olmcat.go.json import RawNumber
from olmcat.go.k8stypes import TYPES
from olmcat.go.semver import parse_version_tolerant

Mode = Literal["json", "k8s", "converter"]
"""``json``: encoding/json (field names matched ignoring case); ``k8s``: the case-sensitive JSON
decoder of Kubernetes' codecs (CRDs); ``converter``: ``runtime.DefaultUnstructuredConverter``
(``FromUnstructured``: exact names, integral floats fit integers)."""

Struct = tuple[tuple[str, str], ...]

# Structs operator-registry declares for its own partial decoding of a CSV (pkg/registry/csv.go,
# pkg/registry/types.go). "~Name" is an untagged Go field (matched ignoring case).
REGISTRY_TYPES: dict[str, str | Struct] = {
    # ClusterServiceVersion as the loader holds it: metadata typed, spec kept raw.
    "registry.ClusterServiceVersion": (
        ("", "meta.TypeMeta"),
        ("metadata", "meta.ObjectMeta"),
        ("spec", "any"),
    ),
    # GetOperatorImages: spec -> install -> spec -> deployments -> spec (a DeploymentSpec).
    "registry.csvSpec": (("~Install", "registry.strategy"),),
    "registry.strategy": (("strategy", "string"), ("spec", "registry.strategySpec")),
    "registry.strategySpec": (("~Deployments", "[]registry.dep"),),
    "registry.dep": (("~Name", "string"), ("~Spec", "apps.DeploymentSpec")),
    # GetCustomResourceDefintions / GetApiServiceDefinitions.
    "registry.definitions": (
        ("owned", "[]*registry.DefinitionKey"),
        ("required", "[]*registry.DefinitionKey"),
    ),
    "registry.DefinitionKey": (
        ("group", "string"),
        ("kind", "string"),
        ("name", "string"),
        ("version", "string"),
    ),
    "registry.relatedImage": (("name", "string"), ("image", "string")),
    "registry.Property": (("type", "string"), ("value", "any")),
    "registry.LabelProperty": (("label", "string"),),
    "registry.PackageProperty": (("packageName", "string"), ("version", "string")),
    "registry.GVKProperty": (("group", "string"), ("kind", "string"), ("version", "string")),
    "registry.PackageManifest": (
        ("packageName", "string"),
        ("channels", "[]registry.PackageChannel"),
        ("defaultChannel", "string"),
    ),
    "registry.PackageChannel": (("name", "string"), ("currentCSV", "string")),
    # The property values opm's model parses (alpha/property).
    "property.Package": (("packageName", "string"), ("version", "string")),
    "property.PackageRequired": (("packageName", "string"), ("versionRange", "string")),
    "property.GVK": (("group", "string"), ("kind", "string"), ("version", "string")),
    "property.GVKRequired": (("group", "string"), ("kind", "string"), ("version", "string")),
    "property.Channel": (("channelName", "string"), ("priority", "int")),
    "property.File": (("ref", "string"), ("data", "bytes")),
}

_ALL: Mapping[str, str | Struct] = {**TYPES, **REGISTRY_TYPES}

_INT_BITS = {"int": 64, "int8": 8, "int16": 16, "int32": 32, "int64": 64}
_UINT_BITS = {"uint": 64, "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64, "byte": 8}
_FLOAT32_MAX = 3.4028234663852886e38
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_GO_ESCAPED = re.compile('[\x00-\x1f"\\\\<>&\u2028\u2029]')
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + ("\u2028\u2029\u202f\u205f\u3000")
)


# A field path is kept as written while checking and spelled only when a check fails: a
# struct field is its name, a list element its index, a map entry its key in a 1-tuple.
Segment = str | int | tuple[str]


class _Failure(Exception):
    def __init__(self, path: list[Segment], problem: str) -> None:
        super().__init__(problem)
        self.path = path
        self.problem = problem


def _spelled(path: list[Segment]) -> str:
    parts = []
    for segment in path:
        if type(segment) is int:
            parts.append(f"[{segment}]")
        elif type(segment) is tuple:
            parts.append(f"[{segment[0]!r}]")
        else:
            parts.append(f".{segment}")
    return "".join(parts).lstrip(".")


def decode_error(value: Any, type_name: str, mode: Mode = "json", *, root: str = "") -> str | None:
    """Why Go cannot decode ``value`` (parsed JSON) into ``type_name``; None when it can.

    The answer is one line: the field path (starting at ``root``) and the problem, e.g.
    ``spec.template.spec.containers[0].env[0].value: a number where a string is expected``.
    """
    try:
        _check(value, type_name, mode, [root] if root else [])
    except _Failure as failure:
        where = _spelled(failure.path)
        return f"{where}: {failure.problem}" if where else failure.problem
    except RecursionError:
        return "nested too deeply to decode"
    return None


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, RawNumber | int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _fail(path: list[Segment], value: Any, expected: str) -> _Failure:
    return _Failure(list(path), f"{_kind(value)} where {expected} is expected")


def _number_text(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, RawNumber | int | float):
        return None
    return str(value) if not isinstance(value, float) else repr(value)


def _check(value: Any, type_name: str, mode: Mode, path: list[Segment]) -> None:
    pointer = type_name.startswith("*")
    if pointer:
        type_name = type_name[1:]
    if value is None:
        # A null leaves a field as it was, except that a non-pointer value with its own decoder
        # gets to decode it (a semantic version refuses the empty string it then sees).
        if type_name == "semver" and not pointer and mode != "converter":
            raise _Failure(list(path), "null where a semantic version is expected")
        return
    if type_name == "string" and type(value) is str:
        return  # most of any manifest; what _scalar would decide, without the lookups
    declared = _ALL.get(type_name)
    if isinstance(declared, str):
        _check(value, declared, mode, path)
        return
    if isinstance(declared, tuple):
        _struct(value, declared, mode, path)
        return
    if type_name.startswith("[]"):
        if not isinstance(value, list):
            raise _fail(path, value, "an array")
        element = type_name[2:]
        for index, item in enumerate(value):
            if element == "string" and type(item) is str:
                continue
            path.append(index)
            _check(item, element, mode, path)
            path.pop()
        return
    if type_name.startswith("map[string]"):
        if not isinstance(value, dict):
            raise _fail(path, value, "an object")
        element = type_name[len("map[string]") :]
        for key, item in value.items():
            if element == "string" and type(item) is str:
                continue
            path.append((key,))
            _check(item, element, mode, path)
            path.pop()
        return
    _scalar(value, type_name, mode, path)


def _struct(value: Any, fields: Struct, mode: Mode, path: list[Segment]) -> None:
    if not isinstance(value, dict):
        raise _fail(path, value, "an object")
    exact, folded = _field_index(fields, mode)
    for key, item in value.items():
        type_name = exact.get(key)
        if type_name is None and mode == "json":
            type_name = folded.get(key.lower())
        if type_name is None or (type_name == "string" and type(item) is str):
            continue  # unknown fields are ignored; a string in a string field is fine
        path.append(key)
        _check(item, type_name, mode, path)
        path.pop()


_INDEX_CACHE: dict[tuple[int, Mode], tuple[dict[str, str], dict[str, str]]] = {}


def _field_index(fields: Struct, mode: Mode) -> tuple[dict[str, str], dict[str, str]]:
    """JSON name -> type of every field, embedded structs' fields promoted (outer fields win)."""
    cached = _INDEX_CACHE.get((id(fields), mode))
    if cached is not None:
        return cached
    exact: dict[str, str] = {}
    folded: dict[str, str] = {}
    for name, type_name in fields:
        if name == "":
            embedded = _ALL[type_name.lstrip("*")]
            assert isinstance(embedded, tuple)
            inner_exact, inner_folded = _field_index(embedded, mode)
            for key, inner in inner_exact.items():
                exact.setdefault(key, inner)
            for key, inner in inner_folded.items():
                folded.setdefault(key, inner)
            continue
        if name.startswith("~"):
            # An untagged field: encoding/json uses the Go name, the converter lower-cases its
            # first letter.
            name = name[1:] if mode != "converter" else name[1].lower() + name[2:]
        exact[name] = type_name
        folded.setdefault(name.lower(), type_name)
    _INDEX_CACHE[(id(fields), mode)] = (exact, folded)
    return exact, folded


def _scalar(value: Any, type_name: str, mode: Mode, path: list[Segment]) -> None:
    if type_name == "any":
        return
    if type_name == "string":
        if not isinstance(value, str) or isinstance(value, RawNumber):
            raise _fail(path, value, "a string")
        return
    if type_name == "bool":
        if not isinstance(value, bool):
            raise _fail(path, value, "a boolean")
        return
    number = _number_text(value)  # only numbers need it
    if type_name in _INT_BITS or type_name in _UINT_BITS:
        if number is None:
            raise _fail(path, value, f"an integer ({type_name})")
        if mode == "converter":
            # FromUnstructured converts any integral number without a range check.
            if not _integral(number):
                raise _Failure(list(path), f"{number} is not an integer ({type_name})")
            return
        if not _INTEGER.fullmatch(number):
            raise _Failure(list(path), f"{number} is not an integer ({type_name})")
        integer = int(number)
        if type_name in _INT_BITS:
            bits = _INT_BITS[type_name]
            fits = -(2 ** (bits - 1)) <= integer < 2 ** (bits - 1)
        else:
            fits = 0 <= integer < 2 ** _UINT_BITS[type_name]
        if not fits:
            raise _Failure(list(path), f"{number} does not fit {type_name}")
        return
    if type_name in ("float32", "float64"):
        if number is None:
            raise _fail(path, value, f"a number ({type_name})")
        if type_name == "float32" and abs(float(number)) > _FLOAT32_MAX:
            raise _Failure(list(path), f"{number} does not fit float32")
        return
    if type_name == "bytes":
        if not isinstance(value, str) or isinstance(value, RawNumber):
            raise _fail(path, value, "a base64 string")
        if not valid_base64(value):
            raise _Failure(list(path), "not valid base64")
        return
    _custom(value, type_name, number, mode, path)


def _custom(
    value: Any, type_name: str, number: str | None, mode: Mode, path: list[Segment]
) -> None:
    text = value if isinstance(value, str) and not isinstance(value, RawNumber) else None
    if type_name == "quantity":
        raw = number if number is not None else text
        if raw is None or (text is not None and _GO_ESCAPED.search(text)):
            raise _fail(path, value, "a quantity")
        if not valid_quantity(raw.strip(_GO_SPACE)):
            raise _Failure(list(path), f"{raw!r} is not a quantity")
        return
    if type_name == "intorstring":
        if text is not None:
            return
        if number is None:
            raise _fail(path, value, "a string or an integer")
        if not _INTEGER.fullmatch(number) or not -(2**31) <= int(number) < 2**31:
            raise _Failure(list(path), f"{number} is not an int32")
        return
    if type_name == "time":
        if text is None:
            raise _fail(path, value, "an RFC 3339 time string")
        if not valid_rfc3339(text):
            raise _Failure(list(path), f"{text!r} is not an RFC 3339 time")
        return
    if type_name == "semver":
        if text is None:
            raise _fail(path, value, "a semantic version string")
        try:
            parse_version_tolerant(text)
        except InputError:
            raise _Failure(list(path), f"{text!r} is not a semantic version") from None
        return
    kind, _, inner = type_name.partition(":")
    if kind == "schema-or-array":
        if isinstance(value, dict):
            _check(value, inner, "json", path)
        elif isinstance(value, list):
            _check(value, f"[]{inner}", "json", path)
        return
    if kind == "schema-or-bool":
        if isinstance(value, dict):
            _check(value, inner, "json", path)
        elif not isinstance(value, bool):
            raise _fail(path, value, "a boolean or a JSON schema")
        return
    if kind == "schema-or-strings":
        if isinstance(value, dict):
            _check(value, inner, "json", path)
        elif isinstance(value, list):
            _check(value, "[]string", "json", path)
        return
    raise AssertionError(f"unknown Go type {type_name!r}")


def _integral(number: str) -> bool:
    try:
        return float(number).is_integer()
    except (ValueError, OverflowError):
        return False


def valid_base64(text: str) -> bool:
    """Go's ``base64.StdEncoding`` (as encoding/json decodes ``[]byte``): CR and LF are ignored,
    padding is required."""
    try:
        base64.b64decode(text.replace("\r", "").replace("\n", ""), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


_QUANTITY_SUFFIXES = {"", "n", "u", "m", "k", "M", "G", "T", "P", "E"} | {
    "Ki",
    "Mi",
    "Gi",
    "Ti",
    "Pi",
    "Ei",
}
_SUFFIX_CHARS = set("eEinumkKMGTP")
_EXPONENT = re.compile(r"[eE][+-]?[0-9]+")


def valid_quantity(text: str) -> bool:
    """``resource.ParseQuantity``'s grammar: optional sign, digits with an optional fraction (both
    may be empty), then a binary (Ki..Ei) or decimal (n, u, m, k, M..E) suffix or an exponent."""
    if not text:
        return False
    index, end = 0, len(text)
    if text[0] in "+-":
        index += 1
    while index < end and text[index].isdigit() and text[index].isascii():
        index += 1
    if index < end and text[index] == ".":
        index += 1
        while index < end and text[index].isdigit() and text[index].isascii():
            index += 1
    start = index
    while index < end and text[index] in _SUFFIX_CHARS:
        index += 1
    if index < end and text[index] in "+-":
        index += 1
    while index < end and text[index] in "0123456789":
        index += 1
    if index < end:
        return False
    suffix = text[start:]
    return suffix in _QUANTITY_SUFFIXES or bool(_EXPONENT.fullmatch(suffix))


_RFC3339 = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)T(\d\d?):(\d\d):(\d\d)(?:[.,]\d+)?(?:Z|[+-](\d\d):(\d\d))", re.ASCII
)
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def valid_rfc3339(text: str) -> bool:
    """``time.Parse(time.RFC3339, text)`` succeeds (Go accepts a one-digit hour and a fraction of
    a second the layout does not name)."""
    match = _RFC3339.fullmatch(text)
    if not match:
        return False
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    if not 1 <= month <= 12 or hour > 23 or minute > 59 or second > 59:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = 29 if month == 2 and leap else _DAYS[month - 1]
    return 1 <= day <= days
