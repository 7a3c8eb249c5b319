"""``olmcat images``: every image a catalog references."""

from __future__ import annotations

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import run
from olmcat.commands._notices import print_notice
from olmcat.commands._options import examples, platform_option
from olmcat.commands._registry import registry_options
from olmcat.commands._streams import stdout_when_complete
from olmcat.mirror.images import FORMATS


@examples(
    "olmcat images index.db",
    "olmcat images --unique index-image.oci.tar > images.txt",
    "olmcat images --format json catalog/ | jq '.[] | select(.kind==\"related\")'",
)
@click.command("images")
@click.argument("catalog")
@click.option(
    "--format",
    "output",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text: tab-separated image, package, bundle, kind, name; json: array of objects; "
    "csv: with a header line.",
)
@click.option(
    "--unique",
    is_flag=True,
    help="Only the distinct image references, sorted (what has to be copied).",
)
@platform_option
@cache_options
@registry_options()
@click.pass_context
def images(
    ctx: click.Context, catalog: str, output: str, unique: bool, platform: str | None
) -> None:
    """List every image CATALOG references: bundle images and related images.

    CATALOG is any catalog reference: an FBC directory or file (- for stdin), an SQLite index
    database, a package-manifest / bundle directory tree, or an index image archive. Each line
    names the image, its package and bundle, whether it is the bundle image or a related image,
    and the related-image name. Rows are de-duplicated and come package by package (sorted by
    bundle, image, name within one), so two runs print the same bytes.
    """
    from olmcat.mirror.images import (
        catalog_images,
        unique_images,
        write_images,
        write_unique_images,
    )
    from olmcat.readers.catalog import open_catalog

    def action() -> None:
        # Rows reach stdout only once the whole catalog was read: a failure prints nothing.
        with (
            open_catalog(catalog, notify=print_notice, platform=platform) as opened,
            stdout_when_complete() as stdout,
        ):
            rows = catalog_images(opened.packages())
            if unique:
                write_unique_images(unique_images(rows), stdout, output)  # type: ignore[arg-type]
            else:
                write_images(rows, stdout, output)  # type: ignore[arg-type]

    run(ctx, action)
