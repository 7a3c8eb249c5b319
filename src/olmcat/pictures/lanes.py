"""Upgrade graphs drawn as SVG: one lane per channel, one row per bundle, rows in version order.

The layout ("version lanes") is olmcat's own, made for upgrade graphs rather than for graphs in
general: every bundle has a version, and an upgrade edge runs from an older bundle to a newer one.
So the rows of a picture are the package's bundles sorted by version (oldest at the top, a bundle
without a known version just above the first bundle that upgrades from it), and each channel is a
column. A bundle sits on the same row in every channel that holds it, so a picture reads like a
table: down a lane is the channel's history, across a row is one bundle's channels. Edges are arcs
beside the lane: ``replaces`` and ``skips`` on the right (a ``replaces`` between neighbours is a
short straight arrow), ``skipRange`` on the left; an arc bulges more the more rows it spans, so
nested arcs do not lie on top of each other. Layout is linear in nodes and edges and needs no
program beyond Python (docs/architecture.md compares it with Graphviz ``dot``).

Everything is drawn with CSS classes, never inline colours, so one stylesheet gives the light and
dark palettes; the standalone SVG embeds that stylesheet. Text from the catalog goes through
:mod:`olmcat.pictures.text`. Each edge carries ``data-kind`` and ``data-change`` and each node
``data-name``, so tests (and readers' own scripts) can count what is drawn.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from olmcat.model.versions import Version
from olmcat.pictures.text import attr, clip, esc, visible

__all__ = [
    "EDGE_LIMIT",
    "NODE_LIMIT",
    "Edge",
    "Lane",
    "Node",
    "Picture",
    "Status",
    "draw",
    "drop_ranges",
    "elide",
    "marker_defs",
    "simplify",
]

Status = Literal["same", "added", "removed"]
Kind = Literal["replaces", "skips", "skipRange", "step"]

# Past these a picture falls back to a simpler drawing (see simplify()).
NODE_LIMIT: Final = 400
EDGE_LIMIT: Final = 2500

ROW: Final = 32  # row pitch
BOX: Final = 20  # box height
CHAR: Final = 7.3  # width of one character of the 12px monospace font (DejaVu Sans Mono: 7.22)
PAD: Final = 8  # text padding inside a box
TOP: Final = 46  # room for the lane titles
GAP: Final = 30  # between lanes
LABEL: Final = 60  # characters of a bundle name shown in a box
TITLE: Final = 44  # characters of a channel name shown above its lane
MAX_BULGE: Final = 240.0


@dataclass(slots=True)
class Node:
    name: str
    version: Version | None = None
    status: Status = "same"
    tags: list[str] = field(default_factory=list)  # words shown in the box: "head", ...
    marks: set[str] = field(default_factory=set)  # CSS classes: head, deprecated, missing, ...
    range: str = ""  # skipRange shown in the box
    range_old: str | None = None  # the old skipRange when it changed
    tip: str = ""  # extra tooltip text


@dataclass(frozen=True, slots=True)
class Edge:
    source: str  # the older bundle ...
    target: str  # ... and the one that upgrades from it
    kind: Kind
    status: Status = "same"
    path: bool = False  # on the route an upgrade takes


@dataclass(slots=True)
class Lane:
    name: str
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    status: Status = "same"
    tags: list[str] = field(default_factory=list)  # "default", "deprecated", ...
    marks: set[str] = field(default_factory=set)


@dataclass(slots=True)
class Picture:
    lanes: list[Lane]
    notes: list[str] = field(default_factory=list)  # what a simpler drawing left out
    # rows left out for brevity: the name of the first bundle after each run -> how many
    # ("" for a run at the end)
    gaps: dict[str, int] = field(default_factory=dict)

    def node_count(self) -> int:
        return sum(len(lane.nodes) for lane in self.lanes)

    def edge_count(self) -> int:
        return sum(len(lane.edges) for lane in self.lanes)


# ------------------------------------------------------------------------------------------------
# Simpler drawings for big graphs
# ------------------------------------------------------------------------------------------------


def simplify(
    picture: Picture, *, node_limit: int = NODE_LIMIT, edge_limit: int = EDGE_LIMIT
) -> Picture:
    """Make a picture of more than ``node_limit`` nodes or ``edge_limit`` edges readable, in
    steps, each named in ``notes``: unchanged skipRange arcs go (the range stays written in the
    box), then unchanged skips arcs, then unchanged bundles that nothing drawn touches and that
    carry no mark."""
    if picture.edge_count() > edge_limit:
        for kind in ("skipRange", "skips"):
            dropped = _drop_edges(picture, lambda e, k=kind: e.kind == k and e.status == "same")  # type: ignore[misc]
            if dropped:
                what = "skipRange" if kind == "skipRange" else "skips"
                picture.notes.append(
                    f"{dropped} unchanged {what} edges not drawn (too many to read); "
                    + (
                        "each bundle's range is written in its box"
                        if kind == "skipRange"
                        else "the change list below has every changed edge"
                    )
                )
            if picture.edge_count() <= edge_limit:
                break
    if picture.node_count() > node_limit:
        dropped = 0
        for lane in picture.lanes:
            touched = {e.source for e in lane.edges if e.status != "same" or e.path}
            touched |= {e.target for e in lane.edges if e.status != "same" or e.path}
            keep = {
                name: node
                for name, node in lane.nodes.items()
                if node.status != "same"
                or node.tags
                or node.range_old is not None
                or name in touched
            }
            dropped += len(lane.nodes) - len(keep)
            if len(keep) < len(lane.nodes):
                lane.nodes = keep
                lane.edges = [e for e in lane.edges if e.source in keep and e.target in keep]
        if dropped:
            why = f"more than {node_limit} in one picture" if node_limit else "the report is large"
            picture.notes.append(
                f"{dropped} unchanged bundles that no change touches not drawn ({why})"
            )
    return picture


def drop_ranges(picture: Picture, why: str) -> int:
    """Leave out every skipRange arc, changed ones too (the boxes still show each range and its
    change), with a note saying ``why``; returns how many went."""
    dropped = _drop_edges(picture, lambda e: e.kind == "skipRange")
    if dropped:
        picture.notes.append(
            f"{dropped} skipRange edges not drawn ({why}); each bundle's range "
            "is written in its box"
        )
    return dropped


def _drop_edges(picture: Picture, gone: Callable[[Edge], bool]) -> int:
    dropped = 0
    for lane in picture.lanes:
        kept = [e for e in lane.edges if not gone(e)]
        dropped += len(lane.edges) - len(kept)
        lane.edges = kept
    return dropped


# ------------------------------------------------------------------------------------------------
# Layout
# ------------------------------------------------------------------------------------------------


def order(lanes: Sequence[Lane]) -> list[str]:
    """Every node name in row order: versioned bundles by version then name; a bundle without a
    version just above the first bundle that upgrades from it (else at the bottom)."""
    versions: dict[str, Version] = {}
    names: set[str] = set()
    for lane in lanes:
        for node in lane.nodes.values():
            names.add(node.name)
            if node.version is not None:
                versions.setdefault(node.name, node.version)
    ordered = sorted(versions, key=lambda n: (versions[n], n))
    index = {name: i for i, name in enumerate(ordered)}
    targets: dict[str, int] = {}
    for lane in lanes:
        for edge in lane.edges:
            if edge.source not in index and edge.target in index:
                spot = index[edge.target]
                targets[edge.source] = min(targets.get(edge.source, spot), spot)
    end = len(ordered)

    def key(name: str) -> tuple[float, int, str]:
        if name in index:
            return (index[name], 0, name)
        return (targets.get(name, end) - 0.5, 0, name)

    return sorted(names, key=key)


def _rows(lanes: Sequence[Lane], gaps: dict[str, int]) -> tuple[dict[str, int], dict[int, int]]:
    """Row of every node name, and the rows that stand for left-out runs (-> their length)."""
    rows: dict[str, int] = {}
    gap_rows: dict[int, int] = {}
    row = 0
    for name in order(lanes):
        if name in gaps:
            gap_rows[row] = gaps[name]
            row += 1
        rows[name] = row
        row += 1
    if "" in gaps:
        gap_rows[row] = gaps[""]
    return rows, gap_rows


def elide(picture: Picture, keep: set[str], *, context: int = 2, least: int = 4) -> Picture:
    """Leave out runs of at least ``least`` rows that are more than ``context`` rows away from
    every bundle in ``keep`` (as a text diff shows changes with a few lines around them); each
    run is drawn as one row saying how many bundles it hides."""
    names = order(picture.lanes)
    near = [False] * len(names)
    for index, name in enumerate(names):
        if name in keep:
            for other in range(max(index - context, 0), min(index + context + 1, len(names))):
                near[other] = True
    run: list[str] = []
    gone: set[str] = set()
    for index, name in enumerate([*names, ""]):
        if index < len(names) and not near[index]:
            run.append(name)
            continue
        if len(run) >= least:
            picture.gaps[name] = len(run)
            gone.update(run)
        run = []
    if gone:
        for lane in picture.lanes:
            lane.nodes = {n: node for n, node in lane.nodes.items() if n not in gone}
            lane.edges = [e for e in lane.edges if e.source not in gone and e.target not in gone]
    return picture


def _bulge(span: int) -> float:
    return min(14.0 + 11.0 * math.sqrt(max(span, 1)), MAX_BULGE)


def _box_text(node: Node) -> tuple[str, list[tuple[str, str]]]:
    """The name shown in a box and its tags as (css class, text)."""
    prefix = {"added": "+ ", "removed": "− "}.get(node.status, "")
    label = prefix + clip(visible(node.name), LABEL)
    tags = [("tag", clip(visible(t), 40)) for t in node.tags]
    if node.range_old is not None:
        old = clip(visible(node.range_old), 30) if node.range_old else "none"
        new = clip(visible(node.range), 30) if node.range else "none"
        tags.append(("range changed", f"range {old} → {new}"))
    elif node.range:
        tags.append(("range", f"range {clip(visible(node.range), 30)}"))
    return label, tags


def _text_width(label: str, tags: Iterable[tuple[str, str]]) -> float:
    chars = len(label) + sum(len(text) + 2 for _, text in tags)
    return chars * CHAR + 2 * PAD


@dataclass(slots=True)
class _Placed:
    x: float  # box left
    width: float  # box width
    left: float  # room for arcs on the left
    right: float  # ... and on the right
    span: float  # the whole lane, title included


def _lane_geometry(lane: Lane, rows: dict[str, int]) -> _Placed:
    width = max((_text_width(*_box_text(n)) for n in lane.nodes.values()), default=60.0)
    left, right = 6.0, 6.0
    for edge in lane.edges:
        if edge.source not in lane.nodes or edge.target not in lane.nodes:
            continue
        span = abs(rows[edge.target] - rows[edge.source])
        bulge = _bulge(span) + 10
        if edge.kind == "skipRange":
            left = max(left, bulge)
        else:
            right = max(right, bulge)
    title = len(_lane_title(lane)) * CHAR
    return _Placed(0.0, width, left, right, max(left + width + right, title))


def _lane_title(lane: Lane) -> str:
    prefix = {"added": "+ ", "removed": "− "}.get(lane.status, "")
    return prefix + clip(visible(lane.name), TITLE)


def _fmt(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _edge_svg(
    edge: Edge,
    place: _Placed,
    rows: dict[str, int],
    neighbours: dict[str, str],
    by_kind: bool,
) -> str:
    ys = TOP + rows[edge.source] * ROW + BOX / 2
    yt = TOP + rows[edge.target] * ROW + BOX / 2
    classes = f"e k-{edge.kind} s-{edge.status}" + (" path" if edge.path else "")
    marker: str = "path" if edge.path else edge.status
    if marker == "same" and by_kind:
        marker = edge.kind if edge.kind != "step" else "same"
    straight = edge.kind == "replaces" and neighbours.get(edge.source) == edge.target and yt > ys
    if straight:
        cx = place.x + min(place.width / 2, 40)
        d = f"M{_fmt(cx)},{_fmt(ys + BOX / 2)} L{_fmt(cx)},{_fmt(yt - BOX / 2 - 1)}"
        mid_x, mid_y = cx + 8, (ys + yt) / 2 + 4
    else:
        span = abs(rows[edge.target] - rows[edge.source])
        bulge = _bulge(span)
        if edge.kind == "skipRange":
            side, direction = place.x, -1
        else:
            side, direction = place.x + place.width, 1
        start, end = side, side + direction * 2
        control = side + direction * bulge
        d = (
            f"M{_fmt(start)},{_fmt(ys)} C{_fmt(control)},{_fmt(ys)} "
            f"{_fmt(control)},{_fmt(yt)} {_fmt(end)},{_fmt(yt)}"
        )
        mid_x, mid_y = side + direction * bulge * 0.75, (ys + yt) / 2 + 4
    # No <title> per edge: the boxes have them, and a report can hold tens of thousands of edges.
    parts = [
        f'<path class="{classes}" data-kind="{edge.kind}" data-change="{edge.status}" '
        f'data-from="{attr(edge.source, 120)}" data-to="{attr(edge.target, 120)}" '
        f'd="{d}" marker-end="url(#ah-{marker})"/>'
    ]
    if edge.status != "same" and edge.kind != "skipRange":  # ranges change by the dozen
        glyph = "+" if edge.status == "added" else "−"
        parts.append(
            f'<text class="glyph s-{edge.status}" x="{_fmt(mid_x - 4)}" y="{_fmt(mid_y)}">'
            f"{glyph}</text>"
        )
    return "".join(parts)


def _node_svg(node: Node, place: _Placed, rows: dict[str, int]) -> str:
    y = TOP + rows[node.name] * ROW
    label, tags = _box_text(node)
    classes = " ".join(["n", f"s-{node.status}", *sorted(node.marks)])
    tip = node.name + (f" ({node.version})" if node.version is not None else "")
    if node.tip:
        tip += "\n" + node.tip
    gap = _fmt(2 * CHAR)
    spans = "".join(f'<tspan class="{css}" dx="{gap}">{esc(text)}</tspan>' for css, text in tags)
    return (
        f'<g class="{classes}" data-name="{attr(node.name, 200)}">'
        f"<title>{esc(tip, 420, lines=True)}</title>"
        f'<rect x="{_fmt(place.x)}" y="{_fmt(y)}" width="{_fmt(place.width)}" '
        f'height="{BOX}" rx="4"/><text x="{_fmt(place.x + PAD)}" y="{_fmt(y + 14.5)}">'
        f"<tspan>{esc(label)}</tspan>{spans}</text></g>"
    )


def draw(picture: Picture, *, caption: str = "", standalone_css: str = "", scope: str = "") -> str:
    """The picture as one ``<svg>`` element. With ``standalone_css`` the SVG carries that
    stylesheet and the arrowhead markers itself (a file of its own); otherwise the page that
    embeds it provides both (:func:`marker_defs` once per page). ``scope`` (``diff``,
    ``upgrade``) is a class on the root that switches the stylesheet to that report's colours."""
    lanes = [lane for lane in picture.lanes if lane.nodes]
    rows, gap_rows = _rows(lanes, picture.gaps)
    places = [_lane_geometry(lane, rows) for lane in lanes]
    x = 10.0
    for place in places:
        place.x = x + place.left
        x += place.span + GAP
    width = max(x - GAP + 10, 200.0)
    height = TOP + max(max(rows.values(), default=0), *gap_rows, 0) * ROW + ROW + 10
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{" ".join(["graph", *scope.split()])}" '
        f'width="{_fmt(width)}" '
        f'height="{_fmt(height)}" viewBox="0 0 {_fmt(width)} {_fmt(height)}" role="img" '
        f'aria-label="{attr(caption or "upgrade graph", 200)}">'
    ]
    if standalone_css:
        out.append(f"<style>{standalone_css}</style>{marker_defs()}")
        out.append(f'<rect class="bg" width="{_fmt(width)}" height="{_fmt(height)}"/>')
    if caption:
        out.append(f"<title>{esc(caption, 420)}</title>")
    for lane, place in zip(lanes, places, strict=True):
        ordered = sorted(lane.nodes, key=lambda n: rows[n])
        neighbours = dict(itertools.pairwise(ordered))
        lane_classes = " ".join(["lane", f"s-{lane.status}", *sorted(lane.marks)])
        title_x = place.x - place.left
        tags = " · ".join(visible(t) for t in lane.tags)
        out.append(
            f'<g class="{lane_classes}" data-channel="{attr(lane.name, 200)}">'
            f"<title>{esc('channel ' + lane.name, 420)}</title>"
            f'<text class="lane-title" x="{_fmt(title_x)}" y="16">{esc(_lane_title(lane))}</text>'
        )
        if tags:
            out.append(
                f'<text class="lane-tags" x="{_fmt(title_x)}" y="32">{esc(tags, TITLE)}</text>'
            )
        out.append(
            f'<line class="lane-rule" x1="{_fmt(title_x)}" x2="{_fmt(title_x + place.span)}" '
            f'y1="38" y2="38"/>'
        )
        drawn = [e for e in lane.edges if e.source in lane.nodes and e.target in lane.nodes]
        # unchanged first, then removed, added and the path on top
        order = {"same": 0, "removed": 1, "added": 2}
        drawn.sort(key=lambda e: (e.path, order[e.status]))
        out.extend(_edge_svg(e, place, rows, neighbours, not scope) for e in drawn)
        out.extend(_node_svg(lane.nodes[name], place, rows) for name in ordered)
        for row, hidden in sorted(gap_rows.items()):
            out.append(
                f'<text class="gap" x="{_fmt(place.x + PAD)}" y="{_fmt(TOP + row * ROW + 14.5)}">'
                f"⋮ {hidden} bundle{'s' if hidden != 1 else ''} not shown</text>"
            )
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def marker_defs() -> str:
    """The arrowheads, one per edge status (an SVG of their own, hidden, once per page)."""
    heads = []
    for status in ("same", "added", "removed", "path", "replaces", "skips", "skipRange"):
        heads.append(
            f'<marker id="ah-{status}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse"><path class="ah s-{status}" '
            'd="M1,1 L9,5 L1,9 z"/></marker>'
        )
    return f"<defs>{''.join(heads)}</defs>"
