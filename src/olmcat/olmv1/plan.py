"""``olmcat olmv1 plan``: which operators a cluster runs with OLM v0 can OLM v1 install?

For each operator of the inventory :mod:`olmcat.upgrade.inventory` reads (the one
``upgrade-check`` takes), against one catalog:

* the **installed** bundle (by name, else by version) and the **newest** one OLM v1 would resolve
  for a ClusterExtension naming the operator's channel and no version (operator-controller:
  bundles of the channel, not deprecated first, then the highest version);
* :func:`olmcat.olmv1.check.check_catalog_bundle`'s verdict on each, with every reason;
* the ``olmcat olmv1 install`` command that writes the ClusterExtension: pinned to the installed
  version when OLM v1 installs it, else to the channel when it installs the newest.

``status``: ``installable`` (the installed version moves as it is), ``upgrade-first`` (the
installed version is refused, a newer one installs: upgrade with OLM v0, then move), ``blocked``
(neither installs), ``unknown`` (a check of the installed version -- or, when that is refused, of
the newest -- could not run), ``not-in-catalog``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from olmcat.model import Bundle, PackageCatalog
from olmcat.model.graph import olm_v1_choice
from olmcat.model.versions import Version, olm_v0_version, opm_version
from olmcat.notices import NoticeSink, discard
from olmcat.olmv1.check import (
    DEFAULT_GATES,
    BundleCheck,
    ImageReader,
    check_catalog_bundle,
    image_reader,
    parse_feature_gates,
)
from olmcat.olmv1.report import changed_gates

if TYPE_CHECKING:
    from olmcat.oci.options import RegistryOptions
    from olmcat.upgrade.inventory import Installed

__all__ = [
    "PLAN_SCHEMA",
    "STATUSES",
    "OperatorPlan",
    "PlanReport",
    "plan",
    "plan_operator",
    "render",
]

PLAN_SCHEMA: Final = "olmcat.olmv1-plan.v1"
Status = Literal["installable", "upgrade-first", "blocked", "unknown", "not-in-catalog"]
STATUSES: tuple[Status, ...] = (
    "installable",
    "upgrade-first",
    "blocked",
    "unknown",
    "not-in-catalog",
)


@dataclass(slots=True)
class OperatorPlan:
    installed: Installed
    channel: str = ""
    bundle: str = ""
    version: str = ""
    installed_check: BundleCheck | None = None
    newest: str = ""
    newest_version: str = ""
    newest_check: BundleCheck | None = None
    namespace: str = ""
    command: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def status(self) -> Status:
        if self.installed_check is None and self.newest_check is None:
            return "not-in-catalog"
        now = self.installed_check.verdict if self.installed_check is not None else "refused"
        if now == "installable":
            return "installable"
        if now == "unknown":
            return "unknown"  # the installed version may install as it is: not known
        later = self.newest_check.verdict if self.newest_check is not None else "refused"
        if later == "installable" and self.newest != self.bundle:
            return "upgrade-first"
        return "unknown" if later == "unknown" else "blocked"

    @property
    def who(self) -> str:
        item = self.installed
        if item.namespace and item.name:
            return f"{item.namespace}/{item.name}"
        return item.name or item.namespace or item.package

    def to_json(self) -> dict[str, Any]:
        def side(name: str, version: str, found: BundleCheck | None) -> dict[str, Any] | None:
            if not name and found is None:
                return None
            return {
                "name": name or None,
                "version": version or None,
                "verdict": found.verdict if found is not None else None,
                "reasons": [r.to_json() for r in found.reasons] if found is not None else [],
                "requirements": (
                    [r.to_json() for r in found.requirements] if found is not None else []
                ),
                "notRun": list(found.not_run) if found is not None else [],
                "notRunBecause": (found.not_run_because or None) if found is not None else None,
            }

        item = self.installed
        return {
            "namespace": item.namespace or None,
            "name": item.name or None,
            "kind": item.origin,
            "package": item.package,
            "channel": self.channel or None,
            "status": self.status,
            "installed": side(self.bundle, self.version, self.installed_check),
            "newest": side(self.newest, self.newest_version, self.newest_check),
            "installCommand": self.command or None,
            "notes": list(self.notes),
        }


@dataclass(slots=True)
class PlanReport:
    catalog: str
    gates: dict[str, bool]
    operators: list[OperatorPlan]
    seconds: float = 0.0

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {status: 0 for status in STATUSES}
        for item in self.operators:
            out[item.status] += 1
        return out

    @property
    def ok(self) -> bool:
        return all(item.status == "installable" for item in self.operators)

    def summary_line(self) -> str:
        counts = self.counts()
        total = len(self.operators)
        parts = [f"{counts[s]} {s}" for s in STATUSES if counts[s]]
        noun = "operator" if total == 1 else "operators"
        return f"{total} {noun}: {', '.join(parts) or 'none listed'}"

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": PLAN_SCHEMA,
            "catalog": self.catalog,
            "operatorController": "v1.11.0",
            "featureGates": dict(sorted(self.gates.items())),
            "summary": {"operators": len(self.operators), **self.counts()},
            "operators": [item.to_json() for item in self.operators],
        }


# ------------------------------------------------------------------------------------------------


def _installed_bundle(item: Installed, pkg: PackageCatalog) -> Bundle | None:
    if item.bundle:
        found = pkg.bundle(item.bundle)
        if found is not None:
            return found
    if item.version:
        wanted = olm_v0_version(item.version)
        matches = sorted(
            (b for b in pkg.bundles if wanted is not None and olm_v0_version(b.version) == wanted),
            key=lambda b: b.name,
        )
        if len(matches) == 1:
            return matches[0]
    return None


def _channels(pkg: PackageCatalog) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for channel in sorted(pkg.channels, key=lambda c: c.name):
        for entry in channel.entries:
            out.setdefault(entry.name, []).append(channel.name)
    return out


def _newest(pkg: PackageCatalog, channels: list[str]) -> Bundle | None:
    """The bundle operator-controller resolves for the channels and no version range."""
    names = {e.name for c in pkg.channels if c.name in channels for e in c.entries}
    versions: dict[str, Version] = {}
    for bundle in pkg.bundles:
        version = opm_version(bundle.version)
        if bundle.name in names and version is not None:
            versions[bundle.name] = version
    if not versions:
        return None
    deprecated = pkg.deprecated_names()[2]
    return pkg.bundle(olm_v1_choice(list(versions), versions, deprecated))


def _shell_word(text: str) -> str:
    import shlex

    return shlex.quote(text)


def install_command(
    package: str,
    catalog: str,
    namespace: str,
    *,
    channel: str = "",
    version: str = "",
    watch_namespace: str = "",
) -> str:
    """``olmcat olmv1 install PACKAGE --catalog CATALOG --namespace NS [--channel C]
    [--version V] [--watch-namespace W]``, each word quoted for a POSIX shell."""
    words = ["olmcat", "olmv1", "install", package, "--catalog", catalog, "--namespace", namespace]
    if channel:
        words += ["--channel", channel]
    if version:
        words += ["--version", version]
    if watch_namespace:
        words += ["--watch-namespace", watch_namespace]
    return " ".join(_shell_word(w) for w in words)


def _watch_namespace(found: BundleCheck, namespace: str) -> str:
    """The watchNamespace a bundle installed without AllNamespaces needs, when it can be told:
    the install namespace where it supports OwnNamespace (as OLM v0's OwnNamespace
    OperatorGroup); a SingleNamespace-only bundle's is the admin's choice."""
    if not found.requirements or "OwnNamespace" not in found.install_modes:
        return ""
    return namespace


def plan_operator(
    item: Installed,
    pkg: PackageCatalog | None,
    *,
    catalog: str,
    gates: Mapping[str, bool] | None = None,
    read_image: ImageReader | None = None,
    notify: NoticeSink = discard,
) -> OperatorPlan:
    """The plan for one installed operator, given its package in the catalog (None: absent)."""
    result = OperatorPlan(item, channel=item.channel, bundle=item.bundle, version=item.version)
    result.namespace = item.namespace or item.package
    if not item.namespace:
        result.notes.append(
            f"the inventory names no namespace: the command installs into {result.namespace}"
        )
    if pkg is None:
        result.notes.append(f"package {item.package} is not in {catalog}")
        return result
    in_channels = _channels(pkg)
    channels = list(item.channels) or ([item.channel] if item.channel else [])
    if not channels:
        channels = [pkg.package.default_channel] if pkg.package.default_channel else []
        result.notes.append(
            f"no channel given: the package's default channel {channels[0]}"
            if channels
            else "no channel given and the package has no default"
        )
    result.channel = ", ".join(channels)
    current = _installed_bundle(item, pkg)
    if current is not None:
        result.bundle, result.version = current.name, current.version
        result.installed_check = check_catalog_bundle(
            current,
            gates=gates,
            read_image=read_image,
            channels=in_channels.get(current.name, []),
            reference=catalog,
            notify=notify,
        )
    else:
        what = item.bundle or (f"version {item.version}" if item.version else "unknown")
        result.notes.append(f"the installed bundle ({what}) is not in {catalog}")
    newest = _newest(pkg, channels)
    if newest is not None:
        result.newest, result.newest_version = newest.name, newest.version
        if current is not None and newest.name == current.name:
            result.newest_check = result.installed_check
        else:
            result.newest_check = check_catalog_bundle(
                newest,
                gates=gates,
                read_image=read_image,
                channels=in_channels.get(newest.name, []),
                reference=catalog,
                notify=notify,
            )
    elif channels:
        result.notes.append(f"channel {result.channel} has no bundle with a version in {catalog}")
    channel = channels[0] if len(channels) == 1 else ""
    if result.installed_check is not None and result.installed_check.verdict == "installable":
        result.command = install_command(
            item.package,
            catalog,
            result.namespace,
            channel=channel,
            version=result.version,
            watch_namespace=_watch_namespace(result.installed_check, result.namespace),
        )
    elif result.newest_check is not None and result.newest_check.verdict == "installable":
        result.command = install_command(
            item.package,
            catalog,
            result.namespace,
            channel=channel,
            watch_namespace=_watch_namespace(result.newest_check, result.namespace),
        )
    for found in (result.installed_check, result.newest_check):
        if found is not None and found.verdict == "installable" and found.requirements:
            result.notes += [f"{r.rule}: {r.message}" for r in found.requirements]
            break
    return result


def plan(
    catalog: str | Path,
    inventory: Iterable[Installed],
    *,
    gates: Mapping[str, bool] | str | None = None,
    pull: bool = True,
    platform: str | None = None,
    registry: RegistryOptions | None = None,
    notify: NoticeSink = discard,
    catalog_label: str | None = None,
) -> PlanReport:
    """``olmcat olmv1 plan``: the plan for every operator of ``inventory``
    (:func:`olmcat.upgrade.load_inventory`) against ``catalog`` (any catalog reference). Only the
    inventory's packages are read. ``catalog_label`` is the catalog as the install commands name
    it (default: the reference)."""
    from olmcat.readers.catalog import open_catalog

    started = time.perf_counter()
    chosen = parse_feature_gates(gates) if gates is None or isinstance(gates, str) else dict(gates)
    chosen = {**DEFAULT_GATES, **chosen}
    label = catalog_label or str(catalog)
    reader = image_reader(platform=platform, options=registry, notify=notify) if pull else None
    items = list(inventory)
    wanted = {item.package for item in items if item.package}
    with open_catalog(
        catalog, notify=notify, permissive=True, platform=platform, registry=registry
    ) as opened:
        present = set(opened.package_names()) & wanted
        plans: list[OperatorPlan] = []
        for pkg in opened.packages(present) if present else iter(()):
            plans += [
                plan_operator(
                    item, pkg, catalog=label, gates=chosen, read_image=reader, notify=notify
                )
                for item in items
                if item.package == pkg.name
            ]
    plans += [
        plan_operator(item, None, catalog=label, gates=chosen, notify=notify)
        for item in items
        if item.package not in present
    ]
    plans.sort(key=lambda p: (p.installed.namespace, p.installed.package, p.installed.name))
    return PlanReport(label, chosen, plans, time.perf_counter() - started)


# ------------------------------------------------------------------------------------------------
# Text, Markdown, JSON
# ------------------------------------------------------------------------------------------------

MARKS = {
    "installable": "✓",
    "upgrade-first": "!",
    "blocked": "✗",
    "unknown": "?",
    "not-in-catalog": "-",
}


def _side(label: str, name: str, version: str, found: BundleCheck | None) -> list[str]:
    if not name:
        return []
    what = f"{name} ({version})" if version else name
    verdict = found.summary() if found is not None else "not checked"
    lines = [f"    {label}: {what}: {verdict}"]
    if found is not None:
        lines += [
            f"      - {r.rule} {r.message}".replace("\n", "\n        ") for r in found.reasons
        ]
    return lines


def render_text(report: PlanReport) -> str:
    lines = [
        f"OLM v1 plan (operator-controller v1.11.0): catalog {report.catalog}",
        f"feature gates: {_gates(report)}",
        "",
    ]
    for item in report.operators:
        lines.append(
            f"{MARKS[item.status]} {item.who}  package {item.installed.package}  "
            f"channel {item.channel or '-'}  {item.status}"
        )
        lines += _side("installed", item.bundle, item.version, item.installed_check)
        if item.newest and item.newest != item.bundle:
            lines += _side("newest", item.newest, item.newest_version, item.newest_check)
        if item.command:
            lines.append(f"    install: {item.command}")
        lines += [f"    note: {note}" for note in item.notes]
    if report.operators:
        lines.append("")
    lines.append(report.summary_line())
    return "\n".join(lines) + "\n"


def _gates(report: PlanReport) -> str:
    from olmcat.olmv1.check import CheckReport

    return changed_gates(CheckReport([], report.gates, False, []))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_side(name: str, version: str, found: BundleCheck | None) -> str:
    if not name:
        return "—"
    what = f"`{name}` ({version})" if version else f"`{name}`"
    if found is None:
        return what
    reasons = "".join(f"<br>`{r.rule}` {r.message}" for r in found.reasons)
    if found.verdict == "unknown":
        reasons = f"<br>{found.summary()}"
    return f"{what}: **{found.verdict}**{reasons}"


def render_markdown(report: PlanReport) -> str:
    lines = [
        f"### OLM v1 plan: `{report.catalog}`",
        "",
        f"operator-controller **v1.11.0**, feature gates: {_gates(report)}. "
        f"{report.summary_line()}.",
        "",
        "| | operator | package | channel | status | installed | newest | install |",
        "|---|---|---|---|---|---|---|---|",
    ]
    md_marks = {
        "installable": "✅",
        "upgrade-first": "⚠️",
        "blocked": "❌",
        "unknown": "❔",
        "not-in-catalog": "➖",
    }
    for item in report.operators:
        newest = (
            _md_side(item.newest, item.newest_version, item.newest_check)
            if item.newest != item.bundle
            else "same"
        )
        cells = [
            md_marks[item.status],
            item.who,
            item.installed.package,
            item.channel or "—",
            f"**{item.status}**",
            _md_side(item.bundle, item.version, item.installed_check),
            newest,
            f"`{item.command}`" if item.command else "—",
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    noted = [item for item in report.operators if item.notes]
    if noted:
        lines += ["", "<details><summary>Notes</summary>", ""]
        for item in noted:
            lines.append(f"**{_cell(item.who)}** ({item.installed.package})")
            lines += [f"- {note}" for note in item.notes]
            lines.append("")
        lines.append("</details>")
    return "\n".join(lines) + "\n"


def render(report: PlanReport, output: str = "text") -> str:
    if output == "json":
        return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"
    if output == "markdown":
        return render_markdown(report)
    return render_text(report)
