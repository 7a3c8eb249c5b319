"""``olmcat add | rm | prune | prune-stranded | deprecate-truncate``: the ``opm index`` verbs on
file-based catalogs. Each writes a new FBC to OUT (or replaces CATALOG with --in-place) and prints
the diff engine's summary of what changed in the upgrade graph."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

import click

from olmcat.commands._errors import run
from olmcat.commands._notices import NoticeReport
from olmcat.commands._opm import checked_level, migrate_level_option, opm_version_option
from olmcat.commands._options import examples
from olmcat.commands._registry import registry_options
from olmcat.go.opm import OpmRelease

F = TypeVar("F", bound=Callable[..., Any])


def _common(function: F) -> F:
    """CATALOG [OUT], --in-place, -o, --report, --details, -q."""
    options: list[Callable[[Any], Any]] = [
        click.option(
            "--in-place",
            is_flag=True,
            help="Replace the FBC directory CATALOG (swapped in atomically once complete) "
            "instead of writing OUT.",
        ),
        click.option(
            "-o",
            "--output",
            type=click.Choice(("json", "yaml")),
            default="json",
            show_default=True,
            help="Format of the catalog files written.",
        ),
        click.option(
            "--details",
            is_flag=True,
            help="Print the whole upgrade-graph diff, not only its summary.",
        ),
        click.option(
            "--report",
            type=click.Path(path_type=Path, dir_okay=False),
            metavar="FILE.json",
            help="Write the result (schema olmcat.maintain.v1: the diff of CATALOG -> result, "
            "what was done, every notice) as JSON.",
        ),
        click.option("-q", "--quiet", is_flag=True, help="No summary."),
        registry_options(),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def _finish(result: Any, details: bool, report: Path | None, quiet: bool) -> None:
    from olmcat.diff.render import render_text
    from olmcat.files.output import write_report

    if report is not None:
        write_report(report, result.to_json())
    if quiet:
        return
    text = render_text(result.diff, summary=not details)
    if result.diff.is_empty():
        text = "no change to the upgrade graph\n"
    sys.stdout.write(text)
    click.echo(
        f"{result.verb}: wrote {result.stats.packages} packages, {result.stats.channels} "
        f"channels, {result.stats.bundles} bundles to {result.out} in {result.seconds:.2f} s",
        err=True,
    )


def _format(output: str) -> Literal["json", "yaml"]:
    return "yaml" if output == "yaml" else "json"


def _out(out: str | None) -> Path | None:
    return Path(out) if out is not None else None


@examples(
    "olmcat rm index.db etcd out/                 # index.db minus etcd, as FBC",
    "olmcat rm --in-place catalog/ etcd prometheus",
)
@click.command("rm")
@click.argument("catalog")
@click.argument("packages", nargs=-1, required=True, metavar="PACKAGE... [OUT]")
@click.option(
    "--permissive", is_flag=True, help="Skip packages the catalog lacks (with a warning)."
)
@_common
@click.pass_context
def rm(
    ctx: click.Context,
    catalog: str,
    packages: tuple[str, ...],
    permissive: bool,
    in_place: bool,
    output: str,
    details: bool,
    report: Path | None,
    quiet: bool,
) -> None:
    """Remove PACKAGEs from CATALOG, as `opm index rm` does (stranded bundles go too).

    The last argument is the output directory OUT unless --in-place is given.
    """
    from olmcat.maintain import remove_packages

    names, out = _split_out(packages, in_place)
    notices = NoticeReport()
    result = run(
        ctx,
        lambda: remove_packages(
            catalog,
            out,
            names,
            in_place=in_place,
            permissive=permissive,
            output=_format(output),
            notify=notices,
        ),
    )
    _finish(result, details, report, quiet)


def _split_out(items: tuple[str, ...], in_place: bool) -> tuple[list[str], Path | None]:
    if in_place:
        return list(items), None
    if len(items) < 2:
        raise click.UsageError(
            "name the packages and then the output directory OUT (or --in-place)"
        )
    return list(items[:-1]), Path(items[-1])


@examples(
    "olmcat prune index.db out/ --keep etcd --keep prometheus",
    "olmcat prune --in-place catalog/ -k etcd",
)
@click.command("prune")
@click.argument("catalog")
@click.argument("out", required=False)
@click.option(
    "-k",
    "--keep",
    "keep",
    multiple=True,
    required=True,
    metavar="PACKAGE",
    help="A package to keep (repeatable); every other package is removed.",
)
@_common
@click.pass_context
def prune(
    ctx: click.Context,
    catalog: str,
    out: str | None,
    keep: tuple[str, ...],
    in_place: bool,
    output: str,
    details: bool,
    report: Path | None,
    quiet: bool,
) -> None:
    """Keep only the --keep packages of CATALOG, as `opm index prune` does."""
    from olmcat.maintain import prune_packages

    notices = NoticeReport()
    result = run(
        ctx,
        lambda: prune_packages(
            catalog,
            _out(out),
            keep,
            in_place=in_place,
            output=_format(output),
            notify=notices,
        ),
    )
    _finish(result, details, report, quiet)


@examples(
    "olmcat prune-stranded catalog/ out/",
    "olmcat prune-stranded --in-place catalog/",
)
@click.command("prune-stranded")
@click.argument("catalog")
@click.argument("out", required=False)
@_common
@click.pass_context
def prune_stranded(
    ctx: click.Context,
    catalog: str,
    out: str | None,
    in_place: bool,
    output: str,
    details: bool,
    report: Path | None,
    quiet: bool,
) -> None:
    """Remove bundles that no channel lists, as `opm index prune-stranded` does."""
    from olmcat.maintain import prune_stranded as prune_stranded_catalog

    notices = NoticeReport()
    result = run(
        ctx,
        lambda: prune_stranded_catalog(
            catalog,
            _out(out),
            in_place=in_place,
            output=_format(output),
            notify=notices,
        ),
    )
    _finish(result, details, report, quiet)


@examples(
    "olmcat deprecate-truncate catalog/ quay.io/acme/op-bundle:v1.0.0 out/",
    "olmcat deprecate-truncate --truncate index.db quay.io/acme/op-bundle:v1.0.0 out/",
    "olmcat deprecate-truncate --in-place --message 'CVE-2024-1; use 1.2' catalog/ IMAGE",
)
@click.command("deprecate-truncate")
@click.argument("catalog")
@click.argument("images", nargs=-1, required=True, metavar="BUNDLE_IMAGE... [OUT]")
@click.option(
    "--truncate",
    is_flag=True,
    help="Delete what opm deletes (the deprecated bundles and the graph below them) instead of "
    "marking it deprecated: the result is what opm deprecatetruncate + opm migrate give.",
)
@click.option(
    "--allow-package-removal",
    is_flag=True,
    help="Deprecating the heads of all channels (default channel included) deprecates (with "
    "--truncate: removes) the whole package, as opm's flag does.",
)
@click.option("--message", help="The message of every olm.deprecations entry written.")
@click.option("--permissive", is_flag=True, help="Skip images the catalog lacks (with a warning).")
@_common
@click.pass_context
def deprecate_truncate(
    ctx: click.Context,
    catalog: str,
    images: tuple[str, ...],
    truncate: bool,
    allow_package_removal: bool,
    message: str | None,
    permissive: bool,
    in_place: bool,
    output: str,
    details: bool,
    report: Path | None,
    quiet: bool,
) -> None:
    """Deprecate the bundles of BUNDLE_IMAGEs, as `opm index deprecatetruncate` does.

    opm deletes the graph below a deprecated bundle. A file-based catalog can say "deprecated"
    instead, so by default nothing is deleted: the bundles opm would deprecate or delete, the
    channels it would delete and (with --allow-package-removal) the package get olm.deprecations
    entries, and each is reported. --truncate deletes exactly what opm deletes.
    """
    from olmcat.maintain import deprecate_truncate as deprecate

    refs, out = _split_out(images, in_place)
    notices = NoticeReport()
    result = run(
        ctx,
        lambda: deprecate(
            catalog,
            out,
            refs,
            truncate=truncate,
            allow_package_removal=allow_package_removal,
            message=message,
            in_place=in_place,
            permissive=permissive,
            output=_format(output),
            notify=notices,
        ),
    )
    _finish(result, details, report, quiet)


@examples(
    "olmcat add catalog/ quay.io/acme/op-bundle:v1.2.0=bundles/1.2.0 out/",
    "olmcat add --mode semver --in-place catalog/ quay.io/acme/op-bundle:v1.2.0=bundle.oci.tar",
    "olmcat add --image-ref-template 'quay.io/acme/{package}-bundle:v{version}' new/ b1/ b2/ out/",
    "olmcat add --migrate-level bundle-object-to-csv-metadata catalog/ IMAGE=bundle/ out/",
)
@click.command("add")
@click.argument("catalog")
@click.argument("bundles", nargs=-1, required=True, metavar="BUNDLE... [OUT]")
@click.option(
    "--mode",
    type=click.Choice(("replaces", "semver", "semver-skippatch")),
    default="replaces",
    show_default=True,
    help="How the upgrade graph grows, as opm registry add --mode: replaces follows the CSVs' "
    "replaces/skips; semver puts each bundle after the next lower version of each channel; "
    "semver-skippatch also skips the lower patches of its minor version.",
)
@click.option(
    "--image-ref-template",
    metavar="TEMPLATE",
    help="Image reference of bundle directories given without IMAGE=, e.g. "
    "'quay.io/acme/{package}-bundle:v{version}' ({package}, {name}, {version}, {dir}).",
)
@migrate_level_option
@opm_version_option(
    "what the new bundles' blobs hold (olm.csv.metadata by default in v1.28-v1.45) and which "
    "--migrate-level it knows."
)
@_common
@click.pass_context
def add(
    ctx: click.Context,
    catalog: str,
    bundles: tuple[str, ...],
    mode: str,
    image_ref_template: str | None,
    migrate_level: str,
    opm_version: OpmRelease,
    in_place: bool,
    output: str,
    details: bool,
    report: Path | None,
    quiet: bool,
) -> None:
    """Add bundles to CATALOG, as `opm index add --mode MODE` adds them to an index.

    Each BUNDLE is a bundle directory (manifests/ + metadata/) or a saved bundle image (OCI
    layout, oci-archive, docker-archive), optionally prefixed with the image reference the
    catalog records for it: IMAGE=PATH. The channels after adding are those opm registry add
    builds in the same mode, and the same adds are refused (a version already present, a replaces
    target missing in replaces mode, a bundle the new channel head would prune, ...). CATALOG may
    be an empty directory: a new catalog. The last argument is OUT unless --in-place is given.
    """
    from olmcat.maintain.add import add_bundles

    sources, out = _split_out(bundles, in_place)
    level = checked_level(migrate_level, opm_version)
    notices = NoticeReport()
    result = run(
        ctx,
        lambda: add_bundles(
            catalog,
            out,
            sources,
            mode=mode,  # type: ignore[arg-type]
            image_ref_template=image_ref_template,
            in_place=in_place,
            output=_format(output),
            migrate_level=level,
            release=opm_version,
            notify=notices,
        ),
    )
    _finish(result, details, report, quiet)
