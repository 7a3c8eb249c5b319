"""Bounded YAML loading: the same values as before for real manifests, refusals for bombs and
deep nesting, notices for oddities."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from olmcat.errors import InputError
from olmcat.files import godecode, safe
from olmcat.files import yaml as goyaml
from olmcat.notices import Notice, NoticeLog
from tests.support import hostile_inputs as make
from tests.support.paths import CORPUS


def load(text: str) -> list[object]:
    return list(goyaml.load_all(text, where="f.yaml"))


def notices(text: str) -> list[Notice]:
    log = NoticeLog()
    with safe.notices_to(log):
        load(text)
    return list(log)


def test_go_view_of_scalars_is_unchanged() -> None:
    assert load("a: 2021-01-01\nb: yes\nc: 1.0\nd: 1.5\n1: x\nnull: y\n") == [
        {"a": "2021-01-01", "b": True, "c": 1, "d": goyaml.RawNumber("1.5"), "1": "x", "null": "y"}
    ]


def test_anchors_and_merges_within_bounds_still_work() -> None:
    text = "base: &b {x: 1, y: 2}\nuse: *b\nmerged:\n  <<: *b\n  y: 3\n"
    assert load(text) == [{"base": {"x": 1, "y": 2}, "use": {"x": 1, "y": 2},
                           "merged": {"x": 1, "y": 3}}]  # fmt: skip
    assert notices(text) == []  # a merge overriding a key is no duplicate


@pytest.mark.parametrize("text", [make.alias_bomb(), make.merge_bomb()], ids=["aliases", "merges"])
def test_alias_bombs_are_refused_before_they_expand(text: str) -> None:
    # What "quickly" means whatever the machine's speed: refused before the expansion is built
    # (387 million leaves expanded would take gigabytes; the refusal takes a few megabytes).
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(InputError, match=r"^f\.yaml: YAML aliases expand \d+ nodes to \d+"):
            load(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20, f"{peak >> 20} MiB allocated before the refusal"


def test_alias_ratio_is_a_setting() -> None:
    anchor = "a: &a [" + ", ".join(["1"] * 30) + "]\n"
    # Under the 400,000-node floor any ratio is fine...
    text = anchor + "b: [" + ", ".join(["*a"] * 12_000) + "]\n"
    assert len(load(text)[0]["b"]) == 12_000  # type: ignore[index]
    # ...beyond it, 30 nodes per alias written is over the default ratio of 10.
    text = anchor + "b: [" + ", ".join(["*a"] * 20_000) + "]\n"
    with pytest.raises(InputError, match="--max-yaml-alias-ratio"):
        load(text)
    with safe.using(safe.Limits(yaml_alias_ratio=40)):
        assert len(load(text)[0]["b"]) == 20_000  # type: ignore[index]


@pytest.mark.parametrize(
    "text",
    [make.deep_flow_yaml(), make.deep_block_yaml(), "{a: " * 70_000 + "1" + "}" * 70_000,
     "".join(" " * i + "k:\n" for i in range(400)) + " " * 400 + "v: 1\n"],
    ids=["flow", "compact", "flow-mapping", "indented"],
)  # fmt: skip
def test_deep_documents_are_refused_before_libyaml_recurses(text: str) -> None:
    with pytest.raises(InputError, match="nested deeper than 256 levels"):
        load(text)


def test_depth_through_aliases_is_limited_too() -> None:
    chain = "\n".join(["- &c0 [x]"] + [f"- &c{i} [*c{i - 1}]" for i in range(1, 400)])
    with pytest.raises(InputError, match="nested deeper than 256"):
        load(chain + "\n")


def test_recursive_alias_is_refused() -> None:
    with pytest.raises(InputError, match="contains it"):
        load("a: &a [*a]\n")


def test_depth_limit_is_a_setting() -> None:
    text = "a: " + "[" * 300 + "]" * 300 + "\n"
    with safe.using(safe.Limits(max_depth=400)):
        assert load(text)
    with pytest.raises(InputError):
        load(text)


# libyaml 0.2.6 (PyYAML 6.0.4) refuses nesting past a level of its own (1,000), and its scanner
# reads up to 1,024 characters past the events it has delivered: on a line of brackets it used to
# refuse before olmcat had counted max_depth + 1 levels. The bound and message must be olmcat's
# with any PyYAML, at every entry point, below and above libyaml's default level.
_SHAPES: dict[str, Callable[[int], str]] = {
    "brackets": lambda n: "[" * n + "]" * n,
    "spaced-brackets": lambda n: "[ " * n + "]" * n,
    "flow-mappings-in-a-block": lambda n: "a: " + "{a: " * (n - 1) + "1" + "}" * (n - 1),
    "json": lambda n: '{"a": ' * n + "1" + "}" * n,
    "compact-block": lambda n: "- " * n + "x",
}


def _read_all(text: str) -> object:
    return load(text)


def _read_positioned(text: str) -> object:
    return goyaml.load_positioned(text, where="f.yaml")


def _read_first(text: str) -> object:
    try:
        return godecode.first_document(text.encode(), where="f.yaml").raw
    except godecode.NotDecodable as exc:
        raise InputError(f"f.yaml: {exc}") from None


@pytest.fixture
def deep_recursion() -> Iterator[None]:
    # As the CLI does for --max-depth: converting a 1,500-level document recurses.
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    yield
    sys.setrecursionlimit(saved)


@pytest.mark.parametrize("read", [_read_all, _read_positioned, _read_first])
@pytest.mark.parametrize("max_depth", [8, 256, 999, 1500])
@pytest.mark.parametrize("shape", list(_SHAPES))
def test_the_depth_bound_is_olmcats_whatever_libyaml_allows(
    shape: str, max_depth: int, read: Callable[[str], object], deep_recursion: None
) -> None:
    build = _SHAPES[shape]
    with safe.using(safe.Limits(max_depth=max_depth)):
        assert read(build(max_depth))  # at the bound: read, even past libyaml's own level
        for depth in (max_depth + 1, max_depth + 1_100, 60_000):
            # The JSON decoder (a document starting with "{") gives no line.
            with pytest.raises(
                InputError,
                match=rf"^f\.yaml: nested deeper than {max_depth} levels( \(line 1\))?; refusing",
            ):
                read(build(depth))


_LEVEL = getattr(getattr(yaml, "_yaml", None), "_set_max_nest_level", None)
_needs_level = pytest.mark.skipif(
    _LEVEL is None, reason="this PyYAML's libyaml has no nesting level of its own (before 6.0.4)"
)


@_needs_level
def test_the_hosts_libyaml_level_is_honoured_around_olmcat_and_put_back() -> None:
    ext: Any = yaml._yaml  # type: ignore[attr-defined]
    saved = ext._get_max_nest_level()
    ext._set_max_nest_level(300)
    try:
        with pytest.raises(InputError, match="nested deeper than 256 levels"):
            load(make.deep_flow_yaml())
        assert ext._get_max_nest_level() == 300
        assert load("[" * 256 + "]" * 256)
        assert ext._get_max_nest_level() == 300
        # The host's own loads still meet the host's level.
        with pytest.raises(yaml.YAMLError):
            yaml.load("[" * 400 + "]" * 400, Loader=yaml.CSafeLoader)
    finally:
        ext._set_max_nest_level(saved)


@_needs_level
def test_a_libyaml_level_that_pyyaml_cannot_set_is_scanned_around(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A PyYAML before 6.0.4 built against libyaml 0.2.6: the level is there, the setter is not.
    monkeypatch.setattr(goyaml, "_set_level", None)
    monkeypatch.setattr(goyaml, "_get_level", None)
    for text in (make.deep_flow_yaml(), make.deep_json(5_000)):
        with pytest.raises(InputError, match=r"^f\.yaml: nested deeper than 256 levels"):
            load(text)
    assert load("a: " + "[" * 255 + "]" * 255)


def test_duplicate_keys_and_non_finite_numbers_are_reported() -> None:
    found = notices("a: 1\nb: .inf\na: 2\nc: .nan\n")
    assert [n.code for n in found] == ["yaml.duplicate-key", "yaml.non-finite-number",
                                       "yaml.non-finite-number"]  # fmt: skip
    assert found[0].message == (
        "f.yaml: line 3: key 'a' appears twice in one mapping; the last value is used (as opm does)"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: [\n", r"^f\.yaml: not valid YAML: line 2, column 1: .*"),
        ("k\x85ey: 1\n", r"^f\.yaml: not valid YAML: line 2, column 3: mapping values"),
        ("\x00", r"^f\.yaml: not valid YAML: control characters are not allowed"),
        ("a: " + "9" * 5000, r"more digits than olmcat reads"),
        ("!!python/object/apply:os.system [ls]", r"could not determine a constructor"),
    ],
)
def test_errors_are_one_line(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as raised:
        load(text)
    assert len(str(raised.value).splitlines()) == 1


def _event_depth(text: str) -> int:
    depth = deepest = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            depth += 1
            deepest = max(deepest, depth)
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            depth -= 1
    return deepest


TOKENS = ["- ", "? ", ": ", "[", "]", "{", "}", ", ", "a", "b: ", "\n", "  ", " ", "'x'", '"y"',
          "&n ", "*n", "#c", "|\n  t", "---\n", "!!str "]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=40), st.integers(4, 30))
def test_cheap_depth_bound_never_underestimates(tokens: list[str], limit: int) -> None:
    """Whenever the cheap check lets a text through, its real nesting is within the limit (the
    exact event scan and libyaml's recursive composer are then never needed to be safe)."""
    text = "".join(tokens)
    try:
        depth = _event_depth(text)
    except yaml.YAMLError:
        return
    if goyaml._depth_bound_ok(text, limit):
        assert depth <= limit, text


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=30),
       st.sampled_from([None, True, False]), st.integers(1, 6))  # fmt: skip
def test_cheap_depth_bound_on_dumped_documents(
    value: object, flow: bool | None, indent: int
) -> None:
    text = yaml.safe_dump({"root": value}, default_flow_style=flow, indent=max(2, indent))
    depth = _event_depth(text)
    for limit in (4, 8, 16):
        if goyaml._depth_bound_ok(text, limit):
            assert depth <= limit, text


def test_corpus_manifests_load_as_yaml_v2_sees_them() -> None:
    """Every real manifest loads to what the plain loader gives (bounded loading changes no
    value), and the check that scans events runs for few of them."""
    root = CORPUS / "bundles" / "upstream"
    if not root.is_dir():
        pytest.skip(f"{root} is absent (read-only corpus in ../shared)")
    files = sorted(root.rglob("*.yaml"))[:400]
    for path in files:
        text = path.read_text()
        plain = [goyaml._convert(d, str(path)) for d in yaml.load_all(text, goyaml.GoLoader)
                 if d is not None]  # fmt: skip
        with safe.notices_to(lambda notice: None):
            assert list(goyaml.load_all(text, where=str(path))) == plain, path
