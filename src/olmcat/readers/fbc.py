"""Read file-based catalogs (FBC) into the catalog model, one package at a time.

Input: a directory tree (every ``*.json``, ``*.yaml``, ``*.yml`` file, recursively, skipping
what ``.indexignore`` files exclude with .gitignore rules), a single file, or ``-`` for stdin. JSON
files may hold several documents back to back; YAML files several ``---`` documents.

Blobs of one package may be spread over many files, so reading is two passes: the first parses
every file once, checks each blob's envelope, finds duplicates, and spills the blob as compact JSON
to a temporary file, remembering only (package, schema, name, location, offset); the second reads
back one package's blobs at a time. Memory therefore holds one file's documents during the first
pass and one package during the second, never the whole catalog.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pathspec

from olmcat.errors import InputError
from olmcat.files import yaml as yamlio
from olmcat.go import json as gojson
from olmcat.model import (
    SCHEMA_BUNDLE,
    SCHEMA_CHANNEL,
    SCHEMA_DEPRECATIONS,
    SCHEMA_PACKAGE,
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    DeprecationEntry,
    Icon,
    Meta,
    Package,
    PackageCatalog,
    RelatedImage,
)
from olmcat.model.property import Property
from olmcat.readers.source import selected

EXTENSIONS = (".json", ".yaml", ".yml")
IGNORE_FILE = ".indexignore"
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class _Entry:
    package: str
    schema: str
    name: str
    where: str
    offset: int
    length: int


def _ignored(path: Path, root: Path, specs: dict[Path, pathspec.GitIgnoreSpec]) -> bool:
    """gitignore semantics across nested .indexignore files: the deepest deciding rule wins."""
    verdict = False
    for directory, spec in specs.items():
        if directory != root and directory not in path.parents:
            continue
        result = spec.check_file(path.relative_to(directory).as_posix())
        if result.include is not None:
            verdict = bool(result.include)
    return verdict


def catalog_files(root: Path) -> Iterator[Path]:
    """Catalog files under ``root`` in a stable order, honouring .indexignore files."""
    specs: dict[Path, pathspec.GitIgnoreSpec] = {}
    for directory, dirnames, filenames in os.walk(root):
        dirnames.sort()
        here = Path(directory)
        if IGNORE_FILE in filenames:
            lines = (here / IGNORE_FILE).read_text(encoding="utf-8").splitlines()
            specs[here] = pathspec.GitIgnoreSpec.from_lines(lines)
        # Deeper specs are added after their parents, so iteration order is shallow to deep.
        for filename in sorted(filenames):
            path = here / filename
            if path.suffix.lower() in EXTENSIONS and not _ignored(path, root, specs):
                yield path


def iter_json_stream(fh: IO[str], where: str) -> Iterator[tuple[int, Any]]:
    """Documents of a concatenated-JSON stream read in chunks: (document number, value)."""
    decoder = json.JSONDecoder(parse_float=gojson.RawNumber)
    buffer, index, eof, number, chunk = "", 0, False, 0, _CHUNK
    while True:
        while index < len(buffer) and buffer[index] in " \t\r\n":
            index += 1
        if index >= len(buffer):
            if eof:
                return
            buffer, index = fh.read(chunk), 0
            eof = not buffer
            continue
        try:
            value, end = decoder.raw_decode(buffer, index)
        except json.JSONDecodeError as exc:
            if eof:
                raise InputError(
                    f"{where}: document {number + 1} is not valid JSON: {exc}"
                ) from None
            more = fh.read(chunk)
            chunk *= 2  # grow geometrically: a huge document is re-parsed O(log n) times
            eof = not more
            buffer, index = buffer[index:] + more, 0
            continue
        number += 1
        yield number, value
        buffer, index = buffer[end:], 0


def _documents(path: Path | None, fh: IO[str], where: str) -> Iterator[tuple[int, Any]]:
    is_json = path.suffix.lower() == ".json" if path is not None else None
    if is_json is None:  # stdin: sniff
        head = fh.read(1)
        while head and head.isspace():
            head = fh.read(1)
        rest = fh.read()
        text = head + rest
        if head in ("{", "["):
            yield from iter_json_stream(io.StringIO(text), where)
            return
        fh = io.StringIO(text)
    elif is_json:
        yield from iter_json_stream(fh, where)
        return
    try:
        yield from enumerate(yamlio.load_all(fh), 1)
    except Exception as exc:  # yaml.YAMLError and libyaml's own errors
        raise InputError(f"{where}: not valid YAML: {str(exc).splitlines()[0]}") from None


def _raiser(where: str) -> Callable[[str, str], None]:
    def report(rule: str, message: str) -> None:
        raise InputError(f"{where}: {message}")

    return report


def _describe(entry: _Entry) -> str:
    label = f" {_quote(entry.name)}" if entry.name and entry.schema != SCHEMA_PACKAGE else ""
    return f"{entry.schema}{label}"


class FbcCatalog:
    """A file-based catalog on disk (or stdin), read one package at a time."""

    def __init__(self, source: Path | str) -> None:
        self.source = source
        self._spill = tempfile.TemporaryFile(prefix="olmcat-fbc-")  # noqa: SIM115
        self._offset = 0
        self._by_package: dict[str, list[_Entry]] = defaultdict(list)
        self._global: list[_Entry] = []
        try:
            self._index()
        except BaseException:
            self._spill.close()
            raise

    def close(self) -> None:
        self._spill.close()

    def __enter__(self) -> FbcCatalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- pass 1 ---------------------------------------------------------------------------------

    def _index(self) -> None:
        seen: dict[tuple[str, str, str], str] = {}
        for where, documents in self._sources():
            for number, blob in documents:
                self._add(blob, f"{where}#{number}", seen)

    def _sources(self) -> Iterator[tuple[str, Iterable[tuple[int, Any]]]]:
        if self.source == "-":
            yield "<stdin>", _documents(None, sys.stdin, "<stdin>")
            return
        path = Path(self.source)
        if not path.exists():
            raise InputError(f"{path}: no such file or directory")
        files = list(catalog_files(path)) if path.is_dir() else [path]
        if path.is_dir() and not files:
            raise InputError(f"{path}: no catalog files (*.json, *.yaml, *.yml) found")
        for file in files:
            try:
                with file.open(encoding="utf-8") as fh:
                    yield str(file), list(_documents(file, fh, str(file)))
            except UnicodeDecodeError:
                raise InputError(f"{file}: not UTF-8 text") from None
            except OSError as exc:
                raise InputError(f"{file}: cannot read: {exc.strerror}") from None

    def _add(self, blob: Any, where: str, seen: dict[tuple[str, str, str], str]) -> None:
        if not isinstance(blob, dict):
            raise InputError(
                f"{where}: a catalog blob must be an object, got {type(blob).__name__}"
            )
        schema = blob.get("schema")
        if not isinstance(schema, str) or not schema:
            raise InputError(f"{where}: blob has no schema (every blob needs a non-empty 'schema')")
        package_field = blob.get("package", "")
        name = blob.get("name", "")
        if not isinstance(package_field, str) or not isinstance(name, str):
            raise InputError(f"{where}: 'package' and 'name' must be strings")
        package = name if schema == SCHEMA_PACKAGE else package_field
        if schema == SCHEMA_PACKAGE and not name:
            raise InputError(f"{where}: olm.package blob has no name")
        if schema in (SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS) and not package:
            raise InputError(f"{where}: {schema} blob {name!r} has no package")
        if schema in (SCHEMA_PACKAGE, SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS):
            key = (schema, package, name)
            if key in seen:
                what = (
                    f"{schema} {package}/{name}" if schema != SCHEMA_PACKAGE else f"package {name}"
                )
                if schema == SCHEMA_DEPRECATIONS:
                    what = f"olm.deprecations of package {package}"
                raise InputError(f"duplicate {what}: defined in {seen[key]} and in {where}")
            seen[key] = where
        data = gojson.encode(blob).encode("utf-8")
        self._spill.write(data)
        entry = _Entry(package, schema, name, where, self._offset, len(data))
        self._offset += len(data)
        if package:
            self._by_package[package].append(entry)
        else:
            self._global.append(entry)

    # -- pass 2 ---------------------------------------------------------------------------------

    def package_names(self) -> list[str]:
        return sorted(self._by_package)

    def __iter__(self) -> Iterator[PackageCatalog]:
        return self.packages()

    def packages(self, only: Collection[str] | None = None) -> Iterator[PackageCatalog]:
        for name in selected(self.package_names(), only):
            yield self.package(name)

    def package(self, name: str) -> PackageCatalog:
        entries = self._by_package.get(name)
        if not entries:
            raise InputError(f"{self.source}: no package {name!r} in the catalog")
        package: Package | None = None
        channels: list[Channel] = []
        bundles: list[Bundle] = []
        deprecations: list[Deprecation] = []
        others: list[Meta] = []
        for entry in entries:
            blob = self._load(entry)
            fields = BlobFields(_raiser(entry.where), _describe(entry))
            if entry.schema == SCHEMA_PACKAGE:
                package = package_blob(blob, fields)
            elif entry.schema == SCHEMA_CHANNEL:
                channels.append(channel_blob(blob, fields))
            elif entry.schema == SCHEMA_BUNDLE:
                bundles.append(bundle_blob(blob, fields))
            elif entry.schema == SCHEMA_DEPRECATIONS:
                deprecations.append(deprecations_blob(blob, fields))
            else:
                others.append(Meta(entry.schema, name, entry.name, gojson.encode(blob)))
        if package is None:
            where = entries[0].where
            raise InputError(f"{where}: package {name!r} has blobs but no olm.package blob")
        return PackageCatalog(
            package, tuple(channels), tuple(bundles), tuple(deprecations), tuple(others)
        )

    def global_others(self) -> list[Meta]:
        """Blobs of unknown schemas that belong to no package."""
        return [Meta(e.schema, "", e.name, gojson.encode(self._load(e))) for e in self._global]

    def _load(self, entry: _Entry) -> dict[str, Any]:
        self._spill.seek(entry.offset)
        value: dict[str, Any] = gojson.loads(self._spill.read(entry.length))
        return value


# -- blob -> model --------------------------------------------------------------------------------


def _quote(text: str) -> str:
    """Quote a name for a message, keeping the message on one line."""
    return json.dumps(text, ensure_ascii=False)


def json_type(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"


class BlobFields:
    """Typed access to a blob's fields; every problem goes to ``report(rule, message)``.

    The reader raises on the first report, ``olmcat validate`` collects them all: one conversion
    from blobs to the model serves both."""

    def __init__(self, report: Callable[[str, str], None], what: str) -> None:
        self.report = report
        self.what = what
        self.ok = True

    def bad(self, rule: str, message: str) -> None:
        self.ok = False
        self.report(rule, f"{self.what}: {message}")

    def string(self, blob: dict[str, Any], key: str, at: str = "", required: bool = False) -> str:
        value = blob.get(key)
        label = f"{at}.{key}" if at else key
        if value is None:
            value = ""
        if not isinstance(value, str):
            self.bad(
                "field-type", f"field {_quote(label)} must be a string, got {json_type(value)}"
            )
            return ""
        if required and not value:
            self.bad("required-field", f"field {_quote(label)} is required")
        return value

    def items(self, blob: dict[str, Any], key: str, at: str = "") -> list[Any]:
        value = blob.get(key)
        label = f"{at}.{key}" if at else key
        if value is None:
            return []
        if not isinstance(value, list):
            self.bad("field-type", f"field {_quote(label)} must be a list, got {json_type(value)}")
            return []
        return value

    def obj(self, value: Any, label: str) -> dict[str, Any] | None:
        if not isinstance(value, dict):
            self.bad("field-type", f"{label} must be an object, got {json_type(value)}")
            return None
        return value

    def properties(self, blob: dict[str, Any]) -> tuple[Property, ...]:
        out = []
        for index, item in enumerate(self.items(blob, "properties")):
            at = f"properties[{index}]"
            entry = self.obj(item, at)
            if entry is None:
                continue
            type_ = self.string(entry, "type", at, required=True)
            if entry.get("value") is None:
                self.bad("required-field", f"{at} ({type_ or 'no type'}) has no value")
                continue
            out.append(Property(type_, gojson.encode(entry["value"])))
        return tuple(out)


def package_blob(blob: dict[str, Any], fields: BlobFields) -> Package:
    icon = None
    raw_icon = blob.get("icon")
    if raw_icon is not None and fields.obj(raw_icon, "field 'icon'") is not None:
        icon = Icon(
            fields.string(raw_icon, "base64data", "icon"),
            fields.string(raw_icon, "mediatype", "icon"),
        )
    return Package(
        name=fields.string(blob, "name", required=True),
        default_channel=fields.string(blob, "defaultChannel"),
        icon=icon,
        description=fields.string(blob, "description"),
        properties=fields.properties(blob),
    )


def channel_blob(blob: dict[str, Any], fields: BlobFields) -> Channel:
    entries = []
    for index, item in enumerate(fields.items(blob, "entries")):
        at = f"entries[{index}]"
        entry = fields.obj(item, at)
        if entry is None:
            continue
        skips = fields.items(entry, "skips", at)
        if not all(isinstance(s, str) for s in skips):
            fields.bad("field-type", f"field {_quote(at + '.skips')} must be a list of strings")
            skips = [s for s in skips if isinstance(s, str)]
        entries.append(
            ChannelEntry(
                name=fields.string(entry, "name", at, required=True),
                replaces=fields.string(entry, "replaces", at),
                skips=tuple(skips),
                skip_range=fields.string(entry, "skipRange", at),
            )
        )
    return Channel(
        name=fields.string(blob, "name", required=True),
        package=fields.string(blob, "package", required=True),
        entries=tuple(entries),
        properties=fields.properties(blob),
    )


def bundle_blob(blob: dict[str, Any], fields: BlobFields) -> Bundle:
    related = []
    for index, item in enumerate(fields.items(blob, "relatedImages")):
        at = f"relatedImages[{index}]"
        image = fields.obj(item, at)
        if image is not None:
            related.append(
                RelatedImage(fields.string(image, "name", at), fields.string(image, "image", at))
            )
    return Bundle(
        name=fields.string(blob, "name", required=True),
        package=fields.string(blob, "package", required=True),
        image=fields.string(blob, "image"),
        properties=fields.properties(blob),
        related_images=tuple(related),
    )


def deprecations_blob(blob: dict[str, Any], fields: BlobFields) -> Deprecation:
    entries = []
    for index, item in enumerate(fields.items(blob, "entries")):
        at = f"entries[{index}]"
        entry = fields.obj(item, at)
        if entry is None:
            continue
        reference = fields.obj(entry.get("reference"), f"{at}.reference")
        if reference is None:
            continue
        entries.append(
            DeprecationEntry(
                schema=fields.string(reference, "schema", f"{at}.reference", required=True),
                name=fields.string(reference, "name", f"{at}.reference"),
                message=fields.string(entry, "message", at),
            )
        )
    return Deprecation(
        package=fields.string(blob, "package", required=True), entries=tuple(entries)
    )
