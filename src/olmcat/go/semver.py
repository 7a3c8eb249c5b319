"""Semantic versions and OLM's two version-range dialects, evaluated exactly as the Go tools do.

* **skipRange** (the ``olm.skipRange`` CSV annotation, the ``operatorbundle.skiprange`` column) is
  read by OLM and opm with blang/semver v4.0.0 ``ParseRange``: :func:`parse_skip_range`.
* **OLM 1.0 version ranges** (``spec.version`` of a ClusterExtension) are read by
  operator-controller with Masterminds/semver v3.5.0 ``NewConstraint``: :func:`parse_constraint`.

Versions are :class:`semver.Version` values (re-exported here as :data:`Version`); the parsers below
decide which strings are versions, since each Go library accepts a different set:

* :func:`parse_version` is blang ``Parse``: strict ``MAJOR.MINOR.PATCH[-pre][+build]``.
* :func:`parse_version_tolerant` is blang ``ParseTolerant``: also ``v1.2``, ``01.02.03``, spaces.
* :func:`parse_constraint_version` is Masterminds ``NewVersion``: also ``v1``, ``1.2-rc.1``,
  ``01.2``.

Both range parsers reproduce their library's quirks on purpose (a catalog must resolve here as it
does on a cluster); they are listed in the docstrings of :func:`parse_skip_range` and
:func:`parse_constraint`. Invalid input raises :class:`olmcat.errors.InputError`.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

import semver

from olmcat.errors import InputError

__all__ = [
    "Constraint",
    "SkipRange",
    "Version",
    "parse_constraint",
    "parse_constraint_version",
    "parse_skip_range",
    "parse_version",
    "parse_version_tolerant",
]

Version = semver.Version

_UINT64_MAX: Final = (1 << 64) - 1
_INT64_MIN: Final = -(1 << 63)
_INT64_MAX: Final = (1 << 63) - 1
_DIGITS: Final = frozenset("0123456789")
_IDENT_CHARS: Final = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-")
# Go's unicode.IsSpace, used by strings.TrimSpace; str.strip() would also drop \x1c-\x1f.
_GO_SPACE: Final = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)


class _Bad(ValueError):
    """A syntax problem; the public functions wrap it in an InputError that quotes the input."""


def _quote(text: str) -> str:
    # JSON string syntax keeps the message on one line whatever the input holds.
    return json.dumps(text, ensure_ascii=False)


def _go_len(text: str) -> int:
    """Length in bytes, as Go's len() counts it."""
    return len(text.encode("utf-8", "surrogatepass"))


def _uint64(digits: str) -> int | None:
    """The value of a non-empty ASCII digit string if it fits Go's uint64 (strconv.ParseUint)."""
    if not digits or not _DIGITS.issuperset(digits):
        return None
    significant = digits.lstrip("0") or "0"
    if len(significant) > 20:  # also keeps int() clear of its 4300-digit limit
        return None
    value = int(significant)
    return value if value <= _UINT64_MAX else None


# --------------------------------------------------------------------------------------------------
# blang/semver v4.0.0
# --------------------------------------------------------------------------------------------------


def _blang_number(part: str, what: str) -> int:
    if not _DIGITS.issuperset(part):
        raise _Bad(f"{what} version {_quote(part)} is not a number")
    if len(part) > 1 and part[0] == "0":
        raise _Bad(f"{what} version {_quote(part)} has a leading zero")
    value = _uint64(part)
    if value is None:
        raise _Bad(f"{what} version {_quote(part)} is empty or larger than 2^64-1")
    return value


def _blang_parse(text: str) -> Version:
    if not text:
        raise _Bad("the version is empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise _Bad("MAJOR.MINOR.PATCH is required")
    major = _blang_number(parts[0], "major")
    minor = _blang_number(parts[1], "minor")
    # blang cuts the build at the first "+", then the pre-release at the first "-" before it.
    head, plus, build = parts[2].partition("+")
    patch_text, dash, pre = head.partition("-")
    patch = _blang_number(patch_text, "patch")
    if dash:
        for ident in pre.split("."):
            if not ident:
                raise _Bad("a pre-release identifier is empty")
            if _DIGITS.issuperset(ident):
                if len(ident) > 1 and ident[0] == "0":
                    raise _Bad(f"numeric pre-release identifier {_quote(ident)} has a leading zero")
                if _uint64(ident) is None:
                    raise _Bad(f"numeric pre-release identifier {_quote(ident)} exceeds 2^64-1")
            elif not _IDENT_CHARS.issuperset(ident):
                raise _Bad(f"pre-release identifier {_quote(ident)} is not [0-9A-Za-z-]+")
    if plus:
        for ident in build.split("."):
            if not ident:
                raise _Bad("a build identifier is empty")
            if not _IDENT_CHARS.issuperset(ident):
                raise _Bad(f"build identifier {_quote(ident)} is not [0-9A-Za-z-]+")
    return Version(major, minor, patch, pre if dash else None, build if plus else None)


def _blang_parse_tolerant(text: str) -> Version:
    stripped = text.strip(_GO_SPACE)
    if stripped.startswith("v"):
        stripped = stripped[1:]
    parts = stripped.split(".", 2)
    for index, part in enumerate(parts):
        if _go_len(part) > 1:
            part = part.lstrip("0")
            if not part or part[0] not in _DIGITS:
                part = "0" + part
            parts[index] = part
    if len(parts) < 3:
        if "+" in parts[-1] or "-" in parts[-1]:
            raise _Bad("a version without MINOR or PATCH cannot have a pre-release or build part")
        parts += ["0"] * (3 - len(parts))
    return _blang_parse(".".join(parts))


def parse_version(text: str) -> Version:
    """Parse a strict semantic version as blang/semver ``Parse`` does.

    ``MAJOR.MINOR.PATCH`` are required, without leading zeros and at most 2^64-1; an optional
    ``-pre.release`` and ``+build`` follow, made of non-empty ``[0-9A-Za-z-]`` identifiers (numeric
    pre-release identifiers without leading zeros). No ``v`` prefix, no surrounding whitespace.
    """
    try:
        return _blang_parse(text)
    except _Bad as problem:
        raise InputError(f"invalid version {_quote(text)}: {problem}") from None


def parse_version_tolerant(text: str) -> Version:
    """Parse a version as blang/semver ``ParseTolerant`` does (how OLM reads CSV ``spec.version``).

    Before the strict rules of :func:`parse_version` apply, surrounding whitespace and one leading
    lowercase ``v`` are removed, leading zeros of each of the first three dot-separated parts are
    dropped and a missing MINOR or PATCH becomes ``0`` (``1.2`` is 1.2.0); a shortened version
    cannot carry a pre-release or build (``1.0-rc.1`` is invalid).
    """
    try:
        return _blang_parse_tolerant(text)
    except _Bad as problem:
        raise InputError(f"invalid version {_quote(text)}: {problem}") from None


_BLANG_OPERATORS: Final[dict[str, Callable[[int], bool]]] = {
    "": lambda order: order == 0,
    "=": lambda order: order == 0,
    "==": lambda order: order == 0,
    "!": lambda order: order != 0,
    "!=": lambda order: order != 0,
    ">": lambda order: order > 0,
    ">=": lambda order: order >= 0,
    "<": lambda order: order < 0,
    "<=": lambda order: order <= 0,
}


def _blang_tokens(text: str) -> list[str]:
    """blang's splitAndTrim: split on spaces that do not follow '<', '>' or '=', then drop spaces.

    It works on UTF-8 bytes and silently drops one-byte tokens ("1 >" is "1"), as blang does.
    """
    data = text.encode("utf-8", "surrogatepass")
    tokens: list[bytes] = []
    start = 0
    previous = 0  # the last non-space byte seen
    for index, byte in enumerate(data):
        if byte == 0x20 and previous not in b"<>=":
            if index - start > 1:
                tokens.append(data[start:index])
            start = index + 1
        elif byte != 0x20:
            previous = byte
    if len(data) - start > 1:
        tokens.append(data[start:])
    return [token.replace(b" ", b"").decode("utf-8", "surrogatepass") for token in tokens]


def _blang_split_operator(token: str) -> tuple[str, str]:
    """Split at the first digit (Go's unicode.IsDigit, i.e. any Unicode decimal digit)."""
    for index, char in enumerate(token):
        if char.isdecimal():
            return token[:index].strip(_GO_SPACE), token[index:]
    raise _Bad(f"no version number in {_quote(token)}")


def _go_atoi(text: str) -> int | None:
    """strconv.Atoi on a 64-bit platform: optional sign, ASCII digits, int64 range."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not _DIGITS.issuperset(digits):
        return None
    significant = digits.lstrip("0") or "0"
    if len(significant) > 19:
        return None
    value = -int(significant) if text[0] == "-" else int(significant)
    return value if _INT64_MIN <= value <= _INT64_MAX else None


def _blang_bump(flat: str, index: int | None) -> str:
    """Increment one dot-separated part as blang does: "" when it cannot, wrapping at int64."""
    if index is None:
        return ""
    parts = flat.split(".")
    number = _go_atoi(parts[index])
    if number is None:
        return ""
    number += 1
    if number > _INT64_MAX:
        number -= 1 << 64
    parts[index] = str(number)
    return ".".join(parts)


def _blang_expand(token: str) -> list[str]:
    """blang v4.0.0 expandWildcardVersion for one token: the tokens that replace it.

    It triggers on any "x" in the token (so on pre-releases such as "1.0.0-xyz" too) and works
    on the text, which is why its odd results (see parse_skip_range) must be copied as text.
    """
    if "x" not in token:
        return [token]
    operator, version = _blang_split_operator(token)
    parts = version.split(".")
    bump_index: int | None = None  # which part "one past the wildcard" increments
    if parts[-1] == "x" and len(parts) == 3:
        bump_index = 1
    elif parts[-1] == "x" and len(parts) == 2:
        bump_index = 0
    flat = version.replace(".x.x", ".x", 1).replace(".x", ".0", 1)
    if len(flat.split(".")) == 2:
        flat += ".0"
    if operator == ">":
        return [">=" + _blang_bump(flat, bump_index)]
    if operator == ">=":
        return [">=" + flat]
    if operator == "<":
        return ["<" + flat]
    if operator == "<=":
        return ["<" + _blang_bump(flat, bump_index)]
    if operator in ("", "=", "=="):
        return [">=" + flat, "<" + _blang_bump(flat, bump_index)]
    if operator in ("!=", "!"):
        return ["<" + flat, ">=" + _blang_bump(flat, bump_index)]
    return [flat]  # blang drops an operator it does not know here: "~1.2.x" means "1.2.0"


_Comparison = tuple[str, Version]


def _parse_blang_range(text: str) -> tuple[tuple[_Comparison, ...], ...]:
    tokens = _blang_tokens(text)
    groups: list[list[str]] = [[]]
    for index, token in enumerate(tokens):
        if token == "||":
            if index == 0:
                raise _Bad('it starts with "||"')
            groups.append([])
        else:
            groups[-1].append(token)
    if not groups[-1]:
        raise _Bad('it ends with "||"' if tokens else "it is empty")
    if not all(groups):
        # Go accepts this and then calls a nil function (a panic) unless an earlier part matched.
        raise _Bad('it has nothing between two "||"')
    alternatives: list[tuple[_Comparison, ...]] = []
    for group in groups:
        comparisons: list[_Comparison] = []
        for token in group:
            for part in _blang_expand(token):
                try:
                    operator, version_text = _blang_split_operator(part)
                except _Bad:
                    if part == token:
                        raise
                    raise _Bad(
                        f"{_quote(token)} is read as a wildcard and becomes {_quote(part)}"
                    ) from None
                if operator not in _BLANG_OPERATORS:
                    raise _Bad(
                        f"{_quote(operator)} in {_quote(part)} is not one of "
                        "=, ==, !=, !, >, >=, <, <="
                    )
                try:
                    bound = _blang_parse(version_text)
                except _Bad as problem:
                    raise _Bad(
                        f"version {_quote(version_text)} in {_quote(part)}: {problem}"
                    ) from None
                comparisons.append((operator, bound))
        alternatives.append(tuple(comparisons))
    return tuple(alternatives)


class SkipRange:
    """A parsed skipRange; :meth:`contains` says whether a bundle version falls in it."""

    __slots__ = ("_alternatives", "text")

    def __init__(self, text: str, alternatives: tuple[tuple[_Comparison, ...], ...]) -> None:
        self.text: Final = text
        self._alternatives = alternatives

    def contains(self, version: Version | str) -> bool:
        """Whether ``version`` is in the range (a string is read with :func:`parse_version`).

        Plain semver precedence, pre-releases included: ``<1.0.0`` contains ``1.0.0-rc.1``.
        """
        candidate = parse_version(version) if isinstance(version, str) else version
        return any(
            all(_BLANG_OPERATORS[operator](candidate.compare(bound)) for operator, bound in group)
            for group in self._alternatives
        )

    def __contains__(self, version: object) -> bool:
        return isinstance(version, (Version, str)) and self.contains(version)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"SkipRange({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SkipRange) and other.text == self.text

    def __hash__(self) -> int:
        return hash(("SkipRange", self.text))


def parse_skip_range(text: str) -> SkipRange:
    """Parse a skipRange as blang/semver v4.0.0 ``ParseRange`` does.

    Grammar: comparisons separated by spaces are ANDed, groups separated by a ``||`` token are
    ORed. A comparison is an operator (``=``, ``==``, none: equal; ``!=``, ``!``; ``>``, ``>=``,
    ``<``, ``<=``) and a strict version (:func:`parse_version`), so ``>=1.0`` is invalid. A space
    right after ``<``, ``>`` or ``=`` is allowed (``< 0.6.0``, ``>= 1.0.0``); other spaces split.
    A wildcard ``x`` as the last of three (``1.2.x``) or two (``1.x``) parts expands: ``>=1.2.x`` to
    ``>=1.2.0``, ``>1.2.x`` to ``>=1.3.0``, ``<1.2.x`` to ``<1.2.0``, ``<=1.2.x`` to ``<1.3.0``,
    ``1.2.x`` to ``>=1.2.0 <1.3.0``. Matching uses semver precedence with pre-releases.

    blang quirks kept on purpose: ``!=1.2.x`` becomes ``<1.2.0 >=1.3.0`` ANDed, so it matches
    nothing; ``1.x.x`` becomes ``>=1.0.0 <1.1.0``; an operator other than the ones above in front of
    a wildcard is dropped (``~1.2.x`` means ``=1.2.0``); a one-character token is ignored
    (``1.0.0 >`` is ``1.0.0``; ``! 1.0.0`` is ``1.0.0``); any token with an ``x`` in it is treated
    as a wildcard, so an exact pre-release with an ``x`` (``1.0.0-xyz``) is invalid. Only the ASCII
    space separates: ``>=1.0.0\\t<2.0.0`` is invalid.

    Deviation: blang accepts ``a || || b`` and then panics when the empty part is evaluated; this
    raises :class:`InputError` instead.
    """
    try:
        alternatives = _parse_blang_range(text)
    except _Bad as problem:
        raise InputError(f"invalid skipRange {_quote(text)}: {problem}") from None
    return SkipRange(text, alternatives)


# --------------------------------------------------------------------------------------------------
# Masterminds/semver v3.5.0
# --------------------------------------------------------------------------------------------------

_MM_MAX_CONSTRAINT_LEN: Final = 512
_MM_MAX_GROUPS: Final = 32
_MM_MAX_VERSION_LEN: Final = 256
_MM_SPACE: Final = "[ \t\n\f\r]"  # Go regexp's \s: ASCII only, and no \v
_MM_IDENTS: Final = r"[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*"
_MM_SEGMENT: Final = r"[0-9|xX*]+"  # Masterminds' class [0-9|x|X|\*] really does admit "|"
_MM_VERSION: Final = re.compile(
    rf"v?([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?(?:-({_MM_IDENTS}))?(?:\+({_MM_IDENTS}))?"
)
_MM_CONSTRAINT_VERSION: Final = re.compile(
    rf"v?(?P<major>{_MM_SEGMENT})(?P<minor>\.{_MM_SEGMENT})?(?P<patch>\.{_MM_SEGMENT})?"
    rf"(?P<pre>-{_MM_IDENTS})?(?:\+{_MM_IDENTS})?"
)
_MM_UNNAMED_VERSION: Final = re.sub(r"\(\?P<\w+>", "(?:", _MM_CONSTRAINT_VERSION.pattern)
_MM_HYPHEN_RANGE: Final = re.compile(
    rf"{_MM_SPACE}*(?P<low>{_MM_UNNAMED_VERSION}){_MM_SPACE}+-{_MM_SPACE}+"
    rf"(?P<high>{_MM_UNNAMED_VERSION}){_MM_SPACE}*"
)
_MM_LEXEME: Final = re.compile(
    rf"(?P<space>{_MM_SPACE}+)|(?P<comma>,)|(?P<op>[=!<>~^]+)|(?P<version>[^ \t\n\f\r,=!<>~^]+)"
)
# Masterminds operator spelling -> the check it selects.
_MM_OPERATORS: Final = {
    "": "=",
    "=": "=",
    "!=": "!=",
    ">": ">",
    "<": "<",
    ">=": ">=",
    "=>": ">=",
    "<=": "<=",
    "=<": "<=",
    "~": "~",
    "~>": "~",
    "^": "^",
}


def _mm_new_version(text: str) -> Version:
    """Masterminds ``NewVersion`` with its default CoerceNewVersion = true."""
    if _go_len(text) > _MM_MAX_VERSION_LEN:
        raise _Bad(f"it is longer than {_MM_MAX_VERSION_LEN} bytes")
    match = _MM_VERSION.fullmatch(text)
    if match is None:
        raise _Bad("it is not a semantic version")
    numbers: list[int] = []
    for segment in match.group(1, 2, 3):
        value = 0 if segment is None else _uint64(segment)
        if value is None:
            raise _Bad(f"version number {_quote(segment)} exceeds 2^64-1")
        numbers.append(value)
    pre, build = match.group(4, 5)
    for ident in (pre or "").split("."):
        if len(ident) > 1 and ident[0] == "0" and _DIGITS.issuperset(ident):
            raise _Bad(f"numeric pre-release identifier {_quote(ident)} has a leading zero")
    return Version(numbers[0], numbers[1], numbers[2], pre, build)


def parse_constraint_version(text: str) -> Version:
    """Parse a version as Masterminds/semver ``NewVersion`` does (OLM 1.0 range checks).

    Accepts ``[v]MAJOR[.MINOR[.PATCH]][-pre][+build]``: missing parts are 0 (``v1`` is 1.0.0,
    ``1.2-rc.1`` is 1.2.0-rc.1), leading zeros in MAJOR/MINOR/PATCH are allowed (``01.2.3`` is
    1.2.3), numbers fit 64 bits, numeric pre-release identifiers have no leading zero, at most 256
    bytes. No surrounding whitespace.
    """
    try:
        return _mm_new_version(text)
    except _Bad as problem:
        raise InputError(f"invalid version {_quote(text)}: {problem}") from None


def _go_prerelease_part_order(mine: str, other: str) -> int:
    if mine == other:
        return 0
    if not mine:
        return -1
    if not other:
        return 1
    mine_number, other_number = _uint64(mine), _uint64(other)
    if mine_number is None and other_number is None:
        return 1 if mine > other else -1
    if other_number is None:
        return -1
    if mine_number is None:
        return 1
    return 1 if mine_number > other_number else -1


def _has_oversized_number(prerelease: str | None) -> bool:
    return any(
        _DIGITS.issuperset(ident) and _uint64(ident) is None
        for ident in (prerelease or "").split(".")
        if ident
    )


def _mm_compare(left: Version, right: Version) -> int:
    """Masterminds ``Version.Compare``.

    semver's own ordering agrees except for numeric pre-release identifiers above 2^64-1, which
    Masterminds orders as text (its ParseUint fails on them); only then is the Go order spelled out.
    """
    if not (_has_oversized_number(left.prerelease) or _has_oversized_number(right.prerelease)):
        return left.compare(right)
    for mine, other in (
        (left.major, right.major),
        (left.minor, right.minor),
        (left.patch, right.patch),
    ):
        if mine != other:
            return -1 if mine < other else 1
    left_pre, right_pre = left.prerelease or "", right.prerelease or ""
    if not left_pre or not right_pre:
        return (not left_pre) - (not right_pre)
    left_parts, right_parts = left_pre.split("."), right_pre.split(".")
    for index in range(max(len(left_parts), len(right_parts))):
        order = _go_prerelease_part_order(
            left_parts[index] if index < len(left_parts) else "",
            right_parts[index] if index < len(right_parts) else "",
        )
        if order:
            return order
    return 0


def _same_prerelease(left: str, right: str) -> bool:
    """Masterminds comparePrerelease(left, right) == 0: equal parts, the shorter padded with ""."""
    left_parts, right_parts = left.split("."), right.split(".")
    width = max(len(left_parts), len(right_parts))
    return left_parts + [""] * (width - len(left_parts)) == right_parts + [""] * (
        width - len(right_parts)
    )


@dataclass(frozen=True)
class _Term:
    """One comparison of an OLM 1.0 range: Masterminds' ``constraint`` struct."""

    text: str
    check: str  # a value of _MM_OPERATORS
    bound: Version
    dirty: bool  # some part was a wildcard or missing
    minor_dirty: bool  # MINOR was a wildcard or missing
    patch_dirty: bool  # PATCH was a wildcard or missing (MINOR was not)

    def allows(self, version: Version, prereleases: bool) -> bool:
        if version.prerelease and not prereleases:
            return False
        bound = self.bound
        order = _mm_compare(version, bound)
        if self.check == "=":
            return self._tilde(version, order) if self.dirty else order == 0
        if self.check == "~":
            return self._tilde(version, order)
        if self.check == "^":
            return self._caret(version, order)
        if self.check == ">=":
            return order >= 0
        if self.check == "<":
            return order < 0
        if self.check == ">":
            if not self.dirty:
                return order > 0
            if version.major != bound.major:
                return version.major > bound.major
            if self.minor_dirty:  # ">1" wants 2.0.0 or above
                return False
            if self.patch_dirty:  # ">1.1" wants 1.2.0 or above
                return version.minor > bound.minor
            return order > 0
        if self.check == "<=":
            if not self.dirty:
                return order <= 0
            if version.major > bound.major:
                return False
            return not (
                version.major == bound.major
                and version.minor > bound.minor
                and not self.minor_dirty
            )
        return self._not_equal(version, order)

    def _tilde(self, version: Version, order: int) -> bool:
        bound = self.bound
        if order < 0:
            return False
        if (bound.major, bound.minor, bound.patch) == (0, 0, 0) and not (
            self.minor_dirty or self.patch_dirty
        ):
            return True  # "~0.0.0", "*": anything
        if version.major != bound.major:
            return False
        return version.minor == bound.minor or self.minor_dirty

    def _caret(self, version: Version, order: int) -> bool:
        bound = self.bound
        if order < 0:
            return False
        if bound.major > 0 or self.minor_dirty:
            return version.major == bound.major
        if version.major > 0:
            return False
        if bound.minor > 0 or self.patch_dirty:
            return version.minor == bound.minor
        if version.minor > 0:
            return False
        # Masterminds ends here for "^*" too, so "^*" admits only 0.0.0.
        return version.patch == bound.patch

    def _not_equal(self, version: Version, order: int) -> bool:
        bound = self.bound
        if self.dirty:
            if bound.major != version.major:
                return True
            if bound.minor != version.minor and not self.minor_dirty:
                return True
            if self.minor_dirty:
                return False
            if bound.patch != version.patch and not self.patch_dirty:
                return True
            if self.patch_dirty:
                mine, theirs = version.prerelease or "", bound.prerelease or ""
                return bool(mine or theirs) and not _same_prerelease(mine, theirs)
        return order != 0


def _mm_rewrite_hyphen_ranges(text: str) -> str:
    """Masterminds rewriteRange: "A - B" becomes ">= A, <= B ", replacing the first equal text."""
    rewritten = text
    for match in _MM_HYPHEN_RANGE.finditer(text):
        rewritten = rewritten.replace(match.group(0), f">= {match['low']}, <= {match['high']} ", 1)
    return rewritten


def _mm_items(group: str) -> list[tuple[str, str]]:
    """Split one "||" alternative into (operator, version) pairs, or raise _Bad.

    Accepts what Masterminds' validConstraintRegex accepts and splits as its findConstraintRegex
    does, by scanning runs of characters instead: run by Python's backtracking engine those regexes
    take exponential time on inputs such as many versions separated by several spaces.
    """
    lexemes = [(str(match.lastgroup), match.group()) for match in _MM_LEXEME.finditer(group)]
    lexemes.append(("end", ""))
    items: list[tuple[str, str]] = []
    index = 1 if lexemes[0][0] == "space" else 0
    while True:
        operator = ""
        if lexemes[index][0] == "op":
            operator = lexemes[index][1]
            if operator not in _MM_OPERATORS:
                raise _Bad(f"{_quote(operator)} is not an operator")
            index += 1
            if lexemes[index][0] == "space":
                index += 1
        kind, version = lexemes[index]
        if kind != "version":
            raise _Bad(f"a version is missing in {_quote(group)}")
        if _MM_CONSTRAINT_VERSION.fullmatch(version) is None:
            raise _Bad(f"{_quote(version)} is not a version")
        items.append((operator, version))
        index += 1
        spaced = lexemes[index][0] == "space"
        if spaced:
            index += 1
        kind, following = lexemes[index]
        if kind == "end":
            return items
        if kind == "comma":
            index += 1
            if lexemes[index][0] == "space":
                index += 1
        elif not spaced:
            raise _Bad(f"a space or comma is missing before {_quote(following)}")


def _is_wildcard(part: str) -> bool:
    return part in ("x", "X", "*")


def _mm_term(operator: str, version: str) -> _Term:
    match = _MM_CONSTRAINT_VERSION.fullmatch(version)
    assert match is not None  # _mm_items checked it
    major, minor, patch = match["major"], match["minor"], match["patch"]
    pre = match["pre"] or ""
    dirty = minor_dirty = patch_dirty = True
    if _is_wildcard(major):
        bound_text, minor_dirty, patch_dirty = "0.0.0" + pre, False, False
    elif minor is None or _is_wildcard(minor[1:]):
        bound_text, patch_dirty = major + ".0.0" + pre, False
    elif patch is None or _is_wildcard(patch[1:]):
        bound_text, minor_dirty = major + minor + ".0" + pre, False
    else:
        # Complete: the "v" prefix and the build stay, NewVersion handles them.
        bound_text, dirty, minor_dirty, patch_dirty = version, False, False, False
    try:
        bound = _mm_new_version(bound_text)
    except _Bad as problem:
        raise _Bad(f"{_quote(operator + version)}: {problem}") from None
    return _Term(
        text=operator + version,
        check=_MM_OPERATORS[operator],
        bound=bound,
        dirty=dirty,
        minor_dirty=minor_dirty,
        patch_dirty=patch_dirty,
    )


@dataclass(frozen=True)
class _Alternative:
    terms: tuple[_Term, ...]
    has_prerelease: bool  # a term names a pre-release: the group then admits pre-releases


def _parse_mm_constraint(text: str) -> tuple[_Alternative, ...]:
    if _go_len(text) > _MM_MAX_CONSTRAINT_LEN:
        raise _Bad(f"it is longer than {_MM_MAX_CONSTRAINT_LEN} bytes")
    groups = _mm_rewrite_hyphen_ranges(text).split("||")
    if len(groups) > _MM_MAX_GROUPS:
        raise _Bad(f'it has more than {_MM_MAX_GROUPS} alternatives joined by "||"')
    alternatives: list[_Alternative] = []
    for group in groups:
        terms = tuple(_mm_term(operator, version) for operator, version in _mm_items(group))
        alternatives.append(_Alternative(terms, any(term.bound.prerelease for term in terms)))
    return tuple(alternatives)


class Constraint:
    """A parsed OLM 1.0 version range; :meth:`contains` says whether a version satisfies it."""

    __slots__ = ("_alternatives", "include_prerelease", "text")

    def __init__(
        self, text: str, alternatives: tuple[_Alternative, ...], include_prerelease: bool
    ) -> None:
        self.text: Final = text
        self.include_prerelease: Final = include_prerelease
        self._alternatives = alternatives

    def contains(self, version: Version | str) -> bool:
        """Whether ``version`` satisfies the range (a string is read as Masterminds does).

        A pre-release version only matches an ``||`` group that names a pre-release in any of
        its comparisons (or when ``include_prerelease`` is set).
        """
        candidate = parse_constraint_version(version) if isinstance(version, str) else version
        return any(
            all(
                term.allows(candidate, self.include_prerelease or alternative.has_prerelease)
                for term in alternative.terms
            )
            for alternative in self._alternatives
        )

    def best(self, versions: Iterable[Version]) -> Version | None:
        """The highest of ``versions`` in the range, or None (OLM 1.0's pick, graph aside)."""
        return max(
            (version for version in versions if self.contains(version)),
            key=functools.cmp_to_key(_mm_compare),
            default=None,
        )

    def __contains__(self, version: object) -> bool:
        return isinstance(version, (Version, str)) and self.contains(version)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Constraint({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Constraint)
            and other.text == self.text
            and other.include_prerelease == self.include_prerelease
        )

    def __hash__(self) -> int:
        return hash(("Constraint", self.text, self.include_prerelease))


def parse_constraint(text: str, *, include_prerelease: bool = False) -> Constraint:
    """Parse an OLM 1.0 version range as Masterminds/semver v3.5.0 ``NewConstraint`` does.

    Comparisons separated by spaces or a comma are ANDed; ``||`` separates ORed groups. Operators:
    none or ``=`` (equal), ``!=``, ``>``, ``<``, ``>=`` (or ``=>``), ``<=`` (or ``=<``), ``~`` (or
    ``~>``), ``^``; spaces may follow an operator. Versions take an optional ``v``, may omit MINOR
    and PATCH, and may use ``x``, ``X`` or ``*`` for a part. ``A - B`` (spaces required) means
    ``>= A, <= B``. At most 512 bytes and 32 groups; the empty string is invalid.

    Meaning, with ``1.2.x`` or ``1.2`` (PATCH open) and ``1.x`` or ``1`` (MINOR open):
    ``1.2.x`` is ``>=1.2.0 <1.3.0``; ``1.x`` is ``>=1.0.0 <2.0.0``; ``*`` is ``>=0.0.0``;
    ``~1.2.3`` is ``>=1.2.3 <1.3.0``; ``~1`` is ``>=1.0.0 <2.0.0``; ``^1.2.3`` is ``>=1.2.3
    <2.0.0``; ``^0.2.3`` is ``>=0.2.3 <0.3.0``; ``^0.0.3`` is ``>=0.0.3 <0.0.4``; ``^0.0`` is
    ``>=0.0.0 <0.1.0``; ``^0`` is ``>=0.0.0 <1.0.0``; ``>1.2`` is ``>=1.3.0``; ``<=1.2`` is
    ``<1.3.0``; ``<1.2`` is ``<1.2.0``; ``!=1.2`` excludes ``1.2.*``.

    Pre-releases: a pre-release version matches only a ``||`` group in which some comparison has
    a pre-release (``>=1.0.0-0 <2.0.0`` admits ``1.5.0-rc.1``; ``>=1.0.0 <2.0.0`` does not), or
    every group when ``include_prerelease`` (Masterminds' ``IncludePrerelease``) is set. Within a
    group, comparisons use semver precedence, so ``~1.2.3-beta.2`` admits ``1.2.4-beta.1``.

    Masterminds quirks kept on purpose: ``^*`` (and ``^x``) admits only 0.0.0 while ``~*`` and
    ``*`` admit everything; ``<=*`` admits only 0.0.z; ``x.2.3`` is ``*``; a wildcard drops the
    build metadata and any parts after it.
    """
    try:
        alternatives = _parse_mm_constraint(text)
    except _Bad as problem:
        raise InputError(f"invalid version range {_quote(text)}: {problem}") from None
    return Constraint(text, alternatives, include_prerelease)
