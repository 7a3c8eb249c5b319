"""Render a bundle as ``opm render`` renders the bundle image built from it (``bundleToDeclcfg``).

* properties: ``properties.yaml`` entries, then the package from the annotations (version from the
  CSV), the CSV's ``olm.properties`` annotation and the provided APIs, de-duplicated; ``olm.gvk``
  and ``olm.package`` are rebuilt (the last ``olm.package`` wins); dependencies become
  ``olm.gvk.required`` / ``olm.package.required`` or pass through under their own type
  (``olm.label``, ``olm.constraint``, ...); required APIs of the CSV are added. Everything but the
  objects is sorted by (type, raw value text); the objects follow (see below).
  An ``olm.gvk`` or ``olm.package`` property or dependency without a value is refused, as opm
  refuses it.
* related images: the CSV's ``relatedImages``, the bundle image, the images of the install
  deployments' containers, each image once, sorted by image with Go's (unstable) sort.

What changed between opm releases is asked of the release (:mod:`olmcat.go.opm`), one small
function per question, so that other render paths (templates, the rendered-bundle cache) share
them: the order and form of the manifests (:func:`object_properties`: file-name order up to
v1.27, sorted by value text from v1.28, ``olm.csv.metadata`` instead of objects for bundles with
an image from v1.28 to v1.45), the ``release`` of ``olm.package`` (v1.62 on) and the constants of
Go's sort (Go 1.22 from v1.41). The order of files in an image's layers never matters: every
release unpacks the image to a directory and reads ``manifests/`` with ``fs.ReadDir``, which sorts
by name; ``release=None`` is the rendering an index build stores (``opm registry add``).

The input is a bundle directory, a bundle image saved to disk (OCI layout, oci-archive or
docker-archive) or a bundle image in a registry (``docker://HOST/REPO:TAG`` or a plain
reference); an image's ``/manifests`` and ``/metadata`` are read as the directory would be.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from olmcat.errors import InputError, OlmcatError, ValidationError
from olmcat.files import safe
from olmcat.go.json import RawNumber, compact, marshal_object
from olmcat.go.opm import NEWEST, MigrateLevel, OpmRelease, as_release, check_migrate_level
from olmcat.go.sort import GO119_SHIFTS, sort_slice
from olmcat.go.strconv import format_g
from olmcat.model import Bundle, RelatedImage, manifests
from olmcat.model import property as prop
from olmcat.model.manifests import as_dict, as_list, as_str
from olmcat.model.property import Property
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.readers.bundlefiles import (
    ANNOTATION_PACKAGE,
    CSV_PROPERTIES_ANNOTATION,
    MANIFESTS_DIR,
    METADATA_DIR,
    SUBSTITUTES_FOR_ANNOTATION,
    BundleDir,
    RawJSON,
    RawProperty,
    is_bundle_dir,
    load_bundle_dir,
    raw_entries,
    string_fields,
)

if TYPE_CHECKING:
    from olmcat.oci.archive import ImageArchive
    from olmcat.oci.options import RegistryOptions
    from olmcat.readers.bundlecache import RenderCache

TEMPLATE_FIELDS = ("package", "name", "version", "dir")
_TEMPLATE_FIELD = re.compile(r"\{([^{}]*)\}")

CODE_CSV_PROPERTIES = "bundledir.csv-properties-invalid"
CODE_NO_IMAGE = "render.image-unknown"
CODE_UNTYPED_PROPERTY = "bundledir.property-without-type"


# -- image references ---------------------------------------------------------------------------


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
    if raw == "":
        # Go unmarshals a nil RawMessage: "unexpected end of JSON input".
        raise ValidationError(f"{what}: has no value (opm: unexpected end of JSON input)")
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise ValidationError(f"{what}: value is not valid JSON: {exc}") from None
    fields = string_fields(value if value is not None else {}, keys)
    if fields is None:
        names = ", ".join(keys)
        raise ValidationError(f"{what}: value must be an object with string fields {names}")
    return fields


def _csv_properties(bundle: BundleDir, notify: NoticeSink) -> list[RawProperty]:
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
            entries = raw_entries(RawJSON(text), 0)
    if entries is None:
        notify(
            Notice(
                CODE_CSV_PROPERTIES,
                f"{bundle.csv_file}: annotation {CSV_PROPERTIES_ANNOTATION} is not a JSON list of "
                "properties; ignored, as opm does",
                file=str(bundle.csv_file),
                package=bundle.package,
                bundle=bundle.name,
            )
        )
        return []
    return entries


def _go_kind(value: object) -> str:
    """How encoding/json names a JSON value's kind in an UnmarshalTypeError."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float | RawNumber):
        return "number"
    return "object" if isinstance(value, dict) else "array" if isinstance(value, list) else "string"


def _as_float64(value: object) -> float | None:
    """A JSON number as Go's ``json.Unmarshal`` into float64 reads it (None: not a number, or
    out of float64's range, which Go refuses)."""
    if isinstance(value, bool) or not isinstance(value, int | float | RawNumber):
        return None
    try:
        number = float(value)
    except (OverflowError, ValueError):
        return None
    return number if math.isfinite(number) else None


def csv_release(bundle: BundleDir, release: OpmRelease | None) -> str:
    """``Bundle.Release()``: the CSV's ``spec.release`` as the release reads it ("" before
    v1.62). ValidationError where that release fails the render."""
    if release is None or not release.has("render-package-release"):
        return ""
    value = manifests.spec(bundle.csv).get("release")
    if value is None:
        return ""
    if isinstance(value, str) and not isinstance(value, RawNumber):
        return value
    number = _as_float64(value)
    if release.has("render-numeric-release"):
        if number is not None:
            if number == int(number) and -(2**63) <= number < 2**63:
                return str(int(number))
            return format_g(number)
        problem = "release field must be a string or number"
    else:
        problem = f"json: cannot unmarshal {_go_kind(value)} into Go value of type string"
    raise ValidationError(f"{bundle.csv_file}: spec.release: {problem} (opm {release} refuses it)")


def package_version(bundle: BundleDir, release: OpmRelease | None) -> tuple[str, str]:
    """(version, release) of the package property the parser derives from the CSV."""
    version = bundle.spec_string("version")
    found = csv_release(bundle, release)
    if (
        not found
        and release is not None
        and release.has("render-release-from-build-metadata")
        and bundle.substitutes_for
    ):
        version, plus, found = version.partition("+")
        if not plus:
            raise ValidationError(
                f"{bundle.csv_file}: bundle {bundle.name!r}: no release version expressed as "
                f"build metadata: {bundle.spec_string('version')!r} (opm {release} reads the "
                f"release of a CSV with {SUBSTITUTES_FOR_ANNOTATION} from its version's "
                "+build metadata)"
            )
    return version, found


def _bundle_properties(
    bundle: BundleDir, notify: NoticeSink, release: OpmRelease | None = None
) -> list[tuple[RawProperty, str]]:
    """``bundle.Properties`` as opm's parser leaves them, each with the file it came from."""
    derived: list[tuple[RawProperty, str]] = []
    if bundle.package:
        package = prop.package(bundle.package, *package_version(bundle, release))
        derived.append((RawProperty(prop.TYPE_PACKAGE, package.value), str(bundle.path)))
    derived += [(p, str(bundle.csv_file)) for p in _csv_properties(bundle, notify)]
    provided = _crd_apis(bundle.objects) | manifests.provided_apis([], bundle.csv)
    derived += [
        (RawProperty(prop.TYPE_GVK, prop.gvk(g.group, g.version, g.kind).value), str(bundle.path))
        for g in sorted(provided)
    ]
    from_file = str(bundle.metadata.properties_file or bundle.path)
    listed = [(p, from_file) for p in bundle.metadata.properties] + derived
    # propertySet: de-duplicated on (type, raw value), the first kept.
    out: dict[RawProperty, str] = {}
    for p, where in listed:
        out.setdefault(p, where)
    return list(out.items())


def _package_property(raw: str, what: str, release: OpmRelease | None) -> Property:
    """An ``olm.package`` property decoded into ``property.Package`` and built again: from
    v1.62 that struct has a ``release`` field, before it the field is dropped."""
    if release is not None and release.has("render-package-release"):
        name, version, found = _json_fields(raw, ("packageName", "version", "release"), what)
        return prop.package(name, version, found)
    name, version = _json_fields(raw, ("packageName", "version"), what)
    return prop.package(name, version)


def template_version(bundle: BundleDir, release: OpmRelease | None = None) -> str:
    """The version opm's image template sees: that of the first ``olm.package`` property."""
    for p, where in _bundle_properties(bundle, discard, release):
        if p.type == prop.TYPE_PACKAGE:
            return _json_fields(p.raw, ("packageName", "version"), f"{where}: olm.package")[1]
    return ""


def image_reference(bundle: BundleDir, template: str, release: OpmRelease | None = None) -> str:
    """``template`` with {package}, {name} (CSV name), {version} and {dir} filled in."""
    check_template(template)
    values = {"package": bundle.package, "name": bundle.name, "dir": bundle.path.name}
    if "{version}" in template:
        values["version"] = template_version(bundle, release)
    return _TEMPLATE_FIELD.sub(lambda m: values[m.group(1)], template)


# -- rendering ----------------------------------------------------------------------------------


def _crd_apis(objects: tuple[manifests.Manifest, ...]) -> set[prop.GVK]:
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


def _operator_images(csv: manifests.Manifest) -> list[str]:
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


def _gvk_args(gvk: prop.GVK) -> tuple[str, str, str]:
    return gvk.group, gvk.version, gvk.kind


def object_properties(bundle: BundleDir, image: str, release: OpmRelease | None) -> list[Property]:
    """The bundle's manifests as properties, as ``ObjectsAndPropertiesFromBundle`` makes them:
    an ``olm.bundle.object`` per manifest in file-name order, or, from v1.28 to v1.45 for a
    bundle with an image, one ``olm.csv.metadata`` made from the CSV
    (:func:`olmcat.model.csvmetadata.rendered_manifests`, shared with every other command)."""
    objects = [prop.bundle_object(marshal_object(obj).encode()) for obj in bundle.objects]
    if release is None:
        return objects
    from olmcat.model.csvmetadata import rendered_manifests

    return rendered_manifests(objects, release, image)


def order_properties(
    keyed: list[tuple[str, str, Property]],
    objects: list[Property],
    release: OpmRelease | None,
) -> list[Property]:
    """All properties in opm's order. ``keyed`` holds (type, raw value text, property) of every
    property but the manifests: they are sorted by (type, raw text).

    Up to v1.27 (``renderBundleObjects``) an ``olm.bundle.object`` from properties.yaml is
    dropped, an ``olm.csv.metadata`` keeps its sorted place and the manifests follow in
    file-name order. From v1.28 (``moveBundleObjectsToEndOfPropertySlices``) the manifests are
    sorted with everything else by value text, then both object types move to the end.
    """
    if release is not None and release.has("render-objects-sorted"):
        keyed = keyed + [(p.type, p.value, p) for p in objects]
        keyed.sort(key=lambda item: (item[0], item[1]))
        ordered = [item[2] for item in keyed]
        return [p for p in ordered if p.type not in prop.OBJECT_TYPES] + [
            p for p in ordered if p.type in prop.OBJECT_TYPES
        ]
    keyed = sorted(keyed, key=lambda item: (item[0], item[1]))
    if release is None:  # as an index build stores the bundle (objects last, in file order)
        ordered = [item[2] for item in keyed] + objects
        return [p for p in ordered if p.type not in prop.OBJECT_TYPES] + [
            p for p in ordered if p.type in prop.OBJECT_TYPES
        ]
    kept = [item[2] for item in keyed if item[0] != prop.TYPE_BUNDLE_OBJECT]
    return kept + objects


def _sort_related(related: list[RelatedImage], release: OpmRelease | None) -> None:
    old_go = release is not None and not release.has("encoding-go122-json")
    sort_slice(related, lambda x, y: x.image < y.image, shifts=GO119_SHIFTS if old_go else None)


def render(
    bundle: BundleDir,
    image: str = "",
    *,
    notify: NoticeSink = discard,
    release: OpmRelease | None = None,
) -> Bundle:
    """The ``olm.bundle`` opm renders for a parsed bundle directory with this image reference
    (ValidationError where opm refuses the bundle).

    ``release`` is the opm release whose ``opm render`` to reproduce (``olmcat render``, the
    bundle images of templates); ``None`` renders the bundle as an index build (``opm registry
    add``) stores it, whatever release later migrates the index: manifests in file-name order,
    Go 1.22's sort, no ``olm.package`` release (``migrate pkgman``, bundle trees, ``add``).
    """
    provided: set[prop.GVK] = set()
    required: set[prop.GVK] = set()
    package: Property | None = None
    others: list[tuple[RawProperty, str]] = []
    for p, where in _bundle_properties(bundle, notify, release):
        what = f"{where}: property {p.type}"
        if not p.type:
            _note_untyped(bundle, "property", where, notify)
        if p.type == prop.TYPE_GVK:
            provided.add(prop.GVK(*_gvk_fields(p.raw, what)))
        elif p.type == prop.TYPE_PACKAGE:
            package = _package_property(p.raw, what, release)  # the last one wins
        else:
            others.append((p, where))
    package_required: list[Property] = []
    dependencies_file = str(bundle.metadata.dependencies_file or bundle.path)
    for dep in bundle.metadata.dependencies:
        what = f"{dependencies_file}: dependency {dep.type}"
        if not dep.type:
            _note_untyped(bundle, "dependency", dependencies_file, notify)
        if dep.type == prop.TYPE_GVK:
            required.add(prop.GVK(*_gvk_fields(dep.raw, what)))
        elif dep.type == prop.TYPE_PACKAGE:
            name, version_range = _json_fields(dep.raw, ("packageName", "version"), what)
            package_required.append(prop.package_required(name, version_range))
        else:
            others.append((dep, dependencies_file))
    required |= manifests.required_apis(bundle.csv)
    if package is None:
        package = prop.package(bundle.package, *package_version(bundle, release))

    # (type, raw value, property): opm sorts on the raw text; only the output is compacted.
    keyed = [(p.type, p.value, p) for p in (package, *package_required)]
    keyed += [(prop.TYPE_GVK, p.value, p) for p in (prop.gvk(*_gvk_args(g)) for g in provided)]
    keyed += [
        (prop.TYPE_GVK_REQUIRED, p.value, p)
        for p in (prop.gvk_required(*_gvk_args(g)) for g in required)
    ]
    for other, where in others:
        # A missing value is a nil RawMessage, which Go writes as null.
        value = compact(other.raw, what=f"{where}: property {other.type}") if other.raw else "null"
        keyed.append((other.type, other.raw, Property(other.type, value)))
    objects = object_properties(bundle, image, release)
    if release is not None and release.has("render-csv-metadata-by-default") and image:
        from olmcat.model.csvmetadata import csv_metadata_default_notice

        notify(csv_metadata_default_notice(bundle.package, bundle.name, release))
    ordered = order_properties(keyed, objects, release)

    related = [RelatedImage(n, i) for n, i in manifests.csv_related_images(bundle.csv)]
    seen = {ri.image for ri in related}
    if image and image not in seen:
        related.append(RelatedImage("", image))
    for operator_image in dict.fromkeys(_operator_images(bundle.csv)):
        if operator_image not in seen:
            related.append(RelatedImage("", operator_image))
        seen.add(operator_image)
    _sort_related(related, release)
    return Bundle(
        name=bundle.name,
        package=bundle.package,
        image=image,
        properties=tuple(ordered),
        related_images=tuple(related),
    )


def _note_untyped(bundle: BundleDir, what: str, where: str, notify: NoticeSink) -> None:
    """opm's bundle parser defaults a missing ``type`` to "" and renders the property so (Go's
    zero value; ``opm validate`` accepts it): olmcat does the same, and says so."""
    notify(
        Notice(
            CODE_UNTYPED_PROPERTY,
            f'{where}: bundle {bundle.name}: a {what} has no type; kept with type "", as opm '
            "keeps it (no client reads a property without a type: give it one)",
            package=bundle.package,
            bundle=bundle.name,
            file=where,
        )
    )


def _gvk_fields(raw: str, what: str) -> tuple[str, str, str]:
    group, kind, version = _json_fields(raw, ("group", "kind", "version"), what)
    return group, kind, version


def render_bundle_dir(
    path: Path,
    *,
    image: str | None = None,
    image_ref_template: str | None = None,
    notify: NoticeSink = discard,
    release: OpmRelease | None = None,
    cache: RenderCache | Literal["default"] | None = "default",
) -> Bundle:
    """``opm render`` of the bundle image built from the bundle directory ``path``.

    The image reference is ``image``, or ``image_ref_template`` with ``{package}``, ``{name}``
    (CSV name), ``{version}`` (olm.package version) and ``{dir}`` (directory name) filled in;
    without either it is empty. ``release``: as :func:`render`. ``cache``: where a rendering of
    the same files with the same options is taken from (and stored; its notices are sent
    again); default: the one of :func:`olmcat.readers.bundlecache.use_cache`.
    """
    from olmcat.readers.bundlecache import Recorder, current_cache, replay, unchanged

    if image_ref_template is not None:
        check_template(image_ref_template)
    chosen = current_cache() if cache == "default" else cache
    if chosen is None:
        return _render_bundle_dir(path, image, image_ref_template, notify, release)
    parts = [
        "opm render of a bundle directory",
        release.tag if release is not None else "as an index build stores it",
        "no image given" if image is None else f"image {image}",
        image_ref_template or "",
        *render_context(),
    ]
    key, stats = chosen.bundle_key(path, path, *parts)
    record = chosen.get(key, str(path)) if key is not None else None
    if record is None:
        recorder = Recorder()
        with safe.notices_to(recorder.input):
            try:
                recorder.record.result = _render_bundle_dir(
                    path, image, image_ref_template, recorder.reader, release
                )
            except ValidationError as error:
                recorder.record.error = str(error)
            except InputError:
                replay(recorder.record, notify)  # what it sent before it failed
                raise
        record = recorder.record
        if key is not None and unchanged(stats):
            chosen.put(key, record)
    replay(record, notify)
    if record.error:
        raise ValidationError(record.error)
    return record.result  # type: ignore[no-any-return]


def render_context() -> tuple[str, ...]:
    """What else decides a rendering besides its files and options (ambient encoding rules),
    for the keys of cached renderings."""
    return ()


def _render_bundle_dir(
    path: Path,
    image: str | None,
    image_ref_template: str | None,
    notify: NoticeSink,
    release: OpmRelease | None,
) -> Bundle:
    bundle = load_bundle_dir(path, notify=notify)
    if not bundle.package:
        raise ValidationError(
            f"{bundle.metadata.annotations_file}: no {ANNOTATION_PACKAGE} annotation"
        )
    if image is None:
        image = image_reference(bundle, image_ref_template, release) if image_ref_template else ""
    return render(bundle, image, notify=notify, release=release)


# -- bundle images ------------------------------------------------------------------------------

BUNDLE_LABEL = ANNOTATION_PACKAGE


@dataclass(frozen=True, slots=True)
class _Shown:
    """Rewrites the scratch directory an image was unpacked to into ``IMAGE!`` in messages."""

    scratch: str
    archive: str

    def text(self, message: str) -> str:
        return message.replace(self.scratch, f"{self.archive}!")

    def notice(self, notice: Notice) -> Notice:
        return replace(notice, message=self.text(notice.message), file=self.text(notice.file))


def _archive_image_ref(refs: Sequence[str]) -> str:
    """The reference an archive names its image by, when it is a whole image reference."""
    from olmcat.oci.reference import parse_reference

    for ref in refs:
        if "/" not in ref:
            continue  # a bare tag (an OCI layout's ref.name) names no image
        try:
            parse_reference(ref)
        except InputError:
            continue
        return ref
    return ""


def _require_bundle_label(labels: dict[str, str], what: str) -> None:
    if BUNDLE_LABEL not in labels:
        found = ", ".join(sorted(labels)) or "none"
        raise InputError(f"{what}: not a bundle image (no {BUNDLE_LABEL} label; labels: {found})")


def _render_opened(
    opened: ImageArchive,
    what: str,
    image: str,
    notify: NoticeSink,
    release: OpmRelease | None,
) -> Bundle:
    """Unpack ``/manifests`` and ``/metadata`` of an opened bundle image (layers applied in
    order, whiteouts honoured, links resolved inside the image) and render them."""
    scratch = safe.scratch_dir("bundle")  # olmcat-bundle-<pid>-*: a killed run's is swept
    shown = _Shown(str(scratch), what)
    try:
        opened.extract_directories((MANIFESTS_DIR, METADATA_DIR), scratch)  # layers read once
        if not is_bundle_dir(scratch):
            raise InputError(f"{what}: the image has no /{MANIFESTS_DIR} or /{METADATA_DIR}")
        return render_bundle_dir(
            scratch, image=image, notify=lambda n: notify(shown.notice(n)), release=release
        )
    except OlmcatError as error:
        raise type(error)(shown.text(str(error))) from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def render_bundle_image(
    archive: Path,
    *,
    image: str | None = None,
    platform: str | None = None,
    ref: str | None = None,
    notify: NoticeSink = discard,
    release: OpmRelease | None = None,
) -> Bundle:
    """``opm render`` of a bundle image saved to disk (OCI layout directory, oci-archive or
    docker-archive). ``image`` is the reference to record (default: the archive's own, when it
    names a whole reference; else empty, with a Notice); ``ref``/``platform`` choose among
    several images in the archive. ``release``: as :func:`render`."""
    from olmcat.oci.archive import open_image

    with open_image(archive, platform=platform, ref=ref) as opened:
        _require_bundle_label(opened.labels, str(archive))
        if image is None:
            image = _archive_image_ref(opened.refs)
            if not image:
                notify(
                    Notice(
                        CODE_NO_IMAGE,
                        f"{archive}: the archive names no image reference; the bundle's image is "
                        "left empty (pass --image)",
                        severity="info",
                        file=str(archive),
                    )
                )
        return _render_opened(opened, str(archive), image, notify, release)


def render_registry_image(
    reference: str,
    *,
    image: str | None = None,
    platform: str | None = None,
    options: RegistryOptions | None = None,
    notify: NoticeSink = discard,
    release: OpmRelease | None = None,
) -> Bundle:
    """``opm render REFERENCE`` of a bundle image in a registry: ``docker://HOST/REPO:TAG`` or a
    plain ``HOST/REPO[:TAG|@DIGEST]``. Layers come through the blob cache; credentials, TLS and
    plain HTTP follow ``options`` (default: the command's registry options). The image is
    recorded as written (without ``docker://``), as opm records the reference it was given;
    ``image`` overrides it."""
    from olmcat.oci.archive import open_image
    from olmcat.oci.pull import pulled_layout
    from olmcat.oci.transport import DOCKER_PREFIX, registry_reference

    written = reference.removeprefix(DOCKER_PREFIX)
    parsed = registry_reference(written)
    with (
        pulled_layout(
            parsed,
            platform=platform,
            options=options,
            check=lambda pulled: _require_bundle_label(pulled.labels, written),
        ) as layout,
        open_image(layout) as opened,
    ):
        shown = _Shown(str(layout), written)
        try:
            return _render_opened(
                opened, written, written if image is None else image, notify, release
            )
        except OlmcatError as error:
            raise type(error)(shown.text(str(error)).replace(f"{written}!", written)) from None


def render_source(
    source: str | Path,
    *,
    image: str | None = None,
    image_ref_template: str | None = None,
    platform: str | None = None,
    notify: NoticeSink = discard,
    release: OpmRelease | None = None,
) -> Bundle:
    """Render one source as ``opm render`` renders it: a bundle directory, a bundle image saved
    to disk (a path, or ``oci:DIR[:REF]``, ``oci-archive:FILE[:REF]``,
    ``docker-archive:FILE[:REF]``) or a bundle image in a registry (``docker://HOST/REPO:TAG``
    or a plain ``HOST/REPO:TAG`` that names no file)."""
    from olmcat.oci.archive import is_image_archive
    from olmcat.oci.transport import parse_location

    text = str(source)
    location = parse_location(text)
    if location is not None and location.is_registry:
        return render_registry_image(
            text, image=image, platform=platform, notify=notify, release=release
        )
    if location is not None:
        assert location.path is not None
        if not location.path.exists():
            raise InputError(f"{text}: {location.path} does not exist")
        return render_bundle_image(
            location.path,
            image=image,
            platform=platform,
            ref=location.ref,
            notify=notify,
            release=release,
        )
    path = Path(text)
    if not path.exists():
        raise InputError(
            f"{text}: no such file or directory (a bundle image in a registry is written "
            "HOST/REPO:TAG or docker://HOST/REPO:TAG)"
        )
    if path.is_dir() and is_bundle_dir(path):
        return render_bundle_dir(
            path,
            image=image,
            image_ref_template=image_ref_template,
            notify=notify,
            release=release,
        )
    if is_image_archive(path):
        return render_bundle_image(
            path, image=image, platform=platform, notify=notify, release=release
        )
    raise InputError(
        f"{text}: neither a bundle directory (manifests/ + metadata/) nor a bundle "
        "image archive (OCI layout, oci-archive, docker-archive)"
    )


def render_bundles(
    sources: Iterable[str | Path],
    *,
    image: str | None = None,
    image_ref_template: str | None = None,
    platform: str | None = None,
    notify: NoticeSink = discard,
    release: OpmRelease | str = NEWEST,
    migrate_level: MigrateLevel = "none",
) -> list[Bundle]:
    """``opm render SOURCE...`` of bundles as the opm ``release`` (or its text, ``"1.46"``) does
    (default: the newest):
    bundle directories, bundle images saved to disk and bundle images in registries (see
    :func:`render_source`), in the order ``opm render`` writes them (by package, then by name
    with Go's sort), with ``--migrate-level`` applied (from v1.46.0; before, a
    :class:`~olmcat.errors.UsageError`) by :func:`olmcat.model.csvmetadata.as_rendered_by`, as
    every other command applies it. Blob texts are made as that release's Go writes them: write
    the bundles inside :func:`olmcat.go.json.before_go_122` too when the release predates Go
    1.22 (``olmcat render`` does)."""
    from olmcat.go.json import before_go_122
    from olmcat.model.csvmetadata import as_rendered_by
    from olmcat.readers.renderjobs import render_sources

    release = as_release(release)
    if image_ref_template is not None:
        check_template(image_ref_template)
    check_migrate_level(migrate_level, release)
    with before_go_122(not release.has("encoding-go122-json")):
        # Several sources are rendered in worker processes, in source order.
        bundles = render_sources(
            render_source,
            list(sources),
            image=image,
            image_ref_template=image_ref_template,
            platform=platform,
            notify=notify,
            release=release,
        )
        by_package: dict[str, list[Bundle]] = {}
        for bundle in bundles:
            by_package.setdefault(bundle.package, []).append(bundle)
        out: list[Bundle] = []
        for package in sorted(by_package):
            group = by_package[package]
            sort_slice(group, lambda x, y: x.name < y.name)
            out += (
                as_rendered_by(b, release, migrate_level, notify, form="release") for b in group
            )
    return out
