"""``upgrade-check``: can every installed operator move from catalog OLD to catalog NEW?

For each installed operator (:mod:`olmcat.upgrade.inventory`) the verdict collects *conditions*,
most severe first; the record's ``status`` is the first of them (``ready`` when there is none):

``package-removed``  the package is in OLD but not in NEW (blocks);
``channel-removed``  its channel is not in NEW's package (blocks); ``suggestedChannel`` names the
                     NEW channel it most likely maps to;
``no-path``          the resolver cannot take it from the installed bundle to NEW's head (blocks);
``blocked-max-ocp``  ``olm.maxOpenShiftVersion`` of the installed CSV is below ``--target-ocp``, or
                     invalid (blocks the cluster upgrade; :mod:`olmcat.upgrade.maxocp`);
``not-in-catalog``   the package is in neither OLD nor NEW: it comes from another catalog source
                     and cannot be checked here (does not block);
``deprecated``       NEW deprecates the package, the channel or the installed bundle (does not
                     block).

**Paths.** ``semantics="legacy"``: a Subscription (or a listed row) moves as OLM v0 moves it
(:func:`olmcat.model.graph.olm_v0_walk`: replaces, skips, skipRange; the candidate nearest the
channel head wins); a ClusterExtension as OLM v1 does (:func:`olmcat.model.graph.olm_v1_walk`:
the same edges in any of its channels, the highest version wins, deprecated bundles last, within
its version range; ``upgradeConstraintPolicy: SelfCertified`` goes straight to the newest). The
head is the channel head (for a ClusterExtension: the best of its channels' heads in range).
``semantics="semver"``: every operator moves as OLM v1's semver mode moves it (any higher version
of the channel within ``^installed``); the head is the highest non-deprecated version of the
channel (within the range). ``path`` lists the bundles from the installed one to the head when the
walk reaches it, else it is null and a note says where the walk stops.

**Images.** When the installed bundle is in both catalogs and its bundle image or a related image
changed, ``imagesMoved`` lists them (mirrors must follow; not a blocker).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from olmcat.errors import InputError
from olmcat.model import Bundle, Channel, PackageCatalog, graph
from olmcat.model.versions import Version, olm_v0_version, opm_version, version_range
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.upgrade import maxocp
from olmcat.upgrade.inventory import Installed

if TYPE_CHECKING:
    from olmcat.readers.catalog import Catalog

__all__ = [
    "BLOCKING",
    "SCHEMA",
    "SEMANTICS",
    "STATUSES",
    "OperatorVerdict",
    "Semantics",
    "UpgradeReport",
    "check_operator",
    "upgrade_check",
]

SCHEMA: Final = "olmcat.upgrade-check.v1"
Semantics = Literal["legacy", "semver"]
SEMANTICS: tuple[Semantics, ...] = ("legacy", "semver")
Status = Literal[
    "package-removed",
    "channel-removed",
    "no-path",
    "blocked-max-ocp",
    "not-in-catalog",
    "deprecated",
    "ready",
]
STATUSES: tuple[Status, ...] = (
    "package-removed",
    "channel-removed",
    "no-path",
    "blocked-max-ocp",
    "not-in-catalog",
    "deprecated",
    "ready",
)
BLOCKING: frozenset[str] = frozenset(
    {"package-removed", "channel-removed", "no-path", "blocked-max-ocp"}
)


@dataclass(slots=True)
class OperatorVerdict:
    installed: Installed
    channel: str
    bundle: str
    version: str
    in_old: bool
    in_new: bool
    conditions: list[Status] = field(default_factory=list)
    path: list[str] | None = None
    head: str | None = None
    head_version: str = ""
    stops_at: str | None = None
    walked: list[str] = field(default_factory=list)  # the route up to stops_at (for pictures)
    suggested_channel: str | None = None
    max_ocp: maxocp.MaxOpenShiftVersion = field(default_factory=maxocp.MaxOpenShiftVersion)
    max_ocp_source: str = ""
    deprecations: list[dict[str, str]] = field(default_factory=list)
    images_moved: list[dict[str, str]] = field(default_factory=list)
    resolver: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def status(self) -> Status:
        for status in STATUSES:
            if status in self.conditions:
                return status
        return "ready"

    @property
    def blocks(self) -> bool:
        return any(c in BLOCKING for c in self.conditions)

    def add(self, condition: Status, note: str | None = None) -> None:
        if condition not in self.conditions:
            self.conditions.append(condition)
            self.conditions.sort(key=STATUSES.index)
        if note:
            self.notes.append(note)

    def to_json(self) -> dict[str, Any]:
        item = self.installed
        return {
            "namespace": item.namespace or None,
            "name": item.name or None,
            "kind": item.origin,
            "package": item.package,
            "channel": self.channel or None,
            "installed": {
                "name": self.bundle or None,
                "version": self.version or None,
                "inOld": self.in_old,
                "inNew": self.in_new,
            },
            "status": self.status,
            "conditions": list(self.conditions),
            "blocks": self.blocks,
            "path": list(self.path) if self.path is not None else None,
            "head": self.head,
            "headVersion": self.head_version or None,
            "stopsAt": self.stops_at,
            "resolver": self.resolver or None,
            "suggestedChannel": self.suggested_channel,
            "maxOpenShiftVersion": (
                {
                    "value": self.max_ocp.raw,
                    "valid": self.max_ocp.error is None,
                    "source": self.max_ocp_source,
                }
                if self.max_ocp.declared
                else None
            ),
            "deprecations": list(self.deprecations),
            "imagesMoved": list(self.images_moved),
            "notes": list(self.notes),
        }


@dataclass(slots=True)
class UpgradeReport:
    old: str
    new: str
    semantics: Semantics
    target_ocp: str | None
    operators: list[OperatorVerdict]
    seconds: float = 0.0

    @property
    def blocking(self) -> list[OperatorVerdict]:
        return [v for v in self.operators if v.blocks]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {status: 0 for status in STATUSES}
        for verdict in self.operators:
            out[verdict.status] += 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "old": self.old,
            "new": self.new,
            "semantics": self.semantics,
            "targetOCP": self.target_ocp,
            "summary": {
                "operators": len(self.operators),
                "blocking": len(self.blocking),
                "statuses": self.counts(),
            },
            "operators": [v.to_json() for v in self.operators],
        }


# ------------------------------------------------------------------------------------------------
# One operator
# ------------------------------------------------------------------------------------------------


def _versions(pkg: PackageCatalog, *, v1: bool) -> dict[str, Version]:
    """Bundle versions as the resolver reads them: OLM v0 tolerantly, OLM v1 with blang Parse."""
    read = opm_version if v1 else olm_v0_version
    out: dict[str, Version] = {}
    for bundle in pkg.bundles:
        version = read(bundle.version)
        if version is not None:
            out[bundle.name] = version
    return out


def _deprecations(pkg: PackageCatalog) -> dict[tuple[str, str], str]:
    """(schema, name) -> message; the package itself is ("olm.package", "")."""
    out: dict[tuple[str, str], str] = {}
    for deprecation in pkg.deprecations:
        for entry in deprecation.entries:
            out[(entry.schema, entry.name)] = entry.message
    for bundle in pkg.bundles:
        if bundle.properties_of("olm.deprecated"):
            out.setdefault(("olm.bundle", bundle.name), "olm.deprecated property")
    return out


def likely_channel(
    old_channel: Channel | None, new_pkg: PackageCatalog, bundle: str
) -> tuple[str | None, str]:
    """The NEW channel a removed channel most likely became, and why.

    Preference: channels holding the installed bundle; then the most entries shared with the old
    channel; then the default channel; then the name sharing the longest prefix."""
    if not new_pkg.channels:
        return None, ""
    old_entries = {e.name for e in old_channel.entries} if old_channel is not None else set()
    old_name = old_channel.name if old_channel is not None else ""

    def prefix(name: str) -> int:
        size = 0
        for left, right in zip(name, old_name, strict=False):
            if left != right:
                break
            size += 1
        return size

    def score(channel: Channel) -> tuple[bool, int, bool, int, str]:
        names = {e.name for e in channel.entries}
        return (
            bundle in names,
            len(names & old_entries),
            channel.name == new_pkg.package.default_channel,
            prefix(channel.name),
            channel.name,
        )

    best = max(new_pkg.channels, key=score)
    has, shared, default, _, _ = score(best)
    reasons = []
    if has:
        reasons.append(f"it holds the installed bundle {bundle}")
    if shared:
        reasons.append(f"{shared} of {len(old_entries)} entries of {old_name} are in it")
    if default:
        reasons.append("it is the default channel")
    return best.name, ", ".join(reasons) or "the closest name"


def _image_moves(old: Bundle | None, new: Bundle | None) -> list[dict[str, str]]:
    if old is None or new is None:
        return []
    moves: list[dict[str, str]] = []
    if old.image and new.image and old.image != new.image:
        moves.append({"kind": "bundle", "name": "", "old": old.image, "new": new.image})
    old_named = {r.name: r.image for r in old.related_images if r.name}
    new_named = {r.name: r.image for r in new.related_images if r.name}
    for name in sorted(old_named.keys() & new_named.keys()):
        if old_named[name] != new_named[name]:
            moves.append(
                {"kind": "related", "name": name, "old": old_named[name], "new": new_named[name]}
            )
    old_unnamed = {r.image for r in old.related_images if not r.name} - {old.image}
    new_unnamed = {r.image for r in new.related_images if not r.name} - {new.image}
    gone, added = sorted(old_unnamed - new_unnamed), sorted(new_unnamed - old_unnamed)
    if gone and added:
        for before, after in zip(gone, added, strict=False):
            moves.append({"kind": "related", "name": "", "old": before, "new": after})
    return moves


def _installed_identity(
    item: Installed, old_pkg: PackageCatalog | None, new_pkg: PackageCatalog | None
) -> tuple[str, str]:
    """(bundle name, version text), completing whichever the inventory left out from the
    catalogs (NEW first)."""
    name, version = item.bundle, item.version
    for pkg in (new_pkg, old_pkg):
        if pkg is None:
            continue
        if name and not version:
            found = pkg.bundle(name)
            if found is not None and found.version:
                version = found.version
        if version and not name:
            wanted = olm_v0_version(version)
            matches = sorted(
                b.name for b in pkg.bundles if wanted is not None and olm_v0_version(b) == wanted
            )
            if len(matches) == 1:
                name = matches[0]
    return name, version


def check_operator(
    item: Installed,
    old_pkg: PackageCatalog | None,
    new_pkg: PackageCatalog | None,
    *,
    semantics: Semantics = "legacy",
    target_ocp: Version | None = None,
) -> OperatorVerdict:
    """The verdict for one installed operator, given its package in OLD and NEW (None: absent)."""
    bundle, version_text = _installed_identity(item, old_pkg, new_pkg)
    verdict = OperatorVerdict(
        item,
        item.channel,
        bundle,
        version_text,
        in_old=old_pkg is not None and bool(bundle) and old_pkg.bundle(bundle) is not None,
        in_new=new_pkg is not None and bool(bundle) and new_pkg.bundle(bundle) is not None,
    )
    if item.pending:
        verdict.notes.append(
            f"OLM already resolved {item.pending} for this Subscription; it waits for approval"
        )
    _check_max_ocp(verdict, item, old_pkg, new_pkg, target_ocp)
    if new_pkg is None:
        if old_pkg is not None:
            verdict.add(
                "package-removed",
                f"package {item.package} is in OLD but not in NEW: the operator can neither "
                "upgrade nor be reinstalled from NEW",
            )
        else:
            source = f" (Subscription source: {item.source})" if item.source else ""
            verdict.add(
                "not-in-catalog",
                f"package {item.package} is in neither catalog{source}: it is installed from "
                "another catalog and was not checked",
            )
        return verdict
    if bundle and not verdict.in_new:
        verdict.notes.append(
            f"the installed bundle {bundle} is not in NEW"
            + (" (it was in OLD)" if verdict.in_old else "")
        )
    _check_deprecations(verdict, item, old_pkg, new_pkg)
    if item.olm_v1:
        _check_extension(verdict, item, old_pkg, new_pkg, semantics)
    else:
        _check_subscription(verdict, item, old_pkg, new_pkg, semantics)
    if "blocked-max-ocp" in verdict.conditions and verdict.head:
        _head_max_ocp(verdict, new_pkg, target_ocp)
    if old_pkg is not None and bundle:
        verdict.images_moved = _image_moves(old_pkg.bundle(bundle), new_pkg.bundle(bundle))
        for move in verdict.images_moved:
            what = "bundle image" if move["kind"] == "bundle" else "related image"
            label = f" {move['name']}" if move["name"] else ""
            verdict.notes.append(
                f"{what}{label} of {bundle} moved: {move['old']} -> {move['new']} "
                "(mirror the new reference)"
            )
    return verdict


def _check_max_ocp(
    verdict: OperatorVerdict,
    item: Installed,
    old_pkg: PackageCatalog | None,
    new_pkg: PackageCatalog | None,
    target: Version | None,
) -> None:
    """OpenShift reads the maximum only from the installed CSV's properties annotation (no
    annotation: no maximum); the catalog's bundle stands in only when the inventory has no
    CSV."""
    catalog_bundle = None
    for pkg in (old_pkg, new_pkg):
        if pkg is not None and verdict.bundle:
            catalog_bundle = catalog_bundle or pkg.bundle(verdict.bundle)
    in_catalog = (
        maxocp.from_properties(catalog_bundle.properties)
        if catalog_bundle is not None
        else maxocp.MaxOpenShiftVersion()
    )
    if item.has_csv or item.properties is not None:
        declared = maxocp.from_annotation(item.properties)
        verdict.max_ocp_source = "csv"
        if catalog_bundle is not None and in_catalog.declared and not declared.declared:
            annotation = (
                "has no operatorframework.io/properties annotation"
                if item.properties is None
                else "does not list it in its operatorframework.io/properties annotation"
            )
            verdict.notes.append(
                f"bundle {catalog_bundle.name} in the catalog declares olm.maxOpenShiftVersion "
                f"{in_catalog}, but the installed CSV {annotation}: OpenShift reads the maximum "
                "only from there, so this cluster does not enforce it"
            )
    else:
        declared = in_catalog
        verdict.max_ocp_source = "catalog" if catalog_bundle is not None else ""
    verdict.max_ocp = declared
    if not declared.declared:
        return
    where = (
        "the installed CSV"
        if verdict.max_ocp_source == "csv"
        else f"bundle {verdict.bundle} in the catalog (no CSV in the inventory)"
    )
    if declared.error is not None:
        verdict.add(
            "blocked-max-ocp",
            f"invalid olm.maxOpenShiftVersion {declared.raw} on {where}: {declared.error}; "
            "OpenShift treats this as a blocker",
        )
    elif target is not None and maxocp.blocks(declared, target):
        verdict.add(
            "blocked-max-ocp",
            f"olm.maxOpenShiftVersion {declared} on {where} is below the target "
            f"{target.major}.{target.minor}: the cluster upgrade is blocked until this operator "
            "is upgraded or removed",
        )


def _head_max_ocp(
    verdict: OperatorVerdict, new_pkg: PackageCatalog, target: Version | None
) -> None:
    head = new_pkg.bundle(verdict.head or "")
    if head is None:
        return
    declared = maxocp.from_properties(head.properties)
    if target is not None and maxocp.blocks(declared, target):
        verdict.notes.append(
            f"NEW's head {head.name} declares olm.maxOpenShiftVersion {declared} too: upgrading "
            "the operator does not lift the block; remove it or wait for a newer release"
        )
    elif verdict.path is not None and len(verdict.path) > 1:
        limit = f"olm.maxOpenShiftVersion {declared}" if declared.declared else "no maximum"
        verdict.notes.append(
            f"upgrading to NEW's head {head.name} ({limit}) before the cluster upgrade lifts "
            "the block"
        )


def _check_deprecations(
    verdict: OperatorVerdict,
    item: Installed,
    old_pkg: PackageCatalog | None,
    new_pkg: PackageCatalog,
) -> None:
    now = _deprecations(new_pkg)
    before = _deprecations(old_pkg) if old_pkg is not None else {}
    channels = item.channels or ((verdict.channel or new_pkg.package.default_channel),)
    wanted = [("olm.package", "", "package", item.package)]
    wanted += [("olm.channel", c, "channel", c) for c in channels if c]
    if verdict.bundle:
        wanted.append(("olm.bundle", verdict.bundle, "bundle", verdict.bundle))
    for schema, name, what, label in wanted:
        message = now.get((schema, name))
        if message is None:
            continue
        new = (schema, name) not in before
        verdict.deprecations.append(
            {"kind": what, "name": label, "message": message, "new": "yes" if new else "no"}
        )
        verdict.add(
            "deprecated",
            f"{what} {label} is deprecated in NEW{' (newly)' if new else ''}: {message}",
        )


def _check_subscription(
    verdict: OperatorVerdict,
    item: Installed,
    old_pkg: PackageCatalog | None,
    new_pkg: PackageCatalog,
    semantics: Semantics,
) -> None:
    if not verdict.channel:
        # OLM v0 resolves a Subscription without a channel in the catalog's current default
        # channel, so after the catalog update it follows NEW's default.
        default = new_pkg.package.default_channel
        verdict.channel = default
        before = old_pkg.package.default_channel if old_pkg is not None else default
        changed = f" (it was {before} in OLD)" if before != default else ""
        verdict.notes.append(
            f"no channel given: OLM follows the package's default channel, {default} in NEW"
            + changed
        )
    channel = new_pkg.channel(verdict.channel)
    if channel is None:
        old_channel = old_pkg.channel(verdict.channel) if old_pkg is not None else None
        suggestion, why = likely_channel(old_channel, new_pkg, verdict.bundle)
        verdict.suggested_channel = suggestion
        verdict.add(
            "channel-removed",
            f"channel {verdict.channel} is not in NEW's package {new_pkg.name}"
            + (f"; it most likely maps to {suggestion} ({why})" if suggestion else ""),
        )
        if suggestion is None:
            return
        hint = new_pkg.channel(suggestion)
        assert hint is not None
        trial = _walk_channels(verdict, [hint], new_pkg, semantics, item, record=False)
        if trial is not None:
            verdict.notes.append(f"after switching the Subscription to {suggestion}: " + trial)
        return
    _walk_channels(verdict, [channel], new_pkg, semantics, item, record=True)


def _check_extension(
    verdict: OperatorVerdict,
    item: Installed,
    old_pkg: PackageCatalog | None,
    new_pkg: PackageCatalog,
    semantics: Semantics,
) -> None:
    if item.channels:
        present = [new_pkg.channel(name) for name in item.channels]
        channels = [c for c in present if c is not None]
        gone = [name for name, c in zip(item.channels, present, strict=True) if c is None]
        if gone:
            old_channel = old_pkg.channel(gone[0]) if old_pkg is not None else None
            suggestion, why = likely_channel(old_channel, new_pkg, verdict.bundle)
            verdict.suggested_channel = suggestion
            rest = f"; it most likely maps to {suggestion} ({why})" if suggestion else ""
            if not channels:
                verdict.add(
                    "channel-removed",
                    f"channel {', '.join(gone)} of the ClusterExtension is not in NEW{rest}",
                )
                return
            verdict.notes.append(
                f"channel {', '.join(gone)} of the ClusterExtension is not in NEW (the others "
                f"still are){rest}"
            )
    else:
        channels = list(new_pkg.channels)
    _walk_channels(verdict, channels, new_pkg, semantics, item, record=True)


def _walk_channels(
    verdict: OperatorVerdict,
    channels: Sequence[Channel],
    new_pkg: PackageCatalog,
    semantics: Semantics,
    item: Installed,
    *,
    record: bool,
) -> str | None:
    """Walk the resolver through ``channels``; with ``record`` set the verdict's path, head and
    conditions, otherwise return a one-line summary (for a suggested channel)."""
    v1 = item.olm_v1 or semantics == "semver"
    versions = _versions(new_pkg, v1=v1)
    start = verdict.bundle
    read = opm_version if v1 else olm_v0_version
    start_version = read(verdict.version) if verdict.version else versions.get(start)
    if start and start_version is not None:
        versions.setdefault(start, start_version)
    deprecated = {name for (schema, name) in _deprecations(new_pkg) if schema == "olm.bundle"}
    allowed = None
    if item.version_range:
        try:
            constraint = version_range(item.version_range)
        except InputError as error:
            raise InputError(
                f"{item.where}: ClusterExtension {item.name}: version range "
                f"{item.version_range!r}: {error}"
            ) from None
        allowed = lambda n: n in versions and constraint.contains(versions[n])  # noqa: E731
    where = ", ".join(c.name for c in channels)
    if not v1:
        channel = channels[0]
        head = graph.target_head(channel, versions)
        resolver = "OLM v0"
        walk = graph.olm_v0_walk(channel, start, start_version, versions, head=head)
    else:
        pool = {
            e.name
            for c in channels
            for e in c.entries
            if e.name in versions and (allowed is None or allowed(e.name))
        }
        if semantics == "semver" or item.self_certified:
            candidates = pool
        else:
            heads = {h for c in channels for h in graph.heads(c.entries)} & pool
            candidates = heads or pool
        head = graph.olm_v1_choice(candidates, versions, deprecated) if candidates else None
        resolver = "OLM v1 " + (
            "SelfCertified"
            if item.self_certified
            else "semver"
            if semantics == "semver"
            else "catalog edges"
        )
        walk = graph.olm_v1_walk(
            channels,
            start,
            start_version,
            versions,
            semver=semantics == "semver",
            self_certified=item.self_certified,
            deprecated=deprecated,
            allowed=allowed,
        )
    names = walk.names
    reached = head is not None and walk.end == head and not walk.looped
    if not record:
        if head is None:
            return f"{where} has no head"
        if reached:
            return f"{' -> '.join(names) if len(names) > 1 else names[0]} (head {head})"
        return f"no path to its head {head} either"
    verdict.resolver = resolver
    verdict.head = head
    found = new_pkg.bundle(head) if head else None
    verdict.head_version = found.version if found is not None else ""
    if head is None:
        verdict.add("no-path", f"channel {where} has no head in NEW (every entry is on a cycle)")
        return None
    if reached:
        verdict.path = names if names else [head]
        if len(verdict.path) == 1:
            verdict.notes.append(f"already at the head {head}")
        return None
    verdict.stops_at = walk.end or None
    verdict.walked = list(names)
    if walk.looped:
        reason = f"{resolver} goes round a cycle at {walk.end}"
    elif not walk.steps:
        what = start or f"version {verdict.version}"
        if not start and not verdict.version:
            reason = "the installed version is unknown"
        elif semantics == "semver" and start_version is not None:
            reason = f"no version of {where} is a semver successor of {what}"
        else:
            reason = f"nothing in {where} upgrades from {what}"
    else:
        reason = f"{resolver} stops at {walk.end}, which nothing in {where} upgrades further"
        if semantics == "semver":
            end_version = versions.get(walk.end)
            reason = (
                f"{resolver} stops at {walk.end}: the head {verdict.head_version or head} is "
                f"not within ^{end_version} (a major version, or a minor version below 1.0.0, "
                "needs a manual step)"
            )
    verdict.add("no-path", f"no upgrade path to the head {head}: {reason}")
    return None


# ------------------------------------------------------------------------------------------------
# The whole inventory
# ------------------------------------------------------------------------------------------------


def _relay(catalog_ref: str | Path, notify: NoticeSink, side: str) -> NoticeSink:
    """The readers' notices, marked with the side they come from."""

    def relay(notice: Notice) -> None:
        notify(
            replace(
                notice, message=f"{side}: {notice.message}", file=notice.file or str(catalog_ref)
            )
        )

    return relay


def _send(notices: list[Notice], notify: NoticeSink) -> None:
    for notice in notices:
        notify(notice)


def _wanted_packages(catalog: Catalog, wanted: set[str]) -> Iterator[PackageCatalog]:
    present = set(catalog.package_names()) & wanted
    return catalog.packages(present) if present else iter(())


def upgrade_check(
    old: str | Path,
    new: str | Path,
    inventory: Iterable[Installed],
    *,
    semantics: Semantics = "legacy",
    target_ocp: str | None = None,
    notify: NoticeSink = discard,
    observe: Callable[[str, PackageCatalog | None, PackageCatalog | None], None] | None = None,
) -> UpgradeReport:
    """Check every installed operator against catalogs OLD and NEW (any catalog references).

    Only the inventory's packages are read from each catalog, one package of each at a time.
    ``observe`` is called with each inventory package's name and its OLD and NEW versions (None
    where absent), in name order, as they are read: the HTML report keeps their graphs that
    way."""
    if semantics not in SEMANTICS:
        raise InputError(f"unknown semantics {semantics!r} (one of {', '.join(SEMANTICS)})")
    started = time.perf_counter()
    target = maxocp.parse_target(target_ocp) if target_ocp else None
    items = list(inventory)
    by_package: dict[str, list[Installed]] = {}
    for item in items:
        by_package.setdefault(item.package, []).append(item)
    wanted = {name for name in by_package if name}
    verdicts: list[OperatorVerdict] = []
    from olmcat.diff.compare import paired
    from olmcat.readers.catalog import open_catalog

    # The two catalogs stream side by side in name order: one package of each is held at a
    # time, however many packages they have. NEW's notices are held back and sent after OLD's,
    # in the order of reading one catalog and then the other.
    held: list[Notice] = []
    with contextlib.ExitStack() as stack:
        stack.callback(_send, held, notify)  # last: after both catalogs are closed
        old_catalog = stack.enter_context(
            open_catalog(old, notify=_relay(old, notify, "OLD"), permissive=True)
        )
        new_catalog = stack.enter_context(
            open_catalog(new, notify=_relay(new, held.append, "NEW"), permissive=True)
        )
        pairs = paired(_wanted_packages(old_catalog, wanted), _wanted_packages(new_catalog, wanted))
        pending = next(pairs, None)
        for name in sorted(wanted):  # the streams' order: paired refuses any other
            old_pkg = new_pkg = None
            read = pending[0] or pending[1] if pending is not None else None
            if read is not None and read.name == name:
                old_pkg, new_pkg = pending  # type: ignore[misc]
                pending = next(pairs, None)
            if observe is not None:
                observe(name, old_pkg, new_pkg)
            verdicts += [
                check_operator(item, old_pkg, new_pkg, semantics=semantics, target_ocp=target)
                for item in by_package[name]
            ]
    verdicts += [  # no package named
        check_operator(item, None, None, semantics=semantics, target_ocp=target)
        for item in by_package.get("", [])
    ]
    verdicts.sort(key=lambda v: (v.installed.namespace, v.installed.package, v.installed.name))
    return UpgradeReport(
        str(old),
        str(new),
        semantics,
        f"{target.major}.{target.minor}" if target is not None else None,
        verdicts,
        time.perf_counter() - started,
    )
