"""The ``olmv1 check`` and ``olmv1 plan`` pages in a real headless Chromium.

Each page renders (ink on a screenshot), logs no error, asks for nothing but its own file, runs
no name from a catalog, and its filter box narrows the rows. Skipped where no Chromium is
installed (.ci/run installs Debian's).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from olmcat.model import Bundle, Channel, ChannelEntry, Package, PackageCatalog
from olmcat.model import property as prop
from olmcat.olmv1.check import CheckReport, check, check_package
from olmcat.olmv1.plan import plan
from olmcat.pictures.olmv1 import check_html, plan_html
from olmcat.upgrade.inventory import parse_inventory
from tests.support.browser import Browser, Page, browser, file_url, ink
from tests.support.paths import FIXTURES
from tests.support.pictures import CANARY, HOSTILE

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with browser() as started:
        yield started


def _show(chromium: Browser, path: Path, html: str) -> Page:
    path.write_text(html)
    page, _ = chromium.open(file_url(path))
    assert page.errors() == []
    assert page.requests() == [file_url(path)]
    assert page.evaluate(f"typeof {CANARY}") == "undefined"
    share, colours = ink(page.screenshot(scale=0.25))
    assert share > 0.01 and colours > 8, (share, colours)
    return page


def test_check_page(chromium: Browser, tmp_path: Path) -> None:
    report = check([str(FIXTURES / "example" / "sqlite" / "schema-13.db")])
    page = _show(chromium, tmp_path / "check.html", check_html(report))
    text = page.evaluate("document.body.innerText")
    assert "3 bundles: 2 installable, 1 refused." in text
    assert "olmv1.resolve.dependency-property" in text
    page.type_into("#filter", "world")
    rows = 'Array.from(document.querySelectorAll("tr[data-filter]")).filter(r => !r.hidden)'
    shown = page.evaluate(f"{rows}.map(r => r.dataset.filter)")
    assert shown == ["world-operator world-operator.v1.0.0"]


def test_hostile_names_stay_text(chromium: Browser, tmp_path: Path) -> None:
    bundles = tuple(
        Bundle(
            name, "evil", name, (prop.package("evil", "1.0.0"), prop.gvk_required("g", "v", "K"))
        )
        for name in HOSTILE
    )
    pkg = PackageCatalog(
        Package("evil", "stable"),
        tuple(Channel(f"c{i}", "evil", (ChannelEntry(b.name),)) for i, b in enumerate(bundles)),
        bundles,
    )
    report = CheckReport(["<script>x</script>"], {}, False, check_package(pkg))
    page = _show(chromium, tmp_path / "hostile.html", check_html(report))
    page.evaluate('document.getElementById("expand").click()')
    assert page.evaluate(f"typeof {CANARY}") == "undefined"


def test_plan_page(chromium: Browser, tmp_path: Path) -> None:
    inventory = parse_inventory((FIXTURES / "inventory-example.csv").read_text(), "inv")
    report = plan(str(FIXTURES / "example" / "expected"), inventory)
    page = _show(chromium, tmp_path / "plan.html", plan_html(report))
    text = page.evaluate("document.body.innerText")
    assert "2 operators: 1 installable, 1 blocked." in text
    assert "olmcat olmv1 install hello-operator" in text
