"""``mirror plan``: the files ``oc adm catalog mirror --manifests-only`` writes, for any catalog.

Glue between a catalog and :mod:`olmcat.mirror.naming` (which holds oc's naming rules). The
images are those :mod:`olmcat.mirror.images` lists (bundle images and related images); the plan
is a pure function of their set, the destination and the options, so two runs write the same bytes.

Files written (only those with content; a policy kind with no entries is left out rather than
written empty, because ``oc apply`` refuses a file without objects):

* ``mapping.txt`` -- ``source=target`` lines for ``oc image mirror -f``, sorted;
* ``imageContentSourcePolicy.yaml`` / ``imageDigestMirrorSet.yaml`` -- digest sources;
* ``imageTagMirrorSet.yaml`` -- tag sources (oc writes none; without it those pulls would not be
  redirected);
* ``catalogSource.yaml`` -- only with an index image: it points at the index image's mirror;
* ``clusterCatalog.yaml`` -- beside it, the OLM v1 ClusterCatalog serving the same mirrored image
  (named and shaped as oc-mirror v2 writes it, :func:`olmcat.mirror.isc.render_cluster_catalog`).

With an ImageSetConfiguration entry (``image_set``) only the bundles oc-mirror v2 would select are
planned, and the index image defaults to the entry's catalog (with ``targetCatalog`` /
``targetTag``), where the filtered catalog is to be published.

For a ``file://`` destination only ``mapping.txt`` is written (as oc does): the policies belong
to the second hop, from the file tree to a registry.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from olmcat.errors import InputError
from olmcat.mirror.isc import IscOperator, render_cluster_catalog, target_reference
from olmcat.mirror.naming import (
    MAX_POLICY_SIZE,
    Scope,
    catalog_name,
    join_documents,
    parse_destination,
    plan_index_mapping,
    plan_mappings,
    render_catalog_source,
    render_icsp,
    render_idms,
    render_itms,
    render_mapping_txt,
)
from olmcat.notices import NoticeSink, discard

__all__ = [
    "CATALOG_SOURCE_FILE",
    "CLUSTER_CATALOG_FILE",
    "ICSP_FILE",
    "IDMS_FILE",
    "ITMS_FILE",
    "MAPPING_FILE",
    "PlanOptions",
    "PlanResult",
    "default_name",
    "plan_catalog",
    "render_plan",
    "write_plan",
]

MAPPING_FILE = "mapping.txt"
ICSP_FILE = "imageContentSourcePolicy.yaml"
IDMS_FILE = "imageDigestMirrorSet.yaml"
ITMS_FILE = "imageTagMirrorSet.yaml"
CATALOG_SOURCE_FILE = "catalogSource.yaml"
CLUSTER_CATALOG_FILE = "clusterCatalog.yaml"


# Suffixes stripped from a catalog's file name when it has to name the policies.
_ARCHIVE_SUFFIXES = (".tar", ".tgz", ".gz", ".xz", ".bz2", ".oci", ".db", ".sqlite", ".sqlite3")
_NOT_DNS_LABEL = re.compile(r"[^a-z0-9-]+")
# Kubernetes object names (RFC 1123 subdomains), leaving room for the "-<n>" oc appends.
_OBJECT_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_MAX_NAME = 240


@dataclass(frozen=True, slots=True)
class PlanOptions:
    """oc's flags: ``--max-components``, ``--icsp-scope``, ``--max-icsp-size``; the index image.

    ``index_image`` is the catalog image as it is published (oc's first argument): it is mirrored
    with the rest, the CatalogSource points at its mirror, and the policies are named after its
    repository. ``name`` overrides the policies' base name (``<name>-0``, ``<name>-1``, ...).
    """

    max_components: int = 2
    scope: Scope = "repository"
    index_image: str | None = None
    name: str | None = None
    max_policy_size: int = MAX_POLICY_SIZE
    display_name: str | None = None
    publisher: str | None = None


@dataclass(slots=True)
class PlanResult:
    files: dict[str, str]
    images: int
    mappings: int
    seconds: float = 0.0
    skipped: list[str] = field(default_factory=list)


def default_name(reference: str) -> str:
    """A policy name from a catalog's path when no index image names it: ``test-index-v1``."""
    base = Path(reference.rstrip("/")).name.lower() or "catalog"
    while True:
        stem = next((base[: -len(s)] for s in _ARCHIVE_SUFFIXES if base.endswith(s)), None)
        if not stem:
            break
        base = stem
    name = _NOT_DNS_LABEL.sub("-", base).strip("-")[:63].strip("-")
    return name or "catalog"


def render_plan(images: Iterable[str], dest: str, options: PlanOptions) -> dict[str, str]:
    """File name -> content of every non-empty plan file, in file-name order."""
    destination = parse_destination(dest)
    if destination.is_file and options.index_image is None:
        raise InputError(
            f"destination {dest}: a file:// destination needs --index-image, because oc nests "
            "every image under the index image's path"
        )
    mappings = plan_mappings(
        images, dest, max_components=options.max_components, index=options.index_image
    )
    files = {MAPPING_FILE: render_mapping_txt(mappings)}
    if not destination.is_file:
        if options.name:
            name = options.name
            if not _OBJECT_NAME.fullmatch(name) or len(name) > _MAX_NAME:
                raise InputError(
                    f"--name {name!r} cannot name Kubernetes objects: use lower-case letters, "
                    f"digits, '-' and '.', starting and ending with a letter or digit, at most "
                    f"{_MAX_NAME} characters"
                )
        elif options.index_image:
            name = catalog_name(options.index_image)
        else:
            raise InputError("the mirror policies need a name: give --name or --index-image")
        for filename, render in ((ICSP_FILE, render_icsp), (IDMS_FILE, render_idms)):
            files[filename] = join_documents(
                render(mappings, name=name, scope=options.scope, max_size=options.max_policy_size)
            )
        files[ITMS_FILE] = join_documents(
            render_itms(mappings, name=name, scope=options.scope, max_size=options.max_policy_size)
        )
        if options.index_image is not None:
            index = plan_index_mapping(
                options.index_image, dest, max_components=options.max_components
            )
            files[CATALOG_SOURCE_FILE] = render_catalog_source(
                name=catalog_name(options.index_image),
                image=index.target_pull_spec,
                display_name=options.display_name,
                publisher=options.publisher,
            )
            files[CLUSTER_CATALOG_FILE] = render_cluster_catalog(index.target_pull_spec)
    return {filename: files[filename] for filename in sorted(files) if files[filename]}


def write_plan(files: Mapping[str, str], out_dir: Path) -> None:
    """Write the plan into ``out_dir`` (absent or empty) atomically: all files or none."""
    from olmcat.files.output import open_output
    from olmcat.writers.fbc import staged_directory

    with staged_directory(out_dir) as staging:
        for filename, text in files.items():
            with open_output(staging / filename, "w", newline="") as fh:
                fh.write(text)


def plan_catalog(
    reference: str | Path,
    dest: str,
    out_dir: Path,
    options: PlanOptions,
    *,
    already_mirrored: str | Path | None = None,
    notify: NoticeSink = discard,
    platform: str | None = None,
    image_set: IscOperator | None = None,
) -> PlanResult:
    """Plan the mirror of every image ``reference`` uses (minus those ``already_mirrored``
    uses) to ``dest`` and write the files into ``out_dir``; with ``image_set``, only the images
    of the bundles oc-mirror v2 selects for that ImageSetConfiguration entry."""
    from olmcat.mirror.images import catalog_images
    from olmcat.readers.catalog import open_catalog

    started = time.perf_counter()
    if image_set is not None and options.index_image is None:
        target = target_reference(image_set)
        if not target.startswith("oci://"):
            options = replace(options, index_image=target)
    if options.index_image is None and options.name is None:
        options = replace(options, name=default_name(str(reference)))
    render_plan((), dest, options)  # refuse a bad destination, index or name before reading
    with open_catalog(reference, notify=notify, platform=platform) as catalog:
        if image_set is not None:
            from olmcat.mirror.isc import filter_packages_isc, listed_packages

            only = listed_packages(image_set, catalog.package_names())
            packages = filter_packages_isc(catalog.packages(only), image_set, notify=notify)
            images = {row.image for row in catalog_images(packages)}
        else:
            images = {row.image for row in catalog_images(catalog.packages())}
    if already_mirrored is not None:
        with open_catalog(already_mirrored, notify=notify, platform=platform) as old:
            images -= {row.image for row in catalog_images(old.packages())}
    files = render_plan(images, dest, options)
    write_plan(files, out_dir)
    lines = files.get(MAPPING_FILE, "").count("\n")
    skipped = []
    if options.index_image is None and not parse_destination(dest).is_file:
        skipped.append(CATALOG_SOURCE_FILE)
    return PlanResult(files, len(images), lines, time.perf_counter() - started, skipped)
