"""Conversions between legacy catalog layouts: the library behind ``olmcat convert``.

``pkgman_to_bundles`` turns a package-manifest tree into bundle-format directories: each bundle
the legacy loader lists in a channel becomes ``<out>/<package>/<version-dir>/`` with
``manifests/`` (the files its objects came from, copied byte for byte) and
``metadata/annotations.yaml`` naming the package, the default channel and every channel the bundle
belongs to. A version directory holding several CSVs gives one bundle directory per CSV, named
after the CSV (``<out>/<package>/<csv-name>/``), each with the directory's other files.

The tree is read exactly as ``migrate pkgman`` reads it (:mod:`olmcat.readers.pkgman`, the
initializer's rules), so a bundle belongs to a channel when the loader lists it there: it is on
the ``replaces`` chain from the channel's ``currentCSV``, or a bundle on that chain skips it.
operator-sdk's ``pkgman-to-bundle`` puts every bundle that heads no channel in the default channel
only (operator-sdk issue #5170), so an index built from its output loses it from its other
channels. With the channels set this way, ``opm registry add --mode replaces`` of the bundles (or
``olmcat migrate pkgman`` of the output) gives the same channels as the package manifests, as long
as every channel's ``currentCSV`` has the highest version among the bundles listed in it.

Bundles in no channel are not converted (the loader left them out too); each is a notice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from olmcat.errors import OutputError
from olmcat.files import safe
from olmcat.files.output import open_output, writing
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.readers import bundledir
from olmcat.readers.pkgman import CsvCandidate, PkgmanCatalog
from olmcat.writers.fbc import check_package_name, staged_directory

MEDIATYPE_REGISTRY_V1 = "registry+v1"


@dataclass(frozen=True, slots=True)
class ConvertedBundle:
    package: str
    name: str  # the CSV name
    source: Path
    target: Path
    channels: tuple[str, ...]
    default_channel: str


@dataclass(slots=True)
class ConvertResult:
    packages: int = 0
    bundles: list[ConvertedBundle] = field(default_factory=list)
    left_out: list[Path] = field(default_factory=list)  # CSV files of bundles in no channel
    notices: list[Notice] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def warnings(self) -> list[str]:
        return [n.message for n in self.notices if n.severity != "info"]


def annotations_yaml(package: str, channels: list[str], default: str) -> str:
    """The ``metadata/annotations.yaml`` of a converted bundle."""
    annotations = {
        bundledir.ANNOTATION_CHANNELS: ",".join(channels),
        bundledir.ANNOTATION_DEFAULT_CHANNEL: default,
        bundledir.ANNOTATION_MANIFESTS: bundledir.MANIFESTS_DIR + "/",
        bundledir.ANNOTATION_MEDIATYPE: MEDIATYPE_REGISTRY_V1,
        bundledir.ANNOTATION_METADATA: bundledir.METADATA_DIR + "/",
        bundledir.ANNOTATION_PACKAGE: package,
    }
    return yaml.safe_dump({"annotations": annotations}, default_flow_style=False, sort_keys=True)


def pkgman_to_bundles(source: Path, out: Path, *, notify: NoticeSink = discard) -> ConvertResult:
    """Convert the package-manifest tree ``source`` into bundle directories under ``out``.

    ``out`` must not exist or be empty; it appears only when the conversion is complete. The tree
    must load without errors (as ``migrate pkgman`` without ``--permissive``)."""
    started = time.perf_counter()
    result = ConvertResult()

    def note(notice: Notice) -> None:
        result.notices.append(notice)
        notify(notice)

    catalog = PkgmanCatalog(source, notify=note)
    try:
        with staged_directory(out) as staging:
            listed: set[str] = set()
            for name in catalog.package_names():
                check_package_name(name)
                state = catalog.packages_by_name[name]
                membership = catalog.channel_membership(name)
                result.packages += 1
                for bundle_name, channels in sorted(membership.items()):
                    candidate = catalog.bundles[bundle_name]
                    listed.add(bundle_name)
                    target = staging / name / _target_name(candidate, catalog)
                    if target.exists():
                        raise OutputError(
                            f"{candidate.path}: bundle {bundle_name!r} would go to {target}, "
                            "which another bundle already uses"
                        )
                    _write_bundle(candidate, target, name, channels, state.default_channel)
                    result.bundles.append(
                        ConvertedBundle(
                            name,
                            bundle_name,
                            candidate.path.parent,
                            out / target.relative_to(staging),
                            tuple(channels),
                            state.default_channel,
                        )
                    )
            package_dirs = catalog.package_dirs()
            for bundle_name, candidate in sorted(catalog.bundles.items()):
                inside = any(d in candidate.path.parents for d in package_dirs)
                if bundle_name not in listed and inside:
                    result.left_out.append(candidate.path)
                    note(
                        Notice(
                            "convert.bundle-not-in-channel",
                            f"{candidate.path}: bundle {bundle_name!r} is in no channel; not "
                            "converted (migrating the package manifest leaves it out too)",
                            file=str(candidate.path),
                            bundle=bundle_name,
                        )
                    )
    finally:
        catalog.close()
    result.seconds = time.perf_counter() - started
    return result


def _target_name(candidate: CsvCandidate, catalog: PkgmanCatalog) -> Path:
    """The version directory's path below its package directory, or the CSV name when the
    directory holds several bundles."""
    directory = candidate.path.parent
    shared = sum(1 for c in catalog.bundles.values() if c.path.parent == directory) > 1
    if shared:
        return Path(candidate.name)
    for package_dir in sorted(catalog.package_dirs(), key=lambda p: -len(p.parts)):
        if package_dir == directory:
            return Path(candidate.name)
        if package_dir in directory.parents:
            relative = directory.relative_to(package_dir)
            safe.check_path_name(str(relative), "version directory", file=str(directory))
            return relative
    safe.check_path_name(directory.name, "version directory", file=str(directory))
    return Path(directory.name)


def _write_bundle(
    candidate: CsvCandidate, target: Path, package: str, channels: list[str], default: str
) -> None:
    manifests_dir = target / bundledir.MANIFESTS_DIR
    metadata_dir = target / bundledir.METADATA_DIR
    with writing(target):
        manifests_dir.mkdir(parents=True)
        metadata_dir.mkdir()
    for path in candidate.files:
        safe.copy_file(path, manifests_dir / path.name)  # the input policy applies
    with open_output(metadata_dir / "annotations.yaml", "w") as fh:
        fh.write(annotations_yaml(package, channels, default))
