"""Exit statuses and the one-line messages that come with them.

A command ends in one of these (docs/notices.md, "Errors and exit codes"):
:class:`CommandError` (exit 1), :class:`UsageFailure` (exit 2) or :class:`Interrupted` (128 + the
signal). :func:`run` calls
into the library and turns its domain errors into a :class:`CommandError`; everything else a run
raises is turned into one of these by :func:`olmcat.commands._boundary.boundary`.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click

from olmcat.commands._options import settings_of
from olmcat.errors import OlmcatError

T = TypeVar("T")

# Everything str.splitlines() breaks on, other control characters (a terminal would act on ESC
# sequences from a hostile name) and the bidi controls that reorder what a line displays.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
MAX_LINE = 2000


def one_line(text: str) -> str:
    """``text`` as one safe line: line breaks become "; ", other controls are escaped."""
    text = re.sub(r"\s*(?:\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029])\s*", "; ", text.strip())
    text = _UNPRINTABLE.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)
    if len(text) > MAX_LINE:
        text = text[: MAX_LINE - 3] + "..."
    return text


class CommandError(click.ClickException):
    """A domain error, shown as one line and exit status 1."""

    exit_code = 1

    def show(self, file: Any = None) -> None:
        click.echo(f"olmcat: error: {one_line(self.message)}", err=True)


class UsageFailure(CommandError):
    """A usage error shown as one line (exit status 2)."""

    exit_code = 2


class Interrupted(CommandError):
    """Ctrl-C or a termination signal: one line, exit 128 + the signal number."""

    happened = False  # set once a run was interrupted (the program exits at once after it)

    def __init__(self, signum: int) -> None:
        name = "interrupted" if signum == signal.SIGINT else f"terminated ({_signal_name(signum)})"
        super().__init__(name)
        self.exit_code = 128 + signum  # type: ignore[misc]
        Interrupted.happened = True

    def show(self, file: Any = None) -> None:
        click.echo(f"olmcat: {self.message}", err=True)


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def fail(error: OlmcatError | str) -> NoReturn:
    raise CommandError(str(error)) from (error if isinstance(error, OlmcatError) else None)


def run(ctx: click.Context, action: Callable[[], T]) -> T:
    """Call into the library; domain errors become one-line messages unless --debug is on."""
    settings = settings_of(ctx)
    try:
        return action()
    except OlmcatError as error:
        if settings.debug:
            raise
        fail(error)
