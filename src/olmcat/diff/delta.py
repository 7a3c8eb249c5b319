"""Delta catalogs: an FBC holding only what is new or changed in ``new``, valid on its own.

For incremental mirroring (what ``opm alpha diff OLD NEW`` produced), written with
:func:`olmcat.writers.fbc.write_directory`. Unlike opm's output, every package of a delta passes
opm's validation by itself, avoiding opm issues #816, #904 and #957 (channels that should have been
left out, empty packages, empty channels) and opm's dangling default channel:

* A channel is kept when it is new, or when one of its entries is new, has different upgrade edges,
  or names a bundle whose content changed (the same rules as :mod:`olmcat.diff.compare`), or when
  its own properties changed. A kept channel holds those entries plus the entries that connect them
  to the channel head: the head's ``replaces`` chain down to the deepest kept entry (or the chain
  member that skips it). So it has exactly one head, the new one, and every entry is on the replaces
  chain or skipped by it (opm's "stranded bundle" rule).
* A package is kept when anything in it is kept, or its ``olm.package`` blob, deprecations or
  unknown-schema blobs changed. Its default channel is always present: if nothing in it changed,
  it is written with just its head entry.
* Bundle blobs are exactly the bundles the kept channel entries name; deprecations (when they
  changed) come whole, and the channels and bundles they reference are pulled in.
* A channel that is itself invalid in ``new`` (not exactly one head, or entries off the replaces
  chain) cannot be made valid by taking a part of it: it is copied whole.

Merging a delta onto the old catalog — package, bundle and deprecations blobs replaced by name,
channel entries merged by name — gives the new catalog's channels and heads. An FBC cannot say
that something was *removed*: removed packages, channels, entries and bundles are reported by
``olmcat diff`` but are absent from the delta.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from olmcat.diff.compare import bundles_differ, entries_differ, paired
from olmcat.model import Channel, PackageCatalog
from olmcat.model.graph import closure

__all__ = ["delta_catalog", "delta_package"]


def _changed_entries(
    old: Channel | None, new: Channel, changed_bundles: set[str]
) -> tuple[set[str], bool]:
    """Entries of ``new`` that the delta must carry, and whether the channel must be kept."""
    if old is None:
        return {e.name for e in new.entries}, True
    before = {e.name: e for e in old.entries}
    wanted = set()
    for entry in new.entries:
        previous = before.get(entry.name)
        if previous is None or entries_differ(previous, entry) or entry.name in changed_bundles:
            wanted.add(entry.name)
    return wanted, bool(wanted) or set(old.properties) != set(new.properties)


def delta_package(old: PackageCatalog | None, new: PackageCatalog | None) -> PackageCatalog | None:
    """What ``new`` adds or changes relative to ``old``, as a valid package; None if nothing."""
    if new is None or not new.channels:
        return None  # removals cannot be expressed; a channel-less package is invalid anyway
    if old is not None and old == new:
        return None
    old_bundles = {b.name: b for b in old.bundles} if old is not None else {}
    changed_bundles = {
        b.name
        for b in new.bundles
        if b.name not in old_bundles or bundles_differ(old_bundles[b.name], b)
    }
    wanted: dict[str, set[str]] = {}
    for channel in new.channels:
        entries, keep = _changed_entries(
            old.channel(channel.name) if old is not None else None, channel, changed_bundles
        )
        if keep:
            wanted[channel.name] = entries
    package_changed = old is None or old.package != new.package
    deprecations_changed = old is None or _deprecation_set(old) != _deprecation_set(new)
    others = tuple(
        m for m in new.others if old is None or m not in old.others
    )  # unknown blobs: new or different ones
    if not (wanted or package_changed or deprecations_changed or others):
        return None
    deprecations = new.deprecations if deprecations_changed else ()
    # A deprecation must name a channel and a bundle that exist in the same package.
    for deprecation in deprecations:
        for item in deprecation.entries:
            if item.schema == "olm.channel" and new.channel(item.name) is not None:
                wanted.setdefault(item.name, set())
            elif item.schema == "olm.bundle":
                _want_bundle(new, item.name, wanted)
    if new.channel(new.package.default_channel) is not None:
        wanted.setdefault(new.package.default_channel, set())
    channels = []
    for channel in new.channels:
        if channel.name in wanted:
            kept = closure(channel, wanted[channel.name])
            channels.append(Channel(channel.name, channel.package, kept, channel.properties))
    members = {e.name for c in channels for e in c.entries}
    return PackageCatalog(
        new.package,
        tuple(channels),
        tuple(b for b in new.bundles if b.name in members),
        deprecations,
        others,
    )


def _deprecation_set(pkg: PackageCatalog) -> set[tuple[str, str, str]]:
    return {(e.schema, e.name, e.message) for d in pkg.deprecations for e in d.entries}


def _want_bundle(pkg: PackageCatalog, bundle: str, wanted: dict[str, set[str]]) -> None:
    """Make sure a bundle is in some kept channel, preferring one that is kept already."""
    holders = [c for c in pkg.channels if c.entry(bundle) is not None]
    if not holders:
        return
    kept = [c for c in holders if c.name in wanted]
    target = (kept or holders)[0]
    wanted.setdefault(target.name, set()).add(bundle)


def delta_catalog(
    old: Iterable[PackageCatalog],
    new: Iterable[PackageCatalog],
    *,
    packages: set[str] | None = None,
) -> Iterator[PackageCatalog]:
    """The delta of two name-sorted package streams, one package at a time, by name."""
    for old_pkg, new_pkg in paired(old, new, packages):
        result = delta_package(old_pkg, new_pkg)
        if result is not None:
            yield result
