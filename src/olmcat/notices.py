"""Notices: the one structured record of everything olmcat left out, rewrote, defaulted or doubts.

Readers and operations never print. They call a :data:`NoticeSink` with a :class:`Notice`; the CLI
formats notices as ``olmcat: warning: ...`` lines on stderr and writes them to ``--report``; a
library caller collects them with a :class:`NoticeLog` (or passes any callable). Codes are stable
(documented in docs/notices.md): tools may match on them, people read ``message``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")

REPORT_SCHEMA = "olmcat.report.v1"


@dataclass(frozen=True, slots=True)
class Notice:
    """One thing a user must be told about.

    ``code`` is a stable dotted identifier (``pkgman.later-documents-ignored``); ``message`` is one
    self-contained line that already names the file / package / bundle; the location fields repeat
    them for machines (empty when not known).
    """

    code: str
    message: str
    severity: Severity = "warning"
    file: str = ""
    package: str = ""
    bundle: str = ""

    def __str__(self) -> str:
        return self.message

    def to_json(self) -> dict[str, str]:
        return {
            "code": self.code,
            "severity": self.severity,
            "package": self.package,
            "bundle": self.bundle,
            "file": self.file,
            "message": self.message,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Notice:
        severity = data.get("severity", "warning")
        return cls(
            code=str(data["code"]),
            message=str(data["message"]),
            severity=severity if severity in SEVERITIES else "warning",
            file=str(data.get("file", "")),
            package=str(data.get("package", "")),
            bundle=str(data.get("bundle", "")),
        )


NoticeSink = Callable[[Notice], None]
"""Where notices go. Any callable taking a :class:`Notice` will do."""


def discard(_: Notice) -> None:
    """A sink that drops every notice (the default where a caller passes none)."""


@dataclass(slots=True)
class NoticeLog:
    """Collects notices, in order, and optionally passes each on to another sink as it arrives."""

    forward: NoticeSink | None = None
    notices: list[Notice] = field(default_factory=list)

    def __call__(self, notice: Notice) -> None:
        self.notices.append(notice)
        if self.forward is not None:
            self.forward(notice)

    def __iter__(self) -> Iterator[Notice]:
        return iter(self.notices)

    def __len__(self) -> int:
        return len(self.notices)

    def codes(self) -> Counter[str]:
        return Counter(n.code for n in self.notices)

    def extend(self, notices: Iterable[Notice]) -> None:
        for notice in notices:
            self(notice)


def report_document(
    notices: Iterable[Notice], *, command: str, inputs: Iterable[str], **extra: Any
) -> dict[str, Any]:
    """The ``--report`` JSON document: every notice plus counts by code and severity."""
    items = list(notices)
    return {
        "schema": REPORT_SCHEMA,
        "command": command,
        "inputs": list(inputs),
        **extra,
        "summary": {
            "notices": len(items),
            "by_severity": dict(sorted(Counter(n.severity for n in items).items())),
            "by_code": dict(sorted(Counter(n.code for n in items).items())),
        },
        "notices": [n.to_json() for n in items],
    }
