"""Read legacy SQLite index databases (every historical schema) into the catalog model.

What comes out is what ``opm migrate`` (v1.26.5 to v1.72.0) writes for the same database, except
that olmcat reads schemas opm cannot migrate and never modifies the file:

* the database is opened read-only and immutable, so SQLite neither writes to it nor creates a
  journal beside it (opm upgrades the schema in place);
* older schemas are read as opm's own migrations would have rewritten them (package and GVK
  properties from the API tables, required APIs as dependencies, versions and skip ranges from the
  CSV, related images from the CSV where the table is missing);
* one package is read at a time: every table is streamed ordered by package, so memory is bounded
  by the largest package, not by the catalog.

opm semantics reproduced (the goldens in ``shared/corpus/expected`` are the spec): bundles without
channel entries and bundles carrying an ``olm.deprecated`` property are left out; a bundle's
``replaces`` is found by following replaces pointers from the channel heads (the entries of minimal
depth) and every other inbound edge of ``channel_entry`` becomes a skip; properties come from the
``properties`` table, ``olm.gvk`` rows are rebuilt, ``dependencies`` become ``olm.gvk.required`` /
``olm.package.required``; manifests come from the ``bundle`` column as ``olm.bundle.object``
properties in stored order; related images are the CSV's ``spec.relatedImages`` plus every
``related_image`` row; the package icon is the first icon of the default channel head's CSV.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import urllib.parse
from collections import defaultdict
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from olmcat.errors import InputError
from olmcat.go.json import compact
from olmcat.model import (
    Bundle,
    Channel,
    Meta,
    Package,
    PackageCatalog,
    manifests,
)
from olmcat.model import property as prop
from olmcat.model.property import Property
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.readers import legacy
from olmcat.readers.legacy import EntryRow

SQLITE_MAGIC = b"SQLite format 3\x00"
GOLANG_MIGRATE_VERSION = 201909251211
LATEST_SCHEMA = 14
REQUIRED_TABLES = ("package", "channel", "channel_entry", "operatorbundle")


def is_sqlite_file(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(16) == SQLITE_MAGIC
    except OSError:
        return False


@dataclass(frozen=True, slots=True)
class Schema:
    """What a database's tables look like, and therefore where each fact must be read from."""

    migration: int | None  # max(schema_migrations.version); None before migrations existed
    tables: frozenset[str]
    columns: dict[str, frozenset[str]] = field(hash=False)

    @property
    def label(self) -> str:
        if self.migration is None:
            flavour = (
                "api.groupOrName" if "groupOrName" in self.columns["api"] else "api.group_name"
            )
            return f"pre-migration ({flavour})"
        if self.migration == GOLANG_MIGRATE_VERSION:
            return f"golang-migrate {GOLANG_MIGRATE_VERSION}"
        return str(self.migration)

    def has(self, table: str, column: str | None = None) -> bool:
        if table not in self.tables:
            return False
        return column is None or column in self.columns[table]

    @property
    def api_group_column(self) -> str:
        return "groupOrName" if self.has("api_provider", "groupOrName") else "group_name"

    @property
    def apis_by_entry(self) -> bool:
        """Before migration 006 the API tables point at channel entries, not bundles."""
        return self.has("api_provider", "channel_entry_id")


def detect_schema(conn: sqlite3.Connection, path: Path) -> Schema:
    tables = frozenset(
        str(row[0]) for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    )
    missing = [t for t in REQUIRED_TABLES if t not in tables]
    if missing:
        raise InputError(
            f"{path}: not an OLM index database (missing tables: {', '.join(missing)})"
        )
    columns = {
        t: frozenset(str(row[1]) for row in conn.execute(f'PRAGMA table_info("{t}")'))
        for t in tables
    }
    migration: int | None = None
    if "schema_migrations" in tables:
        versions = [row[0] for row in conn.execute("SELECT version FROM schema_migrations")]
        if not versions or not all(isinstance(v, int) for v in versions):
            raise InputError(f"{path}: schema_migrations holds no usable version {versions[:3]!r}")
        migration = max(versions)
        if migration != GOLANG_MIGRATE_VERSION and not 0 <= migration <= LATEST_SCHEMA:
            raise InputError(
                f"{path}: unknown index schema version {migration} (olmcat reads 0 to "
                f"{LATEST_SCHEMA} and the golang-migrate era); was it written by a newer opm?"
            )
    return Schema(migration, tables, columns)


def open_readonly(path: Path) -> sqlite3.Connection:
    """Open ``path`` so that SQLite can never write to it or create files next to it."""
    for suffix in ("-journal", "-wal"):
        sidecar = path.with_name(path.name + suffix)
        if sidecar.exists() and sidecar.stat().st_size > 0:
            raise InputError(
                f"{path}: a {suffix[1:]} file lies beside the database, so a writer did not "
                "finish; open it once with sqlite3 to recover it, or migrate a copy"
            )
    uri = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=ro&immutable=1"
    try:
        conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
        conn.execute("PRAGMA query_only = 1")
        # Every page is read about once, so a big page cache buys nothing; the sorters of the
        # per-table streams size themselves by it too (peak memory of a 30x database: -3 MiB).
        conn.execute("PRAGMA cache_size = -256")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{path}: the database is corrupt or truncated: {exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: malformed database schema (names that are not UTF-8)") from None
    return conn


def _text(value: Any, where: str) -> str:
    """Column values may be TEXT or BLOB (image-built DBs store some JSON as BLOB)."""
    if value is None:
        return ""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"{where} is not valid UTF-8") from None
    return str(value)


def split_objects(text: str, where: str) -> list[tuple[str, Any]]:
    """Split the ``bundle`` column (JSON documents written back to back) into raw documents,
    each with its parsed value (opm keeps the raw text of each; we need both)."""
    decoder = json.JSONDecoder()
    objects: list[tuple[str, Any]] = []
    index, end = 0, len(text)
    while True:
        while index < end and text[index] in " \t\r\n":
            index += 1
        if index >= end:
            return objects
        try:
            value, stop = decoder.raw_decode(text, index)
        except ValueError as exc:
            raise InputError(
                f"{where}: manifest {len(objects) + 1} is not valid JSON: {exc}"
            ) from None
        objects.append((text[index:stop], value))
        index = stop


def _parse_object(raw: str) -> dict[str, Any] | None:
    try:
        obj = json.loads(raw)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


@dataclass(slots=True)
class _BundleRow:
    name: str
    bundlepath: str
    version: str | None
    skiprange: str | None
    manifests: list[str] = field(default_factory=list)
    objects: list[dict[str, Any]] = field(default_factory=list)
    csv: dict[str, Any] | None = None


class _Grouped:
    """Rows of one query ordered by package; hands out the rows of one package at a time."""

    def __init__(self, rows: Iterator[tuple[Any, ...]]) -> None:
        self._groups = itertools.groupby(rows, key=lambda row: row[0])
        self._current: tuple[str, list[tuple[Any, ...]]] | None = None
        self._advance()

    def _advance(self) -> None:
        try:
            key, rows = next(self._groups)
        except StopIteration:
            self._current = None
        else:
            self._current = (key, list(rows))

    def take(self, package: str) -> list[tuple[Any, ...]]:
        """Rows of ``package``; rows of packages that sort before it (orphans) are dropped."""
        while self._current is not None and self._current[0] < package:
            self._advance()
        if self._current is not None and self._current[0] == package:
            rows = self._current[1]
            self._advance()
            return rows
        return []


class SqliteCatalog:
    """A read-only view of an index database that yields one :class:`PackageCatalog` at a time."""

    def __init__(self, path: Path, *, notify: NoticeSink = discard) -> None:
        self.path = path
        self._notify = notify
        if not path.exists():
            raise InputError(f"{path}: no such file")
        if not path.is_file():
            raise InputError(f"{path}: not a file")
        if not is_sqlite_file(path):
            raise InputError(f"{path}: not an SQLite database (wrong file header)")
        self._conn = open_readonly(path)
        try:
            self.schema = detect_schema(self._conn, path)
            self._check_integrity()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise InputError(f"{path}: the database is corrupt or truncated: {exc}") from None
        except UnicodeDecodeError:
            self._conn.close()
            raise InputError(
                f"{path}: malformed database schema (names that are not UTF-8)"
            ) from None
        except BaseException:
            self._conn.close()
            raise

    def global_others(self) -> list[Meta]:
        return []

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> SqliteCatalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_integrity(self) -> None:
        # quick_check reads every page: a truncated or damaged file fails here, before any output.
        problems = [row[0] for row in self._conn.execute("PRAGMA quick_check(5)")]
        if problems != ["ok"]:
            # quick_check reports over several lines; say it on one, briefly.
            found = [" ".join(str(p).split()) for p in problems if str(p).strip()]
            text = "; ".join(found)
            text = text if len(text) <= 300 else text[:297] + "..."
            raise InputError(f"{self.path}: the database is corrupt ({text}); use a good copy")

    def _query(self, sql: str, *params: Any) -> Iterator[tuple[Any, ...]]:
        # A plain loop, not ``yield from``: closing this generator must not close the cursor
        # (the connection may already be closed by then).
        try:
            for row in self._conn.execute(sql, params):  # noqa: UP028
                yield row
        except sqlite3.DatabaseError as exc:
            raise InputError(f"{self.path}: the database is corrupt or truncated: {exc}") from None

    # -- public ---------------------------------------------------------------------------------

    def package_names(self) -> list[str]:
        for (name,) in self._query("SELECT name FROM package WHERE typeof(name) != 'text' LIMIT 1"):
            # Rows are matched to packages by name: opm fails on such a DB too.
            raise InputError(f"{self.path}: package name {name!r} is not stored as text")
        return [
            str(row[0]) for row in self._query("SELECT DISTINCT name FROM package ORDER BY name")
        ]

    def __iter__(self) -> Iterator[PackageCatalog]:
        return self.packages()

    def packages(self, only: Collection[str] | None = None) -> Iterator[PackageCatalog]:
        """Yield packages in name order, each fully read before the next one starts."""
        schema = self.schema
        members = "(SELECT DISTINCT package_name, operatorbundle_name FROM channel_entry)"
        streams: dict[str, _Grouped] = {}

        def stream(name: str, sql: str) -> None:
            streams[name] = _Grouped(self._query(sql))

        tip_row = next(self._query("SELECT min(depth) FROM channel_entry"), (None,))
        tip = tip_row[0]
        if only is None:
            self._report_unlisted()
        stream(
            "channels",
            "SELECT package_name, name, head_operatorbundle_name FROM channel "
            "ORDER BY package_name, name",
        )
        stream(
            "entries",
            "SELECT package_name, entry_id, channel_name, operatorbundle_name, replaces, depth "
            "FROM channel_entry ORDER BY package_name, entry_id",
        )
        version = "o.version" if schema.has("operatorbundle", "version") else "NULL"
        skiprange = "o.skiprange" if schema.has("operatorbundle", "skiprange") else "NULL"
        bundlepath = "o.bundlepath" if schema.has("operatorbundle", "bundlepath") else "''"
        stream(
            "bundles",
            f"SELECT m.package_name, o.name, {bundlepath}, {version}, {skiprange} "
            f"FROM operatorbundle o JOIN {members} m ON m.operatorbundle_name = o.name "
            "ORDER BY m.package_name, o.name",
        )
        for table in ("properties", "dependencies"):
            if schema.has(table):
                stream(
                    table,
                    f"SELECT m.package_name, t.operatorbundle_name, t.type, t.value "
                    f"FROM {table} t JOIN {members} m "
                    "ON m.operatorbundle_name = t.operatorbundle_name "
                    "ORDER BY m.package_name, t.rowid",
                )
        if schema.has("related_image"):
            stream(
                "related_image",
                f"SELECT m.package_name, t.operatorbundle_name, t.image "
                f"FROM related_image t JOIN {members} m "
                "ON m.operatorbundle_name = t.operatorbundle_name "
                "ORDER BY m.package_name, t.rowid",
            )
        if not schema.has("properties"):
            for table in ("api_provider", "api_requirer"):
                if schema.has(table):
                    stream(table, self._api_sql(table))

        for pkg_row in self._query("SELECT name, default_channel FROM package ORDER BY name"):
            name, default_channel = _text(pkg_row[0], "package name"), _text(pkg_row[1], "")
            rows = {key: grouped.take(name) for key, grouped in streams.items()}
            if only is not None and name not in only:
                continue
            yield self._package(name, default_channel, tip, rows)

    def _report_unlisted(self) -> None:
        """Bundles with no channel entry: opm never lists them (nothing names their package)."""
        rows = self._query(
            "SELECT name FROM operatorbundle WHERE name NOT IN "
            "(SELECT operatorbundle_name FROM channel_entry) ORDER BY name"
        )
        for (name,) in rows:
            bundle = _text(name, f"{self.path}: bundle name")
            self._notify(
                Notice(
                    "sqlite.bundle-not-in-channel",
                    f"{self.path}: bundle {bundle!r} has no channel entry; left out, as opm does",
                    "info",
                    bundle=bundle,
                )
            )

    def _api_sql(self, table: str) -> str:
        group = self.schema.api_group_column
        if self.schema.apis_by_entry:
            return (
                f'SELECT e.package_name, e.operatorbundle_name, a."{group}", a.version, a.kind '
                f"FROM {table} a JOIN channel_entry e ON e.entry_id = a.channel_entry_id "
                "ORDER BY e.package_name, a.rowid"
            )
        members = "(SELECT DISTINCT package_name, operatorbundle_name FROM channel_entry)"
        return (
            f'SELECT m.package_name, a.operatorbundle_name, a."{group}", a.version, a.kind '
            f"FROM {table} a JOIN {members} m ON m.operatorbundle_name = a.operatorbundle_name "
            "ORDER BY m.package_name, a.rowid"
        )

    # -- one package ----------------------------------------------------------------------------

    def _package(
        self,
        name: str,
        default_channel: str,
        tip: int | None,
        rows: dict[str, list[tuple[Any, ...]]],
    ) -> PackageCatalog:
        where = f"{self.path}: package {name!r}"
        bundles = {
            str(r[1]): _BundleRow(str(r[1]), _text(r[2], where), r[3], r[4])
            for r in rows["bundles"]
        }
        # Old schemas synthesize properties from every bundle's manifests first; otherwise each
        # bundle's manifests are read just before its model is built and dropped right after, so
        # a package never holds all of its raw manifests and parsed CSVs at once.
        old_schema = not self.schema.has("properties")
        if old_schema:
            for bundle in bundles.values():
                self._load_manifests(bundle, where)

        props: dict[str, list[Property]] = defaultdict(list)
        for _, bundle_name, type_, value in rows.get("properties", []):
            raw = _text(value, f"{where}: property of bundle {bundle_name!r}")
            props[bundle_name].append(
                Property(
                    str(type_),
                    compact(raw, what=f"{where}: bundle {bundle_name!r} property {type_}"),
                )
            )
        deps: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for _, bundle_name, type_, value in rows.get("dependencies", []):
            deps[bundle_name].append(
                (str(type_), _text(value, f"{where}: dependency of {bundle_name!r}"))
            )
        images: dict[str, list[str]] = defaultdict(list)
        for _, bundle_name, image in rows.get("related_image", []):
            images[bundle_name].append(_text(image, where))
        if old_schema:
            self._synthesize_old_schema_properties(bundles, rows, props, deps, name)

        entries = [
            EntryRow(int(r[1]), _text(r[2], where), _text(r[3], where), r[4], r[5])
            for r in rows["entries"]
        ]
        channel_names = [_text(r[1], where) for r in rows["channels"]]
        heads = {_text(r[1], where): _text(r[2], where) for r in rows["channels"]}

        deprecated = {
            b for b, plist in props.items() if any(p.type == prop.TYPE_DEPRECATED for p in plist)
        }
        model_bundles: dict[str, Bundle] = {}
        skip_ranges: dict[str, str] = {}
        for bundle in bundles.values():
            if not old_schema:
                self._load_manifests(bundle, where)
            if bundle.name not in deprecated:
                model_bundles[bundle.name] = self._bundle(
                    bundle, name, props[bundle.name], deps[bundle.name], images[bundle.name], where
                )
                skip_ranges[bundle.name] = self._skip_range(bundle)
            bundle.manifests, bundle.objects, bundle.csv = [], [], None

        channels = self._channels(name, channel_names, entries, tip, skip_ranges, where)
        in_channels = {e.name for c in channels for e in c.entries}
        kept = tuple(b for n, b in sorted(model_bundles.items()) if n in in_channels)

        for bundle_name in sorted(deprecated & set(bundles)):
            self._notify(
                Notice(
                    "sqlite.deprecated-bundle",
                    f"{where}: bundle {bundle_name!r} carries olm.deprecated; left out, as opm "
                    "does (edges to it stay)",
                    "info",
                    package=name,
                    bundle=bundle_name,
                )
            )
        if default_channel not in {c.name for c in channels}:
            self._notify(
                Notice(
                    "sqlite.default-channel-empty",
                    f"{where}: default channel {default_channel!r} has no bundles",
                    package=name,
                )
            )
        head = heads.get(default_channel, "")
        icon = legacy.head_icon(self._stored_csv(head), head, where, self._notify, package=name)
        catalog = PackageCatalog(
            package=Package(name=name, default_channel=default_channel, icon=icon),
            channels=tuple(channels),
            bundles=kept,
        )
        legacy.check_like_opm(catalog, where)
        return catalog

    def _stored_csv(self, bundle_name: str) -> str | None:
        """The ``csv`` column opm reads for the channel head (``GetBundleForChannel``)."""
        if not bundle_name or not self.schema.has("operatorbundle", "csv"):
            return None
        row = next(self._query("SELECT csv FROM operatorbundle WHERE name = ?", bundle_name), None)
        return None if row is None else _text(row[0], f"{self.path}: bundle {bundle_name!r}")

    def _load_manifests(self, bundle: _BundleRow, where: str) -> None:
        has_csv_column = self.schema.has("operatorbundle", "csv")
        columns = "bundle, csv" if has_csv_column else "bundle, NULL"
        row = next(self._query(f"SELECT {columns} FROM operatorbundle WHERE name = ?", bundle.name))
        what = f"{where}: bundle {bundle.name!r}"
        text = _text(row[0], what)
        if text:
            parsed = split_objects(text, what)
            bundle.manifests = [raw for raw, _ in parsed]
            objects = [obj for _, obj in parsed if isinstance(obj, dict)]
            bundle.csv = next((o for o in objects if manifests.kind(o) == manifests.CSV_KIND), None)
            if not self.schema.has("properties"):
                # only old schemas read anything but the CSV (CRD groups); a package's parsed
                # CRDs would otherwise be most of the reader's memory
                bundle.objects = objects
            if bundle.csv is None:
                self._notify(
                    Notice(
                        "sqlite.bundle-without-csv",
                        f"{what}: the bundle column holds no ClusterServiceVersion",
                        bundle=bundle.name,
                    )
                )
        if bundle.csv is None and row[1] is not None and self._needs_csv(bundle):
            # Older schemas: version / skip range / related images must come from the CSV even
            # when the bundle column is empty; the csv column still holds it.
            bundle.csv = _parse_object(_text(row[1], what))

    def _needs_csv(self, bundle: _BundleRow) -> bool:
        return bundle.version is None or not self.schema.has("related_image")

    def _synthesize_old_schema_properties(
        self,
        bundles: dict[str, _BundleRow],
        rows: dict[str, list[tuple[Any, ...]]],
        props: dict[str, list[Property]],
        deps: dict[str, list[tuple[str, str]]],
        package_name: str,
    ) -> None:
        """What migrations 008 and 009 would have written for a database older than schema 9:
        an ``olm.package`` property per bundle, ``olm.gvk`` from ``api_provider`` and required
        GVKs from ``api_requirer``. Only what the database records is used, as opm would have;
        APIs an old loader did not record stay absent (opm's output for schema 5 agrees)."""
        crd_groups = {
            crd: group
            for b in bundles.values()
            for crd, group in manifests.crd_groups(b.objects).items()
        }
        for bundle in bundles.values():
            props[bundle.name].append(prop.package(package_name, self._version(bundle)))
        for _, bundle_name, group, version, kind in rows.get("api_provider", []):
            group_name = crd_groups.get(str(group), str(group))  # v1.0.x stored CRD names
            props[bundle_name].append(prop.gvk(group_name, str(version), str(kind)))
        if not self.schema.has("dependencies"):
            for _, bundle_name, group, version, kind in rows.get("api_requirer", []):
                group_name = crd_groups.get(str(group), str(group))
                required = prop.gvk_required(group_name, str(version), str(kind))
                deps[bundle_name].append((prop.TYPE_GVK, required.value))

    def _version(self, bundle: _BundleRow) -> str:
        if bundle.version is not None:
            return str(bundle.version)
        return manifests.csv_version(bundle.csv)

    def _skip_range(self, bundle: _BundleRow) -> str:
        if bundle.skiprange is not None:
            return str(bundle.skiprange)
        return manifests.csv_skip_range(bundle.csv)

    def _bundle(
        self,
        bundle: _BundleRow,
        package_name: str,
        props: list[Property],
        deps: list[tuple[str, str]],
        images: list[str],
        where: str,
    ) -> Bundle:
        if not self.schema.has("related_image"):
            # Migration 001 filled the table from the CSV: relatedImages and operator containers.
            images = manifests.operator_images(bundle.csv)
        return legacy.stored_bundle(
            legacy.StoredBundle(
                name=bundle.name,
                package=package_name,
                version=self._version(bundle),
                image=bundle.bundlepath,
                properties=props,
                dependencies=deps,
                manifests=bundle.manifests,
                csv=bundle.csv,
                images=images,
            ),
            where=f"{where}: bundle {bundle.name!r}",
            notify=self._notify,
        )

    def _channels(
        self,
        package_name: str,
        channel_names: list[str],
        entries: list[EntryRow],
        tip: int | None,
        skip_ranges: dict[str, str],
        where: str,
    ) -> list[Channel]:
        per_channel = legacy.channel_entries(
            entries, tip, known=skip_ranges.__contains__, skip_range=skip_ranges.__getitem__
        )
        unknown = sorted(set(per_channel) - set(channel_names))
        for channel in unknown:
            self._notify(
                Notice(
                    "sqlite.channel-without-row",
                    f"{where}: channel {channel!r} has entries but no channel row; kept (opm "
                    "refuses such a database)",
                    package=package_name,
                )
            )

        channels: list[Channel] = []
        for channel in sorted(set(channel_names) | set(unknown)):
            model_entries = per_channel.get(channel, [])
            if not model_entries:
                self._notify(
                    Notice(
                        "sqlite.empty-channel",
                        f"{where}: channel {channel!r} has no bundles; left out (opm refuses "
                        "such a database)",
                        package=package_name,
                    )
                )
                continue
            channels.append(
                Channel(name=channel, package=package_name, entries=tuple(model_entries))
            )
        return channels
