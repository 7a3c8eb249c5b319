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
    "render": "olmcat.commands.render:render_command",
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

# command name -> the first paragraph of its help, so that ``olmcat --help`` lists the commands
# without importing them (about 40 ms); tests/commands/test_help.py keeps these in step
SUMMARIES = {
    "migrate": "Convert a legacy catalog into a file-based catalog (FBC).",
    "convert": "Convert a legacy catalog from one directory layout to another.",
    "render": "Render bundles as `opm render` renders the bundle image built from them.",
    "diff": "Show what changed from catalog OLD to catalog NEW.",
    "validate": "Check CATALOG against opm's catalog rules and report every problem.",
    "render-graph": "Write the upgrade graph of CATALOG per package and channel to stdout.",
    "query": "Answer registry / catalogd / OLM questions about CATALOG offline.",
    "images": "List every image CATALOG references: bundle images and related images.",
    "filter": "Write the part of CATALOG that is selected into the FBC directory OUT (- for "
    "stdout).",
    "mirror": "Mirror a catalog into a registry of a disconnected cluster.",
    "export": "Write a catalog in a shape other tools read (SQL databases).",
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

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's command list, from SUMMARIES where it can (no command module imported)."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            summary = SUMMARIES.get(name)
            if summary is not None:
                rows.append((name, click.Command(name, help=summary).get_short_help_str(limit)))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


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
