"""Catalog templates both ways: render them as opm does, and make them from any catalog.

* :func:`render_template` is ``opm alpha render-template basic|semver``: the bytes the opm
  release ``opm`` writes (an :class:`~olmcat.go.opm.OpmRelease` or its text, ``"1.46"``; default
  the newest, v1.73.0; docs/opm-releases.md lists what changed when), bundles resolved offline
  by a :class:`~olmcat.templates.resolve.BundleResolver`, ``migrate_level`` as opm's
  ``--migrate-level``.
* :func:`generate_templates` writes one template per package of a catalog and checks each by the
  real round trip: the template is rendered (bundles resolved from the catalog itself), read back
  as an FBC, and compared with the package by the diff engine. What differs is the template's
  lossiness, reported per package (:class:`TemplateReport`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from olmcat.diff.compare import CatalogDiff, PackageDiff, diff_package
from olmcat.errors import InputError, OutputError
from olmcat.go.json import before_go_122
from olmcat.go.opm import (
    NEWEST,
    MigrateLevel,
    OpmRelease,
    as_release,
    behaviour,
    check_migrate_level,
)
from olmcat.model import PackageCatalog
from olmcat.notices import Notice, NoticeLog, NoticeSink, discard
from olmcat.templates import basic, semver
from olmcat.templates.decl import Config, OutputFormat, ordered, write
from olmcat.templates.resolve import BundleFetcher, BundleResolver, index_packages

__all__ = [
    "BundleFetcher",
    "BundleResolver",
    "Config",
    "OpmRelease",
    "PackageRoundTrip",
    "TemplateKind",
    "TemplateReport",
    "detect_kind",
    "generate_templates",
    "render_template",
    "render_text",
]

TemplateKind = Literal["basic", "semver"]
REPORT_SCHEMA = "olmcat.template-report.v1"


def detect_kind(text: str, where: str) -> TemplateKind:
    """The template type from its schema (opm v1.72's auto-detection); a plain FBC stream is a
    v1.26.5 basic template."""
    from olmcat.templates.decl import loads_documents, schema_of

    for doc, source in loads_documents(text, where):
        schema = schema_of(doc, source)
        if schema == semver.SCHEMA:
            return "semver"
        return "basic"
    raise InputError(f"{where}: the template is empty")


def render_template(
    kind: TemplateKind,
    text: str,
    resolver: BundleResolver,
    *,
    where: str = "<template>",
    opm: OpmRelease | str = NEWEST,
    inline_bundles: bool = False,
    migrate_level: MigrateLevel = "none",
    notify: NoticeSink = discard,
) -> Config:
    """The catalog a template stands for, as opm ``opm`` renders it (write it with
    :func:`render_text`). A ``migrate_level`` the release does not have is a
    :class:`~olmcat.errors.UsageError`."""
    release = as_release(opm)
    check_migrate_level(migrate_level, release)
    # Blob texts are made here; releases built with Go before 1.22 escape two characters apart.
    with before_go_122(not release.has("encoding-go122-json")):
        if kind == "semver":
            return semver.render(
                semver.parse(text, where, opm=release),
                resolver,
                opm=release,
                migrate_level=migrate_level,
                notify=notify,
            )
        return basic.render(
            basic.parse(text, where, opm=release),
            resolver,
            opm=release,
            inline_bundles=inline_bundles,
            migrate_level=migrate_level,
            notify=notify,
        )


def render_text(
    config: Config,
    output: OutputFormat | Literal["mermaid"] = "json",
    *,
    opm: OpmRelease | str = NEWEST,
    notify: NoticeSink = discard,
) -> Iterator[str]:
    """The bytes opm writes for a rendered template (``-o json|yaml|mermaid``)."""
    if output == "mermaid":
        from olmcat.templates.mermaid import write_mermaid

        return write_mermaid(config, notify)
    return write(config, output, as_release(opm))


def write_rendered_directory(
    config: Config, out_dir: Path, output: OutputFormat, opm: OpmRelease | str = NEWEST
) -> int:
    """``<out_dir>/<package>/catalog.<ext>`` holding each package's blobs in opm's order (blobs
    of no package in ``<out_dir>/catalog.<ext>``), atomically. Returns the package count."""
    from olmcat.templates.decl import render_blobs
    from olmcat.writers.fbc import check_package_name, staged_directory

    count = 0
    with staged_directory(out_dir) as staging:
        for package, blobs in ordered(config, as_release(opm)):
            target = staging / f"catalog.{output}"
            if package:
                check_package_name(package)
                (staging / package).mkdir()
                target = staging / package / f"catalog.{output}"
                count += 1
            with target.open("w", encoding="utf-8", newline="") as fh:
                for chunk in render_blobs(blobs, output):
                    fh.write(chunk)
    return count


# -- generating templates and checking them by a round trip ---------------------------------------


@dataclass(slots=True)
class PackageRoundTrip:
    """One package's template and what rendering it changes."""

    name: str
    file: str  # where the template was written ("" when none could be made)
    diff: PackageDiff | None  # None: the round trip is exact
    settings: dict[str, Any] = field(default_factory=dict)
    left_out: list[str] = field(default_factory=list)  # bundles the template cannot carry

    @property
    def exact(self) -> bool:
        return self.diff is None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "file": self.file,
            "exact": self.exact,
            "settings": self.settings,
            "leftOut": self.left_out,
            "differences": self.diff.to_json() if self.diff is not None else None,
        }


@dataclass(slots=True)
class TemplateReport:
    """The lossiness report of :func:`generate_templates`."""

    catalog: str
    kind: TemplateKind
    opm: OpmRelease
    output: str
    packages: list[PackageRoundTrip] = field(default_factory=list)
    notices: NoticeLog = field(default_factory=NoticeLog)

    @property
    def exact(self) -> bool:
        return all(p.exact for p in self.packages)

    def diff(self) -> CatalogDiff:
        """Every difference the round trip found, as one catalog diff (source -> rendered)."""
        return CatalogDiff(tuple(p.diff for p in self.packages if p.diff is not None))

    def to_json(self) -> dict[str, Any]:
        diff = self.diff()
        return {
            "schema": REPORT_SCHEMA,
            "catalog": self.catalog,
            "template": self.kind,
            "opmVersion": self.opm.tag,
            "output": self.output,
            "exact": self.exact,
            "summary": {
                "packages": len(self.packages),
                "exact": sum(p.exact for p in self.packages),
                "differing": sum(not p.exact for p in self.packages),
                "leftOutBundles": sum(len(p.left_out) for p in self.packages),
                "differences": diff.summary(),
            },
            "packages": [p.to_json() for p in self.packages],
            "notices": [n.to_json() for n in self.notices],
        }


def _read_back(config: Config, opm: OpmRelease, package: str) -> PackageCatalog | None:
    """Write the rendered catalog as opm would, then read it with the FBC reader."""
    from olmcat.readers.fbc import FbcCatalog

    with tempfile.TemporaryDirectory(prefix="olmcat-roundtrip-") as scratch:
        path = Path(scratch) / "catalog.json"
        with path.open("w", encoding="utf-8") as fh:
            for chunk in write(config, "json", opm):
                fh.write(chunk)
        catalog = FbcCatalog(path)
        try:
            if package not in catalog.package_names():
                return None
            return catalog.package(package)
        finally:
            catalog.close()


def round_trip(
    kind: TemplateKind,
    text: str,
    pkg: PackageCatalog,
    *,
    opm: OpmRelease,
    inline_bundles: bool = False,
    migrate_level: MigrateLevel = "none",
    notify: NoticeSink = discard,
) -> PackageDiff | None:
    """Render ``text`` with bundles resolved from ``pkg`` and diff the result against ``pkg``."""
    resolver = BundleResolver(notify=notify)
    resolver.add_packages("the source catalog", lambda: iter([pkg]))
    try:
        config = render_template(
            kind,
            text,
            resolver,
            opm=opm,
            inline_bundles=inline_bundles,
            migrate_level=migrate_level,
            notify=notify,
        )
    except InputError as error:
        notify(
            Notice(
                "template.render-failed",
                f"package {pkg.name}: the template does not render: {error}",
                severity="error",
                package=pkg.name,
            )
        )
        return diff_package(pkg, None)
    return diff_package(pkg, _read_back(config, opm, pkg.name))


def _score(diff: PackageDiff | None) -> tuple[int, int]:
    if diff is None:
        return (0, 0)
    document = CatalogDiff((diff,)).summary()
    changes = (
        sum(document["channels"].values())
        + sum(document["entries"].values())
        + sum(document["bundles"].values())
        + sum(len(c.edges) for c in diff.channels)
        + (1 if diff.default_channel else 0)
    )
    return (document["impact"]["stranded"], changes)


def generate_templates(
    catalog_ref: str | Path,
    out: Path | Literal["-"],
    kind: TemplateKind,
    *,
    packages: Collection[str] | None = None,
    opm: OpmRelease | str = NEWEST,
    output: OutputFormat | None = None,
    inline_bundles: bool = False,
    migrate_level: MigrateLevel = "none",
    archetypes: dict[str, str] | None = None,
    streams: Literal["minor", "major", "both"] | None = None,
    notify: NoticeSink = discard,
    stdout: Any = None,
) -> TemplateReport:
    """One template per package of ``catalog_ref`` into the directory ``out`` (or ``-``: the one
    package's template on ``stdout``), each checked by a real round trip. Semver only:
    ``archetypes`` fixes the archetype (candidate, fast, stable) of channels by name, ``streams``
    the stream kinds generated; otherwise the closest layout is chosen. ``opm`` is the release
    the templates are written for and rendered by in the round trip, with ``migrate_level``
    (which also applies to the bundles ``inline_bundles`` writes whole)."""
    from olmcat.readers.catalog import open_catalog
    from olmcat.templates import generate
    from olmcat.writers.fbc import check_package_name, staged_directory

    opm = as_release(opm)
    check_migrate_level(migrate_level, opm)

    fmt: OutputFormat = output or ("json" if kind == "basic" else "yaml")
    log = NoticeLog(forward=notify)
    report = TemplateReport(str(catalog_ref), kind, opm, str(out), notices=log)
    with open_catalog(catalog_ref, notify=log) as catalog:
        names = catalog.package_names()
        if packages is not None:
            missing = sorted(set(packages) - set(names))
            if missing:
                raise InputError(f"{catalog_ref}: no package {', '.join(missing)}")
            names = [n for n in names if n in set(packages)]
        if out == "-" and len(names) != 1:
            raise InputError(
                f"{catalog_ref}: {len(names)} packages; a template on stdout needs exactly one "
                "(select it with --package)"
            )
        owners = {image: len(set(o)) for image, o in index_packages(catalog.packages()).items()}
        ext = fmt

        def each(staging: Path | None) -> None:
            for pkg in catalog.packages(names):
                before = len(log)
                if kind == "basic":
                    texts = generate.basic_texts(
                        pkg,
                        owners,
                        inline_bundles=inline_bundles,
                        opm=opm,
                        migrate_level=migrate_level,
                        notify=log,
                    )
                    text = generate.basic_document(texts, opm=opm, output=fmt)
                    settings: dict[str, Any] = {
                        "form": basic.SCHEMA if opm.has("template-basic-schema") else "fbc"
                    }
                    diff = round_trip(
                        kind,
                        text,
                        pkg,
                        opm=opm,
                        inline_bundles=inline_bundles,
                        migrate_level=migrate_level,
                        notify=log,
                    )
                else:
                    text, settings, diff = _best_semver(
                        pkg, owners, opm, fmt, log, archetypes, streams, migrate_level
                    )
                left = [
                    n.bundle
                    for n in log.notices[before:]
                    if n.code.startswith("template.") and n.bundle
                ]
                file = ""
                if text:
                    if staging is None:
                        (stdout or _stdout()).write(text)
                        file = "-"
                    else:
                        check_package_name(pkg.name)
                        (staging / f"{pkg.name}.{ext}").write_text(text, encoding="utf-8")
                        file = str(Path(str(out)) / f"{pkg.name}.{ext}")
                report.packages.append(
                    PackageRoundTrip(pkg.name, file, diff, settings, sorted(set(left)))
                )
            if kind == "basic" and staging is not None and packages is None:
                others = catalog.global_others()
                if others:
                    global_text = generate.basic_document(
                        [m.blob for m in others], opm=opm, output=fmt
                    )
                    (staging / f"_global.{ext}").write_text(global_text, encoding="utf-8")

        if out == "-":
            each(None)
        else:
            if not isinstance(out, Path):
                raise OutputError(f"{out}: not a directory path")
            with staged_directory(out) as staging:
                each(staging)
    return report


def _stdout() -> Any:
    import sys

    return sys.stdout


def _best_semver(
    pkg: PackageCatalog,
    owners: dict[str, int],
    opm: OpmRelease,
    fmt: OutputFormat,
    log: NoticeLog,
    archetypes: dict[str, str] | None = None,
    streams: str | None = None,
    migrate_level: MigrateLevel = "none",
) -> tuple[str, dict[str, Any], PackageDiff | None]:
    """The candidate template whose rendered graph is closest to the package."""
    from olmcat.templates import generate

    candidates = generate.semver_candidates(
        pkg, owners, opm=opm, archetypes=archetypes, streams=streams, notify=log
    )
    if not candidates:
        raise InputError(
            f"package {pkg.name}: opm {opm.tag} cannot be told to default to major channels "
            "when both kinds are generated (defaultChannelTypePreference came with opm "
            f"{behaviour('template-semver-channel-preference').since}); use a later --opm-version "
            "or another --streams"
        )
    if not any(any(t.bundles.values()) for _, t in candidates):
        log(
            Notice(
                "template.semver-empty",
                f"package {pkg.name}: no bundle can go into a semver template; no template written",
                severity="error",
                package=pkg.name,
            )
        )
        return "", {}, diff_package(pkg, None)
    best: tuple[tuple[int, int, int], str, semver.SemverTemplate, PackageDiff | None] | None = None
    for order, (label, template) in enumerate(candidates):
        text = generate.semver_document(template, output=fmt)
        quiet = NoticeLog()
        diff = round_trip("semver", text, pkg, opm=opm, migrate_level=migrate_level, notify=quiet)
        ambiguous = any(n.code == "template.ambiguous-default-channel" for n in quiet)
        stranded, changes = _score(diff)
        key = (stranded, int(ambiguous), changes * 100 + order)
        if best is None or key < best[0]:
            best = (key, label, template, diff)
    assert best is not None
    _, label, template, _ = best
    text = generate.semver_document(template, output=fmt)
    # The notices of the chosen one.
    final = round_trip("semver", text, pkg, opm=opm, migrate_level=migrate_level, notify=log)
    return text, {"layout": label, **semver.describe(template)}, final
