"""Turn a bundle image reference into the ``olm.bundle`` that ``opm render`` makes of the image.

Catalog templates name bundles by image; opm pulls each image and renders it. olmcat resolves a
reference from, in this order:

1. a local **bundle directory** mapped to the reference (``--bundle-dir REF=DIR`` or a mapping
   file): rendered exactly as opm renders the image built from that directory;
2. an existing **catalog** (``--resolve-from CATALOG``, any catalog form): the ``olm.bundle`` blob
   whose ``image`` is the reference, so a catalog's own template renders offline;
3. a **bundle image archive** mapped to the reference (``--bundle-archive REF=ARCHIVE``: OCI
   layout, oci-archive or docker-archive): its ``manifests/`` and ``metadata/`` are extracted and
   rendered as a bundle directory;
4. a **registry**, through a :class:`BundleFetcher` hook (a callable that pulls the image and
   returns an unpacked bundle directory); without one, an unresolved reference is an error that
   says which options would resolve it.

Bundles rendered here (1, 3, 4) are rendered as the opm release the template is rendered for
renders the image (object order and form, ``olm.package`` release, related-image order: see
:mod:`olmcat.readers.bundlerender`); a catalog's blob (2) is taken as that catalog holds it.
:attr:`ResolvedBundle.form` says which, for :func:`olmcat.model.csvmetadata.as_rendered_by`.

Each resolution also yields the bundle's CSV (as JSON-decoded data), which opm v1.72's semver
template reads for the package icon and description.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from olmcat.errors import InputError, ValidationError
from olmcat.files import safe
from olmcat.go.opm import NEWEST, OpmRelease
from olmcat.model import Bundle, PackageCatalog
from olmcat.model import property as prop
from olmcat.model.csvmetadata import BundleForm
from olmcat.notices import NoticeSink, discard

Manifest = dict[str, Any]


class BundleFetcher(Protocol):
    """The registry hook: pull ``ref`` and unpack its ``manifests/`` and ``metadata/`` into
    ``dest`` (an empty directory). Raise :class:`~olmcat.errors.InputError` when it cannot."""

    def __call__(self, ref: str, dest: Path) -> None: ...


@dataclass(frozen=True, slots=True)
class ResolvedBundle:
    bundle: Bundle
    csv: Manifest | None  # the CSV, where the source still has it
    source: str  # "bundle dir DIR", "catalog REF", "archive PATH", "registry"
    # "release": rendered by the release asked for; "current": a catalog's blob as it is
    form: BundleForm = "release"


def read_mapping_file(path: Path) -> dict[str, Path]:
    """``REF=DIR`` (or ``REF DIR``) per line; ``#`` comments and blank lines skipped. Relative
    directories are taken relative to the mapping file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read the bundle mapping file: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: the bundle mapping file is not UTF-8 text") from None
    mapping: dict[str, Path] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        ref, sep, target = line.partition("=")
        if not sep:
            ref, _, target = line.partition(" ")
        ref, target = ref.strip(), target.strip()
        if not ref or not target:
            raise InputError(f"{path}:{number}: expected 'IMAGE_REF=BUNDLE_DIR', got {line[:80]!r}")
        if ref in mapping:
            raise InputError(f"{path}:{number}: image {ref} is mapped twice")
        directory = Path(target)
        mapping[ref] = directory if directory.is_absolute() else path.parent / directory
    return mapping


def parse_assignment(text: str, what: str) -> tuple[str, Path]:
    """``REF=PATH`` of a command-line option."""
    ref, sep, target = text.partition("=")
    if not sep or not ref or not target:
        raise InputError(f"{what} {text!r}: expected IMAGE_REF=PATH")
    return ref, Path(target)


def csv_of_bundle(bundle: Bundle) -> Manifest | None:
    """The CSV among a bundle's ``olm.bundle.object`` properties, decoded; else None."""
    import json

    for item in bundle.properties_of(prop.TYPE_BUNDLE_OBJECT):
        data = prop.bundle_object_data(item)
        if data is None:
            continue
        try:
            obj = json.loads(data)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("kind") == "ClusterServiceVersion":
            return obj
    return None


def render_directory(
    path: Path, ref: str, notify: NoticeSink, release: OpmRelease = NEWEST
) -> ResolvedBundle:
    """opm ``release``'s render of the image built from bundle directory ``path``, tagged
    ``ref``."""
    from olmcat.readers.bundlerender import render_bundle_dir

    bundle = render_bundle_dir(path, image=ref, notify=notify, release=release)
    return ResolvedBundle(bundle, csv_of_bundle(bundle), f"bundle dir {path}")


def _render_unpacked(
    scratch: Path, ref: str, shown: str, notify: NoticeSink, release: OpmRelease
) -> ResolvedBundle:
    """Render an unpacked image; problems name the image, not the scratch directory."""
    try:
        return render_directory(scratch, ref, notify, release)
    except (InputError, ValidationError) as error:
        message = str(error).replace(str(scratch), shown)
        raise type(error)(message) from None


@dataclass(slots=True)
class _CatalogIndex:
    """Where each bundle image of one catalog lives, and the package last loaded from it."""

    reference: str
    opened: Any  # olmcat.readers.catalog.Catalog
    images: dict[str, list[tuple[str, str]]]  # image -> [(package, bundle)]
    cached: PackageCatalog | None = None

    def bundle(self, package: str, name: str) -> Bundle:
        if self.cached is None or self.cached.name != package:
            self.cached = next(iter(self.opened.packages([package])))
        found = self.cached.bundle(name)
        assert found is not None
        return found


def index_packages(packages: Iterable[PackageCatalog]) -> dict[str, list[tuple[str, str]]]:
    images: dict[str, list[tuple[str, str]]] = {}
    for pkg in packages:
        for bundle in pkg.bundles:
            if bundle.image:
                images.setdefault(bundle.image, []).append((pkg.name, bundle.name))
    return images


@dataclass
class BundleResolver(AbstractContextManager["BundleResolver"]):
    """Resolves image references in the documented order. Use as a context manager (catalogs
    opened for ``--resolve-from`` stay open until it closes)."""

    bundle_dirs: Mapping[str, Path] = field(default_factory=dict)
    catalogs: tuple[str | Path, ...] = ()
    archives: Mapping[str, Path] = field(default_factory=dict)
    fetcher: BundleFetcher | None = None
    notify: NoticeSink = discard
    _indexes: list[_CatalogIndex] | None = None
    _memo: dict[tuple[str, OpmRelease], ResolvedBundle] = field(default_factory=dict)
    _extra: list[_CatalogIndex] = field(default_factory=list)

    def add_packages(
        self, reference: str, packages: Callable[[], Iterator[PackageCatalog]]
    ) -> None:
        """Resolve also from an already open catalog (``packages`` re-streams it, e.g.
        ``catalog.packages``); consulted after the ``catalogs`` given at construction."""

        class _Opened:
            def packages(self, only: list[str]) -> Iterator[PackageCatalog]:
                return (p for p in packages() if p.name in only)

        self._extra.append(_CatalogIndex(reference, _Opened(), index_packages(packages())))

    def _catalog_indexes(self) -> list[_CatalogIndex]:
        if self._indexes is None:
            from olmcat.readers.catalog import open_catalog

            indexes: list[_CatalogIndex] = []
            try:
                for reference in self.catalogs:
                    opened = open_catalog(reference, notify=self.notify)
                    indexes.append(
                        _CatalogIndex(str(reference), opened, index_packages(opened.packages()))
                    )
            except BaseException:
                for index in indexes:
                    index.opened.close()
                raise
            self._indexes = indexes
        return [*self._indexes, *self._extra]

    def resolve(self, ref: str, release: OpmRelease = NEWEST) -> ResolvedBundle:
        """The bundle of image ``ref``, rendered (where it is rendered here) as opm
        ``release`` renders the image."""
        if not ref:
            raise InputError("a bundle entry has an empty image reference")
        found = self._memo.get((ref, release))
        if found is None:
            found = self._resolve(ref, release)
            self._memo[ref, release] = found
        return found

    def _resolve(self, ref: str, release: OpmRelease) -> ResolvedBundle:
        directory = self.bundle_dirs.get(ref)
        if directory is not None:
            return render_directory(directory, ref, self.notify, release)
        for index in self._catalog_indexes():
            owners = index.images.get(ref)
            if not owners:
                continue
            if len(set(owners)) > 1:
                names = ", ".join(f"{p}/{b}" for p, b in sorted(set(owners)))
                raise InputError(
                    f"image {ref} is the image of several bundles in {index.reference} ({names}); "
                    "map it to a bundle directory with --bundle-dir to choose"
                )
            package, name = owners[0]
            bundle = index.bundle(package, name)
            return ResolvedBundle(
                bundle, csv_of_bundle(bundle), f"catalog {index.reference}", "current"
            )
        archive = self.archives.get(ref)
        if archive is not None:
            from olmcat.readers.bundlerender import render_bundle_image

            bundle = render_bundle_image(archive, image=ref, notify=self.notify, release=release)
            return ResolvedBundle(bundle, csv_of_bundle(bundle), f"archive {archive}")
        if self.fetcher is not None:
            with _scratch() as scratch:
                try:
                    self.fetcher(ref, scratch)
                except InputError as error:
                    raise InputError(
                        f"cannot resolve bundle image {ref}: no --bundle-dir/--bundle-map entry, "
                        "--resolve-from catalog or --bundle-archive has it, and pulling it "
                        f"failed: {error}"
                    ) from None
                resolved = _render_unpacked(scratch, ref, f"image {ref}", self.notify, release)
            return ResolvedBundle(resolved.bundle, resolved.csv, "registry")
        raise InputError(
            f"cannot resolve bundle image {ref}: no --bundle-dir/--bundle-map entry, no "
            "--resolve-from catalog has a bundle with that image, no --bundle-archive for it"
            + ", and pulling from registries is off (--no-pull)"
        )

    def close(self) -> None:
        for index in self._indexes or []:
            index.opened.close()
        self._indexes = None

    def __exit__(self, *exc: object) -> None:
        self.close()


class _scratch(AbstractContextManager[Path]):  # used like a function
    def __enter__(self) -> Path:
        self.path = safe.scratch_dir("bundle")  # a killed run's is swept
        return self.path

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def extract_bundle_image(archive: Path, dest: Path, ref: str | None = None) -> None:
    """Write the ``manifests/`` and ``metadata/`` of the bundle image in ``archive`` into
    ``dest`` (layers applied in order, whiteouts honoured, nothing outside ``dest``)."""
    from olmcat.oci.archive import open_image

    if not archive.exists():
        raise InputError(f"{archive}: no such bundle image archive")
    with open_image(archive) as image:
        for part in ("manifests", "metadata"):
            try:
                image.extract_directory(part, dest / part)
            except InputError as error:
                raise InputError(
                    f"{archive}: not a bundle image"
                    + (f" for {ref}" if ref else "")
                    + f": /{part}: {str(error).split(': ', 1)[-1]}"
                ) from None


def registry_fetcher(options: Any = None) -> BundleFetcher:
    """The registry hook: pull the bundle image (credentials, TLS and ``--use-http`` from
    ``options``, else the command's registry options) through the blob cache and unpack its
    ``manifests/`` and ``metadata/``."""

    def fetch(ref: str, dest: Path) -> None:
        from olmcat.oci.pull import pulled_layout
        from olmcat.oci.transport import registry_reference

        with pulled_layout(registry_reference(ref), options=options) as layout:
            try:
                extract_bundle_image(layout, dest, ref)
            except InputError as exc:
                raise InputError(str(exc).replace(str(layout), ref)) from None

    return fetch
