"""``deprecate-truncate``: ``opm index deprecatetruncate`` on a file-based catalog.

opm marks the bundle of each given image deprecated and truncates the upgrade graph below it
(``sqlLoader.DeprecateBundle``), working on the index's ``channel_entry`` rows: the bundles
reachable from the deprecated one through replaces / skips pointers (in any channel) form its
tail; each tail bundle loses its entries in the channels the deprecated bundle is in, and is
removed altogether when it is in no other channel and nothing outside the tail upgrades from it;
the deprecated bundle loses its own edges, channels it heads are deleted, and it is left out of
the catalog (its replacers keep a dangling ``replaces``). Deprecating the head of the default
channel is refused, unless ``allow_package_removal`` and the heads of all channels are given:
then the package is removed.

olmcat lays the package's channels out as those rows (:mod:`olmcat.readers.legacy`), applies
the same steps and reads the channels back as ``opm migrate`` does, so ``truncate=True`` gives
what ``opm registry deprecatetruncate`` + ``opm migrate`` give. By default, though, history is
kept: a file-based catalog can say "deprecated" without deleting anything, so the catalog keeps
its graph and gains ``olm.deprecations`` entries for every bundle opm would remove or deprecate,
every channel it would delete, and the package it would remove.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from olmcat.errors import InputError, ValidationError
from olmcat.maintain.rewrite import MaintainResult, rewrite
from olmcat.model import (
    SCHEMA_BUNDLE,
    SCHEMA_CHANNEL,
    SCHEMA_PACKAGE,
    Channel,
    Deprecation,
    DeprecationEntry,
    PackageCatalog,
)
from olmcat.notices import Notice, NoticeLog, NoticeSink, discard
from olmcat.readers import legacy
from olmcat.readers.legacy import EntryRow
from olmcat.writers.fbc import OutputFormat


@dataclass(slots=True)
class _Rows:
    """One package's share of the index tables, as the loader laid it out."""

    package: str
    default_channel: str
    heads: dict[str, str]  # channel table: channel -> head bundle
    rows: list[EntryRow]
    bundles: set[str]  # operatorbundle rows
    skip_ranges: dict[str, str]
    deprecated: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, pkg: PackageCatalog) -> _Rows:
        rows: list[EntryRow] = []
        heads: dict[str, str] = {}
        skip_ranges: dict[str, str] = {}
        for channel in pkg.channels:
            try:
                head = channel.head()
            except ValueError as exc:
                raise ValidationError(f"package {pkg.name}: {exc}") from None
            edges = {
                e.name: legacy.GraphBundle(e.name, e.replaces, e.skips) for e in channel.entries
            }
            for entry in channel.entries:  # a dangling replaces (a truncated graph) ends a chain
                skip_ranges[entry.name] = entry.skip_range
                if entry.replaces and entry.replaces not in edges:
                    edges[entry.replaces] = legacy.GraphBundle(entry.replaces, "", ())
            builder = legacy.ChannelRowBuilder(edges)
            errors = builder.add_channel(channel.name, head)
            if errors:
                raise ValidationError(f"package {pkg.name}: {errors[0]}")
            offset = len(rows)
            rows += [
                EntryRow(
                    r.entry_id + offset,
                    r.channel,
                    r.bundle,
                    None if r.replaces is None else r.replaces + offset,
                    r.depth,
                )
                for r in builder.rows
            ]
            heads[channel.name] = head
        return cls(
            pkg.name,
            pkg.package.default_channel,
            heads,
            rows,
            {b.name for b in pkg.bundles},
            skip_ranges,
        )

    def channels(self) -> tuple[Channel, ...]:
        """The channels ``opm migrate`` reads from the rows (empty channels left out)."""
        known = self.bundles - self.deprecated
        per_channel = legacy.channel_entries(
            self.rows,
            legacy.ChannelRowBuilder.START_DEPTH,
            known.__contains__,
            lambda n: self.skip_ranges.get(n, ""),
        )
        return tuple(
            Channel(name, self.package, tuple(per_channel[name]))
            for name in sorted(self.heads)
            if per_channel.get(name)
        )


@dataclass(frozen=True, slots=True)
class _Tail:
    channels: frozenset[str]
    replaces: tuple[str, ...]
    replaced_by: frozenset[str]


def _tail(state: _Rows, head: str) -> dict[str, _Tail]:
    """``getTailFromBundle``: every bundle reachable from ``head`` through the rows' replaces
    pointers (any channel), with its channels, what it replaces and what replaces it."""
    by_id = {r.entry_id: r for r in state.rows}
    rows_of: dict[str, list[EntryRow]] = defaultdict(list)
    pointed: dict[int, list[EntryRow]] = defaultdict(list)
    for row in state.rows:
        rows_of[row.bundle].append(row)
        if row.replaces is not None:
            pointed[row.replaces].append(row)
    found: dict[str, _Tail] = {}
    todo = [head]
    while todo:
        name = todo.pop(0)
        if name in found or name not in rows_of:
            continue
        replaces: list[str] = []
        replaced_by: set[str] = set()
        for row in rows_of[name]:
            target = by_id.get(row.replaces) if row.replaces is not None else None
            if target is not None and target.bundle not in replaces:
                replaces.append(target.bundle)
            replaced_by |= {r.bundle for r in pointed.get(row.entry_id, [])}
        found[name] = _Tail(
            frozenset(r.channel for r in rows_of[name]), tuple(replaces), frozenset(replaced_by)
        )
        todo += replaces
    return found


@dataclass(slots=True)
class _Outcome:
    deprecated: list[str] = field(default_factory=list)
    truncated: list[str] = field(default_factory=list)
    channels_deleted: list[str] = field(default_factory=list)
    package_removed: bool = False


def _deprecate_one(state: _Rows, name: str, outcome: _Outcome) -> None:
    """``DeprecateBundle`` on the rows."""
    default_head = state.heads.get(state.default_channel)
    if default_head is None:
        raise ValidationError(
            f"package {state.package}: no head for the default channel {state.default_channel}"
        )
    tail = _tail(state, name)
    if default_head in tail:
        raise ValidationError(
            f"package {state.package}: cannot deprecate {name}: that would remove the head of "
            f"the default channel {state.default_channel} ({default_head}); deprecate the heads "
            "of all channels with --allow-package-removal to remove the package"
        )
    head_channels = tail[name].channels if name in tail else frozenset()
    queue, seen = [name], {name}
    while queue:
        bundle = queue.pop(0)
        info = tail.get(bundle)
        if info is None:
            continue
        for target in info.replaces:
            if target not in seen:
                seen.add(target)
                queue.append(target)
        if bundle == name:
            continue
        _remove_shared_rows(state, bundle, name)
        if len(info.channels) > len(head_channels) or not info.channels <= head_channels:
            continue  # also in channels the deprecated bundle is not in: not truncated
        if not info.replaced_by <= tail.keys():
            continue  # something outside the tail upgrades from it
        if bundle in state.bundles:
            state.bundles.discard(bundle)
            outcome.truncated.append(bundle)
        state.rows = [r for r in state.rows if r.bundle != bundle]
    for row in state.rows:
        if row.bundle == name:
            row.replaces = None
    for channel, head in list(state.heads.items()):
        if head == name:
            del state.heads[channel]
            outcome.channels_deleted.append(channel)
    state.deprecated.add(name)
    outcome.deprecated.append(name)


def _remove_shared_rows(state: _Rows, bundle: str, unshared: str) -> None:
    """``rmSharedChannelEntry``: drop ``bundle``'s rows (and pointers to them) in the channels
    ``unshared`` has rows in."""
    channels = {r.channel for r in state.rows if r.bundle == unshared}
    doomed = {r.entry_id for r in state.rows if r.bundle == bundle and r.channel in channels}
    for row in state.rows:
        if row.replaces in doomed:
            row.replaces = None
    state.rows = [r for r in state.rows if r.entry_id not in doomed]


def _images(catalog: str | Path) -> dict[str, tuple[str, str]]:
    from olmcat.readers.catalog import open_catalog

    images: dict[str, tuple[str, str]] = {}
    with open_catalog(catalog) as source:  # names only: the rewrite reports notices
        for pkg in source.packages():
            for bundle in pkg.bundles:
                if bundle.image:
                    images.setdefault(bundle.image, (pkg.name, bundle.name))
    return images


def deprecate_truncate(
    catalog: str | Path,
    out: Path | None,
    images: Sequence[str],
    *,
    truncate: bool = False,
    allow_package_removal: bool = False,
    message: str | None = None,
    in_place: bool = False,
    permissive: bool = False,
    output: OutputFormat = "json",
    notify: NoticeSink = discard,
) -> MaintainResult:
    """Deprecate the bundles of ``images`` (bundle image references, as opm takes them)."""
    log = NoticeLog(forward=notify)
    if not images:
        raise InputError("name at least one bundle image to deprecate")
    known = _images(catalog)
    missing = [i for i in images if i not in known]
    if missing:
        text = f"target bundlepaths for deprecation missing from the catalog: {', '.join(missing)}"
        if not permissive:
            raise InputError(text + " (--permissive deprecates the others)")
        log(Notice("maintain.deprecation-missing", text))
    per_package: dict[str, list[str]] = defaultdict(list)
    for image in images:
        if image in known:
            package, name = known[image]
            if name not in per_package[package]:
                per_package[package].append(name)
    outcomes: dict[str, _Outcome] = {}

    def transform(_: str, pkg: PackageCatalog | None) -> PackageCatalog | None:
        assert pkg is not None
        names = per_package.get(pkg.name)
        if not names:
            return pkg
        state = _Rows.of(pkg)
        outcome = outcomes[pkg.name] = _Outcome()
        names = _maybe_remove_package(state, names, allow_package_removal, outcome)
        if not outcome.package_removed:
            for name in names:
                _deprecate_one(state, name, outcome)
        if truncate:
            return _truncated(pkg, state, outcome, log)
        return _with_deprecations(pkg, outcome, message, log)

    result = rewrite(
        "deprecate-truncate",
        catalog,
        out,
        transform,
        in_place=in_place,
        output=output,
        notify=log,
    )
    result.notices = log
    result.details = {
        "mode": "truncate" if truncate else "olm.deprecations",
        "packages": {
            name: {
                "deprecated": o.deprecated,
                "truncated": o.truncated,
                "channelsDeleted": o.channels_deleted,
                "packageRemoved": o.package_removed,
            }
            for name, o in sorted(outcomes.items())
        },
    }
    return result


def _maybe_remove_package(
    state: _Rows, names: list[str], allow: bool, outcome: _Outcome
) -> list[str]:
    """``MaybeRemovePackages``: deprecating the default channel head with the heads of every
    channel removes the package; without all of them it is refused."""
    if not allow or state.heads.get(state.default_channel) not in names:
        return names
    for channel, head in sorted(state.heads.items()):
        if head not in names:
            raise ValidationError(
                f"cannot deprecate default channel head from package without removing all "
                f"other channel heads in package {state.package}: must deprecate {head}, head "
                f"of channel {channel}"
            )
    outcome.package_removed = True
    return []


def _truncated(
    pkg: PackageCatalog, state: _Rows, outcome: _Outcome, notify: NoticeSink
) -> PackageCatalog | None:
    """opm's result: truncated bundles gone, deprecated ones left out."""
    if outcome.package_removed:
        notify(
            Notice(
                "maintain.package-removed",
                f"package {pkg.name}: removed (the heads of all its channels were deprecated)",
                package=pkg.name,
            )
        )
        return None
    gone = set(outcome.truncated) | state.deprecated
    for name in sorted(gone):
        why = "deprecated" if name in state.deprecated else "truncated below a deprecated bundle"
        notify(
            Notice(
                "maintain.bundle-removed",
                f"package {pkg.name}: removed bundle {name} ({why}), as opm deprecatetruncate does",
                package=pkg.name,
                bundle=name,
            )
        )
    from olmcat.maintain.remove import drop_deprecation_entries

    channels = state.channels()
    listed = {e.name for c in channels for e in c.entries}
    return replace(
        pkg,
        channels=channels,
        bundles=tuple(b for b in pkg.bundles if b.name in listed),
        deprecations=drop_deprecation_entries(
            pkg,
            bundles=gone | {b.name for b in pkg.bundles if b.name not in listed},
            channels=set(outcome.channels_deleted),
            notify=notify,
        ),
    )


def _with_deprecations(
    pkg: PackageCatalog, outcome: _Outcome, message: str | None, notify: NoticeSink
) -> PackageCatalog:
    """The FBC way: nothing deleted, everything opm would delete or deprecate marked deprecated."""
    wanted: list[DeprecationEntry] = []
    if outcome.package_removed:
        wanted.append(
            DeprecationEntry(SCHEMA_PACKAGE, "", message or f"package {pkg.name} is deprecated")
        )
    for channel in outcome.channels_deleted:
        wanted.append(
            DeprecationEntry(
                SCHEMA_CHANNEL,
                channel,
                message or f"channel {channel} is deprecated: its head is deprecated",
            )
        )
    for name in outcome.deprecated:
        wanted.append(DeprecationEntry(SCHEMA_BUNDLE, name, message or f"{name} is deprecated"))
    for name in outcome.truncated:
        below = ", ".join(outcome.deprecated) or "a deprecated bundle"
        wanted.append(
            DeprecationEntry(
                SCHEMA_BUNDLE,
                name,
                message or f"{name} is deprecated: it is below deprecated {below}",
            )
        )
    existing = [e for d in pkg.deprecations for e in d.entries]
    present = {(e.schema, e.name) for e in existing}
    added = [e for e in wanted if (e.schema, e.name) not in present]
    for entry in added:
        what = f"{entry.schema.removeprefix('olm.')} {entry.name}".rstrip()
        notify(
            Notice(
                "maintain.deprecated",
                f"package {pkg.name}: {what} marked deprecated in olm.deprecations (kept in the "
                "catalog; opm deprecatetruncate would "
                + (
                    "remove it"
                    if entry.schema != SCHEMA_BUNDLE or entry.name not in outcome.deprecated
                    else "leave it out"
                )
                + "; --truncate does that)",
                severity="info",
                package=pkg.name,
                bundle=entry.name if entry.schema == SCHEMA_BUNDLE else "",
            )
        )
    if not added:
        return pkg
    merged = Deprecation(pkg.name, (*existing, *added))
    return replace(pkg, deprecations=(merged,))


def deprecated_entries(pkg: PackageCatalog) -> Collection[tuple[str, str]]:
    return {(e.schema, e.name) for d in pkg.deprecations for e in d.entries}
