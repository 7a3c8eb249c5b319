"""``olmcat cache``: the content-addressed caches: image blobs pulled from registries (every command
that pulls images) and rendered bundle directories and finished packages (every command that
reads bundle directories)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click

from olmcat.commands._errors import run
from olmcat.commands._options import examples

_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw]?)")
_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def _size(count: int) -> str:
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def _duration(value: str | None) -> float | None:
    if value is None:
        return None
    match = _DURATION.fullmatch(value.strip())
    if match is None:
        raise click.BadParameter(
            f"{value!r} is not a duration like 30d, 12h or 90m", param_hint="--older-than"
        )
    return float(match.group(1)) * _SECONDS[match.group(2)]


cache_dir_option = click.option(
    "--cache-dir",
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR",
    help="The cache to use (default $OLMCAT_CACHE_DIR, else $XDG_CACHE_HOME/olmcat, "
    "else ~/.cache/olmcat).",
)


@click.group()
def cache() -> None:
    """Inspect or empty the caches: image blobs (manifests and layers pulled from registries)
    and rendered bundle directories (reused by every command that reads bundle directories
    when their files are unchanged; migrate pkgman also reuses whole finished packages)."""


@examples("olmcat cache info", "olmcat cache info --json")
@cache.command("info")
@cache_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of text.")
@click.pass_context
def info_command(ctx: click.Context, cache_dir: Path | None, as_json: bool) -> None:
    """Where the cache is, how many blobs and rendered bundles it holds and their size."""
    from olmcat.oci.cache import BlobCache
    from olmcat.readers.bundlecache import RenderCache

    found, rendered = run(ctx, lambda: (BlobCache(cache_dir).info(), RenderCache(cache_dir).info()))
    if as_json:
        document = {
            "path": str(found.root),
            "blobs": found.blobs,
            "bytes": found.bytes,
            "scratch_bytes": found.scratch_bytes,
            "rendered_bundles": rendered.entries,
            "finished_packages": rendered.packages,
            "rendered_bytes": rendered.bytes,
            "rendered_max_bytes": rendered.max_bytes,
        }
        click.echo(json.dumps(document, indent=2))
        return
    click.echo(f"path:    {found.root}")
    click.echo(f"blobs:   {found.blobs}")
    click.echo(f"size:    {_size(found.bytes)}")
    if found.scratch_bytes:
        click.echo(f"scratch: {_size(found.scratch_bytes)} (runs in progress or interrupted)")
    click.echo(
        f"rendered bundles: {rendered.entries} ({_size(rendered.bytes)} of at most "
        f"{_size(rendered.max_bytes)}, OLMCAT_RENDER_CACHE_MAX, with the packages below and "
        "the file digests)"
    )
    click.echo(f"finished packages: {rendered.packages}")


@examples("olmcat cache prune", "olmcat cache prune --older-than 30d")
@cache.command("prune")
@cache_dir_option
@click.option(
    "--older-than",
    metavar="DURATION",
    help="Remove only blobs and rendered bundles not used for this long (e.g. 30d, 12h, 90m); "
    "default: all.",
)
@click.pass_context
def prune_command(ctx: click.Context, cache_dir: Path | None, older_than: str | None) -> None:
    """Remove cached blobs and rendered bundles (safe while other runs use the cache: they
    fetch or render again if needed)."""
    from olmcat.oci.cache import BlobCache
    from olmcat.readers.bundlecache import RenderCache

    seconds = _duration(older_than)
    result, (rendered, packages, rendered_bytes) = run(
        ctx,
        lambda: (BlobCache(cache_dir).prune(seconds), RenderCache(cache_dir).prune(seconds)),
    )
    click.echo(
        f"removed {result.removed} blobs ({_size(result.bytes)}); {result.kept} kept; removed "
        f"{rendered} rendered bundles and {packages} finished packages ({_size(rendered_bytes)})",
        err=True,
    )
