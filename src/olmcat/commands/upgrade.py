"""``olmcat upgrade-check``: can every installed operator move from catalog OLD to NEW?

Exit status follows ``diff``: 0 nothing blocks, 1 something blocks (no path, removed package or
channel, a cluster-upgrade blocker), 2 trouble (bad input, anything unexpected). A crash must never
look like a clean bill of health or a blocker to a CI gate, so every error becomes status 2.
"""

from __future__ import annotations

from pathlib import Path

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import CommandError
from olmcat.commands._notices import NoticeReport
from olmcat.commands._options import Settings, examples, report_option
from olmcat.commands._registry import registry_options
from olmcat.errors import OlmcatError


class CheckTrouble(CommandError):
    """Bad input or any other failure: one line on stderr and exit status 2."""

    exit_code = 2


def _unexpected(error: Exception) -> str:
    if isinstance(error, OSError) and error.strerror:
        where = f"{error.filename}: " if error.filename else ""
        return f"{where}{error.strerror}"
    text = " ".join(str(error).split()) or "no details"
    return f"unexpected {type(error).__name__}: {text} (run with --debug for a traceback)"


@examples(
    "oc get subscriptions.operators.coreos.com,clusterserviceversions -A -o yaml | "
    "olmcat upgrade-check index-v4.15.tar index-v4.16.tar --installed - --target-ocp 4.16",
    "olmcat upgrade-check old.db new.db --installed fixtures/inventory-simple.csv --markdown",
    "olmcat upgrade-check old/ new/ --installed clusterextensions.yaml --semantics semver --json",
    "olmcat upgrade-check old.db new.db --installed inventory.csv --format html > check.html",
    "olmcat upgrade-check old.db new.db --installed inventory.csv --crd-safety --fail-on crd",
)
@click.command("upgrade-check")
@click.argument("old")
@click.argument("new")
@click.option(
    "--installed",
    "inventory",
    required=True,
    metavar="INVENTORY",
    help="What the cluster runs: `oc get subscriptions.operators.coreos.com,"
    "clusterserviceversions -A -o yaml`, OLM v1 ClusterExtensions, or package,channel,version "
    "rows (YAML or CSV); - for stdin.",
)
@click.option(
    "--target-ocp",
    metavar="X.Y",
    help="The OpenShift release the cluster is about to upgrade to: installed CSVs whose "
    "olm.maxOpenShiftVersion is lower block it.",
)
@click.option(
    "--semantics",
    type=click.Choice(["legacy", "semver"]),
    default="legacy",
    show_default=True,
    help="legacy: replaces/skips/skipRange as OLM v0 walks them (ClusterExtensions as OLM v1 "
    "does); semver: OLM v1's semver successors (any higher version within ^installed).",
)
@click.option(
    "--format",
    "output",
    type=click.Choice(("text", "json", "markdown", "html")),
    default=None,
    help="text for people (default), json for machines (schema olmcat.upgrade-check.v1), "
    "markdown for a change ticket, html for a self-contained page with each operator's path "
    "drawn on its channel graph.",
)
@click.option(
    "--crd-safety",
    is_flag=True,
    help="Also compare the CRDs of each installed bundle with those of the bundle its upgrade "
    "lands on in NEW, as operator-controller v1.11.0's CRD upgrade-safety preflight does "
    "(contents from olm.bundle.object, else the bundle images); a refusal blocks.",
)
@click.option(
    "--fail-on",
    type=click.Choice(("blocking", "crd")),
    default="blocking",
    show_default=True,
    help="'crd': exit 1 only when OLM v1 would refuse a CRD upgrade (implies --crd-safety).",
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Same as --format markdown.")
@report_option
@cache_options
@registry_options()
@click.pass_context
def upgrade_check(
    ctx: click.Context,
    old: str,
    new: str,
    inventory: str,
    target_ocp: str | None,
    semantics: str,
    output: str | None,
    as_json: bool,
    as_markdown: bool,
    report: Path | None,
    crd_safety: bool,
    fail_on: str,
) -> None:
    """Check whether every operator the cluster runs can move from catalog OLD to catalog NEW.

    OLD and NEW are any catalog references (FBC, SQLite DB, package-manifest tree, index image
    archive), e.g. the 4.15 and 4.16 operator indexes. For each installed operator: is its
    bundle in NEW, the upgrade path to NEW's channel head, a renamed or removed channel (and the
    channel it most likely maps to), deprecations, olm.maxOpenShiftVersion below --target-ocp
    (read from the installed CSV as OpenShift reads it), and bundle or related images that moved.

    With --crd-safety, each installed bundle's CRDs are checked against the bundle its upgrade
    lands on, as OLM v1 checks them: every finding in operator-controller v1.11.0's words.

    Exit status: 0 nothing blocks, 1 something blocks (with --crd-safety a refused CRD upgrade
    blocks too; with --fail-on crd only that counts), 2 trouble.
    """
    chosen = [f for f, on in (("json", as_json), ("markdown", as_markdown)) if on]
    if output is not None:
        chosen.append(output)
    if len(set(chosen)) > 1:
        raise click.UsageError("choose one output format (--format, --json or --markdown)")
    fmt = chosen[0] if chosen else "text"
    settings = ctx.find_object(Settings) or Settings()
    notices = NoticeReport()
    crd_safety = crd_safety or fail_on == "crd"
    crd_report = None
    try:
        from olmcat.upgrade import load_inventory
        from olmcat.upgrade import upgrade_check as check
        from olmcat.upgrade.render import render

        installed = load_inventory(inventory, notify=notices)
        collector = observe = None
        if crd_safety:
            from olmcat.olmv1.crdupgrade.catalogs import CrdSafetyCollector

            collector = CrdSafetyCollector(notify=notices, semantics=semantics)
            observe = collector.inventory_observer(list(installed))
        if fmt == "html":
            from olmcat.pictures.upgrade import upgrade_pictures

            pictures = upgrade_pictures(
                old,
                new,
                installed,
                semantics=semantics,  # type: ignore[arg-type]
                target_ocp=target_ocp,
                notify=notices,
                observe=observe,
            )
            result = pictures.report
            if collector is not None:
                from olmcat.pictures.crdsafety import crd_safety_section

                crd_report = collector.report()
                pictures.sections.append(crd_safety_section(crd_report))
            click.echo(pictures.html(), nl=False)
        else:
            result = check(
                old,
                new,
                installed,
                semantics=semantics,  # type: ignore[arg-type]
                target_ocp=target_ocp,
                notify=notices,
                observe=observe,
            )
            text = render(result, fmt)  # type: ignore[arg-type]
            if collector is not None:
                from olmcat.olmv1.crdupgrade.render import report_markdown, report_text, with_json

                crd_report = collector.report()
                if fmt == "json":
                    text = with_json(text, crd_report)
                elif fmt == "markdown":
                    text += report_markdown(crd_report)
                else:
                    text += report_text(crd_report)
            click.echo(text, nl=False)
        notices.write(report, command="upgrade-check", inputs=[old, new, inventory])
    except (click.exceptions.Exit, click.Abort, click.ClickException, BrokenPipeError):
        raise  # a closed pipe ends quietly (the CLI boundary)
    except Exception as error:
        if settings.debug:
            raise
        message = str(error) if isinstance(error, OlmcatError) else _unexpected(error)
        raise CheckTrouble(message) from error
    refused = crd_report is not None and bool(crd_report.findings)
    if fail_on == "crd":
        ctx.exit(1 if refused else 0)
    ctx.exit(1 if result.blocking or refused else 0)
