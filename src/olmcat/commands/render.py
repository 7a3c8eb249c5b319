"""``olmcat render``: bundles as ``opm render`` renders them, for any opm release."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import run
from olmcat.commands._notices import NoticeReport
from olmcat.commands._opm import checked_level, migrate_level_option, opm_version_option
from olmcat.commands._options import examples, platform_option, report_option
from olmcat.commands._registry import registry_options
from olmcat.go.opm import OpmRelease

FORMATS = ("json", "yaml")


@examples(
    "olmcat render quay.io/example/etcd-bundle:v0.9.4",
    "olmcat render docker://registry.lab:5000/etcd-bundle:v0.9.4 --authfile auth.json",
    "olmcat render bundles/etcd/0.9.4 --image quay.io/example/etcd-bundle:v0.9.4",
    "olmcat render bundles/etcd/* --image-ref-template 'quay.io/example/{package}-bundle:{dir}'",
    "olmcat render etcd-bundle.oci.tar -o yaml",
    "olmcat render --opm-version 1.46 --migrate-level bundle-object-to-csv-metadata "
    "quay.io/example/etcd-bundle:v0.9.4",
)
@click.command("render")
@click.argument("sources", nargs=-1, required=True)
@click.option(
    "--image",
    metavar="REF",
    help="Image reference to record as the bundle's image (one SOURCE only). Default for a "
    "directory: none; for an archive: the reference it names, if it names a whole one; for a "
    "registry image: the reference as given.",
)
@click.option(
    "--image-ref-template",
    metavar="TEMPLATE",
    help="Image reference of each bundle directory, e.g. 'quay.io/org/{package}-bundle:v{version}' "
    "({package}, {name}, {version}, {dir}).",
)
@click.option(
    "-o",
    "--output",
    type=click.Choice(FORMATS),
    default="json",
    show_default=True,
    help="Format of the olm.bundle blobs on stdout.",
)
@opm_version_option(
    "the order and form of the manifests (olm.csv.metadata by default in v1.28.0-v1.45), the "
    "olm.package release and the related-image order changed between releases."
)
@migrate_level_option
@platform_option
@cache_options
@registry_options()
@report_option
@click.pass_context
def render_command(
    ctx: click.Context,
    sources: tuple[str, ...],
    image: str | None,
    image_ref_template: str | None,
    output: str,
    opm_version: OpmRelease,
    migrate_level: str,
    platform: str | None,
    report: Path | None,
) -> None:
    """Render bundles as `opm render` renders their bundle images.

    Each SOURCE is a bundle image in a registry (HOST/REPO:TAG, HOST/REPO@DIGEST or
    docker://HOST/REPO:TAG, pulled through the image cache with the registry options below), a
    bundle image saved to disk (OCI layout directory, oci-archive or docker-archive, also as
    oci:DIR[:REF], oci-archive:FILE[:REF], docker-archive:FILE[:REF]) or a bundle directory
    (manifests/ + metadata/, rendered as the image built from it). Writes one olm.bundle blob
    per bundle to stdout, by package and then by name, byte-identical to `opm render` of the
    same images by the opm release --opm-version names. A bundle whose replaces target is absent
    renders (no graph is built); what opm refuses to render is refused.
    """
    from olmcat.go.json import before_go_122
    from olmcat.readers.bundlerender import render_bundles
    from olmcat.writers.fbc import RENDERERS, bundle_json

    if image is not None and len(sources) > 1:
        raise click.UsageError("--image names one bundle's image: give one SOURCE")
    if image is not None and image_ref_template is not None:
        raise click.UsageError("--image and --image-ref-template exclude each other")
    release = opm_version
    level = checked_level(migrate_level, release)
    notices = NoticeReport()
    extra: dict[str, Any] = {"ok": False}
    try:
        bundles = run(
            ctx,
            lambda: render_bundles(
                sources,
                image=image,
                image_ref_template=image_ref_template,
                platform=platform,
                notify=notices,
                release=release,
                migrate_level=level,
            ),
        )
        render = RENDERERS[output]  # type: ignore[index]
        # Names and images are escaped as the release's Go escapes them, as the blobs were.
        with before_go_122(not release.has("encoding-go122-json")):
            for chunk in render(bundle_json(b) for b in bundles):
                sys.stdout.write(chunk)
        extra = {"ok": True, "written": {"bundles": len(bundles)}, "opm": release.tag}
    finally:  # the report is written even when the run fails
        notices.write(report, command="render", inputs=list(sources), **extra)
