"""Write file-based catalogs exactly as ``opm`` writes them.

JSON: one blob after another, each indented with four spaces and followed by a newline, no HTML
escaping in the envelope, property values passed through as they are. YAML: each blob converted as
``sigs.k8s.io/yaml`` does, prefixed with ``---``. Blobs of a package come in opm's order: package,
channels by name, bundles by name, deprecations, then other schemas by (schema, name).

Directory output goes to ``<out>/<package>/catalog.{json,yaml}``; it is written into a temporary
sibling directory that is renamed into place only when complete.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, TextIO

from olmcat.errors import EncodingError, OutputError
from olmcat.files import safe
from olmcat.files.output import cannot_write, is_closed_pipe, is_no_room, open_output
from olmcat.go.json import go_string, indent
from olmcat.model import (
    SCHEMA_BUNDLE,
    SCHEMA_CHANNEL,
    SCHEMA_DEPRECATIONS,
    SCHEMA_PACKAGE,
    Bundle,
    Channel,
    Deprecation,
    Meta,
    Package,
    PackageCatalog,
)
from olmcat.model.property import Property

OutputFormat = Literal["json", "yaml"]
FORMATS: tuple[OutputFormat, ...] = ("json", "yaml")
_PARTIAL_MARKER = ".olmcat-partial-"


class Prewritten(Protocol):
    """A package whose output was written before (a cache's copy): written as it is."""

    @property
    def name(self) -> str: ...

    def chunks(self) -> Iterator[bytes]:
        """The bytes of the package's output file (UTF-8), once."""
        ...


class Recording(Protocol):
    """Where a copy of a package's output goes while it is written (a cache filling)."""

    def write(self, text: str) -> None: ...

    def commit(self) -> None:
        """The package was written whole."""
        ...

    def abort(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Teed:
    """A package to write whose output also goes to ``recording``."""

    package: PackageCatalog
    recording: Recording

    @property
    def name(self) -> str:
        return self.package.name


Writable = PackageCatalog | Teed | Prewritten


def _s(text: str) -> str:
    return go_string(text)


def _properties(props: tuple[Property, ...]) -> str:
    return "[" + ",".join(f'{{"type":{_s(p.type)},"value":{p.value}}}' for p in props) + "]"


def package_json(pkg: Package) -> str:
    """Compact JSON of an ``olm.package`` blob, fields in opm's struct order."""
    parts = [
        f'"schema":"{SCHEMA_PACKAGE}"',
        f'"name":{_s(pkg.name)}',
        f'"defaultChannel":{_s(pkg.default_channel)}',
    ]
    if pkg.icon is not None:
        parts.append(
            f'"icon":{{"base64data":{_s(pkg.icon.base64data)},'
            f'"mediatype":{_s(pkg.icon.mediatype)}}}'
        )
    if pkg.description:
        parts.append(f'"description":{_s(pkg.description)}')
    if pkg.properties:
        parts.append(f'"properties":{_properties(pkg.properties)}')
    return "{" + ",".join(parts) + "}"


def channel_json(channel: Channel) -> str:
    entries = []
    for entry in channel.entries:
        fields = [f'"name":{_s(entry.name)}']
        if entry.replaces:
            fields.append(f'"replaces":{_s(entry.replaces)}')
        if entry.skips:
            fields.append('"skips":[' + ",".join(_s(s) for s in entry.skips) + "]")
        if entry.skip_range:
            fields.append(f'"skipRange":{_s(entry.skip_range)}')
        entries.append("{" + ",".join(fields) + "}")
    parts = [
        f'"schema":"{SCHEMA_CHANNEL}"',
        f'"name":{_s(channel.name)}',
        f'"package":{_s(channel.package)}',
        '"entries":[' + ",".join(entries) + "]",
    ]
    if channel.properties:
        parts.append(f'"properties":{_properties(channel.properties)}')
    return "{" + ",".join(parts) + "}"


def bundle_json(bundle: Bundle) -> str:
    parts = [
        f'"schema":"{SCHEMA_BUNDLE}"',
        f'"name":{_s(bundle.name)}',
        f'"package":{_s(bundle.package)}',
        f'"image":{_s(bundle.image)}',
    ]
    if bundle.properties:
        parts.append(f'"properties":{_properties(bundle.properties)}')
    if bundle.related_images:
        images = ",".join(
            f'{{"name":{_s(ri.name)},"image":{_s(ri.image)}}}' for ri in bundle.related_images
        )
        parts.append(f'"relatedImages":[{images}]')
    return "{" + ",".join(parts) + "}"


def deprecation_json(deprecation: Deprecation) -> str:
    entries = []
    for entry in deprecation.entries:
        reference = f'"schema":{_s(entry.schema)}'
        if entry.name:
            reference += f',"name":{_s(entry.name)}'
        entries.append(f'{{"reference":{{{reference}}},"message":{_s(entry.message)}}}')
    return (
        f'{{"schema":"{SCHEMA_DEPRECATIONS}","package":{_s(deprecation.package)},'
        f'"entries":[{",".join(entries)}]}}'
    )


def meta_json(meta: Meta) -> str:
    return meta.blob


def _ordered(pkg: PackageCatalog) -> Iterator[Package | Channel | Bundle | Deprecation | Meta]:
    """The blobs of one package in opm's output order."""
    yield pkg.package
    yield from sorted(pkg.channels, key=lambda c: c.name)
    yield from sorted(pkg.bundles, key=lambda b: b.name)
    yield from pkg.deprecations
    yield from sorted(pkg.others, key=lambda m: (m.schema, m.name))


def _compact(blob: Package | Channel | Bundle | Deprecation | Meta) -> str:
    if isinstance(blob, Bundle):
        return bundle_json(blob)
    if isinstance(blob, Channel):
        return channel_json(blob)
    if isinstance(blob, Package):
        return package_json(blob)
    if isinstance(blob, Deprecation):
        return deprecation_json(blob)
    return meta_json(blob)


def blobs(pkg: PackageCatalog) -> Iterator[str]:
    """Compact JSON text of every blob of one package, in opm's output order."""
    for blob in _ordered(pkg):
        yield _compact(blob)


# -- opm's JSON layout written directly -----------------------------------------------------------
# ``indent(compact)`` tokenizes every blob again; bundles and channels, nearly all of a catalog's
# text, are laid out here as they are built (tests/writers/test_fbc.py checks both ways agree).

_NL = tuple("\n" + "    " * depth for depth in range(5))
_DATA_PREFIX = '{"data":"'


def _value_at(value: str, depth: int) -> str:
    """``indent`` of a property value nested ``depth`` levels deep, with a shortcut for the one
    shape that is most of a catalog's bytes: ``{"data":"<base64>"}`` (olm.bundle.object)."""
    if value.startswith(_DATA_PREFIX) and value.endswith('"}') and value.count('"') == 4:
        return "{" + _NL[depth + 1] + '"data": ' + value[8:-1] + _NL[depth] + "}"
    return indent(value, depth)


def _properties_indented(props: tuple[Property, ...]) -> str:
    """A blob's ``properties`` array (the blob's own fields are at depth 1)."""
    if not props:
        return "[]"
    nl2, nl3 = _NL[2], _NL[3]
    items = [
        f'{{{nl3}"type": {_s(p.type)},{nl3}"value": {_value_at(p.value, 3)}{nl2}}}' for p in props
    ]
    return "[" + nl2 + ("," + nl2).join(items) + _NL[1] + "]"


def bundle_json_indented(bundle: Bundle) -> str:
    nl1, nl2, nl3 = _NL[1], _NL[2], _NL[3]
    parts = [
        f'{{{nl1}"schema": "{SCHEMA_BUNDLE}"',
        f'"name": {_s(bundle.name)}',
        f'"package": {_s(bundle.package)}',
        f'"image": {_s(bundle.image)}',
    ]
    if bundle.properties:
        parts.append('"properties": ' + _properties_indented(bundle.properties))
    if bundle.related_images:
        images = [
            f'{{{nl3}"name": {_s(ri.name)},{nl3}"image": {_s(ri.image)}{nl2}}}'
            for ri in bundle.related_images
        ]
        parts.append('"relatedImages": [' + nl2 + ("," + nl2).join(images) + nl1 + "]")
    return ("," + nl1).join(parts) + "\n}"


def channel_json_indented(channel: Channel) -> str:
    nl1, nl2, nl3 = _NL[1], _NL[2], _NL[3]
    entries = []
    for entry in channel.entries:
        fields = [f'"name": {_s(entry.name)}']
        if entry.replaces:
            fields.append(f'"replaces": {_s(entry.replaces)}')
        if entry.skips:
            skips = ("," + _NL[4]).join(_s(s) for s in entry.skips)
            fields.append('"skips": [' + _NL[4] + skips + nl3 + "]")
        if entry.skip_range:
            fields.append(f'"skipRange": {_s(entry.skip_range)}')
        entries.append("{" + nl3 + ("," + nl3).join(fields) + nl2 + "}")
    parts = [
        f'{{{nl1}"schema": "{SCHEMA_CHANNEL}"',
        f'"name": {_s(channel.name)}',
        f'"package": {_s(channel.package)}',
        '"entries": ' + ("[" + nl2 + ("," + nl2).join(entries) + nl1 + "]" if entries else "[]"),
    ]
    if channel.properties:
        parts.append('"properties": ' + _properties_indented(channel.properties))
    return ("," + nl1).join(parts) + "\n}"


def _indented(blob: Package | Channel | Bundle | Deprecation | Meta) -> str:
    if isinstance(blob, Bundle):
        return bundle_json_indented(blob)
    if isinstance(blob, Channel):
        return channel_json_indented(blob)
    return indent(_compact(blob), 0)


def global_blobs(others: Iterable[Meta]) -> Iterator[str]:
    """Blobs that belong to no package (unknown schemas without a ``package`` field)."""
    for meta in sorted(others, key=lambda m: (m.schema, m.name)):
        yield meta_json(meta)


def render_json(blob_texts: Iterable[str]) -> Iterator[str]:
    """opm's JSON encoder: each blob indented by four spaces and terminated by a newline."""
    for text in blob_texts:
        yield indent(text, 0) + "\n"


def render_yaml(blob_texts: Iterable[str]) -> Iterator[str]:
    """opm's YAML encoder: each blob as a ``---``-prefixed yaml.v2 document."""
    from olmcat.go.yaml import dump_document

    for text in blob_texts:
        yield dump_document(json.loads(text))


RENDERERS: dict[OutputFormat, Callable[[Iterable[str]], Iterator[str]]] = {
    "json": render_json,
    "yaml": render_yaml,
}


def check_package_name(name: str) -> None:
    """Package names become directory names: refuse anything that is not one plain component."""
    problem = None
    if not name:
        problem = "it is empty"
    elif name in (".", ".."):
        problem = "it is a relative path reference"
    elif "/" in name or "\\" in name:
        problem = "it contains a path separator"
    elif any(ord(c) < 0x20 or c == "\x7f" for c in name):
        problem = "it contains control characters"
    elif len(name.encode()) > 255:
        problem = "it is longer than 255 bytes"
    if problem:
        raise OutputError(
            f"package name {name!r} cannot be used as a directory name: {problem}; "
            "fix the package name in the source catalog"
        )
    safe.check_path_name(name, "package name", package=name)


def _package_chunks(pkg: PackageCatalog, output: OutputFormat) -> Iterator[str]:
    """The rendered blobs of one package; encoding failures name the package."""
    try:
        if output == "json":
            for blob in _ordered(pkg):
                yield _indented(blob) + "\n"
            return
        yield from RENDERERS[output](blobs(pkg))
    except EncodingError as error:
        raise EncodingError(
            f"package {pkg.name!r}: {error}; write JSON instead (-o json), which can hold it"
        ) from None


def _teed(item: Teed, output: OutputFormat) -> Iterator[str]:
    for chunk in _package_chunks(item.package, output):
        item.recording.write(chunk)
        yield chunk


def _write_item(item: Writable, output: OutputFormat, write: Callable[[Iterable[str]], None],
                write_bytes: Callable[[Iterable[bytes]], None]) -> None:  # fmt: skip
    """Write one package (its output recorded too, for a Teed one, once it is whole)."""
    if isinstance(item, PackageCatalog):
        write(_package_chunks(item, output))
    elif isinstance(item, Teed):
        try:
            write(_teed(item, output))
        except BaseException:
            item.recording.abort()
            raise
        item.recording.commit()
    else:
        write_bytes(item.chunks())


def stream(
    packages: Iterable[Writable],
    out: TextIO,
    output: OutputFormat = "json",
    global_others: Iterable[Meta] = (),
) -> None:
    """Write a whole catalog as one stream (packages in the order given, global blobs last)."""
    render = RENDERERS[output]

    def write(chunks: Iterable[str]) -> None:
        for chunk in chunks:
            out.write(chunk)

    def write_bytes(chunks: Iterable[bytes]) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        for chunk in chunks:
            out.write(decoder.decode(chunk))
        out.write(decoder.decode(b"", final=True))

    for pkg in packages:
        _write_item(pkg, output, write, write_bytes)
    for chunk in render(global_blobs(global_others)):
        out.write(chunk)


def _write_file(path: Path, chunks: Iterable[str]) -> None:
    with open_output(path, "w", newline="") as fh:
        for chunk in chunks:
            fh.write(chunk)


def _write_bytes(path: Path, chunks: Iterable[bytes]) -> None:
    with open_output(path, "wb") as fh:
        for chunk in chunks:
            fh.write(chunk)


def _check_output_dir(out_dir: Path) -> None:
    if out_dir.is_symlink() or (out_dir.exists() and not out_dir.is_dir()):
        raise OutputError(f"output {out_dir} exists and is not a directory; choose another path")
    if out_dir.is_dir() and any(out_dir.iterdir()):
        raise OutputError(
            f"output directory {out_dir} is not empty; remove it or choose another path"
        )
    if out_dir.parent.exists() and not out_dir.parent.is_dir():
        raise OutputError(f"cannot create {out_dir}: {out_dir.parent} is not a directory")


def _make_parents(out_dir: Path) -> Path | None:
    """Create missing parent directories (like ``mkdir -p``); return the topmost one created."""
    missing = [p for p in reversed(out_dir.parents) if not p.exists()]
    if not missing:
        return None
    try:
        out_dir.parent.mkdir(parents=True)
    except OSError as exc:
        raise OutputError(f"cannot create {out_dir.parent}: {exc.strerror}") from None
    return missing[0]


def _remove_stale_partials(out_dir: Path) -> None:
    """Delete temporary directories left by olmcat runs that were killed (their pid is gone)."""
    prefix = f".{out_dir.name}{_PARTIAL_MARKER}"
    for candidate in out_dir.parent.glob(prefix + "*"):
        pid_text = candidate.name[len(prefix) :].split("-", 1)[0]
        if not pid_text.isdigit() or _pid_alive(int(pid_text)):
            continue
        shutil.rmtree(candidate, ignore_errors=True)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def staged_directory(out_dir: Path) -> Iterator[Path]:
    """A temporary sibling of ``out_dir`` that becomes ``out_dir`` only if the block succeeds."""
    _check_output_dir(out_dir)
    created = _make_parents(out_dir)
    _remove_stale_partials(out_dir)
    try:
        staging = Path(
            tempfile.mkdtemp(
                prefix=f".{out_dir.name}{_PARTIAL_MARKER}{os.getpid()}-", dir=out_dir.parent
            )
        )
    except OSError as exc:
        raise OutputError(f"cannot create a directory next to {out_dir}: {exc.strerror}") from None
    try:
        try:
            yield staging
        except OSError as exc:
            # Writers name what they write (files.output); what is left is creating a file or
            # directory in the staging directory, or a write no writer named.
            if is_closed_pipe(exc):
                raise
            shown = str(exc.filename) if exc.filename else ""
            if shown.startswith(str(staging)):
                raise cannot_write(shown.replace(str(staging), str(out_dir)), exc) from None
            if not is_no_room(exc):
                raise
            raise cannot_write(out_dir, exc) from None
        except OutputError as error:
            # Name the output the user asked for, not the staging directory.
            error.args = (str(error).replace(str(staging), str(out_dir)),)
            raise
        umask = os.umask(0)
        os.umask(umask)
        staging.chmod(0o777 & ~umask)
        try:
            staging.rename(out_dir)
        except OSError as exc:
            raise OutputError(
                f"cannot move finished output into {out_dir}: {exc.strerror}"
            ) from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if created is not None:
            _remove_empty_chain(out_dir.parent, created)
        raise


def _remove_empty_chain(deepest: Path, topmost: Path) -> None:
    """Undo ``_make_parents`` after a failure, as far as the directories are still empty."""
    for directory in [deepest, *deepest.parents]:
        try:
            directory.rmdir()
        except OSError:
            return
        if directory == topmost:
            return


def write_directory(
    packages: Iterable[Writable],
    out_dir: Path,
    output: OutputFormat = "json",
    global_others: Iterable[Meta] = (),
) -> None:
    """Write ``<out_dir>/<package>/catalog.<ext>`` for every package, atomically as a whole."""
    render = RENDERERS[output]
    filename = f"catalog.{output}"
    with staged_directory(out_dir) as staging:
        seen: set[str] = set()
        for pkg in packages:
            check_package_name(pkg.name)
            if pkg.name in seen:
                raise OutputError(f"package {pkg.name!r} appears twice in the catalog")
            seen.add(pkg.name)
            pkg_dir = staging / pkg.name
            pkg_dir.mkdir()
            target = pkg_dir / filename
            _write_item(
                pkg,
                output,
                functools.partial(_write_file, target),
                functools.partial(_write_bytes, target),
            )
        global_list = list(global_others)
        if global_list:
            _write_file(staging / filename, render(global_blobs(global_list)))
