"""Migrations from legacy catalogs to file-based catalogs: the library behind ``migrate``."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from olmcat.go.opm import MIGRATE_LEVELS as MIGRATE_LEVELS
from olmcat.go.opm import NEWEST, OpmRelease
from olmcat.go.opm import MigrateLevel as MigrateLevel
from olmcat.model import CatalogStats, PackageCatalog, counted
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.writers import fbc

if TYPE_CHECKING:
    from olmcat.readers.bundlecache import RenderCache
    from olmcat.readers.update_modes import Mode


Progress = Callable[[Iterable[PackageCatalog], int], Iterable[PackageCatalog]]


@dataclass(slots=True)
class MigrateResult:
    stats: CatalogStats
    seconds: float
    notices: list[Notice] = field(default_factory=list)
    cached_bundles: int = 0  # bundle directories taken from the rendered-bundle cache

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
    packages: Iterable[PackageCatalog],
    out: Path | None,
    *,
    total: int,
    output: fbc.OutputFormat = "json",
    migrate_level: MigrateLevel = "none",
    release: OpmRelease = NEWEST,
    progress: Progress | None = None,
    stdout: TextIO | None = None,
    notify: NoticeSink = discard,
) -> MigrateResult:
    """Stream ``packages`` into ``out`` (a directory, written atomically) or onto ``stdout``."""
    started = time.perf_counter()
    stats = CatalogStats()
    stream: Iterable[PackageCatalog] = apply_migrate_level(
        packages, migrate_level, notify, release=release
    )
    if progress is not None:
        stream = progress(stream, total)
    if out is None:
        if stdout is None:
            raise ValueError("either out or stdout is required")
        fbc.stream(counted(stream, stats), stdout, output)
    else:
        fbc.write_directory(counted(stream, stats), out, output)
    return MigrateResult(stats, time.perf_counter() - started)


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
    try:
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
        result.stats.skipped = catalog.skipped
        result.cached_bundles = catalog.bundledir.cache_hits
    finally:
        catalog.close()
    result.notices = kept
    return result
