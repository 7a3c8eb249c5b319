"""Hypothesis strategies for ``olmcat filter``: packages whose channels have real upgrade graphs.

:func:`valid_packages` builds what publishers build and opm accepts: a ``replaces`` chain from the
head (sometimes jumping over versions), side branches that replace older entries, entries that
are only reachable because a newer entry ``skips`` them, skips of bundles that are not in the
channel, a tail that replaces a bundle that is gone, skipRanges, several channels sharing
bundles, deprecations. Every edge goes from a newer to an older version, so each channel has
exactly one head, no cycle and nothing stranded -- :func:`opm_channel_problems` checks that
with the newest opm's rules.

:func:`arbitrary_packages` drops the rules: any entry may replace or skip any other, cycles
included; filter must still produce one head and nothing stranded.
"""

from __future__ import annotations

from hypothesis import strategies as st

from olmcat.go.semver import Version, parse_version_tolerant
from olmcat.model import (
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    DeprecationEntry,
    Package,
    PackageCatalog,
    RelatedImage,
)
from olmcat.model import property as prop

PACKAGE = "demo"


def bundle_name(version: str) -> str:
    return f"{PACKAGE}.v{version}"


versions = st.lists(
    st.tuples(
        st.integers(0, 3), st.integers(0, 4), st.integers(0, 4), st.sampled_from(["", "-rc.1"])
    ),
    min_size=1,
    max_size=12,
    unique_by=lambda t: t[:3],
).map(lambda items: sorted(f"{a}.{b}.{c}{pre}" for a, b, c, pre in items))


def _sort_key(version: str) -> tuple[int, ...]:
    core, _, pre = version.partition("-")
    return (*map(int, core.split(".")), 0 if pre else 1)


def _bundles(all_versions: list[str], draw: st.DrawFn) -> tuple[Bundle, ...]:
    bundles = []
    for version in all_versions:
        name = bundle_name(version)
        props = [prop.package(PACKAGE, version)]
        if draw(st.integers(0, 9)) == 0:
            props.append(prop.Property(prop.TYPE_DEPRECATED, "{}"))
        related = [RelatedImage("operator", f"quay.io/demo/operator:v{version}")]
        if draw(st.booleans()):
            related.append(RelatedImage("", f"quay.io/demo/bundle:v{version}"))
        bundles.append(
            Bundle(
                name,
                PACKAGE,
                f"quay.io/demo/bundle:v{version}",
                tuple(props),
                tuple(related),
            )
        )
    return tuple(bundles)


@st.composite
def valid_channel(draw: st.DrawFn, channel: str, all_versions: list[str]) -> Channel:
    """A channel opm accepts over a subset of ``all_versions`` (edges point to older versions)."""
    members = sorted(
        draw(st.sets(st.sampled_from(all_versions), min_size=1)), key=_sort_key, reverse=True
    )
    names = [bundle_name(v) for v in members]  # newest first
    on_chain = {0}
    index = 0
    replaces: dict[str, str] = {}
    while index < len(names) - 1:
        # The chain usually steps to the next older entry, sometimes jumps over some.
        step = draw(st.sampled_from([1, 1, 1, 2, 3]))
        target = min(index + step, len(names) - 1)
        replaces[names[index]] = names[target]
        on_chain.add(target)
        index = target
    if draw(st.booleans()):
        replaces[names[index]] = f"{PACKAGE}.v0.0.0-gone"  # the tail replaces a missing bundle
    skips: dict[str, list[str]] = {name: [] for name in names}
    chain_positions = sorted(on_chain)
    off_chain = [p for p in range(len(names)) if p not in on_chain]
    for position in off_chain:
        # Off the chain: an entry of the chain that is newer must skip it (newer opm counts
        # only skips from the chain); it may itself branch off to an older entry.
        skipper = draw(st.sampled_from([p for p in chain_positions if p < position]))
        skips[names[skipper]].append(names[position])
        if position + 1 < len(names) and draw(st.booleans()):
            replaces[names[position]] = names[draw(st.integers(position + 1, len(names) - 1))]
    for position, name in enumerate(names):
        # More skips, of older entries off the chain only: skipping a chain entry would end the
        # chain there (newer opm treats skipped entries as leaves).
        older = [names[p] for p in off_chain if p > position]
        if older and draw(st.integers(0, 3)) == 0:
            skips[name].append(draw(st.sampled_from(older)))
        if draw(st.integers(0, 5)) == 0:
            skips[name].append(f"{PACKAGE}.v9.9.9-elsewhere")  # skips a bundle not in the channel
    entries = []
    for position, name in enumerate(names):
        skip_range = ""
        if position + 1 < len(members) and draw(st.integers(0, 3)) == 0:
            skip_range = f">={members[-1].split('-')[0]} <{members[position].split('-')[0]}"
        entries.append(
            ChannelEntry(
                name, replaces.get(name, ""), tuple(dict.fromkeys(skips[name])), skip_range
            )
        )
    # Entry order in a file is arbitrary; opm does not care.
    return Channel(channel, PACKAGE, tuple(draw(st.permutations(entries))))


@st.composite
def arbitrary_channel(draw: st.DrawFn, channel: str, all_versions: list[str]) -> Channel:
    """Any edges at all, cycles and self-edges included."""
    members = sorted(draw(st.sets(st.sampled_from(all_versions), min_size=1)), key=_sort_key)
    names = [bundle_name(v) for v in members]
    targets = st.sampled_from([*names, "", f"{PACKAGE}.v0.0.0-gone"])
    entries = tuple(
        ChannelEntry(
            name,
            draw(targets),
            tuple(dict.fromkeys(t for t in draw(st.lists(targets, max_size=3)) if t)),
        )
        for name in names
    )
    return Channel(channel, PACKAGE, entries)


def _package(draw: st.DrawFn, channel_strategy: object) -> PackageCatalog:
    all_versions = draw(versions)
    channel_names = sorted(
        draw(st.sets(st.sampled_from(["alpha", "beta", "stable", "fast"]), min_size=1))
    )
    channels = tuple(
        draw(channel_strategy(name, all_versions))  # type: ignore[operator]
        for name in channel_names
    )
    used = {e.name for c in channels for e in c.entries}
    bundles = tuple(b for b in _bundles(all_versions, draw) if b.name in used)
    deprecations: tuple[Deprecation, ...] = ()
    entries = []
    if draw(st.integers(0, 7)) == 0:
        entries.append(DeprecationEntry("olm.package", "", "the package is retired"))
    for channel in channels:
        if draw(st.integers(0, 4)) == 0:
            entries.append(DeprecationEntry("olm.channel", channel.name, "use another channel"))
    for bundle in bundles:
        if draw(st.integers(0, 6)) == 0:
            entries.append(DeprecationEntry("olm.bundle", bundle.name, "has a CVE"))
    if entries:
        deprecations = (Deprecation(PACKAGE, tuple(entries)),)
    return PackageCatalog(
        Package(PACKAGE, draw(st.sampled_from(channel_names))),
        channels,
        bundles,
        deprecations,
    )


@st.composite
def valid_packages(draw: st.DrawFn) -> PackageCatalog:
    return _package(draw, valid_channel)


@st.composite
def arbitrary_packages(draw: st.DrawFn) -> PackageCatalog:
    return _package(draw, arbitrary_channel)


def opm_channel_problems(channel: Channel) -> list[str]:
    """opm's ``Channel.Validate`` graph rules, as the newest operator-registry applies them
    (alpha/model ``newGraph``, ``validateNoCycles``, ``validateNoStranded``): what is wrong.

    Non-empty; no cycle (checked here over every replaces and skips edge, a little stricter than
    opm); exactly one head (an entry nothing replaces or skips); walking ``replaces`` from the
    head -- stopping at an entry skipped from the walk so far -- every node is reached or skipped
    by a reached entry. A ``replaces`` target outside the channel is a node too (so only the
    chain's end may name one); a ``skips`` name outside the channel is not. These rules imply the
    older opm's (full replaces chain, skipped by any entry).
    """
    if not channel.entries:
        return ["channel must contain at least one bundle"]
    by_name = {e.name: e for e in channel.entries}
    nodes = set(by_name) | {e.replaces for e in channel.entries if e.replaces}
    cycle = _find_cycle(by_name)
    if cycle:
        return [f"cycle: {cycle}"]
    heads = channel.heads()
    if len(heads) != 1:
        return [f"{len(heads)} heads: {heads}"]
    chain: set[str] = set()
    skipped: set[str] = set()
    current: str = heads[0]
    while current and current not in skipped and current not in chain:
        chain.add(current)
        entry = by_name.get(current)
        if entry is None:
            break  # a replaces target outside the channel ends the chain
        skipped |= {s for s in entry.skips if s in by_name}
        current = entry.replaces
    stranded = sorted(nodes - chain - skipped)
    return [f"stranded: {stranded}"] if stranded else []


def _find_cycle(by_name: dict[str, ChannelEntry]) -> list[str]:
    state: dict[str, int] = {}

    def visit(name: str, path: list[str]) -> list[str]:
        state[name] = 1
        for target in by_name[name].edges():
            if target not in by_name:
                continue
            if state.get(target) == 1:
                return [*path, name, target]
            if target not in state:
                found = visit(target, [*path, name])
                if found:
                    return found
        state[name] = 2
        return []

    for name in by_name:
        if name not in state:
            found = visit(name, [])
            if found:
                return found
    return []


def reachable(channel: Channel, start: str) -> set[str]:
    """Entries ``start`` upgrades from, directly or not (following replaces and skips)."""
    by_name = {e.name: e for e in channel.entries}
    seen: set[str] = set()
    stack = [start]
    while stack:
        entry = by_name.get(stack.pop())
        for target in entry.edges() if entry else ():
            if target in by_name and target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


# -- hand-written channels ---------------------------------------------------------------------


def chain(*versions: str, package: str = "p") -> tuple[ChannelEntry, ...]:
    """A linear replaces chain, oldest first: ``chain("1", "2")`` is p.v2 replaces p.v1."""
    entries = []
    previous = ""
    for version in versions:
        entries.append(ChannelEntry(f"{package}.v{version}", previous))
        previous = f"{package}.v{version}"
    return tuple(entries)


def versions_of(channel: Channel) -> dict[str, Version | None]:
    out: dict[str, Version | None] = {}
    for entry in channel.entries:
        out[entry.name] = parse_version_tolerant(entry.name.split(".v", 1)[1])
    return out


def entries(channel: Channel) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {e.name: (e.replaces, e.skips) for e in channel.entries}
