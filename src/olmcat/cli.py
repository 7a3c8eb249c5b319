"""Command line: a thin layer over the library, one module per command under olmcat.commands.

Only the command layer turns domain errors into exit codes: 1 for a problem with the input or
output (one line on stderr, a traceback only with ``--debug``), 2 for usage errors (click's),
130 for Ctrl-C; see :func:`olmcat.commands._boundary.boundary` for the rest. Command modules are
imported only when their command runs, so ``migrate`` does not pay for the imports of ``mirror``
or ``diff``; each gets the common options (``--debug``, ``-q``, input limits) when loaded.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import click

from olmcat import __version__
from olmcat.commands._boundary import boundary
from olmcat.commands._errors import Interrupted
from olmcat.commands._options import Settings, install_common_options, settings_of
from olmcat.commands._signals import program_signals
from olmcat.commands._streams import guard_standard_streams
from olmcat.files import safe

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
    "render-template": "olmcat.commands.templates:render_template",
    "template": "olmcat.commands.templates:template",
    "add": "olmcat.commands.maintain:add",
    "rm": "olmcat.commands.maintain:rm",
    "prune": "olmcat.commands.maintain:prune",
    "prune-stranded": "olmcat.commands.maintain:prune_stranded",
    "deprecate-truncate": "olmcat.commands.maintain:deprecate_truncate",
    "completion": "olmcat.commands.completion:completion",
    "olmv1": "olmcat.commands.olmv1:olmv1",
}

# command name -> the first paragraph of its help, so that ``olmcat --help`` lists the commands
# without importing them (about 40 ms); tests/commands/test_help.py keeps these in step
SUMMARIES = {
    "migrate": "Convert a legacy catalog into a file-based catalog (FBC).",
    "convert": "Convert a legacy catalog from one directory layout to another.",
    "render": "Render bundles as `opm render` renders their bundle images.",
    "diff": "Show what changed from catalog OLD to catalog NEW.",
    "validate": "Check CATALOG against opm's catalog rules and report every problem.",
    "render-graph": "Write the upgrade graph of CATALOG per package and channel to stdout.",
    "query": "Answer registry / catalogd / OLM questions about CATALOG offline.",
    "images": "List every image CATALOG references: bundle images and related images.",
    "filter": "Write the part of CATALOG that is selected into the FBC directory OUT (- for "
    "stdout).",
    "mirror": "Mirror a catalog into a registry of a disconnected cluster.",
    "export": "Write a catalog in a shape other tools read (SQL databases).",
    "completion": "Print the shell completion script for SHELL (bash, zsh or fish).",
    "olmv1": "What OLM v1 (operator-controller v1.11.0) does with a bundle or a catalog.",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            command = super().get_command(ctx, cmd_name)
            return None if command is None else install_common_options(command)
        module, _, attribute = target.partition(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return install_common_options(command)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        # Limits given on the command line last for this run only (the CLI may run in a
        # process that uses the library too, or runs several commands).
        saved, recursion = safe.limits(), sys.getrecursionlimit()
        try:
            return super().main(*args, **kwargs)
        finally:
            safe.configure(saved)
            sys.setrecursionlimit(recursion)

    def invoke(self, ctx: click.Context) -> Any:
        if ctx.parent is not None:
            return super().invoke(ctx)
        with boundary(settings_of(ctx)):
            return super().invoke(ctx)

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
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Migrate, diff and mirror OLM operator catalogs.

    Reads legacy SQLite index databases, package-manifest and bundle directories, index image
    archives and file-based catalogs (FBC); writes FBC byte-identical to what opm writes.

    --debug, -q and the input limits are accepted before or after any command name.
    """
    ctx.ensure_object(Settings)


install_common_options(cli)


def main(interrupted: Callable[[int, FrameType | None], None] | None = None) -> None:
    """Run the program. ``interrupted`` handles Ctrl-C outside a command's run (while starting
    and exiting); inside it, Ctrl-C raises KeyboardInterrupt so cleanup runs."""
    guard_standard_streams()
    if interrupted is not None:
        program_signals(interrupted)
    try:
        cli(prog_name="olmcat")
    except SystemExit as done:
        if interrupted is None or not Interrupted.happened:
            raise
        # Interrupted: cleanup ran and the line is out. Exit now rather than wait in exit
        # handlers for threads of work that was abandoned (worker pools, downloads).
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(done.code if isinstance(done.code, int) else 1)


if __name__ == "__main__":  # pragma: no cover
    main()
