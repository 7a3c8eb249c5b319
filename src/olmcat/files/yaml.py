"""Load YAML the way Go's Kubernetes tooling sees it (libyaml C loader for speed), bounded.

yaml.v2, which opm and the legacy loaders use, resolves the YAML 1.1 scalars (booleans such as
``yes``/``on``, numbers, null) but leaves timestamps and ``=`` as strings when decoding into
generic maps; PyYAML would turn ``2021-01-01`` into a date. Keys that are not strings become
strings, as they do when Go converts YAML to JSON.

Input is hostile until proven otherwise, so loading is bounded (:mod:`olmcat.files.safe` limits):

* **Depth** is checked before libyaml composes a document (its composer recurses in C, and a
  document nested some 50,000 levels deep overflows the C stack). A cheap upper bound from the
  text decides; only a text whose bound is over the limit is scanned exactly, event by event
  (libyaml's parser does not recurse). libyaml 0.2.6 (PyYAML 6.0.4) has a nesting level of its
  own; while olmcat parses, that level is held above ``max_depth`` (:class:`_LibyamlLevel`), so
  olmcat's bound and message are the same with every PyYAML.
* **Aliases** ("billion laughs"): when the text defines anchors, the composed node graph is
  measured before anything is built; a document whose aliases (or ``<<`` merges) expand it to
  more than ``yaml_alias_ratio`` times its nodes (beyond :data:`~olmcat.files.safe.YAML_ALIAS_FLOOR`
  nodes) is refused, and so is an alias that contains itself.
* **Oddities** are reported as input notices: duplicate keys (the last value wins, as in
  yaml.v2) and ``.inf`` / ``.nan`` values (no JSON number holds them; opm fails on them).

Every problem is an :class:`~olmcat.errors.InputError` of one line naming the file.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Callable, Iterator
from typing import IO, Any

import yaml

from olmcat.errors import InputError
from olmcat.files import safe
from olmcat.go.json import RawNumber, go_float
from olmcat.notices import Notice

try:
    _Base: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Base = yaml.SafeLoader

_MERGE_TAG = "tag:yaml.org,2002:merge"


class GoLoader(_Base):  # type: ignore[misc]
    """SafeLoader without timestamp resolution, reporting duplicate mapping keys (refusing
    them when ``duplicate_keys_refused``, as yaml.v2's UnmarshalStrict does)."""

    where = "<input>"
    duplicate_keys_refused = False

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._checked: set[int] = set()

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        # SafeConstructor flattens every mapping (and, recursively, merged ones) before building
        # it and rewrites node.value as it goes: look at the keys as written, before that.
        if id(node) not in self._checked:
            self._checked.add(id(node))
            _report_duplicates(node, self.where, refuse=self.duplicate_keys_refused)
        super().flatten_mapping(node)


# yaml.v2 resolves neither timestamps (into generic maps) nor the YAML 1.1 "=" value key.
_UNRESOLVED = {"tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:value"}
GoLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in _UNRESOLVED]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _report_duplicates(node: yaml.MappingNode, where: str, *, refuse: bool = False) -> None:
    # Keys become strings (Go's YAML-to-JSON), so keys written alike are duplicates.
    keys = [k.value for k, _ in node.value if type(k) is yaml.ScalarNode]
    if len(keys) < 2 or len(set(keys)) == len(keys):
        return
    seen: set[str] = set()
    for key_node, _ in node.value:
        if type(key_node) is not yaml.ScalarNode or key_node.tag == _MERGE_TAG:
            continue
        if key_node.value in seen:
            line = key_node.start_mark.line + 1 if key_node.start_mark else 0
            if refuse:
                raise InputError(
                    f"{where}: line {line}: key {_shown(key_node.value)} is given twice in one "
                    "mapping"
                )
            _notify_duplicate(where, line, key_node.value)
        seen.add(key_node.value)


def _notify_duplicate(where: str, line: int, key: str) -> None:
    safe.notify(
        Notice(
            "yaml.duplicate-key",
            f"{where}: line {line}: key {_shown(key)} appears twice in one mapping; the last "
            "value is used (as opm does)",
            file=where,
        )
    )


def _shown(text: str) -> str:
    return repr(text if len(text) <= 80 else text[:77] + "...")


# -- bounds checked before building ---------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _deep_line(columns: int) -> re.Pattern[str]:
    """A line starting with ``columns`` characters of indentation or block indicators (matched
    after a newline: much faster than ``^`` with re.M; the first line is checked apart)."""
    return re.compile(r"\n[ \t?:\-]{" + str(columns) + "}")


def _depth_bound_ok(text: str, max_depth: int) -> bool:
    """Whether a cheap upper bound on the nesting depth of ``text`` is within ``max_depth``.

    Flow collections need an opening bracket each. A nested block collection starts further
    right than its parent, except a sequence under a mapping key, which may share its column
    (so at most two per column); it starts at a line's indentation or after the indicators
    (``- ``, ``? ``, ``: ``) that open that line. So depth <= brackets + 2 * (longest such line
    prefix + 1).
    """
    brackets = text.count("[") + text.count("{")
    columns = (max_depth - brackets) // 2 - 1
    if columns <= 0:
        return False
    pattern = _deep_line(columns)
    return pattern.search(text) is None and pattern.match("\n" + text[:columns]) is None


def _event_depth_ok(text: str, max_depth: int, where: str) -> None:
    depth = 0
    opening = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
    closing = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    scanner = yaml.SafeLoader if _fixed_level() else _Base
    with _LibyamlLevel(max_depth):
        for event in yaml.parse(text, Loader=scanner):
            if isinstance(event, opening):
                depth += 1
                if depth > max_depth:
                    raise _too_deep(where, max_depth, event.start_mark)
            elif isinstance(event, closing):
                depth -= 1


def _too_deep(where: str, max_depth: int, mark: Any = None) -> InputError:
    at = f" (line {mark.line + 1})" if mark is not None else ""
    return InputError(
        f"{where}: nested deeper than {max_depth} levels{at}; refusing to read it "
        "(raise the limit with --max-depth if the document is genuine)"
    )


# -- libyaml's own nesting level ------------------------------------------------------------------
# libyaml 0.2.6 (bundled since PyYAML 6.0.4) refuses nesting past a process-wide level of its own,
# 1,000 by default ("exceeded maximum nesting depth"), counted by its scanner. The scanner runs
# ahead of the events it has delivered for as long as a token may still start a simple key: up to
# 1,024 characters, so on a line of brackets it passes its level before the events counted above
# show max_depth + 1, and its refusal spoke instead of olmcat's; with --max-depth over that level
# it would also refuse documents olmcat allows. So while olmcat scans or composes, the level is
# max_depth plus that look-ahead: olmcat's bound always speaks first, and its event count still
# stops the scanner within 1,026 levels of it. The level is put back afterwards (a library must not
# change its host's PyYAML), under a lock so that threads cannot put back each other's level.
# Where libyaml has such a level but PyYAML cannot set it (a PyYAML before 6.0.4 built against a
# newer libyaml), the exact scan uses PyYAML's own parser, which has none.
_SCANNER_LOOKAHEAD = 1024 + 2
_yaml_ext: Any = getattr(yaml, "_yaml", None)
_get_level: Callable[[], int] | None = getattr(_yaml_ext, "_get_max_nest_level", None)
_set_level: Callable[[int], None] | None = getattr(_yaml_ext, "_set_max_nest_level", None)
_level_lock = threading.RLock()


def _reset_level_lock() -> None:  # a forked child must not inherit a held lock
    global _level_lock
    _level_lock = threading.RLock()


os.register_at_fork(after_in_child=_reset_level_lock)


def _fixed_level() -> bool:
    """Whether libyaml has a nesting level of its own that PyYAML cannot set."""
    if _yaml_ext is None or _set_level is not None:
        return False
    return tuple(_yaml_ext.get_version()) >= (0, 2, 6)


class _LibyamlLevel:
    """While in the block: libyaml's nesting level at least ``max_depth`` + its look-ahead."""

    __slots__ = ("levels", "saved")

    def __init__(self, max_depth: int) -> None:
        self.levels = max_depth + _SCANNER_LOOKAHEAD
        self.saved = 0

    def __enter__(self) -> None:
        if _set_level is None or _get_level is None:
            return
        _level_lock.acquire()
        self.saved = _get_level()
        if self.saved < self.levels:
            _set_level(self.levels)

    def __exit__(self, *_: object) -> None:
        if _set_level is None or _get_level is None:
            return
        try:
            if self.saved < self.levels:
                _set_level(self.saved)
        finally:
            _level_lock.release()


# Anything that may be an anchor ("&name"); a false positive only costs the graph check.
_ANCHOR = re.compile(r"&[^\s\[\]{},]")


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [item for pair in node.value for item in pair]
    return []


def _check_graph(root: yaml.Node, where: str, limits: safe.Limits) -> None:
    """Refuse alias cycles, depth through aliases, and alias expansion beyond the ratio."""
    sizes: dict[int, int] = {}
    heights: dict[int, int] = {}
    active: set[int] = set()
    edges = 0
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            children = _children(node)
            edges += len(children)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            heights[key] = 1 + max((heights[id(c)] for c in children), default=-1)
            if heights[key] > limits.max_depth:
                raise _too_deep(where, limits.max_depth, node.start_mark)
            active.discard(key)
            continue
        if key in sizes:
            continue
        if key in active:
            raise InputError(
                f"{where}: line {node.start_mark.line + 1}: an alias refers to a node that "
                "contains it (a recursive document); refusing to read it"
            )
        active.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
    # Nodes as written: every node once, plus every alias (an edge of the graph each).
    written = 1 + edges
    allowed = max(safe.YAML_ALIAS_FLOOR, limits.yaml_alias_ratio * written)
    if sizes[id(root)] > allowed:
        raise InputError(
            f"{where}: YAML aliases expand {written} nodes to {sizes[id(root)]} (an alias "
            f"bomb?); refusing more than {limits.yaml_alias_ratio} times the nodes written "
            "(--max-yaml-alias-ratio)"
        )


# -- building plain documents straight from parser events -----------------------------------------


class NotPlain(Exception):
    """The document needs the full loader: anchors, aliases, tags, merge keys, collections as
    keys, a value the scalar rule will not build, or text libyaml refuses (the full loader then
    gives the error)."""


_ScalarEvent = yaml.ScalarEvent
_MappingStart = yaml.MappingStartEvent
_MappingEnd = yaml.MappingEndEvent
_SequenceStart = yaml.SequenceStartEvent
_SequenceEnd = yaml.SequenceEndEvent
_DocumentStart = yaml.DocumentStartEvent
_DocumentEnd = yaml.DocumentEndEvent
_NO_KEY = object()

_EventParser: Any = getattr(getattr(yaml, "_yaml", None), "CParser", None)  # None without libyaml


def build_plain(
    text: str,
    where: str,
    scalar: Callable[[str], Any],
    key: Callable[[str], str],
    special: tuple[frozenset[str], frozenset[str]],
    max_depth: int | None = None,
) -> Any:
    """The first document of ``text`` built from libyaml's events in one pass, for documents
    that use nothing but mappings, sequences and untagged scalars (most manifests). Plain
    scalars become ``scalar(text)``, plain mapping keys ``key(text)``, quoted ones stay text;
    ``special`` is (first characters, whole words) of the plain texts those may change: the
    others are taken as text without a call.

    Gives what the composer and a constructor with the same scalar rules give, duplicate-key
    notices included (same text, same order), and raises :class:`NotPlain` for anything else
    -- before any notice is sent -- so the caller loads the text with the full loader instead.
    With ``max_depth`` the depth bound is checked on the way (the same error, at the same
    event, as the check before parsing gives); without it the caller checks it first. Must not
    be used on text with anchors (the alias bound needs the composed graph): an alias without
    an anchor is NotPlain here. Text holding more than one document is NotPlain (the loader
    reads only the first, but bounds the whole text).
    """
    built = build_documents(text, where, scalar, key, special, max_depth, first_only=True)
    if not built:
        return None
    root, duplicates = built[0]
    notify_duplicates(where, duplicates)
    return root


Duplicates = list[tuple[int, int, int, str]]  # (depth, mapping number, line, key text)


def notify_duplicates(where: str, duplicates: Duplicates) -> None:
    """The duplicate-key notices of one built document, in the order the constructor sends
    them: breadth first, a level's mappings in document order."""
    for _, _, line, value in sorted(duplicates, key=lambda d: (d[0], d[1])):
        _notify_duplicate(where, line, value)


def build_documents(
    text: str,
    where: str,
    scalar: Callable[[str], Any],
    key: Callable[[str], str],
    special: tuple[frozenset[str], frozenset[str]],
    max_depth: int | None = None,
    *,
    first_only: bool = False,
) -> list[tuple[Any, Duplicates]]:
    """Every document of ``text`` (see :func:`build_plain`) with its repeated keys, whose
    notices are the caller's to send (:func:`notify_duplicates`) when it takes the document.
    ``first_only``: the first document, and NotPlain when another one follows."""
    if _EventParser is None:  # pragma: no cover
        raise NotPlain
    parser: Any = _EventParser(text)
    get = parser.get_event
    first, words = special
    first = first | {"<"}  # "<<" is a merge key
    # Tags need a "!" and anchors a "&": without either the events need no look for them.
    props = "!" in text or "&" in text
    bound = max_depth if max_depth is not None else -1
    out: list[tuple[Any, Duplicates]] = []
    try:
        get()  # stream start
        while True:
            event = get()
            if event.__class__ is not _DocumentStart:
                break  # the stream's end (only comments: no document at all)
            if first_only and out:
                raise NotPlain  # a second document: the loader bounds it too
            # (depth, mapping number, line, key text) of every repeated key, for the notices.
            duplicates: Duplicates = []
            # The collection being filled and, for a mapping, the key waiting for its value
            # and the keys seen (as written); the enclosing ones on the stack.
            stack: list[tuple[Any, bool, Any, set[str], int]] = []
            container: Any = None
            in_mapping = False
            pending: Any = _NO_KEY
            seen: set[str] = set()
            mappings = number = depth = 0
            root: Any = None
            while True:
                event = get()
                kind = event.__class__
                if kind is _ScalarEvent:
                    if props and (event.tag is not None or event.anchor is not None):
                        raise NotPlain
                    value = event.value
                    if in_mapping:
                        if pending is _NO_KEY:
                            if value in seen:
                                duplicates.append(
                                    (len(stack), number, event.start_mark.line + 1, value)
                                )
                            else:
                                seen.add(value)
                            if event.implicit[0] and (value[:1] in first or value in words):
                                if value == "<<":
                                    raise NotPlain  # a merge key
                                value = key(value)
                            pending = value
                            continue
                        if event.implicit[0] and (value[:1] in first or value in words):
                            if value == "<<":
                                raise NotPlain
                            value = scalar(value)
                        container[pending] = value
                        pending = _NO_KEY
                        continue
                    if event.implicit[0] and (value[:1] in first or value in words):
                        if value == "<<":
                            raise NotPlain
                        value = scalar(value)
                    if container is None:
                        root = value
                    else:
                        container.append(value)
                    continue
                if kind is _MappingEnd or kind is _SequenceEnd:
                    depth -= 1
                    if stack:
                        container, in_mapping, pending, seen, number = stack.pop()
                    continue
                if kind is _MappingStart:
                    value = {}
                elif kind is _SequenceStart:
                    value = []
                elif kind is _DocumentEnd:
                    break
                else:
                    raise NotPlain  # an alias
                depth += 1
                if depth == bound + 1:
                    raise _too_deep(where, bound, event.start_mark)
                if event.tag is not None or event.anchor is not None:
                    raise NotPlain
                if container is None:
                    root = value
                elif in_mapping:
                    if pending is _NO_KEY:
                        raise NotPlain  # a collection as a key
                    container[pending] = value
                    stack.append((container, True, _NO_KEY, seen, number))
                else:
                    container.append(value)
                    stack.append((container, False, _NO_KEY, seen, number))
                container = value
                in_mapping = kind is _MappingStart
                if in_mapping:
                    pending, seen = _NO_KEY, set()
                    mappings += 1
                    number = mappings
            out.append((root, duplicates))
    except (NotPlain, InputError):
        raise
    except Exception:
        raise NotPlain from None  # the full loader says what is wrong, as it always did
    finally:
        parser.dispose()
    return out


def _check_depth(text: str, max_depth: int, where: str) -> None:
    try:
        if not _depth_bound_ok(text, max_depth):
            _event_depth_ok(text, max_depth, where)
    except InputError:
        raise
    except Exception as exc:
        raise yaml_error(exc, where) from None


def _has_anchors(text: str) -> bool:
    return "&" in text and _ANCHOR.search(text) is not None


# -- conversion to Go's view ----------------------------------------------------------------------


def _convert(value: Any, where: str, strict: bool = False) -> Any:
    if isinstance(value, dict):
        return {_key(k): _convert(v, where, strict) for k, v in value.items()}
    if isinstance(value, list):
        return [_convert(v, where, strict) for v in value]
    if type(value) is float:
        return _number(value, where, strict)
    return value


def _number(value: float, where: str, strict: bool = False) -> int | float | RawNumber:
    """Floats as Go's JSON sees them: whole numbers print as integers (Kubernetes' decoder makes
    them int64), others keep Go's float formatting (kept as text)."""
    if value.is_integer() and abs(value) < 1e21:
        return int(value)
    if value != value or value in (float("inf"), float("-inf")):
        if strict:
            raise InputError(
                f"{where}: holds the YAML value {value!r} (.inf / .nan), which no JSON number "
                "can hold (opm cannot load it either)"
            )
        safe.notify(
            Notice(
                "yaml.non-finite-number",
                f"{where}: holds the YAML value {value!r} (.inf / .nan), which no JSON number "
                "can hold; opm fails on it",
                file=where,
            )
        )
        return value
    return RawNumber(go_float(value))


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    return str(key)


# -- loading --------------------------------------------------------------------------------------


def _text(stream: IO[str] | IO[bytes] | str | bytes, where: str) -> str:
    if isinstance(stream, str):
        return stream
    if isinstance(stream, bytes):
        return safe.decode_utf8(stream, where)
    data = stream.read()
    return data if isinstance(data, str) else safe.decode_utf8(data, where)


def yaml_error(exc: Exception, where: str) -> InputError:
    """One line for any error the loader raises."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        at = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = exc.problem or exc.context or "malformed"
        context = f" ({exc.context})" if exc.context and exc.problem else ""
        return InputError(f"{where}: not valid YAML: {at}{problem}{context}")
    if isinstance(exc, yaml.reader.ReaderError):
        return InputError(
            f"{where}: not valid YAML: {exc.reason} (character #x{exc.character:04x} at "
            f"position {exc.position})"
            if isinstance(exc.character, int)
            else f"{where}: not valid YAML: {exc.reason} at position {exc.position}"
        )
    if isinstance(exc, yaml.YAMLError):
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return InputError(f"{where}: not valid YAML: {first}")
    if isinstance(exc, ValueError) and "digits" in str(exc):
        return InputError(f"{where}: holds a number with more digits than olmcat reads (4300)")
    if isinstance(exc, RecursionError):
        return InputError(f"{where}: nested too deeply to read")
    return InputError(f"{where}: cannot read as YAML: {type(exc).__name__}: {exc}")


# -- GoLoader's plain scalars, for the builder ---------------------------------------------------

_STR_TAG = "tag:yaml.org,2002:str"
# Plain texts GoLoader's resolvers may turn into something other than a string: by their first
# character (numbers, the merge key, "!", "&", "*" alone) or as whole words (booleans, nulls).
_GO_FIRST = frozenset("!&*+-.0123456789<")
_GO_WORDS = frozenset(
    ["yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
     "on", "On", "ON", "off", "Off", "OFF", "~", "null", "Null", "NULL", ""]
)  # fmt: skip
GO_SPECIAL = (_GO_FIRST, _GO_WORDS)
_SCALARS: Any = None  # a loader whose resolver and constructors build single scalars


@functools.lru_cache(maxsize=4096)
def go_scalar(text: str) -> Any:
    """What :func:`load_all` makes of an untagged plain scalar: GoLoader's value, converted as
    :func:`_convert` converts it. NotPlain where that conversion would send a notice (``.inf``,
    ``.nan``) or the loader would fail."""
    global _SCALARS
    if _SCALARS is None:
        _SCALARS = GoLoader("")
    tag = _SCALARS.resolve(yaml.ScalarNode, text, (True, False))
    if tag == _STR_TAG:
        return text
    constructor = _SCALARS.yaml_constructors.get(tag)
    if constructor is None or tag == _MERGE_TAG:
        raise NotPlain
    value = constructor(_SCALARS, yaml.ScalarNode(tag, text))
    if type(value) is float:
        if value != value or value in (float("inf"), float("-inf")):
            raise NotPlain  # the loader's path sends the notice
        return _number(value, "")
    return value


def go_key(text: str) -> str:
    """A plain mapping key as :func:`load_all` makes it; NotPlain for one that is no string to
    GoLoader (``1``, ``true``, ``~``: Python's dict would merge ``1`` and ``true``)."""
    value = go_scalar(text)
    if type(value) is not str:
        raise NotPlain
    return value


def load_all(stream: IO[str] | IO[bytes] | str | bytes, *, where: str = "<input>") -> Iterator[Any]:
    """Every document of a (multi-document) YAML stream; empty documents are skipped.

    Documents are built straight from parser events where they can be (:func:`build_documents`
    with GoLoader's scalar rules); the others go through the loader, with the same values,
    errors and notices."""
    text = _text(stream, where)
    max_depth = safe.limits().max_depth
    try:
        with _LibyamlLevel(max_depth):
            built = build_documents(text, where, go_scalar, go_key, GO_SPECIAL, max_depth)
    except NotPlain:
        built = None
    if built is None:
        for document in load_all_with(GoLoader, text, where=where):
            if document is not None:
                yield _convert(document, where)
        return
    for document, duplicates in built:
        notify_duplicates(where, duplicates)  # as the loader sends them: when it is taken
        if document is not None:
            yield document


def load_all_with(
    loader_class: type[GoLoader], stream: IO[str] | IO[bytes] | str | bytes, *, where: str
) -> Iterator[Any]:
    """Every document (``None`` for an empty one) as ``loader_class`` (a :class:`GoLoader`)
    constructs it, under the bounds of :func:`load_all`; for decoders with their own rules."""
    text = _text(stream, where)
    limits = safe.limits()
    _check_depth(text, limits.max_depth, where)
    anchors = _has_anchors(text)
    loader = loader_class(text)
    loader.where = where
    try:
        while True:
            try:
                with _LibyamlLevel(limits.max_depth):
                    if not loader.check_node():
                        return
                    node = loader.get_node()
                if node is None:
                    continue
                if anchors:
                    _check_graph(node, where, limits)
                document = loader.construct_document(node)
                loader._checked.clear()
            except InputError:
                raise
            except (yaml.YAMLError, ValueError, RecursionError) as exc:  # digits: ValueError
                raise yaml_error(exc, where) from None
            yield document
    finally:
        loader.dispose()


def first_built_or_loaded(
    loader_class: type[GoLoader],
    stream: IO[str] | IO[bytes] | str | bytes,
    *,
    where: str,
    scalar: Callable[[str], Any],
    key: Callable[[str], str],
    special: tuple[frozenset[str], frozenset[str]],
) -> tuple[Any, bool]:
    """The first document of the stream (None when there is none) under the bounds of
    :func:`load_all`: built by :func:`build_plain` where it can be (``True``), else as
    ``loader_class`` constructs it (``False``); the caller's ``scalar`` and ``key`` must give
    what its conversion of the loader's values would."""
    text = _text(stream, where)
    limits = safe.limits()
    # The builder refuses anchors and aliases, so what it builds is a tree: no expansion for the
    # alias bound to measure (a ratio of at least 1 allows any tree), and its depth is what
    # _check_depth bounds. An "&" in the text (often in prose) costs no graph check then.
    # The depth bound is checked on the way, at the event the check before parsing would stop.
    if limits.yaml_alias_ratio >= 1 or not _has_anchors(text):
        try:
            with _LibyamlLevel(limits.max_depth):
                return build_plain(text, where, scalar, key, special, limits.max_depth), True
        except NotPlain:
            pass
    return next(load_all_with(loader_class, text, where=where), None), False


def load(stream: IO[str] | IO[bytes] | str | bytes, *, where: str = "<input>") -> Any:
    """The first document (None when there is none)."""
    for document in load_all(stream, where=where):
        return document
    return None


def read_documents(path: str | os.PathLike[str]) -> Iterator[Any]:
    """The YAML documents of a file read under the input policy (:func:`safe.read_text`)."""
    return load_all(safe.read_text(path), where=os.fspath(path))


def load_positioned(text: str, *, where: str = "<input>") -> tuple[int, int, Any] | None:
    """The one document of ``text`` with the 0-based line and column where its value starts;
    ``None`` when the text holds no value (only blanks, comments or a ``---`` line).

    For readers that must say where a value came from. A malformed document raises
    ``yaml.YAMLError`` (whose ``problem_mark`` locates the defect); a document over the limits
    (depth, aliases) raises :class:`~olmcat.errors.InputError` naming ``where``.
    """
    limits = safe.limits()
    if not _depth_bound_ok(text, limits.max_depth):
        _event_depth_ok(text, limits.max_depth, where)
    loader = GoLoader(text)
    loader.where = where
    try:
        with _LibyamlLevel(limits.max_depth):
            node = loader.get_single_node()
        if node is None:
            return None
        if "&" in text and _ANCHOR.search(text) is not None:
            _check_graph(node, where, limits)
        try:
            document = loader.construct_document(node)
        except (ValueError, RecursionError) as exc:  # an integer over 4300 digits
            raise yaml_error(exc, where) from None
        # A catalog value must be JSON: .inf / .nan is an error here, not a warning.
        value = _convert(document, where, strict=True)
        return node.start_mark.line, node.start_mark.column, value
    finally:
        loader.dispose()
