"""Checks on diffs and delta catalogs, written independently of olmcat's own graph code."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from olmcat.model import PackageCatalog


def problems(catalog: list[PackageCatalog]) -> list[str]:
    """Why a catalog would fail opm's validation (the rules that a subset can break)."""
    found = []
    for pkg in catalog:
        where = pkg.name
        if not pkg.channels:
            found.append(f"{where}: package has no channels")
        channel_names = {c.name for c in pkg.channels}
        if pkg.package.default_channel not in channel_names:
            found.append(f"{where}: default channel {pkg.package.default_channel!r} is missing")
        bundle_names = {b.name for b in pkg.bundles}
        listed: set[str] = set()
        for ch in pkg.channels:
            entries = {e.name: e for e in ch.entries}
            listed |= set(entries)
            if not entries:
                found.append(f"{where}/{ch.name}: channel has no entries")
                continue
            incoming = {
                t for e in ch.entries for t in ((e.replaces,) if e.replaces else ()) + e.skips
            }
            heads = sorted(set(entries) - incoming)
            if len(heads) != 1:
                found.append(f"{where}/{ch.name}: {len(heads)} heads {heads}")
                continue
            chain: list[str] = []
            current = heads[0]
            while current in entries:
                if current in chain:
                    found.append(f"{where}/{ch.name}: replaces cycle at {current}")
                    break
                chain.append(current)
                current = entries[current].replaces
            covered = set(chain) | {s for name in chain for s in entries[name].skips}
            stranded = sorted(set(entries) - covered)
            if stranded:
                found.append(f"{where}/{ch.name}: stranded entries {stranded}")
            missing = sorted(set(entries) - bundle_names)
            if missing:
                found.append(f"{where}/{ch.name}: entries without a bundle {missing}")
        orphans = sorted(bundle_names - listed)
        if orphans:
            found.append(f"{where}: bundles in no channel {orphans}")
        for deprecation in pkg.deprecations:
            for item in deprecation.entries:
                if item.schema == "olm.bundle" and item.name not in bundle_names:
                    found.append(f"{where}: deprecation of missing bundle {item.name}")
                if item.schema == "olm.channel" and item.name not in channel_names:
                    found.append(f"{where}: deprecation of missing channel {item.name}")
    return found


def merge(old: list[PackageCatalog], delta: list[PackageCatalog]) -> dict[str, PackageCatalog]:
    """Apply a delta: blobs replaced by name, channel entries merged by name (delta wins)."""
    result = {p.name: p for p in old}
    for part in delta:
        base = result.get(part.name)
        if base is None:
            result[part.name] = part
            continue
        channels = {c.name: c for c in base.channels}
        for ch in part.channels:
            previous = channels.get(ch.name)
            entries = {e.name: e for e in previous.entries} if previous else {}
            entries.update({e.name: e for e in ch.entries})
            channels[ch.name] = replace(ch, entries=tuple(entries.values()))
        bundles = {b.name: b for b in base.bundles}
        bundles.update({b.name: b for b in part.bundles})
        result[part.name] = PackageCatalog(
            part.package,
            tuple(channels[n] for n in sorted(channels)),
            tuple(bundles[n] for n in sorted(bundles)),
            part.deprecations or base.deprecations,
            base.others,
        )
    return result


SWAP = {"added": "removed", "removed": "added", "old": "new", "new": "old"}


def mirror(value: Any) -> Any:
    """A diff document seen from the other side: added <-> removed, old <-> new."""
    if isinstance(value, dict):
        out = {SWAP.get(k, k): mirror(v) for k, v in value.items()}
        if out.get("status") in ("added", "removed"):
            out["status"] = SWAP[out["status"]]
        return out
    if isinstance(value, list):
        return [mirror(v) for v in value]
    return value


def without_impact(document: dict[str, Any]) -> dict[str, Any]:
    document = json.loads(json.dumps(document))
    del document["summary"]["impact"]
    for pkg in document["packages"]:
        del pkg["impact"]
    return document
