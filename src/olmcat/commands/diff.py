"""``olmcat diff``: what changed in the upgrade graph between two catalog versions.

Exit status follows diff(1), not the other commands: 0 identical, 1 different, 2 trouble (bad
input, unusable output directory, anything unexpected). A crash must never look like "the
catalogs differ" to a CI gate, so every error is turned into status 2 here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import CommandError
from olmcat.commands._notices import print_notice
from olmcat.commands._options import Settings, examples
from olmcat.commands._registry import registry_options
from olmcat.errors import OlmcatError

if TYPE_CHECKING:  # the library is imported lazily to keep every command's start-up fast
    from olmcat.model import CatalogStats
    from olmcat.olmv1.crdupgrade.catalogs import CrdSafetyReport

FAIL_ON = ("any", "stranded", "crd")
COLOR = ("auto", "always", "never")


class DiffTrouble(CommandError):
    """Bad input or any other failure: one line on stderr and exit status 2, as diff(1)."""

    exit_code = 2


def _use_color(choice: str) -> bool:
    if choice == "always":
        return True
    if choice == "never":
        return False
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


@examples(
    "olmcat diff old-index.db new-index.db",
    "olmcat diff --format json -p etcd old.db catalog/",
    "olmcat diff --fail-on stranded old.db new.db    # CI gate",
    "olmcat diff old.db new.db --emit-delta delta/",
    "olmcat diff --format html old.db new.db > diff.html",
    "olmcat diff --crd-safety --fail-on crd old.db new.db   # would OLM v1 refuse the CRDs?",
)
@click.command("diff")
@click.argument("old")
@click.argument("new")
@click.option(
    "--format",
    "output",
    type=click.Choice(("text", "json", "markdown", "html")),
    default="text",
    show_default=True,
    help="text for people, json for machines (stable shape), markdown for pull requests, html "
    "for a self-contained page with each changed package's graph drawn before -> after.",
)
@click.option(
    "-p",
    "--package",
    "packages",
    multiple=True,
    metavar="NAME",
    help="Compare only this package (repeatable).",
)
@click.option("--summary", is_flag=True, help="Only totals and one line per package.")
@click.option(
    "--fail-on",
    type=click.Choice(FAIL_ON),
    default="any",
    show_default=True,
    help="'stranded': exit 1 only when installs lose their upgrade path; 'crd': exit 1 only "
    "when OLM v1 would refuse a CRD upgrade (implies --crd-safety). CI gates.",
)
@click.option(
    "--crd-safety",
    is_flag=True,
    help="Also compare the CRDs of OLD's channel heads with those of the bundles they upgrade to "
    "in NEW, as operator-controller v1.11.0's CRD upgrade-safety preflight does (contents from "
    "olm.bundle.object, else the bundle images).",
)
@click.option(
    "--emit-delta",
    type=click.Path(path_type=Path, file_okay=False),
    metavar="OUT",
    help="Also write an FBC directory holding only what is new or changed in NEW "
    "(not created when there is nothing).",
)
@click.option(
    "--semantics",
    type=click.Choice(("legacy", "semver")),
    default="legacy",
    show_default=True,
    help="Which installs count as stranded: legacy follows replaces/skips/skipRange to the "
    "channel head (OLM v0); semver follows OLM v1's semver successors to the highest version.",
)
@click.option(
    "--color",
    type=click.Choice(COLOR),
    default="auto",
    show_default=True,
    help="Colour the text format (auto: only on a terminal, unless NO_COLOR is set).",
)
@cache_options
@registry_options()
@click.pass_context
def diff(
    ctx: click.Context,
    old: str,
    new: str,
    output: str,
    packages: tuple[str, ...],
    summary: bool,
    fail_on: str,
    emit_delta: Path | None,
    semantics: str,
    color: str,
    crd_safety: bool,
) -> None:
    """Show what changed from catalog OLD to catalog NEW.

    OLD and NEW are any catalog references: an FBC directory or file, an SQLite index database,
    a package-manifest / bundle directory, or an index image archive. Reports packages, channels,
    heads, upgrade edges, bundles and deprecations that were added, removed or changed, and the
    upgrade impact: installs stranded without a path to the new channel head, channels that gain
    a second head or a cycle, replaces targets that disappeared.

    With --crd-safety, each package's CRDs are checked as OLM v1 checks them before an upgrade:
    every finding in operator-controller v1.11.0's words with its rule ID.

    Exit status: 0 identical, 1 different (with --fail-on stranded: stranded installs found;
    with --fail-on crd: a CRD upgrade OLM v1 would refuse), 2 trouble.
    """
    settings = ctx.find_object(Settings) or Settings()
    crd_safety = crd_safety or fail_on == "crd"
    crd_report = None
    try:
        from olmcat.diff.catalogs import compare
        from olmcat.diff.render import render

        collector = None
        if crd_safety:
            from olmcat.olmv1.crdupgrade.catalogs import CrdSafetyCollector

            collector = CrdSafetyCollector(notify=print_notice, semantics=semantics)
        pictures = None
        if output == "html":
            from olmcat.pictures.diff import diff_pictures

            pictures = diff_pictures(
                old,
                new,
                packages=packages or None,
                emit_delta=emit_delta,
                notify=print_notice,
                semantics=semantics,
                observe=collector.diff_observer if collector is not None else None,
            )
            comparison = pictures.comparison
        else:
            comparison = compare(
                old,
                new,
                packages=packages or None,
                emit_delta=emit_delta,
                notify=print_notice,
                semantics=semantics,
                observe=collector.diff_observer if collector is not None else None,
            )
        result = comparison.diff
        if collector is not None:
            crd_report = collector.report()
        if comparison.delta is not None:
            _delta_summary(comparison.delta, emit_delta)

        title = f"Catalog diff: `{old}` → `{new}`"
        if pictures is not None:
            if crd_report is not None:
                from olmcat.pictures.crdsafety import crd_safety_section

                pictures.sections.append(crd_safety_section(crd_report))
            text = pictures.html("Catalog diff", summary=summary)
        else:
            text = render(result, output, color=_use_color(color), summary=summary, title=title)
            if crd_report is not None:
                text = _with_crd_safety(text, output, crd_report)
        click.echo(text, nl=False, color=output == "text" and _use_color(color))
    except (click.exceptions.Exit, click.Abort, click.ClickException, BrokenPipeError):
        raise  # a closed pipe ends quietly (the CLI boundary)
    except Exception as error:
        if settings.debug:
            raise
        message = str(error) if isinstance(error, OlmcatError) else _unexpected(error)
        raise DiffTrouble(message) from error
    if fail_on == "stranded":
        ctx.exit(1 if result.stranded() else 0)
    if fail_on == "crd":
        ctx.exit(1 if crd_report is not None and crd_report.findings else 0)
    ctx.exit(0 if result.is_empty() else 1)


def _with_crd_safety(text: str, output: str, report: CrdSafetyReport) -> str:
    from olmcat.olmv1.crdupgrade.render import report_markdown, report_text, with_json

    if output == "json":
        return with_json(text, report)
    if output == "markdown":
        return text + report_markdown(report)
    return text + report_text(report)


def _delta_summary(stats: CatalogStats, emit_delta: Path | None) -> None:
    if not stats.packages:
        click.echo("olmcat: NEW adds or changes nothing: no delta catalog written", err=True)
        return
    click.echo(
        f"olmcat: wrote delta catalog ({_plural(stats.packages, 'package')}, "
        f"{_plural(stats.channels, 'channel')}, {_plural(stats.bundles, 'bundle')}) "
        f"to {emit_delta}",
        err=True,
    )


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _unexpected(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        where = f"{error.filename}: " if error.filename else ""
        return f"{where}{error.strerror}"
    text = " ".join(str(error).split()) or "no details"
    return f"unexpected {type(error).__name__}: {text} (run with --debug for a traceback)"
