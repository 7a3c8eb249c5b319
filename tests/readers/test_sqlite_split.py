"""readers/sqlite.split_objects: the bundle column's back-to-back JSON documents, whichever way
they were separated (one per line, several on a line, pretty-printed)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from olmcat.errors import InputError
from olmcat.readers.sqlite import split_objects

leaves = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=8)
values: st.SearchStrategy[Any] = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=10,
)
documents = st.lists(st.dictionaries(st.text(max_size=6), values, max_size=4), max_size=4)
separators = st.sampled_from(["\n", "", " ", "\r\n", "\n\n", "\t\n "])


@settings(max_examples=150, deadline=None)
@given(documents, separators, st.booleans())
def test_documents_come_back_as_written(
    docs: list[dict[str, Any]], separator: str, pretty: bool
) -> None:
    raws = [
        json.dumps(d, indent=2 if pretty else None, separators=None if pretty else (",", ":"))
        for d in docs
    ]
    text = separator.join(raws) + ("\n" if docs else "")
    if separator == "" and any(r[-1] == r[0] for r in raws):
        pass  # "}{" is still two documents
    assert split_objects(text, "db") == [(raw, doc) for raw, doc in zip(raws, docs, strict=True)]


def test_values_orjson_refuses_still_parse() -> None:
    text = '{"a":NaN}\n{"b":1e400}\n{"c":"\\ud800"}\n'
    parsed = split_objects(text, "db")
    assert [raw for raw, _ in parsed] == ['{"a":NaN}', '{"b":1e400}', '{"c":"\\ud800"}']
    assert parsed[2][1] == {"c": "\ud800"}


def test_invalid_document_names_its_position() -> None:
    with pytest.raises(InputError, match="db: manifest 2 is not valid JSON"):
        split_objects('{"a":1}\n{"b":\n', "db")
