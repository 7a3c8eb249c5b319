"""The upgrade graph ``opm registry add`` / ``opm index add`` builds for a package, in each mode.

The legacy index stored a package's graph as ``channel_entry`` rows (:mod:`olmcat.readers.legacy`).
``opm registry add --mode M`` grows those rows bundle by bundle, and a file-based catalog is
``opm migrate`` of the result. This module keeps one package's share of those tables in memory
(:class:`PackageIndex`) and changes it exactly as each add does, refusals included, so that the
channels come out as ``opm migrate`` of an index built that way:

``replaces``
    One call adds all bundles (``loadManifestsReplaces``): each channel's head is the highest
    version naming it, the default channel comes from the highest version that names one, and the
    rows are laid out from the heads along the CSVs' ``replaces`` and ``skips``. The call is
    refused when a bundle it adds is not reachable from the head of each of its channels ("add
    prunes bundle"), a ``replaces`` target does not exist, or heads or the default are ambiguous.
``semver`` / ``semver-skippatch``
    One call per bundle (``loadManifestsSemver``): the graph is read back from the rows, the bundle
    is inserted between the versions around it in each of its channels (``replaces``/``skips`` of
    the CSV are ignored), and the rows of every channel are rewritten from the heads. With
    skippatch, a bundle also replaces the lower patch versions of its minor version, which leave
    the graph (and make later adds fail opm's depth check, as they do in opm).
``replaces-then-semver``
    What the oracle's ``bundle-index`` does for community-operators packages: ``replaces``; if that
    call is refused, each bundle in ``semver`` mode.

A refused call leaves the rows as they were (``bundle-index`` restores the database). Bundles are
added in ascending version (:func:`add_order`). Cross-package checks of opm (a bundle name used by
two packages) are not made: each package is built on its own.

Where opm iterates a Go map (channels, a node's edges), the result can depend on that order in
opm; here it is name order, which only matters for graphs opm itself would build differently from
run to run.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePath
from typing import Literal

from olmcat.errors import InputError, ValidationError
from olmcat.go.semver import Version
from olmcat.go.semver import parse_version as _parse_version
from olmcat.model import Channel
from olmcat.readers import legacy
from olmcat.readers.legacy import EntryRow

Mode = Literal["replaces", "semver", "semver-skippatch", "replaces-then-semver"]
MODES: tuple[Mode, ...] = ("replaces", "semver", "semver-skippatch", "replaces-then-semver")

# opm's stand-in for a CSV without spec.version when it picks channel heads.
MISSING_VERSION = "0.0.0-z"
START_DEPTH = 0
SUBSTITUTES_FOR_REFUSAL = (
    "SubstitutesFor is an alpha-only feature. You must enable alpha features with the flag "
    "--enable-alpha in order to use this feature."
)


# Semver modes compare every stored version with every bundle added: one parse per text (a
# Version is immutable; an invalid text raises again each time).
parse_version = functools.lru_cache(maxsize=1 << 16)(_parse_version)


@dataclass(frozen=True, slots=True)
class IndexBundle:
    """What ``opm registry add`` reads of a bundle to place it in the graph."""

    name: str
    package: str
    version: str  # CSV spec.version as written; "" when absent
    path: str  # the bundle image (any key unique to the bundle when there is none)
    channels: tuple[str, ...]  # the channels annotation split on ",", untrimmed
    default_channel: str = ""
    replaces: str = ""
    skips: tuple[str, ...] = ()
    skip_range: str = ""
    substitutes_for: str = ""
    where: str = ""  # the bundle directory, for messages

    def shown(self) -> str:
        return f"{self.where}: bundle {self.name}" if self.where else f"bundle {self.name}"


class AddRefused(ValidationError):
    """``opm registry add`` refused a call; the index is unchanged. ``reasons`` are opm's errors."""

    def __init__(self, subject: str, reasons: Sequence[str]) -> None:
        self.reasons = tuple(reasons)
        super().__init__(f"{subject}: {'; '.join(self.reasons)}")


class _NotInIndex(Exception):
    """The graph loader's ErrPackageNotInDatabase."""


@dataclass(slots=True)
class _ChannelGraph:
    head: str
    nodes: dict[str, set[str]]  # bundle -> the names it replaces (names of no node: synthetic)


@dataclass(slots=True)
class _Graph:
    default_channel: str
    channels: dict[str, _ChannelGraph] = field(default_factory=dict)


# -- versions -----------------------------------------------------------------------------------


def _version(text: str, what: str) -> Version:
    try:
        return parse_version(text)
    except InputError as exc:
        raise ValidationError(f"{what}: {exc}") from None


def build_id_compare(left: Version, right: Version) -> int:
    """opm's ``BuildIdCompare``: semver order, then build ids compared as pre-releases (a
    version with build ids sorts after the same version without). ValueError if a build id is
    not comparable that way."""
    order = int(left.compare(right))
    if order:
        return order

    def as_prerelease(v: Version) -> Version:
        if not v.build:
            return Version(0, 0, 0)
        try:
            return parse_version(f"1.0.0-{v.build}")
        except InputError as exc:
            raise ValueError(f"build id of {v} is not comparable: {exc}") from None

    return int(as_prerelease(left).compare(as_prerelease(right)))


_ORDER_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$")


def _identifiers(text: str) -> tuple[tuple[int, int, str], ...]:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in text.split("."))


def add_order(version: str, fallback: str = "") -> tuple[object, ...]:
    """Sort key of the order bundles are added in: ascending semver precedence (a leading ``v``
    tolerated), build ids ordered as opm orders them (none first, then as pre-releases); what is
    no version sorts last, by text. ``fallback`` (the directory name) stands in for a missing
    version. This is the order the oracle's ``bundle-index`` adds a package's bundles in."""
    text = version or fallback
    match = _ORDER_VERSION.match(text)
    if not match:
        return (1, text)
    pre, build = match.group(4), match.group(5)
    return (
        0,
        tuple(int(match.group(i)) for i in (1, 2, 3)),
        (1,) if pre is None else (0, _identifiers(pre)),
        (0,) if build is None else (1, _identifiers(build)),
    )


# -- picking heads (SemverPackageManifest) ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Candidate:
    name: str
    version: Version
    count: int  # bundles tied at this version (a contested head)


@dataclass(frozen=True, slots=True)
class _Manifest:
    default_channel: str
    heads: dict[str, str]


def _package_manifest(package: str, bundles: Sequence[IndexBundle]) -> _Manifest:
    """Channel heads and default channel as ``SemverPackageManifest`` picks them, for bundles in
    the order given. The loader's quirks are kept: a tie carries its count over to the bundle's
    later channels and to the package maximum, and the maximum starts at 0.0.0, so a bundle
    below it (no version: 0.0.0-z) never sets the default channel."""
    heads: dict[str, _Candidate] = {}
    highest = _Candidate("", Version(0, 0, 0), 0)
    highest_where = ""
    default = ""
    for bundle in bundles:
        version = _version(bundle.version or MISSING_VERSION, bundle.shown())
        count = 1

        def compare(left: Version, right: Version, bundle: IndexBundle = bundle) -> int:
            try:
                return build_id_compare(left, right)
            except ValueError as exc:
                raise ValidationError(f"{bundle.shown()}: {exc}") from None

        for channel in bundle.channels:
            head = heads.get(channel)
            if head is not None:
                order = compare(version, head.version)
                if order < 0:
                    continue
                if order == 0:
                    count += head.count
            heads[channel] = _Candidate(bundle.name, version, count)
        order = compare(version, highest.version)
        if order < 0:
            continue
        if order == 0:
            count += highest.count
        highest = _Candidate(bundle.name, version, count)
        if bundle.default_channel:
            default, highest_where = bundle.default_channel, bundle.where
    if highest.count > 1:
        raise ValidationError(
            f"package {package!r}: more than one bundle has the highest version {highest.version}"
        )
    for channel, head in sorted(heads.items()):
        if head.count > 1:
            raise ValidationError(
                f"package {package!r}: more than one bundle could head channel {channel!r} "
                f"(version {head.version})"
            )
    channels = ", ".join(sorted(heads)) or "none"
    if not ((len(heads) == 1 and not default) or default in heads):
        if default:
            where = f" (annotated in {highest_where})" if highest_where else ""
            raise ValidationError(
                f"package {package!r}: default channel {default!r}{where} is not a channel of "
                f"any bundle ({channels})"
            )
        raise ValidationError(
            f"package {package!r}: no bundle annotation names a default channel and there are "
            f"several channels ({channels})"
        )
    if len(heads) == 1:
        default = next(iter(heads))  # a lone channel is the default, whatever was annotated
    return _Manifest(default, {c: h.name for c, h in sorted(heads.items())})


# -- the index ----------------------------------------------------------------------------------


class PackageIndex:
    """One package's rows of a legacy index database, changed as ``opm registry add`` changes
    them. Start empty (a new package) or from an existing catalog (:meth:`from_channels`)."""

    def __init__(self, package: str) -> None:
        self.package = package
        self.default_channel: str | None = None  # None: no package row yet
        self.bundles: dict[str, IndexBundle] = {}  # operatorbundle rows, in insertion order
        self.heads: dict[str, str] = {}  # channel rows: channel -> head bundle
        self.rows: list[EntryRow] = []  # channel_entry rows
        self._next_id = 1

    # -- state ------------------------------------------------------------------------------

    def _clone(self) -> PackageIndex:
        other = PackageIndex(self.package)
        other.default_channel = self.default_channel
        other.bundles = dict(self.bundles)
        other.heads = dict(self.heads)
        other.rows = [replace(row) for row in self.rows]
        other._next_id = self._next_id
        return other

    def _take(self, other: PackageIndex) -> None:
        self.default_channel = other.default_channel
        self.bundles = other.bundles
        self.heads = other.heads
        self.rows = other.rows
        self._next_id = other._next_id

    def _row(self, channel: str, bundle: str, depth: int) -> EntryRow:
        row = EntryRow(self._next_id, channel, bundle, None, depth)
        self._next_id += 1
        self.rows.append(row)
        return row

    def _members(self) -> list[str]:
        """Bundles (operatorbundle rows) that have rows in this package, in insertion order."""
        named = {row.bundle for row in self.rows}
        return [name for name in self.bundles if name in named]

    # -- results ----------------------------------------------------------------------------

    def channels(self) -> tuple[Channel, ...]:
        """The channels ``opm migrate`` makes of the rows, by name; channels without bundles are
        left out, as opm leaves them out."""
        members = set(self._members())
        tip = min((row.depth for row in self.rows if row.depth is not None), default=None)
        per_channel = legacy.channel_entries(
            self.rows,
            tip,
            members.__contains__,
            lambda name: self.bundles[name].skip_range,
        )
        return tuple(
            Channel(name=name, package=self.package, entries=tuple(per_channel[name]))
            for name in sorted(set(self.heads) | set(per_channel))
            if per_channel.get(name)
        )

    def members(self) -> list[str]:
        """Names of the bundles in some channel, sorted."""
        return sorted({e.name for c in self.channels() for e in c.entries})

    # -- checks shared by every mode (globalSanityCheck, checkForBundles) -------------------

    def _sanity_check(self, bundles: Sequence[IndexBundle]) -> None:
        errors: list[str] = []
        adding = {b.path for b in bundles}
        stored = [self.bundles[name].path for name in self._members()]
        for bundle in bundles:
            errors += [f"Bundle {bundle.path} already exists" for p in stored if p in adding]
            for channel in sorted(self.heads):
                if any(
                    row.channel == channel and row.bundle == bundle.name
                    for row in self.rows
                    if row.bundle in self.bundles
                ):
                    errors.append(
                        f"Bundle already added that provides package and csv ({bundle.name})"
                    )
                    break
        if errors:
            raise AddRefused(f"package {self.package!r}", errors)

    def _insert(self, bundle: IndexBundle) -> str:
        """Add the operatorbundle row; the loader's error, or ""."""
        if bundle.substitutes_for:
            return SUBSTITUTES_FOR_REFUSAL
        if bundle.name in self.bundles:
            return (
                f"failed to add bundle {bundle.name!r}: UNIQUE constraint failed: "
                "operatorbundle.name"
            )
        self.bundles[bundle.name] = bundle
        return ""

    def _graph(self) -> _Graph:
        """The graph loader's view of the rows (``graphFromEntries``)."""
        if self.default_channel is None:
            raise _NotInIndex
        existing = set(self._members())
        by_id = {row.entry_id: row for row in self.rows}
        nodes: dict[str, dict[str, set[str]]] = {}
        candidates: dict[str, set[str]] = {}
        for row in self.rows:
            nodes.setdefault(row.channel, {})
            if row.bundle not in existing:
                continue  # a synthetic row: no bundle behind it
            nodes[row.channel][row.bundle] = set()
            candidates.setdefault(row.channel, set()).add(row.bundle)
        for row in self.rows:
            target = by_id.get(row.replaces) if row.replaces is not None else None
            if target is None or not target.bundle:
                continue
            nodes[row.channel].setdefault(row.bundle, set()).add(target.bundle)
            candidates.get(row.channel, set()).discard(target.bundle)
        graph = _Graph(self.default_channel)
        for channel, heads in sorted(candidates.items()):
            if not heads:
                raise AddRefused(
                    f"package {self.package!r}", [f"no channel head found for {channel}"]
                )
            if len(heads) > 1:
                raise AddRefused(
                    f"package {self.package!r}",
                    [
                        f"multiple candidate channel heads found for {channel}: "
                        + ", ".join(sorted(heads))
                    ],
                )
            graph.channels[channel] = _ChannelGraph(next(iter(heads)), nodes[channel])
        return graph

    def _check_reachable(self, bundles: Sequence[IndexBundle]) -> None:
        """``checkForBundles``: every bundle added must be reachable from the head of each of its
        channels (replaces mode prunes what is not; opm refuses that)."""
        try:
            graph = self._graph()
        except _NotInIndex:
            graph = _Graph("")
        except AddRefused as refused:
            raise AddRefused(
                f"package {self.package!r}",
                [f"unable to verify added bundles: {r}" for r in refused.reasons],
            ) from None
        errors = []
        for bundle in bundles:
            for channel in bundle.channels:
                cg = graph.channels.get(channel, _ChannelGraph("", {}))
                seen: set[str] = set()
                frontier = [cg.head]
                while frontier and bundle.name not in seen:
                    node = frontier.pop()
                    if node in seen or node not in cg.nodes:
                        continue
                    seen.add(node)
                    frontier.extend(sorted(cg.nodes[node]))
                if bundle.name in seen:
                    continue
                skips = ", ".join(sorted(cg.nodes.get(cg.head, ())))
                errors.append(
                    f"add prunes bundle {bundle.name} ({bundle.path}) from package "
                    f"{self.package}, channel {channel}: this may be due to incorrect channel "
                    f"head ({cg.head}, skips/replaces [{skips}])"
                )
        if errors:
            raise AddRefused(f"package {self.package!r}", errors)

    # -- replaces mode ----------------------------------------------------------------------

    def add_replaces(self, bundles: Sequence[IndexBundle]) -> None:
        """One ``opm registry add --mode replaces`` call with these bundles (AddRefused if opm
        refuses it; the index is then unchanged)."""
        subject = f"package {self.package!r}"
        if not bundles:
            return
        trial = self._clone()
        trial._sanity_check(bundles)
        errors: list[str] = []
        added = []
        for bundle in bundles:
            problem = trial._insert(bundle)
            if problem:
                errors.append(f"{bundle.shown()}: {problem}")
            else:
                added.append(bundle)
        if added:
            try:
                manifest = _package_manifest(self.package, [*trial._stored_bundles(), *added])
            except ValidationError as exc:
                errors.append(str(exc))
            else:
                errors += trial._lay_out_replaces(manifest)
        if errors:
            raise AddRefused(subject, errors)
        trial._check_reachable(bundles)
        self._take(trial)

    def _stored_bundles(self) -> list[IndexBundle]:
        """Bundles already in the package as ``ListRegistryBundles`` returns them: their channels
        are those their rows name and their default channel the package's."""
        out = []
        for name in self._members():
            channels = tuple(dict.fromkeys(r.channel for r in self.rows if r.bundle == name))
            out.append(
                replace(
                    self.bundles[name],
                    channels=channels,
                    default_channel=self.default_channel or "",
                )
            )
        return out

    def _lay_out_replaces(self, manifest: _Manifest) -> list[str]:
        """``AddPackageChannels``: the package's rows rebuilt from the heads along the stored
        bundles' replaces and skips. Errors leave the rows as they were."""
        builder = legacy.ChannelRowBuilder(
            {n: legacy.GraphBundle(n, b.replaces, b.skips) for n, b in self.bundles.items()}
        )
        errors = []
        for channel, head in manifest.heads.items():
            errors += [f"package {self.package!r}: {e}" for e in builder.add_channel(channel, head)]
        if errors:
            return errors
        self.rows = builder.rows
        self._next_id = len(builder.rows) + 1
        self.heads = dict(manifest.heads)
        self.default_channel = manifest.default_channel
        return []

    # -- semver modes -----------------------------------------------------------------------

    def add_semver(self, bundle: IndexBundle, *, skippatch: bool = False) -> None:
        """One ``opm registry add --mode semver`` (or ``semver-skippatch``) call with one bundle
        (AddRefused if opm refuses it; the index is then unchanged)."""
        trial = self._clone()
        trial._sanity_check([bundle])
        try:
            graph = trial._graph()
        except _NotInIndex:
            graph = _Graph("")
        trial._insert_by_version(graph, bundle, skippatch)
        problem = trial._insert(bundle)
        if not problem:
            errors = trial._lay_out_graph(graph)
            problem = "; ".join(errors)
        if problem:
            raise AddRefused(
                bundle.shown(), [f"error loading bundle {bundle.name} into db: {problem}"]
            )
        trial._check_reachable([bundle])
        self._take(trial)

    def _stored_version(self, name: str) -> Version:
        stored = self.bundles.get(name)
        text = stored.version if stored is not None else ""
        try:
            return parse_version(text)
        except InputError:
            path = stored.path if stored is not None else ""
            raise AddRefused(
                f"package {self.package!r}",
                [f"Unable to parse existing bundle version stored in index {name} {text} {path}"],
            ) from None

    def _insert_by_version(self, graph: _Graph, bundle: IndexBundle, skippatch: bool) -> None:
        """``BundleGraphLoader.AddBundleToGraph``: the bundle goes between the versions around it
        in each of its channels."""
        try:
            version = parse_version(bundle.version)
        except InputError:
            raise AddRefused(
                bundle.shown(), [f"Bundle version {bundle.version} is not valid"]
            ) from None
        if bundle.default_channel:
            graph.default_channel = bundle.default_channel
        if not graph.default_channel:
            # SelectDefaultChannel: the first of the annotated channels by name.
            guess = sorted(bundle.channels)[0] if bundle.channels else ""
            if not guess:
                raise AddRefused(
                    bundle.shown(), ["Default channel is missing and can't be inferred"]
                )
            graph.default_channel = guess
        for channel in bundle.channels:
            cg = graph.channels.get(channel)
            if cg is None:
                graph.channels[channel] = _ChannelGraph(bundle.name, {bundle.name: set()})
                continue
            ahead: tuple[str, Version] | None = None
            behind: tuple[str, Version] | None = None
            replaced: set[str] = set()
            skipped: list[str] = []
            for node in sorted(cg.nodes):
                node_version = self._stored_version(node)
                order = int(node_version.compare(version))
                if order == 0:
                    raise AddRefused(
                        bundle.shown(), [f"Bundle version {bundle.version} already added to index"]
                    )
                if order > 0 and (ahead is None or node_version.compare(ahead[1]) < 0):
                    ahead = (node, node_version)
                if order < 0 and (behind is None or node_version.compare(behind[1]) > 0):
                    behind = (node, node_version)
                if skippatch and (node_version.major, node_version.minor) == (
                    version.major,
                    version.minor,
                ):
                    # isSkipPatchCandidate: same major.minor, lower (order < 0 here).
                    skipped.append(node)
                    replaced.add(node)
            if behind is not None:
                replaced.add(behind[0])
            if ahead is not None:
                cg.nodes[ahead[0]] = {bundle.name}
            else:
                cg.head = bundle.name
            for node in skipped:
                del cg.nodes[node]
            cg.nodes[bundle.name] = replaced

    def _lay_out_graph(self, graph: _Graph) -> list[str]:
        """``AddPackageChannelsFromGraph``: rewrite the rows of every channel of the graph from
        its head; the loader's errors (the call is then refused)."""
        errors = []
        for channel, cg in sorted(graph.channels.items()):
            self.heads[channel] = cg.head
        if graph.default_channel in self.heads:
            self.default_channel = graph.default_channel
        else:
            name = graph.default_channel
            errors.append(
                f"the default channel ({name}) does not exist: failed to set default channel "
                f"({name}) for package ({self.package}): FOREIGN KEY constraint failed"
            )
        for channel, cg in sorted(graph.channels.items()):
            self.rows = [row for row in self.rows if row.channel != channel]
            current, depth = cg.head, START_DEPTH
            previous: EntryRow | None = None
            visited: set[str] = set()
            while True:
                row = self._row(channel, current, depth)
                if previous is not None:
                    previous.replaces = row.entry_id
                visited.add(current)
                targets = sorted(cg.nodes.get(current, ()))
                following = [t for t in targets if t in cg.nodes]
                synthetic_depth = depth + 1
                for target in targets:
                    if target in cg.nodes:
                        continue
                    skipped = self._row(channel, target, synthetic_depth)
                    self._row(channel, current, synthetic_depth).replaces = skipped.entry_id
                    synthetic_depth += 1
                if not following:
                    expected = len(cg.nodes) + START_DEPTH - 1
                    if expected != depth:
                        errors.append(
                            "Invalid graph: some (non-bottom) nodes defined in the graph were not "
                            f"mentioned as replacements of any node ({expected} != {depth})"
                        )
                    break
                # opm follows whichever real node its map yields last; and it never stops on a
                # cycle (it would not terminate), so neither is reproduced: the last by name, and
                # a cycle is refused.
                current, previous, depth = following[-1], row, depth + 1
                if current in visited:
                    errors.append(f"cycle in channel {channel}: {current} is reached twice")
                    break
        return errors

    # -- starting from an existing catalog --------------------------------------------------

    @classmethod
    def from_channels(
        cls,
        package: str,
        default_channel: str,
        channels: Iterable[Channel],
        bundles: Iterable[IndexBundle],
    ) -> PackageIndex:
        """The rows an index holding this catalog package has (for adding to it): each channel
        laid out from its head along its entries' replaces and skips, as the loader lays them
        out. ``bundles`` are the package's bundles (their channels and edges are taken from the
        channels here)."""
        index = cls(package)
        known = {b.name: b for b in bundles}
        for channel in channels:
            head = channel.head()
            edges = {
                e.name: legacy.GraphBundle(e.name, e.replaces, e.skips) for e in channel.entries
            }
            for entry in channel.entries:  # a dangling replaces (a truncated graph) ends a chain
                if entry.replaces and entry.replaces not in edges:
                    edges[entry.replaces] = legacy.GraphBundle(entry.replaces, "", ())
            builder = legacy.ChannelRowBuilder(edges)
            errors = builder.add_channel(channel.name, head)
            if errors:
                raise ValidationError(f"package {package!r}: {errors[0]}")
            offset = index._next_id - 1
            for row in builder.rows:
                index.rows.append(
                    EntryRow(
                        row.entry_id + offset,
                        row.channel,
                        row.bundle,
                        None if row.replaces is None else row.replaces + offset,
                        row.depth,
                    )
                )
            index._next_id += len(builder.rows)
            index.heads[channel.name] = head
            for entry in channel.entries:
                stored = known.get(entry.name)
                if stored is not None and entry.name not in index.bundles:
                    index.bundles[entry.name] = replace(
                        stored,
                        replaces=entry.replaces,
                        skips=entry.skips,
                        skip_range=entry.skip_range,
                    )
        index.default_channel = default_channel
        return index


# -- building a package -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Refusal:
    """A bundle ``opm registry add`` refused (semver modes add bundles one by one)."""

    bundle: IndexBundle
    reason: str


@dataclass(slots=True)
class BuildResult:
    index: PackageIndex
    mode: Mode  # the mode the package was built in (after a fallback: semver)
    refused: list[Refusal] = field(default_factory=list)
    fallback: str = ""  # why replaces mode was refused, when replaces-then-semver fell back


def _add_order(bundle: IndexBundle) -> tuple[object, ...]:
    dirname = PurePath(bundle.where).name
    return (add_order(bundle.version, dirname), dirname, bundle.where)


def build_package(package: str, bundles: Sequence[IndexBundle], mode: Mode) -> BuildResult:
    """A new package built as ``opm registry add --mode MODE`` builds it when its bundles are
    added in ascending version (``bundle-index index --mode PKG=MODE``). Raises AddRefused when
    nothing of the package could be added; individual semver refusals are in the result."""
    ordered = sorted(bundles, key=_add_order)
    index = PackageIndex(package)
    fallback = ""
    if mode in ("replaces", "replaces-then-semver"):
        try:
            index.add_replaces(ordered)
        except AddRefused as refused:
            if mode == "replaces":
                raise
            more = len(refused.reasons) - 1
            fallback = refused.reasons[0] + (f" (and {more} more)" if more else "")
        else:
            return BuildResult(index, "replaces")
    semver_mode: Mode = "semver-skippatch" if mode == "semver-skippatch" else "semver"
    result = BuildResult(index, semver_mode, fallback=fallback)
    for bundle in ordered:
        try:
            index.add_semver(bundle, skippatch=semver_mode == "semver-skippatch")
        except AddRefused as refused:
            result.refused.append(Refusal(bundle, "; ".join(refused.reasons)))
    if index.default_channel is None:
        first = result.refused[0].reason if result.refused else "it has no bundles"
        replaces = f"replaces mode refuses it ({fallback}); " if fallback else ""
        raise AddRefused(
            f"package {package!r}",
            [f"{replaces}{semver_mode} mode refuses every bundle (first: {first})"],
        )
    return result
