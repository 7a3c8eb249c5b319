"""The HTML and SVG reports in a real headless Chromium (DevTools protocol over a pipe).

Each page is opened from a file:// URL and checked as a person would see it: it renders (a
screenshot with ink on it), logs no error (a CSP refusal would be one), asks for nothing but its
own file, draws as many changed edges per package as ``diff --format json`` lists, never runs a
name from the catalog (a canary such a script would set stays unset), and its filter box narrows
the list. Skipped where no Chromium is installed (.ci/run installs Debian's).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.pictures.diff import diff_pictures
from olmcat.pictures.graph import graph_html, graph_svg
from olmcat.pictures.text import visible
from olmcat.pictures.upgrade import upgrade_pictures
from olmcat.readers.catalog import open_catalog
from olmcat.upgrade import load_inventory
from tests.support.browser import Browser, Page, browser, file_url, ink
from tests.support.paths import FIXTURES, corpus_path
from tests.support.pictures import (
    CANARY,
    HOSTILE,
    big_diff,
    declared_edge_changes,
    hostile_catalogs,
    hostile_upgrade_page,
)

pytestmark = pytest.mark.browser

# Drawn edges per section, as the page's own DOM has them.
EDGES_JS = """
JSON.stringify(Array.from(document.querySelectorAll("details.item")).map(function (d) {
  var count = function (q) { return d.querySelectorAll(q).length; };
  var changed = '[data-kind="replaces"][data-change="%s"],[data-kind="skips"][data-change="%s"]';
  return [d.getAttribute("data-filter"), {
    added: count(changed.replace(/%s/g, "added")),
    removed: count(changed.replace(/%s/g, "removed")),
    range: count("tspan.range.changed"),
    edges: count("path.e")}];
}))
"""
VISIBLE_SECTIONS_JS = (
    'Array.from(document.querySelectorAll("details.item")).filter(d => !d.hidden).length'
)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with browser() as started:
        yield started


def _open(chromium: Browser, path: Path, *, dark: bool = False) -> tuple[Page, float]:
    page, seconds = chromium.open(file_url(path), dark=dark)
    return page, seconds


def _assert_clean(page: Page, path: Path) -> None:
    assert page.errors() == []
    assert page.requests() == [file_url(path)]  # nothing but the file itself
    assert page.evaluate(f"typeof {CANARY}") == "undefined"
    assert page.evaluate("document.scripts.length") <= 1


def _assert_rendered(page: Page) -> None:
    share, colours = ink(page.screenshot(scale=0.25))
    assert share > 0.03 and colours > 16, (share, colours)


def _edges_match_json(page: Page, document: dict[str, object]) -> int:
    drawn = dict(json.loads(page.evaluate(EDGES_JS)))
    packages = document["packages"]
    assert isinstance(packages, list)
    assert len(drawn) == len(packages)
    checked = 0
    for pkg in packages:
        expected = declared_edge_changes(pkg)
        counts = drawn[visible(pkg["name"])]
        for key in ("added", "removed", "range"):
            assert counts[key] == expected[key], (pkg["name"], key, counts, expected)
        checked += counts["edges"]
    return checked


def test_corpus_diff_page(chromium: Browser, tmp_path: Path) -> None:
    old = corpus_path("sqlite", "index-upstream-old.db")
    new = corpus_path("sqlite", "index-upstream.db")
    runner = CliRunner()
    html = runner.invoke(cli, ["diff", "--format", "html", str(old), str(new)]).output
    document = json.loads(
        runner.invoke(cli, ["diff", "--format", "json", str(old), str(new)]).output
    )
    path = tmp_path / "diff.html"
    path.write_text(html)
    assert path.stat().st_size < 10 * 1024 * 1024
    page, seconds = _open(chromium, path)
    assert seconds < 2.0
    _assert_clean(page, path)
    _assert_rendered(page)
    assert _edges_match_json(page, document) > 100  # 150 drawn: the rest elided
    page.evaluate('document.getElementById("expand").click()')
    shown = page.evaluate("document.body.innerText")
    listed = runner.invoke(cli, ["diff", "--color", "never", str(old), str(new)]).output
    for line in listed.splitlines()[:-1]:  # every change the text format lists
        assert line.strip() in shown, line
    # the summary links open their section; the filter narrows sections and table rows
    total = len(document["packages"])
    assert page.evaluate(VISIBLE_SECTIONS_JS) == total
    page.type_into("#filter", "kia")
    assert page.evaluate(VISIBLE_SECTIONS_JS) == 1
    assert page.evaluate('document.getElementById("shown").textContent') == f"1 of {total} shown"
    rows = 'Array.from(document.querySelectorAll("tr[data-filter]")).filter(r => !r.hidden)'
    assert page.evaluate(f"{rows}.map(r => r.dataset.filter)") == ["kiali"]
    page.evaluate('document.querySelector("tr[data-filter=kiali] a").click()')
    assert page.evaluate('document.querySelector("details[data-filter=kiali]").open') is True
    assert page.evaluate("location.hash").startswith("#pkg-")
    text = page.evaluate("document.body.innerText")
    assert "+ entry kiali-operator.v1.36.0  replaces kiali-operator.v1.35.0" in text


def test_hostile_names_never_run(chromium: Browser, tmp_path: Path) -> None:
    old, new = hostile_catalogs()
    report = diff_pictures(old, new)
    path = tmp_path / "hostile.html"
    path.write_text(report.html())
    page, _ = _open(chromium, path)
    page.evaluate('document.getElementById("expand").click()')
    _assert_clean(page, path)
    _assert_rendered(page)
    _edges_match_json(page, report.diff.to_json())
    text = page.evaluate("document.body.innerText")
    for hostile in HOSTILE[:5]:
        assert hostile in text
    assert "evil[U+202E]gnp.exe" in text
    # no element or handler came from a name: only the page's own markup
    assert page.evaluate('document.querySelectorAll("img, iframe, object, embed").length') == 0
    assert page.evaluate('document.querySelectorAll("a:not([href^=\\"#\\"])").length') == 0
    handlers = (
        'Array.from(document.querySelectorAll("*")).filter(e => '
        "Array.from(e.attributes).some(a => a.name.startsWith('on'))).length"
    )
    assert page.evaluate(handlers) == 0
    # hovering and clicking every link and summary runs nothing either
    page.evaluate('document.querySelectorAll("a, summary").forEach(e => e.click())')
    assert page.evaluate(f"typeof {CANARY}") == "undefined"
    page.type_into("#filter", "p3-")
    assert page.evaluate(VISIBLE_SECTIONS_JS) == 1


@pytest.mark.parametrize("kind", ["upgrade", "graph"])
def test_hostile_names_never_run_in_the_other_reports(
    chromium: Browser, tmp_path: Path, kind: str
) -> None:
    if kind == "upgrade":
        html = hostile_upgrade_page()
    else:
        _, new = hostile_catalogs()
        html = graph_html(new.packages())
    path = tmp_path / f"{kind}.html"
    path.write_text(html)
    page, _ = _open(chromium, path)
    page.evaluate('document.getElementById("expand").click()')
    page.evaluate('document.querySelectorAll("a, summary").forEach(e => e.click())')
    _assert_clean(page, path)
    _assert_rendered(page)
    assert page.evaluate(VISIBLE_SECTIONS_JS) == len(HOSTILE)
    text = page.evaluate("document.body.innerText")
    for hostile in HOSTILE[:5]:
        assert hostile[:30] in text


def test_big_diff_opens_fast(chromium: Browser, tmp_path: Path) -> None:
    html, document = big_diff()
    path = tmp_path / "big.html"
    path.write_text(html)
    size = path.stat().st_size
    assert size < 10 * 1024 * 1024
    page, seconds = _open(chromium, path)
    assert seconds < 2.0, f"{size} bytes took {seconds:.2f}s to load"
    _assert_clean(page, path)
    _assert_rendered(page)
    _edges_match_json(page, document)


def test_render_graph_pages(chromium: Browser, tmp_path: Path) -> None:
    db = FIXTURES / "example" / "sqlite" / "schema-13.db"
    with open_catalog(db) as catalog:
        html = graph_html(catalog.packages())
    with open_catalog(db) as catalog:
        svg = graph_svg(catalog.packages())
    for name, text in (("graph.html", html), ("graph.svg", svg)):
        path = tmp_path / name
        path.write_text(text)
        page, _ = _open(chromium, path)
        _assert_clean(page, path)
        _assert_rendered(page)
        edges = page.evaluate('document.querySelectorAll("path.e[data-kind]").length')
        # fixtures/README: beta 0.1.0 -> 0.2.0 -> 0.3.0, 0.3.0 skips 0.2.1 and its range <0.2.0
        # takes 0.1.0; stable 0.1.0 -> 0.2.0 (the legend's samples carry no data-kind)
        assert edges == 5
        light = page.evaluate("getComputedStyle(document.querySelector('.n rect')).fill")
        dark_page, _ = _open(chromium, path, dark=True)
        dark = dark_page.evaluate("getComputedStyle(document.querySelector('.n rect')).fill")
        assert light != dark  # the palette follows prefers-color-scheme
        background = ink(dark_page.screenshot(scale=0.25))
        assert background[1] > 8


def test_upgrade_page(chromium: Browser, tmp_path: Path) -> None:
    old = corpus_path("sqlite", "index-upstream-old.db")
    new = corpus_path("sqlite", "index-upstream.db")
    inventory = load_inventory(str(FIXTURES / "inventory-simple.csv"))
    pictures = upgrade_pictures(old, new, inventory, target_ocp="4.9")
    path = tmp_path / "upgrade.html"
    path.write_text(pictures.html())
    page, seconds = _open(chromium, path)
    assert seconds < 2.0
    _assert_clean(page, path)
    _assert_rendered(page)
    path_edges = page.evaluate(
        'Array.from(document.querySelectorAll("details.item")).map('
        'd => d.querySelectorAll("path.e.path").length)'
    )
    assert path_edges == [len(v.path or []) - 1 for v in pictures.report.operators]
    page.type_into("#filter", "keycloak")
    assert page.evaluate(VISIBLE_SECTIONS_JS) == 1
    assert "Blocks the upgrade: blocked-max-ocp — olm.maxOpenShiftVersion" in page.evaluate(
        "document.body.innerText"
    )


def test_print_opens_every_section_and_hides_the_controls(
    chromium: Browser, tmp_path: Path
) -> None:
    old, new = hostile_catalogs()
    path = tmp_path / "print.html"
    path.write_text(diff_pictures(old, new).html())
    page, _ = _open(chromium, path)
    page.evaluate('document.getElementById("collapse").click()')
    assert page.evaluate('document.querySelectorAll("details.item[open]").length') == 0
    page.send("Emulation.setEmulatedMedia", media="print")
    assert page.evaluate("getComputedStyle(document.querySelector('.controls')).display") == (
        "none"
    )
    pdf = page.send("Page.printToPDF")["data"]
    assert len(pdf) > 1000
    opened = page.evaluate('document.querySelectorAll("details.item[open]").length')
    assert opened == len(HOSTILE)  # beforeprint opened them all
    assert page.errors() == []
