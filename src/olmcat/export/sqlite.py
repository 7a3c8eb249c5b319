"""Any catalog as a relational SQLite database for ad-hoc SQL and Datasette.

This is not an index database that opm can serve (that format is dead); it is a plain, documented
schema built with sqlite-utils: one row per package, channel, entry, bundle, property and related
image, foreign keys between them, and full-text search on package descriptions. Packages stream
in one at a time, so memory does not grow with the catalog.

Tables (``olmcat export sqlite --help`` shows the same):

* ``packages(name PK, default_channel, description, icon_mediatype, has_icon)`` + FTS on
  ``name, description``
* ``channels(id PK, package → packages, name, head)``
* ``entries(id PK, channel_id → channels, package, channel, name, replaces, skip_range, position)``
* ``entry_skips(entry_id → entries, skips)``
* ``bundles(id PK, package → packages, name, version, image)``
* ``properties(bundle_id → bundles, position, type, value)`` (``value`` is the JSON text)
* ``related_images(bundle_id → bundles, name, image)``
* ``deprecations(package → packages, schema, name, message)``
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from olmcat.errors import OutputError
from olmcat.files.output import writing
from olmcat.model import CatalogStats, PackageCatalog
from olmcat.notices import NoticeSink, discard

if TYPE_CHECKING:
    from sqlite_utils import Database

__all__ = ["TABLES", "ExportResult", "export_sqlite", "write_database"]

TABLES = (
    "packages",
    "channels",
    "entries",
    "entry_skips",
    "bundles",
    "properties",
    "related_images",
    "deprecations",
)


@dataclass(slots=True)
class ExportResult:
    stats: CatalogStats = field(default_factory=CatalogStats)
    rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def _create_tables(db: Database) -> None:
    db.table("packages").create(
        {
            "name": str,
            "default_channel": str,
            "description": str,
            "icon_mediatype": str,
            "has_icon": int,
        },
        pk="name",
    )
    db.table("channels").create(
        {"id": int, "package": str, "name": str, "head": str},
        pk="id",
        foreign_keys=[("package", "packages", "name")],
    )
    db.table("entries").create(
        {
            "id": int,
            "channel_id": int,
            "package": str,
            "channel": str,
            "name": str,
            "replaces": str,
            "skip_range": str,
            "position": int,
        },
        pk="id",
        foreign_keys=[("channel_id", "channels", "id")],
    )
    db.table("entry_skips").create(
        {"entry_id": int, "skips": str}, foreign_keys=[("entry_id", "entries", "id")]
    )
    db.table("bundles").create(
        {"id": int, "package": str, "name": str, "version": str, "image": str},
        pk="id",
        foreign_keys=[("package", "packages", "name")],
    )
    db.table("properties").create(
        {"bundle_id": int, "position": int, "type": str, "value": str},
        foreign_keys=[("bundle_id", "bundles", "id")],
    )
    db.table("related_images").create(
        {"bundle_id": int, "name": str, "image": str},
        foreign_keys=[("bundle_id", "bundles", "id")],
    )
    db.table("deprecations").create(
        {"package": str, "schema": str, "name": str, "message": str},
        foreign_keys=[("package", "packages", "name")],
    )


def _index(db: Database) -> None:
    db.table("channels").create_index(["package", "name"], unique=True)
    db.table("entries").create_index(["package", "channel", "name"])
    db.table("entries").create_index(["name"])
    db.table("bundles").create_index(["package", "name"], unique=True)
    db.table("bundles").create_index(["image"])
    db.table("properties").create_index(["type"])
    db.table("related_images").create_index(["image"])
    db.table("packages").enable_fts(["name", "description"], create_triggers=False)


class _Ids:
    def __init__(self) -> None:
        self.channel = 0
        self.entry = 0
        self.bundle = 0


def _rows(pkg: PackageCatalog, ids: _Ids) -> Iterator[tuple[str, dict[str, Any]]]:
    package = pkg.package
    yield (
        "packages",
        {
            "name": package.name,
            "default_channel": package.default_channel,
            "description": package.description,
            "icon_mediatype": package.icon.mediatype if package.icon else "",
            "has_icon": int(package.icon is not None and bool(package.icon.base64data)),
        },
    )
    for channel in pkg.channels:
        ids.channel += 1
        heads = channel.heads()
        yield (
            "channels",
            {
                "id": ids.channel,
                "package": pkg.name,
                "name": channel.name,
                "head": heads[0] if len(heads) == 1 else "",
            },
        )
        for position, entry in enumerate(channel.entries):
            ids.entry += 1
            yield (
                "entries",
                {
                    "id": ids.entry,
                    "channel_id": ids.channel,
                    "package": pkg.name,
                    "channel": channel.name,
                    "name": entry.name,
                    "replaces": entry.replaces,
                    "skip_range": entry.skip_range,
                    "position": position,
                },
            )
            for skipped in entry.skips:
                yield "entry_skips", {"entry_id": ids.entry, "skips": skipped}
    for bundle in pkg.bundles:
        ids.bundle += 1
        yield (
            "bundles",
            {
                "id": ids.bundle,
                "package": pkg.name,
                "name": bundle.name,
                "version": bundle.version,
                "image": bundle.image,
            },
        )
        for position, item in enumerate(bundle.properties):
            yield (
                "properties",
                {
                    "bundle_id": ids.bundle,
                    "position": position,
                    "type": item.type,
                    "value": item.value,
                },
            )
        for related in bundle.related_images:
            yield (
                "related_images",
                {"bundle_id": ids.bundle, "name": related.name, "image": related.image},
            )
    for deprecation in pkg.deprecations:
        for deprecated in deprecation.entries:
            yield (
                "deprecations",
                {
                    "package": pkg.name,
                    "schema": deprecated.schema,
                    "name": deprecated.name,
                    "message": deprecated.message,
                },
            )


@contextlib.contextmanager
def _writing_database(out: Path) -> Iterator[None]:
    """SQLite's and the filesystem's write failures, as one line naming ``out``."""
    with writing(out):
        try:
            yield
        except sqlite3.Error as error:
            # SQLite reports a full disk and a file-size limit alike ("database or disk is
            # full", "disk I/O error") and keeps the errno to itself.
            raise OutputError(
                f"cannot write {out}: {error}; free space there, raise the file-size limit "
                "(`ulimit -f`) if one is set, or write it elsewhere"
            ) from None


def write_database(packages: Iterable[PackageCatalog], out: Path) -> ExportResult:
    """Write ``packages`` as a new relational database at ``out`` (which must not exist).

    The database is built beside ``out`` under a temporary name and renamed into place only when
    complete, so a failed or killed export leaves nothing at ``out``.
    """
    import sqlite_utils

    started = time.perf_counter()
    if out.exists():
        raise OutputError(f"{out}: already exists; remove it or choose another file")
    if not out.parent.is_dir():
        raise OutputError(f"{out.parent}: no such directory")
    staging = out.with_name(f".{out.name}.{os.getpid()}.partial")
    staging.unlink(missing_ok=True)
    result = ExportResult(rows=dict.fromkeys(TABLES, 0))
    try:
        with _writing_database(out):
            db = sqlite_utils.Database(staging)
            db.conn.execute("PRAGMA journal_mode = OFF")  # a fresh file: nothing to roll back to
            _create_tables(db)
        ids = _Ids()
        # Only the database work is guarded: reading the next package is not writing ``out``.
        for pkg in packages:
            result.stats.add(pkg)
            batches: dict[str, list[dict[str, Any]]] = {}
            for table, row in _rows(pkg, ids):
                batches.setdefault(table, []).append(row)
            with _writing_database(out):
                for table in TABLES:  # parents before children, for the foreign keys
                    rows = batches.get(table)
                    if rows:
                        db.table(table).insert_all(rows)
                        result.rows[table] += len(rows)
        with _writing_database(out):
            _index(db)
            db.close()
            staging.replace(out)
    except BaseException:
        staging.unlink(missing_ok=True)
        raise
    result.seconds = time.perf_counter() - started
    return result


def export_sqlite(
    reference: str | Path,
    out: Path,
    *,
    notify: NoticeSink = discard,
    platform: str | None = None,
) -> ExportResult:
    """Open any catalog reference and export it with :func:`write_database`."""
    from olmcat.readers.catalog import open_catalog

    with open_catalog(reference, notify=notify, permissive=True, platform=platform) as catalog:
        return write_database(catalog.packages(), out)
