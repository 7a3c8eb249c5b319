"""JSON text exactly as Go's ``encoding/json`` writes it.

opm writes catalogs with ``json.Encoder`` (``SetIndent("", "    ")``, ``SetEscapeHTML(false)``);
property values travel as ``json.RawMessage`` and keep their own string escapes, only compacted and
re-indented. To be byte-identical we therefore keep property values as compact JSON *text* and
re-indent that text the way ``json.Indent`` does, instead of re-encoding parsed values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import Decimal
from json.encoder import encode_basestring as _encode_basestring
from typing import Any

import orjson

from olmcat.errors import InputError

# A JSON token: a string (with escapes), one structural character, or a run of literal characters
# (numbers, true/false/null). Whitespace between tokens is matched separately so it can be dropped.
# (The string pattern is written "unrolled" so long base64 strings match in one tight loop.)
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_TOKEN = re.compile(_STRING + r'|[{}\[\],:]|[^\s{}\[\],:"]+|(\s+)', re.DOTALL)
_WHITESPACE = re.compile("(" + _STRING + r")|\s+", re.DOTALL)
_HTML_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}
_HTML = re.compile("[<>&]")


# Go before 1.22 writes U+0008 and U+000C as \u0008 and \u000c (1.22 and later: \b and \f).
_BEFORE_GO_122: ContextVar[bool] = ContextVar("olmcat_before_go_122", default=False)
_BACKSPACE_OR_FORMFEED = re.compile("([\x08\x0c])")


@contextmanager
def before_go_122(active: bool = True) -> Iterator[None]:
    """While active, :func:`go_string` writes U+0008 and U+000C as an encoder built with Go
    before 1.22 does (the opm releases before v1.41.0)."""
    token = _BEFORE_GO_122.set(active)
    try:
        yield
    finally:
        _BEFORE_GO_122.reset(token)


def _go_string_before_122(text: str) -> str:
    parts = _BACKSPACE_OR_FORMFEED.split(text)
    return (
        '"'
        + "".join(
            ("\\u0008" if part == "\x08" else "\\u000c")
            if part in ("\x08", "\x0c")
            else _encode_basestring(part)[1:-1]
            for part in parts
        )
        + '"'
    )


def go_string(text: str, *, escape_html: bool = False) -> str:
    """Encode ``text`` as a JSON string literal the way Go does.

    Go escapes ``"``, ``\\``, control characters and always U+2028/U+2029; with HTML escaping on
    (``json.Marshal``'s default) also ``<``, ``>`` and ``&``. U+0008 and U+000C: ``\\b`` and
    ``\\f`` (Go 1.22 and later), unless :func:`before_go_122` is active.
    """
    if ("\x08" in text or "\x0c" in text) and _BEFORE_GO_122.get():
        out = _go_string_before_122(text)
    else:
        out = _encode_basestring(text)  # what json.dumps(text, ensure_ascii=False) calls
    if "\u2028" in out or "\u2029" in out:
        out = out.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    if escape_html:
        out = _HTML.sub(lambda m: _HTML_ESCAPES[m.group(0)], out)
    return out


def go_marshal(value: Any, *, escape_html: bool = True, sort_keys: bool = True) -> str:
    """Compact JSON of plain Python data as ``json.Marshal`` writes it.

    Dict keys are sorted (Go sorts map keys); use this only for data that was a Go map or
    ``unstructured`` object (Kubernetes manifests). With ``sort_keys=False`` dicts are written in
    their own order: a Go struct built as a dict in its field order (omitted fields left out).
    """
    if isinstance(value, RawNumber):
        return str(value)
    if isinstance(value, str):
        return go_string(value, escape_html=escape_html)
    if isinstance(value, dict):
        items = sorted(value.items()) if sort_keys else list(value.items())
        return (
            "{"
            + ",".join(
                go_string(k, escape_html=escape_html)
                + ":"
                + go_marshal(v, escape_html=escape_html, sort_keys=sort_keys)
                for k, v in items
            )
            + "}"
        )
    if isinstance(value, list | tuple):
        return (
            "["
            + ",".join(go_marshal(v, escape_html=escape_html, sort_keys=sort_keys) for v in value)
            + "]"
        )
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


_HTML_BYTES = (
    (b"<", b"\\u003c"),
    (b">", b"\\u003e"),
    (b"&", b"\\u0026"),
    ("\u2028".encode(), b"\\u2028"),
    ("\u2029".encode(), b"\\u2029"),
)


def _fragment(value: Any) -> Any:
    if isinstance(value, RawNumber):
        return orjson.Fragment(str(value))
    raise TypeError


# Escapes are read pairwise from the left, so the "\b" of an escaped backslash ("\\b") is
# left alone.
_ESCAPE_PAIR = re.compile(rb"\\(.)", re.DOTALL)
_GO_119_ESCAPES = {b"b": b"\\u0008", b"f": b"\\u000c"}


def _go_119_escape(match: re.Match[bytes]) -> bytes:
    return _GO_119_ESCAPES.get(match.group(1), match.group(0))


def marshal_object(value: Any) -> str:
    """``json.Marshal`` of a Kubernetes object decoded into generic maps (``unstructured``):
    compact, keys sorted, HTML characters and U+2028/U+2029 escaped (U+0008 and U+000C as Go
    before 1.22 escapes them while :func:`before_go_122` is active).

    orjson does the heavy lifting; the escapes are applied to its output, which is safe because
    those characters can only occur inside JSON strings. Values orjson cannot encode (integers
    beyond 64 bits) fall back to the pure-Python encoder.
    """
    try:
        data = orjson.dumps(
            value,
            default=_fragment,
            option=orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS,
        )
    except TypeError:
        return go_marshal(value)
    for raw, escaped in _HTML_BYTES:
        if raw in data:
            data = data.replace(raw, escaped)
    if (b"\\b" in data or b"\\f" in data) and _BEFORE_GO_122.get():
        data = _ESCAPE_PAIR.sub(_go_119_escape, data)
    return data.decode()


def go_float(value: float) -> str:
    """Format a float64 like Go's ``encoding/json`` ('f' format, 'e' for tiny/huge magnitudes)."""
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"unsupported float value {value!r}")
    absolute = abs(value)
    shortest = Decimal(repr(value))  # repr gives the shortest round-tripping digits, as Go's -1
    if absolute != 0 and (absolute < 1e-6 or absolute >= 1e21):
        # strconv 'e' format: at least two exponent digits, then Go trims "e-07" to "e-7".
        mantissa, _, exponent = f"{shortest:e}".partition("e")
        if "." in mantissa:
            mantissa = mantissa.rstrip("0").rstrip(".")
        sign, digits = exponent[0], exponent[1:].lstrip("0").rjust(2, "0")
        if sign == "-" and digits[0] == "0":
            digits = digits[1:]
        return f"{mantissa}e{sign}{digits}"
    text = f"{shortest:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def compact(raw: str, *, what: str = "JSON value") -> str:
    """Validate ``raw`` and drop insignificant whitespace, keeping string escapes as they are.

    This is ``json.Compact``: RawMessage values reach opm's output in this form.
    """
    try:
        json.loads(raw)
    except ValueError as exc:
        raise InputError(f"{what} is not valid JSON: {exc}") from None
    return _WHITESPACE.sub(lambda m: m.group(1) or "", raw)


def indent(raw: str, depth: int, unit: str = "    ") -> str:
    """Re-indent compact JSON text as ``json.Indent`` would at nesting level ``depth``.

    Empty objects and arrays stay ``{}`` / ``[]``; ``:`` is followed by one space.
    """
    if len(raw) < 2 or raw[0] not in "{[":
        return raw
    parts: list[str] = []
    level = depth
    pending_open = False  # just wrote { or [: the newline waits to see if the container is empty
    for match in _TOKEN.finditer(raw):
        if match.group(1) is not None:
            continue
        token = match.group(0)
        if pending_open:
            pending_open = False
            if token in "}]":
                parts.append(token)
                level -= 1
                continue
            parts.append("\n" + unit * level)
        if token in "{[":
            parts.append(token)
            level += 1
            pending_open = True
        elif token in "}]":
            level -= 1
            parts.append("\n" + unit * level + token)
        elif token == ",":
            parts.append(",\n" + unit * level)
        elif token == ":":
            parts.append(": ")
        else:
            parts.append(token)
    return "".join(parts)


class RawNumber(str):
    """A JSON number kept as the text it was written with (Go's RawMessage keeps it verbatim)."""

    __slots__ = ()


_DECODER = json.JSONDecoder(parse_float=RawNumber)


def loads(text: str | bytes) -> Any:
    """Parse JSON keeping float literals as :class:`RawNumber` so they re-encode unchanged."""
    # json.loads(text, parse_float=...) builds a decoder per call; validate calls this for every
    # property value. Same checks as json.loads, one shared decoder.
    if isinstance(text, str):
        if text.startswith("\ufeff"):
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    elif isinstance(text, bytes | bytearray):
        text = text.decode(json.detect_encoding(text), "surrogatepass")
    else:  # not what the signature allows; json.loads raises its TypeError
        return json.loads(text, parse_float=RawNumber)  # type: ignore[unreachable]
    return _DECODER.decode(text)


def encode(value: Any) -> str:
    """Compact JSON keeping dict key order (a RawMessage's bytes, compacted), no HTML escaping."""
    if isinstance(value, RawNumber):
        return str(value)
    if isinstance(value, str):
        return go_string(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{go_string(str(k))}:{encode(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(encode(v) for v in value) + "]"
    return go_marshal(value)
