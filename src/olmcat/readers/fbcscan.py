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

import dataclasses
import io
import json
import math
import pickle
import re
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
from olmcat.go.opm import behaviour as opm_behaviour
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
# Problems only some opm releases have (each names the rule that says which); the reader, which
# reads as the newest release does, goes on.
RELEASE_KINDS = frozenset({"html-escape", "huge-number", "json-then-yaml"})
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
    where the blob was first defined. The kinds in :data:`RELEASE_KINDS` are refusals of some
    opm releases only (the reader, which follows the newest, goes on).
    """

    kind: str
    message: str
    position: Position
    schema: str = ""
    package: str = ""
    name: str = ""
    first: Position | None = None
    until: str = ""
    """For a problem only some releases have: the first release that reads the document
    differently, so that no longer refuses it ("" when the rule's own releases decide)."""


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


class NotUtf8(DocumentError):
    """A YAML document holds bytes that are not UTF-8 (opm's YAML reader refuses them)."""


@dataclass(frozen=True, slots=True)
class DocumentText:
    """What :func:`documents` tells an ``inspect`` callback about each document: where it
    starts, its text (JSON: exactly as written), which decoder read it, its index in the file,
    and for the YAML documents of a file that began as JSON, that it did."""

    line: int
    column: int
    text: str
    json: bool
    index: int
    after_json: bool = False
    huge: str | None = None
    """A number of the (JSON) document beyond float64's range, as written."""


Inspect = Callable[[DocumentText, Any], None]

# Invalid UTF-8 bytes read with errors="surrogateescape".
_BAD_BYTES = re.compile("[\udc80-\udcff]")


def documents(
    fh: IO[str], *, inspect: Inspect | None = None, json_then_yaml: bool = False
) -> Iterator[tuple[int, int, Any]]:
    """(line, column, value) of every document of a catalog file, as opm's decoder sees it.

    A first non-blank character ``{`` makes the file a JSON stream, anything else YAML. Raises
    :class:`DocumentError` at the first document that does not parse (documents before it have
    been yielded); an empty YAML document yields ``None`` as its value. ``inspect`` sees each
    document's text and value before it is yielded.

    ``json_then_yaml``: as Kubernetes' decoder from 1.33 (opm v1.56.0): when the first or the
    second document of a JSON stream does not parse, the rest of the file (after blanks up to
    the first newline) is read as YAML; if that fails too, the JSON error stands.
    """
    head = fh.read(_CHUNK)
    if head.lstrip().startswith("{"):
        yield from _json_stream(head, fh, inspect, json_then_yaml)
    else:
        yield from _yaml_stream(head, fh, inspect=inspect)


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


def _json_stream(
    buffer: str, fh: IO[str], inspect: Inspect | None = None, json_then_yaml: bool = False
) -> Iterator[tuple[int, int, Any]]:
    """Concatenated JSON values read in chunks, each with its 1-based line and column."""
    huge: list[str] = []  # numbers beyond float64 in the document being decoded (inspect only)
    if inspect is None:
        decoder = json.JSONDecoder(parse_float=gojson.RawNumber)
    else:

        def parse_float(text: str) -> gojson.RawNumber:
            if not huge and _beyond_float64(text):
                huge.append(text)
            return gojson.RawNumber(text)

        def parse_int(text: str) -> int:
            if len(text) > 308 and not huge and _beyond_float64(text):
                huge.append(text)
            return int(text)

        decoder = json.JSONDecoder(parse_float=parse_float, parse_int=parse_int)
    cursor = _Cursor()
    index, eof, chunk = 0, False, _CHUNK
    count = 0
    while True:
        huge.clear()
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
                start_line, start_column = cursor.at(buffer, index)
                line, column = cursor.at(buffer, exc.pos)
                error = DocumentError(f"not valid JSON: {exc.msg}", line, column)
                if json_then_yaml and count <= 1:
                    rest = _after_blanks(buffer[index:])
                    skipped = buffer[index:].count("\n", 0, len(buffer) - index - len(rest))
                    first = start_line + skipped
                    yield from _yaml_after_json(rest, first, start_column, error, inspect, count)
                    return
                raise error from None
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
        if inspect is not None:
            raw = buffer[index:end]
            if not raw.isascii() and _BAD_BYTES.search(raw):
                value = _replace_bad_bytes(value)  # Go reads each invalid byte as U+FFFD
            inspect(
                DocumentText(line, column, raw, True, count, huge=huge[0] if huge else None), value
            )
        count += 1
        yield line, column, value
        index = end


def _replace_bad_bytes(value: Any) -> Any:
    if isinstance(value, str):
        return _BAD_BYTES.sub("\ufffd", value) if _BAD_BYTES.search(value) else value
    if isinstance(value, dict):
        return {_replace_bad_bytes(k): _replace_bad_bytes(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_bad_bytes(v) for v in value]
    return value


# -- what some releases read differently ---------------------------------------------------------

# A \u003c, \u003e or \u0026 whose backslash is itself escaped (an even run of backslashes
# before "u00..."): replacing the six characters leaves "\<", an invalid escape.
_ESCAPED_HTML_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)+u00(?:3c|3e|26)")
_HTML_ESCAPE_TEXT = ("\\u003c", "\\u003e", "\\u0026")
# What Go's html escaping turned into these escapes (the characters opm v1.26 puts back).
_HTML_CHARS = {"\\u003c": "<", "\\u003e": ">", "\\u0026": "&"}
JSON_THEN_YAML_SINCE = opm_behaviour("encoding-json-then-yaml").since


def escaped_html_escape(text: DocumentText, value: Any) -> str | None:
    """The text opm v1.26/v1.27 breaks by replacing ``\\u003c`` / ``\\u003e`` / ``\\u0026``
    in the document's JSON before parsing it, or None. JSON documents are judged on their own
    text; YAML documents on their strings (opm sees them as json.Marshal writes them, with every
    backslash doubled)."""
    if text.json:
        if "u00" not in text.text:
            return None
        found = _ESCAPED_HTML_ESCAPE.search(text.text)
        return "\\" + found.group(0)[-5:] if found else None
    if "\\" not in text.text:
        return None
    return _html_escape_in_strings(value)


def _html_escape_in_strings(value: Any) -> str | None:
    if isinstance(value, str):
        for escape in _HTML_ESCAPE_TEXT:
            if escape in value:
                return escape
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = _html_escape_in_strings(key) or _html_escape_in_strings(item)
            if found:
                return found
        return None
    if isinstance(value, list):
        for item in value:
            found = _html_escape_in_strings(item)
            if found:
                return found
    return None


def huge_number(text: DocumentText, value: Any) -> str | None:
    """A number of a JSON document beyond float64's range (Go's json.Unmarshal into an
    interface{} refuses it), or None. YAML reads such a number as a string."""
    return text.huge if text.json else None


def _beyond_float64(text: str) -> bool:
    try:
        return math.isinf(float(text))
    except OverflowError:
        return True


def _after_blanks(text: str) -> str:
    """``consumeWhitespace``: drop white space up to and including the first newline."""
    for position, char in enumerate(text):
        if char == "\n":
            return text[position + 1 :]
        if not char.isspace():
            return text[position:]
    return ""


def _yaml_after_json(
    rest: str,
    first_line: int,
    first_column: int,
    json_error: DocumentError,
    inspect: Inspect | None,
    index: int,
) -> Iterator[tuple[int, int, Any]]:
    """The rest of a JSON stream read as YAML documents; the JSON error if the first fails."""
    if not rest.strip():
        raise json_error
    lines_before = first_line - 1

    def shifted_inspect(text: DocumentText, value: Any) -> None:
        if inspect is not None:
            inspect(dataclasses.replace(text, line=text.line + lines_before), value)

    documents_ = _yaml_stream(
        rest, io.StringIO(""), inspect=shifted_inspect, first_index=index, after_json=True
    )
    try:
        first = next(documents_)
    except DocumentError:
        raise json_error from None
    except StopIteration:
        raise json_error from None

    def shifted(found: tuple[int, int, Any]) -> tuple[int, int, Any]:
        return found[0] + lines_before, found[1], found[2]

    yield shifted(first)
    try:
        for found in documents_:
            yield shifted(found)
    except DocumentError as exc:
        raise DocumentError(str(exc), exc.line + lines_before, exc.column) from None


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


def _yaml_stream(
    head: str,
    fh: IO[str],
    *,
    inspect: Inspect | None = None,
    first_index: int = 0,
    after_json: bool = False,
) -> Iterator[tuple[int, int, Any]]:
    """YAML documents split the way Kubernetes' ``YAMLReader`` splits them."""
    chunk: list[str] = []
    chunk_line = 1
    index = first_index

    def document(text: str, line: int) -> tuple[int, int, Any]:
        nonlocal index
        found = _yaml_document(text, line)
        if inspect is not None:
            inspect(DocumentText(found[0], found[1], text, False, index, after_json), found[2])
        index += 1
        return found

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
                yield document("".join(chunk), chunk_line)
                chunk = []
                continue
        if not chunk:
            chunk_line = number
        chunk.append(text)
    if chunk:
        yield document("".join(chunk), chunk_line)


def _yaml_document(text: str, first_line: int) -> tuple[int, int, Any]:
    bad = _BAD_BYTES.search(text)
    if bad is not None:
        line = first_line + text.count("\n", 0, bad.start())
        raise NotUtf8("not UTF-8 text", line, 0)
    if "\\/" in text:
        _refuse_yaml12_escapes(text, first_line)
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


def _refuse_yaml12_escapes(text: str, first_line: int) -> None:
    """yaml.v2 (every opm release) knows YAML 1.1's escapes only: ``\\/`` in a double-quoted
    scalar is "found unknown escape character", which libyaml 0.2.5 accepts."""
    try:
        tokens = list(yaml.scan(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return  # the loader reports what is wrong
    for token in tokens:
        if not isinstance(token, yaml.ScalarToken) or token.style != '"':
            continue
        source = text[token.start_mark.index : token.end_mark.index]
        position = 1
        while position < len(source) - 1:
            if source[position] == "\\":
                if source[position + 1] == "/":
                    line = first_line + token.start_mark.line + source.count("\n", 0, position)
                    raise DocumentError(
                        "not valid YAML: found unknown escape character ('\\/' is YAML 1.2; "
                        "opm's YAML reader refuses it: write '/')",
                        line,
                        0,
                    )
                position += 2
                continue
            position += 1


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
            if problem.kind in RELEASE_KINDS or problem.kind == "invalid-utf8":
                return
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
                # Collecting (validate): invalid UTF-8 is kept as surrogate escapes, because
                # inside a JSON string opm reads it (each byte as U+FFFD); YAML refuses it.
                errors = "strict" if self._report is None else "surrogateescape"
                fh = safe.open_text(file, newline="", errors=errors)
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
        pending: list[tuple[DocumentText, ScanProblem]] = []
        last = -1

        def inspect(text: DocumentText, value: Any) -> None:
            nonlocal last
            last = text.index
            self._inspect(text, value, shown, pending)

        try:
            for line, column, value in documents(
                fh, inspect=inspect if self._report is not None else None, json_then_yaml=True
            ):
                self._blob(path, value, Position(shown, line, column))
        except NotUtf8 as exc:
            self._file_problem(path, "read", str(exc), Position(shown, exc.line, exc.column))
        except DocumentError as exc:
            self._file_problem(path, "parse", str(exc), Position(shown, exc.line, exc.column))
        for text, problem in pending:
            # From v1.56 a JSON document that fails to load, when it is the first or second
            # of its file and the last one, is read again as YAML (where the number is text).
            if text.index == last and text.index <= 1:
                problem = dataclasses.replace(problem, until=JSON_THEN_YAML_SINCE)
            self._problem(problem)

    def _inspect(
        self,
        text: DocumentText,
        value: Any,
        shown: str,
        pending: list[tuple[DocumentText, ScanProblem]],
    ) -> None:
        where = Position(shown, text.line, text.column)
        if text.after_json and text.index <= 1:
            self._problem(
                ScanProblem(
                    "json-then-yaml",
                    "the file starts as JSON, but this document is no JSON; opm reads it and the "
                    "rest of the file as YAML only from v1.56.0 (Kubernetes 1.33's decoder), "
                    "earlier releases refuse the file",
                    where,
                )
            )
        if text.json and not text.text.isascii() and _BAD_BYTES.search(text.text):
            self._problem(
                ScanProblem(
                    "invalid-utf8",
                    "a string holds bytes that are not UTF-8; opm reads each such byte as "
                    "U+FFFD (the replacement character)",
                    where,
                )
            )
        escape = escaped_html_escape(text, value)
        if escape is not None:
            self._problem(
                ScanProblem(
                    "html-escape",
                    f"a string holds the text {escape} (its backslash written as \\\\); opm "
                    f"v1.26 and v1.27 replace {escape} by {_HTML_CHARS[escape]} "
                    "in the document's JSON before parsing it, which leaves an invalid "
                    f"escape: \"invalid character '{_HTML_CHARS[escape]}' in "
                    'string escape code"',
                    where,
                )
            )
        number = huge_number(text, value)
        if number is not None:
            problem = ScanProblem(
                "huge-number",
                f"the number {number[:40]} does not fit a float64; opm from v1.28 decodes "
                "every blob into generic values and refuses it (json: cannot unmarshal number "
                "into Go value of type float64)",
                where,
            )
            pending.append((text, problem))

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
