"""The semver catalog template (``schema: olm.semver``), rendered as ``opm alpha render-template
semver`` renders it.

A template lists bundle images under ``candidate``, ``fast`` and ``stable``. Every bundle becomes an
entry of a channel named after its archetype and version: ``<archetype>-v<major>.<minor>`` with
``generateMinorChannels``, ``<archetype>-v<major>`` with ``generateMajorChannels``. Edges
(``linkChannels``): the entries of one archetype and stream kind, in version order, form runs of
one major version; within a run, the highest version of each minor version replaces the highest
version of the minor version before it and skips every other lower version of the run seen so far.
The default channel is the channel first created for the highest version of the most stable
non-empty archetype.

What changed between opm releases (``opm`` argument, an :class:`~olmcat.go.opm.OpmRelease`;
the behaviour names are those of :data:`olmcat.go.opm.BEHAVIOURS`):

* ``template-semver-generate-defaults`` (v1.27.1): before, ``generateMinorChannels`` is set true
  before the file is read, so minor channels are made unless the template says
  ``generateMinorChannels: false``; since, they are made only when neither flag is set.
* ``template-semver-channel-preference`` (v1.27.1): ``defaultChannelTypePreference`` (``minor`` /
  ``major``) decides between the two channels one bundle creates. Before, opm rejects the field
  (olmcat accepts it for every release) and the default channel is the first of the two Go's map
  iteration meets: the major channel in 7 of 8 runs (a two-entry map of Go 1.19, the major
  channel inserted first), which olmcat writes, with a notice. Since, a channel first created at
  version 0.0.0 can also become the default, where older releases keep the empty name.
* ``template-semver-channel-scoped-links`` (v1.37.0 until v1.61.0): each channel is linked on its
  own (see :func:`_link_each_channel`), instead of one pass over every entry of an archetype,
  stream kind and major version (:func:`_link`); ``template-semver-skip-replaced-head``
  (v1.37.0 until v1.57.0): the entry that replaces the previous minor's head also skips it.
* ``template-semver-package-metadata`` (v1.65.0): the icon and description of the default channel
  head's CSV are copied to the package.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from olmcat.errors import InputError
from olmcat.go.json import go_string
from olmcat.go.opm import NEWEST, MigrateLevel, OpmRelease
from olmcat.go.semver import Version, parse_version
from olmcat.model import Bundle
from olmcat.model import property as prop
from olmcat.model.csvmetadata import as_rendered_by
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.templates.decl import Blob, Config
from olmcat.templates.resolve import BundleResolver, ResolvedBundle

SCHEMA = "olm.semver"
ARCHETYPES = ("candidate", "fast", "stable")  # ascending stability
StreamKind = Literal["minor", "major"]


@dataclass(frozen=True, slots=True)
class SemverTemplate:
    generate_major: bool
    generate_minor: bool
    preference: StreamKind
    bundles: dict[str, tuple[str, ...]]  # archetype -> image references, as listed
    explicit_preference: bool = False  # the template sets defaultChannelTypePreference

    def images(self) -> list[str]:
        """Every image once, in the order the template names them."""
        return list(dict.fromkeys(r for a in ARCHETYPES for r in self.bundles.get(a, ())))


# -- reading ---------------------------------------------------------------------------------------

_TOP_FIELDS = (
    "schema",
    "generateMajorChannels",
    "generateMinorChannels",
    "defaultChannelTypePreference",
    *ARCHETYPES,
)


class _StrictDecoder:
    """``yaml.UnmarshalStrict`` into the template struct: unknown fields and duplicate keys are
    errors, field names match case-insensitively, null leaves a field at its default."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, message: str) -> InputError:
        return InputError(f"{self.where}: semver template: {message}")

    def fields(self, value: Any, names: Sequence[str], at: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(f"{at or 'the template'} must be a mapping")
        folded = {n.lower(): n for n in names}
        out: dict[str, Any] = {}
        for key, item in value.items():
            target = key if key in names else folded.get(str(key).lower())
            if target is None:
                raise self.fail(f'unknown field "{key}"' + (f" in {at}" if at else ""))
            out[target] = item
        return out

    def boolean(self, fields: dict[str, Any], key: str, default: bool) -> bool:
        value = fields.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.fail(f"{key} must be true or false, got {value!r}")
        return value

    def string(self, fields: dict[str, Any], key: str, at: str = "") -> str:
        value = fields.get(key)
        if value is None:
            return ""
        # sigs.k8s.io/yaml turns YAML booleans and integers into strings for string fields.
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        if not isinstance(value, str):
            raise self.fail(f"{at}{key} must be a string, got {value!r}")
        return value


def parse(text: str, where: str, *, opm: OpmRelease = NEWEST) -> SemverTemplate:
    """Read a semver template (YAML or JSON) with opm's strictness."""
    from olmcat.templates.decl import load_all_v2

    try:
        documents = list(load_all_v2(text, f"{where}: semver template", unique_keys=True))
        doc = documents[0] if documents else None
    except InputError:
        raise
    except Exception as exc:  # yaml errors from libyaml
        raise InputError(f"{where}: not valid YAML: {str(exc).splitlines()[0]}") from None
    decoder = _StrictDecoder(where)
    fields = decoder.fields(doc if doc is not None else {}, _TOP_FIELDS, "")
    if decoder.string(fields, "schema") != SCHEMA:
        raise decoder.fail(f'input file has unknown schema, should be "{SCHEMA}"')
    major = decoder.boolean(fields, "generateMajorChannels", False)
    if not opm.has("template-semver-generate-defaults"):
        minor = decoder.boolean(fields, "generateMinorChannels", True)
    else:
        minor = decoder.boolean(fields, "generateMinorChannels", False)
        if not major and not minor:
            minor = True
    preference = decoder.string(fields, "defaultChannelTypePreference")
    if preference == "":
        chosen: StreamKind = "minor" if minor else "major"
    elif preference == "minor":
        if not minor:
            raise decoder.fail(
                "defaultChannelTypePreference minor needs generateMinorChannels: true"
            )
        chosen = "minor"
    elif preference == "major":
        if not major:
            raise decoder.fail(
                "defaultChannelTypePreference major needs generateMajorChannels: true"
            )
        chosen = "major"
    else:
        raise decoder.fail(
            f"unknown defaultChannelTypePreference {preference!r}; valid values are "
            "'major' or 'minor'"
        )
    bundles: dict[str, tuple[str, ...]] = {}
    for archetype in ARCHETYPES:
        value = fields.get(archetype)
        if value is None:
            bundles[archetype] = ()
            continue
        channel = decoder.fields(value, ("bundles",), archetype)
        items = channel.get("bundles")
        if items is None:
            bundles[archetype] = ()
            continue
        if not isinstance(items, list):
            raise decoder.fail(f"{archetype}.bundles must be a list")
        refs = []
        for index, item in enumerate(items):
            at = f"{archetype}.bundles[{index}]"
            entry = decoder.fields(item if item is not None else {}, ("image",), at)
            refs.append(decoder.string(entry, "image", at + "."))
        bundles[archetype] = tuple(refs)
    return SemverTemplate(major, minor, chosen, bundles, explicit_preference=preference != "")


# -- rendering -------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Entry:
    archetype: str
    kind: StreamKind
    channel: str
    name: str
    version: Version
    index: int


@dataclass(slots=True)
class _Channel:
    name: str
    entries: list[dict[str, Any]] = field(default_factory=list)


_KIND_ORDER = {"minor": 0, "major": 1}


def _package_and_version(bundle: Bundle) -> tuple[str, Version]:
    packages = bundle.properties_of(prop.TYPE_PACKAGE)
    if len(packages) != 1:
        raise InputError(
            f'bundle "{bundle.name}" has {len(packages)} "olm.package" properties, expected '
            "exactly 1"
        )
    value = prop.parse_package(packages[0])
    try:
        version = parse_version(value.version)
    except InputError as exc:
        raise InputError(
            f'bundle "{bundle.name}" has invalid version "{value.version}": {exc}'
        ) from None
    return value.package_name, version


def _strip_build(version: Version) -> str:
    return str(version.replace(build=None))


def render(
    template: SemverTemplate,
    resolver: BundleResolver,
    *,
    opm: OpmRelease = NEWEST,
    migrate_level: MigrateLevel = "none",
    notify: NoticeSink = discard,
) -> Config:
    """The catalog of the template (``semver.Template.Render``) as opm ``opm`` renders it."""
    resolved: dict[str, ResolvedBundle] = {
        ref: resolver.resolve(ref, opm) for ref in template.images()
    }
    if not resolved:
        raise InputError("render: no bundles specified or no bundles could be rendered")
    by_name: dict[str, str] = {}
    for ref, item in resolved.items():
        other = by_name.setdefault(item.bundle.name, ref)
        if other != ref:
            # opm writes both blobs in Go map order: an invalid catalog, differently each run.
            raise InputError(
                f'images {other} and {ref} are both bundle "{item.bundle.name}"; a catalog '
                "holds each bundle once"
            )
    package = ""
    versions: dict[str, dict[str, Version]] = {}
    for archetype in ARCHETYPES:
        entries: dict[str, Version] = {}
        for ref in template.bundles[archetype]:
            bundle = resolved[ref].bundle
            name, version = _package_and_version(bundle)
            if not package:
                package = name
            elif name != package:
                raise InputError(
                    f'bundle "{bundle.name}" of package "{name}" does not belong to this '
                    f'template\'s package "{package}"'
                )
            if bundle.name in entries:
                raise InputError(f'duplicate bundle name "{bundle.name}" in {archetype}')
            entries[bundle.name] = version
        stripped: dict[str, str] = {}
        for bundle_name, version in entries.items():
            key = _strip_build(version)
            if key in stripped:
                raise InputError(
                    "encountered bundle versions which differ only by build metadata, which "
                    f'cannot be ordered: "{version}" ({bundle_name}) and '
                    f"{stripped[key]} in {archetype}"
                )
            stripped[key] = f'"{version}" ({bundle_name})'
        versions[archetype] = entries
    channels, default, tied = _generate(template, package, versions, opm)
    if tied and not opm.has("template-semver-channel-preference"):
        kind = "major" if default.count(".") == 0 else "minor"
        notify(
            Notice(
                "template.ambiguous-default-channel",
                f"package {package}: opm {opm.tag} picks the default channel {default} or its "
                "sibling of the other stream kind at random (Go map order: the major channel in "
                f"7 of 8 runs); olmcat picks {default} (the {kind} channel). Generate one stream "
                "kind, or render with opm v1.27.1 or later (defaultChannelTypePreference), to "
                "make it certain",
                package=package,
            )
        )
    config = Config()
    package_fields = [
        '"schema":"olm.package"',
        f'"name":{go_string(package)}',
        f'"defaultChannel":{go_string(default)}',
    ]
    if opm.has("template-semver-package-metadata"):
        package_fields += _package_metadata(channels.get(default), resolved)
    package_text = "{" + ",".join(package_fields) + "}"
    config.packages.append(Blob("olm.package", package, package, package_text))
    for channel in channels.values():
        text = _channel_text(package, channel)
        config.channels.append(Blob("olm.channel", package, channel.name, text))
    from olmcat.writers.fbc import bundle_json

    for item in resolved.values():
        bundle = as_rendered_by(item.bundle, opm, migrate_level, notify, form=item.form)
        config.bundles.append(Blob("olm.bundle", bundle.package, bundle.name, bundle_json(bundle)))
    return config


def generate_channels(
    versions: Mapping[str, Mapping[str, str]],
    *,
    major: bool,
    minor: bool,
    preference: str = "",
    package: str = "",
    opm: OpmRelease = NEWEST,
) -> tuple[dict[str, list[dict[str, Any]]], str]:
    """The channels and default channel opm ``opm``'s ``generateChannels`` makes of bundle
    versions per archetype (``{"stable": {bundle name: version}}``), without rendering
    anything: entries carry ``replaces`` and ``skips`` only when set, as opm writes them."""
    if preference not in ("", "minor", "major"):
        raise InputError(f"unknown defaultChannelTypePreference {preference!r}")
    chosen: StreamKind = "major" if preference == "major" or not (preference or minor) else "minor"
    template = SemverTemplate(major, minor, chosen, {}, explicit_preference=bool(preference))
    parsed = {
        archetype: {name: parse_version(text) for name, text in versions.get(archetype, {}).items()}
        for archetype in ARCHETYPES
    }
    channels, default, _ = _generate(template, package, parsed, opm)
    out = {
        name: [{k: v for k, v in entry.items() if v} for entry in channel.entries]
        for name, channel in channels.items()
    }
    return out, default


def _channel_text(package: str, channel: _Channel) -> str:
    entries = []
    for entry in channel.entries:
        parts = [f'"name":{go_string(entry["name"])}']
        if entry.get("replaces"):
            parts.append(f'"replaces":{go_string(entry["replaces"])}')
        if entry.get("skips"):
            parts.append('"skips":[' + ",".join(go_string(s) for s in entry["skips"]) + "]")
        entries.append("{" + ",".join(parts) + "}")
    return (
        f'{{"schema":"olm.channel","name":{go_string(channel.name)},"package":{go_string(package)},'
        f'"entries":[{",".join(entries)}]}}'
    )


def _channel_name(archetype: str, kind: StreamKind, version: Version) -> str:
    if kind == "major":
        return f"{archetype}-v{version.major}"
    return f"{archetype}-v{version.major}.{version.minor}"


def _generate(
    template: SemverTemplate,
    package: str,
    versions: dict[str, dict[str, Version]],
    opm: OpmRelease,
) -> tuple[dict[str, _Channel], str, bool]:
    """Channels (by name, in creation order), the default channel (``generateChannels``), and
    whether opm (before v1.27.1) could have picked another default channel (Go map order)."""
    # The high-water channel starts as the least stable archetype at 0.0.0 with no name.
    high: tuple[int, Version, str, str] = (0, Version(0, 0, 0), "", "")  # rank, version, kind, name
    preferring = opm.has("template-semver-channel-preference")
    better = _v172_better if preferring else _v126_better
    first: StreamKind = template.preference
    if not preferring and not template.explicit_preference:
        # The first created of the two channels one bundle makes wins; Go meets the major one
        # first in 7 of 8 runs (inserted first into a two-entry map): opm's usual answer.
        first = "major"
    kinds: list[StreamKind] = []
    # Channels created by the same bundle are considered in that order (see module doc).
    for kind in (first, "major" if first == "minor" else "minor"):
        if (kind == "major" and template.generate_major) or (
            kind == "minor" and template.generate_minor
        ):
            kinds.append(kind)
    if not kinds:
        # v1.26.5 then links an empty entry list and panics (index out of range).
        raise InputError(
            f"package {package}: generateMajorChannels and generateMinorChannels are both false, "
            "so no channel would be generated (opm v1.26.5 crashes on such a template)"
        )
    channels: dict[str, _Channel] = {}
    edges: list[_Entry] = []
    tied = False
    for rank, archetype in enumerate(ARCHETYPES):
        bundles = versions[archetype]
        for name in sorted(bundles, key=lambda n: _VersionKey(bundles[n])):
            version = bundles[name]
            created: set[str] = set()
            for kind in kinds:
                channel_name = _channel_name(archetype, kind, version)
                channel = channels.get(channel_name)
                if channel is None:
                    channel = channels[channel_name] = _Channel(channel_name)
                    candidate = (rank, version, kind, channel_name)
                    if better(candidate, high, template.preference):
                        high, tied = candidate, False
                    elif candidate[:2] == high[:2] and high[3] in created:
                        # Same bundle, same archetype: v1.26.5 picks either, by map order.
                        tied = True
                    created.add(channel_name)
                channel.entries.append({"name": name})
                edges.append(
                    _Entry(archetype, kind, channel_name, name, version, len(channel.entries) - 1)
                )
    if opm.has("template-semver-channel-scoped-links"):
        _link_each_channel(
            channels, edges, skip_replaced_head=opm.has("template-semver-skip-replaced-head")
        )
    else:
        _link(channels, edges)
    return channels, high[3], tied


def _v126_better(
    new: tuple[int, Version, str, str], old: tuple[int, Version, str, str], _: str
) -> bool:
    return new[0] > old[0] or new[1].compare(old[1]) > 0


_KIND_RANK = {"minor": 2, "major": 1, "": 0}


def _v172_better(
    new: tuple[int, Version, str, str], old: tuple[int, Version, str, str], preference: str
) -> bool:
    if new[0] != old[0]:
        return new[0] > old[0]
    order = new[1].compare(old[1])
    if order:
        return order > 0
    if new[2] != old[2]:
        if new[2] == preference:
            return True
        if old[2] == preference:
            return False
        return _KIND_RANK[new[2]] > _KIND_RANK[old[2]]
    return False


class _VersionKey:
    """Sort key: blang ``LT`` (versions in one archetype never compare equal, see validation)."""

    __slots__ = ("version",)

    def __init__(self, version: Version) -> None:
        self.version = version

    def __lt__(self, other: _VersionKey) -> bool:
        return bool(self.version.compare(other.version) < 0)


def _link(channels: dict[str, _Channel], edges: list[_Entry]) -> None:
    """``linkChannels``: replaces and skips within each run of one archetype, kind and major."""
    edges.sort(
        key=lambda e: (ARCHETYPES.index(e.archetype), _KIND_ORDER[e.kind], _VersionKey(e.version))
    )
    previous_max = ""
    skips: set[str] = set()

    def close(entry: _Entry) -> None:
        target = channels[entry.channel].entries[entry.index]
        target["replaces"] = previous_max
        target["skips"] = sorted(skips - {previous_max})

    for index in range(1, len(edges)):
        prev, cur = edges[index - 1], edges[index]
        new_run = (
            cur.archetype != prev.archetype
            or cur.kind != prev.kind
            or cur.version.major != prev.version.major
        )
        minor_change = cur.version.minor != prev.version.minor
        if new_run or minor_change:
            close(prev)
        if new_run:
            skips = set()
            previous_max = ""
        else:
            if minor_change:
                previous_max = prev.name
            skips.add(prev.name)
    if edges:
        close(edges[-1])


def _link_each_channel(
    channels: dict[str, _Channel], edges: list[_Entry], *, skip_replaced_head: bool
) -> None:
    """Channel-scoped ``linkChannels`` (v1.37.0 to v1.60): within each channel, in version
    order, entries of one minor version form a group; the group's last entry skips the others
    and replaces the last entry of the group before (also skipping it when
    ``skip_replaced_head``). A minor channel is one group: its head only skips."""
    by_channel: dict[str, list[_Entry]] = {}
    for edge in edges:
        by_channel.setdefault(edge.channel, []).append(edge)
    for name, members in by_channel.items():
        members.sort(key=lambda e: _VersionKey(e.version))
        channel = channels[name]
        channel.entries = [{"name": e.name} for e in members]
        previous_head = ""
        start = 0
        for index, member in enumerate(members):
            following = members[index + 1] if index + 1 < len(members) else None
            if following is not None and _minor_of(following) == _minor_of(member):
                continue
            head = channel.entries[index]
            skips: list[str] = []
            if previous_head:
                head["replaces"] = previous_head
                if skip_replaced_head:
                    skips.append(previous_head)
            skips += [e.name for e in members[start:index]]
            head["skips"] = skips
            previous_head, start = member.name, index + 1


def _minor_of(entry: _Entry) -> tuple[int, int]:
    return (entry.version.major, entry.version.minor)


def _package_metadata(channel: _Channel | None, resolved: dict[str, ResolvedBundle]) -> list[str]:
    """``populatePackageMetadata`` (v1.65.0): description and first icon of the default channel
    head's CSV (the last entry: entries are added in ascending version order)."""
    if channel is None or not channel.entries:
        return []
    head = channel.entries[-1]["name"]
    csv = next((r.csv for r in resolved.values() if r.bundle.name == head), None)
    return package_metadata(csv)


def package_metadata(csv: Mapping[str, Any] | None) -> list[str]:
    """The ``"icon":...`` and ``"description":...`` members of an ``olm.package`` blob that opm
    (v1.65.0 and later) takes from the CSV of the default channel's head (None: no CSV)."""
    if csv is None:
        return []
    spec = csv.get("spec")
    if not isinstance(spec, dict):
        return []
    out: list[str] = []
    icons = spec.get("icon")
    icon_text = None
    if isinstance(icons, list) and icons:
        decoded: list[tuple[bytes, str]] = []
        for icon in icons:
            if not isinstance(icon, dict):
                decoded = []
                break
            data, mediatype = icon.get("base64data"), icon.get("mediatype", "")
            try:
                raw = base64.b64decode(
                    str(data or "").replace("\r", "").replace("\n", ""), validate=True
                )
            except (binascii.Error, ValueError):
                decoded = []  # json.Unmarshal of the icon list fails: no icon at all
                break
            decoded.append((raw, str(mediatype or "")))
        if decoded:
            raw, mediatype = decoded[0]
            icon_text = (
                f'"icon":{{"base64data":{go_string(base64.b64encode(raw).decode())},'
                f'"mediatype":{go_string(mediatype)}}}'
            )
    description = spec.get("description")
    if isinstance(description, str) and description:
        out.append(f'"description":{go_string(description)}')
    if icon_text:
        out.insert(0, icon_text)
    return out


def describe(template: SemverTemplate) -> dict[str, Any]:
    """A JSON-able summary (for reports)."""
    return {
        "generateMajorChannels": template.generate_major,
        "generateMinorChannels": template.generate_minor,
        "defaultChannelTypePreference": template.preference,
        **{a: len(template.bundles.get(a, ())) for a in ARCHETYPES},
    }


def dump(template: SemverTemplate, *, explicit_preference: bool = False) -> str:
    """The template as YAML (both generate flags always written, so v1.26.5 and v1.72 read it
    alike)."""
    lines = [
        f"schema: {SCHEMA}",
        f"generateMajorChannels: {json.dumps(template.generate_major)}",
        f"generateMinorChannels: {json.dumps(template.generate_minor)}",
    ]
    if explicit_preference:
        lines.append(f"defaultChannelTypePreference: {template.preference}")
    for archetype in ARCHETYPES:
        refs = template.bundles.get(archetype, ())
        if not refs:
            continue
        lines.append(f"{archetype}:")
        lines.append("  bundles:")
        lines += [f"  - image: {_yaml_scalar(ref)}" for ref in refs]
    return "\n".join(lines) + "\n"


def _yaml_scalar(text: str) -> str:
    """A plain scalar when YAML reads it back as the same string, else a JSON string."""
    from olmcat.files.yaml import load

    try:
        if text and text.strip() == text and load(f"x: {text}") == {"x": text}:
            return text
    except Exception:  # any YAML trouble: quote it
        pass
    return json.dumps(text)


Resolve = Callable[[str], ResolvedBundle]
