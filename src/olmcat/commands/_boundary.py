"""The CLI boundary: whatever a command's run raises ends as one line and an exit status.

:func:`boundary` wraps every run (docs/notices.md, "Errors and exit codes"):

* a domain error (:class:`~olmcat.errors.OlmcatError`): its message, exit 1;
* anything unexpected: one line naming the command and its inputs and asking for a re-run with
  ``--debug`` (which shows the traceback instead), exit 1;
* Ctrl-C: ``olmcat: interrupted``, exit 130; SIGTERM / SIGHUP: exit 143 / 129 (cleanup runs);
* a write that does not fit (a full disk, also ``> /dev/full``; a quota; the file-size limit):
  one line naming what could not be written and what to do, exit 1 -- every writer names its
  target (:mod:`olmcat.files.output`) and stdout is guarded for the run, so this is never
  blamed on the input being read;
* a closed stdout pipe (``olmcat images X | head -1``): silence, exit 0 -- the reader stopped
  reading on purpose, so a ``set -o pipefail`` pipeline must not fail because of it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
from collections.abc import Iterator

import click

from olmcat.commands._errors import CommandError, Interrupted, UsageFailure
from olmcat.commands._notices import holding_errors, input_notice
from olmcat.commands._options import Settings
from olmcat.commands._progress import reading_progress
from olmcat.commands._signals import Terminated, ignore_interrupts, run_signals
from olmcat.commands._streams import flush_stdout, guarded_stdout, silence_stdout
from olmcat.errors import OlmcatError
from olmcat.files import safe
from olmcat.files.output import cannot_write, is_no_room, room_advice


def check_environment() -> None:
    """Environment settings the library would otherwise stumble over later."""
    workers = os.environ.get("OLMCAT_WORKERS", "").strip()
    if workers and not (workers.isdigit() and int(workers) >= 0):
        raise UsageFailure(
            f"OLMCAT_WORKERS={workers!r} is not a whole number; set it to 1 (no worker "
            "processes) or more, or unset it"
        )


def _describe_inputs(settings: Settings) -> str:
    shown = ", ".join(settings.inputs[:3]) if settings.inputs else ""
    return f" reading {shown}" if shown else ""


def _unexpected(error: BaseException, settings: Settings) -> CommandError:
    what = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    if isinstance(error, MemoryError):
        what = "out of memory"
    elif isinstance(error, RecursionError):
        what = "input nested too deeply"
    return CommandError(
        f"{settings.command}: unexpected failure{_describe_inputs(settings)} ({what}); "
        "re-run with --debug for a traceback and report it"
    )


def _no_room(error: OSError, settings: Settings) -> CommandError:
    """A write that did not fit and that no writer named (a bug to fix where it was written)."""
    if error.filename:
        return CommandError(str(cannot_write(error.filename, error)))
    return CommandError(
        f"{settings.command}: a write failed ({error.strerror or error}); "
        f"{room_advice(error)}; re-run with --debug to see which file"
    )


def _interrupt_within(error: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C that ``error`` wraps, if any: Python 3.11 reports an interrupt that lands in
    a class body's ``__set_name__`` (an import creating a dataclass) as a RuntimeError caused by
    it."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _interrupted(error: KeyboardInterrupt) -> Interrupted:
    ignore_interrupts()
    # CPython quirk: an interrupt that lands in string-exec'd code (dataclass and namedtuple
    # methods being created by an import) marks it "unhandled" although it is caught here,
    # and `python -m` then ends by SIGINT instead of our exit status. Any later string exec
    # resets that mark.
    exec("None")
    safe.remove_own_scratch()
    silence_stdout()
    signum = error.signum if isinstance(error, Terminated) else signal.SIGINT
    return Interrupted(signum)


@contextlib.contextmanager
def boundary(settings: Settings) -> Iterator[None]:
    """Turn whatever a command raises into one line and an exit status (see module doc)."""
    from olmcat.readers.catalog import package_progress

    safe.clean_stale_scratch()
    token = package_progress.set(reading_progress)
    try:
        with guarded_stdout(), run_signals(), safe.notices_to(input_notice):
            check_environment()
            with holding_errors():
                yield
            flush_stdout()
    except click.exceptions.Exit:
        _safe_flush(settings)
        raise
    except (click.ClickException, click.exceptions.Abort):
        raise
    except KeyboardInterrupt as error:
        raise _interrupted(error) from None
    except BrokenPipeError:
        silence_stdout()
        raise click.exceptions.Exit(0) from None
    except OlmcatError as error:
        if settings.debug:
            raise
        silence_stdout()
        raise CommandError(str(error)) from None
    except OSError as error:
        if error.errno == errno.EPIPE:
            silence_stdout()
            raise click.exceptions.Exit(0) from None
        if is_no_room(error):
            if settings.debug:
                raise
            silence_stdout()
            raise _no_room(error, settings) from None
        if settings.debug:
            raise
        silence_stdout()
        raise _unexpected(error, settings) from None
    except Exception as error:
        interrupt = _interrupt_within(error)
        if interrupt is not None:
            raise _interrupted(interrupt) from None
        if settings.debug:
            raise
        silence_stdout()
        raise _unexpected(error, settings) from None
    finally:
        package_progress.reset(token)


def _safe_flush(settings: Settings) -> None:
    """A command that ends by ``ctx.exit`` still flushes stdout inside the boundary."""
    try:
        with guarded_stdout():
            flush_stdout()
    except BrokenPipeError:
        silence_stdout()
    except OlmcatError as error:
        silence_stdout()
        if settings.debug:
            raise
        raise CommandError(str(error)) from None
