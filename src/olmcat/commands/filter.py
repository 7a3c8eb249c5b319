"""``olmcat filter``: keep only some packages, channels and versions of a catalog."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import run
from olmcat.commands._notices import NoticeReport
from olmcat.commands._options import (
    examples,
    fbc_format_option,
    platform_option,
    quiet_option,
    report_option,
)
from olmcat.commands._registry import registry_options
from olmcat.commands._streams import stdout_when_complete


@examples(
    "olmcat filter index.db filtered/ -p etcd -p 'kiali:stable@>=1.30.0'",
    "olmcat filter --heads-only catalog/ - | jq -c 'select(.schema==\"olm.bundle\") | .name'",
    "olmcat filter --drop-deprecated --min-version 1.0.0 catalog/ out/",
)
@click.command("filter")
@click.argument("catalog")
@click.argument("out")
@click.option(
    "-p",
    "--package",
    "packages",
    multiple=True,
    metavar="P[:CHANNEL[@RANGE]]",
    help="Keep package P (every channel), or only CHANNEL of it, or only the entries of CHANNEL "
    "whose version is in RANGE (OLM 1.0 syntax, e.g. '>=1.2.0 <2.0.0', '~1.4'). Repeatable; "
    "without it every package is kept.",
)
@click.option("--heads-only", is_flag=True, help="Keep only the head of each channel.")
@click.option("--min-version", metavar="VERSION", help="Leave out bundles older than VERSION.")
@click.option("--max-version", metavar="VERSION", help="Leave out bundles newer than VERSION.")
@click.option(
    "--drop-deprecated",
    is_flag=True,
    help="Leave out what olm.deprecations entries and olm.deprecated properties deprecate.",
)
@click.option(
    "--image-set-config",
    "image_set_config",
    metavar="FILE",
    help="Select what oc-mirror v2 selects for this ImageSetConfiguration (mirror.operators[]: "
    "packages, channels, minVersion/maxVersion, full, defaultChannel) instead of -p and the "
    "version options.",
)
@click.option(
    "--isc-catalog",
    metavar="REF",
    help="The mirror.operators[] entry to use (its catalog), when the ImageSetConfiguration "
    "lists several.",
)
@fbc_format_option
@platform_option
@cache_options
@registry_options()
@report_option
@quiet_option
@click.pass_context
def filter_command(
    ctx: click.Context,
    catalog: str,
    out: str,
    packages: tuple[str, ...],
    heads_only: bool,
    min_version: str | None,
    max_version: str | None,
    drop_deprecated: bool,
    image_set_config: str | None,
    isc_catalog: str | None,
    output: str,
    platform: str | None,
    report: Path | None,
    quiet: bool,
) -> None:
    """Write the part of CATALOG that is selected into the FBC directory OUT (- for stdout).

    CATALOG is any catalog reference (FBC, SQLite DB, package-manifest tree, image archive).
    The result stays a valid catalog: each channel keeps exactly one head and no stranded
    entries -- replaces/skips edges through left-out entries are rewritten to connect the kept
    ones; a default channel that is left out is re-pointed to a kept channel (with a warning);
    empty channels and packages are left out. OUT must be absent or empty and appears only when
    complete.
    """
    from olmcat.mirror.filter import (
        FilterSpec,
        PackageSelector,
        filter_catalog,
        parse_version_bound,
    )

    if image_set_config is not None and (
        packages or heads_only or min_version or max_version or drop_deprecated
    ):
        raise click.UsageError(
            "--image-set-config selects on its own; it cannot be combined with --package, "
            "--heads-only, --min-version, --max-version or --drop-deprecated"
        )
    if isc_catalog is not None and image_set_config is None:
        raise click.UsageError("--isc-catalog needs --image-set-config")

    notices = NoticeReport()

    def action() -> None:
        image_set = None
        if image_set_config is not None:
            from olmcat.mirror.isc import choose_operator, load_image_set_config

            image_set = choose_operator(load_image_set_config(image_set_config), isc_catalog)
        spec = FilterSpec(
            selectors=tuple(PackageSelector.parse(text) for text in packages),
            heads_only=heads_only,
            min_version=parse_version_bound(min_version) if min_version else None,
            max_version=parse_version_bound(max_version) if max_version else None,
            drop_deprecated=drop_deprecated,
        )
        to_stdout = out == "-"
        with contextlib.ExitStack() as stack:
            # Stdout receives the catalog only once all of it was read and filtered.
            stdout = stack.enter_context(stdout_when_complete()) if to_stdout else None
            result = filter_catalog(
                catalog,
                None if to_stdout else Path(out),
                spec,
                output=output,  # type: ignore[arg-type]
                notify=notices,
                stdout=stdout,
                platform=platform,
                image_set=image_set,
            )
        if not quiet:
            stats = result.stats
            click.echo(
                f"kept {stats.packages} packages, {stats.channels} channels, {stats.bundles} "
                f"bundles in {'stdout' if to_stdout else out} in {result.seconds:.2f} s",
                err=True,
            )

    try:
        run(ctx, action)
    finally:
        notices.write(report, command="filter", inputs=[catalog])
