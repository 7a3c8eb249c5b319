"""Generated YAML documents for the tests that read them both ways (built from parser events and
through the full loader) and require the same values."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import strategies as st

from olmcat.files import godecode

# Plain scalars yaml.v2 resolves in every way it can (and look-alikes it does not), quoted
# strings, and the oddities the builder must leave to the loader.
SCALARS = [
    "a", "x y", "y", "Y", "yes", "No", "on", "OFF", "true", "False", "null", "~", "", "''",
    '""', "'yes'", '"1"', "0", "-0", "+1", "08", "017", "0o17", "0x1A", "0b11", "1_000",
    "1e3", "1.5", ".5", "-.5", "4.10", "1e400", "12345678901234567890", "9223372036854775808",
    "-9223372036854775809", "18446744073709551616", ".inf", "-.Inf", ".nan", "2021-01-01",
    "=", "0.1", "1.0", "v1.2.3", "'it''s'", '"tab\\there"', "yEs", "<<", "!!str 5", "! x",
    "!custom x", "&a x", "*a",
]  # fmt: skip
KEYS = [
    "kind", "a", "b", "name", "packageName", "channels", "currentCSV", "defaultChannel",
    "1", "01", "1.0", "2.50", "true", "yes", "'yes'", '"true"', "~", ".inf", "<<", "'<<'",
    "? a", "[x]",
]  # fmt: skip


@st.composite
def documents(draw: st.DrawFn, depth: int = 0) -> Any:
    """A tree of ("map", [(key, value)]), ("seq", [value]) and scalar texts."""
    if depth >= 3 or draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from(SCALARS))
    if draw(st.booleans()):
        pairs = draw(
            st.lists(st.tuples(st.sampled_from(KEYS), documents(depth + 1)), min_size=1, max_size=4)
        )
        return ("map", pairs)
    return ("seq", draw(st.lists(documents(depth + 1), min_size=1, max_size=3)))


def block(node: Any, indent: int = 0) -> Iterator[str]:
    pad = " " * indent
    if isinstance(node, str):
        yield pad + node
    elif node[0] == "map":
        for key, value in node[1]:
            if isinstance(value, str):
                yield f"{pad}{key}: {value}"
            else:
                yield f"{pad}{key}:"
                yield from block(value, indent + 2)
    else:
        for item in node[1]:
            if isinstance(item, str):
                yield f"{pad}- {item}"
            else:
                yield f"{pad}-"
                yield from block(item, indent + 2)


def flow(node: Any) -> str:
    if isinstance(node, str):
        return node
    if node[0] == "map":
        return "{" + ", ".join(f"{k}: {flow(v)}" for k, v in node[1]) + "}"
    return "[" + ", ".join(flow(v) for v in node[1]) + "]"


def typed(value: Any) -> Any:
    """The value with every type spelled out (RawNumber is a str; True == 1)."""
    if isinstance(value, dict):
        return ("dict", [(k, typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    if isinstance(value, godecode.PackageManifest):
        return ("manifest", value)
    return (type(value).__name__, value)
