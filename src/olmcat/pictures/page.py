"""The page around the pictures: one self-contained HTML file, its stylesheet, its one script and
the Content-Security-Policy that allows nothing else.

The file needs nothing from a network or from another file: styles and pictures are inline, no
fonts or images are loaded, and the CSP meta tag (``default-src 'none'``) forbids everything but
this stylesheet and this script, each allowed by its SHA-256 hash. A name in the catalog that
looks like markup is escaped text (:mod:`olmcat.pictures.text`); should anything ever slip
through, the browser would still refuse to run it.

Palette: Okabe & Ito's colour-blind-safe colours, and every colour has a second cue: added is
blue with ``+`` and a solid arrowhead, removed is vermillion with ``−``, dashed boxes and hollow
arrowheads; replaces / skips / skipRange edges are solid / dashed / dotted; tags in the boxes
spell out head, deprecated, stranded. Light and dark palettes follow ``prefers-color-scheme``;
printing opens every collapsed section and drops the controls.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable
from typing import Final

from olmcat.pictures.lanes import marker_defs
from olmcat.pictures.text import esc

__all__ = ["GRAPH_CSS", "PAGE_CSS", "SCRIPT", "content_security_policy", "legend", "page"]

GRAPH_CSS: Final = """
:root{color-scheme:light dark;--bg:#ffffff;--fg:#1d1d1f;--muted:#5c5c66;--box:#f4f4f6;
--line:#8c8c96;--edge:#6e6e78;--added:#0072b2;--added-bg:#e2eff8;--removed:#d55e00;
--removed-bg:#fbeadf;--impact:#cc79a7;--impact-bg:#f7e4ef;--path:#009e73;--path-bg:#dcf3ea;
--deprecated:#a66f00;--deprecated-bg:#fbf0d4;--replaces:#0072b2;--skips:#d55e00;
--skiprange:#009e73;--head:#1d1d1f}
@media (prefers-color-scheme:dark){:root{--bg:#15171b;--fg:#e9e9ee;--muted:#a4a4ae;
--box:#23262d;--line:#80808a;--edge:#9a9aa4;--added:#56b4e9;--added-bg:#14324a;
--removed:#f0884a;--removed-bg:#45260f;--impact:#e59bc6;--impact-bg:#3e2234;--path:#3cc99a;
--path-bg:#113a2d;--deprecated:#e6b85c;--deprecated-bg:#3b3016;--replaces:#56b4e9;
--skips:#f0884a;--skiprange:#3cc99a;--head:#e9e9ee}}
svg.graph{font:12px ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;color:var(--fg)}
svg .bg{fill:var(--bg)}
svg text{fill:var(--fg)}
svg .lane-title{font-weight:bold;font-size:13px}
svg .lane-tags{fill:var(--muted);font-size:11px}
svg .lane-rule{stroke:var(--line);stroke-width:1}
svg .lane.s-added .lane-title{fill:var(--added)}
svg .lane.s-removed .lane-title{fill:var(--removed);text-decoration:line-through}
svg .n rect{fill:var(--box);stroke:var(--line);stroke-width:1}
svg .n.head rect{stroke:var(--head);stroke-width:2.5}
svg .n.deprecated rect{fill:var(--deprecated-bg);stroke:var(--deprecated)}
svg .n.missing rect{stroke-dasharray:2 3;fill:none}
svg .n.missing text{fill:var(--muted)}
svg .n.s-added rect{fill:var(--added-bg);stroke:var(--added);stroke-width:2}
svg .n.s-removed rect{fill:var(--removed-bg);stroke:var(--removed);stroke-dasharray:5 3;
stroke-width:1.5}
svg .n.s-removed>text>tspan:first-child{text-decoration:line-through}
svg .n.stranded rect{fill:var(--impact-bg);stroke:var(--impact);stroke-width:3;
stroke-dasharray:none}
svg .n.path rect{fill:var(--path-bg);stroke:var(--path);stroke-width:2}
svg .n.installed rect{stroke-width:3}
svg .n.stop rect{fill:var(--impact-bg);stroke:var(--impact);stroke-width:3}
svg .tag{font-weight:bold;font-size:11px}
svg .n.stranded .tag,svg .n.stop .tag{fill:var(--impact)}
svg .range{fill:var(--muted);font-size:11px}
svg .range.changed{fill:var(--removed);font-weight:bold}
svg .e{fill:none;stroke:var(--edge);stroke-width:1.4}
svg .e.k-replaces{stroke:var(--replaces)}
svg .e.k-skips{stroke:var(--skips);stroke-dasharray:6 4}
svg .e.k-skipRange{stroke:var(--skiprange);stroke-dasharray:1.5 3;stroke-width:1.8}
svg .e.k-step{stroke-dasharray:8 3}
.diff .e.s-same{stroke:var(--line);opacity:.75}
svg .e.s-added{stroke:var(--added);stroke-width:2.4;opacity:1}
svg .e.s-removed{stroke:var(--removed);stroke-width:2;opacity:1}
svg .e.path{stroke:var(--path);stroke-width:3.2;opacity:1}
.upgrade .e:not(.path){stroke:var(--line);opacity:.7}
svg .ah{fill:var(--edge)}
svg .ah.s-added{fill:var(--added)}
svg .ah.s-removed{fill:var(--bg);stroke:var(--removed);stroke-width:1.5}
svg .ah.s-path{fill:var(--path)}
svg .ah.s-replaces{fill:var(--replaces)}svg .ah.s-skips{fill:var(--skips)}
svg .ah.s-skipRange{fill:var(--skiprange)}
svg .glyph{font-weight:bold;font-size:13px}
svg .gap{fill:var(--muted);font-style:italic;font-size:11px}
svg .glyph.s-added{fill:var(--added)}
svg .glyph.s-removed{fill:var(--removed)}
"""

PAGE_CSS: Final = """
*{box-sizing:border-box}
body{margin:0;padding:16px 24px 48px;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
overflow-wrap:break-word}
td,summary,.meta,.unchanged,ul.changes li,.note{overflow-wrap:anywhere}
td.num,td[class^="st-"]{overflow-wrap:normal;white-space:nowrap}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px}
code,.mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:13px}
.meta{color:var(--muted);margin:0 0 12px}
.verdict{font-size:16px;font-weight:bold;margin:8px 0 16px}
table{border-collapse:collapse;margin:8px 0 16px;max-width:100%}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--box)}
td.num{text-align:right;font-variant-numeric:tabular-nums}
a{color:var(--added)}
.added,.st-added{color:var(--added)}.removed,.st-removed{color:var(--removed)}
.impact,.st-blocks{color:var(--impact);font-weight:bold}
.st-ready{color:var(--path);font-weight:bold}
.warn{color:var(--deprecated);font-weight:bold}
ul.conditions{padding-left:1.2em}
.controls{position:sticky;top:0;z-index:2;background:var(--bg);padding:8px 0;
border-bottom:1px solid var(--line);display:flex;gap:12px;align-items:center;flex-wrap:wrap}
.controls input{font:inherit;padding:4px 8px;min-width:18em;color:var(--fg);
background:var(--box);border:1px solid var(--line);border-radius:4px}
.controls button{font:inherit;padding:3px 10px;color:var(--fg);background:var(--box);
border:1px solid var(--line);border-radius:4px;cursor:pointer}
details.item{border:1px solid var(--line);border-radius:6px;margin:12px 0;padding:0 12px;
scroll-margin-top:64px}
details.item>summary{cursor:pointer;padding:8px 0;font-weight:bold}
details.item[open]>summary{border-bottom:1px solid var(--line);margin-bottom:8px}
.figure{overflow:auto;max-height:85vh;border:1px solid var(--line);border-radius:4px;
background:var(--bg);margin:8px 0}
.note{color:var(--muted);font-style:italic}
ul.changes{list-style:none;padding-left:0;font-family:ui-monospace,"DejaVu Sans Mono",Menlo,
Consolas,monospace;font-size:13px}
ul.changes li{white-space:pre-wrap}
ul.changes li.m-add{color:var(--added)}ul.changes li.m-rm{color:var(--removed)}
ul.changes li.m-impact{color:var(--impact);font-weight:bold}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;align-items:center;margin:8px 0;
color:var(--fg)}
.legend span{display:inline-flex;align-items:center;gap:6px}
.legend svg{overflow:visible}
.unchanged{color:var(--muted)}
svg.defs{position:absolute}
footer{margin-top:32px;color:var(--muted);font-size:12px}
@media print{.controls{display:none}.figure{max-height:none;overflow:visible}
details.item{break-inside:avoid-page}body{padding:0}}
"""

# The one script: the filter box, expand/collapse, open a section that a link points at, open
# every section before printing. It reads names only as data (textContent, dataset).
SCRIPT: Final = """
(function () {
  "use strict";
  var box = document.getElementById("filter");
  var shown = document.getElementById("shown");
  var rows = Array.prototype.slice.call(document.querySelectorAll("[data-filter]"));
  var sections = Array.prototype.slice.call(document.querySelectorAll("details.item"));
  var counted = sections.length ? "DETAILS" : "TR";  // a summary page has only the table
  var total = rows.filter(function (el) { return el.tagName === counted; }).length;
  function apply() {
    var query = box ? box.value.trim().toLowerCase() : "";
    var count = 0;
    rows.forEach(function (el) {
      var hit = !query || el.getAttribute("data-filter").toLowerCase().indexOf(query) !== -1;
      el.hidden = !hit;
      if (hit && el.tagName === counted) { count += 1; }
    });
    if (shown) { shown.textContent = count + " of " + total + " shown"; }
  }
  function all(open) { sections.forEach(function (d) { d.open = open; }); }
  function target() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id ? document.getElementById(id) : null;
    if (el && el.tagName === "DETAILS") { el.hidden = false; el.open = true; }
  }
  if (box) { box.addEventListener("input", apply); }
  var expand = document.getElementById("expand");
  var collapse = document.getElementById("collapse");
  if (expand) { expand.addEventListener("click", function () { all(true); }); }
  if (collapse) { collapse.addEventListener("click", function () { all(false); }); }
  window.addEventListener("hashchange", target);
  window.addEventListener("beforeprint", function () { all(true); });
  apply();
  target();
})();
"""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("olmcat")
    except PackageNotFoundError:  # a source tree on sys.path, not installed
        return "(source)"


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def content_security_policy() -> str:
    """Nothing may load or run but this page's stylesheet and script (by hash)."""
    style = _hash(GRAPH_CSS + PAGE_CSS)
    return (
        f"default-src 'none'; style-src '{style}'; script-src '{_hash(SCRIPT)}'; "
        "img-src 'none'; font-src 'none'; connect-src 'none'; base-uri 'none'; "
        "form-action 'none'"
    )


def controls(count: int, noun: str) -> str:
    """The filter box and the expand / collapse buttons."""
    return (
        '<div class="controls"><label>Filter '
        f'<input id="filter" type="search" placeholder="{noun} name" autocomplete="off">'
        f'</label><span id="shown">{count} of {count} shown</span>'
        '<button id="expand" type="button">Expand all</button>'
        '<button id="collapse" type="button">Collapse all</button></div>'
    )


def _sample_edge(css: str, marker: str, note: str) -> str:
    return (
        f'<span><svg class="graph" width="46" height="12" aria-hidden="true"><path class="{css}" '
        f'd="M2,6 L40,6" marker-end="url(#ah-{marker})"/></svg>{note}</span>'
    )


def _sample_box(css: str, text: str, note: str) -> str:
    width = max(len(text) * 7.3 + 12, 30)
    return (
        f'<span><svg class="graph" width="{width:.0f}" height="20" aria-hidden="true">'
        f'<g class="{css}"><rect x="1" y="1" width="{width - 2:.0f}" height="18" rx="4"/>'
        f'<text x="6" y="14">{esc(text)}</text></g></svg>{note}</span>'
    )


def legend(kind: str) -> str:
    """Samples of every line and box style a picture of ``kind`` (graph, diff, upgrade) uses."""

    def marker(edge_kind: str) -> str:
        return edge_kind if kind == "graph" else "same"

    items = [
        _sample_edge("e k-replaces s-same", marker("replaces"), "replaces (solid)"),
        _sample_edge("e k-skips s-same", marker("skips"), "skips (dashed)"),
        _sample_edge("e k-skipRange s-same", marker("skipRange"), "skipRange (dotted)"),
    ]
    if kind == "diff":
        items += [
            _sample_edge("e k-replaces s-added", "added", "added edge (blue, +)"),
            _sample_edge("e k-replaces s-removed", "removed", "removed edge (vermillion, −)"),
            _sample_box("n s-added", "+ bundle", "added bundle"),
            _sample_box("n s-removed", "− bundle", "removed bundle (dashed)"),
            _sample_box("n stranded", "bundle stranded", "stranded install"),
        ]
    if kind == "upgrade":
        items += [
            _sample_edge("e k-replaces path", "path", "upgrade path (green)"),
            _sample_box("n installed", "bundle installed", "installed"),
            _sample_box("n stop", "bundle stops here", "where the path stops"),
        ]
    items += [
        _sample_box("n head", "bundle head", "channel head (bold)"),
        _sample_box("n deprecated", "bundle deprecated", "deprecated"),
        _sample_box("n missing", "bundle", "not an entry of the channel (dotted)"),
    ]
    scope = "" if kind == "graph" else f" {kind}"
    return f'<div class="legend{scope}" aria-label="legend">{"".join(items)}</div>'


def page(title: str, body: Iterable[str], *, subtitle: str = "") -> str:
    """A whole HTML document: ``body`` is already-escaped markup."""
    head = (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy()}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f'<meta name="generator" content="olmcat {esc(_version())}">'
        f"<title>{esc(title, 200)}</title><style>{GRAPH_CSS + PAGE_CSS}</style></head><body>"
        '<svg class="defs" width="0" height="0" aria-hidden="true">'
        f"{marker_defs()}</svg>"
        f"<h1>{esc(title)}</h1>"
    )
    if subtitle:
        head += f'<p class="meta">{subtitle}</p>'
    tail = (
        f"<footer>Made by olmcat {esc(_version())}. This file is self-contained: it loads "
        "nothing and runs only its own script.</footer>"
        f"<script>{SCRIPT}</script></body></html>\n"
    )
    return head + "".join(body) + tail
