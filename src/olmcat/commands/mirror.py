"""``olmcat mirror``: plan the mirroring of a catalog's images for a disconnected cluster."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import run
from olmcat.commands._notices import NoticeReport, print_notice
from olmcat.commands._options import examples, platform_option, quiet_option, report_option
from olmcat.commands._progress import warn
from olmcat.commands._registry import registry_options
from olmcat.commands._streams import is_stdio, no_stdout
from olmcat.mirror.naming import MAX_POLICY_SIZE


@click.group()
def mirror() -> None:
    """Mirror a catalog into a registry of a disconnected cluster."""


@examples(
    "olmcat mirror plan index.db mirror.example.com:5000/olm manifests/",
    "olmcat mirror plan filtered/ mirror.example.com/olm out/ --index-image quay.io/acme/index:v1",
    "olmcat mirror plan new.db registry.local/olm out/ --already-mirrored old.db",
)
@mirror.command("plan")
@click.argument("catalog")
@click.argument("dest")
@click.argument("out_dir", metavar="OUT_DIR", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--index-image",
    metavar="REF",
    help="The catalog image as published (oc's index argument): it is mirrored too, "
    "catalogSource.yaml points at its mirror, and the policies are named after its repository.",
)
@click.option(
    "--max-components",
    type=click.IntRange(min=0),
    default=2,
    show_default=True,
    help="Path components kept under DEST; the rest are joined with '-' (0: no limit). "
    "Ignored for file:// destinations, as oc does.",
)
@click.option(
    "--icsp-scope",
    type=click.Choice(["repository", "registry"]),
    default="repository",
    show_default=True,
    help="Mirror whole repositories or whole registries in the ICSP/IDMS/ITMS.",
)
@click.option(
    "--max-icsp-size",
    type=click.IntRange(1, MAX_POLICY_SIZE),
    default=MAX_POLICY_SIZE,
    show_default=True,
    help="Bytes per policy object; more entries are split into NAME-0, NAME-1, ...",
)
@click.option(
    "--name",
    help="Base name of the policy objects (default: the index image's repository name, or the "
    "catalog's file name).",
)
@click.option(
    "--already-mirrored",
    metavar="CATALOG",
    help="Leave out images that this (older) catalog also references: they are mirrored already.",
)
@click.option(
    "--image-set-config",
    "image_set_config",
    metavar="FILE",
    help="Plan only the bundles oc-mirror v2 selects for this ImageSetConfiguration; the index "
    "image defaults to its catalog (with targetCatalog/targetTag).",
)
@click.option(
    "--isc-catalog",
    metavar="REF",
    help="The mirror.operators[] entry to use, when the ImageSetConfiguration lists several.",
)
@click.option("--display-name", help="spec.displayName of the CatalogSource.")
@click.option("--publisher", help="spec.publisher of the CatalogSource.")
@platform_option
@cache_options
@registry_options()
@report_option
@quiet_option
@click.pass_context
def plan_command(
    ctx: click.Context,
    catalog: str,
    dest: str,
    out_dir: Path,
    index_image: str | None,
    max_components: int,
    icsp_scope: str,
    max_icsp_size: int,
    name: str | None,
    already_mirrored: str | None,
    image_set_config: str | None,
    isc_catalog: str | None,
    display_name: str | None,
    publisher: str | None,
    platform: str | None,
    report: Path | None,
    quiet: bool,
) -> None:
    """Write what `oc adm catalog mirror --manifests-only` writes for CATALOG into OUT_DIR.

    CATALOG is any catalog reference (FBC, SQLite DB, package-manifest tree, image archive);
    DEST is `registry[:port][/namespace...]` or `file://path`. OUT_DIR (absent or empty, written
    atomically) receives mapping.txt (for `oc image mirror -f`), imageContentSourcePolicy.yaml,
    imageDigestMirrorSet.yaml, imageTagMirrorSet.yaml and, with --index-image, catalogSource.yaml
    and clusterCatalog.yaml (OLM v1).
    Names follow oc's rules; every file is sorted, so repeated runs give identical bytes. Policy
    files without entries are not written; for file:// only mapping.txt is.
    """
    from olmcat.mirror.plan import PlanOptions, plan_catalog

    if is_stdio(out_dir):
        raise no_stdout("OUT_DIR")
    if max_components == 1:
        raise click.BadParameter(
            "must be 0 (no limit) or at least 2", param_hint="--max-components"
        )

    if isc_catalog is not None and image_set_config is None:
        raise click.UsageError("--isc-catalog needs --image-set-config")

    notices = NoticeReport()

    def action() -> None:
        image_set = None
        if image_set_config is not None:
            from olmcat.mirror.isc import choose_operator, load_image_set_config

            image_set = choose_operator(load_image_set_config(image_set_config), isc_catalog)
        result = plan_catalog(
            catalog,
            dest,
            out_dir,
            PlanOptions(
                max_components=max_components,
                scope=icsp_scope,  # type: ignore[arg-type]
                index_image=index_image,
                name=name,
                max_policy_size=max_icsp_size,
                display_name=display_name,
                publisher=publisher,
            ),
            already_mirrored=already_mirrored,
            notify=notices,
            platform=platform,
            image_set=image_set,
        )
        if not quiet:
            click.echo(
                f"planned {result.images} images ({result.mappings} mappings) to {dest}: "
                f"wrote {', '.join(result.files)} to {out_dir} in {result.seconds:.2f} s",
                err=True,
            )
            if result.skipped:
                warn(f"{', '.join(result.skipped)} not written: it needs --index-image")

    try:
        run(ctx, action)
    finally:
        notices.write(report, command="mirror plan", inputs=[catalog])


class _Watcher:
    """A byte/image progress bar on a terminal; elsewhere one stderr line per finished image."""

    def __init__(self, quiet: bool) -> None:
        self._quiet = quiet
        self._bar: Any = None

    def start(self, images: int) -> None:
        if self._quiet or not sys.stderr.isatty():
            return
        from tqdm import tqdm

        self._bar = tqdm(desc="copying", unit="B", unit_scale=True, file=sys.stderr)
        self._bar.set_postfix_str(f"images 0/{images}")

    def transferred(self, count: int) -> None:
        if self._bar is not None:
            self._bar.update(count)

    def finished(self, image: Any, done: int, total: int) -> None:
        if self._bar is not None:
            self._bar.set_postfix_str(f"images {done}/{total}")
            if done == total:
                self._bar.close()
            return
        if not self._quiet:
            line = f"[{done}/{total}] {image.status} {image.source} -> {image.target}"
            if image.reason:
                line += f": {image.reason}"
            click.echo(line, err=True)


@examples(
    "olmcat mirror copy docker://registry.example.com/olm/index:v4.14 mirror.lab:5000/olm",
    "olmcat mirror plan filtered/ mirror.lab:5000/olm plan/ && "
    "olmcat mirror copy plan/ mirror.lab:5000/olm",
    "olmcat mirror copy filtered/ oci:/media/usb/mirror --catalog-image olm/catalog:v1",
    "olmcat mirror copy --from oci:/media/usb/mirror filtered/ docker://mirror.internal/olm "
    "--catalog-image olm/catalog:v1",
)
@mirror.command("copy")
@click.argument("source", metavar="PLAN|CATALOG")
@click.argument("dest", metavar="DEST")
@click.option(
    "--from",
    "from_layout",
    metavar="oci:DIR",
    help="Read every image from this OCI layout (made by a copy to oci:DIR) instead of the "
    "source registries: the disk-to-registry step of a disconnected install.",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=4,
    show_default=True,
    help="Images copied at the same time.",
)
@click.option("--dry-run", is_flag=True, help="Say what would be copied; copy nothing.")
@click.option(
    "--max-components",
    type=click.IntRange(min=0),
    default=2,
    show_default=True,
    help="As for `mirror plan`: path components kept under DEST (0: no limit).",
)
@click.option(
    "--index-image",
    metavar="REF",
    help="The catalog image as published, copied as is with the rest "
    "(default: CATALOG when it is a registry reference).",
)
@click.option(
    "--catalog-image",
    metavar="REPO[:TAG]",
    help="Also write the catalog as a file-based catalog image (one layer at /configs, "
    "label operators.operatorframework.io.index.configs.v1) and push it to DEST/REPO:TAG "
    "(the layout name for an oci: DEST).",
)
@platform_option
@click.option(
    "--format",
    "format_",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help="The final report on stdout: text, or JSON (schema olmcat.mirror-copy.v1).",
)
@report_option
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="No progress (bar or per-image lines); the final report is still printed.",
)
@cache_options
@registry_options("src")
@registry_options("dest")
@click.pass_context
def copy_command(
    ctx: click.Context,
    source: str,
    dest: str,
    from_layout: str | None,
    workers: int,
    dry_run: bool,
    max_components: int,
    index_image: str | None,
    catalog_image: str | None,
    platform: str | None,
    format_: str,
    report: Path | None,
    quiet: bool,
    src_registry: Any,
    dest_registry: Any,
) -> None:
    """Copy every image of a mirror PLAN or CATALOG to DEST, digests unchanged.

    PLAN is a directory written by `mirror plan` (or its mapping.txt); CATALOG is any catalog
    reference, planned here with `mirror plan`'s names. DEST is a registry (`HOST[:PORT][/NS]`,
    docker:// optional) or oci:DIR, an OCI layout that holds every image for a disconnected site
    (named by source reference); --from oci:DIR copies from such a layout to a registry.

    Manifest lists are copied whole; blobs already at DEST are skipped (HEAD first) and blobs of
    the same registry are mounted, so a second run copies only what is missing. Exit status 1
    when an image failed (the report says why).
    """
    from olmcat.mirror.copy import CopyOptions, mirror_copy

    if max_components == 1:
        raise click.BadParameter(
            "must be 0 (no limit) or at least 2", param_hint="--max-components"
        )
    layout: Path | None = None
    if from_layout is not None:
        if not from_layout.startswith("oci:") or len(from_layout) == 4:
            raise click.BadParameter("must be oci:DIR", param_hint="--from")
        layout = Path(from_layout[4:])
    notices = NoticeReport()
    # Failed images are listed by the final report; print only the readers' notices as they come.
    notices.forward = lambda notice: (
        None if notice.code == "mirror.copy.failed" else print_notice(notice)
    )

    def action() -> Any:
        return mirror_copy(
            source,
            dest,
            CopyOptions(
                workers=workers,
                dry_run=dry_run,
                max_components=max_components,
                index_image=index_image,
                catalog_image=catalog_image,
                platform=platform,
                from_layout=layout,
            ),
            src_registry=src_registry,
            dest_registry=dest_registry,
            watcher=_Watcher(quiet),
            notify=notices,
        )

    result = run(ctx, action)
    document = result.to_json()
    notices.write(report, command="mirror copy", inputs=[source], copy=document)
    if format_ == "json":
        click.echo(json.dumps(document, indent=2))
    else:
        click.echo(result.render_text(), nl=False)
    if not result.ok:
        ctx.exit(1)
