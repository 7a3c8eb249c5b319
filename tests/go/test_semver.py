"""Tests of olmcat.go.semver: blang/semver v4 skipRanges and Masterminds/semver v3 OLM 1.0 ranges.

Expected values come from the reference documents (003 §7.3.8.3, tables 7.4-7.7), from the test
tables of blang/semver v4.0.0 and Masterminds/semver v3 (re-selected and written here as data),
from the corpus in ../shared, and from the libraries' source where their tests are silent.
"""

from __future__ import annotations

import itertools
import re
import sqlite3
from collections.abc import Callable

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from olmcat.errors import InputError
from olmcat.go.semver import (
    Version,
    _mm_items,
    parse_constraint,
    parse_constraint_version,
    parse_skip_range,
    parse_version,
    parse_version_tolerant,
)
from tests.support.paths import SHARED

CORPUS = SHARED / "corpus"


def v(text: str) -> Version:
    return parse_version(text)


# ==================================================================================================
# OLM 1.0 ranges: 003 §7.3.8.3
# ==================================================================================================

# Table 7.4 (basic comparisons): operator, range, versions inside, versions outside.
TABLE_7_4 = [
    ("=", "=1.11.0", ["1.11.0"], ["1.11.1", "1.10.9", "1.11.0-rc.1"]),
    ("!=", "!=1.11.0", ["1.11.1", "1.10.0", "2.0.0"], ["1.11.0"]),
    (">", ">1.11.0", ["1.11.1", "2.0.0"], ["1.11.0", "1.10.0"]),
    ("<", "<1.11.0", ["1.10.9", "0.0.1"], ["1.11.0", "1.12.0", "1.11.0-rc.1"]),
    (">=", ">=1.11.0", ["1.11.0", "1.11.1", "3.0.0"], ["1.10.9"]),
    ("<=", "<=1.11.0", ["1.11.0", "1.0.0"], ["1.11.1"]),
]


@pytest.mark.parametrize(
    ("text", "inside", "outside"),
    [pytest.param(t, i, o, id=f"table7.4[{op}]") for op, t, i, o in TABLE_7_4],
)
def test_table_7_4_basic_comparisons(text: str, inside: list[str], outside: list[str]) -> None:
    constraint = parse_constraint(text)
    assert [x for x in inside if not constraint.contains(x)] == []
    assert [x for x in outside if constraint.contains(x)] == []


def test_range_example_from_cr() -> None:
    # 003's example ClusterExtension spec.version: ">=1.11, <1.13"
    constraint = parse_constraint(">=1.11, <1.13")
    assert constraint.contains("1.11.0") and constraint.contains("1.12.9")
    assert not constraint.contains("1.10.99") and not constraint.contains("1.13.0")
    assert str(constraint) == ">=1.11, <1.13"


# Tables 7.5 (wildcards), 7.6 (~) and 7.7 (^): "comparison" and the "matching string" the table
# gives for it, plus versions at the edges that must be inside / outside.
EQUIVALENCES = [
    ("7.5", "1.11.x", ">=1.11.0, <1.12.0", ["1.11.0", "1.11.9"], ["1.10.9", "1.12.0"]),
    ("7.5", ">=1.12.X", ">=1.12.0", ["1.12.0", "9.0.0"], ["1.11.9"]),
    ("7.5", "<=2.x", "<3", ["2.99.99", "0.0.0"], ["3.0.0"]),
    ("7.5", "*", ">=0.0.0", ["0.0.0", "7.8.9"], ["1.0.0-rc.1"]),
    ("7.6", "~1.11.0", ">=1.11.0, <1.12.0", ["1.11.0", "1.11.5"], ["1.10.9", "1.12.0"]),
    ("7.6", "~1", ">=1, <2", ["1.0.0", "1.99.0"], ["0.9.0", "2.0.0"]),
    ("7.6", "~1.12", ">=1.12, <1.13", ["1.12.0", "1.12.7"], ["1.11.9", "1.13.0"]),
    ("7.6", "~1.12.x", ">=1.12.0, <1.13.0", ["1.12.0", "1.12.7"], ["1.11.9", "1.13.0"]),
    ("7.6", "~1.x", ">=1, <2", ["1.0.0", "1.5.0"], ["0.9.9", "2.0.0"]),
    ("7.7", "^0", ">=0.0.0, <1.0.0", ["0.0.0", "0.9.9"], ["1.0.0"]),
    ("7.7", "^0.0", ">=0.0.0, <0.1.0", ["0.0.0", "0.0.9"], ["0.1.0"]),
    ("7.7", "^0.0.3", ">=0.0.3, <0.0.4", ["0.0.3"], ["0.0.2", "0.0.4"]),
    ("7.7", "^0.2", ">=0.2.0, <0.3.0", ["0.2.0", "0.2.9"], ["0.1.9", "0.3.0"]),
    ("7.7", "^0.2.3", ">=0.2.3, <0.3.0", ["0.2.3", "0.2.9"], ["0.2.2", "0.3.0"]),
    ("7.7", "^1.2.x", ">= 1.2.0, < 2.0.0", ["1.2.0", "1.9.0"], ["1.1.9", "2.0.0"]),
    ("7.7", "^1.2.3", ">= 1.2.3, < 2.0.0", ["1.2.3", "1.99.0"], ["1.2.2", "2.0.0"]),
    ("7.7", "^2.x", ">= 2.0.0, < 3", ["2.0.0", "2.9.9"], ["1.9.9", "3.0.0"]),
    ("7.7", "^2.3", ">= 2.3, < 3", ["2.3.0", "2.9.9"], ["2.2.9", "3.0.0"]),
]

GRID = [
    Version(major, minor, patch, pre)
    for major, minor, patch, pre in itertools.product(
        range(4), [0, 1, 2, 3, 10, 11, 12, 13], range(5), [None, "rc.1"]
    )
]


@pytest.mark.parametrize(
    ("comparison", "matching", "inside", "outside"),
    [pytest.param(c, m, i, o, id=f"table{t}[{c}]") for t, c, m, i, o in EQUIVALENCES],
)
def test_tables_7_5_to_7_7(
    comparison: str, matching: str, inside: list[str], outside: list[str]
) -> None:
    left, right = parse_constraint(comparison), parse_constraint(matching)
    assert [x for x in inside if not left.contains(x)] == []
    assert [x for x in outside if left.contains(x)] == []
    assert [x for x in GRID if left.contains(x) != right.contains(x)] == []


def test_or_between_ranges() -> None:
    # 003: comparison strings can be joined with "||".
    constraint = parse_constraint("~1.11.0 || ^2.3")
    assert constraint.contains("1.11.4") and constraint.contains("2.9.0")
    assert not constraint.contains("1.12.0") and not constraint.contains("3.0.0")


# ==================================================================================================
# Masterminds/semver v3: cases from its constraint test tables (v3 semantics; see parse_constraint)
# ==================================================================================================

MASTERMINDS_CHECKS = [
    ("=2.0.0", "1.2.3", False),
    ("=2.0.0", "2.0.0", True),
    ("=2.0", "2.0.1", True),
    ("4.1", "4.1.0", True),
    ("!=4.1.0", "4.1.0", False),
    ("!=4.1.0", "4.1.1", True),
    ("!=4.1", "4.1.1", False),
    ("!=4.1", "5.1.0-alpha.1", False),
    ("!=4.1-alpha", "4.1.0", True),
    ("!=4.1", "5.1.0", True),
    ("!=4.x", "4.1.0", False),
    ("!=4.2.x", "4.2.3", False),
    ("!=4.1.x", "4.2.0", True),
    ("<11", "0.1.0", True),
    ("<11", "11.1.0", False),
    ("<1.1", "1.1.1", False),
    ("<1.x", "1.1.1", False),
    ("<1.x", "0.1.1", True),
    ("<1.1.x", "1.1.500", False),
    ("<1.2.x", "1.1.1", True),
    ("<=11", "11.2.3", True),
    ("<=11", "12.2.3", False),
    ("<=1.1", "1.1.1", True),
    ("<=1.1", "1.2.3", False),
    ("<=1.1.x", "1.2.500", False),
    (">1.1", "1.1.0", False),
    (">0", "0", False),
    (">0", "1", True),
    (">11", "11.1.0", False),
    (">11.1", "11.1.1", False),
    (">11.1", "11.2.1", True),
    (">=11.1", "11.0.2", False),
    (">=0", "0", True),
    ("=0", "1", False),
    ("*", "4.5.6", True),
    ("2.*", "3.4.5", False),
    ("2.*", "2.1.1", True),
    ("2.1.*", "2.2.1", False),
    ("2", "2.1.1", True),
    ("2.1", "2.2.1", False),
    ("~1.2.3", "1.2.4", True),
    ("~1.2.3", "1.3.4", False),
    ("~1", "2.3.4", False),
    ("~0.2.3", "0.2.5", True),
    ("~0.2.3", "0.3.5", False),
    ("~*", "2.1.1", True),
    ("~0.0.0", "1.2.3", True),
    ("^1.2.3", "1.2.1", False),
    ("^1.1.0", "2.1.0", False),
    ("^1.x", "2.1.1", False),
    ("^0.2.3", "0.5.6", False),
    ("^0.0.3", "0.0.4", False),
    ("^0.0", "0.1.4", False),
    ("^0.0", "1.0.4", False),
    ("^0", "1.1.4", False),
    ("^0.0.0", "1.2.3", False),
    ("0.x.x", "1.2.3", False),
    ("0.0.x", "1.2.3", False),
    ("1.x", "1.4", True),
    (">1.1, <2", "1.1.1", False),
    (">1.1, <2", "1.2.1", True),
    (">1.1    <3", "4.3.2", False),
    (">=1.1, <2, !=1.2.3", "1.2.3", False),
    (">=1.1, <2, !=1.2.3 || > 3", "4.1.2", True),
    (">=1.1, <2, !=1.2.3 || > 3", "3.1.2", False),
    (">=1.1, <2, !=1.2.3 || >= 3", "3.0.0", True),
    ("> 1.1, <     2", "1.1.1", False),
    (">= 1.1 <2 != 1.2.3 || > 3", "4.1.2", True),
    ("1.1 - 2", "1.1.1", True),
    ("1.5.0 - 4.5", "3.7.0", True),
    ("1.1-3", "4.3.2", False),  # no spaces: not a hyphen range but 1.1 with pre-release "3"
    ("1.0.0 - 2.0.0 <=2.0.0", "1.5.0", True),
    ("1.0.0 - 2.0.0, <=2.0.0", "1.5.0", True),
    ("=> 1.2, =< 1.4", "1.3.0", True),
    ("~> 1.2", "1.2.9", True),
    ("v1.2.3", "1.2.3", True),
]

# Pre-release edge cases (Masterminds tables and its v3.4 group rule).
MASTERMINDS_PRERELEASE_CHECKS = [
    (">0", "0.0.1-alpha", False),
    (">0-0", "0.0.1-alpha", False),
    (">0.0-0", "0.0.1-alpha", False),
    (">0.0.0-0", "0.0.0-alpha", True),
    (">1.2.3-alpha.1", "1.2.3-alpha.2", True),
    (">1.2.3-alpha.1", "1.3.3-alpha.2", True),
    (">=0", "0.0.1-alpha", False),
    (">=0-0", "0.0.1-alpha", True),
    (">=0.0-0", "0.0.1-alpha", True),
    (">=0-0", "0.0.0-alpha", True),
    (">=0.0.0-0", "3.4.5-beta.1", True),
    ("<0", "0.0.0-alpha", False),
    ("<0-z", "0.0.0-alpha", True),
    ("<=1.1", "0.1.0-alpha", False),
    ("<=1.1-a", "0.1.0-alpha", True),
    (">=1.1", "4.1.0-beta", False),
    ("*", "1.2.3-alpha.1", False),
    ("*-0", "1.2.3-alpha.1", True),
    ("~1.1", "1.1.1-alpha", False),
    ("~1.1-alpha", "1.1.1-beta", True),
    ("~1.1.1-beta", "1.1.1-alpha", False),
    ("~1.1.1-beta", "1.1.1", True),
    ("~1.2.3-beta.2", "1.2.3-beta.4", True),
    ("~1.2.3-beta.2", "1.2.4-beta.2", True),  # unlike npm: not limited to 1.2.3-*
    ("~1.2.3-beta.2", "1.3.4-beta.2", False),
    ("^1.2.0", "1.2.1-alpha.1", False),
    ("^1.2.0-alpha.0", "1.2.1-alpha.1", True),
    ("^1.2.0-alpha.2", "1.2.0-alpha.1", False),
    ("^1.1.2-alpha", "1.2.1-beta1", True),
    ("^1.2.x-alpha", "1.1.1-beta1", False),
    ("^1.x", "1.1.1-beta1", False),
    ("^0.2.3-beta.2", "0.2.4-beta.2", True),
    ("^0.2.3-beta.2", "0.3.4-beta.2", False),
    ("!=4.1-alpha", "4.1.0-alpha", False),
    ("!=4.1-alpha", "4.1.1-alpha", False),
    # v3.4+: a pre-release anywhere in an AND group opens the whole group to pre-releases ...
    (">1.0.0-beta.1 < 2", "1.5.0-alpha", True),
    (">=1.0.0-0 <2.0.0", "1.5.0-rc.1", True),
    (">=1.0.0 <2.0.0", "1.5.0-rc.1", False),
    # ... but not the other "||" groups.
    (">1.0.0-beta.1 < 2 || > 3", "3.5.0-alpha", False),
    (">1.0.0-beta.1 < 2 || > 3", "4.0.0", True),
    (">1.0.0-beta.1 < 2 || > 3", "3.5.0", False),  # ">3" is ">=4.0.0"
]


@pytest.mark.parametrize(
    ("text", "version", "expected"), MASTERMINDS_CHECKS + MASTERMINDS_PRERELEASE_CHECKS
)
def test_masterminds_checks(text: str, version: str, expected: bool) -> None:
    assert parse_constraint(text).contains(version) is expected


def test_include_prerelease_opens_every_group() -> None:
    assert not parse_constraint(">=1.0.0").contains("1.5.0-rc.1")
    assert parse_constraint(">=1.0.0", include_prerelease=True).contains("1.5.0-rc.1")
    assert parse_constraint("<1.0.0", include_prerelease=True).contains("1.0.0-rc.1")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("^*", ["0.0.0"]),  # the code's result, whatever the doc comment says
        ("~*", ["0.0.0", "0.0.1", "1.2.3", "3.0.0"]),
        ("<=*", ["0.0.0", "0.0.1"]),
        (">*", ["0.0.1", "1.2.3", "3.0.0"]),
        ("x.2.3", ["0.0.0", "0.0.1", "1.2.3", "3.0.0"]),
        ("!=*", ["0.0.1", "1.2.3", "3.0.0"]),
    ],
)
def test_masterminds_star_quirks(text: str, expected: list[str]) -> None:
    sample = ["0.0.0", "0.0.1", "1.2.3", "3.0.0"]
    assert [x for x in sample if parse_constraint(text).contains(x)] == expected


@pytest.mark.parametrize(
    "text",
    [
        ">= 1.1",
        ">40.50.60, < 50.70",
        "2.0",
        "v2.3.5-20161202202307-sha.e8fc5e5",
        ">= 1.2.3 < 2.0 || => 3.0 < 4",
        "3 - 4 || => 3.0, < 4",
        "12.3.34 ~1.2.3",
        "1.0.0 - 2.0.0, <=2.0.0",
        " 1.2.3 ",
        "\t>=1.0.0,\n<2.0.0",
        "x",
        "1.2.3+build.5",
        "01.2.3",
    ],
)
def test_masterminds_accepts(text: str) -> None:
    assert str(parse_constraint(text)) == text


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        ">= bar",
        "BAR >= 1.2.3",
        "foo",
        "12.3.4.1234",
        "12.23.4.1234",
        "12.3.34.1234",
        "12.3.34~ 1.2.3",
        "==1.2.3",
        "!1.2.3",
        "> = 1.2",
        ">=",
        "V1.2.3",
        ",1.0",
        "1.0,",
        "1.0,,2.0",
        "1.0<2.0",
        "1.2.3-",
        "1.2.3-01",
        "1.2.3-alpha.",
        "|| 1.2.3",
        "1.2.3 ||",
        "1.2.3 || || 2.0.0",
        "1|2",
        "18446744073709551616.0.0",
        "1.0.0 -2.0.0",
        "1.0.0\v",
        ">=1.0.0 " * 64 + "x",  # 512 bytes is the most Masterminds takes
        " || ".join(["1.0.0"] * 33),  # at most 32 alternatives
    ],
)
def test_masterminds_rejects(text: str) -> None:
    with pytest.raises(InputError) as raised:
        parse_constraint(text)
    message = str(raised.value)
    assert message.startswith("invalid version range ")
    assert "\n" not in message


def test_masterminds_limits_are_inclusive() -> None:
    parse_constraint(">=1.0.0 " * 64)  # exactly 512 bytes
    parse_constraint(" || ".join(["1.0.0"] * 32))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.2.3", Version(1, 2, 3)),
        ("v1.2.3", Version(1, 2, 3)),
        ("1.2", Version(1, 2, 0)),
        ("1", Version(1, 0, 0)),
        ("v1", Version(1, 0, 0)),
        ("01.02.03", Version(1, 2, 3)),  # v3.4+ coerces leading zeros again
        ("1.2-5", Version(1, 2, 0, "5")),
        ("1-2.3", Version(1, 0, 0, "2.3")),
        ("1.2.3-alpha.1+meta.data", Version(1, 2, 3, "alpha.1", "meta.data")),
        ("18446744073709551615.0.0", Version(18446744073709551615, 0, 0)),
    ],
)
def test_constraint_version(text: str, expected: Version) -> None:
    parsed = parse_constraint_version(text)
    assert (parsed.to_tuple()) == expected.to_tuple()


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1.2.3-01",
        "1.2.3-alpha.01",
        "1.2.3-",
        "1.2.3+",
        "1.2.3-alpha..1",
        "1.2.",
        ".1.2",
        "1.2.3.4",
        "1.2.3 ",
        " 1.2.3",
        "18446744073709551616.0.0",
        "x",
        "vv1.2.3",
        "1.2.3-alpha_beta",
        "1." + "1" * 255,
        "1.2.31----RC-SNAPSHOT.12.09.1--.12+788",  # "09"
    ],
)
def test_constraint_version_rejects(text: str) -> None:
    with pytest.raises(InputError, match=r"^invalid version "):
        parse_constraint_version(text)


def test_numeric_prerelease_beyond_uint64_orders_as_text() -> None:
    # Masterminds' ParseUint fails on it, so "99999999999999999999" sorts as text, above "1".
    big = parse_constraint_version("1.0.0-99999999999999999999")
    assert parse_constraint(">1.0.0-100000000000000000000").contains(big)
    assert parse_constraint(">1.0.0-a").contains(big) is False
    assert parse_constraint(">1.0.0-1").contains(big)


def test_best_picks_highest_in_range() -> None:
    versions = [v(x) for x in ["1.10.0", "1.11.0", "1.12.3", "1.12.10", "1.13.0", "1.12.11-rc.1"]]
    assert parse_constraint(">=1.11, <1.13").best(versions) == v("1.12.10")
    assert parse_constraint(">=2").best(versions) is None


# The Masterminds parser splits an AND group with a scanner rather than with its regexes (they
# backtrack exponentially in Python). This oracle is those regexes, written out, on short inputs.
_SP = "[ \t\n\f\r]"
_OPS = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^"
_CV = (
    r"v?[0-9|xX*]+(?:\.[0-9|xX*]+)?(?:\.[0-9|xX*]+)?"
    r"(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
)
_VALID = re.compile(
    rf"{_SP}*(?:{_OPS}){_SP}*(?:{_CV}){_SP}*(?:(?:{_SP}+|,{_SP}*)(?:{_OPS}){_SP}*(?:{_CV}){_SP}*)*\Z"
)
_FIND = re.compile(rf"(?:{_OPS}){_SP}*(?:{_CV})")
_ONE = re.compile(rf"{_SP}*({_OPS}){_SP}*({_CV}){_SP}*\Z")


def _oracle_items(group: str) -> list[tuple[str, str]] | None:
    if not _VALID.match(group):
        return None
    items = []
    for found in _FIND.findall(group):
        match = _ONE.match(found)
        assert match is not None
        items.append((match.group(1), match.group(2)))
    return items


_group_pieces = st.lists(
    st.tuples(
        st.sampled_from(["", " ", "  ", ",", " , ", ", ", "\t", ",,", "\n "]),
        st.sampled_from(
            ["", "=", "!=", ">", ">=", "=>", "<=", "=<", "~", "~>", "^", "==", "!", "> "]
        ),
        st.sampled_from(["", " ", "\t"]),
        st.sampled_from(
            ["1", "1.2", "1.2.3", "v1.x", "*", "X.2", "1.2.3-a.0+b", "1.2.3.4", "|", "1-", "2-b-"]
        ),
    ),
    min_size=1,
    max_size=4,
).map(lambda pieces: "".join("".join(piece) for piece in pieces))


@given(st.one_of(st.text(alphabet="012.x*X|v-+a ,\t=<>!~^\v", max_size=14), _group_pieces))
def test_group_scanner_matches_masterminds_regexes(group: str) -> None:
    try:
        mine: list[tuple[str, str]] | None = _mm_items(group)
    except ValueError:
        mine = None
    assert mine == _oracle_items(group)


# ==================================================================================================
# blang/semver v4.0.0: versions
# ==================================================================================================

BLANG_VALID = [
    ("1.2.3", (1, 2, 3, None, None)),
    ("0.0.1", (0, 0, 1, None, None)),
    ("0.0.1-alpha.preview+123.456", (0, 0, 1, "alpha.preview", "123.456")),
    ("1.2.3-alpha.1+123.456", (1, 2, 3, "alpha.1", "123.456")),
    ("1.2.3-alpha.b-eta+123.b-uild", (1, 2, 3, "alpha.b-eta", "123.b-uild")),
    ("1.2.3+123.b-uild", (1, 2, 3, None, "123.b-uild")),
    ("1.2.3+build-01", (1, 2, 3, None, "build-01")),  # the build part may have leading zeros
    ("18446744073709551615.0.0", (18446744073709551615, 0, 0, None, None)),
]


@pytest.mark.parametrize(("text", "parts"), BLANG_VALID)
def test_blang_parse(text: str, parts: tuple[object, ...]) -> None:
    parsed = parse_version(text)
    assert parsed.to_tuple() == parts
    assert str(parsed) == text


BLANG_INVALID = [
    "",
    ".",
    "1.",
    ".1",
    "a.b.c",
    "1.a.b",
    "1.1.a",
    "..",
    "1..1",
    "1.1.+123",
    "1.1.-beta",
    "-1.1.1",
    "1.-1.1",
    "1.1.-1",
    "20000000000000000000.1.1",
    "1.20000000000000000000.1",
    "1.1.20000000000000000000",
    "1.1.1-20000000000000000000",
    "01.1.1",
    "1.01.1",
    "1.1.01",
    "1.1.1-01",
    "1.1.1-beta.01",
    "0.0.0-!",
    "0.0.0+!",
    "0.0.0-.alpha",
    "0.0.0-alpha+",
    "0.0.0-alpha+test.",
    "v1.2.3",
    "1.2",
    " 1.2.3",
    "1.2.3-a+b+c",
    "1.2.3-\u00e9",
]


@pytest.mark.parametrize("text", BLANG_INVALID)
def test_blang_parse_rejects(text: str) -> None:
    with pytest.raises(InputError, match=r"^invalid version "):
        parse_version(text)


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("v1.2.3", (1, 2, 3, None, None)),
        ("1.2.0-alpha", (1, 2, 0, "alpha", None)),
        ("1.2.00", (1, 2, 0, None, None)),
        ("\t1.2.3 ", (1, 2, 3, None, None)),
        ("01.02.03", (1, 2, 3, None, None)),
        ("00.0.03", (0, 0, 3, None, None)),
        ("000.0.03", (0, 0, 3, None, None)),
        ("1.2", (1, 2, 0, None, None)),
        ("1", (1, 0, 0, None, None)),
        ("v0.9.2", (0, 9, 2, None, None)),
        ("1.2.03-rc.1", (1, 2, 3, "rc.1", None)),
    ],
)
def test_blang_parse_tolerant(text: str, parts: tuple[object, ...]) -> None:
    assert parse_version_tolerant(text).to_tuple() == parts


@pytest.mark.parametrize(
    "text", ["1.0+abc", "1.0-rc.1", "", "v", "V1.2.3", "vv1.2.3", "1.2.3-01", "1.2.3\x1c"]
)
def test_blang_parse_tolerant_rejects(text: str) -> None:
    with pytest.raises(InputError, match=r"^invalid version "):
        parse_version_tolerant(text)


def test_blang_precedence_matches_spec_examples() -> None:
    # blang's compare table, semver spec item 11 (the pre-release chain) and build ignored.
    chain = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2"]
    chain += ["1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "2.0.0", "2.1.0", "2.1.1"]
    for lower, higher in itertools.pairwise(chain):
        assert parse_skip_range(f"<{higher}").contains(lower)
        assert not parse_skip_range(f"<{lower}").contains(higher)
    assert parse_skip_range("=1.0.0").contains("1.0.0+1.2.3")


# ==================================================================================================
# blang/semver v4.0.0: skipRanges
# ==================================================================================================

# blang's ParseRange test table, plus the quirks of v4.0.0 (see parse_skip_range).
BLANG_RANGES = [
    (">1.2.3", ["1.2.4"], ["1.2.2", "1.2.3"]),
    (">=1.2.3", ["1.2.3", "1.2.4"], ["1.2.2"]),
    ("<1.2.3", ["1.2.2"], ["1.2.3", "1.2.4"]),
    ("<=1.2.3", ["1.2.2", "1.2.3"], ["1.2.4"]),
    ("1.2.3", ["1.2.3"], ["1.2.2", "1.2.4"]),
    ("=1.2.3", ["1.2.3"], ["1.2.2", "1.2.4"]),
    ("==1.2.3", ["1.2.3"], ["1.2.2", "1.2.4"]),
    ("!=1.2.3", ["1.2.2", "1.2.4"], ["1.2.3"]),
    ("!1.2.3", ["1.2.2", "1.2.4"], ["1.2.3"]),
    (">1.2.2 <1.2.4", ["1.2.3"], ["1.2.2", "1.2.4"]),
    ("<1.2.2 <1.2.4", ["1.2.1"], ["1.2.2", "1.2.3", "1.2.4"]),
    (">1.2.2 <1.2.5 !=1.2.4", ["1.2.3"], ["1.2.2", "1.2.4", "1.2.5"]),
    (">1.2.2 <1.2.5 !1.2.4", ["1.2.3"], ["1.2.2", "1.2.4", "1.2.5"]),
    (">1.2.2 || <1.2.4", ["1.2.2", "1.2.3", "1.2.4"], []),
    ("<1.2.2 || >1.2.4", [], ["1.2.2", "1.2.3", "1.2.4"]),
    (">1.x", ["2.0.0"], ["0.1.9", "1.2.6", "1.9.0"]),
    (">1.2.x", ["1.3.0"], ["1.1.9", "1.2.6"]),
    (">1.2.2 <1.2.4 || >=2.0.0", ["1.2.3", "2.0.0", "2.0.1"], ["1.2.2", "1.2.4"]),
    ("1.x || >=2.0.x <2.2.x", ["1.2.2", "2.0.0", "2.1.8"], ["0.9.2", "2.2.0"]),
    (">1.2.2 <1.2.4 || >=2.0.0 <3.0.0", ["1.2.3", "2.0.0", "2.9.9"], ["1.2.4", "3.0.0"]),
    (">=1.2.x", ["1.2.0"], ["1.1.9"]),
    ("<=1.2.x", ["1.2.99"], ["1.3.0"]),
    ("<1.2.x", ["1.1.99"], ["1.2.0"]),
    ("<=1.x", ["1.99.0"], ["2.0.0"]),
    ("<1.x", ["0.9.0"], ["1.0.0"]),
    ("1.2.x", ["1.2.0", "1.2.9"], ["1.1.9", "1.3.0"]),
    # skipRanges as OLM users write them
    ("< 0.6.0", ["0.5.9", "0.6.0-rc.1"], ["0.6.0"]),
    (">= 1.0.0 <  2.0.0", ["1.0.0"], ["2.0.0"]),
    (">=4.1.0 <4.1.2 || >=4.2.0", ["4.1.1", "4.2.0", "5.0.0"], ["4.1.2", "4.1.9", "4.0.9"]),
    (">=0.0.0-0 <1.2.3", ["0.0.0-0", "0.0.0", "1.0.0-alpha", "1.2.3-rc.1"], ["1.2.3"]),
    (">=1.0.0 <2.0.0", ["1.5.0-rc.1", "2.0.0-rc.1"], ["1.0.0-rc.1"]),  # no pre-release rule
    ("  >=   1.2.3   <=  1.2.3   ", ["1.2.3"], ["1.2.4"]),
    # v4.0.0 quirks, kept on purpose
    ("1.x.x", ["1.0.9"], ["1.1.0"]),  # read as 1.0.x
    ("!=1.2.x", [], ["1.1.0", "1.2.5", "1.3.0"]),  # "<1.2.0 >=1.3.0" ANDed: empty
    ("!=1.x", [], ["0.9.0", "1.5.0", "2.0.0"]),
    ("~1.2.x", ["1.2.0"], ["1.2.1"]),  # unknown operator dropped: "1.2.0"
    ("1.0.0 >", ["1.0.0"], ["1.0.1"]),  # one-character tokens are ignored
    ("! 1.0.0", ["1.0.0"], ["1.0.1"]),  # "!" alone is a one-character token
    (">=1.0.0-rc.x", ["1.0.0-rc.0", "1.0.0-rc.1"], ["1.0.0-rc"]),  # ".x" becomes ".0"
    ("<=1.-1.x", ["0.9.0"], ["1.0.0"]),  # Atoi("-1") + 1 = 0
    ("1.0.0 - 2.0.0", [], ["1.0.0", "1.5.0", "2.0.0"]),  # "-" dropped: =1.0.0 AND =2.0.0
]


@pytest.mark.parametrize(("text", "inside", "outside"), BLANG_RANGES)
def test_blang_ranges(text: str, inside: list[str], outside: list[str]) -> None:
    skip_range = parse_skip_range(text)
    assert str(skip_range) == text
    assert [x for x in inside if not skip_range.contains(x)] == []
    assert [x for x in outside if skip_range.contains(x)] == []


@pytest.mark.parametrize(
    "text",
    [
        "<<1.0",
        ">>1.2.3",
        "=>1.2.3",
        "~1.2.3",
        "^1.2.3",
        "1.0",
        ">=1.0",
        "string",
        "",
        "   ",
        "fo.ob.ar.x",
        "foox",
        "x",
        "||",
        "|| 1.0.0",
        "1.0.0 ||",
        "1.0.0 || || 2.0.0",
        "1.0.0||2.0.0",
        "v1.0.0",
        ">=v1.0.0",
        "1.0.0-xyz",  # any "x" makes a token a wildcard
        ">=1.0.0\t<2.0.0",  # only the ASCII space separates
        ">=1.0.0,<2.0.0",
        ">= 01.0.0",
        "9223372036854775807.x",  # the bump overflows Go's int and the result has no version
    ],
)
def test_blang_rejects(text: str) -> None:
    with pytest.raises(InputError) as raised:
        parse_skip_range(text)
    message = str(raised.value)
    assert message.startswith("invalid skipRange ")
    assert "\n" not in message


def test_blang_bump_does_not_overflow_before_int64() -> None:
    assert parse_skip_range("<=9223372036854775806.x").contains("9223372036854775806.5.0")


def test_long_runs_of_leading_zeros() -> None:
    # Go's Atoi and ParseUint take any number of leading zeros; Python's int() caps digit strings.
    zeros = "0" * 5000
    assert parse_skip_range(f"<=1.{zeros}1.x").contains("1.1.9")
    assert not parse_skip_range(f"<=1.{zeros}1.x").contains("1.2.0")
    assert parse_version_tolerant(f"{zeros}1.2.3").to_tuple() == (1, 2, 3, None, None)
    assert parse_constraint_version("0" * 250 + "1.0.0").to_tuple() == (1, 0, 0, None, None)


# ==================================================================================================
# Error messages
# ==================================================================================================


@pytest.mark.parametrize(
    ("call", "text", "prefix"),
    [
        (parse_skip_range, "<<1.0", 'invalid skipRange "<<1.0": '),
        (parse_skip_range, 'a"b\nc', 'invalid skipRange "a\\"b\\nc": '),
        (parse_constraint, ">=1.x.y", 'invalid version range ">=1.x.y": '),
        (parse_version, "1.0", 'invalid version "1.0": '),
        (parse_version_tolerant, "1.0-rc.1", 'invalid version "1.0-rc.1": '),
        (parse_constraint_version, "1.2.3.4", 'invalid version "1.2.3.4": '),
    ],
)
def test_error_messages_quote_the_input(
    call: Callable[[str], object], text: str, prefix: str
) -> None:
    with pytest.raises(InputError) as raised:
        call(text)
    message = str(raised.value)
    assert message.startswith(prefix)
    assert len(message) > len(prefix)
    assert "\n" not in message


def test_contains_parses_strings_with_the_dialects_own_parser() -> None:
    assert parse_constraint(">=1").contains("v2")  # Masterminds NewVersion
    with pytest.raises(InputError):
        parse_skip_range(">=1.0.0").contains("v2")  # blang Parse
    assert "1.5.0" in parse_skip_range(">=1.0.0")
    assert 1 not in parse_skip_range(">=1.0.0")


# ==================================================================================================
# Every skipRange of the corpus
# ==================================================================================================


def _corpus_skip_ranges() -> list[tuple[str, str, str]]:
    """(where, skipRange, version of the bundle carrying it) for every skipRange in the corpus."""
    found: set[tuple[str, str, str]] = set()
    for db in sorted((CORPUS / "sqlite").glob("*.db")):
        connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            rows = connection.execute(
                "SELECT DISTINCT skiprange, version FROM operatorbundle WHERE skiprange != ''"
            ).fetchall()
        finally:
            connection.close()
        found.update((db.name, skip_range, version) for skip_range, version in rows)
    for path in sorted((CORPUS / "pkgman" / "upstream-subset").rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if "olm.skipRange" not in text:
            continue
        for document in yaml.safe_load_all(text):
            if not isinstance(document, dict) or document.get("kind") != "ClusterServiceVersion":
                continue
            annotations = (document.get("metadata") or {}).get("annotations") or {}
            if "olm.skipRange" in annotations:
                version = str((document.get("spec") or {}).get("version"))
                found.add((path.name, annotations["olm.skipRange"], version))
    return sorted(found)


def _corpus_params() -> list[object]:
    if not SHARED.is_dir():
        return [pytest.param("", "", "", marks=pytest.mark.skip(reason=f"{SHARED} is absent"))]
    return [pytest.param(*row, id=f"{row[0]}:{row[1]}") for row in _corpus_skip_ranges()]


def test_corpus_has_skip_ranges() -> None:
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent")
    distinct = {skip_range for _, skip_range, _ in _corpus_skip_ranges()}
    assert "< 0.6.0" in distinct and ">=1.0.2 <6.0.0" in distinct and len(distinct) >= 15


@pytest.mark.parametrize(("where", "text", "own_version"), _corpus_params())
def test_corpus_skip_range(where: str, text: str, own_version: str) -> None:
    skip_range = parse_skip_range(text)
    assert str(skip_range) == text
    # A bundle never skips itself ...
    assert not skip_range.contains(parse_version_tolerant(own_version)), where
    # ... and does skip the lower bound it names (or 0.0.0 when it names none).
    lower_bounds = re.findall(r">=\s*(\d+\.\d+\.\d+)", text) or ["0.0.0"]
    for lower in lower_bounds:
        assert skip_range.contains(lower), (where, lower)
    for upper in re.findall(r"<\s*(\d+\.\d+\.\d+)", text):
        assert not skip_range.contains(upper), (where, upper)
    assert "||" not in text  # the bound checks above assume one alternative


# ==================================================================================================
# Properties
# ==================================================================================================

identifiers = st.sampled_from(["alpha", "beta", "rc", "0", "1", "11", "b-2"])
versions = st.builds(
    Version,
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, 3),
    st.one_of(st.none(), st.lists(identifiers, min_size=1, max_size=2).map(".".join)),
)
releases = st.builds(Version, st.integers(0, 3), st.integers(0, 3), st.integers(0, 3))
operators = st.sampled_from(["=", "!=", ">", ">=", "<", "<="])
comparisons = st.tuples(operators, versions).map(lambda pair: f"{pair[0]}{pair[1]}")


@given(versions)
def test_parsers_round_trip(version: Version) -> None:
    assert parse_version(str(version)).to_tuple() == version.to_tuple()
    assert parse_version_tolerant(f" v{version}").to_tuple() == version.to_tuple()
    assert parse_constraint_version(str(version)).to_tuple() == version.to_tuple()


@given(versions)
def test_bounds_contain_or_exclude_their_version(version: Version) -> None:
    for parse in (parse_skip_range, parse_constraint):
        assert parse(f">={version}").contains(version)
        assert parse(f"<={version}").contains(version)
        assert parse(f"={version}").contains(version)
        assert not parse(f"<{version}").contains(version)
        assert not parse(f">{version}").contains(version)
        assert not parse(f"!={version}").contains(version)


@given(comparisons, comparisons, versions)
def test_blang_or_is_union_and_is_intersection(left: str, right: str, version: Version) -> None:
    a, b = parse_skip_range(left), parse_skip_range(right)
    either = a.contains(version) or b.contains(version)
    both = a.contains(version) and b.contains(version)
    assert parse_skip_range(f"{left} || {right}").contains(version) == either
    assert parse_skip_range(f"{left} {right}").contains(version) == both


@given(comparisons, comparisons, versions)
def test_masterminds_or_is_union(left: str, right: str, version: Version) -> None:
    a, b = parse_constraint(left), parse_constraint(right)
    either = a.contains(version) or b.contains(version)
    assert parse_constraint(f"{left} || {right}").contains(version) == either


@given(comparisons, comparisons, releases)
def test_masterminds_and_is_intersection_for_releases(
    left: str, right: str, version: Version
) -> None:
    # For pre-release versions it is not: a pre-release in one comparison opens the whole group.
    a, b = parse_constraint(left), parse_constraint(right)
    both = a.contains(version) and b.contains(version)
    assert parse_constraint(f"{left}, {right}").contains(version) == both
    assert parse_constraint(f"{left} {right}").contains(version) == both


@given(releases, releases)
def test_masterminds_hyphen_range_is_inclusive(low: Version, high: Version) -> None:
    hyphen = parse_constraint(f"{low} - {high}")
    for version in GRID[:: len(GRID) // 40]:
        inside = low.compare(version) <= 0 <= high.compare(version) and not version.prerelease
        assert hyphen.contains(version) == inside


@given(versions, versions)
def test_dialects_order_versions_alike(left: Version, right: Version) -> None:
    # Both libraries follow semver precedence; the pre-release exclusion rule aside, "<" agrees.
    blang = parse_skip_range(f"<{right}").contains(left)
    masterminds = parse_constraint(f"<{right}", include_prerelease=True).contains(left)
    assert blang == masterminds == (left.compare(right) < 0)
