"""``olmcat mirror``: plan the mirroring of a catalog's images for a disconnected cluster."""

from __future__ import annotations

from pathlib import Path

import click

from olmcat.commands._common import examples, platform_option, print_notice, quiet_option, run, warn
from olmcat.commands._registry import registry_options
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
@registry_options()
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
    quiet: bool,
) -> None:
    """Write what `oc adm catalog mirror --manifests-only` writes for CATALOG into OUT_DIR.

    CATALOG is any catalog reference (FBC, SQLite DB, package-manifest tree, image archive);
    DEST is registry[:port][/namespace...] or file://path. OUT_DIR (absent or empty, written
    atomically) receives mapping.txt (for `oc image mirror -f`), imageContentSourcePolicy.yaml,
    imageDigestMirrorSet.yaml, imageTagMirrorSet.yaml and, with --index-image, catalogSource.yaml
    and clusterCatalog.yaml (OLM v1).
    Names follow oc's rules; every file is sorted, so repeated runs give identical bytes. Policy
    files without entries are not written; for file:// only mapping.txt is.
    """
    from olmcat.mirror.plan import PlanOptions, plan_catalog

    if max_components == 1:
        raise click.BadParameter(
            "must be 0 (no limit) or at least 2", param_hint="--max-components"
        )

    if isc_catalog is not None and image_set_config is None:
        raise click.UsageError("--isc-catalog needs --image-set-config")

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
            notify=print_notice,
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

    run(ctx, action)
