"""Documents built straight from libyaml's events decode exactly as the full loader's do.

``first_document`` builds most YAML documents from parser events into Go's JSON view in one pass
and leaves the rest (anchors, tags, merge keys, ...) to the loader (``V2Loader`` + ``_to_json``),
which tests/differential checks against the real initializer. Here both paths read the same
texts -- tricky scalars, duplicate keys at several depths, flow and block collections, and
constructs the builder must hand over -- and must agree on every decoded value (types
included), every error and every notice, in order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from olmcat.files import godecode, safe
from olmcat.files import yaml as goyaml
from olmcat.go.json import RawNumber
from olmcat.notices import Notice
from tests.support.yaml_documents import KEYS, block, documents, flow, typed


def outcome(text: bytes, decode: Callable[[godecode.FirstDocument], Any]) -> Any:
    notices: list[Notice] = []
    with safe.notices_to(notices.append):
        try:
            document = godecode.first_document(text, "f.yaml")
            result: Any = ("ok", typed(decode(document)))
        except godecode.NotDecodable as exc:
            result = ("error", str(exc))
    return result, [(n.code, n.message) for n in notices]


def both_ways(
    text: bytes, decode: Callable[[godecode.FirstDocument], Any]
) -> tuple[Any, Any, bool]:
    built: list[bool] = []
    original = goyaml.build_plain

    def watched(*args: Any, **kwargs: Any) -> Any:
        value = original(*args, **kwargs)
        built.append(True)
        return value

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(goyaml, "build_plain", watched)
        fast = outcome(text, decode)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(goyaml, "_EventParser", None)  # every document through the loader
        slow = outcome(text, decode)
    return fast, slow, bool(built)


DECODES: dict[str, Callable[[godecode.FirstDocument], Any]] = {
    "unstructured": godecode.unstructured,
    "package_manifest": godecode.package_manifest,
}


@pytest.mark.parametrize("decode", DECODES)
@settings(max_examples=300, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.sampled_from(KEYS), documents(1)), max_size=5),
    as_flow=st.booleans(),
    kind=st.booleans(),
)
def test_built_documents_decode_as_loaded_ones(
    decode: str, pairs: list[tuple[str, Any]], as_flow: bool, kind: bool
) -> None:
    tree = ("map", [("kind", "A")] * kind + pairs) if pairs or kind else "a"
    text = flow(tree) if as_flow else "\n".join(block(tree))
    fast, slow, _ = both_ways((text + "\n").encode(), DECODES[decode])
    assert fast == slow


CASES = {
    # Duplicate keys at three depths, several per mapping: the loader reports them breadth
    # first (a level's mappings in document order), each naming the later key's line.
    "duplicates": (
        "kind: A\na:\n  b:\n    c: 1\n    c: 2\n  b2: {x: 1, x: 2}\n  d: 1\n  d: 2\n"
        "e: [{y: 1, y: 2}]\nkind: B\n'kind': C\n"
    ),
    "coerced package fields": (
        "packageName: 123\nchannels:\n- name: 4.10\n  currentCSV: 0x1A\ndefaultChannel: yes\n"
    ),
    "coerced channel name only": "packageName: p\nchannels: [{name: 1.0, currentCSV: c}]\n",
    "string fields left alone": "packageName: p\nchannels: [{name: stable, currentcsv: c}]\n",
    "anchors": "kind: A\nbase: &b {x: 1}\nother: *b\n",
    "merge key": "kind: A\n<<: {x: 1}\ny: 2\n",
    "tag": "kind: !!str A\nv: !!int '5'\n",
    "complex key": "kind: A\n? [a, b]\n: c\n",
    "alias without anchor": "kind: A\nv: *nothing\n",
    "non-finite": "kind: A\nv: .inf\n",
    "null key": "kind: A\n~: 1\n",
    "huge integer": "kind: A\nv: " + "9" * 5000 + "\n",  # text to yaml.v2 (out of range)
    "malformed": "kind: A\n  v: [1, 2\n",
    "only a comment": "# nothing\n",
    "empty document": "---\n",
    "scalar document": "just text\n",
    "second document ignored": "kind: A\n---\nkind: [\n",
    "document end": "kind: A\n...\n",
    "directive alone": "%YAML 1.1\n---\nkind: A\n",  # the first chunk ends before ---
}
HANDED_OVER = {"anchors", "merge key", "tag", "complex key", "alias without anchor"}
HANDED_OVER |= {"non-finite", "null key", "malformed", "directive alone"}


@pytest.mark.parametrize("decode", DECODES)
@pytest.mark.parametrize("case", CASES)
def test_cases_decode_as_loaded_ones(case: str, decode: str) -> None:
    fast, slow, built = both_ways(CASES[case].encode(), DECODES[decode])
    assert fast == slow
    assert built == (case not in HANDED_OVER)


def test_duplicate_notices_are_breadth_first_and_name_the_later_line() -> None:
    notices: list[Notice] = []
    with safe.notices_to(notices.append):
        godecode.unstructured(godecode.first_document(CASES["duplicates"].encode(), "f.yaml"))
    lines = [n.message.split(": key ")[0] for n in notices]
    assert lines == [
        "f.yaml: line 10",  # kind (depth 0)
        "f.yaml: line 11",  # 'kind' written quoted is the same key text
        "f.yaml: line 8",  # d (depth 1)
        "f.yaml: line 5",  # c (depth 2, first mapping)
        "f.yaml: line 6",  # x (depth 2, flow mapping)
        "f.yaml: line 9",  # y (depth 2, in a sequence)
    ]


def test_package_manifest_fields_keep_their_yaml_text() -> None:
    manifest = godecode.package_manifest(
        godecode.first_document(CASES["coerced package fields"].encode())
    )
    # float32 text of 4.10, the integer's decimal text, yaml.v2's boolean.
    assert manifest == godecode.PackageManifest("123", (("4.1", "26"),), "true")
    view = godecode.unstructured(godecode.first_document(b"kind: A\nv: 4.10\nw: 1e3\n"))
    assert view["v"] == "4.1" and type(view["v"]) is RawNumber and view["w"] == 1000


CHUNKED = [b"", b"\n", b"---", b"---\n", b"a: 1", b"a: 1\n---\nb: 2\n", b"--- # c\na: 1\n---\nb\n"]
CHUNKED += [b"# c\n---\na: 1\n", b"a: 1\n--- x\n", b"--- x\na: 1\n", b"a: 1\r\n---\r\nb: 2\r\n"]
CHUNKED += [b"a: 1\n----\nb: 2\n", b"a\n---\t\n", b"\xff\n---\n"]


@pytest.mark.parametrize("data", CHUNKED)
def test_first_yaml_chunk_is_the_first_of_yaml_chunks(data: bytes) -> None:
    def chunks(function: Callable[[bytes], Any]) -> Any:
        try:
            return ("ok", function(data))
        except godecode.NotDecodable as exc:
            return ("error", str(exc))

    assert chunks(godecode.first_yaml_chunk) == chunks(
        lambda d: next(godecode.yaml_chunks(d), None)
    )
