"""``diff --format html``: a catalog diff as one self-contained page.

The page: the totals (packages, channels, bundles, entries, edges added / removed / changed,
stranded installs), a table of the changed packages linking to their sections, a filter box, and
per changed package one collapsible section with its channels drawn *before → after on one
picture* — the union of the old and the new graph, what only the new one has in blue with ``+``,
what only the old one had in vermillion with ``−`` (dashed boxes, hollow arrowheads), heads that
moved tagged ``new head`` / ``was head``, stranded installs tagged ``stranded`` — followed by the
same change lines as the text format, so the page lists every change ``olmcat diff`` prints.
Packages without changes are listed by name, not drawn.

Drawn edges are the channel's declared edges (``replaces`` and ``skips`` of each entry, as
``olmcat diff --format json`` lists them) plus the ``skipRange`` edges the ranges expand to;
a range whose text changed is also written in the bundle's box (``range old → new``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

from olmcat.diff.catalogs import Comparison, compare
from olmcat.diff.compare import CatalogDiff, PackageDiff
from olmcat.diff.render import package_lines, summary_line
from olmcat.model import PackageCatalog
from olmcat.notices import NoticeSink, discard
from olmcat.pictures.lanes import (
    Edge,
    Lane,
    Node,
    Picture,
    Status,
    draw,
    drop_ranges,
    elide,
    simplify,
)
from olmcat.pictures.page import controls, legend, page
from olmcat.pictures.text import attr, esc
from olmcat.query.render_graph import ChannelGraph, PackageGraph, package_graph
from olmcat.readers.source import CatalogSource

__all__ = ["DiffPictures", "diff_html", "diff_pictures", "edge_counts", "package_picture"]

OPEN_UP_TO = 12  # sections open at first when there are at most this many
# What one page may draw (an edge is about 190 bytes, a box about 290): past these, the pictures
# with the most edges lose their skipRange arcs, then the biggest pictures their unchanged
# bundles, until the page fits; a diff of 150 dense packages stays near 5 MB.
PAGE_EDGES = 15_000
PAGE_NODES = 8_000


@dataclass(slots=True)
class DiffPictures:
    """A comparison and what its pictures need: the old and new graph of each changed package
    and the names of the unchanged ones."""

    comparison: Comparison
    old: str
    new: str
    graphs: dict[str, tuple[PackageGraph | None, PackageGraph | None]] = field(default_factory=dict)
    unchanged: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)  # more HTML (diff --crd-safety)

    @property
    def diff(self) -> CatalogDiff:
        return self.comparison.diff

    def html(self, title: str = "Catalog diff", *, summary: bool = False) -> str:
        """The page; with ``summary`` only the totals and the table of packages."""
        return render_html(self, title=title, summary=summary)


def diff_pictures(
    old: str | Path | CatalogSource,
    new: str | Path | CatalogSource,
    *,
    packages: Collection[str] | None = None,
    emit_delta: Path | None = None,
    notify: NoticeSink = discard,
    semantics: str = "legacy",
    observe: Callable[[PackageCatalog | None, PackageCatalog | None, PackageDiff | None], None]
    | None = None,
) -> DiffPictures:
    """:func:`olmcat.diff.catalogs.compare`, keeping the graphs of the packages that changed
    (both catalogs are still read once, one pair of packages at a time)."""
    kept: dict[str, tuple[PackageGraph | None, PackageGraph | None]] = {}
    unchanged: list[str] = []

    def keep(
        old_pkg: PackageCatalog | None, new_pkg: PackageCatalog | None, change: PackageDiff | None
    ) -> None:
        if observe is not None:
            observe(old_pkg, new_pkg, change)
        if change is None:
            unchanged.append((old_pkg or new_pkg).name)  # type: ignore[union-attr]
            return
        kept[change.name] = (
            package_graph(old_pkg) if old_pkg is not None else None,
            package_graph(new_pkg) if new_pkg is not None else None,
        )

    comparison = compare(
        old,
        new,
        packages=packages,
        emit_delta=emit_delta,
        notify=notify,
        semantics=semantics,
        observe=keep,
    )
    return DiffPictures(comparison, _name(old), _name(new), kept, unchanged)


def _name(ref: str | Path | CatalogSource) -> str:
    return str(ref) if isinstance(ref, (str, Path)) else type(ref).__name__


def diff_html(
    old: str | Path | CatalogSource,
    new: str | Path | CatalogSource,
    *,
    packages: Collection[str] | None = None,
    notify: NoticeSink = discard,
    semantics: str = "legacy",
    title: str = "Catalog diff",
) -> str:
    """The HTML report of comparing ``old`` with ``new`` (the text of one file)."""
    return diff_pictures(old, new, packages=packages, notify=notify, semantics=semantics).html(
        title
    )


# ------------------------------------------------------------------------------------------------
# One package: old and new graph on one picture
# ------------------------------------------------------------------------------------------------


def _edges(channel: ChannelGraph | None) -> set[tuple[str, str, str]]:
    if channel is None:
        return set()
    names = {n.id: n.name for n in channel.nodes}
    return {(names[e.source], names[e.target], e.kind) for e in channel.edges}


def _status(before: bool, after: bool) -> Status:
    return "same" if before == after else "added" if after else "removed"


def _lane(
    name: str,
    before: ChannelGraph | None,
    after: ChannelGraph | None,
    stranded: dict[tuple[str, str], str],
) -> Lane:
    lane = Lane(name, status=_status(before is not None, after is not None))
    side = after or before
    assert side is not None
    if side.default:
        lane.tags.append("default channel")
    if side.deprecated:
        lane.tags.append("deprecated")
    if lane.status != "same":
        lane.tags.append(f"channel {lane.status}")
    old_nodes = {n.name: n for n in before.nodes} if before else {}
    new_nodes = {n.name: n for n in after.nodes} if after else {}
    for node_name in sorted(old_nodes.keys() | new_nodes.keys()):
        a, b = old_nodes.get(node_name), new_nodes.get(node_name)
        in_old = a is not None and not a.missing
        in_new = b is not None and not b.missing
        shown = b or a
        assert shown is not None
        node = Node(node_name, shown.version)
        node.status = _status(in_old, in_new)
        if not in_old and not in_new:
            node.marks.add("missing")
            node.tags.append("not in channel")
        head_old, head_new = a is not None and a.head, b is not None and b.head
        if head_old and head_new:
            node.tags.append("head")
        elif head_new:
            node.tags.append("new head")
        elif head_old:
            node.tags.append("was head")
        if head_new or (head_old and after is None):
            node.marks.add("head")
        if shown.deprecated:
            node.tags.append("deprecated")
            node.marks.add("deprecated")
        reason = stranded.get((name, node_name))
        if reason is not None:
            node.tags.append("stranded")
            node.marks.add("stranded")
            node.tip = f"stranded install: {reason}"
        range_old = a.skip_range if in_old and a is not None else None
        range_new = b.skip_range if in_new and b is not None else None
        if range_old is not None and range_new is not None and range_old != range_new:
            node.range, node.range_old = range_new, range_old
        else:
            node.range = range_new or range_old or ""
        lane.nodes[node_name] = node
    old_edges, new_edges = _edges(before), _edges(after)
    for source, target, kind in sorted(old_edges | new_edges, key=lambda e: (e[1], e[2], e[0])):
        status = _status((source, target, kind) in old_edges, (source, target, kind) in new_edges)
        lane.edges.append(Edge(source, target, kind, status))  # type: ignore[arg-type]  # kind: str
    return lane


_REASONS = {
    "no-path": "no upgrade path to the new channel head",
    "channel-removed": "its channel was removed",
    "package-removed": "its package was removed",
}


def package_picture(
    pkg: PackageDiff, before: PackageGraph | None, after: PackageGraph | None
) -> tuple[Picture, list[str]]:
    """The picture of one changed package and the names of its unchanged channels (not drawn)."""
    impact = pkg.impact
    stranded = {(s.channel, s.bundle): _REASONS[s.reason] for s in impact.stranded}
    wanted = {c.name for c in pkg.channels}
    wanted |= {s.channel for s in impact.stranded}
    wanted |= {m.channel for m in impact.multiple_heads}
    wanted |= {c.channel for c in impact.cycles}
    wanted |= {d.channel for d in impact.dangling_replaces}
    old_channels = {c.name: c for c in before.channels} if before else {}
    new_channels = {c.name: c for c in after.channels} if after else {}
    lanes = [
        _lane(name, old_channels.get(name), new_channels.get(name), stranded)
        for name in sorted(wanted)
        if name in old_channels or name in new_channels
    ]
    quiet = sorted((old_channels.keys() | new_channels.keys()) - wanted)
    picture = simplify(Picture(lanes))
    # Rows far from every change are left out. A skipRange arc does not keep its far end: a new
    # head's range reaches every older bundle, and the range is written in the head's box.
    changed = set()
    for lane in picture.lanes:
        changed |= {n for n, node in lane.nodes.items() if _changed(node) or lane.status != "same"}
        moved = [e for e in lane.edges if e.status != "same" and e.kind != "skipRange"]
        changed |= {e.source for e in moved} | {e.target for e in moved}
    return elide(picture, changed), quiet


def _changed(node: Node) -> bool:
    return (
        node.status != "same"
        or node.range_old is not None
        or bool(node.marks & {"stranded"})
        or any(t in ("new head", "was head") for t in node.tags)
    )


def edge_counts(pkg: PackageDiff) -> dict[str, int]:
    """Declared upgrade edges added, removed and changed in a package (a changed edge is an
    entry whose replaces target or skipRange text differs)."""
    counts = {"added": 0, "removed": 0, "changed": 0}
    for channel in pkg.channels:
        for edge in channel.edges:
            counts[edge.status] += 1
        sides = ((channel.entries_added, "added"), (channel.entries_removed, "removed"))
        for entries, status in sides:
            for entry in entries:
                declared = bool(entry.replaces) + len({s for s in entry.skips if s})
                counts[status] += declared + bool(entry.skip_range)
    return counts


# ------------------------------------------------------------------------------------------------
# The page
# ------------------------------------------------------------------------------------------------

_LINE_CLASS = {"+": "m-add", "-": "m-rm", "~": "m-change", "!": "m-impact"}


def _changes(pkg: PackageDiff) -> str:
    items = []
    for line in package_lines(pkg):
        text = f"{'    ' * line.depth}{line.mark} {line.text}"
        items.append(f'<li class="{_LINE_CLASS.get(line.mark, "")}">{esc(text)}</li>')
    return f'<ul class="changes">{"".join(items)}</ul>'


def _heads(pkg: PackageDiff) -> str:
    cells = []
    for channel in pkg.channels:
        if channel.heads is None:
            continue
        old = ", ".join(channel.heads.old) or "–"
        new = ", ".join(channel.heads.new) or "–"
        cells.append(f"{esc(channel.name, 80)}: {esc(old, 160)} → {esc(new, 160)}")
    return "<br>".join(cells)


def _totals(diff: CatalogDiff) -> str:
    summary = diff.summary()
    edges = {"added": 0, "removed": 0, "changed": 0}
    for pkg in diff.packages:
        for key, value in edge_counts(pkg).items():
            edges[key] += value
    rows = []
    for label, counts in (
        ("packages", summary["packages"]),
        ("channels", summary["channels"]),
        ("channel entries", summary["entries"]),
        ("bundles", summary["bundles"]),
        ("upgrade edges", edges),
        ("deprecations", summary["deprecations"]),
    ):
        cells = "".join(
            f'<td class="num">{counts[k]}</td>' if k in counts else "<td></td>"
            for k in ("added", "removed", "changed")
        )
        rows.append(f"<tr><th>{label}</th>{cells}</tr>")
    impact = summary["impact"]
    problems = [
        ("stranded installs", impact["stranded"]),
        ("channels with several heads", impact["multipleHeads"]),
        ("new cycles", impact["cycles"]),
        ("dangling replaces", impact["danglingReplaces"]),
    ]
    for label, count in problems:
        css = ' class="impact"' if count else ""
        rows.append(
            f'<tr><th>{label}</th><td class="num" colspan="3"><span{css}>{count}</span></td></tr>'
        )
    return (
        '<table class="totals"><thead><tr><th></th><th>added</th><th>removed</th><th>changed</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _package_counts(pkg: PackageDiff) -> str:
    signs = {"added": "+", "removed": "−", "changed": "~"}

    def marks(counts: dict[str, int]) -> str:
        return " ".join(f"{signs[s]}{n}" for s, n in counts.items() if n)

    parts = []
    for label, items in (("channels", pkg.channels), ("bundles", pkg.bundles)):
        text = marks({s: sum(1 for i in items if i.status == s) for s in signs})
        if text:
            parts.append(f"{label} {text}")
    text = marks(edge_counts(pkg))
    if text:
        parts.append(f"edges {text}")
    return "; ".join(parts)


def _section(index: int, pkg: PackageDiff, drawn: tuple[Picture, list[str]], opened: bool) -> str:
    picture, quiet = drawn
    stranded = len(pkg.impact.stranded)
    summary = f'{esc(pkg.name, 300)} <span class="st-{pkg.status}">({pkg.status})</span>' + (
        f' <span class="impact">{stranded} stranded</span>' if stranded else ""
    )
    parts = [
        f'<details class="item" id="pkg-{index}" data-filter="{attr(pkg.name)}"'
        f"{' open' if opened else ''}><summary>{summary}</summary>"
    ]
    if picture.lanes:
        parts.append(
            f'<div class="figure">{draw(picture, caption=f"changes of {pkg.name}", scope="diff")}'
            "</div>"
        )
    else:
        parts.append('<p class="note">No channel graph changed (see the changes below).</p>')
    parts += [f'<p class="note">{esc(note)}</p>' for note in picture.notes]
    if quiet:
        parts.append(
            f'<p class="note">Unchanged channels, not drawn: {esc(", ".join(quiet), 2000)}</p>'
        )
    parts.append(_changes(pkg))
    parts.append("</details>")
    return "".join(parts)


def _fit(drawn: list[tuple[Picture, list[str]]], edges: int, nodes: int) -> None:
    """Drop skipRange arcs from the pictures with the most edges until the page draws at most
    ``edges`` edges, then unchanged bundles from the biggest pictures until it draws at most
    ``nodes`` bundles."""
    total = sum(picture.edge_count() for picture, _ in drawn)
    for picture, _ in sorted(drawn, key=lambda d: -d[0].edge_count()):
        if total <= edges:
            break
        total -= drop_ranges(picture, "the report is large")
    total = sum(picture.node_count() for picture, _ in drawn)
    for picture, _ in sorted(drawn, key=lambda d: -d[0].node_count()):
        if total <= nodes:
            break
        before = picture.node_count()
        simplify(picture, node_limit=0)
        total -= before - picture.node_count()


def render_html(report: DiffPictures, *, title: str = "Catalog diff", summary: bool = False) -> str:
    diff = report.diff
    subtitle = f"<code>{esc(report.old, 400)}</code> → <code>{esc(report.new, 400)}</code>"
    verdict = summary_line(diff)
    body = [
        f'<p class="verdict">{esc(verdict[:1].upper() + verdict[1:])}.</p>',
        _totals(diff),
        *report.sections,
        legend("diff"),
    ]
    if diff.packages:
        body.append(controls(len(diff.packages), "package"))
        rows = []
        for index, pkg in enumerate(diff.packages):
            stranded = len(pkg.impact.stranded)
            count = f'<span class="impact">{stranded}</span>' if stranded else "0"
            name = esc(pkg.name, 200)
            link = name if summary else f'<a href="#pkg-{index}">{name}</a>'
            rows.append(
                f'<tr data-filter="{attr(pkg.name)}"><td>{link}</td>'
                f'<td class="st-{pkg.status}">{pkg.status}</td>'
                f"<td>{esc(_package_counts(pkg))}</td><td>{_heads(pkg)}</td>"
                f'<td class="num">{count}'
                "</td></tr>"
            )
        body.append(
            '<h2>Changed packages</h2><table class="packages"><thead><tr><th>package</th>'
            "<th>status</th><th>changes</th><th>channel heads (old → new)</th>"
            f"<th>stranded</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )
        if summary:
            return page(title, body, subtitle=subtitle)
        opened = len(diff.packages) <= OPEN_UP_TO
        drawn = [
            package_picture(pkg, *report.graphs.get(pkg.name, (None, None)))
            for pkg in diff.packages
        ]
        _fit(drawn, PAGE_EDGES, PAGE_NODES)
        body += [
            _section(i, pkg, pictures, opened)
            for i, (pkg, pictures) in enumerate(zip(diff.packages, drawn, strict=True))
        ]
    if report.unchanged:
        body.append(
            f"<h2>Unchanged packages ({len(report.unchanged)})</h2>"
            f'<p class="unchanged">{esc(", ".join(report.unchanged))}</p>'
        )
    return page(title, body, subtitle=subtitle)
