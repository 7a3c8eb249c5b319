"""``render-graph --format svg|html``: a catalog's upgrade graphs as pictures.

The graphs are those of :mod:`olmcat.query.render_graph` (the Mermaid and DOT output), the same
edges and marks: replaces / skips / skipRange edges (solid / dashed / dotted, three colours),
channel heads (bold box, ``head``), deprecated bundles, channels and packages, the default
channel, and edge targets that are not entries of the channel (dotted box).
"""

from __future__ import annotations

from collections.abc import Iterable

from olmcat.model import PackageCatalog
from olmcat.pictures.lanes import Edge, Lane, Node, Picture, draw, marker_defs, simplify
from olmcat.pictures.page import GRAPH_CSS, controls, legend, page
from olmcat.pictures.text import attr, esc
from olmcat.query.render_graph import PackageGraph, selected_graphs

__all__ = ["graph_html", "graph_svg", "package_picture"]


def package_picture(graph: PackageGraph) -> Picture:
    """One package's channels as lanes."""
    lanes = []
    for channel in graph.channels:
        names = {node.id: node.name for node in channel.nodes}
        lane = Lane(channel.name)
        if channel.default:
            lane.tags.append("default channel")
        if channel.deprecated:
            lane.tags.append("deprecated")
            lane.marks.add("deprecated")
        for node in channel.nodes:
            drawn = Node(node.name, node.version, range=node.skip_range)
            if node.head:
                drawn.tags.append("head")
                drawn.marks.add("head")
            if node.deprecated:
                drawn.tags.append("deprecated")
                drawn.marks.add("deprecated")
            if node.missing:
                drawn.tags.append("not in channel")
                drawn.marks.add("missing")
            lane.nodes[node.name] = drawn
        lane.edges = [Edge(names[e.source], names[e.target], e.kind) for e in channel.edges]
        lanes.append(lane)
    return simplify(Picture(lanes))


def _caption(graph: PackageGraph) -> str:
    return f"upgrade graph of package {graph.name}" + (" (deprecated)" if graph.deprecated else "")


def graph_svg(
    packages: Iterable[PackageCatalog],
    *,
    package: str | None = None,
    minimum_edge: str | None = None,
) -> str:
    """One standalone SVG file: every package's picture, one below the other, each under its
    name. Same selection and errors as :func:`olmcat.query.render_graph.render`."""
    parts: list[str] = []
    y = 0.0
    width = 300.0
    for graph in selected_graphs(packages, package=package, minimum_edge=minimum_edge):
        svg = draw(package_picture(graph), caption=_caption(graph))
        w, h = _size(svg)
        heading = graph.name + (" (deprecated package)" if graph.deprecated else "")
        parts.append(
            f'<g transform="translate(0 {y:.0f})"><text class="pkg-title" x="10" y="24">'
            f"{esc(heading, 120)}</text>"
            f'<svg x="0" y="34" width="{w:.0f}" height="{h:.0f}">{_inner(svg)}</svg></g>'
        )
        y += h + 50
        width = max(width, w)
    height = max(y, 60.0)
    css = GRAPH_CSS + "svg .pkg-title{font-weight:bold;font-size:16px}"
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="{width:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
        'aria-label="upgrade graphs">'
        f"<style>{css}</style>{marker_defs()}"
        f'<rect class="bg" width="{width:.0f}" height="{height:.0f}"/>'
        + ("".join(parts) or '<text x="10" y="30">no upgrade graph in the catalog</text>')
        + "</svg>\n"
    )


def _size(svg: str) -> tuple[float, float]:
    head = svg[: svg.index(">")]
    width = float(head.split(' width="', 1)[1].split('"', 1)[0])
    height = float(head.split(' height="', 1)[1].split('"', 1)[0])
    return width, height


def _inner(svg: str) -> str:
    return svg[svg.index(">") + 1 : svg.rindex("</svg>")]


def graph_html(
    packages: Iterable[PackageCatalog],
    *,
    package: str | None = None,
    minimum_edge: str | None = None,
    title: str = "Upgrade graphs",
) -> str:
    """One self-contained HTML page: a table of packages linking to one collapsible section
    per package with its picture, a filter box and a legend."""
    sections: list[str] = []
    rows: list[str] = []
    for index, graph in enumerate(
        selected_graphs(packages, package=package, minimum_edge=minimum_edge)
    ):
        picture = package_picture(graph)
        anchor = f"pkg-{index}"
        nodes = sum(len(c.nodes) for c in graph.channels)
        edges = sum(len(c.edges) for c in graph.channels)
        default = next((c.name for c in graph.channels if c.default), "")
        rows.append(
            f'<tr data-filter="{attr(graph.name)}"><td><a href="#{anchor}">'
            f"{esc(graph.name, 200)}</a>{' (deprecated)' if graph.deprecated else ''}</td>"
            f'<td class="num">{len(graph.channels)}</td><td>{esc(default, 200)}</td>'
            f'<td class="num">{nodes}</td><td class="num">{edges}</td></tr>'
        )
        notes = "".join(f'<p class="note">{esc(n)}</p>' for n in picture.notes)
        sections.append(
            f'<details class="item" id="{anchor}" data-filter="{attr(graph.name)}"'
            f"{' open' if index < 20 else ''}><summary>{esc(graph.name, 300)}"
            f"{' — deprecated' if graph.deprecated else ''}</summary>{notes}"
            f'<div class="figure">{draw(picture, caption=_caption(graph))}</div></details>'
        )
    body = [
        legend("graph"),
        controls(len(sections), "package"),
        "<h2>Packages</h2><table><thead><tr><th>package</th><th>channels</th>"
        "<th>default channel</th><th>channel entries</th><th>edges</th></tr></thead><tbody>",
        *rows,
        "</tbody></table>",
        *sections,
    ]
    if not sections:
        body.append('<p class="note">No upgrade graph in the catalog.</p>')
    return page(title, body)
