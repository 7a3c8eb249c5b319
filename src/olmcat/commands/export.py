"""``olmcat export``: a catalog in other shapes, for other tools."""

from __future__ import annotations

from pathlib import Path

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import run
from olmcat.commands._notices import print_notice
from olmcat.commands._options import examples, platform_option, quiet_option
from olmcat.commands._registry import registry_options
from olmcat.commands._streams import file_for_stdout


@click.group("export")
def export() -> None:
    """Write a catalog in a shape other tools read (SQL databases)."""


@examples(
    "olmcat export sqlite bundles.db catalog.sqlite",
    "olmcat export sqlite catalog/ catalog.sqlite && datasette catalog.sqlite",
    "olmcat export sqlite index.db x.sqlite && sqlite3 x.sqlite 'SELECT name, image FROM bundles'",
)
@export.command("sqlite")
@click.argument("catalog")
@click.argument("out", type=click.Path(path_type=Path, dir_okay=False))
@platform_option
@cache_options
@registry_options()
@quiet_option
@click.pass_context
def export_sqlite_command(
    ctx: click.Context, catalog: str, out: Path, platform: str | None, quiet: bool
) -> None:
    """Write CATALOG as a relational SQLite database OUT, for ad-hoc SQL and Datasette.

    CATALOG is any catalog reference. OUT must not exist; it appears only when complete ('-'
    writes the finished database to stdout). Tables:
    packages (with full-text search on name and description), channels, entries, entry_skips,
    bundles, properties (type, JSON value), related_images and deprecations, joined by foreign
    keys. This is a database for queries, not an index database opm can serve.
    """
    from olmcat.export.sqlite import ExportResult, export_sqlite

    def action() -> ExportResult:
        with file_for_stdout(out) as target:  # OUT '-': the finished database on stdout
            return export_sqlite(catalog, target, notify=print_notice, platform=platform)

    result = run(ctx, action)
    if not quiet:
        counts = ", ".join(f"{n} {t}" for t, n in result.rows.items() if n)
        shown = "stdout" if str(out) == "-" else out
        click.echo(f"wrote {shown} ({counts}) in {result.seconds:.2f} s", err=True)
