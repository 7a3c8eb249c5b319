"""``olmcat migrate``: legacy catalogs to file-based catalogs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import UsageFailure, run
from olmcat.commands._notices import NoticeReport
from olmcat.commands._opm import checked_level, migrate_level_option, opm_version_option
from olmcat.commands._options import (
    examples,
    fbc_format_option,
    platform_option,
    quiet_option,
    report_option,
)
from olmcat.commands._progress import progress_bar
from olmcat.commands._registry import registry_options
from olmcat.commands._streams import is_stdio, stdin_as_file, stdout_when_complete
from olmcat.go.opm import OpmRelease
from olmcat.migrate import MigrateResult
from olmcat.notices import Notice

_OPM_VERSION_HELP = (
    "what `opm migrate` writes of bundles (olm.csv.metadata by default in v1.28-v1.45) and which "
    "--migrate-level it knows."
)


def summary(result: MigrateResult, destination: str, notices: Sequence[Notice]) -> str:
    """The run's closing line; ``notices`` are all the run reported, the input layer's too."""
    stats = result.stats
    text = (
        f"wrote {stats.packages} packages, {stats.channels} channels, {stats.bundles} bundles "
        f"to {destination} in {result.seconds:.2f} s"
    )
    notes = []
    if stats.skipped:
        notes.append(f"{len(stats.skipped)} packages left out")
    errors = sum(1 for n in notices if n.severity == "error")
    warnings = sum(1 for n in notices if n.severity == "warning")
    if errors:
        notes.append(f"{errors} loader errors")
    if warnings:
        notes.append(f"{warnings} warnings")
    not_read = sum(1 for n in notices if n.code == "pkgman.not-a-manifest")
    if not_read:
        notes.append(f"{not_read} files outside bundles not read as manifests, named in --report")
    if result.cached_bundles:
        notes.append(f"{result.cached_bundles} bundles from the cache")
    if result.cached_packages:
        notes.append(f"{result.cached_packages} packages as finished before")
    return text + (f" ({', '.join(notes)})" if notes else "")


def run_reported(
    ctx: click.Context,
    report_path: Path | None,
    command: str,
    inputs: list[str],
    action: Callable[[NoticeReport], MigrateResult],
) -> tuple[MigrateResult, NoticeReport]:
    """Run a migration, printing its notices; write ``--report`` even when it fails."""
    report = NoticeReport()
    extra: dict[str, Any] = {"ok": False}
    try:
        result = run(ctx, lambda: action(report))
        stats = result.stats
        extra = {
            "ok": True,
            "written": {
                "packages": stats.packages,
                "channels": stats.channels,
                "bundles": stats.bundles,
            },
            "packages_left_out": list(stats.skipped),
        }
        return result, report
    finally:
        report.write(report_path, command=command, inputs=inputs, **extra)


@click.group()
def migrate() -> None:
    """Convert a legacy catalog into a file-based catalog (FBC)."""


@examples(
    "olmcat migrate sqlite bundles.db out/",
    "olmcat migrate sqlite -o yaml bundles.db out/",
    "olmcat migrate sqlite index-image.oci.tar out/",
    "olmcat migrate sqlite --migrate-level bundle-object-to-csv-metadata bundles.db out/",
    "olmcat migrate sqlite --opm-version 1.40 bundles.db out/   # as opm v1.40.0 migrates",
    "olmcat migrate sqlite --report report.json bundles.db out/",
)
@migrate.command("sqlite")
@click.argument("database")
@click.argument("out", type=click.Path(path_type=Path, file_okay=False))
@fbc_format_option
@migrate_level_option
@opm_version_option(_OPM_VERSION_HELP)
@platform_option
@registry_options()
@report_option
@quiet_option
@click.pass_context
def migrate_sqlite_command(
    ctx: click.Context,
    database: str,
    out: Path,
    output: str,
    migrate_level: str,
    opm_version: OpmRelease,
    platform: str | None,
    report: Path | None,
    quiet: bool,
) -> None:
    """Migrate an SQLite index DATABASE into the FBC directory OUT.

    DATABASE is a bundles.db / index.db of any historical schema, or an index image that holds
    one: in a registry (docker://HOST/REPO:TAG) or on disk (oci:DIR[:REF], oci-archive:FILE,
    docker-archive:FILE, or the archive's plain path); '-' reads it from stdin. It is opened
    read-only and never modified. OUT must not exist or be empty; it appears only when the
    migration is complete (<OUT>/<package>/catalog.json); with OUT '-' the catalog goes to
    stdout, only once all of it was read. What opm leaves out (deprecated bundles, an empty
    icon, ...) is a warning or, with --report, a JSON record.
    """
    from olmcat.migrate import migrate_sqlite

    level = checked_level(migrate_level, opm_version)

    def action(sink: NoticeReport) -> MigrateResult:
        with stdin_as_file(database) as source:

            def migrate(target: Path | None, stdout: TextIO | None) -> MigrateResult:
                return migrate_sqlite(
                    source,
                    target,
                    output=output,  # type: ignore[arg-type]
                    migrate_level=level,
                    release=opm_version,
                    notify=sink,
                    progress=progress_bar(quiet, "migrating"),
                    platform=platform,
                    stdout=stdout,
                )

            if not is_stdio(out):
                return migrate(out, None)
            with stdout_when_complete() as stdout:
                return migrate(None, stdout)

    result, notices = run_reported(ctx, report, "migrate sqlite", [database], action)
    if not quiet:
        click.echo(
            summary(result, "stdout" if is_stdio(out) else str(out), notices.notices), err=True
        )


@examples(
    "olmcat migrate pkgman manifests/ out/",
    "olmcat migrate pkgman manifests/etcd          # one package, FBC on stdout",
    "olmcat migrate pkgman --permissive --report report.json manifests/ out/",
    "olmcat migrate pkgman bundles/ out/ --mode semver --mode etcd=replaces",
    "olmcat migrate pkgman --migrate-level bundle-object-to-csv-metadata bundles/ out/",
)
@migrate.command("pkgman")
@click.argument("directory", type=click.Path(path_type=Path))
@click.argument("out", type=click.Path(path_type=Path, file_okay=False), required=False)
@fbc_format_option
@click.option(
    "--permissive",
    is_flag=True,
    help="Load what the legacy initializer --permissive loads: a bundle it refuses (CSV that "
    "does not decode, duplicate CSV name, olm.substitutesFor, ...) is left out, a package whose "
    "channels cannot be built (currentCSV or replaces target not loaded, no default channel) is "
    "left out, and each is reported as a warning. Without it any such problem stops the run.",
)
@click.option(
    "--image-ref-template",
    metavar="TEMPLATE",
    help="Image reference for bundle-format directories, e.g. "
    "'quay.io/org/{package}-bundle:{version}' ({package}, {name}, {version}, {dir}).",
)
@click.option(
    "--mode",
    "modes",
    multiple=True,
    metavar="MODE|PACKAGE=MODE",
    help="Update mode of bundle-format packages, as `opm registry add --mode`: replaces, semver, "
    "semver-skippatch, replaces-then-semver, or auto (default: each package's ci.yaml "
    "updateGraph; replaces-mode and no ci.yaml mean replaces-then-semver). PACKAGE=MODE sets one "
    "package; repeatable.",
)
@click.option(
    "--all-documents",
    is_flag=True,
    help="Read every YAML document of a manifest file; the legacy loader read only the first.",
)
@migrate_level_option
@opm_version_option(_OPM_VERSION_HELP)
@cache_options
@report_option
@quiet_option
@click.pass_context
def migrate_pkgman_command(
    ctx: click.Context,
    directory: Path,
    out: Path | None,
    output: str,
    permissive: bool,
    image_ref_template: str | None,
    modes: tuple[str, ...],
    all_documents: bool,
    migrate_level: str,
    opm_version: OpmRelease,
    report: Path | None,
    quiet: bool,
) -> None:
    """Migrate package-manifest / bundle-format DIRECTORY into an FBC.

    DIRECTORY is one package (<pkg>/<pkg>.package.yaml plus a directory per version), one bundle
    (manifests/ + metadata/annotations.yaml), or a tree holding many of either, mixed. Package
    manifests give exactly what `initializer` + `opm migrate` give. With OUT, writes
    <OUT>/<package>/catalog.json atomically; without it (or with '-'), the catalog goes to
    stdout, only once every package was read and checked. Bundle directories rendered before
    (same files, same options, same olmcat) and packages whose bundles are all unchanged are
    taken from the cache unless --no-cache.
    """
    from olmcat.migrate import migrate_pkgman
    from olmcat.readers.bundlecache import behaviour_context, current_cache
    from olmcat.readers.bundledir import parse_mode_options

    try:
        mode, package_modes = parse_mode_options(modes)
    except ValueError as problem:
        raise click.BadParameter(str(problem), param_hint="--mode") from None
    if is_stdio(directory):
        raise UsageFailure("DIRECTORY cannot be '-' (stdin): a directory tree cannot be piped")
    level = checked_level(migrate_level, opm_version)
    to_stdout = out is None or is_stdio(out)

    def action(sink: NoticeReport) -> MigrateResult:
        chosen = current_cache()
        cache = (
            None if chosen is None else chosen.with_context(behaviour_context(opm_version, level))
        )

        def migrate(target: Path | None, stdout: TextIO | None) -> MigrateResult:
            return migrate_pkgman(
                directory,
                target,
                output=output,  # type: ignore[arg-type]
                permissive=permissive,
                all_documents=all_documents,
                image_ref_template=image_ref_template,
                notify=sink,
                progress=progress_bar(quiet, "migrating"),
                stdout=stdout,
                mode=mode,
                package_modes=package_modes,
                cache=cache,
                migrate_level=level,
                release=opm_version,
            )

        if not to_stdout:
            return migrate(out, None)
        with stdout_when_complete() as stdout:
            return migrate(None, stdout)

    result, notices = run_reported(ctx, report, "migrate pkgman", [str(directory)], action)
    if not quiet:
        click.echo(summary(result, "stdout" if to_stdout else str(out), notices.notices), err=True)
