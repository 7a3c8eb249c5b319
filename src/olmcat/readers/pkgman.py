"""Read package-manifest directories into the catalog model.

Layout: ``<pkg>/<pkg>.package.yaml`` (``packageName``, ``channels`` with ``currentCSV``,
``defaultChannel``) and one directory per version holding exactly one CSV plus CRDs and other
manifests. ``root`` may be one package directory or a tree holding many, at any depth.

The result equals what the legacy ``initializer`` stored followed by ``opm migrate``: manifests
re-encoded as Go's ``json.Marshal`` writes them (sorted keys, HTML escaping), stored in file-name
order; provided APIs from the CRDs in the version directory (every version) and owned API services;
required APIs from the CSV; the channel graph laid out from each channel's ``currentCSV`` along
``replaces`` and ``spec.skips`` exactly as ``addPackageChannels`` did; the default channel is
``defaultChannel``, or the only channel when there is one.

Validation follows the loader (``../shared/reference/002`` §1.3.1): every package has a channel,
every ``currentCSV`` exists, one CSV per version directory, owned CRDs are present, ``replaces``
targets exist. By default the first invalid package stops the read; with ``permissive`` it is
skipped with a warning (``initializer --permissive``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pathspec

from olmcat.errors import InputError, ValidationError
from olmcat.files.yaml import load_all
from olmcat.go.json import marshal_object
from olmcat.model import Bundle, Channel, Meta, Package, PackageCatalog, manifests
from olmcat.model import property as prop
from olmcat.readers import legacy
from olmcat.readers.fbc import IGNORE_FILE, _ignored
from olmcat.readers.parallel import map_in_order, worker_count
from olmcat.readers.source import selected

Warn = Callable[[str], None]

MANIFEST_EXTENSIONS = (".yaml", ".yml", ".json")
PACKAGE_SUFFIXES = (".package.yaml", ".package.yml", ".package.json")


def is_package_file(path: Path) -> bool:
    return path.name.lower().endswith(PACKAGE_SUFFIXES)


@dataclass(slots=True)
class PackageFile:
    path: Path
    name: str
    channels: list[tuple[str, str]]  # (channel, currentCSV) in file order
    default_channel: str


@dataclass(slots=True)
class BundleDir:
    path: Path
    csv: dict[str, Any]
    csv_file: Path
    objects: list[dict[str, Any]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return manifests.name(self.csv)


def iter_documents(path: Path) -> Iterator[Any]:
    """The YAML documents of a manifest file, read lazily; read errors name the file."""
    try:
        with path.open(encoding="utf-8") as fh:
            yield from load_all(fh)
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    except Exception as exc:  # yaml errors from libyaml
        raise InputError(f"{path}: not valid YAML: {str(exc).splitlines()[0]}") from None


def is_object(document: Any) -> bool:
    """A Kubernetes object: a mapping with ``apiVersion`` and ``kind``."""
    return isinstance(document, dict) and "kind" in document and "apiVersion" in document


def read_package_file(path: Path) -> PackageFile:
    documents = list(iter_documents(path))
    if not documents or not isinstance(documents[0], dict):
        raise InputError(f"{path}: not a package manifest (expected packageName and channels)")
    doc = documents[0]
    name = doc.get("packageName")
    if not isinstance(name, str) or not name:
        raise InputError(f"{path}: package manifest has no packageName")
    channels = []
    for index, channel in enumerate(doc.get("channels") or []):
        if not isinstance(channel, dict):
            raise InputError(
                f"{path}: channels[{index}] must be a mapping with name and currentCSV"
            )
        channels.append((str(channel.get("name") or ""), str(channel.get("currentCSV") or "")))
    default = doc.get("defaultChannel")
    return PackageFile(path, name, channels, default if isinstance(default, str) else "")


class _Walker:
    """Directory walking shared by discovery and bundle loading: skips hidden entries and what
    .indexignore files exclude."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.specs: dict[Path, pathspec.GitIgnoreSpec] = {}

    def walk(self, top: Path) -> Iterator[tuple[Path, list[str], list[str]]]:
        for directory, dirnames, filenames in os.walk(top):
            here = Path(directory)
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            if IGNORE_FILE in filenames and here not in self.specs:
                lines = (here / IGNORE_FILE).read_text(encoding="utf-8").splitlines()
                self.specs[here] = pathspec.GitIgnoreSpec.from_lines(lines)
            files = [
                f
                for f in sorted(filenames)
                if not f.startswith(".") and not _ignored(here / f, self.root, self.specs)
            ]
            yield here, dirnames, files

    def preload(self, directory: Path) -> None:
        """Load the .indexignore files of ``directory``'s ancestors below the root (a worker
        process reads one package without having walked the tree)."""
        for ancestor in [*reversed(directory.parents), directory]:
            if ancestor != self.root and self.root not in ancestor.parents:
                continue
            ignore_file = ancestor / IGNORE_FILE
            if ancestor not in self.specs and ignore_file.is_file():
                lines = ignore_file.read_text(encoding="utf-8").splitlines()
                self.specs[ancestor] = pathspec.GitIgnoreSpec.from_lines(lines)


def _read_in_worker(
    job: tuple[Path, PackageFile, bool, frozenset[Path]],
) -> tuple[PackageCatalog | None, list[str], str | None]:
    """Read one package in a worker process: (package or None, warnings, validation error)."""
    root, package, all_documents, package_dirs = job
    warnings: list[str] = []
    walker = _Walker(root)
    walker.preload(package.path.parent)
    reader = _PackageReader(walker, all_documents, warnings.append, package_dirs)
    try:
        return reader.read_package(package), warnings, None
    except ValidationError as error:
        return None, warnings, str(error)


class PkgmanCatalog:
    """A package-manifest tree, yielding one :class:`PackageCatalog` per package."""

    def __init__(
        self,
        root: Path,
        *,
        permissive: bool = False,
        all_documents: bool = False,
        warn: Warn | None = None,
        require: bool = True,
    ) -> None:
        if not root.exists():
            raise InputError(f"{root}: no such directory")
        if not root.is_dir():
            raise InputError(f"{root}: not a directory")
        self.root = root
        self.permissive = permissive
        self.all_documents = all_documents
        self._warn = warn or (lambda message: None)
        self._walker = _Walker(root)
        self.skipped: list[str] = []
        self._packages = self._discover(require)

    def _discover(self, require: bool) -> dict[str, PackageFile]:
        found: dict[str, PackageFile] = {}
        for directory, _, files in self._walker.walk(self.root):
            for filename in files:
                path = directory / filename
                if not is_package_file(path):
                    continue
                package = read_package_file(path)
                if package.name in found:
                    raise InputError(
                        f"duplicate package {package.name!r}: {found[package.name].path} and {path}"
                    )
                found[package.name] = package
        if not found and require:
            raise InputError(f"{self.root}: no package manifest (*.package.yaml) found")
        return found

    def package_names(self) -> list[str]:
        return sorted(self._packages)

    def package_dirs(self) -> set[Path]:
        """Directories that belong to package manifests (bundle dirs below them are theirs)."""
        return {p.path.parent for p in self._packages.values()}

    def global_others(self) -> list[Meta]:
        return []

    def close(self) -> None:
        """Nothing to release; present so every reader has the same interface."""

    def __iter__(self) -> Iterator[PackageCatalog]:
        return self.packages()

    def packages(self, only: Collection[str] | None = None) -> Iterator[PackageCatalog]:
        """Packages in name order. Several are parsed at once in worker processes (YAML parsing
        dominates); results are taken in order, at most a few ahead, so memory stays bounded."""
        names = selected(self.package_names(), only)
        workers = worker_count(len(names))
        if workers < 2:
            yield from self._sequential(names)
            return
        dirs = frozenset(self.package_dirs())
        jobs = ((self.root, self._packages[n], self.all_documents, dirs) for n in names)
        for name, (result, warnings, error) in zip(
            names, map_in_order(_read_in_worker, jobs, workers), strict=True
        ):
            for warning in warnings:
                self._warn(warning)
            if result is not None:
                yield result
                continue
            if not self.permissive:
                raise ValidationError(error or f"package {name!r} is invalid")
            self.skipped.append(name)
            self._warn(f"skipped package {name!r}: {error}")

    def _sequential(self, names: list[str]) -> Iterator[PackageCatalog]:
        reader = _PackageReader(self._walker, self.all_documents, self._warn, self.package_dirs())
        for name in names:
            try:
                yield reader.read_package(self._packages[name])
            except ValidationError as error:
                if not self.permissive:
                    raise
                self.skipped.append(name)
                self._warn(f"skipped package {name!r}: {error}")


class _PackageReader:
    """Reads one package's version directories into a :class:`PackageCatalog`."""

    def __init__(
        self,
        walker: _Walker,
        all_documents: bool,
        warn: Warn,
        package_dirs: frozenset[Path] | set[Path],
    ) -> None:
        self._walker = walker
        self.all_documents = all_documents
        self._warn = warn
        self._package_dirs = package_dirs

    def _bundle_dirs(self, package: PackageFile) -> list[BundleDir]:
        package_dir = package.path.parent
        other_packages = set(self._package_dirs) - {package_dir}
        bundles: list[BundleDir] = []
        for directory, dirnames, files in self._walker.walk(package_dir):
            # A nested directory with its own package manifest belongs to that package.
            dirnames[:] = [d for d in dirnames if directory / d not in other_packages]
            objects: list[tuple[Path, dict[str, Any]]] = []
            for filename in files:
                path = directory / filename
                if not filename.lower().endswith(MANIFEST_EXTENSIONS) or is_package_file(path):
                    continue
                documents = [d for d in iter_documents(path) if is_object(d)]
                if len(documents) > 1 and not self.all_documents:
                    # The legacy loader decoded only the first document of a file, so opm's
                    # output lacks the others; say so instead of dropping them silently.
                    self._warn(
                        f"{path}: holds {len(documents)} manifests; only the first is read, as the "
                        "legacy loader did (use --all-documents to read them all)"
                    )
                    documents = documents[:1]
                objects.extend((path, d) for d in documents)
            csvs = [(p, o) for p, o in objects if manifests.kind(o) == manifests.CSV_KIND]
            if not csvs:
                continue
            if len(csvs) > 1:
                files_text = ", ".join(str(p.name) for p, _ in csvs)
                raise ValidationError(
                    f"{directory}: a version directory must hold exactly one "
                    f"ClusterServiceVersion, found {len(csvs)} ({files_text})"
                )
            csv_path, csv = csvs[0]
            bundles.append(BundleDir(directory, csv, csv_path, [o for _, o in objects]))
        return bundles

    def read_package(self, package: PackageFile) -> PackageCatalog:
        where = str(package.path)
        if not package.channels:
            raise ValidationError(f"{where}: package {package.name!r} has no channels")
        bundle_dirs = self._bundle_dirs(package)
        by_name: dict[str, BundleDir] = {}
        for bundle in bundle_dirs:
            if not bundle.name:
                raise ValidationError(f"{bundle.csv_file}: the CSV has no metadata.name")
            if bundle.name in by_name:
                raise ValidationError(
                    f"{bundle.csv_file}: CSV {bundle.name!r} is also defined in "
                    f"{by_name[bundle.name].csv_file}"
                )
            missing = manifests.owned_crds_missing(bundle.objects, bundle.csv)
            if missing:
                raise ValidationError(
                    f"{bundle.path}: the CSV owns CRDs that are not in the version directory: "
                    + ", ".join(missing)
                )
            by_name[bundle.name] = bundle

        for channel, head in package.channels:
            if not channel:
                raise ValidationError(f"{where}: a channel has no name")
            if head not in by_name:
                raise ValidationError(
                    f"{where}: channel {channel!r} points at currentCSV {head!r}, which is not in "
                    f"any version directory of {package.path.parent}"
                )
        default = _default_channel(package)
        if default is None:
            raise ValidationError(
                f"{where}: defaultChannel {package.default_channel!r} is not one of the channels"
                if package.default_channel
                else f"{where}: no defaultChannel, and the package has several channels"
            )

        graph = {
            name: legacy.GraphBundle(
                name, manifests.csv_replaces(b.csv), tuple(manifests.csv_skips(b.csv))
            )
            for name, b in by_name.items()
        }
        rows = legacy.ChannelRowBuilder(graph)
        for channel, head in package.channels:
            errors = rows.add_channel(channel, head)
            if errors:
                raise ValidationError(f"{where}: {errors[0]}")

        skip_ranges = {name: manifests.csv_skip_range(b.csv) for name, b in by_name.items()}
        per_channel = legacy.channel_entries(
            rows.rows,
            legacy.ChannelRowBuilder.START_DEPTH,
            skip_ranges.__contains__,
            skip_ranges.__getitem__,
        )
        channels = tuple(
            Channel(name=c, package=package.name, entries=tuple(per_channel.get(c, [])))
            for c in sorted({c for c, _ in package.channels})
        )
        in_channels = {e.name for c in channels for e in c.entries}
        bundles = tuple(self._bundle(by_name[name], package.name) for name in sorted(in_channels))
        unreachable = sorted(set(by_name) - in_channels)
        for name in unreachable:
            self._warn(
                f"{by_name[name].path}: bundle {name!r} is in no channel; left out (as opm does)"
            )

        head = dict(package.channels)[default]
        icon = legacy.package_icon(
            manifests.csv_icon(by_name[head].csv), self._warn, f"{by_name[head].csv_file}: icon"
        )
        return PackageCatalog(
            package=Package(name=package.name, default_channel=default, icon=icon),
            channels=channels,
            bundles=bundles,
        )

    def _bundle(self, bundle: BundleDir, package_name: str) -> Bundle:
        version = manifests.csv_version(bundle.csv)
        props = [prop.package(package_name, version)]
        props += [
            prop.gvk(g.group, g.version, g.kind)
            for g in manifests.provided_apis(bundle.objects, bundle.csv)
        ]
        deps = [
            (prop.TYPE_GVK, prop.gvk_required(g.group, g.version, g.kind).value)
            for g in manifests.required_apis(bundle.csv)
        ]
        return legacy.stored_bundle(
            legacy.StoredBundle(
                name=bundle.name,
                package=package_name,
                version=version,
                image="",
                properties=props,
                dependencies=deps,
                manifests=[marshal_object(obj) for obj in bundle.objects],
                csv=bundle.csv,
                images=manifests.operator_images(bundle.csv),
            ),
            where=f"{bundle.path}",
        )


def _default_channel(package: PackageFile) -> str | None:
    """The loader's rule: the named default channel, or the only channel of the package."""
    names = [c for c, _ in package.channels]
    if package.default_channel in names:
        return package.default_channel
    if len(set(names)) == 1:
        return names[0]
    return None
