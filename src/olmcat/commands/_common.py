"""Helpers every command shares: error handling, warnings, progress, common options.

The CLI boundary lives here: :func:`boundary` wraps every run so that whatever happens ends as one
line on stderr and a documented exit status (README, "Errors and exit codes"):

* a domain error (:class:`~olmcat.errors.OlmcatError`): its message, exit 1;
* anything unexpected: one line naming the command and its inputs and asking for a re-run with
  ``--debug`` (which shows the traceback instead), exit 1;
* Ctrl-C: ``olmcat: interrupted``, exit 130; SIGTERM / SIGHUP: exit 143 / 129 (cleanup runs);
* a full disk (also ``> /dev/full``): one line naming what could not be written, exit 1;
* a closed stdout pipe (``olmcat images X | head -1``): silence, exit 0 -- the reader stopped
  reading on purpose, so a ``set -o pipefail`` pipeline must not fail because of it.

Every command and group also gets the same common options (:func:`install_common_options`):
``--debug``, ``-q/--quiet`` and the input limits, accepted anywhere after the command name.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn, TextIO, TypeVar, cast

import click
from click.core import ParameterSource

from olmcat.errors import OlmcatError, OutputError
from olmcat.files import safe
from olmcat.notices import Notice, NoticeLog, report_document, write_report

if TYPE_CHECKING:  # the model costs ~10 ms to import; --help does not need it
    from olmcat.model import PackageCatalog

T = TypeVar("T")
C = TypeVar("C", bound=click.Command)

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a Ctrl-C'd command


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


# -- one line ------------------------------------------------------------------------------------

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


def warn(message: str) -> None:
    """Print one warning line on stderr (above a progress bar, if one is showing)."""
    line = f"olmcat: warning: {one_line(message)}"
    if "tqdm" in sys.modules:
        from tqdm import tqdm

        tqdm.write(line, file=sys.stderr)
    else:
        click.echo(line, err=True)


# Error notices of the running command (what a reader refused): printed when the run succeeds
# (with --permissive they say what was left out); when it fails, its one error line names the
# first of them and counts the rest, and --report keeps them all.
_held_errors: list[Notice] = []


def print_notice(notice: Notice) -> None:
    """The CLI's notice sink: one stderr line per warning; info notices go to --report only."""
    if notice.severity == "error" and _holding:
        _held_errors.append(notice)
    elif notice.severity != "info":
        warn(notice.message)


_holding = False


def _release_held(print_them: bool) -> None:
    held = list(_held_errors)
    _held_errors.clear()
    if print_them:
        for notice in held:
            warn(notice.message)


class NoticeReport(NoticeLog):
    """Prints every notice as it arrives and keeps it for ``--report`` (input notices too)."""

    def __init__(self) -> None:
        super().__init__(forward=print_notice)
        _report_sinks.append(self)

    def write(
        self, path: Path | None, *, command: str, inputs: Iterable[str], **extra: Any
    ) -> None:
        if path is not None:
            write_report(path, report_document(self, command=command, inputs=inputs, **extra))


# NoticeReports of the running command: input notices (olmcat.files.safe.notify) reach them too.
_report_sinks: list[NoticeReport] = []


def _input_notice(notice: Notice) -> None:
    if _report_sinks:
        for sink in _report_sinks:
            sink(notice)
    else:
        print_notice(notice)


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


# -- progress -------------------------------------------------------------------------------------

_bar_showing = False


def _show_bars() -> bool:
    ctx = click.get_current_context(silent=True)
    return not settings_of(ctx).quiet and sys.stderr is not None and sys.stderr.isatty()


def _bar(items: Iterable[PackageCatalog], total: int, what: str) -> Iterator[PackageCatalog]:
    """A tqdm bar per package on stderr (one at a time: nested readers share the outer bar)."""
    global _bar_showing
    if _bar_showing or not _show_bars():
        yield from items
        return
    from tqdm import tqdm

    _bar_showing = True
    try:
        with tqdm(total=total, desc=what, unit="pkg", file=sys.stderr, leave=False) as bar:
            for item in items:
                bar.set_postfix_str(one_line(item.name)[:40], refresh=False)
                yield item
                bar.update(1)
    finally:
        _bar_showing = False


def progress_bar(
    quiet: bool, what: str
) -> Callable[[Iterable[PackageCatalog], int], Iterable[PackageCatalog]]:
    """A tqdm bar per package on stderr, only when stderr is a terminal and not --quiet."""

    def wrap(items: Iterable[PackageCatalog], total: int) -> Iterator[PackageCatalog]:
        if quiet:
            yield from items
            return
        yield from _bar(items, total, what)

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


def _reading_progress(
    items: Iterator[PackageCatalog], total: int, reference: str
) -> Iterator[PackageCatalog]:
    return _bar(items, total, "reading")


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


# -- common options -------------------------------------------------------------------------------

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


def check_environment() -> None:
    """Environment settings the library would otherwise stumble over later."""
    workers = os.environ.get("OLMCAT_WORKERS", "").strip()
    if workers and not (workers.isdigit() and int(workers) >= 0):
        raise UsageFailure(
            f"OLMCAT_WORKERS={workers!r} is not a whole number; set it to 1 (no worker "
            "processes) or more, or unset it"
        )


# -- the boundary ---------------------------------------------------------------------------------


class _ClosedStream(io.TextIOBase):
    """Stands in for a standard stream that was closed when olmcat started (``>&-``)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self._name = name

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OutputError(
            f"{self._name} is closed; redirect it to a file or give an output path instead"
        )

    def read(self, size: int | None = -1) -> str:
        raise OutputError(f"{self._name} is closed; there is nothing to read")

    def isatty(self) -> bool:
        return False

    def flush(self) -> None:
        pass


def guard_standard_streams() -> None:
    """A closed fd 0/1/2 would be handed to the next file olmcat opens (and stderr messages
    would land in it): hold them with /dev/null, and make the streams say they are closed."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            with contextlib.suppress(OSError):
                held = os.open(os.devnull, os.O_RDWR)
                if held != fd:
                    os.dup2(held, fd)
                    os.close(held)
    if sys.stdin is None:
        sys.stdin = None  # read_stream_text reports a closed stdin by name
    if sys.stdout is None:
        sys.stdout = _ClosedStream("stdout")
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - for the life of the process


def _silence_stdout() -> None:
    """After a closed pipe or a full disk, let the final flush at exit go nowhere quietly."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _flush_stdout() -> None:
    if sys.stdout is not None and not isinstance(sys.stdout, _ClosedStream):
        sys.stdout.flush()


class _Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program is so cleanup runs as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise _Terminated(signum)


# Set by the program entry point (never by library use or tests running commands in-process):
# how Ctrl-C is handled outside a command's run.
_outside_handler: Callable[[int, FrameType | None], None] | None = None


def program_signals(handler: Callable[[int, FrameType | None], None]) -> None:
    global _outside_handler
    _outside_handler = handler


@contextlib.contextmanager
def _signals() -> Iterator[None]:
    installed: dict[int, Any] = {}
    if _outside_handler is not None:
        # Inside the run Ctrl-C raises KeyboardInterrupt, so cleanup runs (before it, while
        # starting, the entry point's handler ends the process with one line).
        signal.signal(signal.SIGINT, signal.default_int_handler)
    with contextlib.suppress(ValueError):  # not the main thread (library use): leave them be
        for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
            if signum is not None:
                installed[signum] = signal.signal(signum, _raise_terminated)
    try:
        yield
    finally:
        for signum, previous in installed.items():
            signal.signal(signum, previous)
        if _outside_handler is not None:
            # The run is over (done, failed or interrupted, its line written): a Ctrl-C now would
            # only race the exit, and Python resets handled signals to the default while it
            # finalizes (death by SIGINT, no message). Ignore it instead.
            with contextlib.suppress(ValueError):
                signal.signal(signal.SIGINT, signal.SIG_IGN)


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


def _disk_full(error: OSError) -> CommandError:
    target = error.filename or "stdout"
    return CommandError(
        f"cannot write {target}: {error.strerror or 'No space left on device'}; "
        "nothing was left half-written"
    )


@contextlib.contextmanager
def boundary(settings: Settings) -> Iterator[None]:
    """Turn whatever a command raises into one line and an exit status (see module doc)."""
    from olmcat.readers.catalog import package_progress

    safe.clean_stale_scratch()
    token = package_progress.set(_reading_progress)
    try:
        with _signals(), safe.notices_to(_input_notice):
            check_environment()
            global _holding
            _holding, succeeded = True, False
            try:
                yield
                succeeded = True
            finally:
                _holding = False
                _report_sinks.clear()
                _release_held(print_them=succeeded)
            _flush_stdout()
    except click.exceptions.Exit:
        _safe_flush()
        raise
    except (click.ClickException, click.exceptions.Abort):
        raise
    except KeyboardInterrupt as error:
        # Later Ctrl-Cs must not interrupt the cleanup that already ran or the message.
        with contextlib.suppress(ValueError):
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        # CPython quirk: an interrupt that lands in string-exec'd code (dataclass and namedtuple
        # methods being created by an import) marks it "unhandled" although it is caught here,
        # and `python -m` then ends by SIGINT instead of our exit status. Any later string exec
        # resets that mark.
        exec("None")
        safe.remove_own_scratch()
        _silence_stdout()
        signum = error.signum if isinstance(error, _Terminated) else signal.SIGINT
        raise Interrupted(signum) from None
    except BrokenPipeError:
        _silence_stdout()
        raise click.exceptions.Exit(0) from None
    except OlmcatError as error:
        if settings.debug:
            raise
        _silence_stdout()
        raise CommandError(str(error)) from None
    except OSError as error:
        if error.errno == errno.EPIPE:
            _silence_stdout()
            raise click.exceptions.Exit(0) from None
        if safe.is_disk_full(error):
            if settings.debug:
                raise
            _silence_stdout()
            raise _disk_full(error) from None
        if settings.debug:
            raise
        _silence_stdout()
        raise _unexpected(error, settings) from None
    except Exception as error:
        if settings.debug:
            raise
        _silence_stdout()
        raise _unexpected(error, settings) from None
    finally:
        package_progress.reset(token)


def _safe_flush() -> None:
    try:
        _flush_stdout()
    except BrokenPipeError:
        _silence_stdout()
    except OSError as error:
        _silence_stdout()
        if safe.is_disk_full(error):
            raise _disk_full(error) from None
        raise


# -- output -------------------------------------------------------------------------------------

_SPOOL_IN_MEMORY = 16 << 20


@contextlib.contextmanager
def stdout_when_complete() -> Iterator[TextIO]:
    """A text stream that reaches stdout only when the block succeeds: a run that fails half
    way writes nothing (the catalog is spooled to a temporary file past 16 MiB)."""
    try:
        spool = tempfile.SpooledTemporaryFile(  # noqa: SIM115 - closed below
            max_size=_SPOOL_IN_MEMORY, mode="w+", encoding="utf-8", newline=""
        )
    except OSError as exc:
        raise OutputError(f"cannot create a temporary file: {exc.strerror}") from None
    with spool:
        try:
            yield cast(TextIO, spool)
        except OSError as exc:
            if safe.is_disk_full(exc):
                raise OutputError(
                    f"cannot buffer the output in {tempfile.gettempdir()}: {exc.strerror}; "
                    "set TMPDIR to a filesystem with room, or give an output directory"
                ) from None
            raise
        spool.seek(0)
        shutil.copyfileobj(spool, sys.stdout, 1 << 20)
    _flush_stdout()


def is_stdio(value: str | Path | None) -> bool:
    return value is not None and str(value) == "-"


def no_stdout(what: str) -> UsageFailure:
    return UsageFailure(f"{what} cannot be '-' (standard output): it is a directory tree")


@contextlib.contextmanager
def stdin_as_file(reference: Path | str) -> Iterator[Path | str]:
    """``reference`` unchanged (a path or an image reference); for '-', standard input copied
    to a scratch file first (a database or an archive must be a file). Messages then name
    ``<stdin>``."""
    if not is_stdio(reference):
        yield reference
        return
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise OutputError("stdin is closed; there is nothing to read")
    scratch = safe.scratch_dir("stdin")
    target = scratch / "stdin"
    limit = safe.limits().max_archive_size
    try:
        with target.open("xb") as fh:
            copied = 0
            while chunk := stream.read(1 << 20):
                copied += len(chunk)
                if copied > limit:
                    raise OutputError(
                        f"<stdin>: more than {safe.size_text(limit)} (--max-archive-size)"
                    )
                fh.write(chunk)
        try:
            yield target
        except OlmcatError as error:
            error.args = (str(error).replace(str(target), "<stdin>"),)
            raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@contextlib.contextmanager
def file_for_stdout(out: Path) -> Iterator[Path]:
    """``out`` itself; for '-', a scratch file whose bytes go to stdout once the block
    succeeds (for outputs that must be a file while written, such as a database)."""
    if not is_stdio(out):
        yield out
        return
    scratch = safe.scratch_dir("stdout")
    try:
        target = scratch / "output"
        yield target
        with target.open("rb") as fh:
            shutil.copyfileobj(fh, sys.stdout.buffer, 1 << 20)
        _flush_stdout()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
