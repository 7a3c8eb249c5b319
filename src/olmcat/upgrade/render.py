"""An :class:`~olmcat.upgrade.check.UpgradeReport` as text, Markdown or JSON."""

from __future__ import annotations

import json
from typing import Literal

from olmcat.upgrade.check import STATUSES, OperatorVerdict, UpgradeReport

__all__ = ["FORMATS", "Format", "render"]

Format = Literal["text", "markdown", "json"]
FORMATS: tuple[Format, ...] = ("text", "markdown", "json")


def _who(verdict: OperatorVerdict) -> str:
    item = verdict.installed
    if item.namespace and item.name:
        return f"{item.namespace}/{item.name}"
    return item.name or item.namespace or item.package


def _installed(verdict: OperatorVerdict) -> str:
    if verdict.bundle and verdict.version:
        return f"{verdict.bundle} ({verdict.version})"
    return verdict.bundle or verdict.version or "unknown"


def _route(verdict: OperatorVerdict) -> str:
    if verdict.path is not None:
        return " -> ".join(verdict.path)
    if verdict.head is not None:
        stop = f"; stops at {verdict.stops_at}" if verdict.stops_at else ""
        return f"no path to {verdict.head}{stop}"
    return "-"


def summary_line(report: UpgradeReport) -> str:
    """One sentence (without its full stop) counting the verdicts and saying what blocks."""
    counts = report.counts()
    parts = [f"{counts[s]} {s}" for s in STATUSES if counts[s]]
    blocking = len(report.blocking)
    total = len(report.operators)
    tail = (
        f"{blocking} block{'s' if blocking == 1 else ''} the upgrade"
        if blocking
        else "nothing blocks the upgrade"
    )
    return f"{total} operator{'s' if total != 1 else ''}: {', '.join(parts)}; {tail}"


def _title(report: UpgradeReport) -> str:
    target = f", target OpenShift {report.target_ocp}" if report.target_ocp else ""
    return f"{report.old} -> {report.new} (semantics {report.semantics}{target})"


def render_text(report: UpgradeReport) -> str:
    lines = [f"Upgrade check: {_title(report)}", ""]
    for verdict in report.operators:
        mark = "✗" if verdict.blocks else "!" if verdict.conditions else "✓"
        channel = verdict.channel or "-"
        lines.append(
            f"{mark} {_who(verdict)}  package {verdict.installed.package}  channel {channel}  "
            f"installed {_installed(verdict)}  {verdict.status}"
        )
        route = _route(verdict)
        if route != "-":
            lines.append(f"    path: {route}")
        if verdict.suggested_channel:
            lines.append(f"    suggested channel: {verdict.suggested_channel}")
        lines.extend(f"    - {note}" for note in verdict.notes)
    lines += ["", summary_line(report)]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: UpgradeReport) -> str:
    lines = [f"### Upgrade check: `{report.old}` → `{report.new}`", ""]
    target = f", target OpenShift **{report.target_ocp}**" if report.target_ocp else ""
    lines += [f"Semantics **{report.semantics}**{target}. {summary_line(report)}.", ""]
    lines += [
        "| | operator | package | channel | installed | status | head | path |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for verdict in report.operators:
        mark = "❌" if verdict.blocks else "⚠️" if verdict.conditions else "✅"
        path = " → ".join(f"`{n}`" for n in verdict.path) if verdict.path else "—"
        cells = [
            mark,
            _who(verdict),
            verdict.installed.package,
            verdict.channel or "—",
            _installed(verdict),
            f"**{verdict.status}**",
            f"`{verdict.head}`" if verdict.head else "—",
            path,
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    noted = [v for v in report.operators if v.notes]
    if noted:
        lines += ["", "<details><summary>Notes</summary>", ""]
        for verdict in noted:
            lines.append(
                f"**{_cell(_who(verdict))}** ({verdict.installed.package}, {verdict.status})"
            )
            lines += [f"- {note}" for note in verdict.notes]
            lines.append("")
        lines.append("</details>")
    return "\n".join(lines) + "\n"


def render(report: UpgradeReport, output: Format = "text") -> str:
    if output == "json":
        return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"
    if output == "markdown":
        return render_markdown(report)
    return render_text(report)
