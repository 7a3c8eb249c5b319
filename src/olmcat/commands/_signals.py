"""Signals during a command's run: Ctrl-C, SIGTERM and SIGHUP end it with cleanup.

Inside a run they raise (KeyboardInterrupt, or :class:`Terminated` for SIGTERM / SIGHUP) where
the program is, so ``finally`` blocks and scratch cleanup run; the boundary then exits with
128 + the signal. Outside a run (starting, exiting) the program entry point's handler decides.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program is so cleanup runs as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated(signum)


# Set by the program entry point (never by library use or tests running commands in-process):
# how Ctrl-C is handled outside a command's run.
_outside_handler: Callable[[int, FrameType | None], None] | None = None


def program_signals(handler: Callable[[int, FrameType | None], None]) -> None:
    global _outside_handler
    _outside_handler = handler


@contextlib.contextmanager
def run_signals() -> Iterator[None]:
    """The signal handlers of a command's run (restored afterwards)."""
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
            ignore_interrupts()


def ignore_interrupts() -> None:
    """Later Ctrl-Cs must not interrupt cleanup that already ran, or the final message."""
    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
