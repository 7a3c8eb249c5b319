"""CRD upgrade safety across two catalogs, per package: ``diff --crd-safety`` and
``upgrade-check --crd-safety``.

For each bundle the cluster may be running (OLD's channel heads for ``diff``; the installed
bundles for ``upgrade-check``) the bundle the upgrade lands on in NEW is the one upgrade-check's
resolver reaches (:func:`olmcat.upgrade.check.check_operator`: the end of the path, or where the
walk stops). Every CRD the running bundle ships is compared with the same CRD of the landing
bundle as operator-controller v1.11.0's preflight compares them.

Bundle contents come from the catalog's ``olm.bundle.object`` properties when it carries them,
otherwise from the bundle image (olmcat's registry support and blob cache). A bundle whose
contents cannot be read is named in the result and in a Notice (``olmv1.crd-safety.unread``),
never skipped silently.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from olmcat.errors import OlmcatError
from olmcat.model import Bundle, PackageCatalog
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.olmv1.crdupgrade.check import compare_crd_lists
from olmcat.olmv1.crdupgrade.engine import CrdComparison, Finding

if TYPE_CHECKING:
    from olmcat.upgrade.inventory import Installed

__all__ = [
    "CODE_UNREAD",
    "BundleContents",
    "CrdSafetyCheck",
    "CrdSafetyCollector",
    "CrdSafetyReport",
    "PackageCrdSafety",
    "channel_head_pairs",
    "check_package",
    "diff_crd_safety",
    "landing_bundle",
    "upgrade_crd_safety",
]

CODE_UNREAD = "olmv1.crd-safety.unread"


@dataclass(frozen=True)
class CrdSafetyCheck:
    """The CRDs of one running bundle against those of the bundle the upgrade lands on."""

    channel: str
    from_bundle: str
    to_bundle: str
    compared: tuple[CrdComparison, ...] = ()

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(f for c in self.compared for f in c.findings)

    def to_json(self) -> dict[str, Any]:
        return {
            "channel": self.channel,
            "from": self.from_bundle,
            "to": self.to_bundle,
            "crds": [c.name for c in self.compared],
            "findings": [f.to_json() for f in self.findings],
        }


@dataclass(frozen=True)
class PackageCrdSafety:
    """One package's checks, and the bundles whose contents could not be read (with why)."""

    package: str
    checks: tuple[CrdSafetyCheck, ...] = ()
    unread: tuple[tuple[str, str], ...] = ()

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(f for c in self.checks for f in c.findings)

    @property
    def refused(self) -> bool:
        return bool(self.findings)

    def to_json(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "refused": self.refused,
            "checks": [c.to_json() for c in self.checks],
            "unread": [{"bundle": b, "reason": r} for b, r in self.unread],
        }


@dataclass
class BundleContents:
    """The CRDs of catalog bundles, read once each: from ``olm.bundle.object`` or the image."""

    notify: NoticeSink = discard
    images: bool = True
    _cache: dict[tuple[str, str], list[dict[str, Any]] | str] = field(default_factory=dict)

    def crds(self, bundle: Bundle) -> list[dict[str, Any]] | str:
        """The bundle's CRDs, or why they could not be read."""
        key = (bundle.package, bundle.name)
        if key not in self._cache:
            self._cache[key] = self._read(bundle)
        return self._cache[key]

    def _read(self, bundle: Bundle) -> list[dict[str, Any]] | str:
        from olmcat.olmv1.bundle import from_catalog_bundle, read_bundle_image

        try:
            found = from_catalog_bundle(bundle)
            if found is not None:
                return list(found.crds)
            if not bundle.image:
                return "the catalog carries neither its objects nor an image"
            if not self.images:
                return "the catalog does not carry its objects (olm.bundle.object)"
            return list(read_bundle_image(bundle.image, notify=self.notify).crds)
        except OlmcatError as error:
            return str(error)
        except OSError as error:
            return error.strerror or str(error)


def landing_bundle(
    package: str,
    channel: str,
    bundle: str,
    version: str,
    old_pkg: PackageCatalog | None,
    new_pkg: PackageCatalog,
    semantics: str = "legacy",
) -> str | None:
    """Where upgrade-check's resolver takes ``bundle`` in NEW (the path's end, or where the walk
    stops); None when it goes nowhere."""
    from olmcat.upgrade.check import check_operator
    from olmcat.upgrade.inventory import Installed

    item = Installed("list", package, channel=channel, bundle=bundle, version=version)
    verdict = check_operator(item, old_pkg, new_pkg, semantics=semantics)  # type: ignore[arg-type]
    if verdict.path:
        return verdict.path[-1]
    return verdict.stops_at


def channel_head_pairs(
    old_pkg: PackageCatalog, new_pkg: PackageCatalog, semantics: str = "legacy"
) -> list[tuple[str, str, str]]:
    """(channels, OLD's head, where it lands in NEW) for every head of an OLD channel that NEW
    still has and that moves; channels whose head lands on the same bundle are named together
    ("alpha, stable"), so each comparison is made and reported once."""
    found: dict[tuple[str, str], list[str]] = {}
    for channel in old_pkg.channels:
        if new_pkg.channel(channel.name) is None:
            continue
        for head in channel.heads():
            bundle = old_pkg.bundle(head)
            version = bundle.version if bundle is not None else ""
            target = landing_bundle(
                old_pkg.name, channel.name, head, version, old_pkg, new_pkg, semantics
            )
            if target and target != head:
                channels = found.setdefault((head, target), [])
                if channel.name not in channels:
                    channels.append(channel.name)
    return [(", ".join(channels), head, target) for (head, target), channels in found.items()]


def check_package(
    old_pkg: PackageCatalog | None,
    new_pkg: PackageCatalog,
    pairs: list[tuple[str, str, str]],
    contents: BundleContents,
    notify: NoticeSink = discard,
    *,
    old_bundle: Callable[[str], Bundle | None] | None = None,
) -> PackageCrdSafety:
    """Compare the CRDs of each (channel, running bundle, landing bundle) pair of one package.
    The running bundle is looked up in OLD, then NEW (an installed bundle may be in either)."""
    checks: list[CrdSafetyCheck] = []
    unread: list[tuple[str, str]] = []
    package = new_pkg.name

    def lookup(name: str, *pkgs: PackageCatalog | None) -> Bundle | None:
        for pkg in pkgs:
            if pkg is not None:
                found = pkg.bundle(name)
                if found is not None:
                    return found
        return None

    def crds_of(bundle: Bundle | None, name: str) -> list[dict[str, Any]] | None:
        if bundle is None:
            reason = "not in either catalog"
        else:
            got = contents.crds(bundle)
            if not isinstance(got, str):
                return got
            reason = got
        if (name, reason) not in unread:
            unread.append((name, reason))
            notify(
                Notice(
                    CODE_UNREAD,
                    f"package {package}: bundle {name}: its CRDs could not be read, so its CRD "
                    f"upgrade safety was not checked: {reason}",
                    package=package,
                    bundle=name,
                )
            )
        return None

    for channel, running, landing in pairs:
        before = crds_of(
            old_bundle(running) if old_bundle else lookup(running, old_pkg, new_pkg), running
        )
        after = crds_of(new_pkg.bundle(landing), landing)
        if before is None or after is None:
            continue
        compared, _, _ = compare_crd_lists(
            before, after, notify=notify, package=package, bundle=landing
        )
        checks.append(CrdSafetyCheck(channel, running, landing, compared))
    return PackageCrdSafety(package, tuple(checks), tuple(unread))


@dataclass(frozen=True)
class CrdSafetyReport:
    """Every package whose running bundles move, with its checks (name order)."""

    packages: tuple[PackageCrdSafety, ...] = ()

    @property
    def refused(self) -> tuple[PackageCrdSafety, ...]:
        return tuple(p for p in self.packages if p.refused)

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(f for p in self.packages for f in p.findings)

    @property
    def unread(self) -> int:
        return sum(len(p.unread) for p in self.packages)

    def summary(self) -> str:
        checked = len(self.packages)
        refused = len(self.refused)
        count = len(self.findings)
        text = (
            f"CRD upgrade safety (operator-controller v1.11.0 preflight): "
            f"{checked} package{'' if checked == 1 else 's'} checked, {refused} refused, "
            f"{count} finding{'' if count == 1 else 's'}"
        )
        if self.unread:
            text += f", {self.unread} bundle{'' if self.unread == 1 else 's'} not read"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "preflight": "operator-controller v1.11.0 crdupgradesafety",
            "packages": len(self.packages),
            "refused": len(self.refused),
            "findings": len(self.findings),
            "results": [p.to_json() for p in self.packages],
        }


class CrdSafetyCollector:
    """Checks packages as a catalog comparison streams them (an ``observe`` callback)."""

    def __init__(
        self, *, notify: NoticeSink = discard, semantics: str = "legacy", images: bool = True
    ) -> None:
        self.notify = notify
        self.semantics = semantics
        self.contents = BundleContents(notify=notify, images=images)
        self.results: list[PackageCrdSafety] = []

    def heads(self, old_pkg: PackageCatalog | None, new_pkg: PackageCatalog | None) -> None:
        """``diff``: OLD's channel heads against where they land in NEW."""
        if old_pkg is None or new_pkg is None:
            return
        pairs = channel_head_pairs(old_pkg, new_pkg, self.semantics)
        if pairs:
            self.results.append(check_package(old_pkg, new_pkg, pairs, self.contents, self.notify))

    def diff_observer(
        self, old_pkg: PackageCatalog | None, new_pkg: PackageCatalog | None, _change: object
    ) -> None:
        self.heads(old_pkg, new_pkg)

    def installed(
        self,
        old_pkg: PackageCatalog | None,
        new_pkg: PackageCatalog | None,
        items: list[Installed],
    ) -> None:
        """``upgrade-check``: the installed operators of one package."""
        from olmcat.upgrade.check import check_operator

        if new_pkg is None:
            return
        pairs: list[tuple[str, str, str]] = []
        for item in items:
            verdict = check_operator(item, old_pkg, new_pkg, semantics=self.semantics)  # type: ignore[arg-type]
            target = verdict.path[-1] if verdict.path else verdict.stops_at
            running = verdict.bundle
            if running and target and target != running:
                pair = (verdict.channel, running, target)
                if pair not in pairs:
                    pairs.append(pair)
        if pairs:
            self.results.append(check_package(old_pkg, new_pkg, pairs, self.contents, self.notify))

    def inventory_observer(
        self, inventory: list[Installed]
    ) -> Callable[[str, PackageCatalog | None, PackageCatalog | None], None]:
        """An ``upgrade_check`` observer checking each package's installed operators."""
        by_package: dict[str, list[Installed]] = {}
        for item in inventory:
            by_package.setdefault(item.package, []).append(item)

        def observe(
            name: str, old_pkg: PackageCatalog | None, new_pkg: PackageCatalog | None
        ) -> None:
            self.installed(old_pkg, new_pkg, by_package.get(name, []))

        return observe

    def report(self) -> CrdSafetyReport:
        return CrdSafetyReport(tuple(sorted(self.results, key=lambda p: p.package)))


def diff_crd_safety(
    old: str,
    new: str,
    *,
    packages: list[str] | None = None,
    semantics: str = "legacy",
    images: bool = True,
    notify: NoticeSink = discard,
) -> CrdSafetyReport:
    """``diff --crd-safety`` as one call: for every package, the CRDs of OLD's channel heads
    against the bundles they land on in NEW, as operator-controller v1.11.0's preflight judges
    them. ``images``: read bundle images when the catalog lacks ``olm.bundle.object``."""
    from olmcat.diff.catalogs import compare

    collector = CrdSafetyCollector(notify=notify, semantics=semantics, images=images)
    compare(
        old,
        new,
        packages=packages,
        notify=notify,
        semantics=semantics,
        observe=collector.diff_observer,
    )
    return collector.report()


def upgrade_crd_safety(
    old: str,
    new: str,
    inventory: list[Installed],
    *,
    semantics: str = "legacy",
    images: bool = True,
    notify: NoticeSink = discard,
) -> CrdSafetyReport:
    """``upgrade-check --crd-safety`` as one call: for every installed operator, the CRDs of its
    bundle against those of the bundle upgrade-check's resolver lands on in NEW."""
    from olmcat.upgrade.check import upgrade_check

    collector = CrdSafetyCollector(notify=notify, semantics=semantics, images=images)
    upgrade_check(
        old,
        new,
        inventory,
        semantics=semantics,  # type: ignore[arg-type]
        notify=notify,
        observe=collector.inventory_observer(inventory),
    )
    return collector.report()
