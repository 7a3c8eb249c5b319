"""What runs on a cluster, read from the files an admin can produce.

Three forms, detected from the content:

* **``oc get subscriptions.operators.coreos.com,clusterserviceversions -A -o yaml``**: a ``List``
  (or a stream of objects). Each Subscription is one installed operator: package ``spec.name``,
  channel ``spec.channel`` (none: the package's default channel), installed bundle
  ``status.installedCSV``. Its CSV (same namespace, that name) gives the version
  (``spec.version``) and the ``operatorframework.io/properties`` annotation, where OLM keeps the
  bundle's properties -- OpenShift reads ``olm.maxOpenShiftVersion`` from there. Copied CSVs
  (label ``olm.copiedFrom``, annotation ``olm.operatorNamespace`` naming another namespace, or
  ``status.reason: Copied``) are the same operator seen from another namespace and are skipped,
  as OLM skips them. A CSV no Subscription manages is kept when it declares
  ``olm.maxOpenShiftVersion`` (it still blocks a cluster upgrade).
* **OLM v1 ``ClusterExtension``** objects (``olm.operatorframework.io/v1``), alone or in a List:
  package, channels, version range and ``upgradeConstraintPolicy`` from
  ``spec.source.catalog``, installed bundle from ``status.install.bundle``.
* **A simple list**: YAML (a list of mappings, or ``{operators: [...]}``) or CSV with the columns
  ``package, channel, version`` and optionally ``namespace`` and ``name`` (the bundle name). A CSV
  file may start with that header line.

Anything else in the file (other kinds, items without the fields needed) is reported as a notice,
never dropped silently.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from olmcat.errors import InputError
from olmcat.files import safe
from olmcat.files import yaml as goyaml
from olmcat.notices import Notice, NoticeSink, discard

__all__ = [
    "MAX_INVENTORY_BYTES",
    "Installed",
    "Origin",
    "load_inventory",
    "parse_inventory",
]

Origin = Literal["Subscription", "ClusterExtension", "ClusterServiceVersion", "list"]

PROPERTIES_ANNOTATION = "operatorframework.io/properties"
COPIED_LABEL = "olm.copiedFrom"
OPERATOR_NAMESPACE_ANNOTATION = "olm.operatorNamespace"
MAX_INVENTORY_BYTES = 256 * 1024 * 1024  # a cluster-wide `oc get -o yaml` is large, not this large

_SIMPLE_COLUMNS = ("package", "channel", "version", "namespace", "name")


@dataclass(frozen=True, slots=True)
class Installed:
    """One installed operator. Empty strings are unknown. ``has_csv``: the inventory holds the
    installed CSV; ``properties`` is its ``operatorframework.io/properties`` annotation (None
    without a CSV, or when the CSV has no such annotation)."""

    origin: Origin
    package: str
    channel: str = ""
    bundle: str = ""
    version: str = ""
    namespace: str = ""
    name: str = ""
    source: str = ""
    channels: tuple[str, ...] = ()
    version_range: str = ""
    self_certified: bool = False
    properties: str | None = None
    related_images: tuple[str, ...] = ()
    pending: str = ""  # a newer CSV OLM resolved but has not installed (manual approval)
    where: str = ""
    has_csv: bool = False

    @property
    def olm_v1(self) -> bool:
        return self.origin == "ClusterExtension"


@dataclass(slots=True)
class _Csv:
    namespace: str
    name: str
    version: str
    properties: str | None
    related_images: tuple[str, ...]
    where: str
    package: str = ""
    used: bool = False


@dataclass(slots=True)
class _Reader:
    source: str
    notify: NoticeSink
    subscriptions: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    csvs: dict[tuple[str, str], _Csv] = field(default_factory=dict)
    extensions: list[Installed] = field(default_factory=list)
    listed: list[Installed] = field(default_factory=list)
    copied: int = 0

    def note(self, code: str, message: str, severity: str = "warning", package: str = "") -> None:
        self.notify(
            Notice(
                f"inventory.{code}",
                f"{self.source}: {message}",
                "info" if severity == "info" else "warning",
                file=self.source,
                package=package,
            )
        )


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(_text(v) for v in value if _text(v))


def _is_copied(item: dict[str, Any], namespace: str) -> bool:
    metadata = _map(item.get("metadata"))
    if COPIED_LABEL in _map(metadata.get("labels")):
        return True
    operator_namespace = _map(metadata.get("annotations")).get(OPERATOR_NAMESPACE_ANNOTATION)
    if isinstance(operator_namespace, str) and operator_namespace != namespace:
        return True
    return _map(item.get("status")).get("reason") == "Copied"


def _package_from_properties(text: str | None) -> str:
    if not text:
        return ""
    try:
        value = json.loads(text)
    except ValueError:
        return ""
    for item in _map(value).get("properties") or []:
        if isinstance(item, dict) and item.get("type") == "olm.package":
            name = _map(item.get("value")).get("packageName")
            if isinstance(name, str):
                return name
    return ""


def _object(reader: _Reader, item: Any, where: str) -> None:
    if not isinstance(item, dict):
        reader.note("item-skipped", f"{where}: not an object; skipped")
        return
    kind = item.get("kind")
    metadata = _map(item.get("metadata"))
    namespace = _text(metadata.get("namespace"))
    name = _text(metadata.get("name"))
    spec = _map(item.get("spec"))
    status = _map(item.get("status"))
    if kind == "List" or (kind is None and isinstance(item.get("items"), list)):
        for index, child in enumerate(item.get("items") or []):
            _object(reader, child, f"{where}.items[{index}]")
        return
    if kind == "Subscription":
        reader.subscriptions.append((item, where))
    elif kind == "ClusterServiceVersion":
        if _is_copied(item, namespace):
            reader.copied += 1
            return
        annotations = _map(metadata.get("annotations"))
        properties = annotations.get(PROPERTIES_ANNOTATION)
        related = tuple(
            _text(_map(r).get("image"))
            for r in spec.get("relatedImages") or []
            if _text(_map(r).get("image"))
        )
        text = properties if isinstance(properties, str) else None
        reader.csvs[(namespace, name)] = _Csv(
            namespace,
            name,
            _text(spec.get("version")),
            text,
            related,
            where,
            _package_from_properties(text),
        )
    elif kind == "ClusterExtension":
        catalog = _map(_map(spec.get("source")).get("catalog"))
        package = _text(catalog.get("packageName"))
        if not package:
            reader.note("item-skipped", f"{where}: ClusterExtension {name} has no packageName")
            return
        install = _map(status.get("install"))
        bundle = _map(install.get("bundle")) or _map(status.get("installedBundle"))
        if not bundle:
            reader.note(
                "not-installed",
                f"{where}: ClusterExtension {name} reports no installed bundle "
                "(status.install.bundle); checked as a fresh install",
                package=package,
            )
        reader.extensions.append(
            Installed(
                "ClusterExtension",
                package,
                channel=",".join(_strings(catalog.get("channels"))),
                bundle=_text(bundle.get("name")),
                version=_text(bundle.get("version")),
                namespace=_text(spec.get("namespace")),
                name=name,
                channels=_strings(catalog.get("channels")),
                version_range=_text(catalog.get("version")),
                self_certified=catalog.get("upgradeConstraintPolicy") == "SelfCertified",
                where=where,
            )
        )
    elif isinstance(kind, str):
        reader.note("item-skipped", f"{where}: kind {kind} is not part of an inventory; skipped")
    elif "package" in item or "packageName" in item:
        _listed(reader, item, where)
    else:
        reader.note("item-skipped", f"{where}: neither a Kubernetes object nor a package row")


def _listed(reader: _Reader, row: dict[str, Any], where: str) -> None:
    package = _text(row.get("package") or row.get("packageName"))
    if not package:
        reader.note("item-skipped", f"{where}: no package; skipped")
        return
    reader.listed.append(
        Installed(
            "list",
            package,
            channel=_text(row.get("channel")),
            bundle=_text(row.get("name") or row.get("bundle") or row.get("csv")),
            version=_text(row.get("version")),
            namespace=_text(row.get("namespace")),
            where=where,
        )
    )


def _csv_rows(reader: _Reader, text: str) -> None:
    lines = [
        line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    rows = list(csv.reader(io.StringIO("\n".join(lines)), skipinitialspace=True))
    if not rows:
        return
    header = [cell.strip().lower() for cell in rows[0]]
    if "package" in header:
        columns = header
        body = rows[1:]
        first = 2
    else:
        columns = list(_SIMPLE_COLUMNS)
        body = rows
        first = 1
    unknown = [c for c in columns if c not in _SIMPLE_COLUMNS]
    if unknown:
        raise InputError(
            f"{reader.source}: unknown column {', '.join(unknown)} (columns: "
            f"{', '.join(_SIMPLE_COLUMNS)})"
        )
    for offset, cells in enumerate(body):
        where = f"line {first + offset}"
        if len(cells) > len(columns):
            raise InputError(f"{reader.source}: {where}: more cells than columns ({len(columns)})")
        _listed(reader, dict(zip(columns, (c.strip() for c in cells), strict=False)), where)


def _documents(text: str, source: str) -> Iterator[Any]:
    try:
        yield from goyaml.load_all(text, where=source)
    except InputError as error:  # malformed, or over a limit (depth, aliases)
        detail = str(error).removeprefix(f"{source}: ")
        raise InputError(f"{source}: neither YAML nor CSV: {detail}") from None
    except Exception as error:  # PyYAML raises many classes; one line for the user
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise InputError(f"{source}: neither YAML nor CSV: {first}") from None


def parse_inventory(
    text: str, source: str = "inventory", *, notify: NoticeSink = discard
) -> list[Installed]:
    """The installed operators described by ``text`` (any of the module's forms), in file order
    (Subscriptions, then CSVs without one, ClusterExtensions, listed rows)."""
    reader = _Reader(source, notify)
    stripped = text.lstrip()
    if source.endswith(".csv") or (stripped and _looks_like_csv(stripped)):
        _csv_rows(reader, text)
    else:
        for index, document in enumerate(_documents(text, source)):
            where = f"document {index + 1}"
            if isinstance(document, list):
                for position, row in enumerate(document):
                    _object(reader, row, f"{where}[{position}]")
            elif isinstance(document, dict) and "operators" in document and "kind" not in document:
                for position, row in enumerate(document.get("operators") or []):
                    _object(reader, row, f"{where}.operators[{position}]")
            else:
                _object(reader, document, where)
    out = _subscriptions(reader)
    out.extend(reader.extensions)
    out.extend(reader.listed)
    if reader.copied:
        reader.note(
            "copied-csv",
            f"{reader.copied} copied ClusterServiceVersions (the same operator seen from other "
            "namespaces) skipped, as OLM skips them",
            "info",
        )
    if not out:
        raise InputError(
            f"{source}: no installed operator found (expected Subscriptions and CSVs from `oc get "
            "subscriptions.operators.coreos.com,clusterserviceversions -A -o yaml`, "
            "ClusterExtensions, or package,channel,version rows)"
        )
    return out


def _looks_like_csv(text: str) -> bool:
    first = next(
        (line for line in text.splitlines() if line.strip() and not line.startswith("#")), ""
    )
    return "," in first and ":" not in first and not first.startswith(("-", "{", "["))


def _subscriptions(reader: _Reader) -> list[Installed]:
    out: list[Installed] = []
    for item, where in reader.subscriptions:
        metadata = _map(item.get("metadata"))
        spec = _map(item.get("spec"))
        status = _map(item.get("status"))
        namespace = _text(metadata.get("namespace"))
        name = _text(metadata.get("name"))
        package = _text(spec.get("name"))
        if not package:
            reader.note(
                "item-skipped", f"{where}: Subscription {namespace}/{name} names no package"
            )
            continue
        installed = _text(status.get("installedCSV"))
        current = _text(status.get("currentCSV"))
        csv_found = reader.csvs.get((namespace, installed)) if installed else None
        if csv_found is not None:
            csv_found.used = True
        if not installed:
            reader.note(
                "not-installed",
                f"{where}: Subscription {namespace}/{name} reports no installedCSV; checked as a "
                "fresh install",
                package=package,
            )
        elif csv_found is None:
            reader.note(
                "csv-missing",
                f"{where}: CSV {namespace}/{installed} of Subscription {name} is not in the "
                "inventory; its version is taken from the catalog and olm.maxOpenShiftVersion "
                "from the catalog's bundle",
                package=package,
            )
        out.append(
            Installed(
                "Subscription",
                package,
                channel=_text(spec.get("channel")),
                bundle=installed,
                version=csv_found.version if csv_found is not None else "",
                namespace=namespace,
                name=name,
                source=_text(spec.get("source")),
                properties=csv_found.properties if csv_found is not None else None,
                related_images=csv_found.related_images if csv_found is not None else (),
                pending=current if current and current != installed else "",
                where=where,
                has_csv=csv_found is not None,
            )
        )
    for csv_item in reader.csvs.values():
        if csv_item.used:
            continue
        if csv_item.properties and "olm.maxOpenShiftVersion" in csv_item.properties:
            out.append(
                Installed(
                    "ClusterServiceVersion",
                    csv_item.package,
                    bundle=csv_item.name,
                    version=csv_item.version,
                    namespace=csv_item.namespace,
                    name=csv_item.name,
                    properties=csv_item.properties,
                    related_images=csv_item.related_images,
                    where=csv_item.where,
                    has_csv=True,
                )
            )
        else:
            reader.note(
                "csv-unmanaged",
                f"{csv_item.where}: CSV {csv_item.namespace}/{csv_item.name} has no Subscription "
                "(not installed from a catalog); only checked for olm.maxOpenShiftVersion, which "
                "it does not declare",
                "info",
                package=csv_item.package,
            )
    return out


def load_inventory(path: str | Path, *, notify: NoticeSink = discard) -> list[Installed]:
    """Read an inventory file (``-`` for stdin)."""
    import sys

    source = str(path)
    try:
        if source == "-":
            data = sys.stdin.buffer.read(MAX_INVENTORY_BYTES + 1)
        else:
            with safe.open_binary(source, bounded=False) as handle:  # a regular file only
                data = handle.read(MAX_INVENTORY_BYTES + 1)
    except OSError as error:
        raise InputError(f"{source}: cannot read the inventory: {error.strerror}") from None
    except InputError as error:  # missing, a FIFO or device, a link out of the tree
        detail = str(error).removeprefix(f"{source}: ").removeprefix("cannot read: ")
        raise InputError(f"{source}: cannot read the inventory: {detail}") from None
    if len(data) > MAX_INVENTORY_BYTES:
        raise InputError(f"{source}: larger than {MAX_INVENTORY_BYTES // (1024 * 1024)} MiB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"{source}: the inventory is not UTF-8 text") from None
    return parse_inventory(text, "stdin" if source == "-" else source, notify=notify)
