"""Comparing two whole catalogs: open both, pair packages by name, diff them, write a delta.

This is the library call behind ``olmcat diff``. Both catalogs stream side by side in package-name
order, so memory holds one pair of packages at a time; with ``emit_delta`` the same single pass
also writes the delta catalog (only what NEW adds or changes).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from olmcat.diff.compare import CatalogDiff, PackageDiff, diff_package, paired
from olmcat.diff.delta import delta_package
from olmcat.errors import InputError
from olmcat.model import CatalogStats, PackageCatalog, counted
from olmcat.notices import NoticeSink, discard
from olmcat.readers.catalog import Catalog, open_catalog
from olmcat.readers.source import CatalogSource

__all__ = ["Comparison", "compare"]


@dataclass(frozen=True, slots=True)
class Comparison:
    """The diff, and what was written as a delta catalog (None without ``emit_delta``; a
    CatalogStats with zero packages when NEW adds or changes nothing, and then no directory)."""

    diff: CatalogDiff
    delta: CatalogStats | None = None


def compare(
    old: str | Path | CatalogSource,
    new: str | Path | CatalogSource,
    *,
    packages: Collection[str] | None = None,
    emit_delta: Path | None = None,
    notify: NoticeSink = discard,
    semantics: str = "legacy",
    observe: Callable[[PackageCatalog | None, PackageCatalog | None, PackageDiff | None], None]
    | None = None,
) -> Comparison:
    """Compare catalog ``old`` with catalog ``new`` (references or opened catalogs).

    ``packages`` restricts the comparison (a name found in neither catalog is an InputError).
    ``emit_delta`` also writes an FBC directory holding what is new or changed in ``new``; it is
    written atomically and not created when there is nothing to write. ``semantics`` (legacy or
    semver) decides which installs count as stranded (:mod:`olmcat.diff.compare`).
    ``observe`` is called with every pair of packages and its diff (None when it is unchanged)
    while both are in memory: the HTML report keeps their graphs that way.
    """
    if old == "-" and new == "-":
        raise InputError("OLD and NEW cannot both be '-' (stdin)")
    wanted = set(packages) if packages is not None else None
    with _opened(old, notify) as old_catalog, _opened(new, notify) as new_catalog:
        if wanted is not None:
            known = set(old_catalog.package_names()) | set(new_catalog.package_names())
            missing = sorted(wanted - known)
            if missing:
                raise InputError(f"no package {', '.join(map(repr, missing))} in either catalog")
        pairs = paired(old_catalog.packages(wanted), new_catalog.packages(wanted), wanted)
        found: list[PackageDiff] = []
        if emit_delta is None:
            for old_pkg, new_pkg in pairs:
                change = diff_package(old_pkg, new_pkg, semantics=semantics)
                if change is not None:
                    found.append(change)
                if observe is not None:
                    observe(old_pkg, new_pkg, change)
            return Comparison(CatalogDiff(tuple(found)))

        from olmcat.writers.fbc import write_directory

        def deltas() -> Iterator[PackageCatalog]:
            # One pass feeds both the report and the delta, so each catalog is read only once.
            for old_pkg, new_pkg in pairs:
                change = diff_package(old_pkg, new_pkg, semantics=semantics)
                if change is not None:
                    found.append(change)
                if observe is not None:
                    observe(old_pkg, new_pkg, change)
                kept = delta_package(old_pkg, new_pkg)
                if kept is not None:
                    yield kept

        stats = CatalogStats()
        existed = emit_delta.exists()
        write_directory(counted(deltas(), stats), emit_delta)
        if not stats.packages and not existed:
            emit_delta.rmdir()  # an empty directory is no readable catalog: leave none behind
        return Comparison(CatalogDiff(tuple(found)), stats)


class _opened:
    """Open a reference (and close it after), or pass an opened catalog through untouched."""

    def __init__(self, ref: str | Path | CatalogSource, notify: NoticeSink) -> None:
        self._ref = ref
        self._notify = notify
        self._owned: Catalog | None = None

    def __enter__(self) -> CatalogSource:
        if isinstance(self._ref, (str, Path)):
            self._owned = open_catalog(self._ref, notify=self._notify)
            return self._owned
        return self._ref

    def __exit__(self, *exc: object) -> None:
        if self._owned is not None:
            self._owned.close()
