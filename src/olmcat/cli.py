"""Command line: a thin layer that calls one library function per command and formats the result.

Only this module turns domain errors into exit codes: 1 for a problem with the input or output
(one line on stderr, a traceback only with ``--debug``), 2 for usage errors (click's default).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from olmcat import __version__
from olmcat.errors import OlmcatError
from olmcat.migrate import MIGRATE_LEVELS, MigrateResult
from olmcat.model import PackageCatalog
from olmcat.writers.fbc import FORMATS

T = TypeVar("T")


@dataclass(slots=True)
class Settings:
    debug: bool = False


class CommandError(click.ClickException):
    """A domain error, shown as one line and exit status 1."""

    exit_code = 1

    def show(self, file: Any = None) -> None:
        click.echo(f"olmcat: error: {self.message}", err=True)


def fail(error: OlmcatError) -> NoReturn:
    raise CommandError(str(error)) from error


def run(ctx: click.Context, action: Callable[[], T]) -> T:
    """Call into the library; domain errors become one-line messages unless --debug is on."""
    settings = ctx.find_object(Settings) or Settings()
    try:
        return action()
    except OlmcatError as error:
        if settings.debug:
            raise
        fail(error)


def warn(message: str) -> None:
    click.echo(f"olmcat: warning: {message}", err=True)


def progress_bar(
    quiet: bool, what: str
) -> Callable[[Iterable[PackageCatalog], int], Iterable[PackageCatalog]]:
    """A tqdm bar per package on stderr, only when stderr is a terminal and not --quiet."""

    def wrap(items: Iterable[PackageCatalog], total: int) -> Iterator[PackageCatalog]:
        if quiet or not sys.stderr.isatty():
            yield from items
            return
        from tqdm import tqdm

        with tqdm(total=total, desc=what, unit="pkg", file=sys.stderr, leave=False) as bar:
            for item in items:
                bar.set_postfix_str(item.name, refresh=False)
                yield item
                bar.update(1)

    return wrap


def summary(result: MigrateResult, destination: str) -> str:
    stats = result.stats
    return (
        f"wrote {stats.packages} packages, {stats.channels} channels, {stats.bundles} bundles "
        f"to {destination} in {result.seconds:.2f} s"
        + (f" ({len(result.warnings)} warnings)" if result.warnings else "")
    )


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="olmcat")
@click.option("--debug", is_flag=True, help="Show a traceback when something goes wrong.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Migrate, diff and mirror OLM operator catalogs.

    Reads legacy SQLite index databases and package-manifest / bundle directories and writes
    file-based catalogs (FBC) byte-identical to what opm writes.
    """
    ctx.obj = Settings(debug=debug)


@cli.group()
def migrate() -> None:
    """Convert a legacy catalog into a file-based catalog."""


output_option = click.option(
    "-o",
    "--output",
    type=click.Choice(FORMATS),
    default="json",
    show_default=True,
    help="Format of the catalog files (catalog.json or catalog.yaml per package).",
)
quiet_option = click.option(
    "-q", "--quiet", is_flag=True, help="No progress bar and no summary line."
)


@migrate.command("sqlite")
@click.argument("database", type=click.Path(path_type=Path))
@click.argument("out", type=click.Path(path_type=Path, file_okay=False))
@output_option
@click.option(
    "--migrate-level",
    type=click.Choice(MIGRATE_LEVELS),
    default="none",
    show_default=True,
    help="As opm v1.72: bundle-object-to-csv-metadata replaces olm.bundle.object properties "
    "by one olm.csv.metadata property.",
)
@quiet_option
@click.pass_context
def migrate_sqlite_command(
    ctx: click.Context,
    database: Path,
    out: Path,
    output: str,
    migrate_level: str,
    quiet: bool,
) -> None:
    """Migrate an SQLite index DATABASE into the FBC directory OUT.

    DATABASE is a bundles.db / index.db of any historical schema; it is opened read-only and never
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
        ),
    )
    if not quiet:
        click.echo(summary(result, str(out)), err=True)


def main() -> None:
    cli(prog_name="olmcat")


if __name__ == "__main__":  # pragma: no cover
    main()
