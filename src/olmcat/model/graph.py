"""Channel graphs: the one home of every algorithm over replaces / skips / skipRange edges.

A channel is a directed graph: each entry points at the entries it upgrades from (its
``replaces`` and ``skips``, and through ``skipRange`` every version the range covers). opm and
OLM ask different questions of it, so the functions are named for the question:

* :func:`heads` / :func:`single_head` — entries nothing upgrades to (a valid channel has one);
* :func:`replaces_chain` — the head's ``replaces`` chain (dangling targets included);
* :func:`opm_chain` — the chain as opm v1.72's ``validateReplacesChain`` walks it (it stops at a
  ``replaces`` target that some entry skips);
* :func:`replaces_cycles` (``replaces`` edges only, opm's rule) vs :func:`upgrade_cycles`
  (``replaces`` and ``skips``: loops an install could go round);
* :func:`upgrade_sources`, :func:`target_head`, :func:`reaching_head` — what OLM v0 can upgrade
  along, and which installs can still reach the head;
* :func:`closure` — the smallest sub-channel holding chosen entries that is still valid;
* :func:`distance_from_head` — steps along ``replaces`` (OLM prefers the nearest candidate);
* :func:`legacy_successors`, :func:`semver_successors` — what one upgrade step may pick under
  OLM's catalog edges or OLM v1's semver rule; :func:`olm_v0_choice` / :func:`olm_v1_choice` —
  which candidate each resolver takes; :func:`semver_reaching` — installs that can still reach a
  target by semver steps;
* :func:`olm_v0_walk` / :func:`olm_v1_walk` — the whole sequence of upgrades each resolver
  performs from an installed bundle, one step at a time.

The functions know a channel by its shape (:class:`Entry`, :class:`ChannelGraph`), not by the
model's dataclasses: this module sits below :mod:`olmcat.model.types`, whose ``Channel`` offers
``heads()``, ``head()`` and ``replaces_chain()`` as conveniences over it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar

from olmcat.errors import ValidationError
from olmcat.model.versions import ZERO, Version, skip_range, version_range

__all__ = [
    "ChannelGraph",
    "Entry",
    "closure",
    "distance_from_head",
    "heads",
    "legacy_successors",
    "olm_v0_choice",
    "olm_v0_walk",
    "olm_v1_choice",
    "olm_v1_walk",
    "opm_chain",
    "reaching_head",
    "replaces_chain",
    "replaces_cycles",
    "semver_reaching",
    "semver_successors",
    "single_head",
    "target_head",
    "upgrade_cycles",
    "upgrade_sources",
]


class Entry(Protocol):
    """A channel entry as the algorithms read it (:class:`olmcat.model.Entry` is one)."""

    @property
    def name(self) -> str: ...
    @property
    def replaces(self) -> str: ...
    @property
    def skips(self) -> tuple[str, ...]: ...
    @property
    def skip_range(self) -> str: ...
    def edges(self) -> tuple[str, ...]: ...


E = TypeVar("E", bound=Entry)
E_co = TypeVar("E_co", bound=Entry, covariant=True)


class ChannelGraph(Protocol[E_co]):
    """A channel as the algorithms read it (:class:`olmcat.model.Channel` is one)."""

    @property
    def name(self) -> str: ...
    @property
    def package(self) -> str: ...
    @property
    def entries(self) -> tuple[E_co, ...]: ...


def heads(entries: Iterable[Entry]) -> list[str]:
    """Names no other entry replaces or skips, sorted. A valid channel has exactly one."""
    listed = list(entries)
    incoming = {target for entry in listed for target in entry.edges()}
    return sorted(entry.name for entry in listed if entry.name not in incoming)


def single_head(channel: ChannelGraph[Entry]) -> str:
    """The head of ``channel``; a ValidationError naming the channel unless there is exactly one."""
    found = heads(channel.entries)
    if len(found) != 1:
        what = ", ".join(found) if found else "none"
        raise ValidationError(
            f"channel {channel.package}/{channel.name} must have exactly one head, found {what}; "
            "run `olmcat validate` on the catalog for details"
        )
    return found[0]


def replaces_chain(entries: Iterable[Entry], start: str) -> list[str]:
    """``start`` and then each name it replaces, in order, stopping at a cycle or at a name that
    is not an entry (that name is included: a dangling ``replaces`` target)."""
    by_name = {entry.name: entry for entry in entries}
    chain: list[str] = []
    current: str | None = start
    while current is not None and current not in chain:
        chain.append(current)
        entry = by_name.get(current)
        current = entry.replaces if entry is not None and entry.replaces else None
    return chain


def opm_chain(by_name: Mapping[str, Entry], head: str) -> list[str]:
    """The replaces chain from ``head`` as opm v1.72 walks it to find stranded bundles: it stops
    at a ``replaces`` target that any entry skips (a skipped entry is a leaf, it needs no chain
    below it), at a target outside the channel, and before closing a cycle."""
    skipped = {target for entry in by_name.values() for target in entry.skips}
    chain = [head]
    current = by_name.get(head)
    while (
        current is not None
        and current.replaces
        and current.replaces not in skipped
        and current.replaces in by_name
        and current.replaces not in chain
    ):
        chain.append(current.replaces)
        current = by_name.get(current.replaces)
    return chain


def replaces_cycles(by_name: Mapping[str, Entry]) -> list[list[str]]:
    """Cycles along ``replaces`` edges only, each once, starting at its smallest name and closed
    (``[a, b, a]``); what opm reports as a replaces cycle."""
    cycles: list[list[str]] = []
    done: set[str] = set()
    for start in sorted(by_name):
        path: list[str] = []
        position: dict[str, int] = {}
        current: str | None = start
        while current is not None and current in by_name and current not in done:
            if current in position:
                cycle = path[position[current] :]
                first = cycle.index(min(cycle))
                ordered = cycle[first:] + cycle[:first]
                cycles.append([*ordered, ordered[0]])
                break
            position[current] = len(path)
            path.append(current)
            current = by_name[current].replaces or None
        done.update(path)
    return sorted(cycles)


def upgrade_cycles(channel: ChannelGraph[Entry]) -> list[tuple[str, ...]]:
    """Groups of entries that reach each other along ``replaces`` and ``skips`` (strongly
    connected components of more than one entry, or an entry pointing at itself), sorted.
    Tarjan's algorithm, iterative so that long channels cannot exhaust the stack."""
    by_name = {e.name: e for e in channel.entries}
    succ = {name: [t for t in e.edges() if t in by_name] for name, e in by_name.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[tuple[str, ...]] = []
    counter = 0
    for root in sorted(by_name):
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = succ[node]
            if i < len(targets):
                work.append((node, i + 1))
                target = targets[i]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1 or node in succ[node]:
                    found.append(tuple(sorted(group)))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return sorted(found)


def upgrade_sources(entry: Entry, versions: Mapping[str, Version]) -> set[str]:
    """Names an install could upgrade from to ``entry`` under OLM v0: its ``replaces``, its
    ``skips`` and every name in ``versions`` that its ``skipRange`` covers (an invalid range
    covers nothing, as in OLM)."""
    sources = set(entry.edges())
    if entry.skip_range:
        covered = skip_range(entry.skip_range)
        if covered is not None:
            sources.update(name for name, v in versions.items() if covered.contains(v))
    return sources


def target_head(channel: ChannelGraph[Entry], versions: Mapping[str, Version]) -> str | None:
    """The head installs should reach: the only head, or with several the highest version (then
    the greatest name) — the others are orphans. None when every entry is on a cycle."""
    found = heads(channel.entries)
    if not found:
        return None
    return max(found, key=lambda h: (h in versions, versions.get(h, ZERO), h))


def reaching_head(channel: ChannelGraph[Entry], versions: Mapping[str, Version]) -> set[str]:
    """Names from which the :func:`target_head` of ``channel`` can be reached by upgrades.

    ``versions`` maps bundle names to versions for skipRange matching; it may hold names that
    are not entries of the channel (installed bundles that are gone): those can be reached *from*
    but the walk does not continue through them. The head itself is included.
    """
    head = target_head(channel, versions)
    if head is None:
        return set()
    by_name = {e.name: e for e in channel.entries}
    frontier = [head]
    reached = {head}
    while frontier:
        entry = by_name[frontier.pop()]
        for source in upgrade_sources(entry, versions):
            if source not in reached:
                reached.add(source)
                if source in by_name:
                    frontier.append(source)
    return reached


def closure(channel: ChannelGraph[E], wanted: Iterable[str]) -> tuple[E, ...]:
    """The entries of ``channel`` to keep so that ``wanted`` entries (names) form a valid channel
    on their own: ``wanted``, the head, and the head's replaces chain down to the deepest wanted
    entry. The whole channel when it has no single head or a wanted entry is off the chain."""
    found = heads(channel.entries)
    if len(found) != 1:
        return channel.entries
    chain = replaces_chain(channel.entries, found[0])
    by_name = {e.name: e for e in channel.entries}
    position: dict[str, int] = {}
    for index, name in enumerate(chain):
        position.setdefault(name, index)
    skipped_at: dict[str, int] = {}
    for index, name in enumerate(chain):
        entry = by_name.get(name)
        for target in entry.skips if entry is not None else ():
            skipped_at.setdefault(target, index)
    deepest = 0
    keep = {found[0]}
    for name in wanted:
        if name not in by_name:
            continue
        keep.add(name)
        if name in position:
            deepest = max(deepest, position[name])
        elif name in skipped_at:
            deepest = max(deepest, skipped_at[name])
        else:
            return channel.entries  # already stranded: no subset is valid
    keep.update(chain[: deepest + 1])
    return tuple(e for e in channel.entries if e.name in keep)


def distance_from_head(channel: ChannelGraph[Entry], head: str) -> dict[str, int]:
    """Steps from ``head`` along ``replaces`` for every entry on that chain."""
    names = {e.name for e in channel.entries}
    chain = replaces_chain(channel.entries, head)
    return {name: steps for steps, name in enumerate(chain) if name in names}


Via = Literal["replaces", "skips", "skipRange", "semver"]


def legacy_successors(
    entries: Iterable[Entry], name: str, version: Version | None
) -> list[tuple[str, Via]]:
    """Entries an install of ``name`` (at ``version``) may upgrade to in one step, by the
    catalog's edges: those that replace it, skip it, or whose skipRange (blang, as OLM v0 and
    v1 read it) holds its version. ``name`` may be empty (only a version is known) or a bundle
    that is no entry any more. Each entry once, with the first edge kind that applies."""
    found: list[tuple[str, Via]] = []
    for entry in entries:
        if entry.name == name:
            continue
        if name and entry.replaces == name:
            found.append((entry.name, "replaces"))
        elif name and name in entry.skips:
            found.append((entry.name, "skips"))
        elif version is not None and entry.skip_range:
            covered = skip_range(entry.skip_range)
            if covered is not None and covered.contains(version):
                found.append((entry.name, "skipRange"))
    return found


def semver_successors(candidates: Mapping[str, Version], version: Version) -> list[str]:
    """Names whose version an OLM v1 semver upgrade accepts from ``version``: the Masterminds
    constraint ``^V, != V`` (operator-controller's ``semverSuccessor`` behind the feature gate
    ForceSemverUpgradeConstraints, v0.7 to v1.1): same major for 1.x and later, same minor for
    0.x, no automatic step for 0.0.x."""
    text = str(version)
    constraint = version_range(f"^{text}, != {text}")
    return [name for name, v in candidates.items() if constraint.contains(v)]


def olm_v0_choice(
    candidates: Collection[str], distance: Mapping[str, int], versions: Mapping[str, Version]
) -> str:
    """The candidate OLM v0 takes: the one nearest the head along ``replaces`` (entries off the
    chain count as farthest), then the highest version, then the smallest name."""
    far = len(distance)
    return min(
        candidates,
        key=lambda n: (distance.get(n, far), _Descending(versions.get(n)), n),
    )


def olm_v1_choice(
    candidates: Collection[str],
    versions: Mapping[str, Version],
    deprecated: Collection[str] = (),
) -> str:
    """The candidate OLM v1 (operator-controller) takes: not deprecated first, then the highest
    version and release (registry+v1 bundles carry the release in the build metadata), then
    the smallest name."""
    return min(
        candidates,
        key=lambda n: (n in deprecated, _Descending(versions.get(n), release=True), n),
    )


def semver_reaching(target: str, versions: Mapping[str, Version]) -> set[str]:
    """Names (with a version in ``versions``) from which ``target`` can be reached by semver
    steps (:func:`semver_successors`, through any of ``versions``). ``target`` is included."""
    reached = {target}
    frontier = [target]
    while frontier:
        current = versions.get(frontier.pop())
        if current is None:
            continue
        for name, version in versions.items():
            if name not in reached and semver_successors({name: current}, version):
                reached.add(name)
                frontier.append(name)
    return reached


class _Descending:
    """Sort key: higher versions first, unknown versions last; with ``release`` the build
    metadata breaks ties as operator-controller's ``VersionRelease`` does."""

    __slots__ = ("key",)

    def __init__(self, version: Version | None, *, release: bool = False) -> None:
        self.key: tuple[int, Version, Version] = (
            (0, ZERO, ZERO)
            if version is None
            else (1, version.replace(build=None), _release(version) if release else ZERO)
        )

    def __lt__(self, other: _Descending) -> bool:
        return self.key > other.key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Descending) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


_RELEASE_MAX = 20


def _release(version: Version) -> Version:
    """A bundle's release as a comparable value (``0.0.1-<release>``; no release: ``0.0.0``,
    which sorts below every release). The build metadata is a release when every dot-separated
    part is a valid pre-release identifier and it is at most 20 characters (operator-registry's
    ``NewRelease``)."""
    build = version.build or ""
    if not build or len(build) > _RELEASE_MAX:
        return ZERO
    for part in build.split("."):
        if not part or (part.isdigit() and len(part) > 1 and part[0] == "0"):
            return ZERO
        if not all((c.isalnum() and c.isascii()) or c == "-" for c in part):
            return ZERO
    return Version(0, 0, 1, prerelease=build)


@dataclass(frozen=True, slots=True)
class Step:
    name: str
    via: Via


@dataclass(frozen=True, slots=True)
class Walk:
    """The upgrades a resolver performs, in order. ``end`` is the bundle it settles on (the
    start when no step is taken; "" when the start has no name and nothing upgrades it);
    ``looped`` is set when it would go round a cycle (then ``end`` is where the loop closes)."""

    start: str
    steps: tuple[Step, ...]
    end: str
    looped: bool = False

    @property
    def names(self) -> list[str]:
        return (
            [self.start, *(s.name for s in self.steps)]
            if self.start
            else [s.name for s in self.steps]
        )


def olm_v0_walk(
    channel: ChannelGraph[Entry],
    start: str,
    version: Version | None,
    versions: Mapping[str, Version],
    *,
    head: str | None = None,
) -> Walk:
    """OLM v0 (Subscription) upgrades from ``start`` (at ``version``) one step at a time until
    the channel head (or ``head``): each step takes the :func:`legacy_successors` candidate
    :func:`olm_v0_choice` prefers."""
    target = head if head is not None else target_head(channel, versions)
    distance = distance_from_head(channel, target) if target is not None else {}
    steps: list[Step] = []
    seen = {start} if start else set()
    current, current_version = start, version
    while current != target or not current:
        found = dict(legacy_successors(channel.entries, current, current_version))
        if not found:
            break
        chosen = olm_v0_choice(list(found), distance, versions)
        if chosen in seen:
            return Walk(start, tuple(steps), chosen, looped=True)
        seen.add(chosen)
        steps.append(Step(chosen, found[chosen]))
        current, current_version = chosen, versions.get(chosen)
    return Walk(start, tuple(steps), current)


def olm_v1_walk(
    channels: Sequence[ChannelGraph[Entry]],
    start: str,
    version: Version | None,
    versions: Mapping[str, Version],
    *,
    semver: bool = False,
    self_certified: bool = False,
    deprecated: Collection[str] = (),
    allowed: Callable[[str], bool] | None = None,
) -> Walk:
    """OLM v1 (operator-controller) resolutions from ``start`` until nothing newer is picked.

    Candidates are the bundles of ``channels`` that ``allowed`` accepts (a ClusterExtension's
    version range) and that succeed the installed one -- by catalog edges
    (:func:`legacy_successors`, in any of the channels), by :func:`semver_successors` with
    ``semver``, or any bundle with ``self_certified`` (upgradeConstraintPolicy: SelfCertified) --
    or have exactly its version and release. :func:`olm_v1_choice` picks; the walk ends when the
    pick has the installed version and release (nothing to do) or there is no candidate.
    """
    pool = {e.name for c in channels for e in c.entries if e.name in versions}
    if allowed is not None:
        pool = {name for name in pool if allowed(name)}
    pool_versions = {name: versions[name] for name in pool}
    steps: list[Step] = []
    seen = {start} if start else set()
    current, current_version = start, version
    while True:
        found: dict[str, Via] = {}
        if self_certified:
            found = {name: "semver" for name in pool}
        elif semver:
            if current_version is not None:
                found = {n: "semver" for n in semver_successors(pool_versions, current_version)}
        else:
            for channel in channels:
                for name, via in legacy_successors(channel.entries, current, current_version):
                    if name in pool:
                        found.setdefault(name, via)
        same = {
            n for n in pool if current_version is not None and _same(versions[n], current_version)
        }
        candidates = set(found) | same
        if not candidates:
            break
        chosen = olm_v1_choice(candidates, versions, deprecated)
        if chosen in same or chosen == current:
            break
        if chosen in seen:
            return Walk(start, tuple(steps), chosen, looped=True)
        seen.add(chosen)
        steps.append(Step(chosen, found[chosen]))
        current, current_version = chosen, versions.get(chosen)
    return Walk(start, tuple(steps), current)


def _same(left: Version, right: Version) -> bool:
    """Equal version and release (operator-controller's ``ExactVersionRelease``)."""
    return left.compare(right) == 0 and _release(left) == _release(right)
