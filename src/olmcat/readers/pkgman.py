"""Read package-manifest trees into the catalog model exactly as ``initializer`` + ``opm migrate``.

The legacy ``initializer`` (operator-registry's ``DirectoryLoader``) walks the tree twice, in Go's
``filepath.Walk`` order (byte-sorted names, hidden files and directories skipped):

1. **Bundles.** Every file whose first document is a ``ClusterServiceVersion`` becomes a bundle
   made of the first document of every file in its directory, other-named CSVs left out. So a
   directory holding several CSVs (or CSVs kept flat in the package directory) gives one bundle
   per CSV, each with the directory's other objects; two files carrying the same CSV name put two
   CSVs in one bundle, which the loader refuses. A bundle is refused when Go cannot decode its
   CSV or CRDs into their typed structs (:mod:`olmcat.go.typed`), when its ``olm.properties``
   annotation is not a valid property list, when it uses ``olm.substitutesFor`` (an alpha
   feature the initializer does not enable), or when a bundle of that name was loaded before. An
   owned CRD missing from the directory is an error, but the bundle is kept.
2. **Packages.** Every file that decodes into a ``PackageManifest`` with a ``packageName`` (in
   any directory) is applied in walk order: the package's channels are rebuilt from each
   ``currentCSV`` along ``replaces`` and ``spec.skips`` (``addPackageChannels``); a later
   manifest of the same package replaces an earlier one. A manifest whose channels cannot be
   built (a ``currentCSV`` or ``replaces`` target that was not loaded, a cycle, no default
   channel) is not applied at all.

Without ``permissive`` any error refuses the tree (the initializer exits non-zero), with one
deviation: files not named ``*.yaml``, ``*.yml`` or ``*.json`` that do not decode (READMEs,
Dockerfiles, images) are reported, not fatal. With ``permissive`` every error is reported and
what loaded is migrated, as ``initializer --permissive``. Files the initializer never sees in an
index build are no manifests at all: those of a bundle-format operator directory outside its
bundles' ``manifests/`` and ``metadata/`` (``ci.yaml``, templates, tests, READMEs), and in a tree
without package manifests every file outside the bundles; each is a note, in both modes
(:meth:`PkgmanCatalog._outside_bundles`).

``opm migrate`` then writes every bundle listed in a channel (manifests as ``olm.bundle.object``,
properties from the CSV's APIs and ``olm.properties`` annotation, related images), the package icon
from the default channel head's CSV, and refuses the whole catalog when the head's CSV does not
decode into ``v1alpha1.ClusterServiceVersion`` or the model breaks one of its rules
(:func:`olmcat.readers.legacy.check_like_opm`).

Reading happens once, directory by directory in worker processes; each bundle's manifests are
spilled to a temporary directory and read back when its package is written, so memory holds one
package at a time.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import weakref
from collections import defaultdict
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pathspec

from olmcat.errors import InputError, ValidationError
from olmcat.files import godecode, safe
from olmcat.files.output import SCRATCH, open_output, scratch_target
from olmcat.go.json import RawNumber, compact, marshal_object
from olmcat.go.typed import decode_error
from olmcat.model import Bundle, Channel, Meta, Package, PackageCatalog, manifests
from olmcat.model import property as prop
from olmcat.model.property import Property
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.readers import legacy
from olmcat.readers.bundlecache import Listing, RenderCache, unchanged
from olmcat.readers.bundlefiles import RawJSON, in_bundle_manifests
from olmcat.readers.fbc import IGNORE_FILE, _ignored
from olmcat.readers.parallel import map_in_order, worker_count
from olmcat.readers.source import selected

MANIFEST_EXTENSIONS = (".yaml", ".yml", ".json")
CI_FILE = "ci.yaml"  # operator pipelines' settings of an operator directory
CODE_NOT_A_MANIFEST = "pkgman.not-a-manifest"
_LOADER, _OWNED, _CONTENT, _TREE = "loader", "owned", "content", "tree"  # see _outside_bundles
MANIFESTS_DIR, METADATA_DIR = "manifests", "metadata"  # a bundle-format directory
PACKAGE_SUFFIXES = (".package.yaml", ".package.yml", ".package.json")
CRD_GROUP = "apiextensions.k8s.io"
CRD_TYPES = {
    "v1": "crdv1.CustomResourceDefinition",
    "v1beta1": "crdv1beta1.CustomResourceDefinition",
}
ANNOTATION_PROPERTIES = "olm.properties"
ANNOTATION_SUBSTITUTES_FOR = "olm.substitutesFor"
# Which files can matter without being parsed: a CSV names its kind, a package manifest its
# packageName (Go matches field names ignoring case); an escape could hide either.
_CSV_MARK = b"ClusterServiceVersion"
_PACKAGE_MARK = b"packagename"
_ESCAPES = (b"\\u", b"\\x", b"\\U")


def is_package_file(path: Path) -> bool:
    return path.name.lower().endswith(PACKAGE_SUFFIXES)


def has_manifest_extension(path: Path) -> bool:
    return path.name.lower().endswith(MANIFEST_EXTENSIONS)


# -- walking --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TreeFile:
    """A file of the tree and its position in Go's walk order."""

    seq: int
    directory: Path
    name: str

    @property
    def path(self) -> Path:
        # Made when needed: most files of a bundle tree are never opened by this reader.
        return self.directory / self.name


def _go_order(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")


@dataclass(slots=True)
class WalkedDir:
    """A directory of the walk: its files (numbered in walk order) and the names of the
    subdirectories the walk went into (links to directories inside the tree included)."""

    path: Path
    files: list[TreeFile] = field(default_factory=list)
    subdirs: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Tree:
    """One walk of an input tree, shared by the readers of a legacy directory (the
    package-manifest loader and the bundle-directory reader)."""

    root: Path
    directories: list[WalkedDir]  # in walk order, the root first
    specs: dict[Path, pathspec.GitIgnoreSpec]  # the .indexignore files found, outer first
    by_path: dict[Path, WalkedDir] = field(init=False)

    def __post_init__(self) -> None:
        self.by_path = {d.path: d for d in self.directories}

    def ignored(self, path: Path) -> bool:
        return _ignored(path, self.root, self.specs)


def walked_bundle(walked: WalkedDir | None) -> bool:
    """Whether a directory of the walk is a bundle directory (``manifests/`` + ``metadata/``)."""
    return walked is not None and MANIFESTS_DIR in walked.subdirs and METADATA_DIR in walked.subdirs


def walk_tree(root: Path) -> Tree:
    """Walk ``root`` once, as Go's ``filepath.Walk`` would (see :class:`_GoWalker`), with the
    input policy applied; the root is registered as an input root."""
    if not root.exists():
        raise InputError(f"{root}: no such directory")
    if not root.is_dir():
        raise InputError(f"{root}: not a directory")
    safe.add_root(root)
    walker = _GoWalker(root)
    return Tree(root, walker.directories(), walker.specs)


class _GoWalker:
    """``filepath.Walk`` order: names byte-sorted, files and directories interleaved, hidden
    entries skipped; plus olmcat's ``.indexignore`` and its symlink rule."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.real_root = root.resolve()
        self.specs: dict[Path, pathspec.GitIgnoreSpec] = {}
        self.seq = 0

    def directories(self) -> list[WalkedDir]:
        """Every directory in walk order with its files; each file numbered in walk order."""
        out: list[WalkedDir] = []
        real_root = str(self.real_root)
        self._visit(self.root, real_root, out, (real_root,))
        return out

    def _visit(
        self, directory: Path, real: str, out: list[WalkedDir], above: tuple[str, ...]
    ) -> None:
        """``real``: the real path of ``directory`` (below a directory that is no link, a
        name's real path is its parent's real path and the name: no resolving needed)."""
        try:
            entries = sorted(os.scandir(directory), key=lambda e: _go_order(e.name))
        except OSError as exc:
            raise InputError(f"{directory}: cannot list the directory: {exc.strerror}") from None
        if directory not in self.specs and any(e.name == IGNORE_FILE for e in entries):
            lines = safe.read_text(directory / IGNORE_FILE).splitlines()
            self.specs[directory] = pathspec.GitIgnoreSpec.from_lines(lines)
        walked = WalkedDir(directory)
        out.append(walked)
        specs = self.specs
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if specs and _ignored(directory / name, self.root, specs):
                continue
            if entry.is_dir(follow_symlinks=False):
                walked.subdirs.append(name)
                inner = os.path.join(real, name)
                self._visit(directory / name, inner, out, (*above, inner))
                continue
            if entry.is_symlink():
                # The input policy: a link leading out of the tree is refused, naming it; one
                # inside is followed (a linked package or version directory works).
                path = directory / name
                target = safe.check_inside(path)
                if os.path.isdir(target):
                    if target in above:
                        raise InputError(
                            f"{path}: symbolic link loop (it leads back to a directory above "
                            "it); remove the link"
                        )
                    walked.subdirs.append(name)
                    self._visit(path, target, out, (*above, target))
                    continue
            self.seq += 1
            walked.files.append(TreeFile(self.seq, directory, name))


# -- one directory (runs in worker processes) ----------------------------------------------------


@dataclass(slots=True)
class CsvCandidate:
    """A bundle the loader tries to add: one CSV file and its directory's other objects."""

    seq: int
    path: Path
    name: str
    version: str = ""
    skip_range: str = ""
    replaces: str = ""
    skips: tuple[str, ...] = ()
    fatal: list[str] = field(default_factory=list)  # AddOperatorBundle fails: left out
    errors: list[str] = field(default_factory=list)  # reported, bundle kept
    spill: Path | None = None
    files: tuple[Path, ...] = ()  # the files its objects come from, in directory order


@dataclass(slots=True)
class Payload:
    """What a loaded bundle contributes to opm's output (spilled to disk until needed)."""

    manifests: list[str]
    csv: str  # the CSV as stored in the csv column (compact JSON)
    provided: list[prop.GVK]
    required: list[prop.GVK]
    properties: list[Property]  # from the olm.properties annotation
    images: list[str]


@dataclass(slots=True)
class DirResult:
    manifests: list[tuple[int, Path, godecode.PackageManifest]] = field(default_factory=list)
    undecodable: list[tuple[int, Path, str]] = field(default_factory=list)
    candidates: list[CsvCandidate] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class DirJob:
    directory: Path
    files: tuple[TreeFile, ...]
    spill: Path
    strict: bool
    all_documents: bool


@dataclass(slots=True)
class _Parsed:
    file: TreeFile
    data: bytes
    document: godecode.FirstDocument | None = None
    error: str = ""


def _read(path: Path) -> bytes | str:
    try:
        return safe.read_bytes(path)  # a regular file inside the tree, bounded
    except InputError as exc:
        return str(exc).removeprefix(f"{path}: ")


def scan_directory(job: DirJob) -> DirResult:
    """Everything the loader learns from one directory: package manifests, CSV bundles (their
    payload spilled to ``job.spill``) and files it cannot decode."""
    result = DirResult()
    raw: list[_Parsed] = []
    for tree_file in job.files:
        data = _read(tree_file.path)
        if isinstance(data, str):
            result.undecodable.append((tree_file.seq, tree_file.path, data))
            continue
        raw.append(_Parsed(tree_file, data))
    holds_csv = any(_CSV_MARK in p.data or _escaped(p.data) for p in raw)
    for parsed in raw:
        wanted = (
            holds_csv
            or _PACKAGE_MARK in parsed.data.lower()
            or _escaped(parsed.data)
            or (job.strict and has_manifest_extension(parsed.file.path))
        )
        if not wanted:
            continue
        try:
            parsed.document = godecode.first_document(parsed.data, str(parsed.file.path))
        except godecode.NotDecodable as problem:
            parsed.error = str(problem)
    for parsed in raw:
        _package_manifest(parsed, result)
    if holds_csv:
        _bundles(raw, job, result)
    return result


def _escaped(data: bytes) -> bool:
    return any(escape in data for escape in _ESCAPES)


def _package_manifest(parsed: _Parsed, result: DirResult) -> None:
    """``LoadPackagesWalkFunc``: decode the first document into a PackageManifest."""
    if parsed.document is None and not parsed.error:
        return  # not parsed: cannot be a package manifest (and no error is wanted)
    seq, path = parsed.file.seq, parsed.file.path
    if parsed.error:
        result.undecodable.append((seq, path, parsed.error))
        return
    assert parsed.document is not None
    try:
        manifest = godecode.package_manifest(parsed.document)
    except godecode.NotDecodable as problem:
        result.undecodable.append((seq, path, str(problem)))
        return
    if manifest.package_name:
        result.manifests.append((seq, path, manifest))


def _bundles(raw: list[_Parsed], job: DirJob, result: DirResult) -> None:
    """``LoadBundleWalkFunc`` + ``loadBundle`` for every CSV file of the directory."""
    objects: list[tuple[_Parsed, dict[str, Any]]] = []
    for parsed in raw:
        if parsed.document is None:
            continue
        documents = [parsed.document]
        if job.all_documents:
            documents = list(_all_documents(parsed.data, str(parsed.file.path)))
        elif _later_documents(parsed.data):
            result.notices.append(
                Notice(
                    "pkgman.later-documents-ignored",
                    f"{parsed.file.path}: holds more than one YAML document; only the first is "
                    "read, as the legacy loader did (use --all-documents to read them all)",
                    file=str(parsed.file.path),
                )
            )
        for document in documents:
            try:
                objects.append((parsed, godecode.unstructured(document)))
            except godecode.NotDecodable:
                continue
    for parsed, obj in objects:
        if manifests.kind(obj) != manifests.CSV_KIND:
            continue
        name = _csv_name(obj)
        members = [
            (p, o)
            for p, o in objects
            if manifests.kind(o) != manifests.CSV_KIND or _csv_name(o) == name
        ]
        candidate = _candidate(parsed.file, obj, [o for _, o in members], job.spill)
        candidate.files = tuple(dict.fromkeys(p.file.path for p, _ in members))
        result.candidates.append(candidate)


def _csv_name(obj: dict[str, Any]) -> str:
    name = manifests.as_dict(obj.get("metadata")).get("name")
    return name if isinstance(name, str) else ""


def _all_documents(data: bytes, where: str) -> Iterator[godecode.FirstDocument]:
    if godecode.is_json(data):
        yield godecode.first_document(data, where)
        return
    try:
        chunks = list(godecode.yaml_chunks(data))
    except godecode.NotDecodable:
        return
    for chunk in chunks:
        try:
            yield godecode.first_document(chunk, where)
        except godecode.NotDecodable:
            continue


def _later_documents(data: bytes) -> bool:
    """Does the file hold another non-empty YAML document after the first one?"""
    if godecode.is_json(data) or b"\n---" not in data:
        return False
    try:
        chunks = godecode.yaml_chunks(data)
        next(chunks, None)
        for chunk in chunks:
            for line in chunk.splitlines():
                text = line.strip()
                if text.startswith(b"---"):
                    text = text[3:].strip()
                if text and not text.startswith(b"#"):
                    return True
    except godecode.NotDecodable:
        return False
    return False


def _candidate(
    tree_file: TreeFile, csv: dict[str, Any], members: list[dict[str, Any]], spill_dir: Path
) -> CsvCandidate:
    """Emulate ``AddOperatorBundle`` for one CSV: what it stores, or why it fails."""
    candidate = CsvCandidate(tree_file.seq, tree_file.path, _csv_name(csv))
    fatal = candidate.fatal
    if sum(1 for o in members if manifests.kind(o) == manifests.CSV_KIND) > 1:
        fatal.append("two CSVs with this name are in one directory")
    problem = decode_error(csv, "registry.ClusterServiceVersion", "converter")
    if problem is not None:
        fatal.append(f"the CSV does not decode: {problem}")
    spec = csv.get("spec")
    if spec is None and not problem:
        fatal.append("the CSV has no spec")
    elif spec is not None and not isinstance(spec, dict):
        fatal.append("the CSV's spec is not an object")
    crds = _crds(members, fatal)
    if fatal:
        return candidate
    assert isinstance(spec, dict)
    annotations = manifests.metadata_annotations(csv)
    candidate.version = _spec_field(spec, "version", "string", fatal) or ""
    candidate.replaces = _spec_field(spec, "replaces", "string", fatal) or ""
    skips = _spec_field(spec, "skips", "[]string", fatal) or []
    joined = ",".join(s or "" for s in skips)
    candidate.skips = tuple(joined.split(",")) if joined else ()
    candidate.skip_range = manifests.as_str(annotations.get("olm.skipRange"))
    for check in (
        _spec_check(spec, None, "registry.csvSpec"),
        _spec_check(spec, "relatedImages", "[]registry.relatedImage"),
        _spec_check(spec, "customresourcedefinitions", "registry.definitions"),
        _spec_check(spec, "apiservicedefinitions", "registry.definitions"),
    ):
        if check:
            fatal.append(check)
    required = [
        d for d in _definitions(spec, "customresourcedefinitions", "required") if "." not in d[2]
    ]
    for _, _, crd_name, _ in required:
        fatal.append(f"couldn't parse plural.group from required CRD name {crd_name!r}")
    if annotations.get(ANNOTATION_SUBSTITUTES_FOR):
        fatal.append(
            "olm.substitutesFor needs opm's --enable-alpha, which the initializer does not use"
        )
    properties = _annotation_properties(annotations, fatal)
    if not candidate.name:
        fatal.append("the CSV has no metadata.name")
    if fatal:
        return candidate
    provided = _provided(crds, spec)
    candidate.errors += _owned_missing(spec, provided)
    marshalled = [marshal_object(o) for o in members]
    payload = Payload(
        manifests=marshalled,
        # The CSV is one of the members: its text is written once.
        csv=next((t for o, t in zip(members, marshalled, strict=True) if o is csv), None)
        or marshal_object(csv),
        provided=sorted({prop.GVK(g, k, v) for g, v, k, _ in provided}),
        required=sorted(_required(spec)),
        properties=properties,
        images=manifests.operator_images(csv),
    )
    spill = spill_dir / f"{tree_file.seq}.pickle"
    with open_output(spill, "wb", shown=scratch_target(), elsewhere=SCRATCH) as fh:
        pickle.dump(payload, fh, protocol=pickle.HIGHEST_PROTOCOL)
    candidate.spill = spill
    return candidate


def _crds(members: list[dict[str, Any]], fatal: list[str]) -> list[dict[str, Any]]:
    """The CRDs the loader decodes (``apiextensions`` v1 and v1beta1); each must decode."""
    crds = []
    for obj in members:
        if manifests.kind(obj) != manifests.CRD_KIND:
            continue
        api_version = manifests.as_str(obj.get("apiVersion"))
        group, _, version = api_version.rpartition("/")
        if version not in CRD_TYPES:
            continue
        what = f"CRD {manifests.name(obj) or '(unnamed)'}"
        if group != CRD_GROUP:
            fatal.append(f"{what}: Go has no CustomResourceDefinition type for {api_version}")
            continue
        problem = decode_error(obj, CRD_TYPES[version], "k8s")
        if problem is not None:
            fatal.append(f"{what} does not decode: {problem}")
            continue
        crds.append(obj)
    return crds


def _spec_field(spec: dict[str, Any], key: str, type_name: str, fatal: list[str]) -> Any:
    value = spec.get(key)
    problem = decode_error(value, type_name, root=f"spec.{key}")
    if problem is not None:
        fatal.append(problem)
        return None
    return value


def _spec_check(spec: dict[str, Any], key: str | None, type_name: str) -> str:
    value = spec if key is None else spec.get(key)
    return decode_error(value, type_name, root="spec" if key is None else f"spec.{key}") or ""


def _definitions(spec: dict[str, Any], section: str, which: str) -> list[tuple[str, str, str, str]]:
    """(group, version, name, kind) of each owned / required definition (case-insensitive keys,
    as Go decodes them)."""
    holder = _fold(manifests.as_dict(spec.get(section)))
    out = []
    for item in manifests.as_list(holder.get(which)):
        fields = _fold(manifests.as_dict(item))
        out.append(
            (
                manifests.as_str(fields.get("group")),
                manifests.as_str(fields.get("version")),
                manifests.as_str(fields.get("name")),
                manifests.as_str(fields.get("kind")),
            )
        )
    return out


def _fold(value: dict[str, Any]) -> dict[str, Any]:
    """Fields as Go's decoder assigns them to a struct from a Go map's JSON (keys sorted):
    names matched ignoring case, the last key wins, null leaves a field alone."""
    out: dict[str, Any] = {}
    for key, item in sorted(value.items()):
        if item is not None:
            out[key.lower()] = item
    return out


def _provided(crds: list[dict[str, Any]], spec: dict[str, Any]) -> set[tuple[str, str, str, str]]:
    """(group, version, kind, plural) of every CRD version and owned API service."""
    provided: set[tuple[str, str, str, str]] = set()
    for crd in crds:
        crd_spec = manifests.spec(crd)
        group = manifests.as_str(crd_spec.get("group"))
        names = manifests.as_dict(crd_spec.get("names"))
        kind, plural = manifests.as_str(names.get("kind")), manifests.as_str(names.get("plural"))
        for version in manifests.as_list(crd_spec.get("versions")):
            name = manifests.as_str(manifests.as_dict(version).get("name"))
            provided.add((group, name, kind, plural))
        single = manifests.as_str(crd_spec.get("version"))
        if single and manifests.as_str(crd.get("apiVersion")).endswith("/v1beta1"):
            provided.add((group, single, kind, plural))
    for group, version, name, kind in _definitions(spec, "apiservicedefinitions", "owned"):
        provided.add((group, version, kind, name))
    return provided


def _required(spec: dict[str, Any]) -> set[prop.GVK]:
    required: set[prop.GVK] = set()
    for _, version, name, kind in _definitions(spec, "customresourcedefinitions", "required"):
        required.add(prop.GVK(name.split(".", 1)[1], kind, version))
    for group, version, _, kind in _definitions(spec, "apiservicedefinitions", "required"):
        required.add(prop.GVK(group, kind, version))
    return required


def _owned_missing(spec: dict[str, Any], provided: set[tuple[str, str, str, str]]) -> list[str]:
    """``AllProvidedAPIsInBundle``: every owned CRD must be provided by a CRD of the bundle."""
    problems = []
    for _, version, name, kind in _definitions(spec, "customresourcedefinitions", "owned"):
        plural, dot, group = name.partition(".")
        if not dot:
            problems.append(f"couldn't parse plural.group from owned CRD name {name!r}")
        elif (group, version, kind, plural) not in provided:
            problems.append(f"owned CRD {name} {version}/{kind} is not in the bundle")
    return problems


_KNOWN_PROPERTY_VALUES = {
    "olm.label": "registry.LabelProperty",
    "olm.package": "registry.PackageProperty",
    "olm.gvk": "registry.GVKProperty",
}


def _annotation_properties(annotations: dict[str, Any], fatal: list[str]) -> list[Property]:
    """``addBundleProperties``: the CSV's ``olm.properties`` annotation, a JSON list of
    properties; values are stored as ``json.Marshal`` writes a RawMessage."""
    text = annotations.get(ANNOTATION_PROPERTIES)
    if text is None:
        return []
    try:
        value = json.loads(text, parse_float=RawNumber, parse_constant=_no_constant)
    except ValueError as exc:
        fatal.append(f"the {ANNOTATION_PROPERTIES} annotation is not valid JSON: {exc}")
        return []
    problem = decode_error(value, "[]registry.Property")
    if problem is not None:
        fatal.append(f"the {ANNOTATION_PROPERTIES} annotation: {problem}")
        return []
    raw_values = _raw_property_values(text)
    out: list[Property] = []
    for index, item in enumerate(value or []):
        fields = {k.lower(): v for k, v in (item or {}).items()}
        type_ = fields.get("type") or ""
        known = _KNOWN_PROPERTY_VALUES.get(type_)
        if known is not None:
            problem = decode_error(fields.get("value"), known)
            if problem is not None:
                fatal.append(f"the {ANNOTATION_PROPERTIES} annotation: {type_}: {problem}")
                return []
        raw = raw_values[index] if index < len(raw_values) else None
        out.append(Property(type_, _marshal_raw(raw)))
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _raw_property_values(text: str) -> list[str | None]:
    """The raw text of each element's ``value`` (a RawMessage keeps it verbatim)."""
    raw = RawJSON(text)
    out: list[str | None] = []
    for index in raw.array_at(0) or []:
        fields = raw.object_at(index)
        if fields is None:
            out.append(None)
            continue
        value = None
        for key, item in fields.items():
            if key.lower() == "value":
                value = item
        out.append(value)
    return out


def _marshal_raw(raw: str | None) -> str:
    """``json.Marshal(&rawMessage)``: compacted, HTML characters escaped; absent is ``null``."""
    if raw is None or raw == "null":
        return "null"
    text = compact(raw)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escaped)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


# -- the tree -------------------------------------------------------------------------------------


@dataclass(slots=True)
class PackageState:
    """A package as the last successful ``AddPackageChannels`` left it."""

    name: str
    source: Path
    default_channel: str
    channels: list[tuple[str, str]]  # (name, head) of the channel rows, in manifest order
    rows: list[legacy.EntryRow]


class PkgmanCatalog:
    """A package-manifest tree read as the legacy initializer loads it, then as opm migrates it."""

    def __init__(
        self,
        root: Path,
        *,
        permissive: bool = False,
        all_documents: bool = False,
        notify: NoticeSink = discard,
        require: bool = True,
        tree: Tree | None = None,
        cache: RenderCache | None = None,
    ) -> None:
        """``tree``: the walk of ``root`` when the caller made it already (one walk for every
        reader of the directory). ``cache``: where what a directory holds for the loader is
        remembered when it holds nothing (most directories of a bundle tree)."""
        self.cache = cache
        self.tree = tree if tree is not None and tree.root == root else walk_tree(root)
        self.root = root
        self.permissive = permissive
        self.all_documents = all_documents
        self._notify = notify
        self.skipped: list[str] = []
        self._errors: list[str] = []
        self._spill = safe.scratch_dir("pkgman")  # olmcat-pkgman-<pid>-*: a killed run's is swept
        self._cleanup = weakref.finalize(self, shutil.rmtree, self._spill, True)
        self.bundles: dict[str, CsvCandidate] = {}
        self.candidates: list[CsvCandidate] = []
        self.packages_by_name: dict[str, PackageState] = {}
        self.manifest_files: list[Path] = []
        self.manifest_names: set[str] = set()  # every packageName found, loaded or not
        self._package_props: dict[str, list[tuple[str, str]]] = defaultdict(list)
        self._rejected: set[str] = set()
        self._manifest_dirs: set[Path] = set()
        self._unlisted_reported = False
        try:
            self._load()
        except BaseException:
            self.close()
            raise
        if not self.packages_by_name and require and not self.manifest_files:
            self.close()
            raise InputError(f"{root}: no package manifest (*.package.yaml) found")

    # -- loading ----------------------------------------------------------------------------------

    def _load(self) -> None:
        strict = not self.permissive
        jobs = [
            (index, DirJob(d.path, tuple(d.files), self._spill, strict, self.all_documents))
            for index, d in enumerate(self.tree.directories)
            if d.files
        ]
        # The manifests/ of bundle-format directories are read last, and only when the tree
        # holds a package manifest elsewhere: without one no package can use their CSVs (the
        # bundle-directory reader reads them) and a package manifest in them is not the loader's.
        later = {
            d.path
            for d in self.tree.directories
            if d.path.name == MANIFESTS_DIR and in_bundle_manifests(d.path / "-")
        }
        scanned = self._scan([job for job in jobs if job[1].directory not in later])
        if later and any(result.manifests for _, result, _ in scanned):
            scanned += self._scan([job for job in jobs if job[1].directory in later])
            scanned.sort(key=lambda item: item[0])  # as if read in one pass, in walk order
        manifests_found: list[tuple[int, Path, godecode.PackageManifest]] = []
        undecodable: list[tuple[int, Path, str]] = []
        for _, result, input_notices in scanned:
            for notice in input_notices:
                safe.notify(notice)
            for notice in result.notices:
                self._notify(notice)
            manifests_found += result.manifests
            undecodable += result.undecodable
            self.candidates += result.candidates
        self.candidates.sort(key=lambda c: c.seq)
        self._manifest_dirs = {path.parent for _, path, _ in manifests_found}
        outside = self._outside_bundles(bool(manifests_found))
        if outside:
            # Not manifests (see _outside_bundles): one note each, never a loader error.
            self._note_outside(outside)
            undecodable = [u for u in undecodable if u[1].parent not in outside]
            self.candidates = [c for c in self.candidates if c.path.parent not in outside]
        for _, path, problem in sorted(undecodable, key=lambda item: item[0]):
            self._undecodable(path, problem)
        for candidate in self.candidates:
            self._add_bundle(candidate)
        for _, path, manifest in sorted(manifests_found, key=lambda item: item[0]):
            self.manifest_files.append(path)
            self.manifest_names.add(manifest.package_name)
            self._add_package(path, manifest)
        self.skipped = sorted(self._rejected - set(self.packages_by_name))
        if self._errors and not self.permissive:
            more = f" (and {len(self._errors) - 1} more)" if len(self._errors) > 1 else ""
            raise ValidationError(
                f"{self._errors[0]}{more}; --permissive loads what loads, as "
                "initializer --permissive does"
            )

    def _scan(self, jobs: list[tuple[int, DirJob]]) -> list[tuple[int, DirResult, list[Notice]]]:
        """Scan directories (in worker processes when there are many), each result with its
        job's index and the input notices it sent (replayed in walk order by the caller). With
        a cache, a directory whose files were scanned before and held nothing for the loader
        is not read again (its notices are sent again)."""
        remembered: dict[int, tuple[list[Notice], list[Notice]]] = {}
        keys: dict[int, tuple[str, Listing]] = {}
        if self.cache is not None:
            for index, job in jobs:
                found = self._scan_key(job)
                if found is None:
                    continue
                memo = self.cache.memo(self.root, found[0])
                if isinstance(memo, tuple):
                    remembered[index] = memo
                else:
                    keys[index] = found
        work = [job for index, job in jobs if index not in remembered]
        workers = worker_count(len(work) // 8)
        results: Iterator[DirResult] = iter(
            map_in_order(scan_directory, work, workers, share=True)
            if workers > 1
            else (scan_directory(job) for job in work)
        )
        out: list[tuple[int, DirResult, list[Notice]]] = []
        for index, _ in jobs:
            if index in remembered:
                notices, sent = remembered[index]
                out.append((index, DirResult(notices=list(notices)), list(sent)))
                continue
            sent = []
            with safe.notices_to(sent.append):
                result = next(results)
            # A package manifest inside a bundle's manifests/ is the bundle-format reader's (it
            # warns; opm reads that bundle's image, where the file is no object).
            result.manifests = [m for m in result.manifests if not in_bundle_manifests(m[1])]
            empty = not (result.manifests or result.undecodable or result.candidates)
            if empty and index in keys and unchanged(keys[index][1].stats):
                assert self.cache is not None
                self.cache.remember(self.root, keys[index][0], (list(result.notices), sent))
            out.append((index, result, sent))
        next(results, None)  # let the workers finish (and exit) in order
        return out

    def _scan_key(self, job: DirJob) -> tuple[str, Listing] | None:
        """The key of scanning one directory: its files (as the walk chose them), their
        digests and the options of the scan."""
        assert self.cache is not None
        listing = self.cache.listing(job.directory, self.root)
        if listing is None:
            return None
        names = "/".join(f.name for f in job.files)
        options = f"strict={job.strict} all_documents={job.all_documents}"
        return self.cache.key("package-manifest scan", str(job.directory), options, names,
                              *listing.parts), listing  # fmt: skip

    def _error(self, code: str, message: str, path: Path, **where: str) -> None:
        """An error of the loader (severity ``error``): fatal without --permissive, what it
        left out with it. Inside a bundle-format directory that no package manifest owns it is
        only a note: such bundles are the bundle-directory reader's (opm's rules for them are
        not the initializer's)."""
        if self._bundle_format(path):
            self._notify(Notice(code, message, "info", file=str(path), **where))
            return
        self._errors.append(message)
        self._notify(Notice(code, message, "error", file=str(path), **where))

    def _bundle_format(self, path: Path) -> bool:
        parent = path.parent
        if parent.name not in (MANIFESTS_DIR, METADATA_DIR):
            return False
        bundle_dir = parent.parent
        if not (bundle_dir / MANIFESTS_DIR).is_dir() or not (bundle_dir / METADATA_DIR).is_dir():
            return False
        return not any(d in path.parents for d in self._manifest_dirs)

    def _outside_bundles(self, manifests_found: bool) -> dict[Path, Path | None]:
        """Directories whose files are not manifests, each with the operator directory it is
        part of: the files of a bundle-format operator directory (one holding
        ``<version>/{manifests,metadata}``) outside its bundles' ``manifests/`` and
        ``metadata/`` (``ci.yaml``, ``catalog-templates/``, ``<version>/tests/``, READMEs,
        Makefiles), and, in a tree holding no package manifest at all, every file outside the
        bundles (the root's for one). Operator pipelines build bundle images of ``manifests/``
        and ``metadata/`` alone; no loader ever reads the rest. Package-manifest directories
        (and everything below them) keep the initializer's rule."""
        by_path = self.tree.by_path

        def is_bundle(path: Path) -> bool:
            return walked_bundle(by_path.get(path))

        # Top-down (walk order puts a directory before what it holds): each directory's state
        # is LOADER (the initializer's rule), OWNED (at or below a package manifest's
        # directory: the initializer's), CONTENT (a bundle's manifests/ or metadata/: the bundle
        # readers'), or the operator directory its files belong to (TREE: the tree's).
        state: dict[Path, str | Path] = {}
        outside: dict[Path, Path | None] = {}
        for walked in self.tree.directories:
            path = walked.path
            above = state.get(path.parent, _LOADER) if path != self.root else _LOADER
            mine: str | Path
            if above in (_CONTENT, _OWNED):
                mine = above
            elif path in self._manifest_dirs:
                mine = _OWNED
            elif path.name in (MANIFESTS_DIR, METADATA_DIR) and is_bundle(path.parent):
                mine = _CONTENT
            elif isinstance(above, Path):
                mine = above
            elif is_bundle(path):
                mine = path.parent if path != self.root else path
            elif any(is_bundle(path / d) for d in walked.subdirs):
                mine = path
            else:
                mine = _LOADER if manifests_found else _TREE
            state[path] = mine
            if walked.files and (isinstance(mine, Path) or mine == _TREE):
                outside[path] = mine if isinstance(mine, Path) else None
        return outside

    def _note_outside(self, outside: dict[Path, Path | None]) -> None:
        """One note per file, in walk order."""
        files = [f for d in outside for f in self.tree.by_path[d].files]
        for tree_file in sorted(files, key=lambda f: f.seq):
            directory, operator = tree_file.directory, outside[tree_file.directory]
            where = (
                f"of bundle-format operator directory {operator}"
                if operator is not None
                else "of a tree without package manifests"
            )
            path = tree_file.path
            why = (
                "operator pipelines' settings: its updateGraph sets the mode unless --mode does"
                if path.name == CI_FILE and directory == operator
                else "operator pipelines build bundle images of manifests/ and metadata/ alone"
            )
            self._notify(
                Notice(
                    CODE_NOT_A_MANIFEST,
                    f"{path}: not read as a manifest: a file {where} outside its bundles' "
                    f"manifests/ and metadata/ ({why})",
                    "info",
                    file=str(path),
                )
            )

    def _undecodable(self, path: Path, problem: str) -> None:
        message = f"{path}: not a manifest the legacy loader can decode ({problem})"
        if has_manifest_extension(path):
            if self.permissive:
                message += "; ignored, as initializer --permissive ignores it"
            self._error("pkgman.undecodable-file", message, path)
        else:
            message += "; ignored (not named *.yaml, *.yml or *.json)"
            self._notify(Notice("pkgman.undecodable-file", message, "info", file=str(path)))

    def _add_bundle(self, candidate: CsvCandidate) -> None:
        path = candidate.path
        label = f"{path}: bundle {candidate.name!r}"
        kept = "left out, " if self.permissive else ""  # (without: the run stops)
        for problem in candidate.errors:
            message = f"{label}: {problem} (the bundle is kept)"
            self._error("pkgman.owned-crd-missing", message, path, bundle=candidate.name)
        if candidate.fatal:
            self._error(
                "pkgman.bundle-rejected",
                f"{label}: {kept}the legacy loader refuses it: {'; '.join(candidate.fatal)}",
                path,
                bundle=candidate.name,
            )
            return
        first = self.bundles.get(candidate.name)
        if first is not None:
            self._error(
                "pkgman.duplicate-csv",
                f"{label}: {kept}a CSV of that name was loaded first from {first.path}",
                path,
                bundle=candidate.name,
            )
            return
        self.bundles[candidate.name] = candidate

    def _add_package(self, path: Path, manifest: godecode.PackageManifest) -> None:
        """``AddPackageChannels``: all or nothing; a later manifest replaces an earlier one."""
        name = manifest.package_name
        errors: list[str] = []
        channels: list[tuple[str, str]] = []
        has_default = False
        for channel, head in manifest.channels:
            if any(channel == c for c, _ in channels):
                errors.append(f"channel {channel!r} is listed twice")
                continue
            if head not in self.bundles:
                errors.append(f"channel {channel!r}: currentCSV {head!r} is not a loaded bundle")
                continue
            if channel == manifest.default_channel or len(manifest.channels) == 1:
                has_default = True
            channels.append((channel, head))
        if not has_default:
            errors.append(
                f"no default channel (defaultChannel {manifest.default_channel!r} is not a loaded "
                "channel)"
                if manifest.default_channel
                else "no default channel"
            )
        graph = {n: legacy.GraphBundle(n, b.replaces, b.skips) for n, b in self.bundles.items()}
        rows = legacy.ChannelRowBuilder(graph)
        for channel, head in channels:
            errors += rows.add_channel(channel, head)
        if errors:
            self._rejected.add(name)
            self._error(
                "pkgman.package-rejected",
                f"{path}: package {name!r} not loaded: {'; '.join(errors)}",
                path,
                package=name,
            )
            return
        previous = self.packages_by_name.get(name)
        if previous is not None:
            self._notify(
                Notice(
                    "pkgman.package-redefined",
                    f"{path}: package {name!r} is defined again; this manifest replaces "
                    f"{previous.source}, as the legacy loader did",
                    "warning"
                    if previous.channels != channels
                    or previous.default_channel != (_default_of(manifest, channels))
                    else "info",
                    file=str(path),
                    package=name,
                )
            )
        for bundle in sorted(rows.reached):
            self._package_props[bundle].append((name, self.bundles[bundle].version))
        self.packages_by_name[name] = PackageState(
            name, path, _default_of(manifest, channels), channels, rows.rows
        )

    # -- the catalog source -----------------------------------------------------------------------

    def package_names(self) -> list[str]:
        return sorted(self.packages_by_name)

    def package_dirs(self) -> set[Path]:
        """Directories holding a package manifest (bundle-format dirs below them are theirs)."""
        return {path.parent for path in self.manifest_files}

    def channel_membership(self, name: str) -> dict[str, list[str]]:
        """Bundle -> the channels of package ``name`` that list it, in package-file order."""
        state = self.packages_by_name[name]
        out: dict[str, list[str]] = {}
        for channel, _ in state.channels:
            for row in state.rows:
                if row.channel == channel and row.bundle in self.bundles:
                    channels = out.setdefault(row.bundle, [])
                    if channel not in channels:
                        channels.append(channel)
        return out

    def global_others(self) -> list[Meta]:
        return []

    def close(self) -> None:
        self._cleanup()

    def __iter__(self) -> Iterator[PackageCatalog]:
        return self.packages()

    def packages(self, only: Collection[str] | None = None) -> Iterator[PackageCatalog]:
        """Packages in name order, each assembled from its spilled bundles when it is needed."""
        self._report_unlisted()
        for name in selected(self.package_names(), only):
            yield self.read_package(name)

    def _report_unlisted(self) -> None:
        if self._unlisted_reported:
            return
        self._unlisted_reported = True
        listed = {row.bundle for state in self.packages_by_name.values() for row in state.rows}
        package_dirs = self.package_dirs()
        for name, candidate in sorted(self.bundles.items()):
            if name in listed:
                continue
            inside = any(d in candidate.path.parents for d in package_dirs)
            if not inside and (candidate.path.parent.parent / "metadata").is_dir():
                continue  # a bundle-format directory: the bundle-directory reader's
            self._notify(
                Notice(
                    "pkgman.bundle-not-in-channel",
                    f"{candidate.path}: bundle {name!r} is in no channel of any package; left "
                    "out (as opm does)",
                    "warning" if inside else "info",
                    file=str(candidate.path),
                    bundle=name,
                )
            )

    def read_package(self, name: str) -> PackageCatalog:
        state = self.packages_by_name[name]
        where = f"{state.source}: package {name!r}"
        per_channel = legacy.channel_entries(
            state.rows,
            0 if state.rows else None,
            known=self.bundles.__contains__,
            skip_range=lambda b: self.bundles[b].skip_range,
        )
        channels = tuple(
            Channel(name=c, package=name, entries=tuple(per_channel.get(c, [])))
            for c in sorted({c for c, _ in state.channels})
        )
        listed = sorted({e.name for c in channels for e in c.entries})
        bundles = tuple(self._bundle(self.bundles[b], name) for b in listed)
        head = dict(state.channels)[state.default_channel]
        head_csv = self._payload(self.bundles[head]).csv
        icon = legacy.head_icon(head_csv, head, where, self._notify)
        catalog = PackageCatalog(
            package=Package(name=name, default_channel=state.default_channel, icon=icon),
            channels=channels,
            bundles=bundles,
        )
        legacy.check_like_opm(catalog, where)
        return catalog

    def _payload(self, candidate: CsvCandidate) -> Payload:
        assert candidate.spill is not None
        with candidate.spill.open("rb") as fh:
            payload: Payload = pickle.load(fh)
        return payload

    def _bundle(self, candidate: CsvCandidate, package_name: str) -> Bundle:
        payload = self._payload(candidate)
        props = [prop.package(p, v) for p, v in self._package_props.get(candidate.name, [])]
        props += payload.properties
        props += [prop.gvk(g.group, g.version, g.kind) for g in payload.provided]
        deps = [
            (prop.TYPE_GVK, prop.gvk_required(g.group, g.version, g.kind).value)
            for g in payload.required
        ]
        csv = json.loads(payload.csv)
        return legacy.stored_bundle(
            legacy.StoredBundle(
                name=candidate.name,
                package=package_name,
                version=candidate.version,
                image="",
                properties=props,
                dependencies=deps,
                manifests=payload.manifests,
                csv=csv,
                images=payload.images,
            ),
            where=str(candidate.path),
        )


def _default_of(manifest: godecode.PackageManifest, channels: list[tuple[str, str]]) -> str:
    """The channel ``update package set default_channel`` named last (the default channel, or
    the only channel of a one-channel manifest)."""
    default = ""
    for channel, _ in channels:
        if channel == manifest.default_channel or len(manifest.channels) == 1:
            default = channel
    return default
