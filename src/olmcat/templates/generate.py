"""Templates made from an existing catalog, one per package.

* **basic**: the package's blobs as they are, each ``olm.bundle`` reduced to its image (what
  ``opm alpha convert-template basic`` does), or kept whole with ``inline_bundles`` (an olmcat
  extension opm cannot render). Bundles that cannot be named by image (no image, or an image
  several bundles share) are left out, with a notice, unless inlined.
* **semver**: the bundles of the package sorted into ``candidate`` / ``fast`` / ``stable`` and the
  generate flags chosen so that the rendered channel graph is as close as possible to the
  existing one: every candidate layout is rendered and compared with the package by the diff
  engine, and the one with the fewest stranded installs, then the fewest differences, wins.
  Semver templates cannot express channel names other than ``<archetype>-vX[.Y]``, skipRange,
  arbitrary replaces/skips, package icons (before v1.65.0), properties or deprecations; the round
  trip reports each such loss.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from olmcat.errors import InputError
from olmcat.go.opm import NEWEST, MigrateLevel, OpmRelease
from olmcat.go.semver import Version, parse_version
from olmcat.model import PackageCatalog
from olmcat.model import property as prop
from olmcat.model.csvmetadata import as_rendered_by
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.templates import semver as semver_template
from olmcat.templates.decl import OutputFormat
from olmcat.templates.semver import ARCHETYPES, SemverTemplate, StreamKind

_ARCHETYPE_NAME = re.compile(r"^(candidate|fast|stable)(?:-v\d+(?:\.\d+)?)?$")
_STABLE_WORDS = ("stable", "release", "ga", "prod", "lts", "latest")
_FAST_WORDS = ("fast",)


def _left_out(notify: NoticeSink, pkg: str, bundle: str, reason: str, code: str) -> None:
    notify(
        Notice(
            code,
            f"package {pkg}: bundle {bundle} is left out of the template: {reason}",
            package=pkg,
            bundle=bundle,
        )
    )


def referable_bundles(
    pkg: PackageCatalog, image_owners: Mapping[str, int], notify: NoticeSink, *, kind: str
) -> list[str]:
    """Names of the bundles a template can name by image, in name order; notices for the rest."""
    out = []
    for bundle in sorted(pkg.bundles, key=lambda b: b.name):
        if not bundle.image:
            _left_out(
                notify,
                pkg.name,
                bundle.name,
                "it has no image, so a template cannot name it"
                + (" (--inline-bundles keeps it whole)" if kind == "basic" else ""),
                "template.bundle-without-image",
            )
        elif image_owners.get(bundle.image, 0) > 1:
            _left_out(
                notify,
                pkg.name,
                bundle.name,
                f"its image {bundle.image} is the image of several bundles, so it does not name "
                "one bundle" + (" (--inline-bundles keeps it whole)" if kind == "basic" else ""),
                "template.shared-image",
            )
        else:
            out.append(bundle.name)
    return out


# -- basic -----------------------------------------------------------------------------------------


def basic_texts(
    pkg: PackageCatalog,
    image_owners: Mapping[str, int],
    *,
    inline_bundles: bool,
    opm: OpmRelease = NEWEST,
    migrate_level: MigrateLevel = "none",
    notify: NoticeSink = discard,
) -> list[str]:
    """Compact JSON texts of the template's blobs, in the catalog writer's order (bundles kept
    whole by ``inline_bundles`` as opm ``opm`` with ``migrate_level`` would write them)."""
    from olmcat.go.json import go_string
    from olmcat.writers.fbc import blobs

    keep = (
        {b.name for b in pkg.bundles}
        if inline_bundles
        else set(referable_bundles(pkg, image_owners, notify, kind="basic"))
    )
    reduced = {
        b.name: f'{{"schema":"olm.bundle","image":{go_string(b.image)}}}' for b in pkg.bundles
    }
    kept = tuple(b for b in pkg.bundles if b.name in keep)
    if inline_bundles:
        kept = tuple(as_rendered_by(b, opm, migrate_level, notify) for b in kept)
    trimmed = PackageCatalog(pkg.package, pkg.channels, kept, pkg.deprecations, pkg.others)
    texts = []
    bundle_names = iter(sorted(keep))
    for text in blobs(trimmed):
        if text.startswith('{"schema":"olm.bundle"') and not inline_bundles:
            text = reduced[next(bundle_names)]
        texts.append(text)
    return texts


def basic_document(texts: Iterable[str], *, opm: OpmRelease, output: OutputFormat) -> str:
    """A basic template file: a plain FBC stream (before v1.44.0), else ``olm.template.basic``."""
    from olmcat.go.json import indent
    from olmcat.writers.fbc import render_json, render_yaml

    items = list(texts)
    if not opm.has("template-basic-schema"):
        render = render_json if output == "json" else render_yaml
        return "".join(render(items))
    if output == "json":
        body = ",".join(items)
        return indent(f'{{"schema":"olm.template.basic","entries":[{body}]}}', 0) + "\n"
    lines = ["schema: olm.template.basic", "entries:"]
    for chunk in render_yaml(items):
        document = chunk.removeprefix("---\n").rstrip("\n").split("\n")
        lines.append("- " + document[0])
        lines += [("  " + line) if line else "" for line in document[1:]]
    return "\n".join(lines) + "\n"


# -- semver ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Layout:
    """How channels map to archetypes, and which stream kinds to generate."""

    name: str  # "by-name", "all-stable", "default-stable"
    archetypes: dict[str, tuple[str, ...]]  # archetype -> channel names


def _archetype_by_name(channel: str) -> str:
    match = _ARCHETYPE_NAME.match(channel)
    if match:
        return match.group(1)
    lowered = channel.lower()
    words = set(re.split(r"[^a-z0-9]+", lowered))
    if words & set(_FAST_WORDS):
        return "fast"
    if words & set(_STABLE_WORDS):
        return "stable"
    return "candidate"


def layouts(pkg: PackageCatalog, forced: Mapping[str, str] | None = None) -> list[Layout]:
    """Candidate channel -> archetype mappings, the most natural first; ``forced`` fixes the
    archetype of some channels in every layout."""
    names = sorted(c.name for c in pkg.channels)
    forced = forced or {}
    by_name: dict[str, list[str]] = {a: [] for a in ARCHETYPES}
    for name in names:
        by_name[_archetype_by_name(name)].append(name)
    default_stable: dict[str, list[str]] = {a: [] for a in ARCHETYPES}
    for name in names:
        default_stable["stable" if name == pkg.package.default_channel else "candidate"].append(
            name
        )
    options = [
        Layout("by-name", {a: tuple(v) for a, v in by_name.items()}),
        Layout("all-stable", {"candidate": (), "fast": (), "stable": tuple(names)}),
        Layout("default-stable", {a: tuple(v) for a, v in default_stable.items()}),
    ]
    if forced:
        options = [
            Layout(
                o.name,
                {
                    a: tuple(
                        sorted(
                            {c for c in o.archetypes[a] if c not in forced}
                            | {c for c, f in forced.items() if f == a and c in names}
                        )
                    )
                    for a in ARCHETYPES
                },
            )
            for o in options
        ]
    unique: list[Layout] = []
    for option in options:
        if all(option.archetypes != seen.archetypes for seen in unique):
            unique.append(option)
    return unique


FLAG_OPTIONS: tuple[tuple[bool, bool, StreamKind], ...] = (
    (False, True, "minor"),  # minor channels only (opm's default)
    (True, False, "major"),
    (True, True, "minor"),
    (True, True, "major"),
)


def _flag_options(opm: OpmRelease) -> tuple[tuple[bool, bool, StreamKind], ...]:
    """The generate flags a template for ``opm`` can ask for. Before v1.27.1 both kinds give the
    major default channel (Go's usual map order): ``defaultChannelTypePreference``, which those
    releases refuse, cannot ask for the minor one."""
    if opm.has("template-semver-channel-preference"):
        return FLAG_OPTIONS
    return tuple(o for o in FLAG_OPTIONS if not (o[0] and o[1] and o[2] == "minor"))


def semver_candidates(
    pkg: PackageCatalog,
    image_owners: Mapping[str, int],
    *,
    opm: OpmRelease = NEWEST,
    archetypes: Mapping[str, str] | None = None,
    streams: str | None = None,
    notify: NoticeSink = discard,
) -> list[tuple[str, SemverTemplate]]:
    """Every template worth trying, with a label; bundles a semver template cannot carry are
    left out (with a notice)."""
    usable: dict[str, tuple[str, Version]] = {}  # bundle name -> (image, version)
    for name in referable_bundles(pkg, image_owners, notify, kind="semver"):
        bundle = pkg.bundle(name)
        assert bundle is not None
        packages = bundle.properties_of(prop.TYPE_PACKAGE)
        if len(packages) != 1:
            _left_out(
                notify,
                pkg.name,
                name,
                f"it has {len(packages)} olm.package properties; a semver template needs one",
                "template.semver-version",
            )
            continue
        version_text = prop.parse_package(packages[0]).version
        try:
            usable[name] = (bundle.image, parse_version(version_text))
        except InputError:
            _left_out(
                notify,
                pkg.name,
                name,
                f"its version {version_text!r} is not a strict semantic version",
                "template.semver-version",
            )
    candidates: list[tuple[str, SemverTemplate]] = []
    reported: set[tuple[str, str]] = set()
    for layout in layouts(pkg, archetypes):
        refs: dict[str, tuple[str, ...]] = {}
        for archetype in ARCHETYPES:
            members = sorted(
                {
                    e.name
                    for c in pkg.channels
                    if c.name in layout.archetypes[archetype]
                    for e in c.entries
                    if e.name in usable
                }
            )
            members.sort(key=functools.cmp_to_key(functools.partial(_compare, usable)))
            kept: list[str] = []
            for name in members:
                plain = usable[name][1].replace(build=None)
                clash = next((k for k in kept if usable[k][1].replace(build=None) == plain), None)
                if clash is None:
                    kept.append(name)
                elif (name, clash) not in reported:
                    reported.add((name, clash))
                    _left_out(
                        notify,
                        pkg.name,
                        name,
                        f"its version {usable[name][1]} differs from that of {clash} only by "
                        "build metadata, which a semver template cannot order",
                        "template.semver-build-metadata",
                    )
            refs[archetype] = tuple(usable[n][0] for n in kept)
        preferring = opm.has("template-semver-channel-preference")
        for major, minor, preference in _flag_options(opm):
            kind = "both" if major and minor else "major" if major else "minor"
            if streams is not None and streams != kind:
                continue
            # The field is written only where it decides something (and the release reads it).
            explicit = preferring and major and minor and preference == "major"
            template = SemverTemplate(major, minor, preference, refs, explicit_preference=explicit)
            label = (
                f"{layout.name}, "
                + ("major+minor" if major and minor else "major" if major else "minor")
                + (f" (default {preference})" if major and minor else "")
            )
            candidates.append((label, template))
    return candidates


def _compare(usable: Mapping[str, tuple[str, Version]], a: str, b: str) -> int:
    return int(usable[a][1].compare(usable[b][1]))


def semver_document(template: SemverTemplate, *, output: OutputFormat) -> str:
    if output == "yaml":
        return semver_template.dump(template, explicit_preference=template.explicit_preference)
    import json

    document: dict[str, object] = {
        "schema": semver_template.SCHEMA,
        "generateMajorChannels": template.generate_major,
        "generateMinorChannels": template.generate_minor,
    }
    if template.explicit_preference:
        document["defaultChannelTypePreference"] = template.preference
    for archetype in ARCHETYPES:
        refs = template.bundles.get(archetype, ())
        if refs:
            document[archetype] = {"bundles": [{"image": r} for r in refs]}
    return json.dumps(document, indent=4) + "\n"
