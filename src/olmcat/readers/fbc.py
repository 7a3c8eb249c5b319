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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pathspec

from olmcat import gojson, yamlio
from olmcat.errors import InputError
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
from olmcat.property import Property

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

    def packages(self, only: set[str] | None = None) -> Iterator[PackageCatalog]:
        for name in self.package_names():
            if only is None or name in only:
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
            if entry.schema == SCHEMA_PACKAGE:
                package = _package(blob, entry.where)
            elif entry.schema == SCHEMA_CHANNEL:
                channels.append(_channel(blob, entry.where))
            elif entry.schema == SCHEMA_BUNDLE:
                bundles.append(_bundle(blob, entry.where))
            elif entry.schema == SCHEMA_DEPRECATIONS:
                deprecations.append(_deprecation(blob, entry.where))
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


def _str(blob: dict[str, Any], key: str, where: str, required: bool = False) -> str:
    value = blob.get(key, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise InputError(f"{where}: field {key!r} must be a string")
    if required and not value:
        raise InputError(f"{where}: field {key!r} is required")
    return value


def _list(blob: dict[str, Any], key: str, where: str) -> list[Any]:
    value = blob.get(key) or []
    if not isinstance(value, list):
        raise InputError(f"{where}: field {key!r} must be a list")
    return value


def _properties(blob: dict[str, Any], where: str) -> tuple[Property, ...]:
    out = []
    for index, item in enumerate(_list(blob, "properties", where)):
        at = f"{where} properties[{index}]"
        if not isinstance(item, dict):
            raise InputError(f"{at}: a property must be an object")
        type_ = _str(item, "type", at, required=True)
        if "value" not in item or item["value"] is None:
            raise InputError(f"{at}: property {type_} has no value")
        out.append(Property(type_, gojson.encode(item["value"])))
    return tuple(out)


def _package(blob: dict[str, Any], where: str) -> Package:
    icon = None
    raw_icon = blob.get("icon")
    if raw_icon is not None:
        if not isinstance(raw_icon, dict):
            raise InputError(f"{where}: field 'icon' must be an object")
        icon = Icon(_str(raw_icon, "base64data", where), _str(raw_icon, "mediatype", where))
    return Package(
        name=_str(blob, "name", where, required=True),
        default_channel=_str(blob, "defaultChannel", where),
        icon=icon,
        description=_str(blob, "description", where),
        properties=_properties(blob, where),
    )


def _channel(blob: dict[str, Any], where: str) -> Channel:
    entries = []
    for index, item in enumerate(_list(blob, "entries", where)):
        at = f"{where} entries[{index}]"
        if not isinstance(item, dict):
            raise InputError(f"{at}: a channel entry must be an object")
        skips = _list(item, "skips", at)
        if not all(isinstance(s, str) for s in skips):
            raise InputError(f"{at}: 'skips' must be a list of strings")
        entries.append(
            ChannelEntry(
                name=_str(item, "name", at, required=True),
                replaces=_str(item, "replaces", at),
                skips=tuple(skips),
                skip_range=_str(item, "skipRange", at),
            )
        )
    return Channel(
        name=_str(blob, "name", where, required=True),
        package=_str(blob, "package", where, required=True),
        entries=tuple(entries),
        properties=_properties(blob, where),
    )


def _bundle(blob: dict[str, Any], where: str) -> Bundle:
    related = []
    for index, item in enumerate(_list(blob, "relatedImages", where)):
        at = f"{where} relatedImages[{index}]"
        if not isinstance(item, dict):
            raise InputError(f"{at}: a related image must be an object")
        related.append(RelatedImage(_str(item, "name", at), _str(item, "image", at)))
    return Bundle(
        name=_str(blob, "name", where, required=True),
        package=_str(blob, "package", where, required=True),
        image=_str(blob, "image", where),
        properties=_properties(blob, where),
        related_images=tuple(related),
    )


def _deprecation(blob: dict[str, Any], where: str) -> Deprecation:
    entries = []
    for index, item in enumerate(_list(blob, "entries", where)):
        at = f"{where} entries[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("reference"), dict):
            raise InputError(f"{at}: a deprecation entry needs a 'reference' object")
        reference = item["reference"]
        entries.append(
            DeprecationEntry(
                schema=_str(reference, "schema", at, required=True),
                name=_str(reference, "name", at),
                message=_str(item, "message", at),
            )
        )
    return Deprecation(package=_str(blob, "package", where, required=True), entries=tuple(entries))
