"""What ``olmcat validate`` reports: one :class:`Problem` per broken rule, and the run's
:class:`Summary`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from olmcat.readers.fbcscan import Position
from olmcat.validate.rules import RULES, Compat, Rule, RuleSet, Severity

_BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}


@dataclass(frozen=True, slots=True)
class Problem:
    """One broken rule, where it is, and what to do about it.

    ``file``, ``line`` and ``column`` locate the blob (FBC input) or file (other forms) the
    problem comes from, when known (``line``/``column`` 1-based, 0 when unknown); ``package``,
    ``channel`` and ``bundle`` name what it concerns.
    """

    rule: str
    name: str
    severity: Severity
    message: str
    fix: str = ""
    file: str = ""
    line: int = 0
    column: int = 0
    package: str = ""
    channel: str = ""
    bundle: str = ""

    @property
    def scope(self) -> str:
        parts = [
            f"{what} {name}"
            for what, name in (
                ("package", self.package),
                ("channel", self.channel),
                ("bundle", self.bundle),
            )
            if name
        ]
        return ", ".join(parts)

    @property
    def location(self) -> str:
        """``file:line:column`` (as compilers print it) or the package / channel / bundle."""
        if self.file:
            return str(Position(self.file, self.line, self.column))
        return self.scope or "catalog"

    def __str__(self) -> str:
        return f"{self.location}: {self.severity}: {self.message} [{self.rule} {self.name}]"

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "name": self.name,
            "severity": self.severity,
            "package": self.package,
            "channel": self.channel,
            "bundle": self.bundle,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "fix": self.fix,
        }


@dataclass(slots=True)
class Summary:
    """Counts gathered while :func:`olmcat.validate.validate` runs."""

    kind: str = ""
    compat: Compat = "v1.72"
    packages: int = 0
    errors: int = 0
    warnings: int = 0

    def count(self, problem: Problem) -> Problem:
        if problem.severity == "error":
            self.errors += 1
        else:
            self.warnings += 1
        return problem

    def valid(self, strict: bool = False) -> bool:
        return self.errors == 0 and not (strict and self.warnings)


@dataclass(slots=True)
class Findings:
    """Turns (rule name, message, where) into :class:`Problem` values under a :class:`RuleSet`:
    disabled rules are dropped, severities follow the compatibility level."""

    rules: RuleSet
    items: list[Problem] = field(default_factory=list)

    def add(
        self,
        name: str,
        message: str,
        *,
        at: Position | None = None,
        package: str = "",
        channel: str = "",
        bundle: str = "",
        until: str = "",
    ) -> None:
        """``until``: a release from which this problem no longer exists (opm reads the
        document differently), narrowing the releases of the rule for this problem."""
        rule = _BY_NAME[name]
        if not self.rules.is_on(rule.id):
            return
        severity = rule.severity(self.rules.compat)
        if until and self.rules.release.at_least(until):
            severity = "warning"
        self.items.append(
            Problem(
                rule.id,
                rule.name,
                severity,
                message,
                rule.fix,
                at.file if at is not None else "",
                at.line if at is not None else 0,
                at.column if at is not None else 0,
                package,
                channel,
                bundle,
            )
        )

    def take(self) -> list[Problem]:
        items, self.items = self.items, []
        return items


Add = Callable[..., None]
