"""``olmcat olmv1``: OLM v1 (operator-controller v1.11.0) questions about bundles and catalogs."""

from __future__ import annotations

from pathlib import Path

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import CommandError, UsageFailure, run
from olmcat.commands._notices import NoticeReport, print_notice
from olmcat.commands._options import Settings, examples, platform_option, report_option
from olmcat.commands._registry import registry_options
from olmcat.commands._streams import stdout_when_complete
from olmcat.commands.olmv1_check import check_command, plan_command
from olmcat.errors import OlmcatError, UsageError


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


# -- olmv1 install --------------------------------------------------------------------------------


@examples(
    "olmcat olmv1 install hello-operator --catalog out/catalog --namespace hello",
    "olmcat olmv1 install hello-operator --catalog index.db --namespace hello --channel stable "
    "--version '<0.3.0' --service-account hello-installer",
    "olmcat olmv1 install hello-operator --catalog out/catalog --namespace hello "
    "--no-service-account",
    "olmcat olmv1 install hello-operator --catalog out/catalog --namespace hello --template "
    "> hello.yaml.in",
    "olmcat olmv1 install hello-operator --catalog out/catalog --namespace hello "
    "| kubectl apply -f -",
)
@olmv1.command("install")
@click.argument("package")
@click.option(
    "--catalog",
    "catalog_ref",
    required=True,
    metavar="CATALOG",
    help="The catalog to "
    "install from: any form olmcat reads (FBC, SQLite, package manifests, index image).",
)
@click.option(
    "--namespace",
    required=True,
    metavar="NS",
    help="The install namespace (spec.namespace): the operator's namespaced objects go there.",
)
@click.option(
    "--channel", metavar="C", help="Install from this channel only (spec.source.catalog.channels)."
)
@click.option(
    "--version",
    "version_range",
    metavar="RANGE",
    help="A version or range, as operator-controller reads it ('1.2.3', '>=1.2 <2', '1.x').",
)
@click.option(
    "--service-account",
    metavar="NAME",
    help="The installer ServiceAccount. [default: NAME-installer, NAME the extension's name]",
)
@click.option(
    "--name",
    "extension_name",
    metavar="NAME",
    help="The ClusterExtension's name. [default: PACKAGE]",
)
@click.option(
    "--watch-namespace",
    metavar="NS",
    help="The namespace the operator watches "
    "(spec.config.inline.watchNamespace; needs the SingleOwnNamespaceInstallSupport "
    "feature gate). Required for bundles without AllNamespaces; NS = --namespace for "
    "OwnNamespace.",
)
@click.option(
    "--cert-provider",
    type=click.Choice(["cert-manager", "openshift-service-ca", "none"]),
    default="cert-manager",
    show_default=True,
    help="The cluster's "
    "certificate provider for webhooks (v1.11.0 enables both; cert-manager is "
    "preferred). none: bundles with webhooks are refused.",
)
@click.option(
    "--template",
    is_flag=True,
    help="Write ${NAMESPACE}, ${SERVICE_ACCOUNT}, "
    "${EXTENSION_NAME} and ${WATCH_NAMESPACE} instead of their values (for envsubst).",
)
@click.option(
    "--no-service-account",
    "no_service_account",
    is_flag=True,
    help="Leave out the installer ServiceAccount and its roles, and spec.serviceAccount: all "
    "operator-controller v1.11.0 needs (it ignores the field, and warns when it is set).",
)
@platform_option
@cache_options
@registry_options()
@report_option
@click.pass_context
def install(
    ctx: click.Context,
    package: str,
    catalog_ref: str,
    namespace: str,
    channel: str | None,
    version_range: str | None,
    service_account: str | None,
    extension_name: str | None,
    watch_namespace: str | None,
    cert_provider: str,
    template: bool,
    no_service_account: bool,
    platform: str | None,
    report: Path | None,
) -> None:
    """Write what an admin applies to install PACKAGE with OLM v1, as one YAML stream.

    The stream holds the Namespace, the installer ServiceAccount, its least-privilege ClusterRole
    and Role with their bindings, and the ClusterExtension (olm.operatorframework.io/v1). The
    bundle is the one operator-controller resolves for the package, channel and version range;
    it is rendered as v1.11.0 renders it and the installer may do exactly what operator-
    controller does with each object (get, update, patch, delete by name; create; list and
    watch), update the extension's finalizers, and create the operator's roles and bindings
    under Kubernetes' escalation rules. operator-controller v1.11.0 ignores spec.serviceAccount
    (it installs with its own cluster-admin account); v1.0 to v1.10 use it.
    """
    from olmcat.olmv1.bundle import read_bundle_image
    from olmcat.olmv1.install import install_stream
    from olmcat.readers.catalog import open_catalog

    notices = NoticeReport()
    extra: dict[str, object] = {"ok": False}

    def act() -> str:
        with open_catalog(catalog_ref, notify=notices, platform=platform) as catalog:
            try:
                result = install_stream(
                    catalog,
                    package,
                    namespace,
                    channel=channel,
                    version_range=version_range,
                    service_account=service_account,
                    extension_name=extension_name,
                    watch_namespace=watch_namespace,
                    cert_provider=None if cert_provider == "none" else cert_provider,
                    template=template,
                    installer=not no_service_account,
                    read_image=lambda ref: read_bundle_image(
                        ref, platform=platform, notify=notices
                    ),
                    notify=notices,
                )
            except UsageError as error:  # an option that does not fit: exit status 2
                raise UsageFailure(str(error)) from None
        extra.update(ok=True, bundle=result.bundle, version=result.version)
        return result.yaml()

    try:
        text = run(ctx, act)
        with stdout_when_complete() as out:
            out.write(text)
    finally:
        notices.write(report, command="olmv1 install", inputs=[catalog_ref], **extra)


# -- olmv1 check and olmv1 plan (commands/olmv1_check.py) ----------------------------------------

olmv1.add_command(check_command)
olmv1.add_command(plan_command)
