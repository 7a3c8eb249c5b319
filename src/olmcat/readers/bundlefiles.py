"""Read one bundle-format directory (``manifests/`` + ``metadata/``) as opm's bundle parser does.

``opm registry add`` and ``opm render`` read a bundle image unpacked to a directory
(``registry.NewImageInput``, ``bundleParser.Parse``); this module reads a bundle directory the
same way:

* ``manifests/``: every non-hidden file in name order, first YAML/JSON document only; what is no
  Kubernetes object (no ``kind``: a Dockerfile, a package manifest) is left out; the first CSV
  names the bundle and later CSVs are left out. Each left-out file is a Notice.
* ``metadata/``: in name order, the first file that decodes to non-empty annotations, the first
  with ``dependencies`` and the first with ``properties``; their values keep the raw JSON text Go's
  ``json.RawMessage`` keeps (a missing ``value`` stays missing: opm refuses it for ``olm.gvk``
  and ``olm.package``).

One deliberate difference: a file named ``*.yaml``/``*.yml``/``*.json`` that does not parse is an
error naming it (opm skips it with a log line, leaving the bundle short of a manifest). An index
build may instead skip such a file of ``metadata/`` as opm does, with a Notice
(``unparsable_metadata`` of :func:`load_bundle_dir`), and decide itself whether that refuses.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from olmcat.errors import InputError, ValidationError
from olmcat.files import safe
from olmcat.files.yaml import load_all
from olmcat.go.json import marshal_object
from olmcat.model import manifests
from olmcat.model.manifests import as_dict, as_list, as_str
from olmcat.notices import Notice, NoticeSink, discard

Manifest = dict[str, Any]

ANNOTATION_MEDIATYPE = "operators.operatorframework.io.bundle.mediatype.v1"
ANNOTATION_MANIFESTS = "operators.operatorframework.io.bundle.manifests.v1"
ANNOTATION_METADATA = "operators.operatorframework.io.bundle.metadata.v1"
ANNOTATION_PACKAGE = "operators.operatorframework.io.bundle.package.v1"
ANNOTATION_CHANNELS = "operators.operatorframework.io.bundle.channels.v1"
ANNOTATION_DEFAULT_CHANNEL = "operators.operatorframework.io.bundle.channel.default.v1"
CSV_PROPERTIES_ANNOTATION = "olm.properties"
SUBSTITUTES_FOR_ANNOTATION = "olm.substitutesFor"

MANIFESTS_DIR = "manifests"
METADATA_DIR = "metadata"
MANIFEST_EXTENSIONS = (".yaml", ".yml", ".json")
PACKAGE_MANIFEST_SUFFIXES = (".package.yaml", ".package.yml", ".package.json")

# Notice codes (stable; listed in docs/notices.md).
CODE_FILE_SKIPPED = "bundledir.file-not-a-manifest"
CODE_LATER_DOCUMENTS = "bundledir.later-documents-ignored"
CODE_NO_KIND = "bundledir.object-without-kind"
CODE_PACKAGE_MANIFEST = "bundledir.package-manifest-ignored"
CODE_EXTRA_CSV = "bundledir.extra-csv-ignored"
CODE_METADATA_UNPARSABLE = "bundle.metadata-unparsable"
SKIPPED_AS_OPM_DOES = "; skipped, as opm skips it"


def is_bundle_dir(path: Path) -> bool:
    """opm's test: a directory with both a ``manifests`` and a ``metadata`` subdirectory."""
    return (path / MANIFESTS_DIR).is_dir() and (path / METADATA_DIR).is_dir()


def in_bundle_manifests(path: Path) -> bool:
    """Whether ``path`` is a file in the ``manifests/`` directory of a bundle directory."""
    return path.parent.name == MANIFESTS_DIR and is_bundle_dir(path.parent.parent)


# -- files --------------------------------------------------------------------------------------


def _check_inside(path: Path, root: Path) -> None:
    """Refuse to read through a symlink whose target is outside the input root (the input
    policy of :mod:`olmcat.files.safe`, which names the link)."""
    safe.add_root(root)
    safe.check_inside(path)


def _read_text(path: Path) -> str:
    return safe.read_text(path)  # a regular file, bounded, inside the input tree


class UnparsableFileError(InputError):
    """A file that is not valid YAML (libyaml's syntax error), as opposed to one refused by an
    input limit."""


def _documents(path: Path, text: str, limit: int) -> list[Any]:
    """Up to ``limit`` documents of a file (JSON is read as the YAML it also is); a parse error
    is an InputError naming the file (an UnparsableFileError for a syntax error)."""
    out: list[Any] = []
    try:
        for document in load_all(text, where=str(path)):
            out.append(document)
            if len(out) >= limit:
                break
    except InputError as error:
        # One line naming the file already: a syntax error (load_all words it "not valid
        # YAML"), or a limit.
        if f"{path}: not valid YAML: " in str(error):
            raise UnparsableFileError(str(error)) from None
        raise
    except Exception as exc:  # yaml errors from libyaml
        raise UnparsableFileError(f"{path}: not valid YAML: {str(exc).splitlines()[0]}") from None
    return out


def _is_json(text: str) -> bool:
    # The k8s YAML-or-JSON decoder reads a stream as JSON only when it starts with "{".
    return text.lstrip(" \t\r\n").startswith("{")


class RawJSON:
    """Raw value texts inside a JSON document, as Go's ``json.RawMessage`` captures them (opm
    sorts and de-duplicates properties on that text; it is compacted only on output)."""

    _decoder = json.JSONDecoder()
    _space = re.compile(r"[ \t\r\n]*")

    def __init__(self, text: str) -> None:
        self.text = text

    def _skip(self, index: int) -> int:
        match = self._space.match(self.text, index)
        return match.end() if match else index

    def _value_end(self, index: int) -> int:
        return int(self._decoder.raw_decode(self.text, index)[1])

    def object_at(self, index: int) -> dict[str, str] | None:
        """Key -> raw value text of the object at ``index``; None when it is no object."""
        index = self._skip(index)
        if not self.text.startswith("{", index):
            return None
        fields: dict[str, str] = {}
        index = self._skip(index + 1)
        if self.text.startswith("}", index):
            return fields
        while True:
            key, index = self._decoder.raw_decode(self.text, self._skip(index))
            index = self._skip(self._skip(index) + 1)  # past ':'
            end = self._value_end(index)
            fields[str(key)] = self.text[index:end]  # a repeated key: the last wins, as in Go
            index = self._skip(end)
            if self.text.startswith("}", index):
                return fields
            index += 1  # past ','

    def array_at(self, index: int) -> list[int] | None:
        """Start offsets of the elements of the array at ``index``; None when it is no array."""
        index = self._skip(index)
        if not self.text.startswith("[", index):
            return None
        starts: list[int] = []
        index = self._skip(index + 1)
        if self.text.startswith("]", index):
            return starts
        while True:
            index = self._skip(index)
            starts.append(index)
            index = self._skip(self._value_end(index))
            if self.text.startswith("]", index):
                return starts
            index += 1  # past ','


# -- metadata/ ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Annotations:
    package: str
    channels: str  # comma separated, as written
    default_channel: str

    def channel_list(self) -> tuple[str, ...]:
        # Split as the loader did, without trimming: "a, b" names the channel " b".
        return tuple(self.channels.split(",")) if self.channels else ()


@dataclass(frozen=True, slots=True)
class RawProperty:
    """A property or dependency as opm holds it before output: its type and raw JSON value text.
    ``raw`` is "" when the value is missing (Go's nil RawMessage: written as null, and refused by
    the types opm decodes)."""

    type: str
    raw: str


@dataclass(frozen=True, slots=True)
class Metadata:
    annotations: Annotations
    annotations_file: Path
    dependencies: tuple[RawProperty, ...] = ()
    dependencies_file: Path | None = None
    properties: tuple[RawProperty, ...] = ()
    properties_file: Path | None = None


def raw_entries(raw: RawJSON, index: int) -> list[RawProperty] | None:
    """``[{"type": ..., "value": ...}, ...]`` at ``index`` as raw properties; None if malformed."""
    starts = raw.array_at(index)
    if starts is None:
        return None
    entries = []
    for start in starts:
        fields = raw.object_at(start)
        if fields is None:
            return None
        type_ = json.loads(fields["type"]) if "type" in fields else ""
        if not isinstance(type_, str):
            return None
        entries.append(RawProperty(type_, fields.get("value", "")))
    return entries


def _yaml_entries(value: Any) -> list[RawProperty] | None:
    """Entries of a YAML file; sigs.k8s.io/yaml hands values over as json.Marshal text."""
    if value is None:
        return []
    if not isinstance(value, list):
        return None
    entries = []
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("type", ""), str):
            return None
        raw = marshal_object(item["value"]) if "value" in item else ""
        entries.append(RawProperty(item.get("type", ""), raw))
    return entries


def string_fields(value: Any, keys: tuple[str, ...]) -> tuple[str, ...] | None:
    """String fields of a JSON/YAML object as Go decodes them into a struct (missing or null is
    empty); None when a field is not a string, which Go refuses."""
    if not isinstance(value, dict):
        return None
    out = []
    for key in keys:
        field = value.get(key)
        if field is None:
            field = ""
        if not isinstance(field, str):
            return None
        out.append(field)
    return tuple(out)


def read_metadata(
    bundle_dir: Path, root: Path | None = None, *, unparsable: NoticeSink | None = None
) -> Metadata:
    """Annotations, dependencies and properties of a bundle, found as opm finds them. Files are
    not read through symlinks that leave ``root`` (default: the bundle directory). A
    ``*.yaml``/``*.yml``/``*.json`` file that is not valid YAML is an error naming it; with
    ``unparsable``, it is skipped as opm skips it and a warning (CODE_METADATA_UNPARSABLE) goes
    there."""
    metadata_dir = bundle_dir / METADATA_DIR
    _check_inside(metadata_dir, root or bundle_dir)
    try:
        listed = list(os.scandir(metadata_dir))
        names = sorted(e.name for e in listed if e.is_file())
        safe.note_special_files(listed)
    except OSError as exc:
        raise InputError(f"{metadata_dir}: cannot read directory: {exc.strerror}") from None
    annotations: tuple[Annotations, Path] | None = None
    found: dict[str, tuple[list[RawProperty], Path]] = {}
    for name in names:
        path = metadata_dir / name
        _check_inside(path, root or bundle_dir)
        text = _read_text(path)
        try:
            documents = _documents(path, text, 1)
        except UnparsableFileError as error:
            if name.lower().endswith(MANIFEST_EXTENSIONS):
                if unparsable is None:
                    raise
                unparsable(
                    Notice(
                        CODE_METADATA_UNPARSABLE,
                        f"{error}{SKIPPED_AS_OPM_DOES}: the bundle has none of the "
                        "annotations, dependencies or properties it declares",
                        file=str(path),
                    )
                )
            continue  # not a metadata file (opm skips what it cannot decode)
        except InputError:
            if name.lower().endswith(MANIFEST_EXTENSIONS):
                raise
            continue
        document = documents[0] if documents else None
        if not isinstance(document, dict):
            continue
        if annotations is None:
            fields = string_fields(
                document.get("annotations") or {},
                (ANNOTATION_PACKAGE, ANNOTATION_CHANNELS, ANNOTATION_DEFAULT_CHANNEL),
            )
            if fields is not None and any(fields):
                annotations = (Annotations(*fields), path)
        top = RawJSON(text).object_at(0) if _is_json(text) else None
        for key in ("dependencies", "properties"):
            if key in found:
                continue
            if top is not None:
                # JSON: values stay the raw text they were written as.
                entries = raw_entries(RawJSON(top[key]), 0) if key in top else []
            else:
                entries = _yaml_entries(document.get(key))
            if entries is None:
                safe.notify(
                    Notice(
                        "bundle.metadata-ignored",
                        f"{path}: {key} is not a list of entries with a string type; ignored, "
                        "as opm ignores it",
                        file=str(path),
                    )
                )
            if entries:
                found[key] = (entries, path)
    if annotations is None:
        raise ValidationError(
            f"{metadata_dir}: no annotations file (a YAML file with annotations "
            f"{ANNOTATION_PACKAGE} and {ANNOTATION_CHANNELS})"
        )
    dependencies, dependencies_file = found.get("dependencies", ([], None))
    properties, properties_file = found.get("properties", ([], None))
    return Metadata(
        annotations=annotations[0],
        annotations_file=annotations[1],
        dependencies=tuple(dependencies),
        dependencies_file=dependencies_file,
        properties=tuple(properties),
        properties_file=properties_file,
    )


# -- manifests/ ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BundleDir:
    """One bundle directory, parsed."""

    path: Path
    metadata: Metadata
    csv: Manifest
    csv_file: Path
    objects: tuple[Manifest, ...]  # file order, the CSV among them

    @property
    def name(self) -> str:
        return manifests.name(self.csv)

    @property
    def package(self) -> str:
        return self.metadata.annotations.package

    def spec_string(self, key: str) -> str:
        """A string field of the CSV spec (checked when the directory was loaded)."""
        return as_str(manifests.spec(self.csv).get(key))

    def spec_strings(self, key: str) -> tuple[str, ...]:
        return tuple(as_list(manifests.spec(self.csv).get(key)))

    @property
    def substitutes_for(self) -> str:
        return as_str(manifests.metadata_annotations(self.csv).get(SUBSTITUTES_FOR_ANNOTATION))


def _spec_string(csv: Manifest, key: str, where: Path) -> None:
    value = manifests.spec(csv).get(key)
    if value is not None and not isinstance(value, str):
        raise ValidationError(f"{where}: spec.{key} of the CSV must be a string, got {value!r}")


def _spec_strings(csv: Manifest, key: str, where: Path) -> None:
    value = manifests.spec(csv).get(key)
    if value is None:
        return
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationError(f"{where}: spec.{key} of the CSV must be a list of strings")


def _manifest_objects(
    manifests_dir: Path, root: Path, notify: NoticeSink
) -> list[tuple[Path, Manifest]]:
    objects: list[tuple[Path, Manifest]] = []
    _check_inside(manifests_dir, root)
    try:
        entries = sorted(os.scandir(manifests_dir), key=lambda e: e.name)
    except OSError as exc:
        raise InputError(f"{manifests_dir}: cannot read directory: {exc.strerror}") from None
    safe.note_special_files(e for e in entries if not e.name.startswith("."))
    csv_file: Path | None = None
    for entry in entries:
        if entry.name.startswith(".") or not entry.is_file():
            continue
        file = manifests_dir / entry.name
        _check_inside(file, root)
        named_as_manifest = entry.name.lower().endswith(MANIFEST_EXTENSIONS)
        try:
            documents = _documents(file, _read_text(file), 2)
        except InputError:
            if named_as_manifest:
                raise
            notify(
                Notice(
                    CODE_FILE_SKIPPED,
                    f"{file}: not a YAML or JSON manifest; skipped, as opm does",
                    file=str(file),
                )
            )
            continue
        if not documents:
            continue
        if len(documents) > 1:
            notify(
                Notice(
                    CODE_LATER_DOCUMENTS,
                    f"{file}: holds more than one document; only the first is read, as opm does",
                    file=str(file),
                )
            )
        document = documents[0]
        if not isinstance(document, dict) or not manifests.kind(document):
            if entry.name.lower().endswith(PACKAGE_MANIFEST_SUFFIXES):
                notice = Notice(
                    CODE_PACKAGE_MANIFEST,
                    f"{file}: a package manifest inside a bundle's {MANIFESTS_DIR}/; ignored, "
                    "and the directory read as a bundle (opm reads its image so)",
                    file=str(file),
                )
            else:
                notice = Notice(
                    CODE_NO_KIND,
                    f"{file}: not a Kubernetes object (no kind); skipped, as opm does",
                    file=str(file),
                )
            notify(notice)
            continue
        if manifests.kind(document) == manifests.CSV_KIND:
            if csv_file is not None:
                notify(
                    Notice(
                        CODE_EXTRA_CSV,
                        f"{file}: a second ClusterServiceVersion (after {csv_file.name}); "
                        "left out, as opm keeps only the first",
                        file=str(file),
                        bundle=manifests.name(document),
                    )
                )
                continue
            csv_file = file
        objects.append((file, document))
    return objects


def load_bundle_dir(
    path: Path,
    *,
    root: Path | None = None,
    notify: NoticeSink = discard,
    unparsable_metadata: bool = False,
) -> BundleDir:
    """Parse one bundle directory and apply the bundle parser's checks (ValidationError). No
    file is read through a symlink that leaves ``root`` (default: the bundle directory). With
    ``unparsable_metadata``, a file of ``metadata/`` that is not valid YAML is skipped as opm
    skips it, with a warning to ``notify`` (CODE_METADATA_UNPARSABLE), instead of an error."""
    if not path.is_dir():
        raise InputError(f"{path}: no such directory")
    manifests_dir = path / MANIFESTS_DIR
    if not manifests_dir.is_dir():
        raise ValidationError(f"{path}: not a bundle directory: {MANIFESTS_DIR}/ is missing")
    objects = _manifest_objects(manifests_dir, root or path, notify)
    metadata = read_metadata(path, root, unparsable=notify if unparsable_metadata else None)
    csvs = [(f, o) for f, o in objects if manifests.kind(o) == manifests.CSV_KIND]
    if not objects:
        raise ValidationError(f"{manifests_dir}: no bundle objects found")
    if not csvs:
        raise ValidationError(f"{manifests_dir}: no ClusterServiceVersion (no csv in bundle)")
    csv_file, csv = csvs[0]
    if not manifests.name(csv):
        raise ValidationError(f"{csv_file}: the CSV has no metadata.name")
    for key in ("version", "replaces"):
        _spec_string(csv, key, csv_file)
    _spec_strings(csv, "skips", csv_file)
    all_objects = [o for _, o in objects]
    missing = manifests.owned_crds_missing(all_objects, csv)
    if missing:
        raise ValidationError(
            f"{path}: the CSV owns CRDs that are not in {MANIFESTS_DIR}/: " + ", ".join(missing)
        )
    crds = as_dict(manifests.spec(csv).get("customresourcedefinitions"))
    for crd in as_list(crds.get("owned")) + as_list(crds.get("required")):
        crd_name = as_str(as_dict(crd).get("name"))
        if "." not in crd_name:
            raise ValidationError(
                f"{csv_file}: CRD name {crd_name!r} in spec.customresourcedefinitions is not "
                "<plural>.<group>"
            )
    return BundleDir(path, metadata, csv, csv_file, tuple(all_objects))
