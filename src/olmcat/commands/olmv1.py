"""``olmcat olmv1``: OLM v1 (operator-controller v1.11.0) questions about bundles and catalogs."""

from __future__ import annotations

from pathlib import Path

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import CommandError, run
from olmcat.commands._notices import print_notice
from olmcat.commands._options import Settings, examples, platform_option, report_option
from olmcat.commands._registry import registry_options
from olmcat.errors import OlmcatError


@click.group()
def olmv1() -> None:
    """What OLM v1 (operator-controller v1.11.0) does with a bundle or a catalog."""


# -- olmv1 render ---------------------------------------------------------------------------------

CERT_PROVIDERS = ("cert-manager", "openshift-service-ca")


@examples(
    "olmcat olmv1 render fixtures/olmv1/webhook-bundle --namespace webhook-system",
    "olmcat olmv1 render fixtures/olmv1/webhook-bundle --namespace webhook-system "
    "--cert-provider cert-manager --out manifests",
    "olmcat olmv1 render quay.io/example/argocd-bundle:v0.6.0 --namespace argocd "
    "--watch-namespace team-a",
    "olmcat olmv1 render bundles/argocd --namespace argocd --config config.yaml",
)
@olmv1.command("render")
@click.argument("bundle")
@click.option(
    "-n",
    "--namespace",
    required=True,
    metavar="NS",
    help="The install namespace (the ClusterExtension's spec.namespace).",
)
@click.option(
    "--watch-namespace",
    metavar="NS",
    help="The namespace the operator watches (the configuration's watchNamespace): NS itself "
    "for OwnNamespace, another namespace for SingleNamespace. Default: all namespaces when the "
    "bundle supports AllNamespaces.",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="The ClusterExtension's spec.config.inline (YAML or JSON: watchNamespace, "
    "deploymentConfig), validated against the bundle's configuration schema.",
)
@click.option(
    "--cert-provider",
    type=click.Choice(CERT_PROVIDERS),
    help="Who issues the webhook serving certificates. Default: none (no certificate objects "
    "and no CA injection, as the renderer does without one).",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR",
    help="Write one file per object into DIR (NN_kind_name.yaml, sorted by kind, namespace and "
    "name) instead of one YAML stream on stdout. DIR must not exist or be empty.",
)
@platform_option
@registry_options()
@report_option
@click.pass_context
def render(
    ctx: click.Context,
    bundle: str,
    namespace: str,
    watch_namespace: str | None,
    config_file: Path | None,
    cert_provider: str | None,
    out: Path | None,
    platform: str | None,
    report: Path | None,
) -> None:
    """Print the objects OLM v1 applies for BUNDLE installed into --namespace.

    BUNDLE is a bundle directory (manifests/ + metadata/) or a bundle image (HOST/REPO:TAG,
    docker://..., oci:DIR, oci-archive:FILE, docker-archive:FILE). The objects are those
    operator-controller v1.11.0's registry+v1 renderer makes (ServiceAccounts, Roles and
    ClusterRoles with their hashed names, bindings, CRDs, the bundle's other objects, the
    Deployments, webhook configurations, Services and certificate objects), in its order, as one
    YAML stream; with --out, one file per object as operator-controller's regression test
    writes them. The options apply as given: no feature gate is consulted. A bundle or a
    configuration v1.11.0 refuses is refused with its message.
    """
    from olmcat.commands._notices import NoticeReport
    from olmcat.commands._streams import stdout_when_complete
    from olmcat.files import safe
    from olmcat.olmv1.render import render_source, write_manifests

    config_text = None
    if config_file is not None:
        safe.add_root(config_file.parent)
        config_text = run(ctx, lambda: safe.read_text(config_file))
    notices = NoticeReport()
    extra: dict[str, object] = {"ok": False}
    try:
        result = run(
            ctx,
            lambda: render_source(
                bundle,
                namespace,
                watch_namespace=watch_namespace,
                config=config_text,
                cert_provider=cert_provider,
                platform=platform,
                notify=notices,
            ),
        )
        if out is not None:
            run(ctx, lambda: write_manifests(out, result.files()))
        else:
            with stdout_when_complete() as stream:
                stream.write(result.yaml())
        extra = {"ok": True, "written": {"objects": len(result.objects)}}
    finally:
        notices.write(report, command="olmv1 render", inputs=[bundle], **extra)


# -- olmv1 crd-upgrade ----------------------------------------------------------------------------


class Trouble(CommandError):
    """Bad input or any other failure: one line on stderr and exit status 2."""

    exit_code = 2


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
