"""``load_all`` builds documents straight from libyaml's events exactly as the loader builds them.

Bundle directories, metadata and ``ci.yaml`` files are read with :func:`olmcat.files.yaml.load_all`
(GoLoader's YAML 1.1 scalar rules, then Go's JSON view). Most documents are built from parser
events in one pass (:func:`build_documents` with :func:`go_scalar`); the rest go through the
loader. Both paths read the same generated texts -- single and multi-document streams, tricky
scalars and keys, duplicates, constructs the builder must hand over -- and must agree on every
value (types included), every error and every notice, in order, however many documents the
caller takes.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from olmcat.errors import InputError
from olmcat.files import safe
from olmcat.files import yaml as goyaml
from olmcat.notices import Notice
from tests.support.yaml_documents import KEYS, SCALARS, block, documents, flow, typed

# YAML 1.1 scalars PyYAML resolves that yaml.v2 does not, and the other way round.
MORE_SCALARS = ["1:20", "0b1_0", "+.5", "-0x1F", "0o17", "1.5e3", "1E3", "6.8523015e+5", "!", "&"]
MORE_SCALARS += ["*", "=", "NULL", "Off", "<<<", "<b>", "-", "- x", ".", "1.", "0.", "+", "1e"]


def outcome(text: str, take: int | None) -> Any:
    notices: list[Notice] = []
    with safe.notices_to(notices.append):
        try:
            stream = goyaml.load_all(text, where="f.yaml")
            docs = list(stream if take is None else itertools.islice(stream, take))
            result: Any = ("ok", [typed(d) for d in docs])
        except InputError as exc:
            result = ("error", str(exc))
    return result, [(n.code, n.message) for n in notices]


def both_ways(text: str, take: int | None = None) -> tuple[Any, Any, bool]:
    built: list[bool] = []
    original = goyaml.build_documents

    def watched(*args: Any, **kwargs: Any) -> Any:
        value = original(*args, **kwargs)
        built.append(True)
        return value

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(goyaml, "build_documents", watched)
        fast = outcome(text, take)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(goyaml, "_EventParser", None)  # every document through the loader
        slow = outcome(text, take)
    return fast, slow, bool(built)


@st.composite
def streams(draw: st.DrawFn) -> str:
    count = draw(st.integers(1, 3))
    parts = []
    for _ in range(count):
        tree = draw(documents(0))
        if isinstance(tree, str):
            tree = draw(st.sampled_from(SCALARS + MORE_SCALARS))
        text = flow(tree) if draw(st.booleans()) else "\n".join(block(tree))
        parts.append(text + "\n")
    separator = draw(st.sampled_from(["---\n", "--- # c\n", "...\n---\n"]))
    return separator.join(parts)


@settings(max_examples=400, deadline=None)
@given(text=streams(), take=st.sampled_from([None, 1, 2]))
def test_built_documents_are_the_loaded_ones(text: str, take: int | None) -> None:
    fast, slow, _ = both_ways(text, take)
    assert fast == slow


@settings(max_examples=300, deadline=None)
@given(
    pairs=st.lists(
        st.tuples(st.sampled_from(KEYS), st.sampled_from(SCALARS + MORE_SCALARS)), max_size=6
    )
)
def test_scalars_and_keys_are_the_loaded_ones(pairs: list[tuple[str, str]]) -> None:
    text = "".join(f"{k}: {v}\n" for k, v in pairs) or "a\n"
    fast, slow, _ = both_ways(text)
    assert fast == slow


CASES = {
    "two documents, duplicates in each": "a: 1\na: 2\n---\nb: [{c: 1, c: 2}]\nb: 3\n",
    "empty and null documents skipped": "---\n---\nnull\n---\na: 1\n--- ~\n",
    "comments only": "# nothing\n",
    "anchors": "a: &x {b: 1}\nc: *x\n",
    "anchor in a later document": "a: 1\n---\nb: &x 1\nc: *x\n",
    "tag": "a: !!str 5\n",
    "merge key": "a: {<<: {b: 1}, c: 2}\n",
    "non-string keys": "1: a\ntrue: b\n1.5: c\n~: d\n",
    "non-finite value": "a: .inf\nb: -.Inf\nc: .NaN\n",
    "sexagesimal and octal": "a: 1:20\nb: 017\nc: 0b101\nd: 0x_1F\n",
    "timestamps stay text": "a: 2021-01-01\nb: 2021-01-01T10:00:00Z\n",
    "malformed later document": "a: 1\n---\nb: [\n",
    "huge integer": "a: " + "9" * 5000 + "\n",
    "yaml tag word": "a: !\nb: '&'\n",
    "deep but within the bound": "".join(" " * i + "k:\n" for i in range(200)) + " " * 200 + "v\n",
}
HANDED_OVER = {"anchors", "anchor in a later document", "tag", "merge key", "non-string keys"}
HANDED_OVER |= {"non-finite value", "malformed later document", "huge integer", "yaml tag word"}


@pytest.mark.parametrize("take", [None, 1])
@pytest.mark.parametrize("case", CASES)
def test_cases_are_the_loaded_ones(case: str, take: int | None) -> None:
    fast, slow, built = both_ways(CASES[case], take)
    assert fast == slow
    assert built == (case not in HANDED_OVER)


def test_later_documents_send_their_notices_only_when_taken() -> None:
    text = CASES["two documents, duplicates in each"]
    (_, first), _, _ = both_ways(text, take=1)
    (_, every), _, _ = both_ways(text)
    assert [m for _, m in first] == ["f.yaml: line 2: key 'a' appears twice in one mapping; "
                                     "the last value is used (as opm does)"]  # fmt: skip
    assert len(every) == 3


@pytest.mark.parametrize(
    "text",
    ["".join(" " * i + "k:\n" for i in range(400)) + " " * 400 + "v: 1\n", "- " * 600 + "x\n",
     "a: 1\n---\n" + "".join(" " * i + "k:\n" for i in range(300)) + " " * 300 + "v\n"],
    ids=["indented", "compact", "second document"],
)  # fmt: skip
def test_the_depth_bound_is_checked_while_building(text: str) -> None:
    fast, slow, _ = both_ways(text)
    assert fast == slow
    assert fast[0][0] == "error" and "nested deeper than 256 levels" in fast[0][1]


def test_every_text_the_builder_takes_as_a_string_is_one_to_the_loader() -> None:
    """The builder calls go_scalar only for texts in GO_SPECIAL: every other plain text must be
    a string to GoLoader's resolvers. Each resolver's first characters are either in the first
    set, or it accepts only whole words, all of them in the word set."""
    first, words = goyaml.GO_SPECIAL
    for char, resolvers in goyaml.GoLoader.yaml_implicit_resolvers.items():
        if char in first:
            continue
        for _, regexp in resolvers:
            pattern = re.sub(r"\s+", "", regexp.pattern)  # written in verbose mode
            literal = re.fullmatch(r"\^\(\?:([\w|~]*)\)\$", pattern)
            assert literal is not None, (char, regexp.pattern)
            accepted = {w for w in literal.group(1).split("|") if w[:1] == (char or "")}
            assert accepted <= words, (char, accepted - words)
    for text in ("", "~", "null", "yes", "Off", "1", "-1", ".5", "<<", "!", "&", "*"):
        assert text[:1] in first or text in words
    loader = goyaml.GoLoader("")
    for text in ("type", "object", "nothing", "Yesterday", "o", "y", "=", "<b>", "~x"):
        assert loader.resolve(yaml.ScalarNode, text, (True, False)) == "tag:yaml.org,2002:str"
