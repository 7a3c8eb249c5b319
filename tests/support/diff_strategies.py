"""Hypothesis strategies for diff and delta tests: catalogs with real upgrade graphs and versions,
and pairs (old, new) where new is a plausible next release of old."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from hypothesis import strategies as st

from olmcat.model import (
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    DeprecationEntry,
    Icon,
    Package,
    PackageCatalog,
    RelatedImage,
)
from olmcat.model import property as prop

PACKAGE_NAMES = ("alpha-op", "beta-op", "gamma-op", "delta-op", "eps-op")
CHANNEL_NAMES = ("stable", "fast", "candidate")


def bundle_name(package: str, version: str) -> str:
    return f"{package}.v{version}"


def manifest(kind: str, name: str, extra: int = 0) -> prop.Property:
    data = json.dumps({"kind": kind, "metadata": {"name": name}, "spec": {"x": extra}})
    return prop.bundle_object(data.encode())


def make_bundle(package: str, version: str, *, flavour: int = 0) -> Bundle:
    name = bundle_name(package, version)
    return Bundle(
        name=name,
        package=package,
        image=f"quay.io/test/{package}-bundle:v{version}",
        properties=prop.opm_order(
            [
                prop.package(package, version),
                prop.gvk("example.com", "v1", "Thing"),
                manifest("ClusterServiceVersion", name, flavour),
                manifest("CustomResourceDefinition", "things.example.com"),
            ]
        ),
        related_images=(RelatedImage("operator", f"quay.io/test/{package}:v{version}"),),
    )


def valid_channel(
    package: str, name: str, versions: list[str], skipped: set[int], ranges: dict[int, str]
) -> Channel:
    """A channel over ``versions`` (ascending) that opm accepts: entries at ``skipped`` indexes are
    off the replaces chain, skipped by the next chain member above them (never the top one)."""
    entries = []
    previous_chain: str = ""
    pending_skips: list[str] = []
    for index, version in enumerate(versions):
        current = bundle_name(package, version)
        top = index == len(versions) - 1
        if index in skipped and not top and index > 0:
            entries.append(ChannelEntry(current, replaces=previous_chain))
            pending_skips.append(current)
            continue
        entries.append(
            ChannelEntry(
                current,
                replaces=previous_chain,
                skips=tuple(pending_skips),
                skip_range=ranges.get(index, ""),
            )
        )
        pending_skips = []
        previous_chain = current
    return Channel(name, package, tuple(entries))


@st.composite
def graph_packages(draw: st.DrawFn, name: str) -> PackageCatalog:
    """One package whose channels are valid upgrade graphs over semver-versioned bundles."""
    count = draw(st.integers(1, 6))
    versions = [f"1.{minor}.0" for minor in range(count)]
    channels = []
    for channel_name in draw(
        st.lists(st.sampled_from(CHANNEL_NAMES), min_size=1, max_size=3, unique=True)
    ):
        start = draw(st.integers(0, count - 1))
        members = versions[start:]
        skipped = set(draw(st.lists(st.integers(1, max(1, len(members) - 2)), max_size=2)))
        ranges = {}
        if len(members) > 1 and draw(st.booleans()):
            ranges[len(members) - 1] = f">=1.0.0 <{members[-1]}"
        channels.append(valid_channel(name, channel_name, members, skipped, ranges))
    channels.sort(key=lambda c: c.name)
    used = sorted({e.name for c in channels for e in c.entries})
    bundles = tuple(make_bundle(name, v) for v in versions if bundle_name(name, v) in set(used))
    deprecations: tuple[Deprecation, ...] = ()
    if draw(st.booleans()):
        deprecations = (
            Deprecation(name, (DeprecationEntry("olm.bundle", bundles[0].name, "old"),)),
        )
    return PackageCatalog(
        Package(
            name,
            default_channel=draw(st.sampled_from([c.name for c in channels])),
            icon=Icon("aGVsbG8=", "image/png"),
            description=f"{name} operator",
        ),
        tuple(channels),
        bundles,
        deprecations,
    )


@st.composite
def graph_catalogs(draw: st.DrawFn) -> list[PackageCatalog]:
    names = draw(st.lists(st.sampled_from(PACKAGE_NAMES), max_size=4, unique=True))
    return [draw(graph_packages(n)) for n in sorted(names)]


def _top_version(pkg: PackageCatalog) -> str:
    versions = [
        prop.parse_package(p).version for b in pkg.bundles for p in b.properties_of("olm.package")
    ]
    return max(versions, key=lambda v: tuple(int(x) for x in v.split(".")))


def release(pkg: PackageCatalog, channels: list[str], skip_range: bool) -> PackageCatalog:
    """The next release: a new bundle that becomes the head of ``channels``."""
    minor = int(_top_version(pkg).split(".")[1]) + 1
    version = f"1.{minor}.0"
    added = make_bundle(pkg.name, version)
    new_channels = []
    for channel in pkg.channels:
        if channel.name in channels:
            head = channel.head()
            entry = ChannelEntry(
                added.name,
                replaces=head,
                skip_range=f">=1.0.0 <{version}" if skip_range else "",
            )
            channel = replace(channel, entries=(*channel.entries, entry))
        new_channels.append(channel)
    return replace(pkg, channels=tuple(new_channels), bundles=(*pkg.bundles, added))


@st.composite
def grown_packages(draw: st.DrawFn, pkg: PackageCatalog) -> PackageCatalog:
    """A later version of ``pkg`` that only adds or changes things (nothing is removed)."""
    new = pkg
    if draw(st.booleans()):
        chosen = draw(
            st.lists(st.sampled_from([c.name for c in pkg.channels]), min_size=1, unique=True)
        )
        new = release(new, chosen, draw(st.booleans()))
    if draw(st.booleans()):  # content of an existing bundle changes (opm clears old heads)
        target = draw(st.sampled_from([b.name for b in pkg.bundles]))
        new = replace(
            new,
            bundles=tuple(
                replace(
                    b, properties=tuple(p for p in b.properties if p.type != "olm.bundle.object")
                )
                if b.name == target
                else b
                for b in new.bundles
            ),
        )
    if draw(st.booleans()) and len(pkg.channels) > 1:
        new = replace(
            new,
            package=replace(
                new.package, default_channel=draw(st.sampled_from([c.name for c in pkg.channels]))
            ),
        )
    if draw(st.booleans()):
        new = replace(new, package=replace(new.package, description="changed"))
    if draw(st.booleans()):
        messages = (DeprecationEntry("olm.package", "", "use something else"),)
        new = replace(new, deprecations=(Deprecation(pkg.name, messages),))
    return new


@st.composite
def grown_pairs(draw: st.DrawFn) -> tuple[list[PackageCatalog], list[PackageCatalog]]:
    """(old, new) where new only adds packages, channels' heads, bundles and changes content."""
    old = draw(graph_catalogs())
    new = [draw(grown_packages(pkg)) for pkg in old]
    present = {p.name for p in old}
    extra = draw(
        st.lists(
            st.sampled_from([n for n in PACKAGE_NAMES if n not in present] or ["zeta-op"]),
            max_size=2,
            unique=True,
        )
    )
    new += [draw(graph_packages(n)) for n in extra]
    return old, sorted(new, key=lambda p: p.name)


@st.composite
def any_pairs(draw: st.DrawFn) -> tuple[list[PackageCatalog], list[PackageCatalog]]:
    """(old, new) with removals too: packages, channels, entries and bundles may disappear."""
    old, new = draw(grown_pairs())
    result = []
    for pkg in new:
        if draw(st.integers(0, 5)) == 0:
            continue  # package removed
        channels = list(pkg.channels)
        if len(channels) > 1 and draw(st.booleans()):
            channels.pop(draw(st.integers(0, len(channels) - 1)))
        if draw(st.booleans()):
            index = draw(st.integers(0, len(channels) - 1))
            channel = channels[index]
            if len(channel.entries) > 1:
                dropped = draw(st.sampled_from([e.name for e in channel.entries]))
                channels[index] = replace(
                    channel, entries=tuple(e for e in channel.entries if e.name != dropped)
                )
        result.append(replace(pkg, channels=tuple(channels)))
    return old, result


# -- hand-built catalogs for example tests ----------------------------------------------------

PKG = "etcd"  # the package of the hand-built catalogs below


def bundle(name: str, version: str, *extra: prop.Property, image: str = "") -> Bundle:
    return Bundle(
        name,
        PKG,
        image or f"quay.io/x/{name}",
        prop.opm_order([prop.package(PKG, version), *extra]),
    )


def channel(name: str, *entries: ChannelEntry) -> Channel:
    return Channel(name, PKG, entries)


def package(
    channels: list[Channel], bundles: list[Bundle], default: str = "stable", **fields: Any
) -> PackageCatalog:
    return PackageCatalog(
        Package(PKG, default_channel=default, **fields),
        tuple(sorted(channels, key=lambda c: c.name)),
        tuple(sorted(bundles, key=lambda b: b.name)),
    )


def E(
    name: str, replaces: str = "", skips: tuple[str, ...] = (), skip_range: str = ""
) -> ChannelEntry:
    return ChannelEntry(name, replaces, skips, skip_range)


A, B, C, D = (bundle(f"etcd.v{v}", v) for v in ("1.0.0", "1.5.0", "2.0.0", "3.0.0"))
LINEAR = package([channel("stable", E(A.name), E(B.name, A.name), E(C.name, B.name))], [A, B, C])
