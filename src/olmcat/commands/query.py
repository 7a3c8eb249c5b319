"""``olmcat query``: registry, catalogd and OLM questions answered offline from any catalog."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import run
from olmcat.commands._notices import print_notice
from olmcat.commands._options import examples, platform_option
from olmcat.commands._registry import registry_options

format_option = click.option(
    "--format",
    "format_",
    type=click.Choice(["json", "table"]),
    default="json",
    show_default=True,
    help="json: the whole answer; table: one row per item, aligned columns.",
)

semantics_option = click.option(
    "--semantics",
    type=click.Choice(["legacy", "semver"]),
    default="legacy",
    show_default=True,
    help="legacy: replaces/skips/skipRange, the candidate nearest the head first (OLM v0); "
    "semver: any higher version within ^current, highest first (OLM v1's semver mode).",
)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ",".join(_cell(v) for v in value) if value else "-"
    if isinstance(value, dict):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return str(value) if value != "" else "-"


def table(rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None) -> str:
    """Rows as aligned columns under upper-case headers (nothing for no rows)."""
    if not rows:
        return ""
    keys = list(columns) if columns is not None else list(rows[0])
    cells = [[_cell(row.get(k)) for k in keys] for row in rows]
    headers = [re.sub(r"([a-z])([A-Z])", r"\1-\2", k).upper() for k in keys]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    lines = [
        "  ".join(text.ljust(width) for text, width in zip(line, widths, strict=True)).rstrip()
        for line in [headers, *cells]
    ]
    return "\n".join(lines) + "\n"


def _emit(answer: Any, format_: str, rows: Callable[[Any], Sequence[dict[str, Any]]]) -> None:
    if format_ == "json":
        click.echo(json.dumps(answer, indent=2, ensure_ascii=False))
    else:
        click.echo(table(rows(answer)), nl=False)


def _answer(
    ctx: click.Context,
    question: Callable[[Any], Any],
    format_: str,
    rows: Callable[[Any], Sequence[dict[str, Any]]] = lambda answer: answer,
) -> None:
    from olmcat.readers.catalog import open_catalog

    obj = ctx.find_object(_Query)
    assert obj is not None

    def ask() -> Any:
        with open_catalog(
            obj.catalog, notify=print_notice, permissive=True, platform=obj.platform
        ) as catalog:
            return question(catalog)

    _emit(run(ctx, ask), format_, rows)


class _Query:
    def __init__(self, catalog: str, platform: str | None) -> None:
        self.catalog = catalog
        self.platform = platform


@click.group()
@click.argument("catalog")
@platform_option
@cache_options
@registry_options()
@click.pass_context
def query(ctx: click.Context, catalog: str, platform: str | None) -> None:
    """Answer registry / catalogd / OLM questions about CATALOG offline.

    CATALOG is any form olmcat reads (FBC, SQLite database, package-manifest directory, index
    image archive); the same catalog in any form gives the same answers. Output is JSON unless
    --format table.
    """
    ctx.obj = _Query(catalog, platform)


@examples(
    "olmcat query index.db packages",
    "olmcat query catalog/ packages --format table",
)
@query.command("packages")
@format_option
@click.pass_context
def packages_command(ctx: click.Context, format_: str) -> None:
    """Every package with its default channel and channels (gRPC ListPackages)."""
    from olmcat.query import answers as q

    _answer(ctx, q.packages, format_)


@examples(
    "olmcat query index.db channels -p etcd",
)
@query.command("channels")
@click.option("--package", "-p", "package", required=True, help="Package name.")
@format_option
@click.pass_context
def channels_command(ctx: click.Context, package: str, format_: str) -> None:
    """The channels of a package: head, default, entries by version."""
    from olmcat.query import answers as q

    _answer(ctx, lambda c: q.channels(c, package), format_)


@examples(
    "olmcat query index.db bundles -p etcd",
    "olmcat query index.db bundles -p etcd -c alpha --format table",
)
@query.command("bundles")
@click.option("--package", "-p", "package", required=True, help="Package name.")
@click.option("--channel", "-c", help="Only the entries of this channel.")
@format_option
@click.pass_context
def bundles_command(ctx: click.Context, package: str, channel: str | None, format_: str) -> None:
    """The bundles of a package (or of one channel), by version."""
    from olmcat.query import answers as q

    _answer(ctx, lambda c: q.bundles(c, package, channel), format_)


@examples(
    "olmcat query index.db bundle etcdoperator.v0.9.2",
)
@query.command("bundle")
@click.argument("name")
@click.option("--package", "-p", "package", help="Package, when several hold NAME.")
@format_option
@click.pass_context
def bundle_command(ctx: click.Context, name: str, package: str | None, format_: str) -> None:
    """One bundle: version, image, channel entries, properties, manifests, related images."""
    from olmcat.query import answers as q

    def rows(answer: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"field": key, "value": value} for key, value in answer.items()]

    _answer(ctx, lambda c: q.bundle(c, name, package), format_, rows)


@examples(
    "olmcat query index.db head -p etcd",
    "olmcat query index.db head -p etcd -c alpha",
)
@query.command("head")
@click.option("--package", "-p", "package", required=True, help="Package name.")
@click.option("--channel", "-c", help="Channel (default: the package's default channel).")
@format_option
@click.pass_context
def head_command(ctx: click.Context, package: str, channel: str | None, format_: str) -> None:
    """The head of a channel (gRPC GetBundleForChannel)."""
    from olmcat.query import answers as q

    _answer(ctx, lambda c: q.head(c, package, channel), format_, lambda answer: [answer])


@examples(
    "olmcat query index.db replaces etcdoperator.v0.9.2",
)
@query.command("replaces")
@click.argument("bundle")
@click.option("--package", "-p", "package", help="Only this package.")
@click.option("--channel", "-c", help="Only this channel.")
@format_option
@click.pass_context
def replaces_command(
    ctx: click.Context, bundle: str, package: str | None, channel: str | None, format_: str
) -> None:
    """Entries that replace or skip BUNDLE, per channel (gRPC GetBundleThatReplaces)."""
    from olmcat.query import answers as q

    _answer(ctx, lambda c: q.replaced_by(c, bundle, package, channel), format_)


@examples(
    "olmcat query index.db upgrades -p etcd --from etcdoperator.v0.6.1",
    "olmcat query index.db upgrades -p etcd --from 0.9.0 -c alpha",
)
@query.command("upgrades")
@click.option("--package", "-p", "package", required=True, help="Package name.")
@click.option(
    "--from",
    "start",
    required=True,
    metavar="VERSION",
    help="Installed version (or bundle name); it need not be in the catalog.",
)
@click.option("--channel", "-c", help="Channel (default: the package's default channel).")
@semantics_option
@format_option
@click.pass_context
def upgrades_command(
    ctx: click.Context,
    package: str,
    start: str,
    channel: str | None,
    semantics: str,
    format_: str,
) -> None:
    """The updates OLM applies one at a time from an installed version to the channel head,
    through replaces, skips and skipRange (--semantics semver: OLM v1's semver successors)."""
    from olmcat.query import answers as q

    _answer(
        ctx,
        lambda c: q.upgrade_path(c, package, start, channel, semantics),
        format_,
        lambda answer: answer["steps"],
    )


@examples(
    "olmcat query catalog/ resolve -p etcd",
    "olmcat query catalog/ resolve -p etcd -c alpha --version '>=0.9.0, <0.9.4'",
)
@query.command("resolve")
@click.option("--package", "-p", "package", required=True, help="Package name.")
@click.option("--channel", "-c", help="Only bundles of this channel.")
@click.option(
    "--version",
    "version_range",
    metavar="RANGE",
    help="OLM 1.0 version range, e.g. '>=1.11, <1.13', '~1.2', '^0.2.3', '1.x || 2.0.0'.",
)
@format_option
@click.pass_context
def resolve_command(
    ctx: click.Context,
    package: str,
    channel: str | None,
    version_range: str | None,
    format_: str,
) -> None:
    """The bundle OLM 1.0 would install for this package, channel and version range."""
    from olmcat.query import answers as q

    _answer(
        ctx,
        lambda c: q.resolve(c, package, channel, version_range),
        format_,
        lambda answer: [answer],
    )


@examples(
    "olmcat query index.db install-modes --format table",
    "olmcat query index.db install-modes --installable --format table",
    "olmcat query index.db install-modes --installable "
    "--feature-gates SingleOwnNamespaceInstallSupport=true",
)
@query.command("install-modes")
@click.option("--all-namespaces", is_flag=True, help="Only heads supporting AllNamespaces.")
@click.option("--no-webhooks", is_flag=True, help="Only heads known to define no webhooks.")
@click.option(
    "--installable",
    is_flag=True,
    help="Only heads OLM v1 (operator-controller v1.11.0) installs, as `olmcat olmv1 check` "
    "decides from the catalog alone.",
)
@click.option(
    "--feature-gates",
    "gate_specs",
    multiple=True,
    metavar="GATES",
    help="operator-controller's feature gates for the olmv1 column, Name=true,Name2=false "
    "(repeatable; default v1.11.0's, see `olmcat olmv1 check --help`).",
)
@format_option
@click.pass_context
def install_modes_command(
    ctx: click.Context,
    all_namespaces: bool,
    no_webhooks: bool,
    installable: bool,
    gate_specs: tuple[str, ...],
    format_: str,
) -> None:
    """Install modes and webhooks of every channel head whose CSV the catalog holds, and whether
    OLM v1 installs it.

    The olmv1 column is operator-controller v1.11.0's verdict (installable, refused or unknown)
    with its reasons' rule IDs, as `olmcat olmv1 check` gives it from the catalog alone (no
    image is read: a head described only by olm.csv.metadata can be unknown). --all-namespaces
    --no-webhooks is 2024's technology-preview rule, not what OLM v1 installs today: use
    --installable.
    """
    from olmcat.commands._errors import UsageFailure
    from olmcat.errors import UsageError
    from olmcat.olmv1.check import parse_feature_gates
    from olmcat.query import answers as q

    try:
        gates = parse_feature_gates(gate_specs)
    except UsageError as error:
        raise UsageFailure(f"--feature-gates: {error}") from None
    _answer(
        ctx,
        lambda c: q.install_modes(
            c,
            all_namespaces=all_namespaces,
            no_webhooks=no_webhooks,
            installable=installable,
            gates=gates,
        ),
        format_,
        lambda answer: [
            {**row, "olmv1Reasons": sorted({r["rule"] for r in row["olmv1Reasons"]})}
            for row in answer
        ],
    )
