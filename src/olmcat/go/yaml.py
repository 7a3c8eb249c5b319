"""Byte-exact emulation of the YAML that ``opm`` writes for one catalog blob.

opm (operator-registry ``alpha/declcfg/write.go``) encodes each blob with Go's
``encoding/json`` and converts it with ``sigs.k8s.io/yaml.JSONToYAML``: the JSON
is unmarshalled by gopkg.in/yaml.v2 (v2.4.0) into generic maps and re-marshalled
by the same library, then prefixed with ``---\\n``.  Every decision yaml.v2 makes
on the way is reproduced here from the input Python data:

* mapping keys are sorted with yaml.v2's "natural" key order (digit runs compare
  numerically, letters sort after every non-letter);
* a string is written plain unless yaml.v2's YAML 1.1 resolver would read it
  back as something else (bool, null, int, float, timestamp, base-60 float) or
  the libyaml-derived emitter analysis forbids it; then single quotes, double
  quotes or a literal block (``|``, ``|-``, ``|+``, ``|2``) follow;
* plain and quoted scalars are folded at spaces once the column passes 80;
* numbers go through yaml.v2's resolver, so JSON floats print like Go's
  ``strconv.FormatFloat(f, 'g', -1, 64)`` (``1.0`` -> ``1``, ``1e6`` -> ``1e+06``).

The emitter keeps the same small state libyaml keeps (column, "last write was
whitespace", "still in indentation") but writes whole runs of text at once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from functools import cmp_to_key
from typing import Any

from olmcat.errors import EncodingError
from olmcat.go.strconv import format_g

__all__ = ["dump_document", "yaml_v2_key_less"]

_BEST_WIDTH = 80  # yaml.v2 v2.4.0 default; opm never calls FutureLineWrap()
_BEST_INDENT = 2
_SIMPLE_KEY_MAX_BYTES = 128  # longer keys are written as "? key" / ": value"

# _REREAD marks strings that yaml.v2's parser changes before they are emitted.
_PLAIN, _SINGLE, _DOUBLE, _LITERAL, _REREAD = range(5)

# --------------------------------------------------------------------------
# Key order (gopkg.in/yaml.v2 sorter.go keyList.Less, string keys only)
# --------------------------------------------------------------------------

_INT64_WRAP = 1 << 64
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
_UINT64_END = 1 << 64


def _as_int64(value: int) -> int:
    """Go accumulates digit runs in an int64 that silently wraps around."""
    value %= _INT64_WRAP
    return value - _INT64_WRAP if value > _INT64_MAX else value


def _digit_run(text: str, start: int, seed: int) -> tuple[int, int]:
    """Value (seeded, Go rune arithmetic) and end index of the digit run at start."""
    end = start
    number = seed
    length = len(text)
    while end < length and text[end].isdecimal():
        # Go subtracts '0' from the rune, even for non-ASCII Nd digits.
        number = number * 10 + ord(text[end]) - 48
        end += 1
    return _as_int64(number), end


def yaml_v2_key_less(a: str, b: str) -> bool:
    """Whether yaml.v2 sorts map key ``a`` before ``b``.

    The first differing character decides: two letters compare by code point,
    a letter sorts after anything else, otherwise the digit runs starting there
    compare by value, then by length (so ``a2`` < ``a10`` and ``a1`` < ``a01``).
    """
    common = min(len(a), len(b))
    i = 0
    while i < common and a[i] == b[i]:
        i += 1
    if i == common:
        return len(a) < len(b)
    ca, cb = a[i], b[i]
    a_letter, b_letter = ca.isalpha(), cb.isalpha()
    if a_letter and b_letter:
        return ca < cb
    if a_letter or b_letter:
        return b_letter
    # A '0' in the middle of a number is significant, a leading one is not:
    # yaml.v2 seeds both accumulators with 1 when a non-zero digit precedes it.
    seed = 0
    if ca == "0" or cb == "0":
        j = i - 1
        while j >= 0 and a[j].isdecimal():
            if a[j] != "0":
                seed = 1
                break
            j -= 1
    a_num, a_end = _digit_run(a, i, seed)
    b_num, b_end = _digit_run(b, i, seed)
    if a_num != b_num:
        return a_num < b_num
    if a_end != b_end:
        return a_end < b_end
    return ca < cb


def _compare_keys(a: str, b: str) -> int:
    if yaml_v2_key_less(a, b):
        return -1
    if yaml_v2_key_less(b, a):
        return 1
    return 0


_compare_key = cmp_to_key(_compare_keys)
_PLAIN_ORDER_KEY = re.compile(r"[A-Za-z]*")  # all-letter keys sort lexicographically


def _sort_keys(keys: Iterable[str]) -> list[str]:
    if all(_PLAIN_ORDER_KEY.fullmatch(k) for k in keys):
        return sorted(keys)
    return sorted(keys, key=_compare_key)


# Each entry is (key, rendered "key:" text), the text None for "? key" keys.
_Entries = list[tuple[str, str | None]]
_entries_cache: dict[tuple[str, ...], _Entries] = {}
_CACHE_LIMIT = 1 << 16


def _sorted_entries(mapping: dict[str, Any]) -> tuple[_Entries, dict[str, Any]]:
    """Keys in yaml.v2 order with their rendering, and the dict holding the values."""
    # Catalog blobs reuse a handful of key sets, so memoise per key tuple.
    keys = tuple(mapping)
    cached = _entries_cache.get(keys)
    if cached is not None:
        return cached, mapping
    for key in keys:
        if len(key) > _FLOW_KEY_MAX_CHARS // 6 - 2:
            _check_key_length(key)
    if any(_REREAD_CHARS.search(k) for k in keys):
        # Keys change when yaml.v2 parses them (and may then collide: the
        # later one wins, as in yaml.v2's map decoding).
        reread = {_as_yaml_v2_reads(k, is_key=True): v for k, v in mapping.items()}
        return [(k, _simple_key_text(k)) for k in _sort_keys(reread)], reread
    entries = [(k, _simple_key_text(k)) for k in _sort_keys(keys)]
    if len(_entries_cache) >= _CACHE_LIMIT:
        _entries_cache.clear()
    _entries_cache[keys] = entries
    return entries, mapping


# --------------------------------------------------------------------------
# Resolver: would yaml.v2 read the plain scalar back as a non-string?
# --------------------------------------------------------------------------

# Plain scalars yaml.v2 reads as bool, null or float by table lookup.
_RESOLVED_WORDS = frozenset(
    {
        *("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"),
        *("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"),
        *("", "~", "null", "Null", "NULL"),
        *(".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF"),
        *("+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"),
    }
)

# strconv.ParseInt(s, 0, 64) syntax once underscores are stripped.
_GO_INT = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)")
_YAML_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
# strconv.ParseFloat accepts '_' between digits; only reached for a leading '.'.
_GO_DOT_FLOAT = re.compile(r"\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?")
_BINARY_AFTER_PREFIX = re.compile(r"[+-]?[01]+")
_BINARY_DIGITS = re.compile(r"[01]+")
_BASE60_FLOAT = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")
# The four time.Parse layouts yaml.v2 tries, as Go 1.19's time package reads them.
_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:"
    r"[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]{1,9})?"
    r"(?:Z|[+-](?:[0-9]{2}|[+-][0-9]):(?:[0-9]{2}|[+-][0-9]))"
    r"| +([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]{1,9})?"
    r")?"
)
_DAYS_IN_MONTH = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _is_timestamp(s: str) -> bool:
    match = _TIMESTAMP.fullmatch(s)
    if match is None:
        return False
    year, month, day = int(match[1]), int(match[2]), int(match[3])
    if not 1 <= month <= 12:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = 29 if month == 2 and leap else _DAYS_IN_MONTH[month]
    if not 1 <= day <= days:
        return False
    clock = match.group(4, 5, 6) if match[4] is not None else match.group(7, 8, 9)
    if clock[0] is None:
        return True
    hour, minute, second = (int(part) for part in clock)
    return hour < 24 and minute < 60 and second < 60


def _float_parses(text: str) -> bool:
    """strconv.ParseFloat succeeds: syntax already checked, overflow is an error."""
    return not math.isinf(float(text.replace("_", "")))


def _resolves_to_non_string(s: str) -> bool:
    """yaml.v2 ``resolve("", s)`` yields a tag other than !!str."""
    if s in _RESOLVED_WORDS:
        return True
    first = s[0]
    if first == ".":
        return _GO_DOT_FLOAT.fullmatch(s) is not None and _float_parses(s)
    if first not in "+-0123456789":
        return False
    if _is_timestamp(s):
        return True
    plain = s.replace("_", "")
    if _GO_INT.fullmatch(plain):
        value = _go_base0_int(plain)
        # ParseInt covers int64; ParseUint covers the rest of uint64, unsigned only.
        if _INT64_MIN <= value <= _INT64_MAX or (plain[0] not in "+-" and value < _UINT64_END):
            return True
    if _YAML_FLOAT.fullmatch(plain) and _float_parses(plain):
        return True
    # yaml.v2's own "0b" fallback parses the rest with ParseInt(.., 2), sign included.
    if plain.startswith("0b"):
        digits = plain[2:]
        if _BINARY_AFTER_PREFIX.fullmatch(digits):
            value = int(digits, 2)
            if _INT64_MIN <= value <= _INT64_MAX:
                return True
            return digits[0] not in "+-" and value < _UINT64_END
    elif plain.startswith("-0b"):
        digits = plain[3:]
        if _BINARY_DIGITS.fullmatch(digits):
            return int(digits, 2) <= -_INT64_MIN
    return False


def _go_base0_int(text: str) -> int:
    """Value of Go base-0 integer syntax (a bare leading 0 means octal)."""
    sign = -1 if text[0] == "-" else 1
    body = text.lstrip("+-")
    if len(body) > 1 and body[0] == "0" and body[1] in "01234567":
        return sign * int(body, 8)
    return sign * int(body, 0)


# --------------------------------------------------------------------------
# What yaml.v2's parser makes of the JSON text Go wrote for a string
# --------------------------------------------------------------------------

# Go's encoding/json escapes C0 controls, U+2028 and U+2029 but writes these raw;
# yaml.v2's reader then rejects them, or (NEL) treats them as line breaks.
_REREAD_CHARS = re.compile(r"[\x7f-\x9f\ufffe\uffff\ud800-\udfff]")
_REJECTED_CHARS = re.compile(r"[\x7f-\x84\x86-\x9f\ufffe\uffff\ud800-\udfff]")
_NEL_RUN = re.compile(r"[ \x85]*\x85[ \x85]*")
_NEL_DOCUMENT_MARKER = re.compile(r"\x85(?:---|\.\.\.)[ \x85]")


def _fold_nel_run(match: re.Match[str]) -> str:
    # Inside a double-quoted scalar a break run folds: one break becomes a
    # space, n breaks become n-1 newlines, and the spaces around them vanish.
    breaks = match.group().count("\x85")
    return " " if breaks == 1 else "\n" * (breaks - 1)


class ReadAsIs(str):
    """A string whose JSON text spelled its special characters as ``\\uXXXX`` escapes (a raw
    value opm passes through): yaml.v2 decodes the escapes, so its reader restrictions and
    line-break folding do not apply to them."""

    __slots__ = ()


def _as_yaml_v2_reads(s: str, is_key: bool = False) -> str:
    """The string yaml.v2 decodes from Go's JSON encoding of ``s``.

    Raises EncodingError where opm itself fails: a character the reader rejects,
    a NEL inside a key (a flow key cannot span lines), or a NEL followed by a
    document marker.
    """
    if isinstance(s, ReadAsIs):
        return str(s)
    bad = _REJECTED_CHARS.search(s)
    if bad is not None:
        raise EncodingError(
            f"opm cannot write U+{ord(bad.group()):04X} to YAML (yaml.v2 rejects it): {s!r}"
        )
    if is_key and "\x85" in s:
        raise EncodingError(f"opm cannot write a mapping key containing U+0085: {s!r}")
    if _NEL_DOCUMENT_MARKER.search(s):
        raise EncodingError(f"opm cannot write a NEL followed by a document marker: {s!r}")
    return _NEL_RUN.sub(_fold_nel_run, s)


# yaml.v2's scanner drops a flow key candidate 1024 characters after it starts,
# so JSON keys whose encoded form (quotes included) is longer make opm fail.
_FLOW_KEY_MAX_CHARS = 1024
_JSON_SHORT_ESCAPES = re.compile(r'["\\\n\r\t]')
_JSON_LONG_ESCAPES = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\u2028\u2029]")


def _check_key_length(key: str) -> None:
    # Go's encoder writes \" \\ \n \r \t as two characters and the other
    # C0 controls and U+2028/U+2029 as \uXXXX (Go 1.19 has no \b or \f).
    encoded = (
        len(key)
        + 2
        + len(_JSON_SHORT_ESCAPES.findall(key))
        + 5 * len(_JSON_LONG_ESCAPES.findall(key))
    )
    if encoded > _FLOW_KEY_MAX_CHARS:
        raise EncodingError(f"opm cannot write a mapping key this long ({encoded} JSON characters)")


# --------------------------------------------------------------------------
# Scalar analysis (libyaml's yaml_emitter_analyze_scalar, as yaml.v2 ports it)
# --------------------------------------------------------------------------

_BREAK_CHARS = "\n\r\x85\u2028\u2029"
_ANY_BREAK = re.compile(f"[{_BREAK_CHARS}]")
# Printable: LF, 0x20-0x7E, U+A0-U+D7FF, U+E000-U+FFFD without the BOM.  Astral
# characters count as unprintable too (yaml.v2 only accepts 1-3 byte sequences).
_NOT_PRINTABLE = re.compile("[^\n\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd]")
_SPACE_BREAK = re.compile(f" [{_BREAK_CHARS}]|[{_BREAK_CHARS}] ")
_SPACE_THEN_BREAK = re.compile(f" [{_BREAK_CHARS}]")
_BLOCK_INDICATOR = re.compile(
    r"^(?:---|\.\.\.|[#,\[\]{}&*!|>'\"%@`]|[?:-](?:[ \t]|$))"
    r"|:(?:[ \t]|$)"
    f"|[ \\t\\x00{_BREAK_CHARS}]#"
)


# Printable ASCII except space, ':' and '#': such strings have no breaks, nothing
# to escape, nowhere to fold, and can only hit an indicator at their start.
_QUIET_ASCII = bytes(c for c in range(0x21, 0x7F) if chr(c) not in ":#")
_LEADING_INDICATORS = frozenset(",[]{}&*!|>'\"%@`")


def _choose_style(s: str) -> int:
    """The scalar style yaml.v2 ends up using for string ``s`` (any context).

    Simple keys never contain line breaks, so the key/value distinction that the
    emitter makes cannot change the outcome; it only disables folding for keys.
    """
    if not s:
        return _DOUBLE  # "" would resolve to null
    if s.isascii() and not s.encode().translate(None, _QUIET_ASCII):
        # Fast path, e.g. for base64 blobs; base-60 floats need a ':'.
        if _resolves_to_non_string(s):
            return _DOUBLE
        if s[0] in _LEADING_INDICATORS or s in ("-", "?") or s.startswith(("---", "...")):
            return _SINGLE
        return _PLAIN
    unprintable = _NOT_PRINTABLE.search(s)  # a superset of _REREAD_CHARS
    if unprintable is not None and _REREAD_CHARS.search(s, unprintable.start()):
        return _REREAD
    special = unprintable is not None
    if "\n" in s:
        # Literal requested; refused for unprintables, a trailing space, or a
        # space right before a line break.
        if special or s[-1] == " " or _SPACE_THEN_BREAK.search(s):
            return _DOUBLE
        return _LITERAL
    if _resolves_to_non_string(s) or _BASE60_FLOAT.fullmatch(s):
        return _DOUBLE
    if special:
        return _DOUBLE
    # '\r' and NEL are unprintable, so only LS/PS can still break a line here.
    multiline = "\u2028" in s or "\u2029" in s
    if not multiline and s[0] != " " and s[-1] != " " and _BLOCK_INDICATOR.search(s) is None:
        return _PLAIN
    if multiline and _SPACE_BREAK.search(s):
        return _DOUBLE
    return _SINGLE


_style_cache: dict[str, int] = {}
_STYLE_CACHE_MAX_LEN = 256


def _style_of(s: str) -> int:
    style = _style_cache.get(s)
    if style is None:
        style = _choose_style(s)
        if len(s) <= _STYLE_CACHE_MAX_LEN:
            if len(_style_cache) >= _CACHE_LIMIT:
                _style_cache.clear()
            _style_cache[s] = style
    return style


def _simple_key_text(key: str) -> str | None:
    """``key:`` as written for a simple key, or None if it needs ``? key``.

    Simple keys are single-line and at most 128 UTF-8 bytes; they are never
    folded, so their text does not depend on where they are written.
    """
    size = len(key) if key.isascii() else len(key.encode("utf-8", "surrogatepass"))
    if size > _SIMPLE_KEY_MAX_BYTES or _ANY_BREAK.search(key):
        return None
    style = _style_of(key)
    if style == _PLAIN:
        return key + ":"
    if style == _SINGLE:
        return "'" + key.replace("'", "''") + "':"
    return '"' + _escape_unfolded(key) + '":'


# --------------------------------------------------------------------------
# Double-quoted escapes
# --------------------------------------------------------------------------

_NAMED_ESCAPES = {
    0x00: "\\0",
    0x07: "\\a",
    0x08: "\\b",
    0x09: "\\t",
    0x0A: "\\n",
    0x0B: "\\v",
    0x0C: "\\f",
    0x0D: "\\r",
    0x1B: "\\e",
    0x22: '\\"',
    0x5C: "\\\\",
    0x85: "\\N",
    0xA0: "\\_",
    0x2028: "\\L",
    0x2029: "\\P",
}


def _escape_char(char: str) -> str:
    code = ord(char)
    named = _NAMED_ESCAPES.get(code)
    if named is not None:
        return named
    if code <= 0xFF:
        return f"\\x{code:02X}"
    if code <= 0xFFFF:
        return f"\\u{code:04X}"
    return f"\\U{code:08X}"


# Escaped inside double quotes: unprintables, line breaks, '"' and '\'.
_NEEDS_ESCAPE = re.compile(
    r"[^\x20\x21\x23-\x5b\x5d-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]"
)


def _escape_match(match: re.Match[str]) -> str:
    return _escape_char(match.group())


def _escape_double(text: str) -> str:
    if _NEEDS_ESCAPE.search(text) is None:
        return text
    return _NEEDS_ESCAPE.sub(_escape_match, text)


def _escape_unfolded(s: str) -> str:
    """Double-quoted content of ``s`` when no folding can happen."""
    if s.startswith("\ufeff"):
        # yaml.v2 tests for a BOM at offset 0 rather than at the current
        # character, so every character of such a string gets escaped.
        return "".join(_escape_char(char) for char in s)
    return _escape_double(s)


_SPACE_RUNS = re.compile(r" +")
_FOLDABLE_SPACE = re.compile(r"(?<! ) (?! )")
_SINGLE_TOKENS = re.compile("[\u2028\u2029]+| +|[^ \u2028\u2029]+")
_LITERAL_TOKENS = re.compile("[\n\u2028\u2029]|[^\n\u2028\u2029]+")


# --------------------------------------------------------------------------
# Emitter
# --------------------------------------------------------------------------


class _Emitter:
    """A chunked re-implementation of the yaml.v2 emitter for one document.

    ``indention`` is libyaml's "only indentation written on this line so far";
    ``whitespace`` is "the last thing written was whitespace".  ``column`` counts
    characters, like libyaml, and is 0 right after any line break character.
    """

    __slots__ = ("column", "indention", "out", "whitespace")

    def __init__(self) -> None:
        self.out: list[str] = []
        self.column = 0
        self.whitespace = True
        self.indention = True

    # -- primitives ---------------------------------------------------------

    def write_indent(self, indent: int) -> None:
        column = self.column
        if not self.indention or column > indent or (column == indent and not self.whitespace):
            self.out.append("\n")
            column = 0
        if column < indent:
            self.out.append(" " * (indent - column))
            column = indent
        self.column = column
        self.whitespace = True
        self.indention = True

    def write_indicator(
        self, indicator: str, need_whitespace: bool, is_whitespace: bool, is_indention: bool
    ) -> None:
        if need_whitespace and not self.whitespace:
            self.out.append(" ")
            self.column += 1
        self.out.append(indicator)
        self.column += len(indicator)
        self.whitespace = is_whitespace
        self.indention = self.indention and is_indention

    # -- nodes --------------------------------------------------------------

    def node(self, value: Any, indent: int, mapping_context: bool, simple_key: bool) -> None:
        """Emit any value; ``indent`` is the enclosing collection's indent (-1 at root)."""
        if isinstance(value, str):
            self.string(value, indent, simple_key)
        elif isinstance(value, dict):
            if value:
                self.mapping(value, indent)
            else:
                self.empty_flow("{}")
        elif isinstance(value, list):
            if value:
                self.sequence(value, indent, mapping_context)
            else:
                self.empty_flow("[]")
        else:
            self.atom(_format_atom(value))

    def mapping(self, mapping: dict[str, Any], indent: int) -> None:
        inner = 0 if indent < 0 else indent + _BEST_INDENT
        out = self.out
        line_start = "\n" + " " * inner
        entries, source = _sorted_entries(mapping)
        for key, key_text in entries:
            value = source[key]
            # write_indent(inner), inlined: this loop is the hot spot.
            column = self.column
            if self.indention and (column < inner or (column == inner and self.whitespace)):
                if column < inner:
                    out.append(" " * (inner - column))
            else:
                out.append(line_start)
            if key_text is None:
                self.column = inner
                self.whitespace = self.indention = True
                self.write_indicator("?", True, False, True)
                self.string(key, inner, simple_key=False)
                self.write_indent(inner)
                self.write_indicator(":", True, False, True)
                self.node(value, inner, True, False)
                continue
            out.append(key_text)
            column = inner + len(key_text)
            self.whitespace = self.indention = False
            if type(value) is str:
                # A plain value that cannot fold is written as is.
                if _style_of(value) == _PLAIN and (
                    column + len(value) <= _BEST_WIDTH or " " not in value
                ):
                    out.append(" ")
                    out.append(value)
                    self.column = column + 1 + len(value)
                    continue
            elif (
                type(value) is not dict and type(value) is not list and type(value) is not ReadAsIs
            ):
                text = _format_atom(value)
                out.append(" ")
                out.append(text)
                self.column = column + 1 + len(text)
                continue
            self.column = column
            self.node(value, inner, True, False)

    def sequence(self, items: list[Any], indent: int, mapping_context: bool) -> None:
        if indent < 0:
            inner = 0
        elif mapping_context and not self.indention:
            inner = indent  # yaml.v2 does not indent a sequence under a mapping key
        else:
            inner = indent + _BEST_INDENT
        out = self.out
        line_start = "\n" + " " * inner
        for item in items:
            # write_indent(inner) then the "-" indicator, inlined.
            column = self.column
            if self.indention and (column < inner or (column == inner and self.whitespace)):
                if column < inner:
                    out.append(" " * (inner - column))
            else:
                out.append(line_start)
            out.append("-")
            column = inner + 1
            self.whitespace = False
            self.indention = True
            if (
                type(item) is str
                and _style_of(item) == _PLAIN
                and (column + len(item) <= _BEST_WIDTH or " " not in item)
            ):
                out.append(" ")
                out.append(item)
                self.column = column + 1 + len(item)
                self.indention = False
                continue
            self.column = column
            self.node(item, inner, False, False)

    def empty_flow(self, brackets: str) -> None:
        if not self.whitespace:
            self.out.append(" ")
            self.column += 1
        self.out.append(brackets)
        self.column += 2
        self.whitespace = False
        self.indention = False

    def atom(self, text: str) -> None:
        if not self.whitespace:
            self.out.append(" ")
            self.column += 1
        self.out.append(text)
        self.column += len(text)
        self.whitespace = False
        self.indention = False

    def string(self, s: str, indent: int, simple_key: bool) -> None:
        style = _style_of(s)
        if style == _REREAD:
            if isinstance(s, ReadAsIs):
                style = _DOUBLE  # yaml.v2's emitter finds them unprintable: escaped in quotes
            else:
                s = _as_yaml_v2_reads(s)
                style = _style_of(s)
        scalar_indent = _BEST_INDENT if indent < 0 else indent + _BEST_INDENT
        allow_breaks = not simple_key
        if style == _PLAIN:
            self.plain(s, scalar_indent, allow_breaks)
        elif style == _DOUBLE:
            self.double_quoted(s, scalar_indent, allow_breaks)
        elif style == _SINGLE:
            self.single_quoted(s, scalar_indent, allow_breaks)
        else:
            self.literal(s, scalar_indent)

    # -- scalar writers -------------------------------------------------------

    def plain(self, s: str, indent: int, allow_breaks: bool) -> None:
        if not self.whitespace:
            self.out.append(" ")
            self.column += 1
        column = self.column
        # A fold needs a space at index <= len-2 while the column exceeds 80.
        if allow_breaks and column + len(s) > _BEST_WIDTH + 1 and " " in s:
            out = self.out
            line_start = "\n" + " " * indent
            start = 0
            # The next fold is at the first lone space past column 80.
            match = _FOLDABLE_SPACE.search(s, start + _BEST_WIDTH + 1 - column)
            while match is not None:
                at = match.start()
                out.append(s[start:at])
                out.append(line_start)
                column = indent
                start = at + 1
                match = _FOLDABLE_SPACE.search(s, start + _BEST_WIDTH + 1 - column)
            out.append(s[start:])
            column += len(s) - start
        else:
            self.out.append(s)
            column += len(s)
        self.column = column
        self.whitespace = False
        self.indention = False

    def single_quoted(self, s: str, indent: int, allow_breaks: bool) -> None:
        self.write_indicator("'", True, False, False)
        column = self.column
        out = self.out
        if (
            "\u2028" not in s
            and "\u2029" not in s
            and (not allow_breaks or column + len(s) + s.count("'") <= _BEST_WIDTH + 1)
        ):
            text = s.replace("'", "''")
            out.append(text)
            column += len(text)
        else:
            # Single quotes never hold a break next to a space (the analysis
            # rejects that), which keeps the token walk below simple.
            last = len(s) - 1
            after_break = False
            for match in _SINGLE_TOKENS.finditer(s):
                token = match.group()
                at = match.start()
                if token[0] == " ":
                    if allow_breaks and len(token) == 1 and column > _BEST_WIDTH and 0 < at < last:
                        out.append("\n" + " " * indent)
                        column = indent
                    else:
                        out.append(token)
                        column += len(token)
                elif token[0] in "\u2028\u2029":
                    out.append(token)
                    column = 0
                    after_break = True
                else:
                    if after_break:
                        out.append(" " * indent)
                        column = indent
                        after_break = False
                    text = token.replace("'", "''")
                    out.append(text)
                    column += len(text)
        self.column = column
        self.write_indicator("'", False, False, False)
        self.whitespace = False
        self.indention = False

    def double_quoted(self, s: str, indent: int, allow_breaks: bool) -> None:
        self.write_indicator('"', True, False, False)
        out = self.out
        column = self.column
        if not allow_breaks or " " not in s or s.startswith("\ufeff"):
            # (With a leading BOM even spaces are escaped, so nothing folds.)
            text = _escape_unfolded(s)
            out.append(text)
            column += len(text)
        else:
            last = len(s) - 1
            start = 0
            for match in _SPACE_RUNS.finditer(s):
                at, end = match.span()
                if at > start:
                    text = _escape_double(s[start:at])
                    out.append(text)
                    column += len(text)
                run = end - at
                if column > _BEST_WIDTH and 0 < at < last:
                    out.append("\n" + " " * indent)
                    column = indent
                    if run > 1:
                        # Keep the next space from being eaten as indentation.
                        out.append("\\" + " " * (run - 1))
                        column += run
                else:
                    out.append(" " * run)
                    column += run
                start = end
            if start < len(s):
                text = _escape_double(s[start:])
                out.append(text)
                column += len(text)
        self.column = column
        self.write_indicator('"', False, False, False)
        self.whitespace = False
        self.indention = False

    def literal(self, s: str, indent: int) -> None:
        self.write_indicator("|", True, False, False)
        if s[0] == " " or s[0] in _BREAK_CHARS:
            self.write_indicator(str(_BEST_INDENT), False, False, False)
        if s[-1] not in _BREAK_CHARS:
            self.write_indicator("-", False, False, False)
        elif len(s) == 1 or s[-2] in _BREAK_CHARS:
            self.write_indicator("+", False, False, False)
        out = self.out
        out.append("\n")
        pad = " " * indent
        if "\u2028" not in s and "\u2029" not in s:
            lines = s.split("\n")
            out.append("\n".join([pad + line if line else "" for line in lines]))
            last_line = lines[-1]
            column = indent + len(last_line) if last_line else 0
        else:
            column = 0
            for match in _LITERAL_TOKENS.finditer(s):
                token = match.group()
                if token == "\n":
                    out.append("\n")
                    column = 0
                elif token in ("\u2028", "\u2029"):
                    out.append(token)  # a break for libyaml, but no newline is added
                    column = 0
                else:
                    # Every text run follows a break, so it starts a fresh line.
                    out.append(pad)
                    out.append(token)
                    column = indent + len(token)
        self.column = column
        self.whitespace = True
        self.indention = s[-1] in _BREAK_CHARS


# --------------------------------------------------------------------------
# Non-string scalars
# --------------------------------------------------------------------------


def _format_float(value: float) -> str:
    """Go ``strconv.FormatFloat(value, 'g', -1, 64)`` with yaml.v2's inf/nan names."""
    return format_g(value, nan=".nan", inf=".inf", neg_inf="-.inf")


def _format_atom(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        if _INT64_MIN <= value < _UINT64_END:
            return str(value)
        # Beyond int64/uint64 yaml.v2 resolves the JSON number as a float, or
        # keeps it as a plain string when even a float overflows.
        try:
            return _format_float(float(value))
        except OverflowError:
            return str(value)
    if isinstance(value, float):
        return _format_float(value)
    raise TypeError(f"cannot emit {type(value).__name__} as YAML")


# --------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------


def dump_document(blob: Any) -> str:
    """Return ``"---\\n"`` + the YAML opm writes for one JSON-decoded blob.

    ``blob`` is JSON data as Python values: dict (str keys), list, str, int,
    float, bool or None.  The result is byte-identical (once UTF-8 encoded) to
    one document of an opm ``catalog.yaml``; concatenating the documents of all
    blobs gives the whole file.
    """
    emitter = _Emitter()
    emitter.node(blob, -1, False, False)
    emitter.write_indent(0)  # document end: finish the last line
    emitter.out.insert(0, "---\n")
    return "".join(emitter.out)
