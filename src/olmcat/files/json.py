"""Bounded JSON input: concatenated-JSON streams and single documents from untrusted files.

Python's decoder recurses (a document nested past the recursion limit raises RecursionError) and
refuses integers of more than 4300 digits with a bare ValueError. Here both are one-line
:class:`~olmcat.errors.InputError` naming the file, and every document's nesting is held to
``max_depth`` (:mod:`olmcat.files.safe`) before anything else walks it.
"""

from __future__ import annotations

import copy
import json
import json.scanner
import re
from collections.abc import Iterator
from typing import IO, Any

from olmcat.errors import InputError
from olmcat.files import safe
from olmcat.go.json import RawNumber

_CHUNK = 1 << 20


def depth(value: Any, limit: int) -> int:
    """Nesting depth of parsed JSON (a scalar is 0), counted up to ``limit + 1``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        level += 1
        if level > deepest:
            deepest = level
            if deepest > limit:
                return deepest
        stack.extend((child, level) for child in children if isinstance(child, dict | list))
    return deepest


def check_depth(value: Any, where: str) -> Any:
    limit = safe.limits().max_depth
    if depth(value, limit) > limit:
        raise too_deep(where, limit)
    return value


def too_deep(where: str, limit: int) -> InputError:
    return InputError(
        f"{where}: nested deeper than {limit} levels; refusing to read it "
        "(raise the limit with --max-depth if the document is genuine)"
    )


def _decode_error(exc: Exception, where: str) -> InputError:
    if isinstance(exc, RecursionError):
        return too_deep(where, safe.limits().max_depth)
    if isinstance(exc, json.JSONDecodeError):
        return InputError(f"{where}: not valid JSON: {exc}")
    if isinstance(exc, ValueError) and "digits" in str(exc):
        return InputError(f"{where}: holds a number with more digits than olmcat reads (4300)")
    return InputError(f"{where}: not valid JSON: {type(exc).__name__}: {exc}")


def raw_decode_deep(decoder: json.JSONDecoder, text: str, index: int = 0) -> tuple[Any, int]:
    """``decoder.raw_decode(text, index)``, also for documents nested deeper than C code may
    recurse: CPython 3.12 holds its C JSON scanner to about 1,000 levels whatever the recursion
    limit (which ``--max-depth`` raises) says, so a deeper document is scanned again by the
    standard library's pure-Python scanner, whose recursion that limit bounds. RecursionError
    when it is deeper than that too."""
    try:
        return decoder.raw_decode(text, index)
    except RecursionError:
        deep = copy.copy(decoder)
        deep.scan_once = json.scanner.py_make_scanner(deep)  # type: ignore[attr-defined]
        return deep.raw_decode(text, index)


_DECODER = json.JSONDecoder(parse_float=RawNumber)
_SPACE = re.compile(r"[ \t\n\r]*")  # what the standard library's decoder skips


def _after_space(text: str, index: int) -> int:
    found = _SPACE.match(text, index)
    return found.end() if found else index


def loads(text: str | bytes, where: str) -> Any:
    """One JSON document (floats kept as Go formats them), bounded."""
    try:
        if isinstance(text, bytes):  # as json.loads reads bytes
            text = text.decode(json.detect_encoding(text), "surrogatepass")
        value, end = raw_decode_deep(_DECODER, text, _after_space(text, 0))
        end = _after_space(text, end)
        if end != len(text):
            raise json.JSONDecodeError("Extra data", text, end)
    except (ValueError, RecursionError) as exc:
        raise _decode_error(exc, where) from None
    return check_depth(value, where)


def iter_documents(fh: IO[str], where: str) -> Iterator[tuple[int, Any]]:
    """Documents of a concatenated-JSON stream read in chunks: (document number, value).

    Memory holds the current document and one chunk; a document that does not parse grows the
    buffer geometrically until it does or the stream ends (then it is an error naming the
    document).
    """
    decoder = json.JSONDecoder(parse_float=RawNumber)
    buffer, index, eof, number, chunk = "", 0, False, 0, _CHUNK
    while True:
        while index < len(buffer) and buffer[index] in " \t\r\n":
            index += 1
        if index >= len(buffer):
            if eof:
                return
            buffer, index = fh.read(chunk), 0
            eof = not buffer
            continue
        try:
            value, end = raw_decode_deep(decoder, buffer, index)
        except json.JSONDecodeError as exc:
            if eof:
                raise InputError(
                    f"{where}: document {number + 1} is not valid JSON: {exc}"
                ) from None
            more = fh.read(chunk)
            chunk *= 2  # grow geometrically: a huge document is re-parsed O(log n) times
            eof = not more
            buffer, index = buffer[index:] + more, 0
            continue
        except (ValueError, RecursionError) as exc:
            raise _decode_error(exc, f"{where}: document {number + 1}") from None
        number += 1
        yield number, check_depth(value, f"{where}: document {number}")
        buffer, index = buffer[end:], 0
