"""``olmcat olmv1``: OLM v1 (operator-controller v1.11.0) questions answered offline."""

from __future__ import annotations

from pathlib import Path

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import UsageFailure, run
from olmcat.commands._notices import NoticeReport
from olmcat.commands._options import examples, platform_option, report_option
from olmcat.commands._registry import registry_options
from olmcat.commands._streams import stdout_when_complete
from olmcat.errors import UsageError


@click.group("olmv1")
def olmv1() -> None:
    """OLM v1 (operator-controller v1.11.0) offline: what it installs and how."""


@examples(
    "olmcat olmv1 install hello-operator --catalog out/catalog --namespace hello",
    "olmcat olmv1 install hello-operator --catalog index.db --namespace hello --channel stable "
    "--version '<0.3.0' --service-account hello-installer",
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
