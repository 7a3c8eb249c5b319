"""Re-link a channel cut down to chosen entries so that it stays one valid channel.

``filter`` (:mod:`olmcat.mirror.filter`) and the ImageSetConfiguration selection
(:mod:`olmcat.mirror.isc`) keep exactly the entries they select -- never the original head or
other entries "to fix the graph" (oc-mirror #1299: ``minVersion == maxVersion`` must give that
one version). Instead :func:`relink` rewrites the upgrade edges:

* **Edges between kept entries stay as they are**, and so do edges to names outside the channel.
* **Replaces contraction**: a kept entry whose ``replaces`` names a removed entry follows the
  removed entries' ``replaces`` chain down to the first kept entry and replaces that one; the
  name it replaced before moves into its ``skips``, so a cluster still running that (now removed)
  version keeps its direct upgrade. If the chain reaches no kept entry, ``replaces`` stays as it
  was: the entry is the tail of the chain, and opm allows a tail to replace a missing bundle.
* **Skips contraction**: every kept entry that could reach further kept entries only through
  removed ones (via ``replaces`` or ``skips`` of the removed entries -- the edges oc-mirror #758
  ignored) gets those kept entries added to its ``skips``. Skips naming removed entries stay.
  ``skipRange`` is never changed.
* **One head, nothing stranded** (oc-mirror #345 and #758 left two heads or stranded entries):
  the head is the original head if it is kept, otherwise the newest of the entries nothing
  points to any more. Current opm walks the head's ``replaces`` chain, stopping at a skipped
  entry, and wants every other entry skipped by an entry on that chain. A kept entry that would
  not be -- e.g. the head of a side branch once the common head is cut away -- is added to the
  head's ``skips``, with a warning; an entry off the chain whose ``replaces`` names a missing
  bundle gets that name as a skip instead (opm allows a missing target only at the chain's end).
  Edges that close a cycle (only possible when the input has one) are dropped, with a warning.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import replace

from olmcat.go.semver import Version
from olmcat.model import Bundle, Channel, ChannelEntry
from olmcat.model.graph import opm_chain
from olmcat.model.versions import olm_v1_version, version_key
from olmcat.notices import Notice, NoticeSink, discard

__all__ = ["bundle_version", "relink"]

Note = Callable[[str, str], None]  # (code, message): a notice about the package at hand


def bundle_version(bundle: Bundle | None) -> Version | None:
    """The version of a bundle's ``olm.package`` property, read as OLM v1 range selection reads
    it (ranges and bounds are OLM 1.0 syntax)."""
    return olm_v1_version(bundle)


def relink(
    channel: Channel,
    keep: Collection[str],
    versions: Mapping[str, Version | None],
    notify: NoticeSink = discard,
) -> Channel:
    """``channel`` with only the entries named in ``keep``, edges rewritten as the module says.

    ``versions`` gives each entry's bundle version (missing or None: unknown, sorts lowest); it
    picks the head when the original head is not kept. The result has exactly one head and no
    stranded entry whenever ``keep`` selects at least one entry; with nothing kept it has no
    entries.
    """

    def note(code: str, message: str) -> None:
        notify(Notice(code, message, package=channel.package))

    by_name: dict[str, ChannelEntry] = {}
    for entry in channel.entries:
        by_name.setdefault(entry.name, entry)
    kept_names = {name for name in keep if name in by_name}
    if not kept_names:
        return replace(channel, entries=())
    where = f"channel {channel.package}/{channel.name}"

    reach_cache: dict[str, frozenset[str]] = {}

    def kept_below(removed: str) -> frozenset[str]:
        """Kept entries reachable from a removed entry through removed entries only."""
        cached = reach_cache.get(removed)
        if cached is not None:
            return cached
        found: set[str] = set()
        seen = {removed}
        stack = [removed]
        while stack:
            for target in by_name[stack.pop()].edges():
                if target in kept_names:
                    found.add(target)
                elif target in by_name and target not in seen:
                    seen.add(target)
                    stack.append(target)
        result = frozenset(found)
        reach_cache[removed] = result
        return result

    entries: dict[str, ChannelEntry] = {}
    for original in channel.entries:
        name = original.name
        if name not in kept_names or name in entries:
            continue
        replaces = original.replaces
        skips = list(dict.fromkeys(original.skips))
        if replaces in by_name and replaces not in kept_names:
            current, walked = replaces, {name}
            while current in by_name and current not in kept_names and current not in walked:
                walked.add(current)
                current = by_name[current].replaces
            if current in kept_names and current != name:
                skips.append(replaces)
                replaces = current
        reachable: set[str] = set()
        for target in original.edges():
            if target in by_name and target not in kept_names:
                reachable |= kept_below(target)
        reachable -= {name, replaces, *skips}
        skips.extend(sorted(reachable))
        entries[name] = replace(original, replaces=replaces, skips=tuple(dict.fromkeys(skips)))

    head = _choose_head(channel, entries, versions)
    _repair(entries, head, where, note)
    return replace(channel, entries=tuple(entries.values()))


def _choose_head(
    channel: Channel, entries: Mapping[str, ChannelEntry], versions: Mapping[str, Version | None]
) -> str:
    original_heads = channel.heads()
    if len(original_heads) == 1 and original_heads[0] in entries:
        return original_heads[0]
    incoming = {target for entry in entries.values() for target in entry.edges()}
    candidates = [name for name in entries if name not in incoming] or list(entries)
    return max(candidates, key=lambda name: version_key(versions.get(name), name))


def _without_edge(entry: ChannelEntry, target: str) -> ChannelEntry:
    return replace(
        entry,
        replaces="" if entry.replaces == target else entry.replaces,
        skips=tuple(s for s in entry.skips if s != target),
    )


def _break_cycles(entries: dict[str, ChannelEntry], head: str, where: str, note: Note) -> None:
    """Depth first from the head, then from every other entry: drop each edge that leads back
    onto the current path. Only an input that already has a cycle loses edges here."""
    on_path, done = set(), set()
    for root in [head, *entries]:
        if root in done:
            continue
        on_path.add(root)
        stack = [(root, iter(entries[root].edges()))]
        while stack:
            name, targets = stack[-1]
            for target in targets:
                if target in on_path:
                    note(
                        "filter.cycle-edge-dropped",
                        f"{where}: dropped the edge from {name} to {target} (it closes a cycle)",
                    )
                    entries[name] = _without_edge(entries[name], target)
                elif target in entries and target not in done:
                    on_path.add(target)
                    stack.append((target, iter(entries[target].edges())))
                    break
            else:
                stack.pop()
                on_path.discard(name)
                done.add(name)


def _repair(entries: dict[str, ChannelEntry], head: str, where: str, note: Note) -> None:
    """Make the kept graph valid by opm's ``validateReplacesChain``, old and new rules alike.

    The rules: exactly one head; no cycle; every entry on the head's ``replaces`` chain or
    skipped by an entry on it. Current opm (alpha/model ``newGraph``) stops the chain at an
    entry that is skipped (a skipped entry is a leaf) and counts a ``replaces`` target outside
    the channel as a node, so such a dangling target is allowed only at the end of the chain.
    """
    for name, entry in list(entries.items()):
        if head in entry.edges():
            note(
                "filter.cycle-edge-dropped",
                f"{where}: dropped the edge from {name} to the head {head} (it closes a cycle)",
            )
            entries[name] = _without_edge(entry, head)
    _break_cycles(entries, head, where, note)
    chain = opm_chain(entries, head)
    skipped_from_chain = {s for name in chain for s in entries[name].skips}
    stranded = []
    for name, entry in list(entries.items()):
        if name in chain:
            continue
        if entry.replaces and entry.replaces not in entries:
            # Off the chain a missing replaces target would be stranded; as a skip it still
            # offers the upgrade from that version.
            entries[name] = replace(
                entry, replaces="", skips=tuple(dict.fromkeys((*entry.skips, entry.replaces)))
            )
        if name not in skipped_from_chain:
            stranded.append(name)
    if stranded:
        note(
            "filter.stranded-relinked",
            f"{where}: {', '.join(stranded)} would be stranded after filtering (neither on the "
            f"replaces chain of the head {head} nor skipped from it); added to {head}'s skips",
        )
        top = entries[head]
        entries[head] = replace(top, skips=(*top.skips, *stranded))
