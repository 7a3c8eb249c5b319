"""Migrations from legacy catalogs to file-based catalogs: the library behind ``migrate``."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from olmcat.go.opm import MIGRATE_LEVELS as MIGRATE_LEVELS
from olmcat.go.opm import NEWEST, OpmRelease
from olmcat.go.opm import MigrateLevel as MigrateLevel
from olmcat.model import CatalogStats, PackageCatalog
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.writers import fbc

if TYPE_CHECKING:
    from olmcat.readers.bundlecache import CachedPackage, PackageOutputs, RenderCache
    from olmcat.readers.update_modes import Mode


# Shows progress over the packages as they are written (it looks at their ``name`` only).
Progress = Callable[[Iterable[Any], int], Iterable[Any]]


@dataclass(slots=True)
class MigrateResult:
    stats: CatalogStats
    seconds: float
    notices: list[Notice] = field(default_factory=list)
    cached_bundles: int = 0  # bundle directories taken from the rendered-bundle cache
    cached_packages: int = 0  # packages written from the cache, as finished before

    @property
    def warnings(self) -> list[str]:
        """The messages of notices that are warnings or errors."""
        return [n.message for n in self.notices if n.severity != "info"]


def apply_migrate_level(
    packages: Iterable[PackageCatalog],
    level: MigrateLevel,
    notify: NoticeSink = discard,
    *,
    release: OpmRelease = NEWEST,
) -> Iterator[PackageCatalog]:
    """What opm ``release`` writes of the bundles of an SQLite database (``opm migrate``):
    ``olm.csv.metadata`` by default in v1.28.0-v1.45, then ``--migrate-level``'s migrations
    (:func:`olmcat.model.csvmetadata.as_rendered_by`)."""
    from olmcat.go.opm import check_migrate_level
    from olmcat.model.csvmetadata import as_rendered_by

    check_migrate_level(level, release)
    if level == "none" and not release.has("render-sqlite-csv-metadata-by-default"):
        yield from packages
        return
    for pkg in packages:
        bundles = tuple(
            as_rendered_by(b, release, level, notify, form="sqlite") for b in pkg.bundles
        )
        if any(a is not b for a, b in zip(bundles, pkg.bundles, strict=True)):
            pkg = dataclasses.replace(pkg, bundles=bundles)
        yield pkg


def write_catalog(
    packages: Iterable[PackageCatalog | CachedPackage],
    out: Path | None,
    *,
    total: int,
    output: fbc.OutputFormat = "json",
    migrate_level: MigrateLevel = "none",
    release: OpmRelease = NEWEST,
    progress: Progress | None = None,
    stdout: TextIO | None = None,
    notify: NoticeSink = discard,
    outputs: PackageOutputs | None = None,
) -> MigrateResult:
    """Stream ``packages`` into ``out`` (a directory, written atomically) or onto ``stdout``.

    A :class:`~olmcat.readers.bundlecache.CachedPackage` (a package ``outputs`` held finished)
    is copied as it is, the notices of its migrate level sent again; a package ``outputs``
    registered as being built is stored there once written."""
    started = time.perf_counter()
    stats = CatalogStats()
    stream: Iterable[fbc.Writable] = _finishing(
        packages, migrate_level, notify, outputs, stats, release
    )
    if progress is not None:
        stream = progress(stream, total)
    if out is None:
        if stdout is None:
            raise ValueError("either out or stdout is required")
        fbc.stream(stream, stdout, output)
    else:
        fbc.write_directory(stream, out, output)
    return MigrateResult(stats, time.perf_counter() - started)


def _finishing(
    packages: Iterable[PackageCatalog | CachedPackage],
    level: MigrateLevel,
    notify: NoticeSink,
    outputs: PackageOutputs | None,
    stats: CatalogStats,
    release: OpmRelease,
) -> Iterator[fbc.Writable]:
    """The packages as written: the migrate level of ``release`` applied (each package's
    notices of it kept for the cache when it is being stored), counted."""
    for item in packages:
        if not isinstance(item, PackageCatalog):
            for notice in item.meta.later:
                notify(notice)
            channels, bundles, deprecations, others = item.meta.counts
            stats.packages += 1
            stats.channels += channels
            stats.bundles += bundles
            stats.deprecations += deprecations
            stats.others += others
            yield item
            continue
        later = outputs.later(item.name) if outputs is not None else None
        sink = notify if later is None else _keeping(notify, later)
        for pkg in apply_migrate_level([item], level, sink, release=release):
            stats.add(pkg)
            counts = (len(pkg.channels), len(pkg.bundles), len(pkg.deprecations), len(pkg.others))
            recording = outputs.writer(pkg.name, counts) if outputs is not None else None
            yield pkg if recording is None else fbc.Teed(pkg, recording)


def _keeping(notify: NoticeSink, kept: list[Notice]) -> NoticeSink:
    def sink(notice: Notice) -> None:
        kept.append(notice)
        notify(notice)

    return sink


def migrate_sqlite(
    source: str | Path,
    out: Path | None,
    *,
    output: fbc.OutputFormat = "json",
    migrate_level: MigrateLevel = "none",
    release: OpmRelease | str = NEWEST,
    notify: NoticeSink = discard,
    progress: Progress | None = None,
    stdout: TextIO | None = None,
    platform: str | None = None,
) -> MigrateResult:
    """Migrate an SQLite index database (or an index image archive holding one) to a file-based
    catalog, never touching the database. Everything left out, rewritten or doubted goes to
    ``notify`` (and into ``MigrateResult.notices``). ``release``: the opm whose ``opm migrate``
    output to write (its olm.csv.metadata rules and migration levels)."""
    from olmcat.go.opm import as_release, check_migrate_level
    from olmcat.readers.catalog import open_catalog

    release = as_release(release)
    check_migrate_level(migrate_level, release)

    kept: list[Notice] = []
    sink = _keeping(notify, kept)
    with open_catalog(source, notify=sink, expect=("sqlite",), platform=platform) as catalog:
        result = write_catalog(
            catalog.packages(),
            out,
            total=len(catalog.package_names()),
            output=output,
            migrate_level=migrate_level,
            release=release,
            progress=progress,
            stdout=stdout,
            notify=sink,
        )
    result.notices = kept
    return result


def migrate_pkgman(
    source: Path,
    out: Path | None,
    *,
    output: fbc.OutputFormat = "json",
    permissive: bool = False,
    all_documents: bool = False,
    image_ref_template: str | None = None,
    notify: NoticeSink = discard,
    progress: Progress | None = None,
    stdout: TextIO | None = None,
    mode: Mode | None = None,
    package_modes: Mapping[str, Mode] | None = None,
    cache: RenderCache | None = None,
    migrate_level: MigrateLevel = "none",
    release: OpmRelease | str = NEWEST,
) -> MigrateResult:
    """Migrate package-manifest and bundle-format directories to a file-based catalog.

    Package manifests are read as ``initializer`` loads them and written as ``opm migrate``
    writes the result. Without ``permissive`` any problem the initializer reports refuses the
    tree; with it, what loads is migrated and every bundle or package left out is a notice.
    Bundle-format packages are built as ``opm registry add`` builds them, in
    ``package_modes[package]``, else ``mode``, else the mode their ``ci.yaml`` names (see
    :mod:`olmcat.readers.bundledir`). With ``cache``, bundle directories rendered before with the
    same files and options are taken from it (:mod:`olmcat.readers.bundlecache`). ``release`` and
    ``migrate_level``: as for :func:`migrate_sqlite` (the ``opm migrate`` step of the pipeline)."""
    from olmcat.go.opm import as_release, check_migrate_level
    from olmcat.readers.directory import DirectoryCatalog

    release = as_release(release)
    check_migrate_level(migrate_level, release)

    kept: list[Notice] = []
    sink = _keeping(notify, kept)
    catalog = DirectoryCatalog(
        source,
        permissive=permissive,
        all_documents=all_documents,
        image_ref_template=image_ref_template,
        notify=sink,
        mode=mode,
        package_modes=package_modes,
        cache=cache,
    )
    outputs = None
    if cache is not None:
        from olmcat.readers.bundlecache import PackageOutputs

        # A finished package depends on the opm release and level it was written for too
        # (whatever context the caller's cache was made with).
        label = f"migrate pkgman; output {output}; opm {release.tag}; level {migrate_level}"
        outputs = PackageOutputs(cache, label)
    try:
        result = write_catalog(
            catalog.package_items(outputs=outputs),
            out,
            total=len(catalog.package_names()),
            output=output,
            migrate_level=migrate_level,
            release=release,
            progress=progress,
            stdout=stdout,
            notify=sink,
            outputs=outputs,
        )
        result.stats.skipped = catalog.skipped
        result.cached_bundles = catalog.bundledir.cache_hits
        result.cached_packages = outputs.hits if outputs is not None else 0
    finally:
        catalog.close()
        if cache is not None:
            cache.finish()
    result.notices = kept
    return result
