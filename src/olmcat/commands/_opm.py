"""The ``--opm-version`` and ``--migrate-level`` options of every command that writes what an opm
release writes (render, render-template, template, add, migrate)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from olmcat.commands._errors import UsageFailure
from olmcat.errors import UsageError
from olmcat.go.opm import (
    MIGRATE_LEVELS,
    NEWEST,
    OLDEST,
    MigrateLevel,
    OpmRelease,
    check_migrate_level,
    opm_release,
)

F = TypeVar("F", bound=Callable[..., Any])


class OpmReleaseParam(click.ParamType):  # type: ignore[type-arg]
    """``X.Y`` (that line's newest patch) or ``X.Y.Z``, a leading ``v`` allowed."""

    name = "X.Y[.Z]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, OpmRelease):
            return value
        try:
            return opm_release(str(value))
        except ValueError as problem:
            self.fail(str(problem), param, ctx)


def opm_version_option(what: str) -> Callable[[F], F]:
    """``--opm-version``: which opm release's output to write (``what`` says what depends on it)."""
    return click.option(
        "--opm-version",
        "opm_version",
        type=OpmReleaseParam(),
        default=NEWEST.tag,
        show_default=True,
        help=f"Write what this opm release writes ({OLDEST.tag} to {NEWEST.tag}; X.Y is that "
        f"line's newest patch, e.g. 1.46 or 1.26 = v1.26.5): {what} See docs/opm-releases.md.",
    )


def migrate_level_option(function: F) -> F:
    return click.option(
        "--migrate-level",
        "migrate_level",
        type=click.Choice(MIGRATE_LEVELS),
        default="none",
        show_default=True,
        help="As opm's --migrate-level (opm v1.46.0 and later): bundle-object-to-csv-metadata "
        "replaces each bundle's olm.bundle.object properties by one olm.csv.metadata property "
        "built from its CSV.",
    )(function)


def checked_level(level: str, release: OpmRelease) -> MigrateLevel:
    """``level`` when ``release`` has it; a usage error (exit 2) naming the release that
    introduced migration levels otherwise."""
    try:
        return check_migrate_level(level, release)
    except UsageError as problem:
        raise UsageFailure(str(problem)) from None
