"""``olmcat render-template`` (opm's ``alpha render-template``) and ``olmcat template`` (a
template per package of any catalog, checked by a round trip)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from olmcat.commands._cache import cache_options
from olmcat.commands._errors import CommandError, run
from olmcat.commands._notices import NoticeReport
from olmcat.commands._opm import checked_level, migrate_level_option, opm_version_option
from olmcat.commands._options import examples, quiet_option, report_option
from olmcat.commands._registry import registry_options
from olmcat.go.opm import MIGRATE_LEVELS, OpmRelease

F = TypeVar("F", bound=Callable[..., Any])

OPM_VERSION_HELP = (
    "the semver template's generate defaults, default channel and links, the package icon and "
    "description, the basic template form, olm.csv.metadata by default (v1.28-v1.45), the "
    "migration levels."
)


def _resolution_options(command: F) -> F:
    options: list[Callable[[Any], Any]] = [
        click.option(
            "--bundle-dir",
            "bundle_dirs",
            multiple=True,
            metavar="IMAGE=DIR",
            help="Render IMAGE from the local bundle directory DIR (manifests/ + metadata/), "
            "exactly as opm renders the image built from it. Repeatable; checked first.",
        ),
        click.option(
            "--bundle-map",
            type=click.Path(path_type=Path, dir_okay=False, exists=True),
            metavar="FILE",
            help="A file of IMAGE=DIR lines (relative DIRs are relative to FILE); like "
            "--bundle-dir for many bundles.",
        ),
        click.option(
            "--resolve-from",
            "resolve_from",
            multiple=True,
            metavar="CATALOG",
            help="Take the olm.bundle whose image is IMAGE from this catalog (any form: FBC, "
            "SQLite DB, index image archive, ...). Repeatable; checked after bundle dirs.",
        ),
        click.option(
            "--no-pull",
            is_flag=True,
            help="Never contact a registry: an image no local source resolves is an error. "
            "Without it such images are pulled (registry options below), checked last.",
        ),
        click.option(
            "--bundle-archive",
            "bundle_archives",
            multiple=True,
            metavar="IMAGE=ARCHIVE",
            help="Render IMAGE from a saved bundle image (OCI layout, oci-archive or "
            "docker-archive). Repeatable; checked after catalogs.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _resolver(
    bundle_dirs: tuple[str, ...],
    bundle_map: Path | None,
    resolve_from: tuple[str, ...],
    bundle_archives: tuple[str, ...],
    no_pull: bool,
    notify: Any,
) -> Any:
    from olmcat.templates.resolve import BundleResolver, parse_assignment, read_mapping_file

    dirs = read_mapping_file(bundle_map) if bundle_map is not None else {}
    for text in bundle_dirs:
        ref, path = parse_assignment(text, "--bundle-dir")
        dirs[ref] = path
    archives = dict(parse_assignment(t, "--bundle-archive") for t in bundle_archives)
    return BundleResolver(
        bundle_dirs=dirs,
        catalogs=tuple(resolve_from),
        archives=archives,
        fetcher=None if no_pull else _registry_fetcher(),
        notify=notify,
    )


def _registry_fetcher() -> Any:
    """Bundle images no local source resolves are pulled from their registry (the registry
    options of the command apply)."""
    from olmcat.templates.resolve import registry_fetcher

    return registry_fetcher()


@examples(
    "olmcat render-template semver template.yaml --resolve-from catalog/ > rendered.json",
    "olmcat render-template basic basic.yaml --bundle-dir quay.io/acme/op-bundle:v1.2.0=bundle/",
    "olmcat render-template semver -o mermaid template.yaml --bundle-map bundles.txt",
    "olmcat render-template template.yaml --resolve-from index.db   # type from the schema",
    "olmcat render-template --opm-version 1.46 --migrate-level bundle-object-to-csv-metadata "
    "semver.yaml",
)
@click.command("render-template")
@click.argument("kind_or_file", metavar="[basic|semver]", required=False)
@click.argument("file", required=False, metavar="[FILE]")
@click.option(
    "-o",
    "--output",
    type=click.Choice(("json", "yaml", "mermaid")),
    default="json",
    show_default=True,
    help="Output format, as opm's.",
)
@_resolution_options
@click.option(
    "--inline-bundles",
    is_flag=True,
    help="olmcat extension: accept full olm.bundle blobs in a basic template and keep them as "
    "they are (opm refuses them).",
)
@opm_version_option(OPM_VERSION_HELP)
@migrate_level_option
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR",
    help="Write DIR/<package>/catalog.<json|yaml> (atomically) instead of printing the stream.",
)
@report_option
@cache_options
@registry_options()
@click.pass_context
def render_template(
    ctx: click.Context,
    kind_or_file: str | None,
    file: str | None,
    output: str,
    bundle_dirs: tuple[str, ...],
    bundle_map: Path | None,
    resolve_from: tuple[str, ...],
    no_pull: bool,
    bundle_archives: tuple[str, ...],
    inline_bundles: bool,
    opm_version: OpmRelease,
    migrate_level: str,
    out_dir: Path | None,
    report: Path | None,
) -> None:
    """Render a catalog template exactly as `opm alpha render-template` does.

    A basic template is an FBC stream (opm v1.26.5) or an olm.template.basic document (opm
    v1.72) whose bundles are given by image; a semver template (schema olm.semver) lists bundle
    images under candidate / fast / stable and the channels are generated. The type comes from
    the first argument or, without one, from the template's schema. FILE '-' or no FILE reads
    stdin.

    \b
    Bundle images are resolved offline, in this order:
      1. --bundle-dir / --bundle-map: a local bundle directory
      2. --resolve-from: the olm.bundle blob of an existing catalog
      3. --bundle-archive: a saved bundle image
      4. the image's registry (not with --no-pull)
    The output is what the opm release --opm-version writes (default: the newest olmcat
    knows); --migrate-level as opm's (v1.46.0 and later).
    """
    from olmcat.templates import detect_kind, render_text
    from olmcat.templates import render_template as render

    if kind_or_file in ("basic", "semver"):
        kind, path = kind_or_file, file or "-"
    elif file is not None:
        raise click.UsageError(f"invalid template type {kind_or_file!r}: basic or semver")
    else:
        kind, path = None, kind_or_file or "-"
    if output == "mermaid" and out_dir is not None:
        raise click.UsageError("--out writes catalogs; it cannot be used with -o mermaid")
    level = checked_level(migrate_level, opm_version)
    notices = NoticeReport()

    def action() -> None:
        text, where = _read(path)
        chosen = kind or detect_kind(text, where)
        with _resolver(
            bundle_dirs, bundle_map, resolve_from, bundle_archives, no_pull, notices
        ) as res:
            config = render(
                chosen,  # type: ignore[arg-type]
                text,
                res,
                where=where,
                opm=opm_version,
                inline_bundles=inline_bundles,
                migrate_level=level,
                notify=notices,
            )
        if out_dir is not None:
            from olmcat.templates import write_rendered_directory

            count = write_rendered_directory(
                config,
                out_dir,
                output,  # type: ignore[arg-type]
                opm_version,
            )
            click.echo(f"wrote {count} packages to {out_dir}", err=True)
        else:
            for chunk in render_text(
                config,
                output,  # type: ignore[arg-type]
                opm=opm_version,
                notify=notices,
            ):
                sys.stdout.write(chunk)
        notices.write(report, command="render-template", inputs=[path])

    run(ctx, action)


def _read(path: str) -> tuple[str, str]:
    from olmcat.errors import InputError

    if path == "-":
        return sys.stdin.read(), "<stdin>"
    try:
        return Path(path).read_text(encoding="utf-8"), path
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None


@click.group("template")
def template() -> None:
    """Make catalog templates from an existing catalog, one per package, and report what a
    render of each template would change (its lossiness)."""


def _template_command(kind: str) -> Callable[[F], F]:
    def decorate(function: F) -> F:
        options: list[Callable[[Any], Any]] = [
            click.argument("catalog"),
            click.argument("out"),
            click.option(
                "-p",
                "--package",
                "packages",
                multiple=True,
                metavar="NAME",
                help="Only this package (repeatable).",
            ),
            click.option(
                "--format",
                "output",
                type=click.Choice(("yaml", "json")),
                default=None,
                help="Template file format (default: "
                + (
                    "json, which keeps raw property values byte for byte)."
                    if kind == "basic"
                    else "yaml)."
                ),
            ),
            opm_version_option(
                "the template form and the round trip's rendering. " + OPM_VERSION_HELP
            ),
            click.option(
                "--migrate-level",
                "migrate_level",
                type=click.Choice(MIGRATE_LEVELS),
                default="none",
                show_default=True,
                help="The --migrate-level the templates will be rendered with (opm v1.46.0 and "
                "later): the round trip renders with it"
                + (
                    ", and bundles written whole (--inline-bundles) are migrated."
                    if kind == "basic"
                    else "."
                ),
            ),
            click.option(
                "--strict",
                is_flag=True,
                help="Exit 1 when rendering any template would change the catalog.",
            ),
            click.option(
                "--report",
                type=click.Path(path_type=Path, dir_okay=False),
                metavar="FILE.json",
                help="Write the lossiness report (schema olmcat.template-report.v1: per "
                "package the template settings, bundles left out, and the diff of catalog -> "
                "rendered template) and every notice as JSON.",
            ),
            quiet_option,
            registry_options(),
            click.pass_context,
        ]
        for option in reversed(options):
            function = option(function)
        return function

    return decorate


@examples(
    "olmcat template basic index.db templates/          # templates/<package>.json",
    "olmcat template basic catalog/ - -p etcd --format yaml",
    "olmcat template basic --opm-version 1.43 catalog/ templates/   # plain FBC stream form",
    "olmcat template basic --inline-bundles manifests/ templates/   # bundles without images",
)
@template.command("basic")
@_template_command("basic")
@click.option(
    "--inline-bundles",
    is_flag=True,
    help="olmcat extension: write every bundle whole instead of by image (opm cannot render "
    "such a template; olmcat render-template --inline-bundles can).",
)
def template_basic(
    ctx: click.Context,
    catalog: str,
    out: str,
    packages: tuple[str, ...],
    output: str | None,
    opm_version: OpmRelease,
    migrate_level: str,
    strict: bool,
    report: Path | None,
    quiet: bool,
    inline_bundles: bool,
) -> None:
    """Write a basic template per package of CATALOG into the directory OUT (- for stdout).

    Each bundle is named by its image (bundles without a unique image are left out, with a
    warning, unless --inline-bundles). Each template is rendered with the catalog as bundle
    source and compared with the package: rendered with `olmcat render-template --resolve-from
    CATALOG`, the template gives back the package exactly unless the report says otherwise.
    """
    _generate(
        ctx,
        "basic",
        catalog,
        out,
        packages,
        output,
        opm_version,
        migrate_level,
        strict,
        report,
        quiet,
        inline_bundles,
    )


@examples(
    "olmcat template semver index.db templates/ --report lossiness.json",
    "olmcat template semver catalog/ templates/ --archetype alpha=stable --streams minor",
    "olmcat template semver catalog/ - -p etcd",
    "olmcat template semver --strict catalog/ templates/   # exit 1 if any graph would change",
)
@template.command("semver")
@_template_command("semver")
@click.option(
    "--archetype",
    "archetypes",
    multiple=True,
    metavar="CHANNEL=ARCHETYPE",
    help="Put the bundles of CHANNEL into candidate, fast or stable (repeatable); other channels "
    "are placed by name (stable/release/ga... -> stable, fast -> fast, else candidate) or as "
    "the closest layout needs.",
)
@click.option(
    "--streams",
    type=click.Choice(("minor", "major", "both")),
    help="Which channels to generate (default: whichever renders closest to the catalog).",
)
def template_semver(
    ctx: click.Context,
    catalog: str,
    out: str,
    packages: tuple[str, ...],
    output: str | None,
    opm_version: OpmRelease,
    migrate_level: str,
    strict: bool,
    report: Path | None,
    quiet: bool,
    archetypes: tuple[str, ...],
    streams: str | None,
) -> None:
    """Write a semver template per package of CATALOG into the directory OUT (- for stdout).

    Bundles are sorted into candidate / fast / stable by their channels' names and the generate
    flags chosen so that the rendered graph is closest to the package's: every candidate layout
    is rendered and compared by the diff engine. The lossiness report lists every channel, head,
    upgrade edge, bundle or package field the rendered template would add, drop or change.
    """
    forced: dict[str, str] = {}
    for text in archetypes:
        channel, sep, archetype = text.partition("=")
        if not sep or archetype not in ("candidate", "fast", "stable"):
            raise click.BadParameter(
                f"{text!r}: expected CHANNEL=candidate|fast|stable", param_hint="--archetype"
            )
        forced[channel] = archetype
    _generate(
        ctx,
        "semver",
        catalog,
        out,
        packages,
        output,
        opm_version,
        migrate_level,
        strict,
        report,
        quiet,
        False,
        forced or None,
        streams,
    )


def _generate(
    ctx: click.Context,
    kind: str,
    catalog: str,
    out: str,
    packages: tuple[str, ...],
    output: str | None,
    opm_version: OpmRelease,
    migrate_level: str,
    strict: bool,
    report: Path | None,
    quiet: bool,
    inline_bundles: bool,
    archetypes: dict[str, str] | None = None,
    streams: str | None = None,
) -> None:
    from olmcat.diff.render import package_lines
    from olmcat.files.output import write_report
    from olmcat.templates import generate_templates

    level = checked_level(migrate_level, opm_version)
    notices = NoticeReport()

    def action() -> Any:
        return generate_templates(
            catalog,
            "-" if out == "-" else Path(out),
            kind,  # type: ignore[arg-type]
            packages=set(packages) or None,
            opm=opm_version,
            output=output,  # type: ignore[arg-type]
            inline_bundles=inline_bundles,
            migrate_level=level,
            archetypes=archetypes,
            streams=streams,  # type: ignore[arg-type]
            notify=notices,
        )

    result = run(ctx, action)
    if report is not None:
        write_report(report, result.to_json())
    stream = sys.stderr if out == "-" else sys.stdout
    if not quiet:
        for pkg in result.packages:
            if pkg.diff is None:
                continue
            for line in package_lines(pkg.diff):
                stream.write(f"{'    ' * line.depth}{line.mark} {line.text}\n")
        exact = sum(p.exact for p in result.packages)
        count = len(result.packages)
        summary = (
            f"{count} {kind} template{'' if count == 1 else 's'} written to {out}; round trip: "
            f"{exact} "
            f"exact, {len(result.packages) - exact} with differences"
        )
        if not result.exact:
            from olmcat.diff.render import summary_line

            summary += f" ({summary_line(result.diff())})"
        stream.write(summary + "\n")
    if strict and not result.exact:
        raise CommandError("--strict: rendering the templates would change the catalog (see above)")
