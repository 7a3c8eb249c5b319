"""``olmcat render``: bundles as ``opm render`` renders bundle images."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from olmcat.commands._errors import run
from olmcat.commands._notices import NoticeReport
from olmcat.commands._options import examples, report_option

FORMATS = ("json", "yaml")


@examples(
    "olmcat render bundles/etcd/0.9.4 --image quay.io/example/etcd-bundle:v0.9.4",
    "olmcat render bundles/etcd/* --image-ref-template 'quay.io/example/{package}-bundle:{dir}'",
    "olmcat render etcd-bundle.oci.tar -o yaml",
)
@click.command("render")
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--image",
    metavar="REF",
    help="Image reference to record as the bundle's image (one SOURCE only). Default for a "
    "directory: none; for an archive: the reference it names, if it names a whole one.",
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
@report_option
@click.pass_context
def render_command(
    ctx: click.Context,
    sources: tuple[Path, ...],
    image: str | None,
    image_ref_template: str | None,
    output: str,
    report: Path | None,
) -> None:
    """Render bundles as `opm render` renders the bundle image built from them.

    Each SOURCE is a bundle directory (manifests/ + metadata/) or a bundle image saved to disk
    (OCI layout directory, oci-archive, docker-archive). Writes one olm.bundle blob per bundle to
    stdout, by package and then by name, byte-identical to `opm render <image>`. A bundle whose
    replaces target is absent renders (no graph is built); what opm refuses to render is refused.
    """
    from olmcat.readers.bundlerender import render_bundles
    from olmcat.writers.fbc import RENDERERS, bundle_json

    if image is not None and len(sources) > 1:
        raise click.UsageError("--image names one bundle's image: give one SOURCE")
    if image is not None and image_ref_template is not None:
        raise click.UsageError("--image and --image-ref-template exclude each other")
    notices = NoticeReport()
    extra: dict[str, Any] = {"ok": False}
    try:
        bundles = run(
            ctx,
            lambda: render_bundles(
                sources, image=image, image_ref_template=image_ref_template, notify=notices
            ),
        )
        render = RENDERERS[output]  # type: ignore[index]
        for chunk in render(bundle_json(b) for b in bundles):
            sys.stdout.write(chunk)
        extra = {"ok": True, "written": {"bundles": len(bundles)}}
    finally:  # the report is written even when the run fails
        notices.write(report, command="render", inputs=[str(s) for s in sources], **extra)
