"""Migrations from legacy catalogs to file-based catalogs: the library behind ``migrate``."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TextIO

from olmcat.model import CatalogStats, PackageCatalog, counted
from olmcat.writers import fbc

MigrateLevel = Literal["none", "bundle-object-to-csv-metadata"]
MIGRATE_LEVELS: tuple[MigrateLevel, ...] = ("none", "bundle-object-to-csv-metadata")

Warn = Callable[[str], None]
Progress = Callable[[Iterable[PackageCatalog], int], Iterable[PackageCatalog]]


@dataclass(slots=True)
class MigrateResult:
    stats: CatalogStats
    seconds: float
    warnings: list[str] = field(default_factory=list)


def apply_migrate_level(
    packages: Iterable[PackageCatalog], level: MigrateLevel
) -> Iterator[PackageCatalog]:
    """opm's ``--migrate-level``: optional rewrites applied after reading."""
    if level == "none":
        yield from packages
        return
    from olmcat.model.csvmetadata import bundle_objects_to_csv_metadata

    for pkg in packages:
        yield bundle_objects_to_csv_metadata(pkg)


def write_catalog(
    packages: Iterable[PackageCatalog],
    out: Path | None,
    *,
    total: int,
    output: fbc.OutputFormat = "json",
    migrate_level: MigrateLevel = "none",
    progress: Progress | None = None,
    stdout: TextIO | None = None,
) -> MigrateResult:
    """Stream ``packages`` into ``out`` (a directory, written atomically) or onto ``stdout``."""
    started = time.perf_counter()
    stats = CatalogStats()
    stream: Iterable[PackageCatalog] = apply_migrate_level(packages, migrate_level)
    if progress is not None:
        stream = progress(stream, total)
    if out is None:
        if stdout is None:
            raise ValueError("either out or stdout is required")
        fbc.stream(counted(stream, stats), stdout, output)
    else:
        fbc.write_directory(counted(stream, stats), out, output)
    return MigrateResult(stats, time.perf_counter() - started)


def _collector(warn: Warn | None, sink: list[str]) -> Warn:
    def collect(message: str) -> None:
        sink.append(message)
        if warn is not None:
            warn(message)

    return collect


def migrate_sqlite(
    source: str | Path,
    out: Path | None,
    *,
    output: fbc.OutputFormat = "json",
    migrate_level: MigrateLevel = "none",
    warn: Warn | None = None,
    progress: Progress | None = None,
    stdout: TextIO | None = None,
    platform: str | None = None,
) -> MigrateResult:
    """Migrate an SQLite index database (or an index image archive holding one) to a file-based
    catalog, never touching the database."""
    from olmcat.readers.catalog import open_catalog

    warnings: list[str] = []
    collect = _collector(warn, warnings)
    with open_catalog(
        source, notify=lambda n: collect(n.message), expect=("sqlite",), platform=platform
    ) as catalog:
        result = write_catalog(
            catalog.packages(),
            out,
            total=len(catalog.package_names()),
            output=output,
            migrate_level=migrate_level,
            progress=progress,
            stdout=stdout,
        )
    result.warnings = warnings
    return result


def migrate_pkgman(
    source: Path,
    out: Path | None,
    *,
    output: fbc.OutputFormat = "json",
    permissive: bool = False,
    all_documents: bool = False,
    image_ref_template: str | None = None,
    warn: Warn | None = None,
    progress: Progress | None = None,
    stdout: TextIO | None = None,
) -> MigrateResult:
    """Migrate package-manifest and bundle-format directories to a file-based catalog."""
    from olmcat.readers.directory import DirectoryCatalog

    warnings: list[str] = []
    collect = _collector(warn, warnings)
    catalog = DirectoryCatalog(
        source,
        permissive=permissive,
        all_documents=all_documents,
        image_ref_template=image_ref_template,
        warn=collect,
    )
    try:
        result = write_catalog(
            catalog.packages(),
            out,
            total=len(catalog.package_names()),
            output=output,
            progress=progress,
            stdout=stdout,
        )
        result.stats.skipped = catalog.skipped
    finally:
        catalog.close()
    result.warnings = warnings
    return result
