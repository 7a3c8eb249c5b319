"""``olmcat migrate``: legacy catalogs to file-based catalogs."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from olmcat.commands._common import (
    examples,
    fbc_format_option,
    platform_option,
    progress_bar,
    quiet_option,
    run,
    warn,
)
from olmcat.commands._registry import registry_options
from olmcat.migrate import MIGRATE_LEVELS, MigrateResult


def summary(result: MigrateResult, destination: str) -> str:
    stats = result.stats
    text = (
        f"wrote {stats.packages} packages, {stats.channels} channels, {stats.bundles} bundles "
        f"to {destination} in {result.seconds:.2f} s"
    )
    notes = []
    if stats.skipped:
        notes.append(f"{len(stats.skipped)} invalid packages skipped")
    if result.warnings:
        notes.append(f"{len(result.warnings)} warnings")
    return text + (f" ({', '.join(notes)})" if notes else "")


@click.group()
def migrate() -> None:
    """Convert a legacy catalog into a file-based catalog (FBC)."""


@examples(
    "olmcat migrate sqlite bundles.db out/",
    "olmcat migrate sqlite -o yaml bundles.db out/",
    "olmcat migrate sqlite index-image.oci.tar out/",
    "olmcat migrate sqlite --migrate-level bundle-object-to-csv-metadata bundles.db out/",
)
@migrate.command("sqlite")
@click.argument("database")
@click.argument("out", type=click.Path(path_type=Path, file_okay=False))
@fbc_format_option
@click.option(
    "--migrate-level",
    type=click.Choice(MIGRATE_LEVELS),
    default="none",
    show_default=True,
    help="As opm v1.72: bundle-object-to-csv-metadata replaces olm.bundle.object properties "
    "by one olm.csv.metadata property.",
)
@platform_option
@registry_options()
@quiet_option
@click.pass_context
def migrate_sqlite_command(
    ctx: click.Context,
    database: str,
    out: Path,
    output: str,
    migrate_level: str,
    platform: str | None,
    quiet: bool,
) -> None:
    """Migrate an SQLite index DATABASE into the FBC directory OUT.

    DATABASE is a bundles.db / index.db of any historical schema, or an index image that holds
    one: in a registry (docker://HOST/REPO:TAG) or on disk (oci:DIR[:REF], oci-archive:FILE,
    docker-archive:FILE, or the archive's plain path). It is opened read-only and never
    modified. OUT must not exist or be empty; it appears only when the migration is complete
    (<OUT>/<package>/catalog.json).
    """
    from olmcat.migrate import migrate_sqlite

    result = run(
        ctx,
        lambda: migrate_sqlite(
            database,
            out,
            output=output,  # type: ignore[arg-type]
            migrate_level=migrate_level,  # type: ignore[arg-type]
            warn=warn,
            progress=progress_bar(quiet, "migrating"),
            platform=platform,
        ),
    )
    if not quiet:
        click.echo(summary(result, str(out)), err=True)


@examples(
    "olmcat migrate pkgman manifests/ out/",
    "olmcat migrate pkgman manifests/etcd          # one package, FBC on stdout",
    "olmcat migrate pkgman --permissive manifests/ out/",
)
@migrate.command("pkgman")
@click.argument("directory", type=click.Path(path_type=Path))
@click.argument("out", type=click.Path(path_type=Path, file_okay=False), required=False)
@fbc_format_option
@click.option(
    "--permissive",
    is_flag=True,
    help="Skip invalid packages with a warning instead of stopping (initializer --permissive).",
)
@click.option(
    "--image-ref-template",
    metavar="TEMPLATE",
    help="Image reference for bundle-format directories, e.g. "
    "'quay.io/org/{package}-bundle:{version}' ({package}, {name}, {version}, {dir}).",
)
@click.option(
    "--all-documents",
    is_flag=True,
    help="Read every YAML document of a manifest file; the legacy loader read only the first.",
)
@quiet_option
@click.pass_context
def migrate_pkgman_command(
    ctx: click.Context,
    directory: Path,
    out: Path | None,
    output: str,
    permissive: bool,
    image_ref_template: str | None,
    all_documents: bool,
    quiet: bool,
) -> None:
    """Migrate package-manifest / bundle-format DIRECTORY into an FBC.

    DIRECTORY is one package (<pkg>/<pkg>.package.yaml plus a directory per version), one bundle
    (manifests/ + metadata/annotations.yaml), or a tree holding many of either, mixed. With OUT,
    writes <OUT>/<package>/catalog.json atomically; without it, the catalog goes to stdout.
    """
    from olmcat.migrate import migrate_pkgman

    result = run(
        ctx,
        lambda: migrate_pkgman(
            directory,
            out,
            output=output,  # type: ignore[arg-type]
            permissive=permissive,
            all_documents=all_documents,
            image_ref_template=image_ref_template,
            warn=warn,
            progress=progress_bar(quiet or out is None, "migrating"),
            stdout=sys.stdout if out is None else None,
        ),
    )
    if not quiet:
        click.echo(summary(result, str(out) if out else "stdout"), err=True)
