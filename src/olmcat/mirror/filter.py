"""Cut a catalog down to what a disconnected cluster needs, keeping it a valid catalog.

Selection (applied in this order, one package at a time):

1. ``drop_deprecated``: a package deprecated by an ``olm.deprecations`` package entry is left out;
   channels named by channel entries are left out; bundles named by bundle entries or carrying an
   ``olm.deprecated`` property leave every channel.
2. ``selectors`` (``--package``): ``P`` keeps every channel of P, ``P:C`` keeps channel C,
   ``P:C@RANGE`` keeps the entries of C whose version is in RANGE (an OLM 1.0 version range,
   :func:`olmcat.go.semver.parse_constraint`; pre-releases only when the range names one). Without
   selectors every package is kept.
3. ``min_version`` / ``max_version``: entries whose bundle version lies outside the bounds
   (inclusive, semver precedence) are left out of every channel. A bundle without a readable
   version never satisfies a version filter.
4. ``heads_only``: of each channel that is left, only its head (after the steps above) is kept.

Exactly the selected entries are kept -- never the original head or other entries "to fix the
graph" (oc-mirror #1299: ``minVersion == maxVersion`` must give that one version). Instead the
upgrade edges are rewritten so the kept entries stay one valid channel
(:func:`olmcat.mirror.relink.relink`, whose module lists the rules).

Then: bundles in no kept channel are left out; empty channels and packages disappear (a warning
when they were named by a selector); a default channel that is gone is replaced by the kept
channel with the newest head, with a warning; deprecation entries naming what is gone are
dropped. Blobs of other schemas pass through.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from olmcat.errors import InputError
from olmcat.go.semver import (
    Constraint,
    Version,
    parse_constraint,
    parse_constraint_version,
)
from olmcat.mirror.relink import bundle_version, relink
from olmcat.model import (
    SCHEMA_BUNDLE,
    SCHEMA_CHANNEL,
    SCHEMA_PACKAGE,
    CatalogStats,
    Channel,
    Deprecation,
    PackageCatalog,
    counted,
)
from olmcat.model.versions import version_key
from olmcat.notices import Notice, NoticeLog, NoticeSink, discard
from olmcat.writers import fbc

if TYPE_CHECKING:
    from olmcat.mirror.isc import IscOperator

__all__ = [
    "FilterResult",
    "FilterSpec",
    "PackageSelector",
    "filter_catalog",
    "filter_package",
    "filter_packages",
    "parse_version_bound",
]


@dataclass(frozen=True, slots=True)
class PackageSelector:
    """``P``, ``P:channel`` or ``P:channel@RANGE``; ``channel`` is ``""`` for every channel."""

    package: str
    channel: str = ""
    version_range: Constraint | None = None

    @classmethod
    def parse(cls, text: str) -> PackageSelector:
        package, colon, rest = text.partition(":")
        channel, at, range_text = rest.partition("@")
        if not package:
            raise InputError(f"package selector {text!r}: the package name is missing")
        if "@" in package:
            raise InputError(
                f"package selector {text!r}: a version range needs a channel (P:CHANNEL@RANGE); "
                "--min-version and --max-version apply to every channel"
            )
        if colon and not channel:
            raise InputError(f"package selector {text!r}: the channel name after ':' is missing")
        if at and not range_text.strip():
            raise InputError(f"package selector {text!r}: the version range after '@' is missing")
        return cls(package, channel, parse_constraint(range_text) if at else None)

    def __str__(self) -> str:
        text = self.package
        if self.channel:
            text += f":{self.channel}"
        if self.version_range is not None:
            text += f"@{self.version_range.text}"
        return text


def parse_version_bound(text: str) -> Version:
    """A ``--min-version`` / ``--max-version`` value: ``1.2.3``, ``v1.2``, ``1.0.0-rc.1``."""
    return parse_constraint_version(text)


@dataclass(frozen=True, slots=True)
class _PackagePlan:
    all_channels: bool
    ranges: Mapping[str, Constraint | None]  # channel -> range (None: every entry)


@dataclass(frozen=True, slots=True)
class FilterSpec:
    """What to keep. The empty spec keeps everything; a valid channel then comes out unchanged."""

    selectors: tuple[PackageSelector, ...] = ()
    heads_only: bool = False
    min_version: Version | None = None
    max_version: Version | None = None
    drop_deprecated: bool = False

    def __post_init__(self) -> None:
        low, high = self.min_version, self.max_version
        if low is not None and high is not None and low.compare(high) > 0:
            raise InputError(f"--min-version {low} is greater than --max-version {high}")
        self.plans()  # refuse contradictory selectors before reading anything

    def plans(self) -> dict[str, _PackagePlan]:
        everything: set[str] = set()
        ranges: dict[str, dict[str, Constraint | None]] = {}
        for selector in self.selectors:
            channels = ranges.setdefault(selector.package, {})
            if not selector.channel:
                everything.add(selector.package)
                continue
            if (
                selector.channel in channels
                and channels[selector.channel] != selector.version_range
            ):
                raise InputError(
                    f"--package {selector}: channel {selector.package}:{selector.channel} is "
                    "already selected with another range; give one range per channel "
                    "(a range can join alternatives with '||')"
                )
            channels[selector.channel] = selector.version_range
        return {
            name: _PackagePlan(name in everything, channels) for name, channels in ranges.items()
        }


@dataclass(slots=True)
class FilterResult:
    stats: CatalogStats
    seconds: float
    dropped_packages: list[str] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)


# --------------------------------------------------------------------------------------------------
# Packages
# --------------------------------------------------------------------------------------------------


def _in_bounds(version: Version | None, spec: FilterSpec) -> bool:
    if spec.min_version is None and spec.max_version is None:
        return True
    if version is None:
        return False
    if spec.min_version is not None and version.compare(spec.min_version) < 0:
        return False
    return spec.max_version is None or version.compare(spec.max_version) <= 0


def filter_package(
    pkg: PackageCatalog,
    spec: FilterSpec,
    *,
    plan: _PackagePlan | None = None,
    notify: NoticeSink = discard,
) -> PackageCatalog | None:
    """One package filtered by ``spec`` (``plan``: its selectors), or None if nothing is left."""

    def note(code: str, message: str) -> None:
        notify(Notice(code, message, package=pkg.name))

    selected = plan is not None
    if spec.drop_deprecated:
        package_deprecated, dead_channels, dead_bundles = pkg.deprecated_names()
        if package_deprecated:
            if selected:
                note(
                    "filter.deprecated-left-out",
                    f"package {pkg.name} is deprecated; left out (--drop-deprecated)",
                )
            return None
    else:
        dead_channels, dead_bundles = set(), set()

    if plan is not None:
        missing = sorted(c for c in plan.ranges if pkg.channel(c) is None)
        if missing:
            known = ", ".join(sorted(c.name for c in pkg.channels)) or "none"
            raise InputError(
                f"package {pkg.name} has no channel {', '.join(missing)} (its channels: {known})"
            )

    bundles = {b.name: b for b in pkg.bundles}
    versions = {name: bundle_version(b) for name, b in bundles.items()}
    channels: list[Channel] = []
    for channel in sorted(pkg.channels, key=lambda c: c.name):
        if plan is not None and not plan.all_channels and channel.name not in plan.ranges:
            continue
        where = f"{pkg.name}:{channel.name}"
        if channel.name in dead_channels:
            if plan is not None and channel.name in plan.ranges:
                note(
                    "filter.deprecated-left-out",
                    f"channel {where} is deprecated; left out (--drop-deprecated)",
                )
            continue
        version_range = plan.ranges.get(channel.name) if plan is not None else None
        keep = []
        for entry in channel.entries:
            version = versions.get(entry.name)
            if entry.name in dead_bundles or not _in_bounds(version, spec):
                continue
            if version_range is not None and (
                version is None or not version_range.contains(version)
            ):
                continue
            keep.append(entry.name)
        result = relink(channel, keep, versions, notify=notify)
        if result.entries and spec.heads_only:
            result = relink(channel, [result.head()], versions, notify=notify)
        if not result.entries:
            if plan is not None and channel.name in plan.ranges:
                note(
                    "filter.channel-left-out",
                    f"channel {where}: no entry is left after filtering; channel left out",
                )
            continue
        channels.append(result)

    if not channels:
        if selected:
            note(
                "filter.package-left-out",
                f"package {pkg.name}: no channel is left after filtering; package left out",
            )
        return None

    kept_channels = {c.name for c in channels}
    default = pkg.package.default_channel
    package = pkg.package
    if default not in kept_channels:
        newest = max(
            channels,
            key=lambda c: version_key(versions.get(c.head()), ""),
        )
        note(
            "filter.default-channel-changed",
            f"package {pkg.name}: default channel {default or '(none)'} is filtered out; "
            f"the default channel is now {newest.name} (the kept channel with the newest head)",
        )
        package = replace(package, default_channel=newest.name)

    kept_bundles = {e.name for c in channels for e in c.entries}
    deprecations = []
    for deprecation in pkg.deprecations:
        entries = tuple(
            e
            for e in deprecation.entries
            if e.schema == SCHEMA_PACKAGE
            or (e.schema == SCHEMA_CHANNEL and e.name in kept_channels)
            or (e.schema == SCHEMA_BUNDLE and e.name in kept_bundles)
        )
        if entries:
            deprecations.append(Deprecation(deprecation.package, entries))
    return PackageCatalog(
        package=package,
        channels=tuple(channels),
        bundles=tuple(b for b in pkg.bundles if b.name in kept_bundles),
        deprecations=tuple(deprecations),
        others=pkg.others,
    )


def filter_packages(
    packages: Iterable[PackageCatalog],
    spec: FilterSpec,
    *,
    notify: NoticeSink = discard,
    dropped: list[str] | None = None,
) -> Iterator[PackageCatalog]:
    """Filter a stream of packages one at a time.

    Raises :class:`InputError` (after the stream ends) when a selected package never appeared,
    so a writer that is consuming this stream atomically leaves no output behind.
    """
    plans = spec.plans()
    seen: set[str] = set()
    for pkg in packages:
        plan = plans.get(pkg.name)
        if plans and plan is None:
            continue
        seen.add(pkg.name)
        result = filter_package(pkg, spec, plan=plan, notify=notify)
        if result is None:
            if dropped is not None:
                dropped.append(pkg.name)
            continue
        yield result
    missing = sorted(set(plans) - seen)
    if missing:
        raise InputError(f"package {', '.join(missing)} is not in the catalog")


def filter_catalog(
    reference: str | Path,
    out: Path | None,
    spec: FilterSpec,
    *,
    output: fbc.OutputFormat = "json",
    notify: NoticeSink = discard,
    stdout: TextIO | None = None,
    platform: str | None = None,
    image_set: IscOperator | None = None,
) -> FilterResult:
    """Filter any catalog reference into the FBC directory ``out`` (atomically) or ``stdout``.

    With ``image_set`` (an ImageSetConfiguration's ``mirror.operators[]`` entry) the selection is
    oc-mirror v2's (:mod:`olmcat.mirror.isc`) and ``spec`` is not used."""
    from olmcat.readers.catalog import open_catalog

    started = time.perf_counter()
    notices = NoticeLog(forward=notify)
    stats = CatalogStats()
    dropped: list[str] = []
    with open_catalog(reference, notify=notices, platform=platform) as catalog:
        if image_set is not None:
            from olmcat.mirror.isc import filter_packages_isc, listed_packages

            selected = filter_packages_isc(
                catalog.packages(listed_packages(image_set, catalog.package_names())),
                image_set,
                notify=notices,
                dropped=dropped,
            )
        else:
            selected = filter_packages(catalog, spec, notify=notices, dropped=dropped)
        packages = counted(selected, stats)
        if out is None:
            if stdout is None:
                raise ValueError("either out or stdout is required")
            fbc.stream(packages, stdout, output, catalog.global_others())
        else:
            fbc.write_directory(packages, out, output, catalog.global_others())
    return FilterResult(stats, time.perf_counter() - started, dropped, notices.notices)
