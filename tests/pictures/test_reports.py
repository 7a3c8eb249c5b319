"""The SVG and HTML reports without a browser: what they draw matches the diff's JSON and the
Mermaid graph, they list every change the text format lists, hostile catalog text stays text,
and they stay small. (tests/pictures/test_browser.py opens the same reports in Chromium.)"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.diff.render import render_text
from olmcat.pictures.diff import diff_pictures
from olmcat.pictures.graph import graph_html, graph_svg
from olmcat.pictures.lanes import Edge, Lane, Node, Picture, draw, simplify
from olmcat.pictures.page import GRAPH_CSS, PAGE_CSS, SCRIPT, content_security_policy
from olmcat.pictures.text import esc, visible
from olmcat.pictures.upgrade import upgrade_pictures
from olmcat.query.render_graph import render
from olmcat.upgrade import load_inventory
from tests.support.paths import FIXTURES, corpus_path
from tests.support.pictures import (
    HOSTILE,
    big_diff,
    declared_edge_changes,
    hostile_catalogs,
    parse_report,
)

# Every element a report may contain: anything else would be markup that came from a catalog.
ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "svg", "defs", "marker", "path", "h1", "h2",
    "p", "code", "table", "thead", "tbody", "tr", "th", "td", "a", "span", "div", "label",
    "input", "button", "details", "summary", "g", "rect", "text", "tspan", "line", "ul", "li",
    "br", "footer", "script",
}  # fmt: skip


def _corpus_pair() -> tuple[Path, Path]:
    return (
        corpus_path("sqlite", "index-upstream-old.db"),
        corpus_path("sqlite", "index-upstream.db"),
    )


# -- text -----------------------------------------------------------------------------------------


def test_invisible_and_direction_characters_are_spelled_out() -> None:
    assert visible("a\u202eb\u2066c\u2069d") == "a[U+202E]b[U+2066]c[U+2069]d"
    assert visible("x\x00y\x1bz\x7f\u200b\ufeff\U000e0041") == (
        "x[U+0000]y[U+001B]z[U+007F][U+200B][U+FEFF][U+E0041]"
    )
    assert visible("tab\tand\nline") == "tab and line"
    assert esc('<a href="javascript:x">&', 12) == "&lt;a href=&quot;ja…"


# -- layout ---------------------------------------------------------------------------------------


def _rows(svg: str) -> dict[str, float]:
    """Node name -> y of its box."""
    found = re.findall(
        r'<g class="n[^"]*" data-name="([^"]+)"><title>.*?</title><rect x="[^"]+" y="([^"]+)"', svg
    )
    return {name: float(y) for name, y in found}


def test_rows_follow_versions_and_a_versionless_bundle_sits_above_its_upgrade() -> None:
    from olmcat.model.versions import Version

    lane = Lane("stable")
    for name, version in (
        ("b", Version(2, 0, 0)),
        ("a", Version(1, 0, 0)),
        ("c", Version(10, 0, 0)),
    ):
        lane.nodes[name] = Node(name, version)
    lane.nodes["gone"] = Node("gone", None, marks={"missing"})
    lane.edges = [
        Edge("a", "b", "replaces"),
        Edge("gone", "c", "skips"),
        Edge("b", "c", "replaces"),
    ]
    rows = _rows(draw(Picture([lane])))
    assert sorted(rows, key=rows.__getitem__) == ["a", "b", "gone", "c"]  # 10.0.0 after 2.0.0


def test_the_same_bundle_is_on_the_same_row_in_every_lane() -> None:
    from olmcat.model.versions import Version

    one, two = Lane("one"), Lane("two")
    for lane, names in ((one, "abc"), (two, "c")):
        for index, name in enumerate(names):
            if name in "abc":
                lane.nodes[name] = Node(name, Version(1, "abc".index(name), index))
    svg = draw(Picture([one, two]))
    ys = re.findall(r'data-name="c"><title>.*?</title><rect x="[^"]+" y="([^"]+)"', svg)
    assert len(ys) == 2 and ys[0] == ys[1]


def test_a_big_graph_falls_back_to_a_simpler_drawing_with_a_note() -> None:
    from olmcat.model.versions import Version

    lane = Lane("big")
    for minor in range(80):
        lane.nodes[f"v{minor}"] = Node(f"v{minor}", Version(1, minor, 0))
    lane.edges = [Edge(f"v{m - 1}", f"v{m}", "replaces") for m in range(1, 80)]
    lane.edges += [Edge(f"v{a}", f"v{b}", "skipRange") for b in range(80) for a in range(b)]
    lane.edges.append(Edge("v1", "v79", "skipRange", "added"))
    picture = simplify(Picture([lane]), edge_limit=500)
    kinds = {(e.kind, e.status) for e in picture.lanes[0].edges}
    assert kinds == {("replaces", "same"), ("skipRange", "added")}  # changes are never dropped
    assert picture.notes and "skipRange edges not drawn" in picture.notes[0]


# -- render-graph ---------------------------------------------------------------------------------


def _mermaid_edges_per_package(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    current = ""
    for line in text.splitlines():
        match = re.match(r'\s*%% package (".*")$', line)
        if match:
            current = json.loads(match.group(1))
            counts[current] = 0
        elif re.search(r" (-- replaces -->|-\. skips \.->|== skipRange ==>) ", line):
            counts[current] += 1
    return counts


def test_render_graph_html_draws_the_edges_the_mermaid_graph_has() -> None:
    from olmcat.readers.catalog import open_catalog

    path = corpus_path("sqlite", "index-upstream.db")
    with open_catalog(path) as catalog:
        mermaid = "".join(render(catalog.packages()))
    with open_catalog(path) as catalog:
        page = parse_report(graph_html(catalog.packages()))
    expected = _mermaid_edges_per_package(mermaid)
    drawn = {
        name: sum(n for key, n in counts.items() if key.endswith(":same"))
        for name, counts in page.sections.items()
    }
    assert drawn == expected
    assert sum(expected.values()) > 250


def test_render_graph_svg_is_a_standalone_xml_file_even_for_hostile_names() -> None:
    _, new = hostile_catalogs()
    svg = graph_svg(new.packages())
    root = ET.fromstring(svg.split("\n", 1)[1])  # well-formed XML: no raw control characters
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.find("{http://www.w3.org/2000/svg}style") is not None  # carries its own styles
    elements = list(root.iter())
    assert not [e for e in elements if e.tag.endswith("script")]
    assert not [a for e in elements for a in e.attrib if a.lower().startswith("on")]
    assert HOSTILE[1][:20] in "".join(root.itertext())  # the name is there, as text
    edges = root.findall(".//{http://www.w3.org/2000/svg}path[@data-kind]")
    assert {e.get("data-kind") for e in edges} == {"replaces", "skips"}  # ranges: unparsable


def test_render_graph_command_writes_svg_and_html(tmp_path: Path) -> None:
    db = FIXTURES / "example" / "sqlite" / "schema-13.db"
    runner = CliRunner()
    svg = runner.invoke(cli, ["render-graph", "--format", "svg", "-p", "hello-operator", str(db)])
    assert svg.exit_code == 0, svg.output
    ET.fromstring(svg.output.split("\n", 1)[1])
    assert 'data-name="hello-operator.v0.3.0"' in svg.output
    page = runner.invoke(cli, ["render-graph", "--format", "html", str(db)])
    assert page.exit_code == 0 and page.output.startswith("<!DOCTYPE html>")
    again = runner.invoke(cli, ["render-graph", "--format", "html", str(db)])
    assert again.output == page.output  # deterministic
    assert set(parse_report(page.output).sections) == {"hello-operator", "world-operator"}
    missing = runner.invoke(cli, ["render-graph", "--format", "svg", "-p", "nope", str(db)])
    assert missing.exit_code == 1 and "no package 'nope'" in missing.output


# -- diff -----------------------------------------------------------------------------------------


def _check_drawn_edges_match_json(html: str, document: dict[str, object]) -> int:
    page = parse_report(html)
    packages = document["packages"]
    assert isinstance(packages, list)
    checked = 0
    for pkg in packages:
        expected = declared_edge_changes(pkg)
        drawn = page.sections[visible(pkg["name"])]
        for key in ("added", "removed", "range"):
            assert drawn[key] == expected[key], (pkg["name"], key, drawn, expected)
            checked += expected[key]
    return checked


def test_corpus_diff_html_shows_every_change_the_text_lists_and_stays_small() -> None:
    old, new = _corpus_pair()
    report = diff_pictures(old, new)
    html = report.html()
    assert len(html.encode()) < 10 * 1024 * 1024
    page = parse_report(html)
    listed = {line.strip() for line in page.changes}
    text = render_text(report.diff).splitlines()
    for line in text[:-1]:
        assert line.strip() in listed, line
    assert text[-1].capitalize() in "".join(page.text)  # the totals
    document = report.diff.to_json()
    assert _check_drawn_edges_match_json(html, document) > 30
    assert set(page.sections) == {p.name for p in report.diff.packages}
    assert all(href.startswith("#pkg-") for href in page.hrefs)


def test_diff_html_unchanged_packages_are_listed_not_drawn() -> None:
    _old, new = _corpus_pair()
    same = diff_pictures(new, new, packages=["kiali"])
    page = parse_report(same.html())
    assert same.unchanged == ["kiali"] and page.sections == {}
    assert "Unchanged packages (1)" in "".join(page.text)


def test_hostile_names_stay_text_in_the_diff_report() -> None:
    old, new = hostile_catalogs()
    report = diff_pictures(old, new)
    html = report.html()
    page = parse_report(html)
    assert set(page.tags) <= ALLOWED_TAGS, set(page.tags) - ALLOWED_TAGS
    assert not [a for a in page.attributes if a.startswith("on")]
    assert page.scripts == 1 and page.tags["style"] == 1
    assert all(href.startswith("#") for href in page.hrefs)
    text = "".join(page.text)
    for hostile in HOSTILE[:5]:
        assert hostile in text  # shown, as text
    assert "evil[U+202E]gnp.exe[U+2066]x[U+2069]" in text
    assert "\u202e" not in html and "\x00" not in html and "\x1b" not in html
    assert "A" * 10240 in text  # the change list keeps the whole name ...
    assert "A" * 100 + "…" not in text or "A" * 59 + "…" in text  # ... the picture cuts it
    _check_drawn_edges_match_json(html, report.diff.to_json())


def test_the_page_allows_only_its_own_script_and_style() -> None:
    def digest(text: str) -> str:
        return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    policy = content_security_policy()
    assert "default-src 'none'" in policy
    assert f"script-src 'sha256-{digest(SCRIPT)}'" in policy
    assert f"style-src 'sha256-{digest(GRAPH_CSS + PAGE_CSS)}'" in policy
    assert "unsafe-inline" not in policy
    old, new = hostile_catalogs()
    html = diff_pictures(old, new).html()
    assert html.count("<script>") == 1 and f"<script>{SCRIPT}</script>" in html
    assert f"<style>{GRAPH_CSS + PAGE_CSS}</style>" in html
    assert " style=" not in html  # a style attribute would need 'unsafe-inline'


def test_a_diff_of_150_dense_packages_is_well_under_10_mb() -> None:
    html, document = big_diff()
    size = len(html.encode())
    assert size < 10 * 1024 * 1024, size
    assert len(document["packages"]) == 150
    assert "⋮ 17 bundles not shown" in html  # of 1.0 … 1.24: 1.0–1.3 and 1.21–1.24 stay
    _check_drawn_edges_match_json(html, document)


def test_diff_command_html_keeps_diffs_exit_status(tmp_path: Path) -> None:
    db = FIXTURES / "example" / "sqlite" / "schema-13.db"
    runner = CliRunner()
    same = runner.invoke(cli, ["diff", "--format", "html", str(db), str(db)])
    assert same.exit_code == 0 and "Catalogs are identical." in same.output
    old, new = (str(p) for p in _corpus_pair())
    differ = runner.invoke(cli, ["diff", "--format", "html", "-p", "kiali", old, new])
    assert differ.exit_code == 1 and differ.output.startswith("<!DOCTYPE html>")
    assert list(parse_report(differ.output).sections) == ["kiali"]
    short = runner.invoke(cli, ["diff", "--format", "html", "--summary", "-p", "kiali", old, new])
    assert short.exit_code == 1 and parse_report(short.output).sections == {}
    assert 'href="#pkg-0"' not in short.output and "kiali" in short.output
    bad = runner.invoke(cli, ["diff", "--format", "html", str(tmp_path / "nope.db"), str(db)])
    assert bad.exit_code == 2 and "<!DOCTYPE" not in bad.output


def test_library_diff_html_matches_the_command() -> None:
    import olmcat

    old, new = (str(p) for p in _corpus_pair())
    text = olmcat.diff_html(old, new, packages=["kiali"])
    result = CliRunner().invoke(cli, ["diff", "--format", "html", "-p", "kiali", old, new])
    assert text == result.output


# -- upgrade-check --------------------------------------------------------------------------------


def test_upgrade_html_draws_each_operators_path() -> None:
    old, new = _corpus_pair()
    inventory = load_inventory(str(FIXTURES / "inventory-simple.csv"))
    pictures = upgrade_pictures(old, new, inventory, target_ocp="4.9")
    html = pictures.html()
    page = parse_report(html)
    assert len(page.sections) == len(pictures.report.operators) == 5
    for verdict in pictures.report.operators:
        key = f"{verdict.installed.namespace} {verdict.installed.package}"
        drawn = page.sections[key]
        path_edges = len(re.findall(r'class="e k-\w+ s-same path"', _section_html(html, key)))
        assert verdict.path is not None and path_edges == len(verdict.path) - 1, key
        assert drawn  # the channel is drawn
    assert "Blocks the upgrade: <code>blocked-max-ocp</code> — olm.maxOpenShiftVersion" in html
    result = CliRunner().invoke(
        cli,
        ["upgrade-check", str(old), str(new), "--installed", str(FIXTURES / "inventory-simple.csv"),
         "--target-ocp", "4.9", "--format", "html"],
    )  # fmt: skip
    assert result.exit_code == 1 and result.output == html


def _section_html(html: str, key: str) -> str:
    start = html.index(f'data-filter="{key}"', html.index("<details"))
    return html[start : html.index("</details>", start)]


def test_upgrade_html_marks_where_the_path_stops() -> None:
    from olmcat.model import Channel, ChannelEntry, Package, PackageCatalog
    from olmcat.model.property import package
    from olmcat.model.types import Bundle
    from olmcat.readers.memory import MemoryCatalog
    from olmcat.writers.fbc import write_directory

    def catalog(entries: tuple[ChannelEntry, ...], versions: list[str]) -> MemoryCatalog:
        bundles = tuple(
            Bundle(f"op.v{v}", "op", f"x/op:{v}", (package("op", v),)) for v in versions
        )
        return MemoryCatalog(
            [PackageCatalog(Package("op", "stable"), (Channel("stable", "op", entries),), bundles)]
        )

    old = catalog(
        (ChannelEntry("op.v1.0.0"), ChannelEntry("op.v1.1.0", "op.v1.0.0")), ["1.0.0", "1.1.0"]
    )
    new = catalog(
        (
            ChannelEntry("op.v1.0.0"),
            ChannelEntry("op.v1.1.0", "op.v1.0.0"),
            ChannelEntry("op.v2.0.0"),
        ),
        ["1.0.0", "1.1.0", "2.0.0"],
    )
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        write_directory(old.packages(), Path(scratch, "old"))
        write_directory(new.packages(), Path(scratch, "new"))
        inventory = Path(scratch, "inv.csv")
        inventory.write_text("package,channel,version\nop,stable,1.0.0\n")
        pictures = upgrade_pictures(
            Path(scratch, "old"), Path(scratch, "new"), load_inventory(str(inventory))
        )
    verdict = pictures.report.operators[0]
    assert verdict.status == "no-path" and verdict.stops_at == "op.v1.1.0"
    html = pictures.html()
    assert verdict.walked == ["op.v1.0.0", "op.v1.1.0"]
    assert "path stops here" in html and 'class="n s-same head path stop"' in html
    assert len(re.findall(r' path" data-kind', html)) == 1  # 1.0.0 -> 1.1.0 drawn green
    assert 'data-name="op.v2.0.0"><title>op.v2.0.0 (2.0.0)</title>' in html  # the target
    assert "no upgrade path to the head op.v2.0.0" in html  # and why
    assert "no upgrade path to op.v2.0.0; the resolver stops at op.v1.1.0" in html
