"""``add``: ``opm index add`` / ``opm registry add --mode M`` on a file-based catalog.

The upgrade graph after adding is the one ``opm registry add --mode M`` builds in the index
database of the same catalog (then read back as ``opm migrate`` reads it). The graph algorithms
are those of :mod:`olmcat.readers.update_modes`: the package's channels are laid out as index rows
(``PackageIndex.from_channels``), the new bundles are added in the mode, refusals included, and
the channels are read back. Bundles come from bundle directories or saved bundle images (each
rendered as ``opm render`` renders the image); with ``--mode replaces`` all the new bundles of a
package are added in one call, as one ``opm registry add`` with several images does; in the
semver modes one at a time, in ascending version.

The new bundles' blobs are what the opm release ``release`` writes of them after adding and
migrating (``olm.csv.metadata`` by default in v1.28.0-v1.45, ``migrate_level``'s migrations).

What differs from a database on purpose: bundles already in the catalog keep their manifests
(opm's semver-mode adds clear the CSV and objects of every non-head bundle in the database, so
they would lose their ``olm.bundle.object`` properties in a migration).
"""

from __future__ import annotations

import shutil
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from olmcat.errors import InputError, ValidationError
from olmcat.files import safe
from olmcat.go.opm import NEWEST, MigrateLevel, OpmRelease, as_release, check_migrate_level
from olmcat.maintain.rewrite import MaintainResult, rewrite
from olmcat.model import Bundle, Package, PackageCatalog, manifests
from olmcat.model.csvmetadata import as_rendered_by
from olmcat.notices import Notice, NoticeLog, NoticeSink, discard
from olmcat.readers import legacy
from olmcat.readers.update_modes import (
    MODES,
    AddRefused,
    IndexBundle,
    Mode,
    PackageIndex,
    add_order,
)
from olmcat.writers.fbc import OutputFormat

ADD_MODES: tuple[Mode, ...] = tuple(m for m in MODES if m != "replaces-then-semver")


@dataclass(frozen=True, slots=True)
class NewBundle:
    """A bundle to add: what the index reads of it, its rendered blob, its CSV icon."""

    node: IndexBundle
    bundle: Bundle
    icon: tuple[str, str] | None
    source: str


def _index_bundle(loaded: object, image: str, where: str) -> IndexBundle:
    from olmcat.readers.bundlefiles import BundleDir

    assert isinstance(loaded, BundleDir)
    annotations = loaded.metadata.annotations
    return IndexBundle(
        name=loaded.name,
        package=loaded.package,
        version=loaded.spec_string("version"),
        path=image or where,
        channels=annotations.channel_list(),
        default_channel=annotations.default_channel,
        replaces=loaded.spec_string("replaces"),
        skips=loaded.spec_strings("skips"),
        skip_range=manifests.csv_skip_range(loaded.csv),
        substitutes_for=loaded.substitutes_for,
        where=where,
    )


def _load_directory(path: Path, image: str, shown: str, notify: NoticeSink) -> NewBundle:
    from olmcat.readers.bundlefiles import ANNOTATION_PACKAGE, load_bundle_dir
    from olmcat.readers.bundlerender import render

    loaded = load_bundle_dir(path, notify=notify)
    if not loaded.package:
        raise ValidationError(
            f"{shown}: no {ANNOTATION_PACKAGE} annotation; opm cannot add the bundle"
        )
    return NewBundle(
        _index_bundle(loaded, image, shown),
        render(loaded, image, notify=notify),
        manifests.csv_icon(loaded.csv),
        shown,
    )


def load_new_bundle(
    text: str, *, image_ref_template: str | None = None, notify: NoticeSink = discard
) -> NewBundle:
    """``DIR``, ``ARCHIVE``, ``IMAGE=DIR`` or ``IMAGE=ARCHIVE``: a bundle directory or a saved
    bundle image, with the image reference the catalog records for it."""
    from olmcat.oci.archive import is_image_archive, open_image
    from olmcat.readers.bundlefiles import is_bundle_dir, load_bundle_dir
    from olmcat.readers.bundlerender import image_reference

    image, sep, target = text.rpartition("=")
    path = Path(target if sep else text)
    image = image if sep else ""
    if not path.exists():
        raise InputError(f"{path}: no such bundle directory or bundle image archive")
    if path.is_dir() and is_bundle_dir(path):
        if not image and image_ref_template:
            image = image_reference(load_bundle_dir(path, notify=notify), image_ref_template)
        if not image:
            notify(
                Notice(
                    "maintain.bundle-without-image",
                    f"{path}: added without an image reference (give IMAGE={path} or "
                    "--image-ref-template to record the image the bundle is published as)",
                    file=str(path),
                )
            )
        return _load_directory(path, image, str(path), notify)
    if not is_image_archive(path):
        raise InputError(
            f"{path}: neither a bundle directory (manifests/ + metadata/) nor a bundle image "
            "archive (OCI layout, oci-archive, docker-archive)"
        )
    scratch = safe.scratch_dir("add")  # olmcat-add-<pid>-*: a killed run's is swept
    try:
        with open_image(path) as opened:
            if not image:
                image = next((r for r in opened.refs if "/" in r), "")
            opened.extract_directories(("manifests", "metadata"), scratch)
        try:
            return _load_directory(scratch, image, f"{path}!", notify)
        except (InputError, ValidationError) as error:
            raise type(error)(str(error).replace(str(scratch), f"{path}!")) from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _existing(pkg: PackageCatalog) -> list[IndexBundle]:
    channels: dict[str, list[str]] = defaultdict(list)
    for channel in pkg.channels:
        for entry in channel.entries:
            channels[entry.name].append(channel.name)
    return [
        IndexBundle(
            name=b.name,
            package=pkg.name,
            version=b.version,
            path=b.image or f"<{b.name}>",
            channels=tuple(channels.get(b.name, ())),
            default_channel=pkg.package.default_channel,
        )
        for b in pkg.bundles
    ]


def add_to_package(
    pkg: PackageCatalog | None,
    name: str,
    new: Sequence[NewBundle],
    mode: Mode,
    notify: NoticeSink = discard,
) -> PackageCatalog:
    """``pkg`` (None: a new package) after ``opm registry add --mode MODE`` of ``new``.
    Raises AddRefused (the catalog is then left as it was)."""
    if pkg is None:
        index = PackageIndex(name)
    else:
        index = PackageIndex.from_channels(
            name, pkg.package.default_channel, pkg.channels, _existing(pkg)
        )
    ordered = sorted(new, key=lambda b: (add_order(b.node.version), b.node.where))
    if mode == "replaces":
        index.add_replaces([b.node for b in ordered])
    else:
        for item in ordered:
            index.add_semver(item.node, skippatch=mode == "semver-skippatch")
    members = set(index.members())
    by_name = {b.bundle.name: b for b in new}
    bundles = [b for b in (pkg.bundles if pkg else ()) if b.name in members]
    bundles += [by_name[n].bundle for n in sorted(members) if n in by_name]
    default = index.default_channel or ""
    head = index.heads.get(default, "")
    old = pkg.package if pkg is not None else Package(name)
    icon = old.icon
    if head in by_name:
        icon = legacy.decode_package_icon(
            by_name[head].icon, notify, f"{by_name[head].source}: icon of the CSV", package=name
        )
    from olmcat.maintain.remove import drop_deprecation_entries

    base = pkg or PackageCatalog(Package(name))
    gone = {b.name for b in base.bundles} - members
    return replace(
        base,
        package=replace(old, default_channel=default, icon=icon),
        channels=index.channels(),
        bundles=tuple(sorted(bundles, key=lambda b: b.name)),
        deprecations=drop_deprecation_entries(base, bundles=gone) if gone else base.deprecations,
    )


def add_bundles(
    catalog: str | Path,
    out: Path | None,
    sources: Sequence[str],
    *,
    mode: Mode = "replaces",
    image_ref_template: str | None = None,
    in_place: bool = False,
    output: OutputFormat = "json",
    migrate_level: MigrateLevel = "none",
    release: OpmRelease | str = NEWEST,
    notify: NoticeSink = discard,
) -> MaintainResult:
    """Add the bundles of ``sources`` (see :func:`load_new_bundle`) to ``catalog`` in ``mode``.
    An empty directory as ``catalog`` starts a new catalog. The new bundles' blobs are written
    as opm ``release`` writes them, with ``migrate_level``."""
    if mode not in ADD_MODES:
        raise InputError(f"unknown mode {mode!r}: one of {', '.join(ADD_MODES)}")
    if not sources:
        raise InputError("name at least one bundle to add")
    release = as_release(release)
    check_migrate_level(migrate_level, release)
    log = NoticeLog(forward=notify)
    per_package: dict[str, list[NewBundle]] = defaultdict(list)
    for text in sources:
        item = load_new_bundle(text, image_ref_template=image_ref_template, notify=log)
        # Added to an index database and migrated by opm: the database's rendering rules.
        rendered = as_rendered_by(item.bundle, release, migrate_level, log, form="sqlite")
        per_package[item.node.package].append(replace(item, bundle=rendered))
    added: dict[str, list[str]] = {}

    def transform(name: str, pkg: PackageCatalog | None) -> PackageCatalog | None:
        new = per_package.get(name)
        if not new:
            return pkg
        try:
            changed = add_to_package(pkg, name, new, mode, log)
        except AddRefused as refused:
            raise ValidationError(
                f"opm registry add --mode {mode} refuses the bundles of package {name} "
                f"({', '.join(b.source for b in new)}): {'; '.join(refused.reasons)}"
            ) from None
        added[name] = sorted(b.bundle.name for b in new)
        return changed

    result = rewrite(
        "add",
        catalog,
        out,
        transform,
        new_packages=per_package,
        in_place=in_place,
        output=output,
        allow_empty=True,
        notify=log,
    )
    result.notices = log
    result.details = {
        "mode": mode,
        "added": added,
        "opmVersion": release.tag,
        "migrateLevel": migrate_level,
    }
    return result
