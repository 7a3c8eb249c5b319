"""Rewrite a catalog package by package into a new FBC, and say what changed.

Every maintenance verb is a function from the packages of a catalog to new packages. This module
streams the source catalog (one package in memory at a time), lets the verb change, drop or add
packages, diffs each old/new pair with the diff engine as it goes, and writes the result as an FBC
directory: into ``OUT`` (absent or empty; it appears only when complete), or in place of the
source FBC directory, swapped in atomically once complete (``renameat2(RENAME_EXCHANGE)`` where
the kernel has it, else two renames with the old catalog kept until the new one is in place).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from olmcat.diff.compare import CatalogDiff, PackageDiff, diff_package
from olmcat.errors import InputError, OutputError
from olmcat.files.output import writing
from olmcat.model import CatalogStats, Meta, PackageCatalog
from olmcat.notices import NoticeLog, NoticeSink, discard
from olmcat.writers.fbc import OutputFormat, write_directory

# A verb's view of one package: (name, the package or None when the catalog lacks it) -> the new
# package (None to drop it).
Transform = Callable[[str, PackageCatalog | None], PackageCatalog | None]


@dataclass(slots=True)
class MaintainResult:
    """What a verb did: the upgrade-graph diff of source -> result, and where it went."""

    verb: str
    catalog: str
    out: str
    diff: CatalogDiff
    stats: CatalogStats
    notices: NoticeLog = field(default_factory=NoticeLog)
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "olmcat.maintain.v1",
            "verb": self.verb,
            "catalog": self.catalog,
            "out": self.out,
            "packages": self.stats.packages,
            "channels": self.stats.channels,
            "bundles": self.stats.bundles,
            "details": self.details,
            "diff": self.diff.to_json(),
            "notices": [n.to_json() for n in self.notices],
        }


def _merge(
    source: Iterable[PackageCatalog], added: Mapping[str, None]
) -> Iterator[tuple[str, PackageCatalog | None]]:
    """Source packages (name-sorted) and names only the verb knows, in one name order."""
    extra = sorted(added)
    index = 0
    for pkg in source:
        while index < len(extra) and extra[index] < pkg.name:
            yield extra[index], None
            index += 1
        if index < len(extra) and extra[index] == pkg.name:
            index += 1
        yield pkg.name, pkg
    for name in extra[index:]:
        yield name, None


def open_source(reference: str | Path, *, allow_empty: bool, notify: NoticeSink = discard) -> Any:
    """The catalog to change; an empty directory is an empty catalog when ``allow_empty``."""
    from olmcat.readers.catalog import open_catalog
    from olmcat.readers.memory import MemoryCatalog

    path = Path(reference)
    if allow_empty and path.is_dir() and not any(path.iterdir()):
        return MemoryCatalog([])
    return open_catalog(reference, notify=notify)


def rewrite(
    verb: str,
    catalog_ref: str | Path,
    out: Path | None,
    transform: Transform,
    *,
    new_packages: Iterable[str] = (),
    in_place: bool = False,
    output: OutputFormat = "json",
    allow_empty: bool = False,
    notify: NoticeSink = discard,
) -> MaintainResult:
    """Apply ``transform`` to every package of ``catalog_ref`` (and to the names in
    ``new_packages`` that the catalog lacks) and write the result to ``out`` or in place."""
    started = time.monotonic()
    log = NoticeLog(forward=notify)
    target = _target(catalog_ref, out, in_place)
    diffs: list[PackageDiff] = []
    stats = CatalogStats()
    source = open_source(catalog_ref, allow_empty=allow_empty, notify=log)
    try:
        others: list[Meta] = list(source.global_others())

        def packages() -> Iterator[PackageCatalog]:
            for name, old in _merge(source.packages(), dict.fromkeys(new_packages)):
                new = transform(name, old)
                change = diff_package(old, new)
                if change is not None:
                    diffs.append(change)
                if new is not None:
                    stats.add(new)
                    yield new

        if in_place:
            _write_in_place(Path(catalog_ref), packages(), output, others)
        else:
            assert target is not None
            write_directory(packages(), target, output, others)
    finally:
        source.close()
    return MaintainResult(
        verb,
        str(catalog_ref),
        str(catalog_ref if in_place else target),
        CatalogDiff(tuple(diffs)),
        stats,
        log,
        time.monotonic() - started,
    )


def _target(catalog_ref: str | Path, out: Path | None, in_place: bool) -> Path | None:
    if in_place:
        if out is not None:
            raise OutputError("give either OUT or --in-place, not both")
        path = Path(catalog_ref)
        if str(catalog_ref) == "-" or not path.is_dir() or path.is_symlink():
            raise OutputError(
                f"{catalog_ref}: --in-place replaces an FBC directory; write other catalog forms "
                "(SQLite DB, image archive, files) to a new OUT directory instead"
            )
        return None
    if out is None:
        raise OutputError("an output directory OUT (or --in-place) is needed")
    return out


_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux ``renameat2``); False where that is not available."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    return bool(result == 0)


def _write_in_place(
    catalog: Path, packages: Iterable[PackageCatalog], output: OutputFormat, others: list[Meta]
) -> None:
    """Write the new catalog beside ``catalog`` and swap it in only when complete."""
    with writing(catalog.parent):
        staging_parent = Path(
            tempfile.mkdtemp(prefix=f".{catalog.name}.olmcat-new-", dir=catalog.parent)
        )
    staged = staging_parent / catalog.name
    try:
        try:
            write_directory(packages, staged, output, others)
        except OutputError as error:
            # Name the catalog being replaced, not its staged copy.
            error.args = (str(error).replace(str(staged), str(catalog)),)
            raise
        mode = catalog.stat().st_mode & 0o7777
        staged.chmod(mode)
        if _exchange(staged, catalog):
            return  # the old catalog is now at ``staged`` and goes with the staging dir
        aside = staging_parent / f"{catalog.name}.old"
        catalog.rename(aside)
        try:
            staged.rename(catalog)
        except OSError as exc:
            aside.rename(catalog)
            raise OutputError(f"cannot replace {catalog}: {exc.strerror}") from None
    except FileNotFoundError as exc:
        raise InputError(f"{catalog}: {exc.strerror}") from None
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(staging_parent)
