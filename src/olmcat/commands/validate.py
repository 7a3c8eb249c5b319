"""``olmcat validate``: every rule opm applies to a catalog, every problem with its location."""

from __future__ import annotations

import json
import time

import click

from olmcat.commands._common import examples, platform_option, quiet_option, run
from olmcat.commands._registry import registry_options


@examples(
    "olmcat validate catalog/",
    "olmcat validate --format json index.db > problems.json",
    "cat catalog.json | olmcat validate -",
)
@click.command("validate")
@click.argument("catalog")
@click.option(
    "--format",
    "format_",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: one problem per line as it is found; json: one document at the end.",
)
@click.option("--strict", is_flag=True, help="Warnings make the catalog invalid too.")
@platform_option
@registry_options()
@quiet_option
@click.pass_context
def validate(
    ctx: click.Context, catalog: str, format_: str, strict: bool, platform: str | None, quiet: bool
) -> None:
    """Check CATALOG against opm's file-based catalog rules and report every problem.

    CATALOG is an FBC directory or file ('-' for stdin), an SQLite index database, a
    package-manifest directory (whose packages the legacy loader would reject are reported too) or
    an index image archive. Exit status: 0 valid, 1 invalid (errors, or warnings with --strict)
    or unreadable.
    """
    from olmcat.validate.checks import Problem, Summary
    from olmcat.validate.checks import validate as run_validation

    summary = Summary()
    started = time.monotonic()
    collected: list[Problem] = []

    def check() -> None:
        for problem in run_validation(catalog, summary=summary, platform=platform):
            if format_ == "json":
                collected.append(problem)
            else:
                click.echo(str(problem))

    run(ctx, check)
    valid = summary.valid(strict)
    if format_ == "json":
        document = {
            "catalog": catalog,
            "kind": summary.kind,
            "valid": valid,
            "strict": strict,
            "packages": summary.packages,
            "errors": summary.errors,
            "warnings": summary.warnings,
            "problems": [p.to_dict() for p in collected],
        }
        click.echo(json.dumps(document, indent=2, ensure_ascii=False))
    if not quiet:
        verdict = "valid" if valid else "invalid"
        click.echo(
            f"{catalog}: {verdict}: {summary.packages} packages, {summary.errors} errors, "
            f"{summary.warnings} warnings ({time.monotonic() - started:.2f} s)",
            err=True,
        )
    ctx.exit(0 if valid else 1)
