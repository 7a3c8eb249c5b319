"""The self-contained HTML pages of ``olmv1 check`` and ``olmv1 plan``.

The page is :func:`olmcat.pictures.page.page` (one stylesheet, one script, a CSP allowing only
those); every string from a catalog or an inventory goes through :mod:`olmcat.pictures.text`.
"""

from __future__ import annotations

from olmcat.olmv1.check import BundleCheck, CheckReport
from olmcat.olmv1.plan import OperatorPlan, PlanReport
from olmcat.olmv1.report import by_rule_lines, changed_gates
from olmcat.pictures.page import controls, page
from olmcat.pictures.text import attr, esc

__all__ = ["check_html", "plan_html"]

OPEN_UP_TO = 12  # sections open at first when there are at most this many (as upgrade-check's)

_CSS = {
    "installable": "st-ready",
    "refused": "st-blocks",
    "unknown": "warn",
    "upgrade-first": "warn",
    "blocked": "st-blocks",
    "not-in-catalog": "warn",
}


def _verdict(verdict: str) -> str:
    return f'<span class="{_CSS.get(verdict, "")}">{esc(verdict)}</span>'


def _reasons(found: BundleCheck) -> str:
    items = [
        f'<li class="impact"><code>{esc(r.rule)}</code> — {esc(r.message, 4000)}</li>'
        for r in found.reasons
    ]
    items += [
        f'<li class="warn">requires: <code>{esc(r.rule)}</code> — {esc(r.message, 4000)}</li>'
        for r in found.requirements
    ]
    if found.verdict == "unknown":
        checks = ", ".join(found.not_run)
        items.append(
            f'<li class="warn">checks {esc(checks, 4000)} could not run: '
            f"{esc(found.not_run_because, 4000)}</li>"
        )
    return f'<ul class="conditions">{"".join(items)}</ul>' if items else ""


def _facts(rows: list[tuple[str, str]]) -> str:
    cells = "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="facts"><tbody>{cells}</tbody></table>'


def _rule_table(report: CheckReport) -> str:
    rows = by_rule_lines(report)
    if not rows:
        return ""
    body = "".join(
        f'<tr><td><code>{esc(rule)}</code></td><td>{esc(name)}</td><td class="num">{count}'
        "</td></tr>"
        for rule, name, count in rows
    )
    return (
        "<h2>Refusals by rule</h2><table><thead><tr><th>rule</th><th>name</th>"
        f"<th>bundles refused</th></tr></thead><tbody>{body}</tbody></table>"
    )


def check_html(report: CheckReport, *, title: str = "OLM v1 check") -> str:
    scope = report.scope
    subtitle = (
        " ".join(f"<code>{esc(r, 400)}</code>" for r in report.references)
        + f" — operator-controller v1.11.0, feature gates: {esc(changed_gates(report))}; "
        f"checked: {scope}"
    )
    css = "st-ready" if report.ok else "impact"
    body = [f'<p class="verdict {css}">{esc(report.summary_line() + ".")}</p>', _rule_table(report)]
    rows, sections = [], []
    for index, item in enumerate(report.bundles):
        key = f"{item.package} {item.name}"
        rows.append(
            f'<tr data-filter="{attr(key)}"><td>{esc(item.package or "–", 200)}</td>'
            f'<td><a href="#b-{index}">{esc(item.name, 200)}</a></td>'
            f"<td>{esc(item.version or '–', 100)}</td>"
            f"<td>{esc(', '.join(item.channels) or '–', 300)}</td>"
            f'<td>{_verdict(item.verdict)}</td><td class="num">{len(item.reasons)}</td></tr>'
        )
        facts = [
            ("package", esc(item.package or "–", 300)),
            ("version", esc(item.version or "–", 200)),
            ("image", esc(item.image or "–", 1000)),
            ("channels", esc(", ".join(item.channels) or "–", 1000)),
            ("read from", esc(item.source or "–", 1000)),
            ("reference", esc(item.reference or "–", 1000)),
        ]
        sections.append(
            f'<details class="item" id="b-{index}" data-filter="{attr(key)}"'
            f"{' open' if len(report.bundles) <= OPEN_UP_TO else ''}>"
            f"<summary>{esc(item.package or '–', 300)} · {esc(item.name, 300)} · "
            f"{_verdict(item.verdict)}</summary>{_reasons(item)}{_facts(facts)}</details>"
        )
    if rows:
        body.append(controls(len(rows), "package or bundle"))
        body.append(
            "<h2>Bundles</h2><table><thead><tr><th>package</th><th>bundle</th><th>version</th>"
            "<th>channels</th><th>verdict</th><th>reasons</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
        )
        body += sections
    else:
        body.append('<p class="note">No bundle was checked.</p>')
    return page(title, body, subtitle=subtitle)


def _side(name: str, version: str, found: BundleCheck | None) -> str:
    if not name:
        return "–"
    text = esc(f"{name} ({version})" if version else name, 400)
    return text + (f" — {_verdict(found.verdict)}" if found is not None else "")


def _plan_section(index: int, item: OperatorPlan, opened: bool) -> str:
    key = f"{item.who} {item.installed.package}"
    parts = [
        f'<details class="item" id="op-{index}" data-filter="{attr(key)}"'
        f"{' open' if opened or item.status != 'installable' else ''}><summary>"
        f"{esc(item.who, 300)} · "
        f"{esc(item.installed.package, 300)} · {_verdict(item.status)}</summary>"
    ]
    facts = [
        ("kind", esc(item.installed.origin)),
        ("channel", esc(item.channel or "–", 300)),
        ("installed", _side(item.bundle, item.version, item.installed_check)),
        ("newest", _side(item.newest, item.newest_version, item.newest_check)),
        ("install", f"<code>{esc(item.command, 2000)}</code>" if item.command else "–"),
    ]
    parts.append(_facts(facts))
    for label, found in (
        ("Installed version", item.installed_check),
        ("Newest", item.newest_check),
    ):
        if found is None or (label == "Newest" and item.newest == item.bundle):
            continue
        if found.reasons or found.requirements or found.not_run:
            parts.append(f"<h3>{esc(label)}: {esc(found.name, 300)}</h3>{_reasons(found)}")
    if item.notes:
        parts.append("<ul>" + "".join(f"<li>{esc(n, 4000)}</li>" for n in item.notes) + "</ul>")
    parts.append("</details>")
    return "".join(parts)


def plan_html(report: PlanReport, *, title: str = "OLM v1 plan") -> str:
    subtitle = (
        f"<code>{esc(report.catalog, 400)}</code> — operator-controller v1.11.0, feature gates: "
        + esc(changed_gates(CheckReport([], report.gates, False, [])))
    )
    css = "st-ready" if report.ok else "impact"
    body = [f'<p class="verdict {css}">{esc(report.summary_line() + ".")}</p>']
    rows = []
    for index, item in enumerate(report.operators):
        key = f"{item.who} {item.installed.package}"
        rows.append(
            f'<tr data-filter="{attr(key)}"><td><a href="#op-{index}">{esc(item.who, 200)}</a>'
            f"</td><td>{esc(item.installed.package, 200)}</td>"
            f"<td>{esc(item.channel or '–', 200)}</td><td>{_verdict(item.status)}</td>"
            f"<td>{_side(item.bundle, item.version, item.installed_check)}</td>"
            f"<td>{_side(item.newest, item.newest_version, item.newest_check)}</td></tr>"
        )
    if rows:
        body.append(controls(len(rows), "operator or package"))
        body.append(
            "<h2>Installed operators</h2><table><thead><tr><th>operator</th><th>package</th>"
            "<th>channel</th><th>status</th><th>installed</th><th>newest</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
        )
        opened = len(report.operators) <= OPEN_UP_TO
        body += [_plan_section(i, item, opened) for i, item in enumerate(report.operators)]
    else:
        body.append('<p class="note">The inventory lists no operator.</p>')
    return page(title, body, subtitle=subtitle)
