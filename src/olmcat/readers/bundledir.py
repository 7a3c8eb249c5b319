"""Read bundle-format directories (``manifests/`` + ``metadata/``) into the catalog model.

One bundle renders to what ``opm render`` makes of the bundle image built from the directory
(``registry.NewImageInput`` + ``bundleToDeclcfg``):

* ``manifests/``: every non-hidden file, first YAML document only, objects without ``kind`` left
  out; the CSV names the bundle. Objects become ``olm.bundle.object`` properties in file order.
* ``metadata/``: the first file (by name) that decodes to non-empty annotations, the first with
  ``dependencies`` and the first with ``properties``.
* properties: ``properties.yaml`` entries, then the package from the annotations (version from the
  CSV), the CSV's ``olm.properties`` annotation and the provided APIs, de-duplicated; ``olm.gvk``
  and ``olm.package`` are rebuilt (the last ``olm.package`` wins); dependencies become
  ``olm.gvk.required`` / ``olm.package.required`` or pass through under their own type
  (``olm.label``, ``olm.constraint``, ...); required APIs of the CSV are added. Everything but the
  objects is sorted by (type, raw value text); the objects follow.
* related images: the CSV's ``relatedImages``, the bundle image, the images of the install
  deployments' containers, each image once, sorted by image with Go's (unstable) sort.

A tree of bundle directories becomes packages (by the package annotation). Their channel graph is
what ``opm registry add --mode replaces`` built when a package's bundles were added in one call
(``loadManifestsReplaces``): the head of each channel is the highest version among the bundles
naming it, the default channel comes from the annotations of the highest version bundle that names
one (a lone channel is the default), and the legacy loader lays out each channel from its head along
``replaces`` and ``spec.skips`` (:mod:`olmcat.readers.legacy`). Bundles no head reaches are left
out, as opm's migration leaves them out. (One call per package, not per bundle: added one at a time,
cockroachdb's 2.x bundles would each be refused, their default channel ``stable-3.x`` being none of
their channels, yet the corpus index has them in ``stable``.) Packages whose index was built with
``--mode semver`` can be read that way instead (:func:`semver_mode_channels`).
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from olmcat.errors import InputError, ValidationError
from olmcat.files.yaml import load_all
from olmcat.go.json import compact, marshal_object
from olmcat.go.semver import Version, parse_version
from olmcat.go.sort import sort_slice
from olmcat.model import (
    Bundle,
    Channel,
    ChannelEntry,
    Meta,
    Package,
    PackageCatalog,
    RelatedImage,
    manifests,
)
from olmcat.model import property as prop
from olmcat.model.manifests import as_dict, as_list, as_str
from olmcat.model.property import Property
from olmcat.readers import legacy
from olmcat.readers.fbc import _ignored
from olmcat.readers.parallel import map_in_order, worker_count
from olmcat.readers.pkgman import _Walker
from olmcat.readers.source import selected

Warn = Callable[[str], None]
Manifest = dict[str, Any]
T = TypeVar("T")

ANNOTATION_MEDIATYPE = "operators.operatorframework.io.bundle.mediatype.v1"
ANNOTATION_MANIFESTS = "operators.operatorframework.io.bundle.manifests.v1"
ANNOTATION_METADATA = "operators.operatorframework.io.bundle.metadata.v1"
ANNOTATION_PACKAGE = "operators.operatorframework.io.bundle.package.v1"
ANNOTATION_CHANNELS = "operators.operatorframework.io.bundle.channels.v1"
ANNOTATION_DEFAULT_CHANNEL = "operators.operatorframework.io.bundle.channel.default.v1"

MANIFESTS_DIR = "manifests"
METADATA_DIR = "metadata"
# A parse error in a file named like a manifest is reported; opm skips every undecodable file,
# which hides broken manifests. Files named otherwise are skipped with a warning, as opm does.
MANIFEST_EXTENSIONS = (".yaml", ".yml", ".json")
CSV_PROPERTIES_ANNOTATION = "olm.properties"
# opm's stand-in for a CSV without spec.version when it picks channel heads.
MISSING_VERSION = "0.0.0-z"
TEMPLATE_FIELDS = ("package", "name", "version", "dir")
_TEMPLATE_FIELD = re.compile(r"\{([^{}]*)\}")


def _quiet(message: str) -> None:
    """The default warning sink."""


def is_bundle_dir(path: Path) -> bool:
    """opm's test: a directory with both a ``manifests`` and a ``metadata`` subdirectory."""
    return (path / MANIFESTS_DIR).is_dir() and (path / METADATA_DIR).is_dir()


# -- files --------------------------------------------------------------------------------------


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None


def _documents(path: Path, text: str, limit: int) -> list[Any]:
    """Up to ``limit`` documents of a file (JSON is read as the YAML it also is); a parse error
    is an InputError naming the file."""
    out: list[Any] = []
    try:
        for document in load_all(text):
            out.append(document)
            if len(out) >= limit:
                break
    except Exception as exc:  # yaml errors from libyaml
        raise InputError(f"{path}: not valid YAML: {str(exc).splitlines()[0]}") from None
    return out


def _is_json(text: str) -> bool:
    # The k8s YAML-or-JSON decoder reads a stream as JSON only when it starts with "{".
    return text.lstrip(" \t\r\n").startswith("{")


class _RawJSON:
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
    """A property or dependency as opm holds it before output: type and raw JSON value text."""

    type: str
    raw: str


@dataclass(frozen=True, slots=True)
class Metadata:
    annotations: Annotations
    annotations_file: Path
    dependencies: tuple[RawProperty, ...] = ()
    properties: tuple[RawProperty, ...] = ()


def _raw_entries(raw: _RawJSON, index: int) -> list[RawProperty] | None:
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
        # A missing value is a nil RawMessage, which Go writes as null.
        entries.append(RawProperty(type_, fields.get("value", "null")))
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
        entries.append(RawProperty(item.get("type", ""), marshal_object(item.get("value"))))
    return entries


def _string_fields(value: Any, keys: tuple[str, ...]) -> tuple[str, ...] | None:
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


def read_metadata(bundle_dir: Path) -> Metadata:
    """Annotations, dependencies and properties of a bundle, found as opm finds them."""
    metadata_dir = bundle_dir / METADATA_DIR
    try:
        names = sorted(e.name for e in os.scandir(metadata_dir) if e.is_file())
    except OSError as exc:
        raise InputError(f"{metadata_dir}: cannot read directory: {exc.strerror}") from None
    annotations: tuple[Annotations, Path] | None = None
    found: dict[str, list[RawProperty]] = {}
    for name in names:
        path = metadata_dir / name
        text = _read_text(path)
        try:
            documents = _documents(path, text, 1)
        except InputError:
            if name.lower().endswith(MANIFEST_EXTENSIONS):
                raise
            continue  # not a metadata file (opm skips what it cannot decode)
        document = documents[0] if documents else None
        if not isinstance(document, dict):
            continue
        if annotations is None:
            fields = _string_fields(
                document.get("annotations") or {},
                (ANNOTATION_PACKAGE, ANNOTATION_CHANNELS, ANNOTATION_DEFAULT_CHANNEL),
            )
            if fields is not None and any(fields):
                annotations = (Annotations(*fields), path)
        top = _RawJSON(text).object_at(0) if _is_json(text) else None
        for key in ("dependencies", "properties"):
            if key in found:
                continue
            if top is not None:
                # JSON: values stay the raw text they were written as.
                entries = _raw_entries(_RawJSON(top[key]), 0) if key in top else []
            else:
                entries = _yaml_entries(document.get(key))
            if entries:
                found[key] = entries
    if annotations is None:
        raise ValidationError(
            f"{metadata_dir}: no annotations file (a YAML file with annotations "
            f"{ANNOTATION_PACKAGE} and {ANNOTATION_CHANNELS})"
        )
    return Metadata(
        annotations=annotations[0],
        annotations_file=annotations[1],
        dependencies=tuple(found.get("dependencies", ())),
        properties=tuple(found.get("properties", ())),
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


def _spec_string(csv: Manifest, key: str, where: Path) -> str:
    value = manifests.spec(csv).get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValidationError(f"{where}: spec.{key} of the CSV must be a string, got {value!r}")
    return value


def _spec_strings(csv: Manifest, key: str, where: Path) -> list[str]:
    value = manifests.spec(csv).get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationError(f"{where}: spec.{key} of the CSV must be a list of strings")
    return list(value)


def _manifest_objects(manifests_dir: Path, warn: Warn) -> list[tuple[Path, Manifest]]:
    objects: list[tuple[Path, Manifest]] = []
    try:
        entries = sorted(os.scandir(manifests_dir), key=lambda e: e.name)
    except OSError as exc:
        raise InputError(f"{manifests_dir}: cannot read directory: {exc.strerror}") from None
    for entry in entries:
        if entry.name.startswith(".") or not entry.is_file():
            continue
        file = manifests_dir / entry.name
        named_as_manifest = entry.name.lower().endswith(MANIFEST_EXTENSIONS)
        try:
            documents = _documents(file, _read_text(file), 2)
        except InputError:
            if named_as_manifest:
                raise
            warn(f"{file}: not a YAML or JSON manifest; skipped, as opm does")
            continue
        if not documents:
            continue
        if len(documents) > 1:
            warn(f"{file}: holds more than one document; only the first is read, as opm does")
        document = documents[0]
        if not isinstance(document, dict) or not manifests.kind(document):
            warn(f"{file}: not a Kubernetes object (no kind); skipped, as opm does")
            continue
        objects.append((file, document))
    return objects


def load_bundle_dir(path: Path, *, warn: Warn | None = None) -> BundleDir:
    """Parse one bundle directory and apply the legacy loader's checks (ValidationError)."""
    warn = warn or _quiet
    if not path.is_dir():
        raise InputError(f"{path}: no such directory")
    manifests_dir = path / MANIFESTS_DIR
    if not manifests_dir.is_dir():
        raise ValidationError(f"{path}: not a bundle directory: {MANIFESTS_DIR}/ is missing")
    metadata = read_metadata(path)
    objects = _manifest_objects(manifests_dir, warn)
    csvs = [(f, o) for f, o in objects if manifests.kind(o) == manifests.CSV_KIND]
    if len(csvs) != 1:
        names = f" ({', '.join(f.name for f, _ in csvs)})" if csvs else ""
        raise ValidationError(
            f"{manifests_dir}: a bundle must hold exactly one ClusterServiceVersion, "
            f"found {len(csvs)}{names}"
        )
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


# -- rendering ----------------------------------------------------------------------------------


def check_template(template: str) -> None:
    """Refuse templates with placeholders other than {package}, {name}, {version} and {dir}."""
    for match in _TEMPLATE_FIELD.finditer(template):
        if match.group(1) not in TEMPLATE_FIELDS:
            known = ", ".join("{" + f + "}" for f in TEMPLATE_FIELDS)
            raise InputError(
                f"image reference template {template!r}: unknown placeholder "
                f"{match.group(0)!r} (use {known})"
            )


def _json_fields(raw: str, keys: tuple[str, ...], what: str) -> tuple[str, ...]:
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise ValidationError(f"{what}: value is not valid JSON: {exc}") from None
    fields = _string_fields(value if value is not None else {}, keys)
    if fields is None:
        names = ", ".join(keys)
        raise ValidationError(f"{what}: value must be an object with string fields {names}")
    return fields


def _csv_properties(bundle: BundleDir, warn: Warn) -> list[RawProperty]:
    """The CSV's ``olm.properties`` annotation (a JSON list); opm warns and ignores a bad one."""
    text = manifests.metadata_annotations(bundle.csv).get(CSV_PROPERTIES_ANNOTATION)
    if text is None:
        return []
    entries = None
    if isinstance(text, str):
        try:
            json.loads(text)
        except ValueError:
            pass
        else:
            entries = _raw_entries(_RawJSON(text), 0)
    if entries is None:
        warn(
            f"{bundle.csv_file}: annotation {CSV_PROPERTIES_ANNOTATION} is not a JSON list of "
            "properties; ignored, as opm does"
        )
        return []
    return entries


def _crd_apis(objects: tuple[Manifest, ...]) -> set[prop.GVK]:
    """APIs of the CRDs as the loader's scheme decodes them: every ``spec.versions`` name, and
    for v1beta1 also ``spec.version``; CRDs of other API versions are not decoded at all."""
    provided: set[prop.GVK] = set()
    for obj in objects:
        if manifests.kind(obj) != manifests.CRD_KIND:
            continue
        api_version = as_str(obj.get("apiVersion")).rpartition("/")[2]
        if api_version not in ("v1", "v1beta1"):
            continue
        spec = manifests.spec(obj)
        group, kind = as_str(spec.get("group")), as_str(as_dict(spec.get("names")).get("kind"))
        for version in as_list(spec.get("versions")):
            provided.add(prop.GVK(group, kind, as_str(as_dict(version).get("name"))))
        if api_version == "v1beta1" and as_str(spec.get("version")):
            provided.add(prop.GVK(group, kind, as_str(spec.get("version"))))
    return provided


def _operator_images(csv: Manifest) -> list[str]:
    """Images of the install deployments as ``GetOperatorImages`` reads them: only for the
    ``deployment`` strategy, containers then init containers, empty images included."""
    install = as_dict(manifests.spec(csv).get("install"))
    if install.get("strategy") != "deployment":
        return []
    images: list[str] = []
    for deployment in as_list(as_dict(install.get("spec")).get("deployments")):
        pod = manifests.spec(as_dict(manifests.spec(as_dict(deployment)).get("template")))
        for key in ("containers", "initContainers"):
            images += [as_str(as_dict(c).get("image")) for c in as_list(pod.get(key))]
    return images


def _bundle_properties(bundle: BundleDir, warn: Warn) -> tuple[list[RawProperty], str]:
    """``bundle.Properties`` as opm's parser leaves them, and the CSV version."""
    version = _spec_string(bundle.csv, "version", bundle.csv_file)
    derived: list[RawProperty] = []
    if bundle.package:
        derived.append(RawProperty(prop.TYPE_PACKAGE, prop.package(bundle.package, version).value))
    derived += _csv_properties(bundle, warn)
    # Owned API services: provided_apis of no objects is exactly those.
    provided = _crd_apis(bundle.objects) | manifests.provided_apis([], bundle.csv)
    derived += [
        RawProperty(prop.TYPE_GVK, prop.gvk(g.group, g.version, g.kind).value)
        for g in sorted(provided)
    ]
    # propertySet: de-duplicated on (type, raw value), the first kept.
    return list(dict.fromkeys([*bundle.metadata.properties, *derived])), version


def template_version(bundle: BundleDir, warn: Warn | None = None) -> str:
    """The version opm's image template sees: that of the first ``olm.package`` property."""
    props, _ = _bundle_properties(bundle, warn or _quiet)
    for p in props:
        if p.type == prop.TYPE_PACKAGE:
            return _json_fields(p.raw, ("packageName", "version"), str(bundle.path))[1]
    return ""


def image_reference(bundle: BundleDir, template: str, warn: Warn | None = None) -> str:
    """``template`` with {package}, {name} (CSV name), {version} and {dir} filled in."""
    check_template(template)
    values = {"package": bundle.package, "name": bundle.name, "dir": bundle.path.name}
    if "{version}" in template:
        values["version"] = template_version(bundle, warn)
    return _TEMPLATE_FIELD.sub(lambda m: values[m.group(1)], template)


def render(bundle: BundleDir, image: str = "", *, warn: Warn | None = None) -> Bundle:
    """The ``olm.bundle`` opm renders for a parsed bundle directory with this image reference."""
    warn = warn or _quiet
    where = str(bundle.path)
    props, version = _bundle_properties(bundle, warn)
    provided: set[prop.GVK] = set()
    required: set[prop.GVK] = set()
    package: Property | None = None
    others: list[RawProperty] = []
    for p in props:
        if p.type == prop.TYPE_GVK:
            group, kind, gvk_version = _json_fields(p.raw, ("group", "kind", "version"), where)
            provided.add(prop.GVK(group, kind, gvk_version))
        elif p.type == prop.TYPE_PACKAGE:
            name, pkg_version = _json_fields(p.raw, ("packageName", "version"), where)
            package = prop.package(name, pkg_version)  # the last one wins
        else:
            others.append(p)
    package_required: list[Property] = []
    for dep in bundle.metadata.dependencies:
        what = f"{where}: dependency {dep.type}"
        if dep.type == prop.TYPE_GVK:
            group, kind, gvk_version = _json_fields(dep.raw, ("group", "kind", "version"), what)
            required.add(prop.GVK(group, kind, gvk_version))
        elif dep.type == prop.TYPE_PACKAGE:
            name, version_range = _json_fields(dep.raw, ("packageName", "version"), what)
            package_required.append(prop.package_required(name, version_range))
        else:
            others.append(dep)
    required |= manifests.required_apis(bundle.csv)
    if package is None:
        package = prop.package(bundle.package, version)

    # (type, raw value, property): opm sorts on the raw text; only the output is compacted.
    keyed = [(p.type, p.value, p) for p in (package, *package_required)]
    keyed += [(prop.TYPE_GVK, p.value, p) for p in (prop.gvk(*_gvk_args(g)) for g in provided)]
    keyed += [
        (prop.TYPE_GVK_REQUIRED, p.value, p)
        for p in (prop.gvk_required(*_gvk_args(g)) for g in required)
    ]
    keyed += [
        (o.type, o.raw, Property(o.type, compact(o.raw, what=f"{where}: property {o.type}")))
        for o in others
    ]
    keyed.sort(key=lambda item: (item[0], item[1]))
    properties = [item[2] for item in keyed]
    properties += [prop.bundle_object(marshal_object(obj).encode()) for obj in bundle.objects]
    # moveBundleObjectsToEndOfPropertySlices: objects last, in their order.
    ordered = [p for p in properties if p.type not in prop.OBJECT_TYPES]
    ordered += [p for p in properties if p.type in prop.OBJECT_TYPES]

    related = [RelatedImage(n, i) for n, i in manifests.csv_related_images(bundle.csv)]
    seen = {ri.image for ri in related}
    if image and image not in seen:
        related.append(RelatedImage("", image))
    for operator_image in dict.fromkeys(_operator_images(bundle.csv)):
        if operator_image not in seen:
            related.append(RelatedImage("", operator_image))
        seen.add(operator_image)
    sort_slice(related, lambda x, y: x.image < y.image)
    return Bundle(
        name=bundle.name,
        package=bundle.package,
        image=image,
        properties=tuple(ordered),
        related_images=tuple(related),
    )


def _gvk_args(gvk: prop.GVK) -> tuple[str, str, str]:
    return gvk.group, gvk.version, gvk.kind


def render_bundle_dir(
    path: Path, *, image_ref_template: str | None = None, warn: Warn | None = None
) -> Bundle:
    """``opm render`` of the bundle image built from the bundle directory ``path``.

    The image reference is ``image_ref_template`` with ``{package}``, ``{name}`` (CSV name),
    ``{version}`` (olm.package version) and ``{dir}`` (directory name) filled in; without a
    template it is empty, as ``opm render <dir>`` leaves it.
    """
    if image_ref_template is not None:
        check_template(image_ref_template)
    bundle = load_bundle_dir(path, warn=warn)
    if not bundle.package:
        raise ValidationError(
            f"{bundle.metadata.annotations_file}: no {ANNOTATION_PACKAGE} annotation"
        )
    image = image_reference(bundle, image_ref_template, warn) if image_ref_template else ""
    return render(bundle, image, warn=warn)


# -- the channel graph --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GraphNode:
    """What the replaces-mode loader reads of a bundle to pick heads and lay out channels."""

    name: str
    path: Path
    version: str
    channels: tuple[str, ...]
    default_channel: str
    replaces: str
    skips: tuple[str, ...]
    skip_range: str


def graph_node(bundle: BundleDir) -> GraphNode:
    csv = bundle.csv
    return GraphNode(
        name=bundle.name,
        path=bundle.path,
        version=_spec_string(csv, "version", bundle.csv_file),
        channels=bundle.metadata.annotations.channel_list(),
        default_channel=bundle.metadata.annotations.default_channel,
        replaces=_spec_string(csv, "replaces", bundle.csv_file),
        skips=tuple(_spec_strings(csv, "skips", bundle.csv_file)),
        skip_range=manifests.csv_skip_range(csv),
    )


def _parsed_version(node: GraphNode) -> Version:
    try:
        return parse_version(node.version or MISSING_VERSION)
    except InputError as exc:
        raise ValidationError(f"{node.path}: bundle {node.name}: {exc}") from None


def _build_id_compare(left: Version, right: Version, where: Path) -> int:
    """opm's ``BuildIdCompare``: semver order, then build ids compared as pre-releases (a
    version with build ids sorts after the same version without)."""
    order = left.compare(right)
    if order:
        return int(order)

    def as_prerelease(v: Version) -> Version:
        if not v.build:
            return Version(0, 0, 0)
        try:
            return parse_version(f"1.0.0-{v.build}")
        except InputError as exc:
            raise ValidationError(f"{where}: build id of {v} is not comparable: {exc}") from None

    return int(as_prerelease(left).compare(as_prerelease(right)))


def by_version(nodes: list[GraphNode]) -> list[GraphNode]:
    """Ascending version order (equal versions by path): the order the index was built in."""
    versions = {id(n): _parsed_version(n) for n in nodes}

    def order(a: GraphNode, b: GraphNode) -> int:
        return _build_id_compare(versions[id(a)], versions[id(b)], a.path)

    return sorted(sorted(nodes, key=lambda n: n.path), key=functools.cmp_to_key(order))


@dataclass(frozen=True, slots=True)
class PackageGraph:
    default_channel: str
    heads: tuple[tuple[str, str], ...]  # (channel, head bundle), by channel name


@dataclass(frozen=True, slots=True)
class _Candidate:
    node: GraphNode | None
    version: Version
    count: int  # bundles tied at this version (a contested head)


def replaces_mode_heads(package: str, nodes: list[GraphNode]) -> PackageGraph:
    """Channel heads and default channel as ``SemverPackageManifest`` picks them.

    ``nodes`` come in the order they were added (:func:`by_version`). The loader's quirks are
    kept: a tie carries its count over to the bundle's later channels and to the package maximum,
    and the maximum starts at 0.0.0, so a bundle below it (no version: 0.0.0-z) never sets the
    default channel. Raises ValidationError where the loader refused the package.
    """
    heads: dict[str, _Candidate] = {}
    highest = _Candidate(None, Version(0, 0, 0), 0)
    default = ""
    for node in nodes:
        version = _parsed_version(node)
        count = 1
        for channel in node.channels:
            head = heads.get(channel)
            if head is not None:
                order = _build_id_compare(version, head.version, node.path)
                if order < 0:
                    continue
                if order == 0:
                    count += head.count
            heads[channel] = _Candidate(node, version, count)
        order = _build_id_compare(version, highest.version, node.path)
        if order < 0:
            continue
        if order == 0:
            count += highest.count
        highest = _Candidate(node, version, count)
        if node.default_channel:
            default = node.default_channel
    if highest.count > 1:
        raise ValidationError(
            f"package {package!r}: more than one bundle has the highest version {highest.version}"
        )
    for channel, head in sorted(heads.items()):
        if head.count > 1:
            raise ValidationError(
                f"package {package!r}: more than one bundle could head channel {channel!r} "
                f"(version {head.version})"
            )
    channels = ", ".join(sorted(heads)) or "none"
    if not ((len(heads) == 1 and not default) or default in heads):
        if default:
            where = f" (annotated in {highest.node.path})" if highest.node is not None else ""
            raise ValidationError(
                f"package {package!r}: default channel {default!r}{where} is not a channel of "
                f"any bundle ({channels}); the index build refused the package"
            )
        raise ValidationError(
            f"package {package!r}: no bundle annotation names a default channel and there are "
            f"several channels ({channels})"
        )
    if len(heads) == 1:
        default = next(iter(heads))  # a lone channel is the default, whatever was annotated
    return PackageGraph(
        default, tuple(sorted((c, h.node.name) for c, h in heads.items() if h.node is not None))
    )


def channels_of(package: str, nodes: list[GraphNode], graph: PackageGraph) -> tuple[Channel, ...]:
    """The channels the loader lays out from the heads (``addPackageChannels``)."""
    bundles = {n.name: legacy.GraphBundle(n.name, n.replaces, n.skips) for n in nodes}
    rows = legacy.ChannelRowBuilder(bundles)
    for channel, head in graph.heads:
        errors = rows.add_channel(channel, head)
        if errors:
            raise ValidationError(f"package {package!r}: {errors[0]}")
    skip_ranges = {n.name: n.skip_range for n in nodes}
    per_channel = legacy.channel_entries(
        rows.rows,
        legacy.ChannelRowBuilder.START_DEPTH,
        skip_ranges.__contains__,
        skip_ranges.__getitem__,
    )
    return tuple(
        Channel(name=c, package=package, entries=tuple(per_channel.get(c, [])))
        for c, _ in graph.heads
    )


def _by_first_version(a: tuple[Version, GraphNode], b: tuple[Version, GraphNode]) -> int:
    return int(a[0].compare(b[0]))


def semver_mode_channels(package: str, nodes: list[GraphNode]) -> tuple[str, tuple[Channel, ...]]:
    """Default channel and channels of a package built with ``opm registry add --mode semver``,
    one bundle at a time in ascending version order (``BundleGraphLoader.AddBundleToGraph``).

    CSV ``replaces``/``skips`` are ignored: each bundle replaces the highest lower version in
    each of its channels. The default channel is the latest non-empty annotation, or else the
    first of the first bundle's channels by name.
    """
    default = ""
    members: dict[str, list[tuple[Version, GraphNode]]] = {}
    for node in nodes:
        try:
            version = parse_version(node.version)
        except InputError as exc:
            raise ValidationError(
                f"{node.path}: bundle {node.name}: semver mode needs a valid spec.version: {exc}"
            ) from None
        if node.default_channel:
            default = node.default_channel
        if not default:
            default = sorted(node.channels)[0]
        for channel in node.channels:
            for other_version, other in members.get(channel, []):
                if other_version.compare(version) == 0:
                    raise ValidationError(
                        f"{node.path}: bundle {node.name} has the version of {other.name} "
                        f"({version}) in channel {channel!r}"
                    )
            members.setdefault(channel, []).append((version, node))
    if default not in members:
        raise ValidationError(
            f"package {package!r}: default channel {default!r} is not a channel of any bundle"
        )
    channels = []
    for channel, chain in sorted(members.items()):
        chain.sort(key=functools.cmp_to_key(_by_first_version))
        entries = [
            ChannelEntry(
                name=node.name,
                replaces=chain[i - 1][1].name if i else "",
                skip_range=node.skip_range,
            )
            for i, (_, node) in enumerate(chain)
        ]
        entries.sort(key=lambda e: e.name)
        channels.append(Channel(name=channel, package=package, entries=tuple(entries)))
    return default, tuple(channels)


# -- the tree reader ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Rendered:
    node: GraphNode
    bundle: Bundle
    icon: tuple[str, str] | None  # the CSV's first icon, decoded only for the package's head


class BundleDirCatalog:
    """A tree of bundle directories (or one), yielding one :class:`PackageCatalog` per package.

    Bundle directories at or below ``exclude_dirs`` (package-manifest packages) are ignored.
    Discovery reads only the metadata; a package's bundles are parsed when it is read and only
    their rendered form is kept, so memory holds one package at a time.

    The channel graph is built in replaces mode; packages named in ``semver_packages`` are built
    as ``--mode semver`` built them (:func:`semver_mode_channels`).

    An invalid package raises ValidationError; with ``permissive`` it is skipped with a warning
    and its name added to ``skipped`` (a bundle directory without a package annotation is skipped
    under its path).
    """

    def __init__(
        self,
        root: Path,
        *,
        exclude_dirs: set[Path] | frozenset[Path] = frozenset(),
        permissive: bool = False,
        image_ref_template: str | None = None,
        warn: Warn | None = None,
        semver_packages: Collection[str] = (),
    ) -> None:
        if not root.exists():
            raise InputError(f"{root}: no such directory")
        if not root.is_dir():
            raise InputError(f"{root}: not a directory")
        if image_ref_template is not None:
            check_template(image_ref_template)
        self.root = root
        self.permissive = permissive
        self.image_ref_template = image_ref_template
        self._warn = warn or _quiet
        self._exclude = frozenset(exclude_dirs)
        self.semver_packages = frozenset(semver_packages)
        self.skipped: list[str] = []
        self._packages: dict[str, list[Path]] = {}
        self._discover()

    def _excluded(self, path: Path) -> bool:
        return path in self._exclude or any(p in self._exclude for p in path.parents)

    def _skip(self, name: str, what: str, error: ValidationError) -> None:
        if not self.permissive:
            raise error
        self.skipped.append(name)
        self._warn(f"skipped {what}: {error}")

    def _discover(self) -> None:
        if self._excluded(self.root):
            return
        walker = _Walker(self.root)
        for directory, dirnames, _ in walker.walk(self.root):
            # The walker filters files only; an ignored directory ("drafts/") is pruned here,
            # judged by a path inside it as gitignore judges directory patterns.
            dirnames[:] = [
                d
                for d in dirnames
                if directory / d not in self._exclude
                and not _ignored(directory / d / "-", self.root, walker.specs)
            ]
            if MANIFESTS_DIR not in dirnames or METADATA_DIR not in dirnames:
                continue
            dirnames[:] = []  # nothing below a bundle directory is another bundle
            try:
                metadata = read_metadata(directory)
                if not metadata.annotations.package:
                    raise ValidationError(
                        f"{metadata.annotations_file}: no {ANNOTATION_PACKAGE} annotation"
                    )
            except ValidationError as error:
                self._skip(str(directory), f"bundle directory {directory}", error)
                continue
            self._packages.setdefault(metadata.annotations.package, []).append(directory)

    def package_names(self) -> list[str]:
        return sorted(self._packages)

    def bundle_dirs(self, package: str) -> list[Path]:
        return list(self._packages[package])

    def global_others(self) -> list[Meta]:
        return []

    def close(self) -> None:
        """Nothing to release; present so every reader has the same interface."""

    def __iter__(self) -> Iterator[PackageCatalog]:
        return self.packages()

    def packages(self, only: Collection[str] | None = None) -> Iterator[PackageCatalog]:
        """Packages in name order. With several CPUs, packages are parsed in worker processes
        (YAML parsing dominates) and taken in order, at most a few ahead, so memory stays
        bounded; ``OLMCAT_WORKERS`` sets the number (1: no workers)."""
        names = selected(self.package_names(), only)
        workers = worker_count(len(names))
        if workers < 2:
            for name in names:
                try:
                    pkg = self.read_package(name)
                except ValidationError as error:
                    self._skip(name, f"package {name!r}", error)
                    continue
                yield pkg
            return
        jobs = iter(
            (
                name,
                tuple(self._packages[name]),
                self.image_ref_template,
                name in self.semver_packages,
            )
            for name in names
        )
        for name, (result, warnings, problem) in zip(
            names, map_in_order(_read_in_worker, jobs, workers), strict=True
        ):
            for warning in warnings:
                self._warn(warning)
            if result is not None:
                yield result
            else:
                self._skip(name, f"package {name!r}", ValidationError(problem))

    def read_package(self, name: str) -> PackageCatalog:
        """Parse, check and lay out one package (ValidationError if the loader refused it)."""
        return read_package(
            name,
            self._packages[name],
            image_ref_template=self.image_ref_template,
            semver_mode=name in self.semver_packages,
            warn=self._warn,
        )


_WorkerResult = tuple[PackageCatalog | None, list[str], str]


def _read_in_worker(job: tuple[str, tuple[Path, ...], str | None, bool]) -> _WorkerResult:
    """One package in a worker process: (package or None, warnings, validation error)."""
    name, paths, template, semver_mode = job
    warnings: list[str] = []
    try:
        pkg = read_package(
            name, paths, image_ref_template=template, semver_mode=semver_mode, warn=warnings.append
        )
    except ValidationError as error:
        return None, warnings, str(error)
    return pkg, warnings, ""


def _render_dir(path: Path, template: str | None, warn: Warn) -> _Rendered:
    bundle = load_bundle_dir(path, warn=warn)
    annotations = bundle.metadata.annotations
    channels = annotations.channel_list()
    if not channels:
        raise ValidationError(
            f"{bundle.metadata.annotations_file}: annotation {ANNOTATION_CHANNELS} names no channel"
        )
    if "" in channels:
        raise ValidationError(
            f"{bundle.metadata.annotations_file}: annotation {ANNOTATION_CHANNELS} "
            f"{annotations.channels!r} has an empty channel name"
        )
    image = image_reference(bundle, template, warn) if template else ""
    return _Rendered(
        graph_node(bundle), render(bundle, image, warn=warn), manifests.csv_icon(bundle.csv)
    )


def read_package(
    name: str,
    bundle_dirs: Collection[Path],
    *,
    image_ref_template: str | None = None,
    semver_mode: bool = False,
    warn: Warn | None = None,
) -> PackageCatalog:
    """The package the index build made of these bundle directories (all of package ``name``):
    each rendered, the channels laid out in replaces mode (or semver mode). Raises
    ValidationError where the loader refused the package."""
    warn = warn or _quiet
    rendered: dict[str, _Rendered] = {}
    for path in bundle_dirs:
        item = _render_dir(path, image_ref_template, warn)
        if item.node.name in rendered:
            raise ValidationError(
                f"{path}: CSV {item.node.name!r} is also defined in "
                f"{rendered[item.node.name].node.path}"
            )
        rendered[item.node.name] = item
    nodes = by_version([r.node for r in rendered.values()])
    if semver_mode:
        default, channels = semver_mode_channels(name, nodes)
        heads = {c.name: c.head() for c in channels}
    else:
        graph = replaces_mode_heads(name, nodes)
        default, channels = graph.default_channel, channels_of(name, nodes, graph)
        heads = dict(graph.heads)
    in_channels = {e.name for c in channels for e in c.entries}
    for node in nodes:
        if node.name not in in_channels:
            warn(
                f"{node.path}: bundle {node.name!r} is in no channel (no channel head reaches "
                "it through replaces or skips); left out, as opm does"
            )
    head = rendered[heads[default]]
    return PackageCatalog(
        package=Package(
            name=name,
            default_channel=default,
            icon=legacy.package_icon(
                head.icon, warn, f"{head.node.path}: icon of CSV {head.node.name!r}"
            ),
        ),
        channels=channels,
        bundles=tuple(rendered[b].bundle for b in sorted(in_channels)),
    )
