"""The one scanner of file-based catalogs: which files opm loads, their documents, where each
blob starts, and the envelope rules every blob must meet.

Used strictly by the FBC reader (the first problem raises :class:`InputError`) and collecting by
``olmcat validate`` (every problem goes to a callback and scanning goes on), so both see the same
files, the same documents and the same positions.

Files, as opm's ``declcfg.WalkFS`` / ``WalkMetasFS`` find them: **every** regular file under the
root, whatever its name, except ``.indexignore`` files and what they exclude (gitignore rules,
patterns relative to the directory of the ``.indexignore`` that holds them, deeper files deciding
last). A ``README.md`` or ``Dockerfile`` in a catalog is therefore a catalog file that does not
parse, as it is for ``opm serve``.

Documents, as Kubernetes' ``YAMLOrJSONDecoder`` (which opm uses) reads them: a file whose first
non-blank character is ``{`` is a stream of JSON values; any other file is YAML, split into
documents at lines starting with ``---`` (after which only blanks or a comment may follow). A YAML
document that holds no value (only blanks or comments, e.g. a trailing ``---`` followed by a
comment) is an error in opm, and here.

Blobs spill as compact JSON to one temporary file and only (schema, package, name, position,
offset) stays in memory, so memory holds one document while scanning and one package when the
caller reads it back (:meth:`FbcScan.load`).
"""

from __future__ import annotations

import json
import pickle
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pathspec
import yaml

from olmcat.errors import InputError
from olmcat.files import json as jsonio
from olmcat.files import safe
from olmcat.files.output import SCRATCH, guarded, scratch_target, writing
from olmcat.files.yaml import load_positioned
from olmcat.go import json as gojson
from olmcat.model import SCHEMA_BUNDLE, SCHEMA_CHANNEL, SCHEMA_DEPRECATIONS, SCHEMA_PACKAGE

__all__ = [
    "IGNORE_FILE",
    "KNOWN_SCHEMAS",
    "BlobRef",
    "FbcScan",
    "Position",
    "ScanProblem",
    "catalog_files",
    "documents",
    "is_ignored",
    "json_type",
]

IGNORE_FILE = ".indexignore"
KNOWN_SCHEMAS = (SCHEMA_PACKAGE, SCHEMA_CHANNEL, SCHEMA_BUNDLE, SCHEMA_DEPRECATIONS)
# The extensions a catalog file is expected to have; other files are still loaded (as opm does),
# but a problem in one is reported as a stray file, with advice to ignore it.
CATALOG_EXTENSIONS = (".json", ".yaml", ".yml")
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Position:
    """Where a document (or a problem) is: ``file`` as shown to the user, 1-based ``line`` and
    ``column`` (in characters) when known, 0 otherwise."""

    file: str
    line: int = 0
    column: int = 0

    def __str__(self) -> str:
        if self.line:
            return f"{self.file}:{self.line}:{self.column}"
        return self.file


@dataclass(frozen=True, slots=True)
class BlobRef:
    """One scanned blob: its envelope, where it starts, and where its compact JSON is spilled."""

    schema: str
    package: str
    name: str
    position: Position
    offset: int
    length: int


@dataclass(frozen=True, slots=True)
class ScanProblem:
    """A file, document or envelope that breaks opm's loading rules.

    ``kind`` names the rule: ``stray-file``, ``read``, ``parse``, ``empty-document``, ``blob``,
    ``schema``, ``field-type``, ``required-field``, ``duplicate``. For a duplicate, ``first`` is
    where the blob was first defined.
    """

    kind: str
    message: str
    position: Position
    schema: str = ""
    package: str = ""
    name: str = ""
    first: Position | None = None


def json_type(value: Any) -> str:
    """How Go's encoding/json names the type of a decoded value in its errors."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


# -- files ----------------------------------------------------------------------------------------


def is_ignored(path: Path, root: Path, specs: dict[Path, pathspec.GitIgnoreSpec]) -> bool:
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
    """Every file opm loads under ``root``, in a stable order (directories shallow to deep, names
    sorted): all files but ``.indexignore`` files and what they exclude."""
    specs: dict[Path, pathspec.GitIgnoreSpec] = {}
    for here, dirnames, filenames in safe.walk(root):
        dirnames.sort()
        if IGNORE_FILE in filenames:
            lines = safe.read_text(here / IGNORE_FILE).splitlines()
            specs[here] = pathspec.GitIgnoreSpec.from_lines(lines)
        # Deeper specs are added after their parents, so iteration order is shallow to deep.
        for filename in sorted(filenames):
            path = here / filename
            if filename != IGNORE_FILE and not is_ignored(path, root, specs):
                yield path


# -- documents ------------------------------------------------------------------------------------


class DocumentError(Exception):
    """A file's text cannot be read as documents; ``line``/``column`` locate it (1-based, 0 if
    unknown)."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


def documents(fh: IO[str]) -> Iterator[tuple[int, int, Any]]:
    """(line, column, value) of every document of a catalog file, as opm's decoder sees it.

    A first non-blank character ``{`` makes the file a JSON stream, anything else YAML. Raises
    :class:`DocumentError` at the first document that does not parse (documents before it have
    been yielded); an empty YAML document yields ``None`` as its value.
    """
    head = fh.read(_CHUNK)
    if head.lstrip().startswith("{"):
        yield from _json_stream(head, fh)
    else:
        yield from _yaml_stream(head, fh)


class _Cursor:
    """Line and column of offsets into a buffer that only moves forward (1-based)."""

    def __init__(self) -> None:
        self.index, self.line, self.column = 0, 1, 1

    def at(self, buffer: str, index: int) -> tuple[int, int]:
        newlines = buffer.count("\n", self.index, index)
        if newlines:
            self.line += newlines
            self.column = index - buffer.rfind("\n", self.index, index)
        else:
            self.column += index - self.index
        self.index = index
        return self.line, self.column

    def rebase(self, buffer: str, index: int) -> None:
        """``buffer[index:]`` becomes the new buffer."""
        self.at(buffer, index)
        self.index = 0


def _json_stream(buffer: str, fh: IO[str]) -> Iterator[tuple[int, int, Any]]:
    """Concatenated JSON values read in chunks, each with its 1-based line and column."""
    decoder = json.JSONDecoder(parse_float=gojson.RawNumber)
    cursor = _Cursor()
    index, eof, chunk = 0, False, _CHUNK
    while True:
        while index < len(buffer) and buffer[index] in " \t\r\n":
            index += 1
        if index >= len(buffer):
            if eof:
                return
            cursor.rebase(buffer, len(buffer))
            buffer, index = fh.read(chunk), 0
            eof = not buffer
            continue
        try:
            value, end = decoder.raw_decode(buffer, index)
        except json.JSONDecodeError as exc:
            if eof:
                line, column = cursor.at(buffer, exc.pos)
                raise DocumentError(f"not valid JSON: {exc.msg}", line, column) from None
            more = fh.read(chunk)
            chunk *= 2  # grow geometrically: a huge document is re-parsed O(log n) times
            eof = not more
            cursor.rebase(buffer, index)
            buffer, index = buffer[index:] + more, 0
            continue
        except (ValueError, RecursionError) as exc:  # too deep, or an integer over 4300 digits
            line, column = cursor.at(buffer, index)
            raise DocumentError(_bounded_json_problem(exc), line, column) from None
        line, column = cursor.at(buffer, index)
        limit = safe.limits().max_depth
        if jsonio.depth(value, limit) > limit:
            raise DocumentError(_bounded_json_problem(RecursionError()), line, column)
        yield line, column, value
        index = end


def _bounded_json_problem(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return (
            f"nested deeper than {safe.limits().max_depth} levels; refusing to read it (raise "
            "the limit with --max-depth if the document is genuine)"
        )
    return "holds a number with more digits than olmcat reads (4300)"


def _lines(head: str, fh: IO[str]) -> Iterator[str]:
    """Lines (split at newlines only, as Go's line reader does) of ``head`` and then the rest of
    ``fh``, each keeping its line end."""
    pending, eof = head, False
    while True:
        start = 0
        while (newline := pending.find("\n", start)) >= 0:
            yield pending[start : newline + 1]
            start = newline + 1
        pending = pending[start:]
        if eof:
            if pending:
                yield pending
            return
        more = fh.read(_CHUNK)
        eof = not more
        pending += more


def _yaml_stream(head: str, fh: IO[str]) -> Iterator[tuple[int, int, Any]]:
    """YAML documents split the way Kubernetes' ``YAMLReader`` splits them."""
    chunk: list[str] = []
    chunk_line = 1
    for number, text in enumerate(_lines(head, fh), 1):
        if text.startswith("---"):
            rest = text[3:].strip()
            if rest and not rest.startswith("#"):
                raise DocumentError(
                    f"invalid YAML document separator {_quote(text.rstrip())}: only a comment "
                    "may follow '---' on its line",
                    number,
                    1,
                )
            if chunk:  # the separator ends the document and is dropped
                yield _yaml_document("".join(chunk), chunk_line)
                chunk = []
                continue
        if not chunk:
            chunk_line = number
        chunk.append(text)
    if chunk:
        yield _yaml_document("".join(chunk), chunk_line)


def _yaml_document(text: str, first_line: int) -> tuple[int, int, Any]:
    try:
        found = load_positioned(text, where="<document>")
    except InputError as exc:  # over a limit: depth, alias expansion
        message = str(exc).removeprefix("<document>: ")
        raise DocumentError(message, first_line, 1) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        line = first_line + mark.line if mark is not None else first_line
        column = mark.column + 1 if mark is not None else 0
        raise DocumentError(f"not valid YAML: {problem}", line, column) from None
    except Exception as exc:  # libyaml's own errors (e.g. unacceptable characters)
        raise DocumentError(f"not valid YAML: {str(exc).splitlines()[0]}", first_line, 1) from None
    if found is None or found[2] is None:
        return first_line, 1, None
    line, column, value = found
    return first_line + line, column + 1, value


# -- the scan -------------------------------------------------------------------------------------


Report = Callable[[ScanProblem], None]


class FbcScan:
    """Scan an FBC (directory, file or ``-`` for stdin) once; blobs spill to a temporary file.

    With ``report=None`` the first problem raises :class:`InputError` (the reader); otherwise
    each problem goes to ``report`` and scanning goes on (validate): a broken document drops
    the rest of its file, a broken or duplicate blob only itself.

    ``shown`` turns a path into the name problems and positions carry (validate of an image
    names files as they are inside the image).
    """

    def __init__(
        self,
        source: Path | str,
        *,
        report: Report | None = None,
        shown: Callable[[str], str] = str,
    ) -> None:
        self.source = source
        self.shown = shown
        self._report = report
        self.by_package: dict[str, list[BlobRef]] = defaultdict(list)
        self.global_blobs: list[BlobRef] = []
        # Collecting only: blobs of opm's schemas that have no package (or no name), kept so
        # that validate can still report what else is wrong with them.
        self.unowned: list[BlobRef] = []
        self.files = 0
        self._seen: dict[tuple[str, str, str], Position] = {}
        with writing(scratch_target(), elsewhere=SCRATCH):
            spill = tempfile.TemporaryFile(prefix="olmcat-fbc-")  # noqa: SIM115 - closed by close()
        self._spill: IO[bytes] = guarded(spill, scratch_target(), elsewhere=SCRATCH)
        self._offset = 0
        try:
            self._scan()
        except BaseException:
            self._spill.close()
            raise

    def close(self) -> None:
        self._spill.close()

    def __enter__(self) -> FbcScan:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def load(self, ref: BlobRef) -> dict[str, Any]:
        """A spilled blob, as it was parsed (numbers keep their text)."""
        self._spill.seek(ref.offset)
        value: dict[str, Any] = pickle.loads(self._spill.read(ref.length))
        return value

    # -- problems ---------------------------------------------------------------------------------

    def _problem(self, problem: ScanProblem) -> None:
        if self._report is None:
            raise InputError(f"{problem.position}: {problem.message}")
        self._report(problem)

    # -- files ------------------------------------------------------------------------------------

    def _scan(self) -> None:
        if self.source == "-":
            self._file(None, safe.bounded_stream(sys.stdin, "<stdin>"), "<stdin>")
            return
        path = Path(self.source)
        if not path.exists():
            raise InputError(f"{path}: no such file or directory")
        safe.add_root(path)
        files = catalog_files(path) if path.is_dir() else iter([path])
        for file in files:
            shown = self.shown(str(file))
            try:
                fh = safe.open_text(file, newline="")
            except InputError as exc:  # the input policy: a link out, a FIFO, a size limit
                message = str(exc).removeprefix(f"{file}: ")
                self._problem(ScanProblem("read", message, Position(shown)))
                continue
            try:
                with fh:
                    self._file(file, fh, shown)
            except UnicodeDecodeError:
                self._file_problem(file, "read", "not UTF-8 text", Position(shown))
            except OSError as exc:
                self._file_problem(file, "read", f"cannot read: {exc.strerror}", Position(shown))

    def _file(self, path: Path | None, fh: IO[str], shown: str) -> None:
        self.files += 1
        try:
            for line, column, value in documents(fh):
                self._blob(path, value, Position(shown, line, column))
        except DocumentError as exc:
            self._file_problem(path, "parse", str(exc), Position(shown, exc.line, exc.column))

    def _file_problem(self, path: Path | None, kind: str, message: str, where: Position) -> None:
        if path is not None and path.suffix.lower() not in CATALOG_EXTENSIONS:
            kind = "stray-file"
            message = (
                f"{path.name} is not a catalog file ({message}), but opm loads every file "
                "that no .indexignore excludes"
            )
        self._problem(ScanProblem(kind, message, where))

    # -- blobs ------------------------------------------------------------------------------------

    def _blob(self, path: Path | None, blob: Any, where: Position) -> None:
        if blob is None:
            self._file_problem(
                path,
                "empty-document",
                "empty YAML document (only blanks or comments): opm cannot load it",
                where,
            )
            return
        if not isinstance(blob, dict):
            self._file_problem(
                path, "blob", f"a catalog blob must be an object, got {json_type(blob)}", where
            )
            return
        schema = blob.get("schema")
        if not isinstance(schema, str) or not schema:
            got = "" if schema is None else f" (got {json_type(schema)})"
            self._file_problem(
                path, "schema", f"blob has no schema: a non-empty 'schema' string{got}", where
            )
            return
        package_field, name = blob.get("package"), blob.get("name")
        bad = [
            f"{key!r} must be a string, got {json_type(value)}"
            for key, value in (("package", package_field), ("name", name))
            if value is not None and not isinstance(value, str)
        ]
        if bad:
            self._problem(ScanProblem("field-type", f"{schema} blob: {'; '.join(bad)}", where))
            return
        package_field, name = package_field or "", name or ""
        package = name if schema == SCHEMA_PACKAGE else package_field
        if schema in KNOWN_SCHEMAS:
            if not package:
                what = "has no name" if schema == SCHEMA_PACKAGE else "has no package"
                label = f" {_quote(name)}" if name else ""
                self._problem(
                    ScanProblem("required-field", f"{schema} blob{label} {what}", where, schema)
                )
                self.unowned.append(self._spill_blob(blob, schema, "", name, where))
                return
            key = (schema, package, name)
            first = self._seen.get(key)
            if first is not None:
                self._problem(
                    ScanProblem(
                        "duplicate",
                        f"duplicate {_describe(schema, package, name)}: first defined at {first}",
                        where,
                        schema,
                        package,
                        name,
                        first,
                    )
                )
                return
            self._seen[key] = where
        ref = self._spill_blob(blob, schema, package, name, where)
        if package:
            self.by_package[package].append(ref)
        else:
            self.global_blobs.append(ref)

    def _spill_blob(
        self, blob: dict[str, Any], schema: str, package: str, name: str, where: Position
    ) -> BlobRef:
        # pickle, not JSON: the same values come back (RawNumber included) 2-3x faster, and this
        # runs for every blob any FBC read or validation sees
        data = pickle.dumps(blob, protocol=pickle.HIGHEST_PROTOCOL)
        self._spill.write(data)
        ref = BlobRef(schema, package, name, where, self._offset, len(data))
        self._offset += len(data)
        return ref


def _describe(schema: str, package: str, name: str) -> str:
    if schema == SCHEMA_PACKAGE:
        return f"package {_quote(package)}"
    if schema == SCHEMA_DEPRECATIONS:
        return f"olm.deprecations of package {_quote(package)}"
    what = "channel" if schema == SCHEMA_CHANNEL else "bundle"
    return f"{what} {_quote(name)} of package {_quote(package)}"
