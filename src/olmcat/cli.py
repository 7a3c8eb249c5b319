"""Command line: a thin layer over the library, one module per command under olmcat.commands.

Only the command layer turns domain errors into exit codes: 1 for a problem with the input or
output (one line on stderr, a traceback only with ``--debug``), 2 for usage errors (click's).
Command modules are imported only when their command runs, so ``migrate`` does not pay for the
imports of ``mirror`` or ``diff``.
"""

from __future__ import annotations

import importlib

import click

from olmcat import __version__
from olmcat.commands._common import Settings

# command name -> "module:attribute" of its click command
COMMANDS = {
    "migrate": "olmcat.commands.migrate:migrate",
    "convert": "olmcat.commands.convert:convert",
    "diff": "olmcat.commands.diff:diff",
    "validate": "olmcat.commands.validate:validate",
    "render-graph": "olmcat.commands.graph:render_graph",
    "query": "olmcat.commands.query:query",
    "images": "olmcat.commands.images:images",
    "filter": "olmcat.commands.filter:filter_command",
    "mirror": "olmcat.commands.mirror:mirror",
    "export": "olmcat.commands.export:export",
    "upgrade-check": "olmcat.commands.upgrade:upgrade_check",
    "cache": "olmcat.commands.cache:cache",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module, _, attribute = target.partition(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="olmcat")
@click.option("--debug", is_flag=True, help="Show a traceback when something goes wrong.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Migrate, diff and mirror OLM operator catalogs.

    Reads legacy SQLite index databases, package-manifest and bundle directories, index image
    archives and file-based catalogs (FBC); writes FBC byte-identical to what opm writes.
    """
    ctx.obj = Settings(debug=debug)


def main() -> None:
    cli(prog_name="olmcat")


if __name__ == "__main__":  # pragma: no cover
    main()
