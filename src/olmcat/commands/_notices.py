"""The CLI's notice sink: what a run left out, rewrote or defaulted, on stderr and in --report.

Warnings print as they arrive. Error notices (what a reader refused) are held while the command
runs (:func:`holding_errors`): printed when the run succeeds (with --permissive they say what was
left out); when it fails, its one error line names the first of them and counts the rest, and
--report keeps them all.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from olmcat.commands._progress import warn
from olmcat.files.output import write_report
from olmcat.notices import Notice, NoticeLog, report_document

_held_errors: list[Notice] = []
_holding = False


def print_notice(notice: Notice) -> None:
    """The CLI's notice sink: one stderr line per warning; info notices go to --report only."""
    if notice.severity == "error" and _holding:
        _held_errors.append(notice)
    elif notice.severity != "info":
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


def input_notice(notice: Notice) -> None:
    """Where the input layer's notices go while a command runs (``safe.notices_to``)."""
    if _report_sinks:
        for sink in _report_sinks:
            sink(notice)
    else:
        print_notice(notice)


@contextlib.contextmanager
def holding_errors() -> Iterator[None]:
    """Hold error notices for the length of a command's run; print them if it succeeds."""
    global _holding
    _holding, succeeded = True, False
    try:
        yield
        succeeded = True
    finally:
        _holding = False
        _report_sinks.clear()
        held = list(_held_errors)
        _held_errors.clear()
        if succeeded:
            for notice in held:
                warn(notice.message)
