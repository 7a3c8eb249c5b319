"""Render a :class:`~olmcat.diff.compare.CatalogDiff` as text, JSON or Markdown.

* **text** — for people: grouped by package, one line per change marked ``+`` (added), ``-``
  (removed), ``~`` (changed) or ``!`` (upgrade impact), totals at the end. ANSI colour only when
  asked for (the command decides whether stdout is a terminal).
* **json** — :meth:`CatalogDiff.to_json` (shape in :mod:`olmcat.diff.compare`), indented, keys
  in a fixed order. With ``summary`` each package is reduced to ``{"name", "status"}``.
* **markdown** — for pull-request comments: totals, a table of stranded installs and other
  upgrade impact, a table of packages, and each package's changes in a collapsed ``diff`` block
  (so GitHub colours ``+``/``-`` lines). Kept under ``max_chars`` (GitHub's comment limit is
  65,536) by leaving out the blocks of the packages that do not fit.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

import click

from olmcat.diff.compare import (
    BundleDiff,
    CatalogDiff,
    ChannelDiff,
    EdgeChange,
    EntryInfo,
    PackageDiff,
    PropertyChange,
    StrandedInstall,
    UpgradeImpact,
    ValueChange,
)
from olmcat.model import RelatedImage

__all__ = ["FORMATS", "render", "render_json", "render_markdown", "render_text"]

FORMATS: Final = ("text", "json", "markdown")
MARKS: Final = {"added": "+", "removed": "-", "changed": "~"}
_COLOURS: Final = {"+": "green", "-": "red", "~": "yellow", "!": "red"}
_VALUE_LIMIT: Final = 100
_REASONS: Final = {
    "no-path": "no upgrade path to the channel head any more",
    "channel-removed": "its channel was removed",
    "package-removed": "its package was removed",
}


@dataclass(frozen=True, slots=True)
class Line:
    """One rendered change: a marker, a nesting depth and the text."""

    mark: str
    depth: int
    text: str


# -- shared wording -------------------------------------------------------------------------------


def _short(text: str, limit: int = _VALUE_LIMIT) -> str:
    """One line, cut to ``limit`` characters: values can be whole CSVs or descriptions."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else f"{flat[: limit - 1]}… ({len(text)} chars)"


def _arrow(change: ValueChange) -> str:
    old = "(none)" if change.old is None else _short(change.old)
    new = "(none)" if change.new is None else _short(change.new)
    return f"{old} -> {new}"


def _plural(count: int, word: str) -> str:
    if count == 1:
        return f"{count} {word}"
    return f"{count} {word[:-1]}ies" if word.endswith("y") else f"{count} {word}s"


def _entry_text(entry: EntryInfo) -> str:
    parts = [entry.name]
    if entry.replaces:
        parts.append(f"replaces {entry.replaces}")
    if entry.skips:
        parts.append(f"skips {', '.join(entry.skips)}")
    if entry.skip_range:
        parts.append(f"skipRange '{entry.skip_range}'")
    return "  ".join(parts)


def _edge_line(edge: EdgeChange, depth: int) -> Line:
    mark = MARKS[edge.status]
    if edge.kind == "skipRange":
        old = f"'{edge.old}'" if edge.old is not None else "(none)"
        new = f"'{edge.new}'" if edge.new is not None else "(none)"
        if edge.status == "changed":
            return Line(mark, depth, f"edge {edge.entry} skipRange {old} -> {new}")
        return Line(mark, depth, f"edge {edge.entry} skipRange {new if edge.new else old}")
    if edge.status == "changed":
        return Line(mark, depth, f"edge {edge.entry} {edge.kind} {edge.old} -> {edge.new}")
    return Line(mark, depth, f"edge {edge.entry} {edge.kind} {edge.new or edge.old}")


def _property_lines(changes: Iterable[PropertyChange], depth: int) -> Iterator[Line]:
    for change in changes:
        for value in change.removed:
            yield Line("-", depth, f"property {change.type} {_short(value)}")
        for value in change.added:
            yield Line("+", depth, f"property {change.type} {_short(value)}")


def _heads(heads: Iterable[str]) -> str:
    names = list(heads)
    return ", ".join(names) if names else "(none)"


def _channel_lines(channel: ChannelDiff, depth: int) -> Iterator[Line]:
    mark = MARKS[channel.status]
    if channel.status != "changed":
        entries = channel.entries_added or channel.entries_removed
        heads = channel.heads.new if channel.status == "added" else channel.heads.old  # type: ignore[union-attr]
        head_text = f"head {_heads(heads)}" if channel.heads else "no head"
        yield Line(
            mark, depth, f"channel {channel.name}  {head_text}  ({_plural(len(entries), 'entry')})"
        )
        return
    head = ""
    if channel.heads is not None:
        head = f"  head {_heads(channel.heads.old)} -> {_heads(channel.heads.new)}"
    yield Line(mark, depth, f"channel {channel.name}{head}")
    for entry in channel.entries_removed:
        yield Line("-", depth + 1, f"entry {_entry_text(entry)}")
    for entry in channel.entries_added:
        yield Line("+", depth + 1, f"entry {_entry_text(entry)}")
    for edge in channel.edges:
        yield _edge_line(edge, depth + 1)
    yield from _property_lines(channel.properties, depth + 1)


def _side(change: ValueChange | None, status: str) -> str:
    """The value on the side an added or removed thing exists on."""
    if change is None:
        return ""
    return (change.new if status == "added" else change.old) or ""


def _related(image: RelatedImage) -> str:
    return f"related image {image.image}" + (f" ({image.name})" if image.name else "")


def _bundle_lines(bundle: BundleDiff, depth: int) -> Iterator[Line]:
    mark = MARKS[bundle.status]
    if bundle.status != "changed":
        version = _side(bundle.version, bundle.status)
        image = _side(bundle.image, bundle.status)
        details = "  ".join(x for x in (version, image) if x)
        yield Line(mark, depth, f"bundle {bundle.name}" + (f"  {details}" if details else ""))
        return
    yield Line(mark, depth, f"bundle {bundle.name}")
    if bundle.version:
        yield Line("~", depth + 1, f"version {_arrow(bundle.version)}")
    if bundle.image:
        yield Line("~", depth + 1, f"image {_arrow(bundle.image)}")
    yield from _property_lines(bundle.properties, depth + 1)
    for related in bundle.related_images_removed:
        yield Line("-", depth + 1, _related(related))
    for related in bundle.related_images_added:
        yield Line("+", depth + 1, _related(related))
    for obj in bundle.objects:
        yield Line(MARKS[obj.status], depth + 1, f"object {obj.kind} {obj.name}".rstrip())


def _stranded_text(item: StrandedInstall) -> str:
    version = f" ({item.version})" if item.version else ""
    return f"{item.bundle}{version} in channel {item.channel}: {_REASONS[item.reason]}"


def _impact_lines(impact: UpgradeImpact, depth: int) -> Iterator[Line]:
    for item in impact.stranded:
        yield Line("!", depth, f"stranded install {_stranded_text(item)}")
    for heads in impact.multiple_heads:
        yield Line(
            "!",
            depth,
            f"channel {heads.channel} has {len(heads.heads)} heads: {_heads(heads.heads)}",
        )
    for cycle in impact.cycles:
        yield Line(
            "!", depth, f"channel {cycle.channel} has an upgrade cycle: {', '.join(cycle.bundles)}"
        )
    for dangling in impact.dangling_replaces:
        yield Line(
            "!",
            depth,
            f"channel {dangling.channel}: {dangling.entry} replaces {dangling.replaces}, "
            "which is no longer in the channel",
        )


def package_lines(pkg: PackageDiff) -> Iterator[Line]:
    """The lines of one package: header, package fields, channels, bundles, deprecations,
    unknown blobs, then upgrade impact."""
    header = f"package {pkg.name}"
    if pkg.status != "changed" and pkg.default_channel is not None:
        default = pkg.default_channel.new if pkg.status == "added" else pkg.default_channel.old
        header += f"  default channel {default}"
    yield Line(MARKS[pkg.status], 0, header)
    if pkg.status == "changed":
        if pkg.default_channel:
            yield Line("~", 1, f"default channel {_arrow(pkg.default_channel)}")
        if pkg.icon:
            yield Line("~", 1, f"icon {_arrow(pkg.icon)}")
        if pkg.description:
            old, new = pkg.description.old or "", pkg.description.new or ""
            yield Line("~", 1, f"description changed ({len(old)} -> {len(new)} chars)")
        yield from _property_lines(pkg.properties, 1)
    for channel in pkg.channels:
        yield from _channel_lines(channel, 1)
    for bundle in pkg.bundles:
        yield from _bundle_lines(bundle, 1)
    for dep in pkg.deprecations:
        what = f"{dep.schema.removeprefix('olm.')} {dep.name}".rstrip()
        if dep.status == "changed":
            yield Line("~", 1, f"deprecation of {what}: {_arrow(dep.message)}")
        else:
            message = dep.message.new if dep.status == "added" else dep.message.old
            yield Line(MARKS[dep.status], 1, f"deprecation of {what}: {_short(message or '')}")
    for other in pkg.others:
        yield Line(MARKS[other.status], 1, f"{other.schema} {other.name}".rstrip())
    yield from _impact_lines(pkg.impact, 1)


def _counts(
    counts: dict[str, int], names: tuple[str, ...] = ("added", "removed", "changed")
) -> str:
    return ", ".join(f"{counts[n]} {n}" for n in names if counts.get(n))


def summary_line(diff: CatalogDiff) -> str:
    """One sentence with the totals."""
    if diff.is_empty():
        return "catalogs are identical"
    summary = diff.summary()
    verb = "differs" if len(diff.packages) == 1 else "differ"
    parts = [f"{_plural(len(diff.packages), 'package')} {verb} ({_counts(summary['packages'])})"]
    for key, word in (
        ("channels", "channels"),
        ("entries", "channel entries"),
        ("bundles", "bundles"),
        ("deprecations", "deprecations"),
    ):
        text = _counts(summary[key])
        if text:
            parts.append(f"{word}: {text}")
    impact = summary["impact"]
    parts.append(f"stranded installs: {impact['stranded']}")
    for key, word in (
        ("multipleHeads", "channels with several heads"),
        ("cycles", "new cycles"),
        ("danglingReplaces", "dangling replaces"),
    ):
        if impact[key]:
            parts.append(f"{word}: {impact[key]}")
    return "; ".join(parts)


def _package_counts(pkg: PackageDiff) -> str:
    def marks(statuses: Iterable[str]) -> str:
        counted: dict[str, int] = {}
        for status in statuses:
            counted[status] = counted.get(status, 0) + 1
        return " ".join(
            f"{MARKS[s]}{counted[s]}" for s in ("added", "removed", "changed") if s in counted
        )

    parts = []
    channels = marks(c.status for c in pkg.channels)
    if channels:
        parts.append(f"channels {channels}")
    bundles = marks(b.status for b in pkg.bundles)
    if bundles:
        parts.append(f"bundles {bundles}")
    deprecations = marks(d.status for d in pkg.deprecations)
    if deprecations:
        parts.append(f"deprecations {deprecations}")
    if pkg.impact.stranded:
        parts.append(f"stranded {len(pkg.impact.stranded)}")
    return "; ".join(parts)


# -- text -----------------------------------------------------------------------------------------


def _styled(line: Line, color: bool) -> str:
    text = f"{'    ' * line.depth}{line.mark} {line.text}"
    if not color:
        return text
    return click.style(text, fg=_COLOURS.get(line.mark), bold=line.depth == 0 or line.mark == "!")


def render_text(diff: CatalogDiff, *, color: bool = False, summary: bool = False) -> str:
    """Grouped by package; with ``summary`` one line per package. Ends with the totals."""
    out: list[str] = []
    for pkg in diff.packages:
        if summary:
            counts = _package_counts(pkg)
            out.append(
                _styled(
                    Line(MARKS[pkg.status], 0, f"{pkg.name}" + (f"  {counts}" if counts else "")),
                    color,
                )
            )
        else:
            out.extend(_styled(line, color) for line in package_lines(pkg))
    out.append(summary_line(diff))
    return "\n".join(out) + "\n"


# -- json -----------------------------------------------------------------------------------------


def render_json(diff: CatalogDiff, *, summary: bool = False) -> str:
    document = diff.to_json()
    if summary:
        document["packages"] = [{"name": p.name, "status": p.status} for p in diff.packages]
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


# -- markdown -------------------------------------------------------------------------------------


def _md(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def _code(text: str) -> str:
    return f"`{_md(text)}`" if "`" not in text else _md(text)


def _heads_cell(pkg: PackageDiff) -> str:
    cells = []
    for channel in pkg.channels:
        if channel.heads is None:
            continue
        old = ", ".join(_code(h) for h in channel.heads.old)
        new = ", ".join(_code(h) for h in channel.heads.new)
        if channel.status == "added":
            cells.append(f"{_md(channel.name)}: {new}")
        elif channel.status == "removed":
            cells.append(f"~~{_md(channel.name)}~~")
        else:
            cells.append(f"{_md(channel.name)}: {old or '–'} → {new or '–'}")
    return "<br>".join(cells)


_ICONS: Final = {"added": "➕ added", "removed": "➖ removed", "changed": "✏️ changed"}


def _impact_table(diff: CatalogDiff) -> list[str]:
    rows = []
    for pkg in diff.packages:
        for line in _impact_lines(pkg.impact, 0):
            rows.append(f"| {_code(pkg.name)} | {_md(line.text)} |")
    if not rows:
        return []
    stranded = len(diff.stranded())
    title = f"**⚠️ Upgrade impact** — {_plural(stranded, 'stranded install')}"
    return [title, "", "| package | problem |", "|---|---|", *rows, ""]


def render_markdown(
    diff: CatalogDiff, *, summary: bool = False, title: str = "Catalog diff", max_chars: int = 60000
) -> str:
    """A pull-request comment: totals, impact, package table, and (unless ``summary``) each
    package's changes in a collapsed block."""
    head = [f"### {title}", "", summary_line(diff).capitalize() + ".", ""]
    if diff.is_empty():
        return "\n".join(head)
    head += _impact_table(diff)
    head += ["| package | status | changes | channel heads |", "|---|---|---|---|"]
    for pkg in diff.packages:
        cells = (_code(pkg.name), _ICONS[pkg.status], _md(_package_counts(pkg)), _heads_cell(pkg))
        head.append(f"| {' | '.join(cells)} |")
    text = "\n".join(head) + "\n"
    if summary:
        return text
    blocks = []
    used = len(text)
    left_out = 0
    for pkg in diff.packages:
        body = "\n".join(
            f"{line.mark}{'    ' * line.depth} {line.text}" for line in package_lines(pkg)
        )
        block = (
            f"\n<details><summary>{_md(pkg.name)} ({pkg.status})</summary>\n\n"
            f"```diff\n{body.replace('```', '` ` `')}\n```\n\n</details>\n"
        )
        if used + len(block) > max_chars - 200:
            left_out += 1
            continue
        blocks.append(block)
        used += len(block)
    if left_out:
        blocks.append(
            f"\n_{_plural(left_out, 'package')} left out to keep this comment short; "
            "run `olmcat diff` for everything._\n"
        )
    return text + "".join(blocks)


def render(
    diff: CatalogDiff,
    output: str,
    *,
    color: bool = False,
    summary: bool = False,
    title: str = "Catalog diff",
) -> str:
    """Dispatch on ``output`` (one of :data:`FORMATS`)."""
    if output == "json":
        return render_json(diff, summary=summary)
    if output == "markdown":
        return render_markdown(diff, summary=summary, title=title)
    return render_text(diff, color=color, summary=summary)
