"""Helpers every command shares: error handling, warnings, progress, common options."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import click

from olmcat.errors import OlmcatError
from olmcat.model import PackageCatalog

T = TypeVar("T")


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


quiet_option = click.option(
    "-q", "--quiet", is_flag=True, help="No progress bar and no summary line."
)
