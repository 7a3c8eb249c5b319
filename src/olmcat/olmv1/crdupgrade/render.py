"""Text, JSON and Markdown of a :class:`~olmcat.olmv1.crdupgrade.check.CrdUpgradeResult`.

Text: one line per finding, operator-controller v1.11.0's words (``validating upgrade for CRD
"NAME": ...``) followed by the rule ID in brackets, then a verdict line.
"""

from __future__ import annotations

import json

from olmcat.olmv1.crdupgrade.catalogs import CrdSafetyReport
from olmcat.olmv1.crdupgrade.check import CrdUpgradeResult
from olmcat.olmv1.crdupgrade.engine import Finding

__all__ = [
    "finding_line",
    "markdown_cell",
    "render",
    "report_markdown",
    "report_text",
    "with_json",
]


def finding_line(finding: Finding) -> str:
    return f"{finding.text} [{finding.rule}]"


def markdown_cell(text: str) -> str:
    """``text`` safe inside a Markdown table cell and code span."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "'").replace("\n", " ")


def _code(text: str) -> str:
    return f"`{markdown_cell(text)}`" if text else ""


def _verdict(result: CrdUpgradeResult) -> str:
    count = len(result.findings)
    crds = len(result.compared)
    crd_word = "CRD" if crds == 1 else "CRDs"
    if count == 0:
        return f"safe: {crds} {crd_word} compared, no finding"
    finding_word = "finding" if count == 1 else "findings"
    return f"refused: {crds} {crd_word} compared, {count} {finding_word}"


def render(result: CrdUpgradeResult, output: str) -> str:
    if output == "json":
        return json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n"
    if output == "markdown":
        lines = [
            f"## CRD upgrade safety: `{markdown_cell(result.old)}` → `{markdown_cell(result.new)}`",
            "",
            _verdict(result)[0].upper() + _verdict(result)[1:] + ".",
            "",
        ]
        if result.findings:
            lines += ["| CRD | rule | version | property | message |", "|---|---|---|---|---|"]
            lines += [
                f"| `{markdown_cell(f.crd)}` | {f.rule} | {markdown_cell(f.version)} | "
                f"{_code(f.path)} | {markdown_cell(f.message)} |"
                for f in result.findings
            ]
            lines.append("")
        return "\n".join(lines) + "\n"
    lines = [finding_line(f) for f in result.findings]
    lines.append(_verdict(result))
    return "\n".join(lines) + "\n"


# -- per package (diff --crd-safety, upgrade-check --crd-safety) -----------------------------------


def report_text(report: CrdSafetyReport) -> str:
    """The section ``--crd-safety`` adds to the text output."""
    lines = ["", report.summary()]
    for pkg in report.packages:
        for check in pkg.checks:
            count = len(check.findings)
            crds = len(check.compared)
            verdict = "refused" if count else "safe"
            lines.append(
                f"  {pkg.package}: {check.from_bundle} -> {check.to_bundle} "
                f"(channel {check.channel}): {verdict}, {crds} CRD{'' if crds == 1 else 's'} "
                f"compared, {count} finding{'' if count == 1 else 's'}"
            )
            lines += [f"    {finding_line(f)}" for f in check.findings]
        lines += [
            f"  {pkg.package}: bundle {bundle}: CRDs not read: {reason}"
            for bundle, reason in pkg.unread
        ]
    return "\n".join(lines) + "\n"


def report_markdown(report: CrdSafetyReport) -> str:
    lines = ["", "## CRD upgrade safety", "", markdown_cell(report.summary()) + ".", ""]
    if report.packages:
        lines += [
            "| package | channel | from → to | CRDs | findings |",
            "|---|---|---|---|---|",
        ]
        for pkg in report.packages:
            lines += [
                f"| {markdown_cell(pkg.package)} | {markdown_cell(c.channel)} | "
                f"`{markdown_cell(c.from_bundle)}` → `{markdown_cell(c.to_bundle)}` | "
                f"{len(c.compared)} | {len(c.findings)} |"
                for c in pkg.checks
            ]
        lines.append("")
    for pkg in report.packages:
        if not pkg.findings and not pkg.unread:
            continue
        lines += [f"### {markdown_cell(pkg.package)}", ""]
        lines += [f"- `{markdown_cell(f.text)}` ({f.rule})" for f in pkg.findings]
        lines += [
            f"- bundle `{markdown_cell(b)}`: CRDs not read: {markdown_cell(r)}"
            for b, r in pkg.unread
        ]
        lines.append("")
    return "\n".join(lines) + "\n"


def with_json(rendered: str, report: CrdSafetyReport) -> str:
    """A command's JSON document with ``crdSafety`` added."""
    document = json.loads(rendered)
    document["crdSafety"] = report.to_json()
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
