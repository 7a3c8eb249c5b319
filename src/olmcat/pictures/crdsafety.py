"""The CRD upgrade-safety section of the HTML reports of ``diff`` and ``upgrade-check``
(``--crd-safety``): every string a catalog or a CRD controls passes through :mod:`.text`."""

from __future__ import annotations

from olmcat.olmv1.crdupgrade.catalogs import CrdSafetyReport
from olmcat.pictures.text import esc

__all__ = ["crd_safety_section"]


def crd_safety_section(report: CrdSafetyReport) -> str:
    """One ``<section>``: the summary, a table of checks, each package's findings and the bundles
    whose CRDs could not be read."""
    parts = [
        '<section class="crd-safety"><h2>CRD upgrade safety</h2>',
        f'<p class="verdict">{esc(report.summary())}.</p>',
    ]
    if report.packages:
        rows = []
        for pkg in report.packages:
            for check in pkg.checks:
                count = len(check.findings)
                cell = f'<span class="impact">{count}</span>' if count else "0"
                rows.append(
                    f"<tr><td>{esc(pkg.package, 200)}</td><td>{esc(check.channel, 200)}</td>"
                    f"<td><code>{esc(check.from_bundle, 300)}</code> → "
                    f"<code>{esc(check.to_bundle, 300)}</code></td>"
                    f'<td class="num">{len(check.compared)}</td><td class="num">{cell}</td></tr>'
                )
        parts.append(
            '<table class="packages"><thead><tr><th>package</th><th>channel</th>'
            "<th>from → to</th><th>CRDs</th><th>findings</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
        )
    for pkg in report.packages:
        if not pkg.findings and not pkg.unread:
            continue
        items = [
            f"<li><code>{esc(f.text)}</code> <small>[{esc(f.rule)}]</small></li>"
            for f in pkg.findings
        ]
        items += [
            f"<li>bundle <code>{esc(bundle, 300)}</code>: CRDs not read: {esc(reason)}</li>"
            for bundle, reason in pkg.unread
        ]
        parts.append(
            f"<details><summary>{esc(pkg.package, 200)} ({len(pkg.findings)} findings)</summary>"
            f"<ul>{''.join(items)}</ul></details>"
        )
    parts.append("</section>")
    return "".join(parts)
