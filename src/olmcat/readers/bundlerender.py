"""Render a bundle as ``opm render`` renders the bundle image built from it (``bundleToDeclcfg``).

* properties: ``properties.yaml`` entries, then the package from the annotations (version from the
  CSV), the CSV's ``olm.properties`` annotation and the provided APIs, de-duplicated; ``olm.gvk``
  and ``olm.package`` are rebuilt (the last ``olm.package`` wins); dependencies become
  ``olm.gvk.required`` / ``olm.package.required`` or pass through under their own type
  (``olm.label``, ``olm.constraint``, ...); required APIs of the CSV are added. Everything but the
  objects is sorted by (type, raw value text); the objects follow, in file order. An ``olm.gvk``
  or ``olm.package`` property or dependency without a value is refused, as opm refuses it.
* related images: the CSV's ``relatedImages``, the bundle image, the images of the install
  deployments' containers, each image once, sorted by image with Go's (unstable) sort.

The input is a bundle directory or a bundle image saved to disk (OCI layout, oci-archive or
docker-archive; its ``/manifests`` and ``/metadata`` are read as the directory would be).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from olmcat.errors import InputError, OlmcatError, ValidationError
from olmcat.files import safe
from olmcat.go.json import compact, marshal_object
from olmcat.go.sort import sort_slice
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
    BundleDir,
    RawJSON,
    RawProperty,
    is_bundle_dir,
    load_bundle_dir,
    raw_entries,
    string_fields,
)

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


def _bundle_properties(bundle: BundleDir, notify: NoticeSink) -> list[tuple[RawProperty, str]]:
    """``bundle.Properties`` as opm's parser leaves them, each with the file it came from."""
    version = bundle.spec_string("version")
    derived: list[tuple[RawProperty, str]] = []
    if bundle.package:
        package = prop.package(bundle.package, version)
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


def template_version(bundle: BundleDir) -> str:
    """The version opm's image template sees: that of the first ``olm.package`` property."""
    for p, where in _bundle_properties(bundle, discard):
        if p.type == prop.TYPE_PACKAGE:
            return _json_fields(p.raw, ("packageName", "version"), f"{where}: olm.package")[1]
    return ""


def image_reference(bundle: BundleDir, template: str) -> str:
    """``template`` with {package}, {name} (CSV name), {version} and {dir} filled in."""
    check_template(template)
    values = {"package": bundle.package, "name": bundle.name, "dir": bundle.path.name}
    if "{version}" in template:
        values["version"] = template_version(bundle)
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


def render(bundle: BundleDir, image: str = "", *, notify: NoticeSink = discard) -> Bundle:
    """The ``olm.bundle`` opm renders for a parsed bundle directory with this image reference
    (ValidationError where opm refuses the bundle)."""
    provided: set[prop.GVK] = set()
    required: set[prop.GVK] = set()
    package: Property | None = None
    others: list[tuple[RawProperty, str]] = []
    for p, where in _bundle_properties(bundle, notify):
        what = f"{where}: property {p.type}"
        if not p.type:
            _note_untyped(bundle, "property", where, notify)
        if p.type == prop.TYPE_GVK:
            provided.add(prop.GVK(*_gvk_fields(p.raw, what)))
        elif p.type == prop.TYPE_PACKAGE:
            name, version = _json_fields(p.raw, ("packageName", "version"), what)
            package = prop.package(name, version)  # the last one wins
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
        package = prop.package(bundle.package, bundle.spec_string("version"))

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
) -> Bundle:
    """``opm render`` of the bundle image built from the bundle directory ``path``.

    The image reference is ``image``, or ``image_ref_template`` with ``{package}``, ``{name}``
    (CSV name), ``{version}`` (olm.package version) and ``{dir}`` (directory name) filled in;
    without either it is empty.
    """
    if image_ref_template is not None:
        check_template(image_ref_template)
    bundle = load_bundle_dir(path, notify=notify)
    if not bundle.package:
        raise ValidationError(
            f"{bundle.metadata.annotations_file}: no {ANNOTATION_PACKAGE} annotation"
        )
    if image is None:
        image = image_reference(bundle, image_ref_template) if image_ref_template else ""
    return render(bundle, image, notify=notify)


# -- bundle images saved to disk ----------------------------------------------------------------

BUNDLE_LABEL = ANNOTATION_PACKAGE


@dataclass(frozen=True, slots=True)
class _Shown:
    """Rewrites the scratch directory an image was unpacked to into ``ARCHIVE!`` in messages."""

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


def render_bundle_image(
    archive: Path,
    *,
    image: str | None = None,
    platform: str | None = None,
    ref: str | None = None,
    notify: NoticeSink = discard,
) -> Bundle:
    """``opm render`` of a bundle image saved to disk (OCI layout directory, oci-archive or
    docker-archive). ``image`` is the reference to record (default: the archive's own, when it
    names a whole reference; else empty, with a Notice); ``ref``/``platform`` choose among
    several images in the archive."""
    from olmcat.oci.archive import open_image

    with open_image(archive, platform=platform, ref=ref) as opened:
        if BUNDLE_LABEL not in opened.labels:
            labels = ", ".join(sorted(opened.labels)) or "none"
            raise InputError(
                f"{archive}: not a bundle image (no {BUNDLE_LABEL} label; labels: {labels})"
            )
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
        scratch = safe.scratch_dir("bundle")  # olmcat-bundle-<pid>-*: a killed run's is swept
        shown = _Shown(str(scratch), str(archive))
        try:
            for part in (MANIFESTS_DIR, METADATA_DIR):
                opened.extract_directory(part, scratch / part)
            if not is_bundle_dir(scratch):
                raise InputError(f"{archive}: the image has no /{MANIFESTS_DIR} or /{METADATA_DIR}")
            return render_bundle_dir(scratch, image=image, notify=lambda n: notify(shown.notice(n)))
        except OlmcatError as error:
            raise type(error)(shown.text(str(error))) from None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def render_bundles(
    sources: Iterable[Path],
    *,
    image: str | None = None,
    image_ref_template: str | None = None,
    notify: NoticeSink = discard,
) -> list[Bundle]:
    """Render bundle directories and bundle image archives, in the order ``opm render`` writes
    them (by package, then by name with Go's sort)."""
    from olmcat.oci.archive import is_image_archive

    if image_ref_template is not None:
        check_template(image_ref_template)
    bundles = []
    for source in sources:
        if not source.exists():
            raise InputError(f"{source}: no such file or directory")
        if source.is_dir() and is_bundle_dir(source):
            bundles.append(
                render_bundle_dir(
                    source, image=image, image_ref_template=image_ref_template, notify=notify
                )
            )
        elif is_image_archive(source):
            bundles.append(render_bundle_image(source, image=image, notify=notify))
        else:
            raise InputError(
                f"{source}: neither a bundle directory (manifests/ + metadata/) nor a bundle "
                "image archive (OCI layout, oci-archive, docker-archive)"
            )
    by_package: dict[str, list[Bundle]] = {}
    for bundle in bundles:
        by_package.setdefault(bundle.package, []).append(bundle)
    out = []
    for package in sorted(by_package):
        group = by_package[package]
        sort_slice(group, lambda x, y: x.name < y.name)
        out += group
    return out
