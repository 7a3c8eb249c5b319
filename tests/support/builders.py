"""Small builders that create test catalogs in code (SQLite index DBs in the current schema).

sqlite-utils writes the rows; the table DDL is spelled out to match the legacy layout exactly.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils

# The current (schema 13) layout, reduced to the tables and columns olmcat reads.
SCHEMA_13 = """
CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, timestamp TEXT);
CREATE TABLE package (name TEXT PRIMARY KEY, default_channel TEXT);
CREATE TABLE channel (name TEXT, package_name TEXT, head_operatorbundle_name TEXT,
    PRIMARY KEY (name, package_name));
CREATE TABLE channel_entry (entry_id INTEGER PRIMARY KEY, channel_name TEXT, package_name TEXT,
    operatorbundle_name TEXT, replaces INTEGER, depth INTEGER);
CREATE TABLE operatorbundle (name TEXT PRIMARY KEY, csv TEXT, bundle TEXT, bundlepath TEXT,
    skiprange TEXT, version TEXT, replaces TEXT, skips TEXT, substitutesfor TEXT);
CREATE TABLE properties (type TEXT, value TEXT, operatorbundle_name TEXT,
    operatorbundle_version TEXT, operatorbundle_path TEXT);
CREATE TABLE dependencies (type TEXT, value TEXT, operatorbundle_name TEXT,
    operatorbundle_version TEXT, operatorbundle_path TEXT);
CREATE TABLE related_image (image TEXT, operatorbundle_name TEXT);
CREATE TABLE deprecated (operatorbundle_name TEXT PRIMARY KEY);
CREATE TABLE api (group_name TEXT, version TEXT, kind TEXT, plural TEXT);
CREATE TABLE api_provider (group_name TEXT, version TEXT, kind TEXT, operatorbundle_name TEXT,
    operatorbundle_version TEXT, operatorbundle_path TEXT);
CREATE TABLE api_requirer (group_name TEXT, version TEXT, kind TEXT, operatorbundle_name TEXT,
    operatorbundle_version TEXT, operatorbundle_path TEXT);
"""


def crd_doc(plural: str, group: str, kind: str, versions: list[str]) -> dict[str, Any]:
    """A CustomResourceDefinition manifest serving ``versions``."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural},
            "versions": [{"name": v} for v in versions],
        },
    }


def csv(name: str, version: str, **spec: Any) -> dict[str, Any]:
    """A ClusterServiceVersion manifest (``spec`` adds fields to its spec)."""
    return {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {"name": name},
        "spec": {"version": version, **spec},
    }


@dataclass
class BundleSpec:
    name: str
    version: str
    replaces: str = ""
    skips: list[str] = field(default_factory=list)
    skip_range: str = ""
    image: str = ""
    properties: list[tuple[str, str]] = field(default_factory=list)
    related_images: list[str] = field(default_factory=list)
    csv_spec: dict[str, Any] = field(default_factory=dict)
    bundle_text: str | bytes | None = "auto"  # "auto": the CSV as JSON; None: NULL column

    def csv(self) -> dict[str, Any]:
        return csv(self.name, self.version, **self.csv_spec)


@dataclass
class PackageSpec:
    name: str
    default_channel: str
    # channel -> bundles from head to tail (each replaces the next one)
    channels: dict[str, list[BundleSpec]]


def make_index_db(path: Path, packages: list[PackageSpec], *, schema_version: int = 13) -> Path:
    """Write a schema-13 index DB the way the legacy loader laid one out."""
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA_13)
    db = sqlite_utils.Database(conn)
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    rows["schema_migrations"].append({"version": schema_version, "timestamp": "2020-01-01"})
    entry_id = 0

    def entry(channel: str, package: str, bundle: str, replaces: int | None, depth: int) -> int:
        nonlocal entry_id
        entry_id += 1
        rows["channel_entry"].append(
            {
                "entry_id": entry_id,
                "channel_name": channel,
                "package_name": package,
                "operatorbundle_name": bundle,
                "replaces": replaces,
                "depth": depth,
            }
        )
        return entry_id

    for pkg in packages:
        rows["package"].append({"name": pkg.name, "default_channel": pkg.default_channel})
        written: set[str] = set()
        for channel, bundles in pkg.channels.items():
            rows["channel"].append(
                {
                    "name": channel,
                    "package_name": pkg.name,
                    "head_operatorbundle_name": bundles[0].name,
                }
            )
            # Entries are written tail first so that replaces can point at earlier entry ids.
            ids: dict[str, int] = {}
            for depth, bundle in reversed(list(enumerate(bundles))):
                ids[bundle.name] = entry(
                    channel, pkg.name, bundle.name, ids.get(bundle.replaces), depth
                )
                for skipped in bundle.skips:
                    skipped_id = entry(channel, pkg.name, skipped, None, depth + 1)
                    entry(channel, pkg.name, bundle.name, skipped_id, depth + 1)
                if bundle.name not in written:
                    written.add(bundle.name)
                    _bundle_rows(rows, pkg.name, bundle)
    for table, table_rows in rows.items():
        db[table].insert_all(table_rows, batch_size=1000)
    conn.commit()
    conn.close()
    return path


def _bundle_rows(rows: dict[str, list[dict[str, Any]]], package: str, bundle: BundleSpec) -> None:
    csv_json = json.dumps(bundle.csv(), separators=(",", ":"), sort_keys=True)
    text: str | bytes | None = csv_json if bundle.bundle_text == "auto" else bundle.bundle_text
    rows["operatorbundle"].append(
        {
            "name": bundle.name,
            "csv": csv_json,
            "bundle": text,
            "bundlepath": bundle.image,
            "skiprange": bundle.skip_range,
            "version": bundle.version,
            "replaces": bundle.replaces,
            "skips": ",".join(bundle.skips),
            "substitutesfor": "",
        }
    )
    props = [("olm.package", json.dumps({"packageName": package, "version": bundle.version}))]
    rows["properties"].extend(
        {
            "type": type_,
            "value": value,
            "operatorbundle_name": bundle.name,
            "operatorbundle_version": bundle.version,
            "operatorbundle_path": bundle.image,
        }
        for type_, value in props + bundle.properties
    )
    rows["related_image"].extend(
        {"image": image, "operatorbundle_name": bundle.name} for image in bundle.related_images
    )


def simple_package(
    name: str = "demo", versions: tuple[str, ...] = ("0.2.0", "0.1.0")
) -> PackageSpec:
    """One package, one channel ``stable``, a linear replaces chain (head first)."""
    bundles = []
    for index, version in enumerate(versions):
        replaces = f"{name}.v{versions[index + 1]}" if index + 1 < len(versions) else ""
        bundles.append(BundleSpec(f"{name}.v{version}", version, replaces=replaces))
    return PackageSpec(name, "stable", {"stable": bundles})
