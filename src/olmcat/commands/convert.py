"""``olmcat convert``: legacy catalog layouts into one another."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from olmcat.commands._errors import UsageFailure, run
from olmcat.commands._notices import NoticeReport
from olmcat.commands._options import examples, quiet_option, report_option
from olmcat.commands._streams import is_stdio, no_stdout


@click.group()
def convert() -> None:
    """Convert a legacy catalog from one directory layout to another."""


@examples(
    "olmcat convert pkgman-to-bundles manifests/ bundles/",
    "olmcat migrate pkgman bundles/ catalog/   # the same catalog, from the converted tree",
    "olmcat convert pkgman-to-bundles --report report.json manifests/ bundles/",
)
@convert.command("pkgman-to-bundles")
@click.argument("directory", type=click.Path(path_type=Path))
@click.argument("out", type=click.Path(path_type=Path, file_okay=False))
@report_option
@quiet_option
@click.pass_context
def pkgman_to_bundles_command(
    ctx: click.Context, directory: Path, out: Path, report: Path | None, quiet: bool
) -> None:
    """Turn the package-manifest tree DIRECTORY into bundle directories under OUT.

    Each bundle the legacy loader lists in a channel becomes OUT/<package>/<version-dir>/ with
    manifests/ (the files its objects come from, copied unchanged) and metadata/annotations.yaml
    naming the package, the default channel and every channel the bundle is in: on a channel's
    replaces chain from its currentCSV, or skipped by a bundle on it (operator-sdk's
    pkgman-to-bundle puts bundles that head no channel in the default channel only). A version
    directory holding several CSVs gives one bundle directory per CSV, named after it. Bundles
    in no channel are left out with a warning.
    OUT must not exist or be empty; it appears only when the conversion is complete.
    """
    from olmcat.writers.bundles import pkgman_to_bundles

    if is_stdio(directory):
        raise UsageFailure("DIRECTORY cannot be '-' (stdin): a directory tree cannot be piped")
    if is_stdio(out):
        raise no_stdout("OUT")

    notices = NoticeReport()
    extra: dict[str, Any] = {"ok": False}
    try:
        result = run(ctx, lambda: pkgman_to_bundles(directory, out, notify=notices))
        extra = {
            "ok": True,
            "written": {"packages": result.packages, "bundles": len(result.bundles)},
            "left_out": [str(p) for p in result.left_out],
        }
    finally:
        notices.write(report, command="convert pkgman-to-bundles", inputs=[str(directory)], **extra)
    if not quiet:
        note = f" ({len(result.left_out)} in no channel, left out)" if result.left_out else ""
        click.echo(
            f"wrote {len(result.bundles)} bundles of {result.packages} packages to {out} "
            f"in {result.seconds:.2f} s{note}",
            err=True,
        )
