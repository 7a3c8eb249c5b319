"""Inputs and readers for the picture tests: hostile catalogs, a big synthetic diff, and a parser
that collects what an HTML report draws and says (no browser needed)."""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from olmcat.model import (
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    DeprecationEntry,
    Package,
    PackageCatalog,
)
from olmcat.model.property import Property, build, package
from olmcat.readers.memory import MemoryCatalog

# Each would set window.__canary (or call alert) if a browser ever ran it.
HOSTILE = (
    "<script>window.__canary='script'</script>",
    '"><svg onload="window.__canary=\'svg\'">',
    "javascript:window.__canary='url'",
    "<img src=x onerror=\"window.__canary='img'\">",
    "</style></title></textarea><script>window.__canary='close'</script>",
    "evil\u202egnp.exe\u2066x\u2069",
    "\x1b[31mred\x07bell\x00nul",
    "A" * 10240,
)
CANARY = "window.__canary"


def _bundle(pkg: str, name: str, version: str, *extra: Property) -> Bundle:
    return Bundle(name, pkg, f"quay.io/x/{pkg}:{version}", (package(pkg, version), *extra))


def hostile_catalogs() -> tuple[MemoryCatalog, MemoryCatalog]:
    """OLD and NEW where every package, channel and bundle name, the descriptions, deprecation
    messages and a property value are hostile; NEW adds a bundle to each channel, removes one,
    changes a skipRange and deprecates things, so every kind of change is drawn."""
    old_pkgs, new_pkgs = [], []
    for index, text in enumerate(HOSTILE):
        name = f"p{index}-{text}"
        channel = f"c-{text}"
        names = [f"{text}.v1.{minor}.0" for minor in range(4)]

        def entries(upto: int, rng: str, names: list[str] = names) -> tuple[ChannelEntry, ...]:
            out = [ChannelEntry(names[0])]
            for minor in range(1, upto):
                skips = (names[minor - 1],) if minor == 2 else ()
                out.append(
                    ChannelEntry(
                        names[minor], names[minor - 1], skips, rng if minor == upto - 1 else ""
                    )
                )
            return tuple(out)

        weird = build("x.hostile", [("value", text)])
        description = f"description {text}"
        old_pkgs.append(
            PackageCatalog(
                Package(name, channel, description=description),
                (Channel(channel, name, entries(3, ">=1.0.0 <1.2.0")),),
                tuple(_bundle(name, names[m], f"1.{m}.0", weird) for m in range(3)),
            )
        )
        new_entries = entries(4, f">=1.0.0 <1.3.0 {text}"[:40])
        new_entries = tuple(e for e in new_entries if e.name != names[0])  # removed
        new_pkgs.append(
            PackageCatalog(
                Package(name, channel, description=description + " (new)"),
                (
                    Channel(channel, name, new_entries),
                    Channel(f"{channel}-2", name, (ChannelEntry(names[3]),)),
                ),
                tuple(_bundle(name, names[m], f"1.{m}.0", weird) for m in range(1, 4)),
                (
                    Deprecation(
                        name,
                        (
                            DeprecationEntry("olm.bundle", names[1], f"gone {text}"),
                            DeprecationEntry("olm.channel", f"{channel}-2", text),
                        ),
                    ),
                ),
            )
        )
    key = lambda p: p.name  # noqa: E731
    return MemoryCatalog(sorted(old_pkgs, key=key)), MemoryCatalog(sorted(new_pkgs, key=key))


def hostile_upgrade_page() -> str:
    """The upgrade-check page of one install per hostile package (names, namespaces, channels
    and bundles hostile), checked against the hostile catalogs without touching a disk."""
    from olmcat.pictures.upgrade import UpgradePictures
    from olmcat.query.render_graph import package_graph
    from olmcat.upgrade import Installed, UpgradeReport, check_operator

    old, new = hostile_catalogs()
    old_pkgs = {p.name: p for p in old.packages()}
    new_pkgs = {p.name: p for p in new.packages()}
    verdicts, graphs = [], {}
    for index, text in enumerate(HOSTILE):
        name = f"p{index}-{text}"
        item = Installed(
            "Subscription", name, f"c-{text}", f"{text}.v1.0.0", "1.0.0", f"ns-{text}", text
        )
        verdicts.append(check_operator(item, old_pkgs[name], new_pkgs[name]))
        graphs[name] = (package_graph(old_pkgs[name]), package_graph(new_pkgs[name]))
    report = UpgradeReport(f"old-{HOSTILE[0]}", f"new-{HOSTILE[1]}", "legacy", None, verdicts)
    return UpgradePictures(report, graphs).html()


def big_catalogs(packages: int = 150, bundles: int = 60) -> tuple[MemoryCatalog, MemoryCatalog]:
    """Two catalogs of ``packages`` packages, two channels each of ``bundles`` bundles where
    every bundle has a skipRange over all older ones (the dense graphs of real operators); NEW
    adds a head to every channel and drops the oldest bundle."""

    def catalog(first: int, last: int) -> MemoryCatalog:
        out = []
        for p in range(packages):
            name = f"operator-{p:03d}"
            versions = [f"1.{m}.0" for m in range(first, last)]
            channels = []
            for channel in ("stable", "fast"):
                entries = []
                for i, version in enumerate(versions):
                    previous = f"{name}.v{versions[i - 1]}" if i else ""
                    entries.append(
                        ChannelEntry(f"{name}.v{version}", previous, (), f">=1.0.0 <{version}")
                    )
                channels.append(Channel(channel, name, tuple(entries)))
            out.append(
                PackageCatalog(
                    Package(name, "stable"),
                    tuple(channels),
                    tuple(_bundle(name, f"{name}.v{v}", v) for v in versions),
                )
            )
        return MemoryCatalog(out)

    return catalog(0, bundles), catalog(1, bundles + 1)


@functools.lru_cache(maxsize=1)
def big_diff() -> tuple[str, dict[str, Any]]:
    """The HTML page and the JSON document of diffing :func:`big_catalogs` (150 packages, 24
    bundles a channel: 552 skipRange edges a package), made once per test process."""
    from olmcat.pictures.diff import diff_pictures

    old, new = big_catalogs(150, 24)
    report = diff_pictures(old, new)
    return report.html(), report.diff.to_json()


def declared_edge_changes(pkg: dict[str, Any]) -> Counter[str]:
    """From one package of ``diff --format json``: replaces and skips edges added and removed,
    and skipRange texts changed (entries in both channels whose range differs)."""
    counts: Counter[str] = Counter()
    for channel in pkg["channels"]:
        for status in ("added", "removed"):
            for entry in channel["entries"][status]:
                counts[status] += bool(entry["replaces"]) + len({s for s in entry["skips"] if s})
        for edge in channel["edges"]:
            if edge["kind"] == "skipRange":
                counts["range"] += 1
                continue
            counts["removed"] += edge["old"] is not None
            counts["added"] += edge["new"] is not None
    return counts


@dataclass
class Report(HTMLParser):
    """What an HTML report holds: per section (``details.item``) its drawn edges and ranges,
    every element and attribute name, hrefs, scripts, and the text of the change lists."""

    sections: dict[str, Counter[str]] = field(default_factory=dict)
    tags: Counter[str] = field(default_factory=Counter)
    attributes: set[str] = field(default_factory=set)
    hrefs: list[str] = field(default_factory=list)
    scripts: int = 0
    changes: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    _section: str | None = None
    _in_li: bool = False
    _in_range: bool = False

    def __post_init__(self) -> None:
        HTMLParser.__init__(self, convert_charrefs=True)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.tags[tag] += 1
        self.attributes |= {k for k, _ in attrs}
        if tag == "script":
            self.scripts += 1
        if tag == "a" and values.get("href") is not None:
            self.hrefs.append(values["href"] or "")
        if tag == "details" and "item" in (values.get("class") or ""):
            self._section = values.get("data-filter") or ""
            self.sections[self._section] = Counter()
        if tag == "path" and self._section is not None and "data-kind" in values:
            kind, change = values["data-kind"], values["data-change"]
            self.sections[self._section][f"{kind}:{change}"] += 1
            if kind in ("replaces", "skips") and change != "same":
                self.sections[self._section][change or ""] += 1
        if tag == "tspan" and values.get("class") == "range changed" and self._section is not None:
            self.sections[self._section]["range"] += 1
        self._in_li = tag == "li" and self._section is not None

    def handle_endtag(self, tag: str) -> None:
        if tag == "details":
            self._section = None
        if tag == "li":
            self._in_li = False

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._in_li:
            self.changes.append(data)


def parse_report(html: str) -> Report:
    report = Report()
    report.feed(html)
    report.close()
    return report
