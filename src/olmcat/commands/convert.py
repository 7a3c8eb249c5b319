"""``olmcat convert``: legacy catalog layouts into one another."""

from __future__ import annotations

from pathlib import Path

import click

from olmcat.commands._common import examples, quiet_option, run, warn


@click.group()
def convert() -> None:
    """Convert a legacy catalog from one directory layout to another."""


@examples(
    "olmcat convert pkgman-to-bundles manifests/ bundles/",
    "olmcat migrate pkgman bundles/ catalog/   # the same catalog, from the converted tree",
)
@convert.command("pkgman-to-bundles")
@click.argument("directory", type=click.Path(path_type=Path))
@click.argument("out", type=click.Path(path_type=Path, file_okay=False))
@quiet_option
@click.pass_context
def pkgman_to_bundles_command(ctx: click.Context, directory: Path, out: Path, quiet: bool) -> None:
    """Turn the package-manifest tree DIRECTORY into bundle directories under OUT.

    Each version directory becomes OUT/<package>/<version-dir>/ with manifests/ (its manifest
    files, copied unchanged) and metadata/annotations.yaml naming the package, the default
    channel and every channel the bundle is in: on a channel's replaces chain from its
    currentCSV, or skipped by a bundle on it (operator-sdk's pkgman-to-bundle puts bundles that
    head no channel in the default channel only). Version directories in no channel are left
    out with a warning.
    OUT must not exist or be empty; it appears only when the conversion is complete.
    """
    from olmcat.writers.bundles import pkgman_to_bundles

    result = run(ctx, lambda: pkgman_to_bundles(directory, out, warn=warn))
    if not quiet:
        note = f" ({len(result.left_out)} in no channel, left out)" if result.left_out else ""
        click.echo(
            f"wrote {len(result.bundles)} bundles of {result.packages} packages to {out} "
            f"in {result.seconds:.2f} s{note}",
            err=True,
        )
