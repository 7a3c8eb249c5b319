"""Go-compatible JSON text: strings, floats, compacting and indenting."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from olmcat.errors import InputError
from olmcat.go import json as gojson

values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(values)
def test_indent_matches_gos_indent_format(value: Any) -> None:
    # Go's json.Indent output has the layout of Python's indent=4 (", " / ": ", empty {} and []).
    compact = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    expected = json.dumps(value, indent=4, ensure_ascii=False)
    assert gojson.indent(compact, 0) == expected


@given(values)
def test_compact_removes_only_insignificant_whitespace(value: Any) -> None:
    spaced = json.dumps(value, indent=2, ensure_ascii=False)
    assert gojson.compact(spaced) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def test_compact_keeps_string_escapes_verbatim() -> None:
    assert gojson.compact('{ "a" : "\\u003c x \\n" }') == '{"a":"\\u003c x \\n"}'


def test_compact_rejects_invalid_json() -> None:
    with pytest.raises(InputError, match="property is not valid JSON"):
        gojson.compact("{nope", what="property")


@pytest.mark.parametrize(
    ("text", "html", "expected"),
    [
        ("a<b>&c", False, '"a<b>&c"'),
        ("a<b>&c", True, '"a\\u003cb\\u003e\\u0026c"'),
        ("line\u2028sep\u2029", False, '"line\\u2028sep\\u2029"'),
        ("ctl\x01\x1f", False, '"ctl\\u0001\\u001f"'),
        ("é ü", False, '"é ü"'),
    ],
)
def test_go_string(text: str, html: bool, expected: str) -> None:
    assert gojson.go_string(text, escape_html=html) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [  # strconv.FormatFloat as encoding/json uses it ('f', or 'e' outside [1e-6, 1e21)).
        (1.0, "1"),
        (1.5, "1.5"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1e-6, "0.000001"),
        (1.5e-7, "1.5e-7"),
        (-2.5e-10, "-2.5e-10"),
        (123456.789, "123456.789"),
    ],
)
def test_go_float(value: float, expected: str) -> None:
    assert gojson.go_float(value) == expected


def test_marshal_object_sorts_keys_and_escapes_like_json_marshal() -> None:
    obj = {
        "b": "<x>&\u2028",
        "a": [1, 2.5, None, True],
        "c": {"z": 1, "y": gojson.RawNumber("1.5e-7")},
    }
    expected = '{"a":[1,2.5,null,true],"b":"\\u003cx\\u003e\\u0026\\u2028","c":{"y":1.5e-7,"z":1}}'
    assert gojson.marshal_object(obj) == expected
    assert gojson.go_marshal(obj) == expected
    assert gojson.marshal_object({"big": 2**70}) == '{"big":1180591620717411303424}'


def test_encode_keeps_key_order_and_raw_numbers() -> None:
    value = gojson.loads('{"z": 1.50, "a": [1e5, "<"]}')
    assert gojson.encode(value) == '{"z":1.50,"a":[1e5,"<"]}'


def test_go_before_122_escapes_backspace_and_form_feed_as_u_escapes() -> None:
    from olmcat.go.json import before_go_122, go_string

    text = "a\bb\fc \\b <&>"
    assert go_string(text) == '"a\\bb\\fc \\\\b <&>"'  # Go 1.22 and later
    with before_go_122():
        assert go_string(text) == '"a\\u0008b\\u000cc \\\\b <&>"'
        assert (
            go_string(text, escape_html=True) == '"a\\u0008b\\u000cc \\\\b \\u003c\\u0026\\u003e"'
        )
        with before_go_122(False):
            assert go_string(text) == '"a\\bb\\fc \\\\b <&>"'
    assert go_string(text) == '"a\\bb\\fc \\\\b <&>"'


def test_marshal_object_before_go_122_rewrites_only_real_backspace_and_form_feed() -> None:
    from olmcat.go.json import before_go_122, marshal_object

    # A manifest as json.Marshal writes it (orjson's fast path): escaped backslashes followed by
    # "b" or "f" are text, not escapes, and stay.
    manifest = {"text": "a\bb\fc \\b \\\\f <&>", "list": ["\f"]}
    newer = '{"list":["\\f"],"text":"a\\bb\\fc \\\\b \\\\\\\\f \\u003c\\u0026\\u003e"}'
    assert marshal_object(manifest) == newer
    with before_go_122():
        assert marshal_object(manifest) == (
            '{"list":["\\u000c"],"text":"a\\u0008b\\u000cc \\\\b \\\\\\\\f \\u003c\\u0026\\u003e"}'
        )
        assert json.loads(marshal_object(manifest)) == manifest
