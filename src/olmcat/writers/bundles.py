"""Conversions between legacy catalog layouts: the library behind ``olmcat convert``.

``pkgman_to_bundles`` turns a package-manifest tree into bundle-format directories:
``<out>/<package>/<version-dir>/manifests/`` holds the version directory's manifest files, copied
byte for byte, and ``metadata/annotations.yaml`` names the package, the default channel and every
channel the bundle belongs to.

A bundle belongs to a channel when the legacy loader lists it in that channel: it is on the
``replaces`` chain that starts at the channel's ``currentCSV``, or a bundle on that chain skips it
(``spec.skips``; the loader listed such bundles in the channel too, so the round trip stays
exact). operator-sdk's ``pkgman-to-bundle`` puts every bundle that heads no channel in the default
channel only (operator-sdk issue #5170), so an index built from its output loses it from its
other channels. With the channels set this way, ``opm registry add --mode replaces`` of the
bundles (or ``olmcat migrate pkgman`` of the output) gives the same channels as the package
manifests, as long as every channel's ``currentCSV`` has the highest version among the bundles
listed in it.

Version directories in no channel are not converted (the loader left them out too); each is
reported as a warning.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from olmcat.errors import InputError, OutputError, ValidationError
from olmcat.model import manifests
from olmcat.readers import bundledir
from olmcat.readers.pkgman import (
    MANIFEST_EXTENSIONS,
    PackageFile,
    PkgmanCatalog,
    _Walker,
    is_object,
    is_package_file,
    iter_documents,
    read_package_file,
)
from olmcat.writers.fbc import check_package_name, staged_directory

Warn = Callable[[str], None]

MEDIATYPE_REGISTRY_V1 = "registry+v1"


@dataclass(frozen=True, slots=True)
class VersionDir:
    """One version directory of a package manifest: its CSV and its manifest files."""

    path: Path
    csv_name: str
    replaces: str
    skips: tuple[str, ...]
    files: tuple[Path, ...]


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
    left_out: list[Path] = field(default_factory=list)  # version dirs in no channel
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _first_object(path: Path) -> dict[str, Any] | None:
    """The first Kubernetes object of a file, as the legacy loader decoded it."""
    first: dict[str, Any] | None = next((d for d in iter_documents(path) if is_object(d)), None)
    return first


def _might_be_csv(path: Path) -> bool:
    # Only CSV files are parsed (CRDs can be large); a CSV names its kind in its text.
    try:
        return b"ClusterServiceVersion" in path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None


def version_dirs(package_dir: Path, walker: _Walker, other_packages: set[Path]) -> list[VersionDir]:
    """The version directories of one package: every directory below it (not below another
    package) whose manifest files include a CSV; exactly one CSV each."""
    found: list[VersionDir] = []
    for directory, dirnames, files in walker.walk(package_dir):
        dirnames[:] = [d for d in dirnames if directory / d not in other_packages]
        manifest_files = [
            directory / f
            for f in files
            if f.lower().endswith(MANIFEST_EXTENSIONS) and not is_package_file(directory / f)
        ]
        csvs: list[tuple[Path, dict[str, Any]]] = []
        for path in manifest_files:
            if not _might_be_csv(path):
                continue
            obj = _first_object(path)
            if obj is not None and manifests.kind(obj) == manifests.CSV_KIND:
                csvs.append((path, obj))
        if not csvs:
            continue
        if len(csvs) > 1:
            names = ", ".join(p.name for p, _ in csvs)
            raise ValidationError(
                f"{directory}: a version directory must hold exactly one ClusterServiceVersion, "
                f"found {len(csvs)} ({names})"
            )
        csv_path, csv = csvs[0]
        if not manifests.name(csv):
            raise ValidationError(f"{csv_path}: the CSV has no metadata.name")
        found.append(
            VersionDir(
                path=directory,
                csv_name=manifests.name(csv),
                replaces=manifests.csv_replaces(csv),
                skips=tuple(manifests.csv_skips(csv)),
                files=tuple(manifest_files),
            )
        )
    return found


def default_channel(package: PackageFile) -> str:
    """The loader's rule: ``defaultChannel``, or the only channel of the package."""
    names = [c for c, _ in package.channels]
    if package.default_channel in names:
        return package.default_channel
    if len(set(names)) == 1:
        return names[0]
    raise ValidationError(
        f"{package.path}: defaultChannel {package.default_channel!r} is not one of the channels"
        if package.default_channel
        else f"{package.path}: no defaultChannel, and the package has several channels"
    )


def bundle_channels(package: PackageFile, bundles: dict[str, VersionDir]) -> dict[str, list[str]]:
    """CSV name -> every channel that lists it, in package-file order.

    Each channel's ``replaces`` chain is followed from its ``currentCSV``; bundles a chain
    member skips belong to the channel too. A missing ``currentCSV`` or ``replaces`` target and
    a cycle are errors, as they were for the loader.
    """
    membership: dict[str, list[str]] = {}

    def join(name: str, channel: str) -> None:
        channels = membership.setdefault(name, [])
        if channel not in channels:
            channels.append(channel)

    for channel, head in package.channels:
        if not channel:
            raise ValidationError(f"{package.path}: a channel has no name")
        if head not in bundles:
            raise ValidationError(
                f"{package.path}: channel {channel!r} points at currentCSV {head!r}, which is "
                f"not in any version directory of {package.path.parent}"
            )
        name, seen = head, set()
        while name:
            if name in seen:
                raise ValidationError(
                    f"{package.path}: channel {channel!r}: replaces cycle at {name}"
                )
            seen.add(name)
            bundle = bundles.get(name)
            if bundle is None:
                raise ValidationError(
                    f"{package.path}: channel {channel!r}: a bundle replaces {name!r}, which does "
                    "not exist"
                )
            join(name, channel)
            for skipped in bundle.skips:
                if skipped in bundles:
                    join(skipped, channel)
            name = bundle.replaces
    return membership


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


def _package_file(package_dir: Path) -> PackageFile:
    files = sorted(p for p in package_dir.iterdir() if p.is_file() and is_package_file(p))
    return read_package_file(files[0])


def _target_name(package_dir: Path, version_dir: Path) -> Path:
    relative = version_dir.relative_to(package_dir)
    return relative if relative.parts else Path(version_dir.name)


def pkgman_to_bundles(source: Path, out: Path, *, warn: Warn | None = None) -> ConvertResult:
    """Convert the package-manifest tree ``source`` into bundle directories under ``out``.

    ``out`` must not exist or be empty; it appears only when the conversion is complete.
    """
    started = time.perf_counter()
    result = ConvertResult()

    def note(message: str) -> None:
        result.warnings.append(message)
        if warn is not None:
            warn(message)

    catalog = PkgmanCatalog(source)  # discovery and package-file checks only
    package_dirs = catalog.package_dirs()
    packages = [(_package_file(d), d) for d in package_dirs]
    seen: dict[Path, Path] = {}
    walker = _Walker(source)
    with staged_directory(out) as staging:
        for package, package_dir in sorted(packages, key=lambda item: item[0].name):
            check_package_name(package.name)
            if not package.channels:
                raise ValidationError(f"{package.path}: package {package.name!r} has no channels")
            default = default_channel(package)
            by_name: dict[str, VersionDir] = {}
            for version in version_dirs(package_dir, walker, package_dirs - {package_dir}):
                if version.csv_name in by_name:
                    raise ValidationError(
                        f"{version.path}: CSV {version.csv_name!r} is also defined in "
                        f"{by_name[version.csv_name].path}"
                    )
                by_name[version.csv_name] = version
            membership = bundle_channels(package, by_name)
            result.packages += 1
            for version in sorted(by_name.values(), key=lambda v: v.path):
                channels = membership.get(version.csv_name)
                if not channels:
                    result.left_out.append(version.path)
                    note(
                        f"{version.path}: bundle {version.csv_name!r} is in no channel; not "
                        "converted (migrating the package manifest leaves it out too)"
                    )
                    continue
                target = staging / package.name / _target_name(package_dir, version.path)
                if target in seen:
                    raise OutputError(
                        f"{version.path} and {seen[target]} would both go to {target}"
                    )
                seen[target] = version.path
                _write_bundle(version, target, package.name, channels, default)
                result.bundles.append(
                    ConvertedBundle(
                        package.name,
                        version.csv_name,
                        version.path,
                        out / target.relative_to(staging),
                        tuple(channels),
                        default,
                    )
                )
    result.seconds = time.perf_counter() - started
    return result


def _write_bundle(
    version: VersionDir, target: Path, package: str, channels: list[str], default: str
) -> None:
    manifests_dir = target / bundledir.MANIFESTS_DIR
    metadata_dir = target / bundledir.METADATA_DIR
    try:
        manifests_dir.mkdir(parents=True)
        metadata_dir.mkdir()
        for path in version.files:
            shutil.copyfile(path, manifests_dir / path.name)
        (metadata_dir / "annotations.yaml").write_text(
            annotations_yaml(package, channels, default), encoding="utf-8"
        )
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {exc.strerror}") from None
