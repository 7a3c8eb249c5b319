"""Facts the legacy loaders derived from a bundle's manifests (CSV and CRDs).

Shared by every reader: the SQLite reader needs them for old schemas whose tables lack a fact, the
directory readers derive everything from them. Manifests are plain parsed JSON/YAML objects.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from olmcat.model.property import GVK

Manifest = dict[str, Any]

CSV_KIND = "ClusterServiceVersion"
CRD_KIND = "CustomResourceDefinition"


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a mapping, else empty: manifests are read as Go reads loose JSON."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def kind(obj: Manifest) -> str:
    return as_str(obj.get("kind"))


def name(obj: Manifest) -> str:
    return as_str(as_dict(obj.get("metadata")).get("name"))


def spec(obj: Manifest | None) -> dict[str, Any]:
    return as_dict((obj or {}).get("spec"))


def metadata_annotations(obj: Manifest | None) -> dict[str, Any]:
    return as_dict(as_dict((obj or {}).get("metadata")).get("annotations"))


def csv_version(csv: Manifest | None) -> str:
    return as_str(spec(csv).get("version"))


def csv_replaces(csv: Manifest | None) -> str:
    return as_str(spec(csv).get("replaces"))


def csv_skips(csv: Manifest | None) -> list[str]:
    return [s for s in as_list(spec(csv).get("skips")) if isinstance(s, str)]


def csv_skip_range(csv: Manifest | None) -> str:
    return as_str(metadata_annotations(csv).get("olm.skipRange"))


def csv_related_images(csv: Manifest | None) -> list[tuple[str, str]]:
    """``spec.relatedImages`` as (name, image); missing fields are empty, as Go decodes them."""
    return [
        (as_str(entry.get("name")), as_str(entry.get("image")))
        for entry in as_list(spec(csv).get("relatedImages"))
        if isinstance(entry, dict)
    ]


def csv_operator_images(csv: Manifest | None) -> list[str]:
    """Images of every container and init container of the CSV's install deployments."""
    install_spec = as_dict(as_dict(spec(csv).get("install")).get("spec"))
    images: list[str] = []
    for deployment in as_list(install_spec.get("deployments")):
        pod = spec(as_dict(spec(as_dict(deployment)).get("template")))
        for key in ("initContainers", "containers"):
            for container in as_list(pod.get(key)):
                image = as_str(as_dict(container).get("image"))
                if image:
                    images.append(image)
    return images


def csv_icon(csv: Manifest | None) -> tuple[str, str] | None:
    """The first icon as (base64data, mediatype), or None."""
    icons = as_list(spec(csv).get("icon"))
    if not icons or not isinstance(icons[0], dict):
        return None
    return as_str(icons[0].get("base64data")), as_str(icons[0].get("mediatype"))


def decode_icon(data: str) -> bytes | None:
    """Decode icon data as opm does: Go's StdEncoding (CR/LF ignored, padding required); on
    failure retry without spaces (the planetscale CSV has spaces in its base64)."""
    for candidate in (data, data.replace(" ", "")):
        cleaned = candidate.replace("\r", "").replace("\n", "")
        try:
            return base64.b64decode(cleaned, validate=True)
        except (binascii.Error, ValueError):
            continue
    return None


def crd_groups(objects: list[Manifest]) -> dict[str, str]:
    """CRD name -> API group of every CRD among ``objects``."""
    groups: dict[str, str] = {}
    for obj in objects:
        group = as_str(spec(obj).get("group"))
        if kind(obj) == CRD_KIND and name(obj) and group:
            groups[name(obj)] = group
    return groups


def provided_apis(objects: list[Manifest], csv: Manifest | None) -> set[GVK]:
    """Every version of every CRD in the bundle, plus the CSV's owned API services."""
    provided: set[GVK] = set()
    for obj in objects:
        if kind(obj) != CRD_KIND:
            continue
        crd_spec = spec(obj)
        group = as_str(crd_spec.get("group"))
        crd_kind = as_str(as_dict(crd_spec.get("names")).get("kind"))
        for version in as_list(crd_spec.get("versions")):
            provided.add(GVK(group, crd_kind, as_str(as_dict(version).get("name"))))
        if as_str(crd_spec.get("version")):
            provided.add(GVK(group, crd_kind, as_str(crd_spec.get("version"))))
    for api in as_list(as_dict(spec(csv).get("apiservicedefinitions")).get("owned")):
        api = as_dict(api)
        provided.add(
            GVK(as_str(api.get("group")), as_str(api.get("kind")), as_str(api.get("version")))
        )
    return provided


def required_apis(csv: Manifest | None) -> set[GVK]:
    """The CSV's required CRDs (group taken from ``<plural>.<group>``) and API services."""
    required: set[GVK] = set()
    for crd in as_list(as_dict(spec(csv).get("customresourcedefinitions")).get("required")):
        crd = as_dict(crd)
        _, _, group = as_str(crd.get("name")).partition(".")
        if group:
            required.add(GVK(group, as_str(crd.get("kind")), as_str(crd.get("version"))))
    for api in as_list(as_dict(spec(csv).get("apiservicedefinitions")).get("required")):
        api = as_dict(api)
        required.add(
            GVK(as_str(api.get("group")), as_str(api.get("kind")), as_str(api.get("version")))
        )
    return required


def owned_crds_missing(objects: list[Manifest], csv: Manifest | None) -> list[str]:
    """Owned CRDs of the CSV that no CRD in the bundle provides (group, version, kind, plural).

    The legacy loader refused such bundles (``AllProvidedAPIsInBundle``).
    """
    provided: set[tuple[str, str, str, str]] = set()
    for obj in objects:
        if kind(obj) != CRD_KIND:
            continue
        crd_spec = spec(obj)
        names = as_dict(crd_spec.get("names"))
        group, crd_kind, plural = (
            as_str(crd_spec.get("group")),
            as_str(names.get("kind")),
            as_str(names.get("plural")),
        )
        versions = [as_str(as_dict(v).get("name")) for v in as_list(crd_spec.get("versions"))]
        versions.append(as_str(crd_spec.get("version")))
        provided |= {(group, v, crd_kind, plural) for v in versions if v}
    missing = []
    for crd in as_list(as_dict(spec(csv).get("customresourcedefinitions")).get("owned")):
        crd = as_dict(crd)
        plural, _, group = as_str(crd.get("name")).partition(".")
        if (group, as_str(crd.get("version")), as_str(crd.get("kind")), plural) not in provided:
            missing.append(f"{crd.get('name')} {crd.get('version')}/{crd.get('kind')}")
    return missing


def operator_images(csv: Manifest | None) -> list[str]:
    """What the legacy loader stored in ``related_image``: relatedImages plus operator images."""
    return [image for _, image in csv_related_images(csv)] + csv_operator_images(csv)
