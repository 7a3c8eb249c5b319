"""The options every command shares, and the settings they leave for the run.

Every command and group gets the same common options (:func:`install_common_options`):
``--debug``, ``-q/--quiet`` and the input limits, accepted anywhere after the command name. The
decorators below (``--report``, ``--platform``, ``-o``, ``-q``) are for commands that take them
as parameters; :func:`examples` adds the Examples section of ``--help``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from olmcat.files import safe

C = TypeVar("C", bound=click.Command)


@dataclass(slots=True)
class Settings:
    debug: bool = False
    quiet: bool = False
    command: str = "olmcat"
    inputs: list[str] = field(default_factory=list)


def settings_of(ctx: click.Context | None) -> Settings:
    found = ctx.find_object(Settings) if ctx is not None else None
    if found is None and ctx is not None:
        found = ctx.find_root().ensure_object(Settings)
    return found or Settings()


def examples(*lines: str) -> Callable[[C], C]:
    """Append an Examples section to a command's --help (click keeps the lines as written)."""

    def decorate(command: C) -> C:
        body = "\n".join(f"  {line}" if line else "" for line in lines)
        command.epilog = f"\b\nExamples:\n{body}"
        return command

    return decorate


# -- options a command takes as parameters ---------------------------------------------------------

report_option = click.option(
    "--report",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE.json",
    help="Also write every notice (left out, rewritten, defaulted) as JSON "
    "(schema olmcat.report.v1).",
)

platform_option = click.option(
    "--platform",
    metavar="OS/ARCH",
    help="For multi-arch index images: the platform to read (default linux/amd64).",
)

fbc_format_option = click.option(
    "-o",
    "--output",
    type=click.Choice(("json", "yaml")),
    default="json",
    show_default=True,
    help="Format of the catalog files (catalog.json or catalog.yaml per package).",
)


def _set_quiet(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    settings = settings_of(ctx)
    settings.quiet = settings.quiet or bool(value)
    return settings.quiet


quiet_option = click.option(
    "-q",
    "--quiet",
    is_flag=True,
    callback=_set_quiet,
    help="No progress bar and no summary line.",
)


# -- the common options ---------------------------------------------------------------------------

_SIZE = re.compile(r"(\d+)\s*([kmgt]?)(i?b?)", re.I)
_FACTORS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


class SizeType(click.ParamType):  # type: ignore[type-arg]
    """A byte count: 1048576, 512K, 256M, 1G, 8GiB (binary units)."""

    name = "size"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        match = _SIZE.fullmatch(str(value).strip())
        if match is None:
            self.fail(f"{value!r} is not a size (e.g. 512M, 1G)", param, ctx)
        return int(match.group(1)) * _FACTORS[match.group(2).lower()]


def _explicit(ctx: click.Context, param: click.Parameter) -> bool:
    source = ctx.get_parameter_source(param.name or "")
    return source not in (None, ParameterSource.DEFAULT)


def _set_debug(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        settings_of(ctx).debug = True


def _set_limit(field_name: str) -> Callable[[click.Context, click.Parameter, Any], None]:
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        if value is None or not _explicit(ctx, param):
            return
        limits = safe.configure(**{field_name: value})
        # Parsed documents are walked recursively: leave room for the nesting allowed.
        sys.setrecursionlimit(max(sys.getrecursionlimit(), limits.max_depth * 4 + 1000))

    return callback


_DEFAULTS = safe.Limits()


def _common_params() -> list[click.Option]:
    def size(text: int) -> str:
        return safe.size_text(text).replace(" ", "")

    return [
        click.Option(
            ["--debug"],
            is_flag=True,
            expose_value=False,
            callback=_set_debug,
            help="Show a traceback when something goes wrong.",
        ),
        click.Option(
            ["-q", "--quiet"],
            is_flag=True,
            expose_value=False,
            callback=_set_quiet,
            help="No progress bar and no summary line.",
        ),
        click.Option(
            ["--follow-symlinks/--no-follow-symlinks"],
            default=True,
            expose_value=False,
            envvar="OLMCAT_FOLLOW_SYMLINKS",
            callback=_set_limit("follow_symlinks"),
            help="Follow symbolic links that stay inside the input (default); links leading "
            "outside it are always refused.",
        ),
        click.Option(
            ["--max-file-size"],
            type=SizeType(),
            default=_DEFAULTS.max_file_size,
            expose_value=False,
            envvar="OLMCAT_MAX_FILE_SIZE",
            metavar="SIZE",
            callback=_set_limit("max_file_size"),
            help=f"Largest single input file read [default: {size(_DEFAULTS.max_file_size)}].",
        ),
        click.Option(
            ["--max-depth"],
            type=click.IntRange(8, 100_000),
            default=_DEFAULTS.max_depth,
            expose_value=False,
            envvar="OLMCAT_MAX_DEPTH",
            metavar="N",
            callback=_set_limit("max_depth"),
            help=f"Deepest YAML/JSON nesting read [default: {_DEFAULTS.max_depth}].",
        ),
        click.Option(
            ["--max-yaml-alias-ratio"],
            type=click.IntRange(1),
            default=_DEFAULTS.yaml_alias_ratio,
            expose_value=False,
            envvar="OLMCAT_MAX_YAML_ALIAS_RATIO",
            metavar="N",
            callback=_set_limit("yaml_alias_ratio"),
            help="How many times YAML aliases may multiply a document "
            f"[default: {_DEFAULTS.yaml_alias_ratio}].",
        ),
        click.Option(
            ["--max-archive-ratio"],
            type=click.IntRange(1),
            default=_DEFAULTS.archive_ratio,
            expose_value=False,
            envvar="OLMCAT_MAX_ARCHIVE_RATIO",
            metavar="N",
            callback=_set_limit("archive_ratio"),
            help="How many times an image layer may expand when decompressed "
            f"[default: {_DEFAULTS.archive_ratio}].",
        ),
        click.Option(
            ["--max-archive-size"],
            type=SizeType(),
            default=_DEFAULTS.max_archive_size,
            expose_value=False,
            envvar="OLMCAT_MAX_ARCHIVE_SIZE",
            metavar="SIZE",
            callback=_set_limit("max_archive_size"),
            help="Most bytes an image archive may decompress to "
            f"[default: {size(_DEFAULTS.max_archive_size)}].",
        ),
    ]


def install_common_options(command: click.Command) -> click.Command:
    """Give ``command`` (and every subcommand) the common options it does not define itself."""
    if getattr(command, "_olmcat_common", False):
        return command
    taken_names = {p.name for p in command.params}
    taken_flags = {flag for p in command.params for flag in (*p.opts, *p.secondary_opts)}
    for option in _common_params():
        flags = {*option.opts, *option.secondary_opts}
        if option.name in taken_names or flags & taken_flags:
            continue
        command.params.append(option)
    original = command.invoke

    def invoke(ctx: click.Context) -> Any:
        settings = settings_of(ctx)
        settings.command = ctx.command_path
        settings.inputs.extend(
            str(value)
            for param in command.params
            if isinstance(param, click.Argument) and param.name not in _OUTPUT_ARGUMENTS
            for value in _values(ctx.params.get(param.name or ""))
        )
        return original(ctx)

    command.invoke = invoke  # type: ignore[method-assign]
    command._olmcat_common = True  # type: ignore[attr-defined]
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            install_common_options(sub)
    return command


_OUTPUT_ARGUMENTS = frozenset({"out", "out_dir", "dest", "output"})


def _values(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return list(value)
    return [value]
