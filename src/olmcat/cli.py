"""Command line: a thin layer over the library, one module per command under olmcat.commands.

Only the command layer turns domain errors into exit codes: 1 for a problem with the input or
output (one line on stderr, a traceback only with ``--debug``), 2 for usage errors (click's).
"""

from __future__ import annotations

import click

from olmcat import __version__
from olmcat.commands._common import Settings
from olmcat.commands.convert import convert
from olmcat.commands.diff import diff
from olmcat.commands.filter import filter_command
from olmcat.commands.graph import render_graph
from olmcat.commands.images import images
from olmcat.commands.migrate import migrate
from olmcat.commands.mirror import mirror
from olmcat.commands.query import query
from olmcat.commands.validate import validate


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="olmcat")
@click.option("--debug", is_flag=True, help="Show a traceback when something goes wrong.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Migrate, diff and mirror OLM operator catalogs.

    Reads legacy SQLite index databases, package-manifest and bundle directories, index image
    archives and file-based catalogs (FBC); writes FBC byte-identical to what opm writes.
    """
    ctx.obj = Settings(debug=debug)


cli.add_command(migrate)
cli.add_command(convert)
cli.add_command(diff)
cli.add_command(validate)
cli.add_command(render_graph)
cli.add_command(query)
cli.add_command(images)
cli.add_command(filter_command)
cli.add_command(mirror)


def main() -> None:
    cli(prog_name="olmcat")


if __name__ == "__main__":  # pragma: no cover
    main()
