"""Text, JSON and Markdown of a :class:`~olmcat.olmv1.crdupgrade.check.CrdUpgradeResult`.

Text: one line per finding, operator-controller v1.11.0's words (``validating upgrade for CRD
"NAME": ...``) followed by the rule ID in brackets, then a verdict line.
"""

from __future__ import annotations

import json

from olmcat.olmv1.crdupgrade.check import CrdUpgradeResult
from olmcat.olmv1.crdupgrade.engine import Finding

__all__ = ["finding_line", "markdown_cell", "render"]


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
