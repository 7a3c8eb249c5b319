"""``olmcat render-graph``: upgrade graphs as Mermaid, Graphviz DOT, SVG or an HTML page."""

from __future__ import annotations

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import run
from olmcat.commands._notices import print_notice
from olmcat.commands._options import examples, platform_option
from olmcat.commands._registry import registry_options
from olmcat.commands._streams import stdout_when_complete


@examples(
    "olmcat render-graph -p etcd index.db > etcd.mmd",
    "olmcat render-graph --format dot -p etcd catalog/ | dot -Tsvg > etcd.svg",
    "olmcat render-graph --minimum-edge etcdoperator.v0.9.0 index.db",
    "olmcat render-graph --format svg -p etcd index.db > etcd.svg",
    "olmcat render-graph --format html index.db > graphs.html",
)
@click.command("render-graph")
@click.argument("catalog")
@click.option("--package", "-p", "package", metavar="NAME", help="Only this package.")
@click.option(
    "--format",
    "format_",
    type=click.Choice(["mermaid", "dot", "svg", "html"]),
    default="mermaid",
    show_default=True,
    help="mermaid (paste into GitHub, mermaid.live), dot (render with graphviz: dot -Tsvg), "
    "svg (a picture, drawn by olmcat) or html (a self-contained page: a section per package, "
    "a filter box).",
)
@click.option(
    "--minimum-edge",
    metavar="BUNDLE",
    help="Start from this installed bundle: only its package, only entries of at least its "
    "version.",
)
@platform_option
@cache_options
@registry_options()
@click.pass_context
def render_graph(
    ctx: click.Context,
    catalog: str,
    package: str | None,
    format_: str,
    minimum_edge: str | None,
    platform: str | None,
) -> None:
    """Write the upgrade graph of CATALOG per package and channel to stdout.

    Draws replaces, skips and skipRange edges (from the older bundle to the one that upgrades
    it), marks channel heads (bold), deprecated bundles, channels and packages (filled), the
    default channel and edge targets missing from the channel (dashed). CATALOG is any form
    olmcat reads: FBC, SQLite database, package-manifest directory or index image archive.
    """
    from olmcat.errors import InputError
    from olmcat.query.render_graph import render
    from olmcat.readers.catalog import open_catalog

    def write() -> None:
        with open_catalog(
            catalog, notify=print_notice, permissive=True, platform=platform
        ) as opened:
            names = opened.package_names()
            if package is not None and package not in names:
                raise InputError(f"{catalog}: no package {package!r} in the catalog")
            from olmcat.query.answers import iter_packages

            packages = iter_packages(opened, {package} if package is not None else None)
            with stdout_when_complete() as stdout:  # nothing printed if reading fails
                if format_ in ("svg", "html"):
                    from olmcat.pictures.graph import graph_html, graph_svg

                    draw = graph_svg if format_ == "svg" else graph_html
                    stdout.write(draw(packages, package=package, minimum_edge=minimum_edge))
                    return
                for chunk in render(
                    packages,
                    format="dot" if format_ == "dot" else "mermaid",
                    package=package,
                    minimum_edge=minimum_edge,
                ):
                    stdout.write(chunk)

    run(ctx, write)
