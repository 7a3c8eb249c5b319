"""``olmcat olmv1``: what OLM v1 (operator-controller v1.11.0) does with bundles.

``crd-upgrade`` follows ``diff``'s exit statuses: 0 safe, 1 refused, 2 trouble (bad input,
anything unexpected), so a crash never looks like a verdict to a CI gate.
"""

from __future__ import annotations

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import CommandError
from olmcat.commands._notices import print_notice
from olmcat.commands._options import Settings, examples, platform_option
from olmcat.commands._registry import registry_options
from olmcat.errors import OlmcatError


class Trouble(CommandError):
    """Bad input or any other failure: one line on stderr and exit status 2."""

    exit_code = 2


@click.group("olmv1")
def olmv1() -> None:
    """What OLM v1 (operator-controller v1.11.0) does with registry+v1 bundles."""


@examples(
    "olmcat olmv1 crd-upgrade fixtures/crds/widgets-v1.yaml fixtures/crds/widgets-v2.yaml",
    "olmcat olmv1 crd-upgrade old-bundle/ new-bundle/ --format markdown >> $GITHUB_STEP_SUMMARY",
    "olmcat olmv1 crd-upgrade quay.io/acme/op-bundle:v1.0.0 quay.io/acme/op-bundle:v1.1.0",
)
@olmv1.command("crd-upgrade")
@click.argument("old")
@click.argument("new")
@click.option(
    "--format",
    "output",
    type=click.Choice(("text", "json", "markdown")),
    default="text",
    show_default=True,
    help="text: one line per finding in operator-controller's words plus the rule ID; json: "
    "one document; markdown: a table for pull requests.",
)
@platform_option
@cache_options
@registry_options()
@click.pass_context
def crd_upgrade_command(
    ctx: click.Context, old: str, new: str, output: str, platform: str | None
) -> None:
    """Would OLM v1 refuse the CRDs of NEW over those of OLD?

    OLD and NEW are each a CRD file (YAML or JSON), a bundle directory or a bundle image. Every
    CRD both hold is compared as operator-controller v1.11.0's CRD upgrade-safety preflight
    compares the installed CRD with the new one (crdify: scope, stored versions, removed
    fields, enum, required, bounds, default, type, nullable, oneOf, pattern and any other
    change). Exit status: 0 safe, 1 refused, 2 trouble.
    """
    settings = ctx.find_object(Settings) or Settings()
    try:
        from olmcat.olmv1.crdupgrade.check import crd_upgrade
        from olmcat.olmv1.crdupgrade.render import render

        result = crd_upgrade(old, new, platform=platform, notify=print_notice)
        click.echo(render(result, output), nl=False)
    except (click.exceptions.Exit, click.Abort, click.ClickException, BrokenPipeError):
        raise
    except Exception as error:
        if settings.debug:
            raise
        if isinstance(error, OlmcatError):
            raise Trouble(str(error)) from error
        text = " ".join(str(error).split()) or "no details"
        raise Trouble(
            f"unexpected {type(error).__name__}: {text} (run with --debug for a traceback)"
        ) from error
    ctx.exit(0 if result.safe else 1)
