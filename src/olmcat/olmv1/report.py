"""A :class:`~olmcat.olmv1.check.CheckReport` as text, Markdown or JSON (HTML:
:mod:`olmcat.pictures.olmv1`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from olmcat.olmv1.check import DEFAULT_GATES, BundleCheck, CheckReport, rules

__all__ = ["FORMATS", "Format", "changed_gates", "render", "rule_names"]

Format = Literal["text", "markdown", "json"]
FORMATS: tuple[Format, ...] = ("text", "markdown", "json")

MARKS = {"installable": "✓", "refused": "✗", "unknown": "?"}
MD_MARKS = {"installable": "✅", "refused": "❌", "unknown": "❔"}


def rule_names() -> dict[str, str]:
    return {rule.id: rule.name for rule in rules()}


def changed_gates(report: CheckReport) -> str:
    """The gates that differ from v1.11.0's defaults, or "v1.11.0 defaults"."""
    changed = [
        f"{name}={'true' if on else 'false'}"
        for name, on in sorted(report.gates.items())
        if DEFAULT_GATES.get(name) != on
    ]
    return ", ".join(changed) if changed else "v1.11.0 defaults"


def extension(report: CheckReport) -> str:
    """The ClusterExtension the check assumes, when it is not the plain one ("" then)."""
    parts = []
    if report.namespace:
        parts.append(f"install namespace {report.namespace}")
    if report.config is not None:
        parts.append("spec.config.inline " + config_text(report.config))
    return "; " + ", ".join(parts) if parts else ""


def config_text(config: Mapping[str, Any] | str) -> str:
    """A configuration as compact JSON on one line (YAML text that does not parse: as given)."""
    data: Any = config
    if isinstance(config, str):
        from olmcat.errors import OlmcatError
        from olmcat.olmv1.config import unmarshal_config

        try:
            data = unmarshal_config(config, None, "")
        except OlmcatError:
            return " ".join(config.split())
    return json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def _what(item: BundleCheck) -> str:
    version = f" ({item.version})" if item.version else ""
    return f"{item.name}{version}"


def by_rule_lines(report: CheckReport) -> list[tuple[str, str, int]]:
    names = rule_names()
    return [(rule, names.get(rule, ""), count) for rule, count in report.by_rule().items()]


def render_text(report: CheckReport) -> str:
    scope = report.scope
    lines = [
        f"OLM v1 check (operator-controller v1.11.0): {', '.join(report.references)}",
        f"feature gates: {changed_gates(report)}; checked: {scope}{extension(report)}",
        "",
    ]
    for item in report.bundles:
        channels = f"  channels {','.join(item.channels)}" if item.channels else ""
        lines.append(
            f"{MARKS[item.verdict]} {item.package or '-'}  {_what(item)}{channels}  "
            f"{item.summary()}"
        )
        lines += [
            f"    - {reason.rule} {reason.message}".replace("\n", "\n      ")
            for reason in item.reasons
        ]
    if report.bundles:
        lines.append("")
    lines.append(report.summary_line())
    for rule, _, count in by_rule_lines(report):
        lines.append(f"  refused by {rule}: {count}")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: CheckReport) -> str:
    scope = report.scope
    refs = ", ".join(f"`{r}`" for r in report.references)
    lines = [
        f"### OLM v1 check: {refs}",
        "",
        f"operator-controller **v1.11.0**, feature gates: {changed_gates(report)}; "
        f"checked: {scope}{extension(report)}. {report.summary_line()}.",
        "",
    ]
    table = by_rule_lines(report)
    if table:
        lines += ["| rule | bundles refused |", "|---|---|"]
        lines += [f"| `{rule}` | {count} |" for rule, _, count in table]
        lines.append("")
    lines += ["| | package | bundle | channels | verdict | reasons |", "|---|---|---|---|---|---|"]
    for item in report.bundles:
        reasons = "<br>".join(f"`{r.rule}` {r.message}" for r in item.reasons)
        if item.verdict != "refused":
            reasons = item.summary() if item.verdict == "unknown" or item.requirements else "—"
        cells = [
            MD_MARKS[item.verdict],
            item.package or "—",
            _what(item),
            ", ".join(item.channels) or "—",
            f"**{item.verdict}**",
            reasons,
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def render(report: CheckReport, output: Format = "text") -> str:
    if output == "json":
        return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"
    if output == "markdown":
        return render_markdown(report)
    return render_text(report)
