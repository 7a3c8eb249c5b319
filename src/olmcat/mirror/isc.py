"""oc-mirror v2's ``ImageSetConfiguration``: which bundles of a catalog it mirrors.

oc-mirror v2 (``internal/pkg/operator``) turns each ``mirror.operators[]`` entry into a
``FilterConfiguration`` of ``github.com/sherine-k/catalog-filter`` (``mirror-config/v1alpha1``)
and mirrors the bundles of the filtered catalog. :func:`select_package` applies the same rules,
read from that code (catalog-filter v0.0.4, oc-mirror's ``filterCatalog`` and its config
validation):

* **No ``packages``**: with ``full: true`` the catalog is taken as it is; otherwise every channel
  of every package keeps only its head.
* **Listed packages** only; of each, the listed ``channels`` (all when none are listed).
* Per channel: ``full: true`` keeps every entry; a version range keeps what
  :func:`range_selection` computes; otherwise only the head. The range is the channel's
  ``minVersion``/``maxVersion`` or else the package's, as the Masterminds constraint
  ``>=MIN <=MAX`` (both ends inclusive). ``full`` together with a range is an error.
* A range is not a plain version filter: it keeps the stretch of the head's ``replaces`` chain
  from the lowest entry that still has every in-range bundle below it, down to the first entry
  with none below it, plus the in-range entries those chain entries skip. Chain entries outside
  the range are kept when they lie inside that stretch (oc-mirror logs them).
* ``minVersion == maxVersion`` keeps only bundles of exactly that version and fails when the
  package has none (catalog-filter v0.0.5, which oc-mirror uses since OCPBUGS-61497; its source
  is not public in the mirror we read, so this rule is taken from oc-mirror's own unit test).
* A range that leaves a channel empty removes the channel, unless it is the catalog's default
  channel: then it is an error.
* Default channel: ``defaultChannel`` must name a kept channel; without it the catalog's
  default channel must be among the kept channels (both are errors otherwise -- oc-mirror does
  not pick one).
* Bundle versions are read strictly (Masterminds ``StrictNewVersion``): a selected package with
  a bundle whose ``olm.package`` version is not strict semver fails the selection, as in
  oc-mirror. Channels must be valid (one head, no cycle) wherever a head or a range is taken.

The *selection* is exactly oc-mirror's. The output catalog's edges are those
:func:`olmcat.mirror.relink.relink` makes (so the result is always a valid channel), where
oc-mirror passes the kept entries' edges through unchanged; bundles oc-mirror keeps that are no
entry of a kept channel (a skipped or replaced name that is a bundle of another channel) are left
out with a notice, because a catalog cannot hold a bundle in no channel.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from olmcat.errors import InputError
from olmcat.files import safe
from olmcat.files import yaml as goyaml
from olmcat.go.semver import (
    Constraint,
    Version,
    parse_constraint,
    parse_constraint_version,
    parse_version,
)
from olmcat.mirror.relink import bundle_version, relink
from olmcat.model import (
    SCHEMA_BUNDLE,
    SCHEMA_CHANNEL,
    Channel,
    ChannelEntry,
    Deprecation,
    Package,
    PackageCatalog,
    graph,
)
from olmcat.notices import Notice, NoticeSink, discard

__all__ = [
    "ImageSetConfig",
    "IscChannel",
    "IscOperator",
    "IscPackage",
    "Selection",
    "choose_operator",
    "cluster_catalog_name",
    "filter_packages_isc",
    "listed_packages",
    "load_image_set_config",
    "parse_image_set_config",
    "range_selection",
    "render_cluster_catalog",
    "select_package",
    "target_reference",
]

KIND = "ImageSetConfiguration"
API_VERSION = "mirror.openshift.io/v2alpha1"

# ------------------------------------------------------------------------------------------------
# The configuration
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IscChannel:
    name: str
    min_version: str = ""
    max_version: str = ""


@dataclass(frozen=True, slots=True)
class IscPackage:
    name: str
    channels: tuple[IscChannel, ...] = ()
    default_channel: str = ""
    min_version: str = ""
    max_version: str = ""


@dataclass(frozen=True, slots=True)
class IscOperator:
    """One ``mirror.operators[]`` entry."""

    catalog: str
    packages: tuple[IscPackage, ...] = ()
    full: bool = False
    target_catalog: str = ""
    target_tag: str = ""

    def package(self, name: str) -> IscPackage | None:
        for package in self.packages:
            if package.name == name:
                return package
        return None


@dataclass(frozen=True, slots=True)
class ImageSetConfig:
    operators: tuple[IscOperator, ...]
    source: str = ""


# Field names per object, as oc-mirror's Go structs declare them. Go's encoding/json matches keys
# case-insensitively and oc-mirror rejects unknown ones (DisallowUnknownFields).
_TOP = ("apiVersion", "kind", "mirror", "archiveSize")
_MIRROR = ("platform", "operators", "additionalImages", "helm", "blockedImages", "samples")
_OPERATOR = (
    "packages",
    "catalog",
    "targetCatalog",
    "targetTag",
    "full",
    "skipDependencies",
    "targetCatalogSourceTemplate",
    "platforms",
)
_PACKAGE = ("name", "channels", "defaultChannel", "minVersion", "maxVersion")
_CHANNEL = ("name", "minVersion", "maxVersion")


def _fields(value: Any, known: tuple[str, ...], where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected a mapping, found {_kind(value)}")
    by_lower = {name.lower(): name for name in known}
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = by_lower.get(key.lower())
        if name is None:
            raise InputError(
                f"{where}: unknown field {key!r} (oc-mirror rejects it; known: {', '.join(known)})"
            )
        out[name] = item
    return out


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "a number"


def _string(value: Any, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        # Go cannot decode a YAML number (minVersion: 4.16) into a string field.
        raise InputError(f"{where}: expected a string, found {_kind(value)}; quote the value")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"{where}: expected a list, found {_kind(value)}")
    return value


def _semver_text(text: str, what: str) -> None:
    try:
        parse_constraint_version(text)
    except InputError:
        raise InputError(f"{what} {text!r} must respect semantic versioning notation") from None


def _channel(value: Any, where: str) -> IscChannel:
    fields = _fields(value, _CHANNEL, where)
    channel = IscChannel(
        _string(fields.get("name"), f"{where}.name"),
        _string(fields.get("minVersion"), f"{where}.minVersion"),
        _string(fields.get("maxVersion"), f"{where}.maxVersion"),
    )
    if not channel.name:
        raise InputError(f"{where}: the channel name must be specified")
    return channel


def _package(value: Any, where: str) -> IscPackage:
    fields = _fields(value, _PACKAGE, where)
    name = _string(fields.get("name"), f"{where}.name")
    if not name:
        raise InputError(f"{where}: the package name must be specified")
    channels = tuple(
        _channel(item, f"{where}.channels[{i}]")
        for i, item in enumerate(_list(fields.get("channels"), f"{where}.channels"))
    )
    package = IscPackage(
        name,
        channels,
        _string(fields.get("defaultChannel"), f"{where}.defaultChannel"),
        _string(fields.get("minVersion"), f"{where}.minVersion"),
        _string(fields.get("maxVersion"), f"{where}.maxVersion"),
    )
    label = f"{where} (package {name})"
    for text, what in ((package.max_version, "maxVersion"), (package.min_version, "minVersion")):
        if text:
            _semver_text(text, f"{label}: {what}")
    seen: set[str] = set()
    for channel in channels:
        if channel.name in seen:
            raise InputError(f"{label}: duplicate channel entry {channel.name!r}")
        seen.add(channel.name)
        for text, what in (
            (channel.max_version, "maxVersion"),
            (channel.min_version, "minVersion"),
        ):
            if text:
                _semver_text(text, f"{label}: channel {channel.name!r}: {what}")
        if (channel.min_version or channel.max_version) and (
            package.min_version or package.max_version
        ):
            raise InputError(
                f"{label}: mixing both filtering by minVersion/maxVersion and filtering by "
                "channel minVersion/maxVersion is not allowed"
            )
    return package


def _operator(value: Any, where: str) -> IscOperator:
    fields = _fields(value, _OPERATOR, where)
    catalog = _string(fields.get("catalog"), f"{where}.catalog")
    if not catalog:
        raise InputError(f"{where}: catalog must be specified")
    full = fields.get("full", False)
    if full is None:
        full = False
    if not isinstance(full, bool):
        raise InputError(f"{where}.full: expected a boolean, found {_kind(full)}")
    packages = tuple(
        _package(item, f"{where}.packages[{i}]")
        for i, item in enumerate(_list(fields.get("packages"), f"{where}.packages"))
    )
    seen: set[str] = set()
    for package in packages:
        if package.name in seen:
            raise InputError(
                f"{where} (catalog {catalog}): duplicate package entry {package.name!r}"
            )
        seen.add(package.name)
    return IscOperator(
        catalog,
        packages,
        full,
        _string(fields.get("targetCatalog"), f"{where}.targetCatalog"),
        _string(fields.get("targetTag"), f"{where}.targetTag"),
    )


def parse_image_set_config(document: Any, source: str = "ImageSetConfiguration") -> ImageSetConfig:
    """An ImageSetConfiguration document (parsed YAML), validated as oc-mirror validates it."""
    if not isinstance(document, dict):
        raise InputError(f"{source}: expected a mapping, found {_kind(document)}")
    kind = document.get("kind")  # oc-mirror looks at the kind first
    if kind is None:
        raise InputError(f"{source}: configuration missing `kind`")
    if kind != KIND:
        raise InputError(f"{source}: cannot parse {kind!r} as {KIND!r}")
    top = _fields(document, _TOP, source)
    if "mirror" not in top:
        raise InputError(f"{source}: configuration missing the `mirror` stanza")
    mirror = _fields(top["mirror"] or {}, _MIRROR, f"{source}: mirror")
    operators = tuple(
        _operator(item, f"{source}: mirror.operators[{i}]")
        for i, item in enumerate(_list(mirror.get("operators"), f"{source}: mirror.operators"))
    )
    names: set[str] = set()
    for operator in operators:
        name = target_reference(operator)
        if name in names:
            raise InputError(f"{source}: catalog {name!r}: duplicate found in configuration")
        names.add(name)
    return ImageSetConfig(operators, source)


def load_image_set_config(path: str | Path) -> ImageSetConfig:
    """Read an ImageSetConfiguration file (one YAML document)."""
    file = Path(path)
    try:
        text = safe.read_text(file)  # a regular file, bounded
    except OSError as error:
        raise InputError(
            f"{file}: cannot read the ImageSetConfiguration: {error.strerror}"
        ) from None
    except UnicodeDecodeError:
        raise InputError(f"{file}: the ImageSetConfiguration is not UTF-8 text") from None
    try:
        documents = list(goyaml.load_all(text, where=str(file)))
    except InputError:
        raise  # already one line naming the file
    except Exception as error:  # yaml.YAMLError and its many subclasses
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise InputError(f"{file}: not valid YAML: {first}") from None
    if len(documents) != 1:
        raise InputError(
            f"{file}: expected one ImageSetConfiguration document, found {len(documents)}"
        )
    return parse_image_set_config(documents[0], str(file))


_PATH_COMPONENTS = re.compile(
    r"^([a-z0-9]+((?:[._]|__|[-]*)[a-z0-9]+)*)(/([a-z0-9]+((?:[._]|__|[-]*)[a-z0-9]+)*))*$"
)


def target_reference(operator: IscOperator) -> str:
    """The catalog image with ``targetCatalog`` / ``targetTag`` applied: oc-mirror's unique name
    of the entry (``GetUniqueName``), which is also where the filtered catalog is pushed."""
    from olmcat.oci.reference import parse_reference

    catalog = operator.catalog
    if not (operator.target_catalog or operator.target_tag) or catalog.startswith("oci://"):
        return catalog
    if operator.target_catalog and not _PATH_COMPONENTS.match(operator.target_catalog):
        raise InputError(
            f"invalid target path component {operator.target_catalog!r}: should not contain a "
            "tag or digest; one or more lower-case path components separated by /"
        )
    ref = parse_reference(catalog)
    path = operator.target_catalog or "/".join(p for p in (ref.namespace, ref.name) if p)
    head = f"{ref.registry}/{path}" if ref.registry else path
    if operator.target_tag:
        return f"{head}:{operator.target_tag}"
    if ref.digest:
        return f"{head}@{ref.digest}"
    return f"{head}:{ref.tag}" if ref.tag else head


def choose_operator(config: ImageSetConfig, catalog: str | None = None) -> IscOperator:
    """The ``mirror.operators[]`` entry to apply: the only one, or the one whose ``catalog`` (or
    target) is ``catalog``."""
    if not config.operators:
        raise InputError(f"{config.source}: mirror.operators is empty: no catalog to select from")
    if catalog is None:
        if len(config.operators) == 1:
            return config.operators[0]
        listed = ", ".join(op.catalog for op in config.operators)
        raise InputError(
            f"{config.source} has {len(config.operators)} catalogs ({listed}); choose one with "
            "--isc-catalog"
        )
    for operator in config.operators:
        if catalog in (operator.catalog, target_reference(operator)):
            return operator
    listed = ", ".join(op.catalog for op in config.operators)
    raise InputError(
        f"{config.source}: no mirror.operators entry for catalog {catalog!r} (found: {listed})"
    )


# ------------------------------------------------------------------------------------------------
# Selection
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Selection:
    """What oc-mirror keeps of one package: entry names per kept channel (in channel order),
    the default channel, the bundles kept, and bundles it keeps outside any kept entry."""

    channels: Mapping[str, tuple[str, ...]]
    default_channel: str
    bundles: frozenset[str]
    stray_bundles: tuple[str, ...] = ()
    whole: bool = False  # full catalog, no package list: nothing is filtered
    notes: tuple[str, ...] = field(default=())


def _range_text(minimum: str, maximum: str) -> str:
    text = f">={minimum}" if minimum else ""
    if maximum:
        text += f" <={maximum}"
    return text


def _strict_versions(pkg: PackageCatalog) -> dict[str, Version]:
    versions: dict[str, Version] = {}
    for bundle in pkg.bundles:
        text = bundle.version
        if not text:
            raise InputError(
                f"bundle {bundle.name!r} in package {pkg.name!r} has no package property "
                "(oc-mirror cannot filter this package)"
            )
        try:
            versions[bundle.name] = parse_version(text)
        except InputError:
            raise InputError(
                f"bundle {bundle.name!r} in package {pkg.name!r} has version {text!r}, which is "
                "not strict semver (oc-mirror cannot filter this package)"
            ) from None
    return versions


def _check_channel(channel: Channel) -> str:
    """The head of a channel catalog-filter accepts (one head, no self edge, no cycle)."""
    if not channel.entries:
        raise InputError("channel has no entries")
    names: set[str] = set()
    problems: list[str] = []
    for entry in channel.entries:
        if entry.name in names:
            problems.append(f"duplicate channel entry {entry.name!r}")
        names.add(entry.name)
        if entry.replaces == entry.name:
            problems.append(f"invalid channel entry {entry.name!r}: replaces itself")
        if entry.name in entry.skips:
            problems.append(f"invalid channel entry {entry.name!r}: skips itself")
    heads = graph.heads(channel.entries)
    if not heads:
        problems.append("no channel heads found")
    elif len(heads) > 1:
        problems.append(f"multiple channel heads found: [{' '.join(heads)}]")
    if problems:
        raise InputError("; ".join(problems))
    if graph.upgrade_cycles(channel):
        raise InputError("detected a cycle in the upgrade graph of the channel")
    return heads[0]


def range_selection(
    channel: Channel, constraint: Constraint, versions: Mapping[str, Version]
) -> list[str]:
    """Names catalog-filter keeps of ``channel`` for a version range (``filterByVersionRange``).

    Walk the head's ``replaces`` chain. For each chain entry count the distinct in-range names
    at or below it (itself, what it skips, everything further down the chain and what those
    skip; a name counts at its lowest position). The kept stretch starts at the lowest entry that
    has the maximum count (the head's) and ends before the first entry whose count is 0; every
    chain entry in the stretch is kept, with the in-range names it skips.
    """
    head = _check_channel(channel)
    by_name = {entry.name: entry for entry in channel.entries}
    chain = graph.replaces_chain(channel.entries, head)

    def in_range(name: str) -> bool:
        version = versions.get(name)
        return version is not None and constraint.contains(version)

    def skips_of(name: str) -> tuple[str, ...]:
        entry = by_name.get(name)
        return entry.skips if entry is not None else ()

    seen: set[str] = set()
    counts: list[int] = [0] * len(chain)
    below = 0
    for index in range(len(chain) - 1, -1, -1):  # from the bottom of the chain up
        name = chain[index]
        for candidate in (name, *skips_of(name)):
            if candidate not in seen and in_range(candidate):
                seen.add(candidate)
                below += 1
        counts[index] = below
    start, stop, best = 0, len(chain), -1
    for index, count in enumerate(counts):
        if count >= best:
            start, best = index, count
        if count == 0:
            stop = index
            break
    kept: list[str] = []
    for name in chain[start:stop]:
        kept.append(name)
        kept.extend(s for s in skips_of(name) if in_range(s))
    return list(dict.fromkeys(kept))


def _exact_selection(
    channel: Channel, wanted: Version, versions: Mapping[str, Version]
) -> list[str]:
    return [
        e.name
        for e in channel.entries
        if e.name in versions and versions[e.name].compare(wanted) == 0
    ]


def select_package(
    pkg: PackageCatalog, operator: IscOperator, *, notify: NoticeSink = discard
) -> Selection | None:
    """What oc-mirror v2 keeps of ``pkg`` for ``operator``, or None when it drops the package.

    Raises :class:`InputError` where oc-mirror fails (messages follow catalog-filter's).
    """

    def note(message: str) -> None:
        notify(Notice("isc.ignored", message, package=pkg.name))

    if not operator.packages and operator.full:
        names = {e.name for c in pkg.channels for e in c.entries}
        return (
            Selection(
                {c.name: tuple(e.name for e in c.entries) for c in pkg.channels},
                pkg.package.default_channel,
                frozenset(b.name for b in pkg.bundles),
                whole=True,
                notes=(),
            )
            if names or pkg.bundles
            else None
        )
    config = operator.package(pkg.name)
    if operator.packages and config is None:
        return None
    versions = _strict_versions(pkg)
    channels = list(pkg.channels)
    if config is not None and config.channels:
        wanted = {c.name for c in config.channels}
        missing = sorted(wanted - {c.name for c in channels})
        if missing:
            note(
                f"package {pkg.name}: channel {', '.join(missing)} of the ImageSetConfiguration "
                "is not in the catalog; oc-mirror ignores it"
            )
        channels = [c for c in channels if c.name in wanted]
    channel_names = {c.name for c in channels}
    original_default = pkg.package.default_channel
    default = original_default
    if config is not None and (original_default or config.default_channel):
        if config.default_channel:
            if config.default_channel not in channel_names:
                raise InputError(
                    f"invalid default channel configuration for package {pkg.name!r}: specified "
                    f"default channel override {config.default_channel!r} does not exist in the "
                    "filtered output"
                )
            default = config.default_channel
        elif original_default not in channel_names:
            raise InputError(
                f"invalid default channel configuration for package {pkg.name!r}: the default "
                f"channel {original_default!r} was filtered out, a new default channel must be "
                "configured for this package (set defaultChannel in the ImageSetConfiguration)"
            )

    kept_channels: dict[str, tuple[str, ...]] = {}
    kept_bundles: set[str] = set()
    strays: list[str] = []
    for channel in channels:
        channel_config = None
        if config is not None:
            channel_config = next((c for c in config.channels if c.name == channel.name), None)
        minimum, maximum = "", ""
        if channel_config is not None and (
            channel_config.min_version or channel_config.max_version
        ):
            minimum, maximum = channel_config.min_version, channel_config.max_version
        elif config is not None:
            minimum, maximum = config.min_version, config.max_version
        range_text = _range_text(minimum, maximum)
        where = f"package {pkg.name!r} channel {channel.name!r}"
        if operator.full and range_text:
            raise InputError("Full: true cannot be mixed with versionRange")
        if operator.full:
            keep = [e.name for e in channel.entries]
        elif range_text:
            if minimum and maximum and _same_version(minimum, maximum):
                exact = parse_constraint_version(minimum)
                if not any(v.compare(exact) == 0 for v in versions.values()):
                    raise InputError(
                        f"package {pkg.name!r}: error finding specific bundle: specific version "
                        f"{exact} not found in bundles"
                    )
                keep = _exact_selection(channel, exact, versions)
            else:
                try:
                    constraint = parse_constraint(range_text)
                except InputError as error:
                    raise InputError(f"error parsing version range: {error}") from None
                try:
                    keep = range_selection(channel, constraint, versions)
                except InputError as error:
                    raise InputError(f"{where}: {error}") from None
            if not keep:
                if channel.name == original_default:
                    raise InputError(
                        f"package {pkg.name!r} channel {channel.name!r} has version range "
                        f"{range_text!r} that results in an empty channel"
                    )
                note(
                    f"{where}: version range {range_text!r} keeps no bundle; oc-mirror leaves the "
                    "channel out"
                )
                continue
        else:
            try:
                keep = [_check_channel(channel)]
            except InputError as error:
                raise InputError(f"{where} unable to filter head of channel: {error}") from None
        entries = {e.name for e in channel.entries}
        kept_channels[channel.name] = tuple(n for n in dict.fromkeys(keep) if n in entries)
        for name in keep:
            if name not in versions:
                continue  # no bundle of that name: nothing to mirror
            kept_bundles.add(name)
            if name not in entries:
                strays.append(name)
    in_entries = {n for names in kept_channels.values() for n in names}
    stray = tuple(sorted(n for n in set(strays) if n not in in_entries))
    return Selection(kept_channels, default, frozenset(kept_bundles), stray)


def _same_version(minimum: str, maximum: str) -> bool:
    try:
        return parse_constraint_version(minimum).compare(parse_constraint_version(maximum)) == 0
    except InputError:
        return False


# ------------------------------------------------------------------------------------------------
# Filtering a catalog stream
# ------------------------------------------------------------------------------------------------


def apply_selection(
    pkg: PackageCatalog, selection: Selection, *, notify: NoticeSink = discard
) -> PackageCatalog:
    """``pkg`` cut down to ``selection``, its channels re-linked into valid ones."""
    if selection.whole:
        return pkg
    for name in selection.stray_bundles:
        notify(
            Notice(
                "isc.stray-bundle-left-out",
                f"package {pkg.name}: oc-mirror also keeps bundle {name}, which is no entry of "
                "a kept channel; left out (a catalog cannot hold a bundle in no channel)",
                package=pkg.name,
                bundle=name,
            )
        )
    versions = {b.name: bundle_version(b) for b in pkg.bundles}
    channels: list[Channel] = []
    for channel in pkg.channels:
        keep = selection.channels.get(channel.name)
        if keep is None:
            continue
        result = relink(channel, keep, versions, notify=notify)
        if result.entries:
            channels.append(result)
    kept_channels = {c.name for c in channels}
    kept_bundles = {e.name for c in channels for e in c.entries}
    deprecations = []
    for deprecation in pkg.deprecations:
        entries = tuple(
            e
            for e in deprecation.entries
            if (e.schema == SCHEMA_CHANNEL and e.name in kept_channels)
            or (e.schema == SCHEMA_BUNDLE and e.name in kept_bundles)
            or e.schema not in (SCHEMA_CHANNEL, SCHEMA_BUNDLE)
        )
        if entries:
            deprecations.append(Deprecation(deprecation.package, entries))
    package: Package = pkg.package
    if selection.default_channel != package.default_channel:
        from dataclasses import replace

        package = replace(package, default_channel=selection.default_channel)
    return PackageCatalog(
        package=package,
        channels=tuple(channels),
        bundles=tuple(b for b in pkg.bundles if b.name in kept_bundles),
        deprecations=tuple(deprecations),
        others=pkg.others,
    )


def listed_packages(operator: IscOperator, names: Iterable[str]) -> set[str] | None:
    """The package names to read for ``operator`` (None: all of them)."""
    if not operator.packages:
        return None
    return {p.name for p in operator.packages} & set(names)


def filter_packages_isc(
    packages: Iterable[PackageCatalog],
    operator: IscOperator,
    *,
    notify: NoticeSink = discard,
    dropped: list[str] | None = None,
) -> Iterator[PackageCatalog]:
    """Filter a package stream as oc-mirror v2 filters the catalog of ``operator``.

    A listed package that is not in the catalog is reported (oc-mirror logs it and goes on)."""
    seen: set[str] = set()
    for pkg in packages:
        selection = select_package(pkg, operator, notify=notify)
        if selection is None:
            if dropped is not None and operator.packages:
                dropped.append(pkg.name)
            continue
        seen.add(pkg.name)
        yield apply_selection(pkg, selection, notify=notify)
    missing = sorted({p.name for p in operator.packages} - seen)
    for name in missing:
        notify(
            Notice(
                "isc.package-not-in-catalog",
                f"package {name} of the ImageSetConfiguration is not in catalog "
                f"{operator.catalog}; nothing is mirrored for it",
                package=name,
            )
        )


def selected_entries(
    pkg: PackageCatalog, operator: IscOperator
) -> Mapping[str, list[ChannelEntry]]:
    """Channel name -> the entries oc-mirror keeps (unchanged), for reports and tests."""
    selection = select_package(pkg, operator)
    if selection is None:
        return {}
    out: dict[str, list[ChannelEntry]] = {}
    for channel in pkg.channels:
        keep = selection.channels.get(channel.name)
        if keep is not None:
            wanted = set(keep)
            out[channel.name] = [e for e in channel.entries if e.name in wanted]
    return out


# ------------------------------------------------------------------------------------------------
# OLM v1 ClusterCatalog
# ------------------------------------------------------------------------------------------------

_HASH_PREFIX = 12  # oc-mirror's hashTruncLen


def _rfc1035(text: str) -> str:
    return "".join(c if c.isascii() and (c.isalnum() or c == "-") else "-" for c in text.lower())


def cluster_catalog_name(image: str) -> str:
    """oc-mirror v2's ClusterCatalog name for a mirrored catalog image: ``cc-<repository>-<tag>``
    (the first 12 characters of the tag, or of the digest's hex when there is no tag), dots made
    dashes (``clusterresources.generateClusterCatalog``)."""
    from olmcat.oci.reference import parse_reference

    ref = parse_reference(image)
    if ref.tag:
        suffix = _rfc1035(ref.tag[:_HASH_PREFIX])
    else:
        suffix = ref.digest.partition(":")[2][:_HASH_PREFIX] if ref.digest else ""
    name = f"cc-{ref.name.rsplit('/', 1)[-1]}-{suffix or '0'}".replace(".", "-")
    return name


def render_cluster_catalog(image: str, *, name: str | None = None) -> str:
    """An ``olm.operatorframework.io/v1`` ClusterCatalog serving ``image``, as oc-mirror v2 writes
    it (without its createdAt/version annotations, so that repeated runs write the same bytes)."""
    from olmcat.go.yaml import dump_document

    document = {
        "apiVersion": "olm.operatorframework.io/v1",
        "kind": "ClusterCatalog",
        "metadata": {"name": name or cluster_catalog_name(image)},
        "spec": {"priority": 0, "source": {"image": {"ref": image}, "type": "Image"}},
    }
    text = dump_document(document)
    return text.removeprefix("---\n")  # sigs.k8s.io/yaml writes no document marker
