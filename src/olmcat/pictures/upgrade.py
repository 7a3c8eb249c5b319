"""``upgrade-check --format html``: per installed operator its verdict and, on its channel graph,
the route from the installed bundle to the head, or where that route stops and why.

Each operator gets a collapsible section: status (blocking conditions called out first: removed
package or channel, no path, ``olm.maxOpenShiftVersion``; then deprecations), the facts of the
verdict, the notes that explain it, and a picture of the channel(s) in NEW the resolver walks:
the installed bundle (``installed``; a dotted box when NEW's channel does not hold it), the path
in green (an edge of the graph where one exists, a dashed green ``step`` where the resolver moves
by semver alone), the head it aims for (``target``) and the bundle it stops at (``path stops
here``). A channel that NEW removed is drawn from OLD, struck through, beside the channel it most
likely maps to.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from olmcat.model import PackageCatalog
from olmcat.model.versions import olm_v0_version
from olmcat.notices import NoticeSink, discard
from olmcat.pictures.graph import package_picture as graph_picture
from olmcat.pictures.lanes import Edge, Lane, Node, Picture, draw, elide, simplify
from olmcat.pictures.page import controls, legend, page
from olmcat.pictures.text import attr, esc
from olmcat.query.render_graph import PackageGraph, package_graph
from olmcat.upgrade.check import (
    BLOCKING,
    OperatorVerdict,
    Semantics,
    UpgradeReport,
    upgrade_check,
)
from olmcat.upgrade.inventory import Installed
from olmcat.upgrade.render import summary_line

__all__ = ["UpgradePictures", "operator_picture", "upgrade_html", "upgrade_pictures"]

OPEN_UP_TO = 12
_KIND_ORDER = {"replaces": 0, "skips": 1, "skipRange": 2, "step": 3}


@dataclass(slots=True)
class UpgradePictures:
    """An upgrade-check report and the OLD and NEW graph of each inventory package."""

    report: UpgradeReport
    graphs: dict[str, tuple[PackageGraph | None, PackageGraph | None]] = field(default_factory=dict)
    sections: list[str] = field(default_factory=list)  # more HTML (upgrade-check --crd-safety)

    def html(self, title: str = "Upgrade check") -> str:
        return render_html(self, title=title)


def upgrade_pictures(
    old: str | Path,
    new: str | Path,
    inventory: Iterable[Installed],
    *,
    semantics: Semantics = "legacy",
    target_ocp: str | None = None,
    notify: NoticeSink = discard,
    observe: Callable[[str, PackageCatalog | None, PackageCatalog | None], None] | None = None,
) -> UpgradePictures:
    """:func:`olmcat.upgrade.check.upgrade_check`, keeping the graphs it needs to draw."""
    graphs: dict[str, tuple[PackageGraph | None, PackageGraph | None]] = {}

    def keep(name: str, before: PackageCatalog | None, after: PackageCatalog | None) -> None:
        if observe is not None:
            observe(name, before, after)
        graphs[name] = (
            package_graph(before) if before is not None else None,
            package_graph(after) if after is not None else None,
        )

    report = upgrade_check(
        old,
        new,
        inventory,
        semantics=semantics,
        target_ocp=target_ocp,
        notify=notify,
        observe=keep,
    )
    return UpgradePictures(report, graphs)


def upgrade_html(
    old: str | Path,
    new: str | Path,
    inventory: Iterable[Installed],
    *,
    semantics: Semantics = "legacy",
    target_ocp: str | None = None,
    notify: NoticeSink = discard,
    title: str = "Upgrade check",
) -> str:
    """The HTML report of an upgrade check (the text of one file)."""
    return upgrade_pictures(
        old, new, inventory, semantics=semantics, target_ocp=target_ocp, notify=notify
    ).html(title)


# ------------------------------------------------------------------------------------------------
# One operator's picture
# ------------------------------------------------------------------------------------------------


def _lanes_of(graph: PackageGraph | None, names: Iterable[str]) -> list[Lane]:
    if graph is None:
        return []
    wanted = set(names)
    lanes = graph_picture(graph).lanes
    return [lane for lane in lanes if lane.name in wanted]


def operator_picture(
    verdict: OperatorVerdict, before: PackageGraph | None, after: PackageGraph | None
) -> Picture | None:
    """The channels the resolver walks for ``verdict``, with its path marked (None when there
    is nothing to draw: the package is in neither catalog, or NEW lacks it and OLD too)."""
    item = verdict.installed
    removed: list[Lane] = []
    if item.olm_v1:
        names = list(item.channels) or [c.name for c in after.channels] if after else []
    else:
        names = [verdict.channel] if verdict.channel else []
    lanes = _lanes_of(after, names)
    present = {lane.name for lane in lanes}
    gone = [name for name in names if name not in present]
    if gone:
        removed = _lanes_of(before, gone)
        for lane in removed:
            lane.status = "removed"
            lane.tags.append("not in NEW (drawn from OLD)")
    if verdict.suggested_channel and verdict.suggested_channel not in present:
        suggested = _lanes_of(after, [verdict.suggested_channel])
        for lane in suggested:
            lane.tags.append("suggested channel")
        lanes += suggested
    lanes = removed + lanes
    if not lanes:
        return None
    path = verdict.path or verdict.walked
    steps = set(itertools.pairwise(path))
    on_path = set(path)
    version = olm_v0_version(verdict.version) if verdict.version else None
    for lane in lanes:
        for name in on_path:
            if name in lane.nodes:
                lane.nodes[name].marks.add("path")
        if lane.status != "removed" and steps:
            lane.edges = _mark_path(lane, steps)
        if verdict.bundle:
            node = lane.nodes.get(verdict.bundle)
            if node is None:
                node = Node(verdict.bundle, version, marks={"missing"})
                node.tags.append("not in this channel")
                lane.nodes[verdict.bundle] = node
            node.tags.insert(0, "installed")
            node.marks.add("installed")
        if verdict.head and verdict.head in lane.nodes and lane.status != "removed":
            lane.nodes[verdict.head].tags.insert(0, "target")
        if verdict.stops_at and verdict.stops_at in lane.nodes and lane.status != "removed":
            stop = lane.nodes[verdict.stops_at]
            stop.tags.insert(0, "path stops here")
            stop.marks.add("stop")
    # Rows far from the installed bundle, the path, the head and the stop are left out.
    keep = {*on_path, verdict.bundle, verdict.head or "", verdict.stops_at or ""}
    return elide(simplify(Picture(lanes)), keep)


def _mark_path(lane: Lane, steps: set[tuple[str, str]]) -> list[Edge]:
    edges = list(lane.edges)
    chosen: dict[tuple[str, str], int] = {}
    for index, edge in enumerate(edges):
        step = (edge.source, edge.target)
        if step in steps:
            best = chosen.get(step)
            if best is None or _KIND_ORDER[edge.kind] < _KIND_ORDER[edges[best].kind]:
                chosen[step] = index
    for index in chosen.values():
        edges[index] = replace(edges[index], path=True)
    for source, target in sorted(steps - chosen.keys()):
        if source in lane.nodes and target in lane.nodes:
            edges.append(Edge(source, target, "step", path=True))
    return edges


# ------------------------------------------------------------------------------------------------
# The page
# ------------------------------------------------------------------------------------------------


def _who(verdict: OperatorVerdict) -> str:
    item = verdict.installed
    if item.namespace and item.name:
        return f"{item.namespace}/{item.name}"
    return item.name or item.namespace or item.package


def _status(verdict: OperatorVerdict) -> str:
    css = "st-blocks" if verdict.blocks else "st-ready" if verdict.status == "ready" else ""
    label = verdict.status + (" — blocks" if verdict.blocks else "")
    return f'<span class="{css}">{esc(label)}</span>'


def _installed(verdict: OperatorVerdict) -> str:
    text = verdict.bundle or "unknown bundle"
    if verdict.version:
        text += f" ({verdict.version})"
    sides = (("OLD", verdict.in_old), ("NEW", verdict.in_new))
    where = [side for side, present in sides if present]
    return esc(text, 300) + (f" — in {' and '.join(where)}" if where else " — in neither catalog")


def _route(verdict: OperatorVerdict) -> str:
    if verdict.path is not None:
        return esc(" → ".join(verdict.path), 4000)
    if verdict.head is not None:
        stop = f"; stops at {verdict.stops_at}" if verdict.stops_at else ""
        return f'<span class="impact">no path to {esc(verdict.head, 300)}{esc(stop, 300)}</span>'
    return "–"


def _facts(verdict: OperatorVerdict) -> str:
    head = (verdict.head or "–") + (f" ({verdict.head_version})" if verdict.head_version else "")
    rows: list[tuple[str, str]] = [
        ("kind", esc(verdict.installed.origin)),
        ("package", esc(verdict.installed.package, 300)),
        ("channel", esc(verdict.channel or "–", 300)),
        ("installed", _installed(verdict)),
        ("head in NEW", esc(head, 300)),
        ("path", _route(verdict)),
    ]
    if verdict.resolver:
        rows.append(("resolver", esc(verdict.resolver)))
    if verdict.suggested_channel:
        rows.append(("suggested channel", esc(verdict.suggested_channel, 300)))
    if verdict.max_ocp.declared:
        rows.append(
            (
                "olm.maxOpenShiftVersion",
                esc(f"{verdict.max_ocp.raw} (from the {verdict.max_ocp_source or 'catalog'})", 300),
            )
        )
    for deprecation in verdict.deprecations:
        rows.append(
            (
                f"deprecated {deprecation['kind']}",
                esc(f"{deprecation['name']}: {deprecation['message']}", 2000),
            )
        )
    for move in verdict.images_moved:
        rows.append((f"{move['kind']} image moved", esc(f"{move['old']} → {move['new']}", 2000)))
    cells = "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="facts"><tbody>{cells}</tbody></table>'


def _why(verdict: OperatorVerdict, condition: str) -> str:
    """One line on a condition, in the words an admin acts on."""
    if condition == "package-removed":
        return f"package {verdict.installed.package} is not in NEW"
    if condition == "channel-removed":
        where = f"; it most likely became {verdict.suggested_channel}"
        return f"channel {verdict.channel} is not in NEW" + (
            where if verdict.suggested_channel else ""
        )
    if condition == "no-path":
        stop = f"; the resolver stops at {verdict.stops_at}" if verdict.stops_at else ""
        return f"no upgrade path to {verdict.head or 'a head'}{stop}"
    if condition == "blocked-max-ocp":
        return f"olm.maxOpenShiftVersion {verdict.max_ocp.raw} blocks the cluster upgrade"
    if condition == "deprecated":
        what = ", ".join(f"{d['kind']} {d['name']}" for d in verdict.deprecations)
        return f"deprecated in NEW: {what}"
    return condition


def _blockers(verdict: OperatorVerdict) -> str:
    """The conditions, blocking ones first, each with its reason."""
    lines = []
    for condition in verdict.conditions:
        css = "impact" if condition in BLOCKING else "warn"
        label = "Blocks the upgrade" if condition in BLOCKING else "Note"
        lines.append(
            f'<li class="{css}">{label}: <code>{esc(condition)}</code> — '
            f"{esc(_why(verdict, condition), 2000)}</li>"
        )
    return f'<ul class="conditions">{"".join(lines)}</ul>' if lines else ""


def _section(index: int, verdict: OperatorVerdict, pictures: UpgradePictures, opened: bool) -> str:
    before, after = pictures.graphs.get(verdict.installed.package, (None, None))
    picture = operator_picture(verdict, before, after)
    key = f"{_who(verdict)} {verdict.installed.package}"
    parts = [
        f'<details class="item" id="op-{index}" data-filter="{attr(key)}"'
        f"{' open' if opened else ''}><summary>{esc(_who(verdict), 300)} · "
        f"{esc(verdict.installed.package, 300)} · {_status(verdict)}</summary>",
        _blockers(verdict),
        _facts(verdict),
    ]
    if verdict.notes:
        notes = "".join(f"<li>{esc(n, 4000)}</li>" for n in verdict.notes)
        parts.append(f"<ul>{notes}</ul>")
    if picture is not None:
        caption = f"channel graph of {verdict.installed.package} for {_who(verdict)}"
        parts.append(f'<div class="figure">{draw(picture, caption=caption, scope="upgrade")}</div>')
        parts += [f'<p class="note">{esc(note)}</p>' for note in picture.notes]
    else:
        parts.append('<p class="note">No channel graph to draw: the package is not in NEW.</p>')
    parts.append("</details>")
    return "".join(parts)


def render_html(pictures: UpgradePictures, *, title: str = "Upgrade check") -> str:
    report = pictures.report
    target = f", target OpenShift {report.target_ocp}" if report.target_ocp else ""
    subtitle = (
        f"<code>{esc(report.old, 400)}</code> → <code>{esc(report.new, 400)}</code> "
        f"(semantics {esc(report.semantics)}{esc(target)})"
    )
    css = "impact" if report.blocking else "st-ready"
    body = [
        f'<p class="verdict {css}">{esc(summary_line(report) + ".")}</p>',
        *pictures.sections,
        legend("upgrade"),
    ]
    rows = []
    for index, verdict in enumerate(report.operators):
        key = f"{_who(verdict)} {verdict.installed.package}"
        rows.append(
            f'<tr data-filter="{attr(key)}"><td><a href="#op-{index}">{esc(_who(verdict), 200)}'
            f"</a></td><td>{esc(verdict.installed.package, 200)}</td>"
            f"<td>{esc(verdict.channel or '–', 200)}</td>"
            f"<td>{esc(verdict.bundle or verdict.version or 'unknown', 200)}</td>"
            f"<td>{_status(verdict)}</td><td>{esc(verdict.head or '–', 200)}</td></tr>"
        )
    if rows:
        body.append(controls(len(rows), "operator or package"))
        body.append(
            "<h2>Installed operators</h2><table><thead><tr><th>operator</th><th>package</th>"
            "<th>channel</th><th>installed</th><th>status</th><th>head in NEW</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
        )
    opened = len(report.operators) <= OPEN_UP_TO
    body += [_section(i, v, pictures, opened) for i, v in enumerate(report.operators)]
    if not rows:
        body.append('<p class="note">The inventory lists no operator.</p>')
    return page(title, body, subtitle=subtitle)
