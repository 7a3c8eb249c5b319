"""``olmcat validate``: opm's catalog rules, every problem with its location and rule ID."""

from __future__ import annotations

import json
import time

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import run
from olmcat.commands._options import examples, platform_option, quiet_option
from olmcat.commands._registry import registry_options


@examples(
    "olmcat validate catalog/                    # opm v1.72's rules, one line per problem",
    "olmcat validate catalog/ --compat v1.26     # the verdict of opm v1.26 (others warn)",
    "olmcat validate catalog/ --compat 1.46.0    # the verdict of the opm a pipeline pins",
    "olmcat validate catalog/ -o sarif > olmcat.sarif   # for GitHub code scanning",
    "olmcat validate catalog/ -o json | jq '.problems[] | select(.severity == \"error\")'",
    "olmcat validate index.db --disable CH009 --enable related-image-without-image",
    "olmcat validate --list-rules",
)
@click.command("validate")
@click.argument("catalog", required=False)
@click.option(
    "-o",
    "--output",
    "output",
    type=click.Choice(["text", "json", "sarif"]),
    default="text",
    show_default=True,
    help="text: one problem per line as found; json: one document at the end, one object per "
    "problem; sarif: a SARIF 2.1.0 log for code scanning.",
)
@click.option("--format", "format_", type=click.Choice(["text", "json"]), hidden=True)
@click.option(
    "--compat",
    default="v1.72",
    show_default=True,
    metavar="RELEASE",
    help="The opm release whose verdict to give, any from v1.26.5 to v1.73.0 (vX.Y means that "
    "line's newest patch): rules that release does not enforce only warn.",
)
@click.option(
    "--disable",
    "disabled",
    multiple=True,
    metavar="RULE",
    help="Skip a rule (ID such as OLMCAT-CH009 or CH009, or name; 'all' for every rule). "
    "Repeatable.",
)
@click.option(
    "--enable",
    "enabled",
    multiple=True,
    metavar="RULE",
    help="Run a rule that is off by default (or one --disable all turned off). Repeatable.",
)
@click.option("--list-rules", is_flag=True, help="List every rule and exit.")
@click.option("--strict", is_flag=True, help="Warnings make the catalog invalid too.")
@platform_option
@cache_options
@registry_options()
@quiet_option
@click.pass_context
def validate(
    ctx: click.Context,
    catalog: str | None,
    output: str,
    format_: str | None,
    compat: str,
    disabled: tuple[str, ...],
    enabled: tuple[str, ...],
    list_rules: bool,
    strict: bool,
    platform: str | None,
    quiet: bool,
) -> None:
    """Check CATALOG against opm's catalog rules and report every problem.

    CATALOG is an FBC directory or file ('-' for stdin), an SQLite index database, a
    package-manifest or bundle directory (packages the legacy loader would refuse are errors) or
    an index image archive. Each problem names its rule (ID and name, see --list-rules and
    docs/rules.md), its file, line and column, and how to fix it. Exit status: 0 valid, 1 invalid
    (errors, or warnings with --strict) or unreadable, 2 usage.
    """
    from olmcat import __version__ as olmcat_version
    from olmcat.errors import InputError
    from olmcat.validate import Problem, RuleSet, Summary
    from olmcat.validate import validate as run_validation
    from olmcat.validate.output import json_document, rules_table, sarif_document, text

    if format_ is not None:
        output = format_
    try:
        rules = RuleSet.build(compat, enabled, disabled)
    except InputError as error:
        raise click.UsageError(str(error)) from None
    if list_rules:
        click.echo(rules_table(rules))
        ctx.exit(0)
    if catalog is None:
        raise click.UsageError("missing argument 'CATALOG'")

    summary = Summary()
    started = time.monotonic()
    collected: list[Problem] = []

    def check() -> None:
        for problem in run_validation(catalog, rules=rules, summary=summary, platform=platform):
            if output == "text":
                click.echo(text(problem, fix=not quiet))
            else:
                collected.append(problem)

    run(ctx, check)
    valid = summary.valid(strict)
    if output == "json":
        document = json_document(catalog, summary, collected, strict=strict)
        click.echo(json.dumps(document, indent=2, ensure_ascii=False))
    elif output == "sarif":
        log = sarif_document(catalog, summary, collected, rules, version=olmcat_version)
        click.echo(json.dumps(log, indent=2, ensure_ascii=False))
    if not quiet:
        verdict = "valid" if valid else "invalid"
        click.echo(
            f"{catalog}: {verdict} for opm {summary.compat}: "
            f"{_count(summary.packages, 'package')}, {_count(summary.errors, 'error')}, "
            f"{_count(summary.warnings, 'warning')} "
            f"({time.monotonic() - started:.2f} s)",
            err=True,
        )
    ctx.exit(0 if valid else 1)


def _count(number: int, what: str) -> str:
    return f"{number} {what}" if number == 1 else f"{number} {what}s"
