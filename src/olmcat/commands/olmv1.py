"""``olmcat olmv1``: OLM v1 (operator-controller v1.11.0) questions about bundles and catalogs."""

from __future__ import annotations

from pathlib import Path

import click

from olmcat.commands._errors import run
from olmcat.commands._options import examples, platform_option, report_option
from olmcat.commands._registry import registry_options


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


# -- olmv1 check and olmv1 plan (commands/olmv1_check.py) ----------------------------------------

from olmcat.commands.olmv1_check import check_command, plan_command  # noqa: E402

olmv1.add_command(check_command)
olmv1.add_command(plan_command)
