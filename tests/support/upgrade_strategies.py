"""Random channel graphs and inventories for upgrade-check's property tests.

Graphs are mostly OLM-shaped (a replaces chain with skips and skipRanges) but may break the
rules: several heads, cycles, dangling targets, pre-releases and 0.x versions, duplicate
precedence -- the resolver walk must stay consistent with an exhaustive search on all of them.
"""

from __future__ import annotations

from hypothesis import strategies as st

from olmcat.model import Bundle, Channel, ChannelEntry, Package, PackageCatalog
from olmcat.model import property as prop
from olmcat.upgrade import Installed

PKG = "demo"


def _version_text(major: int, minor: int, patch: int, pre: str) -> str:
    return f"{major}.{minor}.{patch}" + (f"-{pre}" if pre else "")


versions = st.builds(
    _version_text,
    st.integers(0, 2),
    st.integers(0, 3),
    st.integers(0, 2),
    st.sampled_from(["", "", "", "", "rc.1", "rc.2"]),
)


def bundle(version: str) -> Bundle:
    return Bundle(
        f"{PKG}.v{version}", PKG, f"quay.io/demo/bundle:v{version}", (prop.package(PKG, version),)
    )


@st.composite
def channel_graphs(draw: st.DrawFn) -> tuple[PackageCatalog, list[str]]:
    """A package with one channel ``stable`` and the list of its entry versions (in chain
    order, oldest first)."""
    texts = sorted(set(draw(st.lists(versions, min_size=1, max_size=7))), key=_order)
    names = [f"{PKG}.v{t}" for t in texts]
    entries = []
    for index, name in enumerate(names):
        replaces = ""
        if index > 0 and draw(st.booleans()):
            replaces = names[index - 1] if draw(st.integers(0, 5)) else draw(st.sampled_from(names))
        if index == 0 and draw(st.integers(0, 4)) == 0:
            replaces = f"{PKG}.v0.0.0-gone"  # a dangling target, as opm allows at the tail
        skips = tuple(
            sorted(set(draw(st.lists(st.sampled_from([*names, f"{PKG}.v9.9.9-gone"]), max_size=2))))
        )
        skips = tuple(s for s in skips if s != name)
        if replaces == name:
            replaces = ""
        skip_range = ""
        if draw(st.integers(0, 3)) == 0:
            skip_range = draw(
                st.sampled_from(
                    [
                        f"<{texts[index]}",
                        f">=0.1.0 <{texts[index]}",
                        "<1.0.0",
                        ">=1.0.0 <2.0.0",
                        "not a range",
                    ]
                )
            )
        entries.append(ChannelEntry(name, replaces, skips, skip_range))
    channel = Channel("stable", PKG, tuple(entries))
    pkg = PackageCatalog(
        Package(PKG, default_channel="stable"),
        (channel,),
        tuple(bundle(t) for t in texts),
    )
    return pkg, texts


def _order(text: str) -> tuple[int, int, int, int, str]:
    core, _, pre = text.partition("-")
    major, minor, patch = (int(p) for p in core.split("."))
    return (major, minor, patch, 0 if pre else 1, pre)


@st.composite
def graphs_and_inventories(draw: st.DrawFn) -> tuple[PackageCatalog, list[Installed]]:
    pkg, texts = draw(channel_graphs())
    rows = [
        Installed("list", PKG, channel="stable", bundle=f"{PKG}.v{t}", version=t, name=t)
        for t in texts
    ]
    # a version the catalog no longer holds: only skipRange (or a name edge) can rescue it
    gone = draw(versions)
    if gone not in texts:
        rows.append(
            Installed(
                "list", PKG, channel="stable", bundle=f"{PKG}.v{gone}", version=gone, name=gone
            )
        )
    return pkg, rows
