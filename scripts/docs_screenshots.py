#!/usr/bin/env python3
"""Make the report screenshots in docs/ from the corpus catalogs, in headless Chromium.

    python scripts/docs_screenshots.py          # needs ../shared/corpus and Chromium

docs/report-diff.png      diff --format html, index-upstream-old.db -> index-upstream-synth.db
                          (a new kiali head; deprecatetruncate removed the oldest bundles:
                          stranded installs)
docs/report-upgrade.png   upgrade-check --format html of three installs, index-upstream.db ->
                          index-upstream-synth.db, target OpenShift 4.9
docs/report-graph.png     render-graph --format html of small.db (etcd)
"""

from __future__ import annotations

import base64
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.browser import Browser, browser, file_url  # noqa: E402

from olmcat.pictures.diff import diff_pictures  # noqa: E402
from olmcat.pictures.graph import graph_html  # noqa: E402
from olmcat.pictures.upgrade import upgrade_pictures  # noqa: E402
from olmcat.readers.catalog import open_catalog  # noqa: E402
from olmcat.upgrade import load_inventory  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "sqlite"
DOCS = ROOT / "docs"
INVENTORY = """package,channel,version,namespace,name
kiali,stable,1.3.1,istio-system,
keycloak-operator,alpha,13.0.0,keycloak,
tackle-operator,alpha,0.0.2,tackle,
"""


def shoot(chromium: Browser, page_path: Path, out: Path, selector: str, height: int) -> None:
    """A screenshot ``height`` pixels tall from the top of ``selector``'s element."""
    page, seconds = chromium.open(file_url(page_path))
    assert page.errors() == [], page.errors()
    top = page.evaluate(
        f"document.querySelector({selector!r}).getBoundingClientRect().top + scrollY - 8"
    )
    clip = {"x": 0, "y": top, "width": chromium.width, "height": height, "scale": 1}
    data = page.send("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True)[
        "data"
    ]
    out.write_bytes(base64.b64decode(data))
    print(f"{out.relative_to(ROOT)}: {out.stat().st_size} bytes (page loaded in {seconds:.2f}s)")


def main() -> None:
    old, new = CORPUS / "index-upstream.db", CORPUS / "index-upstream-synth.db"
    with tempfile.TemporaryDirectory() as scratch, browser(width=1000, height=800) as chromium:
        work = Path(scratch)
        diff = work / "diff.html"
        older = CORPUS / "index-upstream-old.db"
        diff.write_text(diff_pictures(older, new, packages=["kiali"]).html())
        shoot(chromium, diff, DOCS / "report-diff.png", "details.item", 720)

        inventory = work / "inventory.csv"
        inventory.write_text(INVENTORY)
        checked = upgrade_pictures(old, new, load_inventory(str(inventory)), target_ocp="4.9")
        upgrade = work / "upgrade.html"
        upgrade.write_text(checked.html())
        shoot(chromium, upgrade, DOCS / "report-upgrade.png", "details.item", 800)

    # etcd's three channels side by side need a wider window than the reports above.
    with tempfile.TemporaryDirectory() as scratch, browser(width=1180, height=400) as chromium:
        graphs = Path(scratch) / "graph.html"
        with open_catalog(CORPUS / "small.db") as catalog:
            graphs.write_text(graph_html(catalog.packages(), package="etcd"))
        shoot(chromium, graphs, DOCS / "report-graph.png", "details.item", 260)


if __name__ == "__main__":
    main()
