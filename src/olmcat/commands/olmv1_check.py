"""``olmcat olmv1 check`` and ``olmcat olmv1 plan``: what operator-controller v1.11.0 installs.

Exit status as ``validate``: 0 every bundle (every operator) installable, 1 something refused or
not known, or the input unreadable, 2 usage (an unknown feature gate among them).
"""

from __future__ import annotations

from pathlib import Path

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import UsageFailure, run
from olmcat.commands._notices import NoticeReport
from olmcat.commands._options import examples, platform_option, report_option
from olmcat.commands._registry import registry_options
from olmcat.errors import UsageError

FORMATS = ("text", "json", "markdown", "html")

_GATES_HELP = (
    "operator-controller's feature gates, Name=true,Name2=false (repeatable), over v1.11.0's "
    "defaults: SingleOwnNamespaceInstallSupport=false, WebhookProviderCertManager=true, "
    "WebhookProviderOpenshiftServiceCA=true, DeploymentConfig=false, BoxcutterRuntime=false, "
    "BundleReleaseSupport=false."
)


def _gates(specs: tuple[str, ...]) -> dict[str, bool]:
    from olmcat.olmv1.check import parse_feature_gates

    try:
        return parse_feature_gates(specs)
    except UsageError as error:
        raise UsageFailure(f"--feature-gates: {error}") from None


@examples(
    "olmcat olmv1 check catalog/                     # every channel head, v1.11.0's gates",
    "olmcat olmv1 check index.db --all -p etcd       # every bundle of one package",
    "olmcat olmv1 check bundle-dir/ docker://quay.io/org/op-bundle:v1.2.0",
    "olmcat olmv1 check catalog/ --feature-gates SingleOwnNamespaceInstallSupport=true",
    "olmcat olmv1 check bundle-dir/ --feature-gates SingleOwnNamespaceInstallSupport=true "
    "--namespace team-a --watch-namespace team-a",
    "olmcat olmv1 check catalog/ --format html > olmv1-check.html",
    "olmcat olmv1 check --list-rules",
    "olmcat olmv1 check catalog/ --format json | jq '.bundles[] | select(.verdict == \"refused\")'",
)
@click.command("check")
@click.argument("references", nargs=-1, metavar="CATALOG|BUNDLE...")
@click.option(
    "-p",
    "--package",
    "packages",
    multiple=True,
    metavar="NAME",
    help="Only this package of the catalogs (repeatable).",
)
@click.option(
    "--all", "all_bundles", is_flag=True, help="Every bundle of a catalog, not only channel heads."
)
@click.option("--feature-gates", "gate_specs", multiple=True, metavar="GATES", help=_GATES_HELP)
@click.option(
    "--offline",
    is_flag=True,
    help="Read no bundle image: a bundle the catalog describes only by olm.csv.metadata gets "
    "the verdict unknown, naming the checks that could not run.",
)
@click.option(
    "-n",
    "--namespace",
    default="",
    metavar="NS",
    help="The ClusterExtension's install namespace (spec.namespace), which an OwnNamespace "
    "watchNamespace must equal. Default: a placeholder.",
)
@click.option(
    "--watch-namespace",
    metavar="NS",
    help="The configuration's watchNamespace (spec.config.inline.watchNamespace).",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="The ClusterExtension's spec.config.inline (YAML or JSON), checked as v1.11.0 checks "
    "it against each bundle's configuration schema. Without it (and --watch-namespace) no "
    "configuration is assumed.",
)
@click.option(
    "--format",
    "output",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text for people, json for machines (schema olmcat.olmv1-check.v1), markdown for a "
    "ticket, html for a self-contained page.",
)
@click.option(
    "--list-rules",
    is_flag=True,
    help="List every rule (and whether it needs the bundle's files) and exit.",
)
@report_option
@platform_option
@cache_options
@registry_options()
@click.pass_context
def check_command(
    ctx: click.Context,
    references: tuple[str, ...],
    packages: tuple[str, ...],
    all_bundles: bool,
    gate_specs: tuple[str, ...],
    offline: bool,
    namespace: str,
    watch_namespace: str | None,
    config_file: Path | None,
    output: str,
    list_rules: bool,
    report: Path | None,
    platform: str | None,
) -> None:
    """Will operator-controller v1.11.0 install each bundle, and if not, why not.

    Each reference is a bundle directory, a bundle image (registry or archive) or any catalog
    olmcat reads (FBC, SQLite, package manifests, index image). Of a catalog the channel heads
    are checked (--all: every bundle). Every reason is given with its rule ID, worded as
    v1.11.0 words it: dependency properties (resolve/validation.go), the unsupported-bundle
    checks of applier/provider.go under the feature gates, the ClusterExtension's configuration
    when one is given, the thirteen content validators and the renderer. A bundle the catalog
    describes only by olm.csv.metadata is checked from its image; when the image cannot be read
    the verdict is unknown, never a silent yes.

    Exit status: 0 every bundle installable, 1 a bundle refused or unknown (or unreadable
    input), 2 usage.
    """
    from olmcat.files import safe
    from olmcat.olmv1.check import check, extension_config, rules_table
    from olmcat.olmv1.report import render

    if list_rules:
        click.echo(rules_table(), nl=False)
        ctx.exit(0)
    if not references:
        raise click.UsageError("missing argument 'CATALOG|BUNDLE...'")

    gates = _gates(gate_specs)
    notices = NoticeReport()

    def work() -> object:
        text = None
        if config_file is not None:
            safe.add_root(config_file.parent)
            text = safe.read_text(config_file)
        return check(
            list(references),
            packages=packages or None,
            all_bundles=all_bundles,
            gates=gates,
            pull=not offline,
            platform=platform,
            notify=notices,
            namespace=namespace,
            config=extension_config(text, watch_namespace),
        )

    result = run(ctx, work)
    if output == "html":
        from olmcat.pictures.olmv1 import check_html

        click.echo(check_html(result), nl=False)  # type: ignore[arg-type]
    else:
        click.echo(render(result, output), nl=False)  # type: ignore[arg-type]
    notices.write(report, command="olmv1 check", inputs=references)
    ctx.exit(0 if result.ok else 1)  # type: ignore[attr-defined]


@examples(
    "olmcat olmv1 plan --installed fixtures/inventory-example.csv fixtures/example/expected",
    "oc get subscriptions.operators.coreos.com,clusterserviceversions -A -o yaml | "
    "olmcat olmv1 plan --installed - index.db --format markdown",
    "olmcat olmv1 plan --installed inventory.csv catalog/ --format html > plan.html",
)
@click.command("plan")
@click.argument("catalog")
@click.option(
    "--installed",
    "inventory",
    required=True,
    metavar="INVENTORY",
    help="What the cluster runs (as upgrade-check reads it): `oc get subscriptions.operators."
    "coreos.com,clusterserviceversions -A -o yaml`, or package,channel,version rows; - for "
    "stdin.",
)
@click.option("--feature-gates", "gate_specs", multiple=True, metavar="GATES", help=_GATES_HELP)
@click.option(
    "--offline",
    is_flag=True,
    help="Read no bundle image (bundles described only by olm.csv.metadata stay unknown).",
)
@click.option(
    "--format",
    "output",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text, json (schema olmcat.olmv1-plan.v1), markdown or a self-contained html page.",
)
@report_option
@platform_option
@cache_options
@registry_options()
@click.pass_context
def plan_command(
    ctx: click.Context,
    catalog: str,
    inventory: str,
    gate_specs: tuple[str, ...],
    offline: bool,
    output: str,
    report: Path | None,
    platform: str | None,
) -> None:
    """Which operators a cluster runs with OLM v0 can OLM v1 (operator-controller v1.11.0)
    install from CATALOG, what blocks the others, and the install command for each.

    For each installed operator: can OLM v1 install the installed version, and the newest
    version of its channel; every reason it would refuse, with its rule ID (see `olmcat olmv1
    check`); and the `olmcat olmv1 install` command that writes the ClusterExtension.

    Exit status: 0 every installed operator can move as it is, 1 one cannot (or is not known,
    or the input is unreadable), 2 usage.
    """
    from olmcat.olmv1.plan import plan
    from olmcat.olmv1.plan import render as render_plan
    from olmcat.upgrade import load_inventory

    gates = _gates(gate_specs)
    notices = NoticeReport()

    def work() -> object:
        installed = load_inventory(inventory, notify=notices)
        return plan(
            catalog,
            installed,
            gates=gates,
            pull=not offline,
            platform=platform,
            notify=notices,
            catalog_label=catalog,
        )

    result = run(ctx, work)
    if output == "html":
        from olmcat.pictures.olmv1 import plan_html

        click.echo(plan_html(result), nl=False)  # type: ignore[arg-type]
    else:
        click.echo(render_plan(result, output), nl=False)  # type: ignore[arg-type]
    notices.write(report, command="olmv1 plan", inputs=[catalog, inventory])
    ctx.exit(0 if result.ok else 1)  # type: ignore[attr-defined]
