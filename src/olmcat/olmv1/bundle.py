"""A registry+v1 bundle as operator-controller v1.11.0's rukpak reads it (``rukpak/bundle``).

operator-controller reads a bundle image's filesystem (``bundle/source.FromFS``) differently from
opm, and :func:`read_bundle_dir` follows it, not :mod:`olmcat.readers.bundlefiles`:

* the package name comes from ``metadata/annotations.yaml`` only;
* every file of ``manifests/`` (name order, hidden ones too) is read with *every* document in it
  (``List`` objects flattened into their items); a subdirectory of ``manifests/`` and a document
  without ``kind`` are errors; the last ClusterServiceVersion wins, CustomResourceDefinitions go to
  :attr:`RegistryV1.crds` and everything else to :attr:`RegistryV1.others`, file order kept;
* the properties of ``metadata/properties.yaml`` are appended to the CSV's ``olm.properties``
  annotation (``copyMetadataPropertiesToCSV``), which the rendered Deployment's pod template then
  carries.

The files are read through :mod:`olmcat.files.safe` and :mod:`olmcat.files.yaml`; the raw JSON of
the annotation's properties is kept as :mod:`olmcat.readers.bundlefiles` keeps it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from olmcat.errors import InputError, OlmcatError, ValidationError
from olmcat.files import safe
from olmcat.files.yaml import load_all
from olmcat.go.json import compact, go_string, marshal_object
from olmcat.model import manifests
from olmcat.model.manifests import as_dict, as_list, as_str
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.readers.bundlefiles import ANNOTATION_PACKAGE, RawJSON, raw_entries

if TYPE_CHECKING:
    from olmcat.model import Bundle
    from olmcat.oci.registry import RegistryOptions

__all__ = [
    "CRD_KIND",
    "CSV_KIND",
    "RegistryV1",
    "from_catalog_bundle",
    "from_objects",
    "read_bundle",
    "read_bundle_dir",
    "read_bundle_image",
]

CSV_KIND = "ClusterServiceVersion"
CRD_KIND = "CustomResourceDefinition"
PROPERTIES_ANNOTATION = "olm.properties"
MANIFESTS_DIR = "manifests"
METADATA_DIR = "metadata"

# Notice codes (stable; listed in docs/notices.md).
CODE_EXTRA_CSV = "olmv1.bundle.extra-csv"


@dataclass(frozen=True)
class RegistryV1:
    """A registry+v1 bundle as operator-controller's rukpak holds it (``bundle.RegistryV1``)."""

    package_name: str
    csv: dict[str, Any]
    crds: tuple[dict[str, Any], ...]
    others: tuple[dict[str, Any], ...]
    properties: tuple[dict[str, Any], ...] = ()
    source: str = ""

    @property
    def csv_name(self) -> str:
        return manifests.name(self.csv)

    @property
    def csv_spec(self) -> dict[str, Any]:
        return as_dict(self.csv.get("spec"))

    def install_modes(self) -> dict[str, bool]:
        """The CSV's install modes: type -> supported (a repeated type: the last wins)."""
        out: dict[str, bool] = {}
        for mode in as_list(self.csv_spec.get("installModes")):
            mode = as_dict(mode)
            out[as_str(mode.get("type"))] = mode.get("supported") is True
        return out

    def supported_install_modes(self) -> set[str]:
        return {mode for mode, supported in self.install_modes().items() if supported}


# -- properties -----------------------------------------------------------------------------------


def _properties_json(entries: list[tuple[str, str]]) -> str:
    """``json.Marshal([]property.Property)``: type, then the raw value compacted."""
    parts = [
        '{"type":' + go_string(type_, escape_html=True) + ',"value":' + (raw or "null") + "}"
        for type_, raw in entries
    ]
    return "[" + ",".join(parts) + "]"


def _csv_property_entries(csv: dict[str, Any], where: str) -> list[tuple[str, str]]:
    annotations = as_dict(as_dict(csv.get("metadata")).get("annotations"))
    if PROPERTIES_ANNOTATION not in annotations:
        return []
    text = annotations[PROPERTIES_ANNOTATION]
    if not isinstance(text, str):
        raise ValidationError(
            f"{where}: failed to unmarshal csv.metadata.annotations['olm.properties']: not a string"
        )
    try:
        json.loads(text)
        entries = raw_entries(RawJSON(text), 0)
    except ValueError as exc:
        entries = None
        reason = str(exc)
    else:
        reason = "not a list of properties"
    if entries is None:
        raise ValidationError(
            f"{where}: failed to unmarshal csv.metadata.annotations['olm.properties']: {reason}"
        )
    return [(e.type, compact(e.raw) if e.raw else "") for e in entries]


def _file_property_entries(path: Path) -> list[tuple[str, str]] | None:
    """``metadata/properties.yaml``'s properties, or None when the file is absent or empty."""
    if not path.is_file():
        return None
    text = safe.read_text(path)
    if not text:
        return None
    documents = list(load_all(text, where=str(path)))
    document = documents[0] if documents else None
    if document is None:
        return []
    props = as_dict(document).get("properties") if isinstance(document, dict) else None
    if not isinstance(document, dict) or (props is not None and not isinstance(props, list)):
        raise ValidationError(f"{path}: failed to unmarshal metadata/properties.yaml")
    entries: list[tuple[str, str]] = []
    for item in props or []:
        if not isinstance(item, dict) or not isinstance(item.get("type", ""), str):
            raise ValidationError(f"{path}: failed to unmarshal metadata/properties.yaml")
        raw = marshal_object(item["value"]) if "value" in item else ""
        entries.append((item.get("type", ""), raw))
    return entries


def _with_properties(csv: dict[str, Any], entries: list[tuple[str, str]]) -> dict[str, Any]:
    metadata = dict(as_dict(csv.get("metadata")))
    annotations = dict(as_dict(metadata.get("annotations")))
    annotations[PROPERTIES_ANNOTATION] = _properties_json(entries)
    metadata["annotations"] = annotations
    return {**csv, "metadata": metadata}


def _parsed(entries: list[tuple[str, str]]) -> tuple[dict[str, Any], ...]:
    return tuple({"type": t, "value": json.loads(raw) if raw else None} for t, raw in entries)


# -- objects --------------------------------------------------------------------------------------


def _flatten(document: Any, where: str) -> Iterator[dict[str, Any]]:
    """The objects of one document, ``List`` kinds flattened as kubectl's builder does."""
    if not isinstance(document, dict) or not manifests.kind(document):
        raise ValidationError(f"error parsing objects in {where}: Object 'Kind' is missing")
    kind = manifests.kind(document)
    if kind.endswith("List") and isinstance(document.get("items"), list):
        for item in document["items"]:
            yield from _flatten(item, where)
        return
    yield document


def from_objects(
    package_name: str,
    objects: list[dict[str, Any]],
    *,
    source: str = "",
    properties: tuple[dict[str, Any], ...] = (),
    notify: NoticeSink = discard,
) -> RegistryV1:
    """Sort a bundle's objects into CSV, CRDs and the rest as ``GetBundle`` does (the last CSV
    wins; an earlier one is reported)."""
    csv: dict[str, Any] | None = None
    crds: list[dict[str, Any]] = []
    others: list[dict[str, Any]] = []
    for obj in objects:
        kind = manifests.kind(obj)
        if kind == CSV_KIND:
            if csv is not None:
                notify(
                    Notice(
                        CODE_EXTRA_CSV,
                        f"{source}: more than one ClusterServiceVersion; "
                        f"{manifests.name(csv)} is replaced by {manifests.name(obj)}, as "
                        "operator-controller keeps the last",
                        file=source,
                        package=package_name,
                        bundle=manifests.name(obj),
                    )
                )
            csv = obj
        elif kind == CRD_KIND:
            crds.append(obj)
        else:
            others.append(obj)
    if csv is None:
        raise ValidationError(f'{source}: no ClusterServiceVersion found in "{MANIFESTS_DIR}"')
    return RegistryV1(package_name, csv, tuple(crds), tuple(others), properties, source)


def read_bundle_dir(
    path: Path, notify: NoticeSink = discard, *, root: Path | None = None
) -> RegistryV1:
    """Read a bundle directory (``manifests/`` + ``metadata/``) as operator-controller v1.11.0
    reads an unpacked bundle image. No file is read through a symlink that leaves ``root``
    (default: ``path``)."""
    path = Path(path)
    if not path.is_dir():
        raise InputError(f"{path}: no such directory")
    safe.add_root(root or path)
    annotations_file = path / METADATA_DIR / "annotations.yaml"
    if not annotations_file.is_file():
        raise InputError(f"{annotations_file}: no such file (a bundle's metadata/annotations.yaml)")
    safe.check_inside(annotations_file)
    documents = list(load_all(safe.read_text(annotations_file), where=str(annotations_file)))
    document = as_dict(documents[0]) if documents else {}
    package = as_dict(document.get("annotations")).get(ANNOTATION_PACKAGE, "")
    if not isinstance(package, str):
        raise ValidationError(f"{annotations_file}: {ANNOTATION_PACKAGE} is not a string")

    manifests_dir = path / MANIFESTS_DIR
    if not manifests_dir.is_dir():
        raise InputError(f"{manifests_dir}: no such directory")
    safe.check_inside(manifests_dir)
    try:
        entries = sorted(os.scandir(manifests_dir), key=lambda e: e.name)
    except OSError as exc:
        raise InputError(f"{manifests_dir}: cannot read directory: {exc.strerror}") from None
    objects: list[dict[str, Any]] = []
    for entry in entries:
        if entry.is_dir():
            raise ValidationError(
                f'{path}: subdirectories are not allowed within the "{MANIFESTS_DIR}" directory '
                f'of the bundle image filesystem: found "{MANIFESTS_DIR}/{entry.name}"'
            )
        file = manifests_dir / entry.name
        safe.check_inside(file)
        where = f'"{MANIFESTS_DIR}/{entry.name}"'
        for document in load_all(safe.read_text(file), where=str(file)):
            try:
                objects.extend(_flatten(document, where))
            except ValidationError as error:
                raise ValidationError(f"{path}: {error}") from None
    bundle = from_objects(package, objects, source=str(path), notify=notify)

    csv_entries = _csv_property_entries(bundle.csv, str(path))
    file_entries = _file_property_entries(path / METADATA_DIR / "properties.yaml")
    if file_entries is None:
        return replace(bundle, properties=_parsed(csv_entries))
    merged = csv_entries + file_entries
    return replace(bundle, csv=_with_properties(bundle.csv, merged), properties=_parsed(merged))


# -- catalogs -------------------------------------------------------------------------------------


def from_catalog_bundle(bundle: Bundle) -> RegistryV1 | None:
    """The registry+v1 bundle a catalog's ``olm.bundle.object`` properties carry; None when they
    hold no CSV (a catalog with only ``olm.csv.metadata``: read the bundle's image instead)."""
    from olmcat.model import property as prop

    objects: list[dict[str, Any]] = []
    for item in bundle.properties_of(prop.TYPE_BUNDLE_OBJECT):
        data = prop.bundle_object_data(item)
        if data is None:
            return None  # a file reference: the objects are not in the catalog
        try:
            value = json.loads(data)
        except ValueError:
            try:
                value = next(iter(load_all(data.decode("utf-8", "replace"), where=bundle.name)))
            except (StopIteration, OlmcatError):
                raise InputError(
                    f"bundle {bundle.name}: an olm.bundle.object is neither JSON nor YAML"
                ) from None
        if isinstance(value, dict) and manifests.kind(value):
            objects.append(value)
    if not any(manifests.kind(o) == CSV_KIND for o in objects):
        return None
    kept = tuple(
        {"type": p.type, "value": p.parsed()}
        for p in bundle.properties
        if p.type != prop.TYPE_BUNDLE_OBJECT
    )
    return from_objects(
        bundle.package, objects, source=bundle.image or bundle.name, properties=kept
    )


# -- images ---------------------------------------------------------------------------------------


@contextlib.contextmanager
def _unpacked(opened: Any, what: str) -> Iterator[Path]:
    scratch = safe.scratch_dir("olmv1-bundle")
    try:
        opened.extract_directories((MANIFESTS_DIR, METADATA_DIR), scratch)
        if not (scratch / MANIFESTS_DIR).is_dir() or not (scratch / METADATA_DIR).is_dir():
            raise InputError(f"{what}: the image has no /{MANIFESTS_DIR} or /{METADATA_DIR}")
        yield scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _read_opened(opened: Any, what: str, notify: NoticeSink) -> RegistryV1:
    with _unpacked(opened, what) as scratch:
        shown = str(scratch)
        try:
            bundle = read_bundle_dir(
                scratch,
                lambda n: notify(replace(n, message=n.message.replace(shown, what), file=what)),
            )
        except OlmcatError as error:
            raise type(error)(str(error).replace(shown, what)) from None
        return replace(bundle, source=what)


def read_bundle_image(
    ref: str,
    *,
    platform: str | None = None,
    options: RegistryOptions | None = None,
    notify: NoticeSink = discard,
) -> RegistryV1:
    """Read a bundle image: in a registry (``docker://HOST/REPO:TAG`` or ``HOST/REPO:TAG``) or
    saved to disk (``oci:DIR[:REF]``, ``oci-archive:FILE[:REF]``, ``docker-archive:FILE[:REF]``,
    or the path of an OCI layout / archive), through olmcat's image support."""
    from olmcat.oci.archive import is_image_archive, open_image
    from olmcat.oci.transport import DOCKER_PREFIX, parse_location, registry_reference

    location = parse_location(ref)
    if location is not None and location.is_registry:
        written = ref.removeprefix(DOCKER_PREFIX)
        from olmcat.oci.pull import pulled_layout

        with (
            pulled_layout(registry_reference(written), platform=platform, options=options) as lay,
            open_image(lay) as opened,
        ):
            return _read_opened(opened, written, notify)
    if location is not None:
        assert location.path is not None
        if not location.path.exists():
            raise InputError(f"{ref}: {location.path} does not exist")
        with open_image(location.path, platform=platform, ref=location.ref) as opened:
            return _read_opened(opened, ref, notify)
    path = Path(ref)
    if path.exists() and is_image_archive(path):
        with open_image(path, platform=platform) as opened:
            return _read_opened(opened, ref, notify)
    if not path.exists():
        raise InputError(
            f"{ref}: no such file or directory (a bundle image in a registry is written "
            "HOST/REPO:TAG or docker://HOST/REPO:TAG)"
        )
    raise InputError(
        f"{ref}: not a bundle image (a registry reference HOST/REPO:TAG, oci:DIR, "
        "oci-archive:FILE, docker-archive:FILE or an image archive)"
    )


def read_bundle(
    source: str | Path,
    *,
    platform: str | None = None,
    options: RegistryOptions | None = None,
    notify: NoticeSink = discard,
) -> RegistryV1:
    """A bundle directory or a bundle image, whichever ``source`` names."""
    path = Path(source)
    if path.is_dir() and (path / MANIFESTS_DIR).is_dir():
        return read_bundle_dir(path, notify)
    return read_bundle_image(str(source), platform=platform, options=options, notify=notify)
