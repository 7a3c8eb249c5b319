"""Upgrade graphs of a catalog as Mermaid or Graphviz DOT text.

Like opm's ``alpha render-graph`` (one subgraph per package, one per channel inside it, edges from
the older bundle to the one that upgrades it), and also:

* ``skips`` edges, and ``skipRange`` edges from every entry of the channel whose version is in the
  range (blang/semver, as OLM evaluates it); the range itself is written under the bundle's name,
  so a range that matches nothing in the catalog (``< 0.6.0``) still shows;
* channel heads (bold), deprecated bundles (orange; ``olm.deprecations`` or the legacy
  ``olm.deprecated`` property), deprecated channels and packages (filled), the default channel
  (``(default)`` in its title), and names that are edge targets but not entries of the channel
  (dashed: skipped or replaced bundles that are not in the catalog);
* ``minimum_edge``: only the package holding that bundle, and in it only entries whose version is
  at least that bundle's (opm's floor) and the edges between them.

Output is deterministic: packages and channels by name, nodes by version then name, edges by
target, kind and source. Packages stream: one is held at a time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from olmcat.errors import InputError
from olmcat.model import PackageCatalog
from olmcat.model.versions import Version, opm_version, skip_range

GraphFormat = Literal["mermaid", "dot"]
FORMATS: tuple[GraphFormat, ...] = ("mermaid", "dot")
EdgeKind = Literal["replaces", "skips", "skipRange"]
_EDGE_ORDER: dict[str, int] = {"replaces": 0, "skips": 1, "skipRange": 2}

DEPRECATED_BUNDLE = "#E8960F"
DEPRECATED_CHANNEL = "#DCD0FF"
DEPRECATED_PACKAGE = "#989695"


@dataclass(slots=True)
class Node:
    id: str
    name: str
    version: Version | None
    skip_range: str = ""
    head: bool = False
    deprecated: bool = False
    missing: bool = False  # an edge target that is not an entry of the channel


@dataclass(frozen=True, slots=True)
class Edge:
    source: str  # node ids: from the older bundle ...
    target: str  # ... to the one that upgrades it
    kind: EdgeKind


@dataclass(slots=True)
class ChannelGraph:
    id: str
    name: str
    default: bool
    deprecated: bool
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)


@dataclass(slots=True)
class PackageGraph:
    id: str
    name: str
    deprecated: bool
    channels: list[ChannelGraph] = field(default_factory=list)


class _Ids:
    """Identifiers safe in both languages, readable, and unique across one output."""

    _UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")

    def __init__(self) -> None:
        self._taken: dict[str, str] = {}  # id -> the key it was made for

    def make(self, *parts: str) -> str:
        key = "\0".join(parts)
        base = self._UNSAFE.sub("_", "-".join(parts))
        candidate, number = base, 1
        while self._taken.get(candidate, key) != key:
            number += 1
            candidate = f"{base}_{number}"
        self._taken[candidate] = key
        return candidate


def bundle_versions(pkg: PackageCatalog) -> dict[str, Version]:
    """Bundle name -> version from its ``olm.package`` property (bundles without a valid one are
    left out)."""
    versions: dict[str, Version] = {}
    for bundle in pkg.bundles:
        version = opm_version(bundle)
        if version is not None:
            versions[bundle.name] = version
    return versions


def package_graph(
    pkg: PackageCatalog, ids: _Ids | None = None, minimum: Version | None = None
) -> PackageGraph | None:
    """The graph of one package, or None when ``minimum`` leaves nothing of it."""
    ids = ids or _Ids()
    versions = bundle_versions(pkg)
    package_deprecated, deprecated_channels, deprecated_bundles = pkg.deprecated_names()
    graph = PackageGraph(ids.make(pkg.name), pkg.name, package_deprecated)

    def kept(name: str) -> bool:
        if minimum is None:
            return True
        version = versions.get(name)
        return version is not None and version.compare(minimum) >= 0

    for channel in sorted(pkg.channels, key=lambda c: c.name):
        out = ChannelGraph(
            ids.make(pkg.name, channel.name),
            channel.name,
            channel.name == pkg.package.default_channel,
            channel.name in deprecated_channels,
        )
        heads = set(channel.heads())
        entries = [e for e in channel.entries if kept(e.name)]
        nodes: dict[str, Node] = {}
        for entry in entries:
            nodes.setdefault(
                entry.name,
                Node(
                    ids.make(pkg.name, channel.name, entry.name),
                    entry.name,
                    versions.get(entry.name),
                    entry.skip_range,
                    entry.name in heads,
                    entry.name in deprecated_bundles,
                ),
            )
        edges: set[tuple[str, str, EdgeKind]] = set()
        for entry in entries:
            targets: list[tuple[str, EdgeKind]] = [(s, "skips") for s in entry.skips if s]
            if entry.replaces:
                targets.insert(0, (entry.replaces, "replaces"))
            for older, kind in targets:
                if older not in nodes:
                    if minimum is not None:
                        continue  # below the floor, or of unknown version
                    nodes[older] = Node(
                        ids.make(pkg.name, channel.name, older),
                        older,
                        versions.get(older),
                        deprecated=older in deprecated_bundles,
                        missing=True,
                    )
                edges.add((older, entry.name, kind))
            covered = skip_range(entry.skip_range) if entry.skip_range else None
            if covered is None:
                continue  # OLM ignores a range it cannot parse; `olmcat validate` reports it
            for other in entries:
                version = versions.get(other.name)
                if other.name != entry.name and version is not None and covered.contains(version):
                    edges.add((other.name, entry.name, "skipRange"))
        if not nodes:
            continue
        out.nodes = sorted(nodes.values(), key=_node_order)
        order = {node.name: index for index, node in enumerate(out.nodes)}
        out.edges = [
            Edge(nodes[source].id, nodes[target].id, kind)
            for source, target, kind in sorted(
                edges, key=lambda e: (order[e[1]], _EDGE_ORDER[e[2]], order[e[0]])
            )
        ]
        graph.channels.append(out)
    return graph if graph.channels else None


def _node_order(node: Node) -> tuple[bool, Version, str]:
    return (node.version is None, node.version or Version(0), node.name)


# ------------------------------------------------------------------------------------------------
# Writers
# ------------------------------------------------------------------------------------------------


def _mermaid_text(text: str) -> str:
    # Mermaid reads a quoted label up to the next '"'; its entity syntax spells the quote.
    return text.replace('"', "#quot;")


_MERMAID_HEADER = (
    "graph LR\n"
    "  classDef head stroke-width:4px,font-weight:bold\n"
    f"  classDef deprecated fill:{DEPRECATED_BUNDLE}\n"
    "  classDef missing stroke-dasharray:5 5,color:#666\n"
)

_MERMAID_ARROWS: dict[str, str] = {
    "replaces": "-- replaces -->",
    "skips": "-. skips .->",
    "skipRange": "== skipRange ==>",
}


def write_mermaid(graph: PackageGraph) -> str:
    lines = [f"  %% package {json.dumps(graph.name)}"]
    lines.append(f'  subgraph {graph.id}["{_mermaid_text(graph.name)}"]')
    for channel in graph.channels:
        title = channel.name + (" (default)" if channel.default else "")
        lines.append(f"    %% channel {json.dumps(channel.name)}")
        lines.append(f'    subgraph {channel.id}["{_mermaid_text(title)}"]')
        for node in channel.nodes:
            label = node.name
            if node.skip_range:
                label += f"<br/>skipRange: {node.skip_range}"
            lines.append(f'      {node.id}["{_mermaid_text(label)}"]')
        for edge in channel.edges:
            lines.append(f"      {edge.source} {_MERMAID_ARROWS[edge.kind]} {edge.target}")
        for css, members in (
            ("head", [n.id for n in channel.nodes if n.head]),
            ("deprecated", [n.id for n in channel.nodes if n.deprecated]),
            ("missing", [n.id for n in channel.nodes if n.missing]),
        ):
            if members:
                lines.append(f"      class {','.join(members)} {css}")
        lines.append("    end")
    lines.append("  end")
    if graph.deprecated:
        lines.append(f"  style {graph.id} fill:{DEPRECATED_PACKAGE}")
    for channel in graph.channels:
        if channel.deprecated:
            lines.append(f"  style {channel.id} fill:{DEPRECATED_CHANNEL}")
    return "\n".join(lines) + "\n"


def _dot_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


_DOT_HEADER = (
    "digraph catalog {\n"
    "  rankdir=LR;\n"
    '  graph [fontname="Helvetica"];\n'
    '  node [shape=box, style=rounded, fontname="Helvetica"];\n'
    '  edge [fontname="Helvetica", fontsize=10];\n'
)

_DOT_EDGES: dict[str, str] = {
    "replaces": 'label="replaces"',
    "skips": 'label="skips", style=dashed',
    "skipRange": 'label="skipRange", style=dotted, penwidth=2',
}


def _dot_node(node: Node) -> str:
    label = node.name + (f"\nskipRange: {node.skip_range}" if node.skip_range else "")
    attributes = [f"label={_dot_string(label)}"]
    styles = ["rounded"]
    if node.deprecated:
        styles.append("filled")
        attributes.append(f'fillcolor="{DEPRECATED_BUNDLE}"')
    if node.missing:
        styles.append("dashed")
        attributes.append('color="#666666", fontcolor="#666666"')
    if node.head:
        styles.append("bold")
        attributes.append("penwidth=3")
    attributes.append(f'style="{",".join(styles)}"')
    return f"      {_dot_string(node.id)} [{', '.join(attributes)}];"


def write_dot(graph: PackageGraph) -> str:
    lines = [f"  subgraph {_dot_string('cluster_' + graph.id)} {{"]
    lines.append(f"    label={_dot_string(graph.name)};")
    if graph.deprecated:
        lines.append(f'    style=filled; fillcolor="{DEPRECATED_PACKAGE}";')
    for channel in graph.channels:
        title = channel.name + (" (default)" if channel.default else "")
        lines.append(f"    subgraph {_dot_string('cluster_' + channel.id)} {{")
        lines.append(f"      label={_dot_string(title)};")
        if channel.deprecated:
            lines.append(f'      style=filled; fillcolor="{DEPRECATED_CHANNEL}";')
        elif channel.default:
            lines.append("      penwidth=2;")
        lines.extend(_dot_node(node) for node in channel.nodes)
        for edge in channel.edges:
            lines.append(
                f"      {_dot_string(edge.source)} -> {_dot_string(edge.target)} "
                f"[{_DOT_EDGES[edge.kind]}];"
            )
        lines.append("    }")
    lines.append("  }")
    return "\n".join(lines) + "\n"


def selected_graphs(
    packages: Iterable[PackageCatalog],
    *,
    package: str | None = None,
    minimum_edge: str | None = None,
) -> Iterator[PackageGraph]:
    """The graphs of ``packages`` (one at a time), limited to ``package``, and to entries of at
    least ``minimum_edge``'s version in that bundle's package. Raises :class:`InputError` when
    either names nothing (after the last graph)."""
    ids = _Ids()
    found = False
    for pkg in packages:
        if package is not None and pkg.name != package:
            continue
        minimum = None
        if minimum_edge is not None:
            minimum = bundle_versions(pkg).get(minimum_edge)
            if minimum is None:
                continue
        found = True
        graph = package_graph(pkg, ids, minimum)
        if graph is not None:
            yield graph
    if minimum_edge is not None and not found:
        where = f" in package {package!r}" if package is not None else ""
        raise InputError(f"unknown minimum edge {minimum_edge!r}: no bundle of that name{where}")
    if package is not None and not found:
        raise InputError(f"no package {package!r} in the catalog")


def render(
    packages: Iterable[PackageCatalog],
    *,
    format: GraphFormat = "mermaid",
    package: str | None = None,
    minimum_edge: str | None = None,
) -> Iterator[str]:
    """The graph text of ``packages``, one chunk per package after the header.

    ``package`` limits the output to one package; ``minimum_edge`` names a bundle whose version is
    the floor (its package only). Raises :class:`InputError` when either names nothing.
    """
    header, footer = (_MERMAID_HEADER, "") if format == "mermaid" else (_DOT_HEADER, "}\n")
    writer = write_mermaid if format == "mermaid" else write_dot
    started = False
    for graph in selected_graphs(packages, package=package, minimum_edge=minimum_edge):
        if not started:  # the header waits, so that a failed filter prints nothing
            started = True
            yield header
        yield writer(graph)
    if not started:
        yield header
    yield footer
