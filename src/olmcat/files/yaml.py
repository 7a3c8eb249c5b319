"""Load YAML the way Go's Kubernetes tooling sees it (libyaml C loader for speed).

yaml.v2, which opm and the legacy loaders use, resolves the YAML 1.1 scalars (booleans such as
``yes``/``on``, numbers, null) but leaves timestamps and ``=`` as strings when decoding into
generic maps; PyYAML would turn ``2021-01-01`` into a date. Keys that are not strings become
strings, as they do when Go converts YAML to JSON.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

import yaml

from olmcat.go.json import RawNumber, go_float

try:
    _Base: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Base = yaml.SafeLoader


class GoLoader(_Base):  # type: ignore[misc]
    """SafeLoader without timestamp resolution."""


# yaml.v2 resolves neither timestamps (into generic maps) nor the YAML 1.1 "=" value key.
_UNRESOLVED = {"tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:value"}
GoLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in _UNRESOLVED]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _stringify_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {_key(k): _stringify_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_stringify_keys(v) for v in value]
    if type(value) is float:
        return _number(value)
    return value


def _number(value: float) -> int | float | RawNumber:
    """Floats as Go's JSON sees them: whole numbers print as integers (Kubernetes' decoder makes
    them int64), others keep Go's float formatting (kept as text)."""
    if value.is_integer() and abs(value) < 1e21:
        return int(value)
    if value != value or value in (float("inf"), float("-inf")):
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


def load_all(stream: IO[str] | IO[bytes] | str | bytes) -> Iterator[Any]:
    """Every document of a (multi-document) YAML stream; empty documents are skipped."""
    for document in yaml.load_all(stream, Loader=GoLoader):
        if document is not None:
            yield _stringify_keys(document)


def load(stream: IO[str] | IO[bytes] | str | bytes) -> Any:
    return _stringify_keys(yaml.load(stream, Loader=GoLoader))


def load_positioned(text: str) -> tuple[int, int, Any] | None:
    """The one document of ``text`` with the 0-based line and column where its value starts;
    ``None`` when the text holds no value (only blanks, comments or a ``---`` line).

    For readers that must say where a value came from; raises ``yaml.YAMLError`` (whose
    ``problem_mark`` locates the defect) like :func:`load`.
    """
    loader = GoLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        value = _stringify_keys(loader.construct_document(node))
        return node.start_mark.line, node.start_mark.column, value
    finally:
        loader.dispose()
