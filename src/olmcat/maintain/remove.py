"""``rm``, ``prune`` and ``prune-stranded`` on file-based catalogs, as their ``opm index``
namesakes change an index database (``pkg/lib/registry``, ``pkg/sqlite``):

* ``rm PACKAGE...`` (``DeleteFromRegistry``): each package goes with its channels and bundles; a
  package the catalog lacks is an error ("no package found"); then stranded bundles are removed
  from every package.
* ``prune --keep PACKAGE...`` (``PruneFromRegistry``): every other package is removed (each
  removal also removes stranded bundles everywhere, as ``RemovePackage`` does). Kept names the
  catalog lacks are reported, not refused, as opm ignores them.
* ``prune-stranded`` (``RemoveStrandedBundles``): bundles that no channel lists are removed. In a
  database that left behind the bundles of removed channels; a file-based catalog can hold such
  bundles only when written by hand, and opm refuses to serve it.

In an FBC, a package's ``olm.deprecations`` and blobs of other schemas belong to it and go with
it; deprecation entries naming a removed bundle are dropped (with a notice), since they would no
longer resolve.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from pathlib import Path

from olmcat.errors import InputError
from olmcat.maintain.rewrite import MaintainResult, rewrite
from olmcat.model import SCHEMA_BUNDLE, Deprecation, PackageCatalog
from olmcat.notices import Notice, NoticeLog, NoticeSink, discard
from olmcat.writers.fbc import OutputFormat


def without_stranded(pkg: PackageCatalog, notify: NoticeSink) -> PackageCatalog:
    """``pkg`` without the bundles no channel lists (and deprecation entries naming them)."""
    listed = {e.name for c in pkg.channels for e in c.entries}
    stranded = sorted(b.name for b in pkg.bundles if b.name not in listed)
    if not stranded:
        return pkg
    for name in stranded:
        notify(
            Notice(
                "maintain.stranded-bundle-removed",
                f"package {pkg.name}: removed bundle {name}, which no channel lists",
                package=pkg.name,
                bundle=name,
            )
        )
    gone = set(stranded)
    return replace(
        pkg,
        bundles=tuple(b for b in pkg.bundles if b.name not in gone),
        deprecations=drop_deprecation_entries(pkg, bundles=gone, notify=notify),
    )


def drop_deprecation_entries(
    pkg: PackageCatalog,
    *,
    bundles: Collection[str] = (),
    channels: Collection[str] = (),
    notify: NoticeSink = discard,
) -> tuple[Deprecation, ...]:
    """The package's deprecations without entries for these bundles / channels."""
    out = []
    for deprecation in pkg.deprecations:
        kept = []
        for entry in deprecation.entries:
            gone = (entry.schema == SCHEMA_BUNDLE and entry.name in bundles) or (
                entry.schema == "olm.channel" and entry.name in channels
            )
            if gone:
                notify(
                    Notice(
                        "maintain.deprecation-dropped",
                        f"package {pkg.name}: dropped the deprecation entry of "
                        f"{entry.schema.removeprefix('olm.')} {entry.name}, which is gone",
                        package=pkg.name,
                    )
                )
            else:
                kept.append(entry)
        if kept:
            out.append(replace(deprecation, entries=tuple(kept)))
    return tuple(out)


def remove_packages(
    catalog: str | Path,
    out: Path | None,
    packages: Collection[str],
    *,
    in_place: bool = False,
    permissive: bool = False,
    output: OutputFormat = "json",
    notify: NoticeSink = discard,
) -> MaintainResult:
    """``opm index rm``: remove ``packages`` (then stranded bundles everywhere)."""
    wanted = {p for p in packages if p}  # opm drops empty names and duplicates
    if not wanted:
        raise InputError("name at least one package to remove")
    log = NoticeLog(forward=notify)
    seen: set[str] = set()

    def transform(_: str, pkg: PackageCatalog | None) -> PackageCatalog | None:
        assert pkg is not None
        if pkg.name in wanted:
            seen.add(pkg.name)
            return None
        return without_stranded(pkg, log)

    _check_present(catalog, wanted, permissive, log)
    result = rewrite("rm", catalog, out, transform, in_place=in_place, output=output, notify=log)
    result.notices = log
    result.details = {"removed": sorted(seen)}
    return result


def _check_present(
    catalog: str | Path, wanted: set[str], permissive: bool, notify: NoticeSink
) -> None:
    from olmcat.readers.catalog import open_catalog

    with open_catalog(catalog) as source:  # names only: the rewrite reports notices
        missing = sorted(wanted - set(source.package_names()))
    for name in missing:
        message = f"no package found for packagename {name} in {catalog}"
        if not permissive:
            raise InputError(message + " (--permissive skips missing packages)")
        notify(Notice("maintain.package-missing", message, package=name))


def prune_packages(
    catalog: str | Path,
    out: Path | None,
    keep: Collection[str],
    *,
    in_place: bool = False,
    output: OutputFormat = "json",
    notify: NoticeSink = discard,
) -> MaintainResult:
    """``opm index prune``: keep only ``keep`` (stranded bundles go when anything is removed)."""
    kept = set(keep)
    if not kept:
        raise InputError("name at least one package to keep (--keep PACKAGE)")
    log = NoticeLog(forward=notify)
    from olmcat.readers.catalog import open_catalog

    with open_catalog(catalog) as source:  # names only: the rewrite reports notices
        names = set(source.package_names())
    for name in sorted(kept - names):
        log(
            Notice(
                "maintain.package-missing",
                f"--keep {name}: the catalog has no such package (nothing to keep)",
                package=name,
            )
        )
    removing = bool(names - kept)

    def transform(_: str, pkg: PackageCatalog | None) -> PackageCatalog | None:
        assert pkg is not None
        if pkg.name not in kept:
            return None
        return without_stranded(pkg, log) if removing else pkg

    result = rewrite("prune", catalog, out, transform, in_place=in_place, output=output, notify=log)
    result.notices = log
    result.details = {"kept": sorted(kept & names), "removed": sorted(names - kept)}
    return result


def prune_stranded(
    catalog: str | Path,
    out: Path | None,
    *,
    in_place: bool = False,
    output: OutputFormat = "json",
    notify: NoticeSink = discard,
) -> MaintainResult:
    """``opm index prune-stranded``: remove bundles that no channel lists."""
    log = NoticeLog(forward=notify)

    def transform(_: str, pkg: PackageCatalog | None) -> PackageCatalog | None:
        assert pkg is not None
        return without_stranded(pkg, log)

    result = rewrite(
        "prune-stranded", catalog, out, transform, in_place=in_place, output=output, notify=log
    )
    result.notices = log
    return result
