"""Helpers every command shares: error handling, warnings, progress, common options."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from olmcat.errors import OlmcatError
from olmcat.notices import Notice, NoticeLog, report_document, write_report

if TYPE_CHECKING:  # the model costs ~10 ms to import; --help does not need it
    from olmcat.model import PackageCatalog

T = TypeVar("T")
C = TypeVar("C", bound=click.Command)


@dataclass(slots=True)
class Settings:
    debug: bool = False


class CommandError(click.ClickException):
    """A domain error, shown as one line and exit status 1."""

    exit_code = 1

    def show(self, file: Any = None) -> None:
        click.echo(f"olmcat: error: {self.message}", err=True)


def fail(error: OlmcatError | str) -> NoReturn:
    raise CommandError(str(error)) from (error if isinstance(error, OlmcatError) else None)


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
    """Print one warning line on stderr (above a progress bar, if one is showing)."""
    line = f"olmcat: warning: {message}"
    if "tqdm" in sys.modules:
        from tqdm import tqdm

        tqdm.write(line, file=sys.stderr)
    else:
        click.echo(line, err=True)


def print_notice(notice: Notice) -> None:
    """The CLI's notice sink: one stderr line per warning; info notices go to --report only."""
    if notice.severity != "info":
        warn(notice.message)


class NoticeReport(NoticeLog):
    """Prints every notice as it arrives and keeps it for ``--report``."""

    def __init__(self) -> None:
        super().__init__(forward=print_notice)

    def write(
        self, path: Path | None, *, command: str, inputs: Iterable[str], **extra: Any
    ) -> None:
        if path is not None:
            write_report(path, report_document(self, command=command, inputs=inputs, **extra))


report_option = click.option(
    "--report",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE.json",
    help="Also write every notice (left out, rewritten, defaulted) as JSON "
    "(schema olmcat.report.v1).",
)


def examples(*lines: str) -> Callable[[C], C]:
    """Append an Examples section to a command's --help (click keeps the lines as written)."""

    def decorate(command: C) -> C:
        body = "\n".join(f"  {line}" if line else "" for line in lines)
        command.epilog = f"\b\nExamples:\n{body}"
        return command

    return decorate


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

quiet_option = click.option(
    "-q", "--quiet", is_flag=True, help="No progress bar and no summary line."
)
