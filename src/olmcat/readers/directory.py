"""Legacy catalog directories: package-manifest packages and bundle-format directories, mixed.

Packages defined by a ``*.package.yaml`` are read by :mod:`olmcat.readers.pkgman`; bundle-format
directories (``manifests/`` + ``metadata/annotations.yaml``) outside those packages are read by
:mod:`olmcat.readers.bundledir`. Each reader streams packages by name; this module merges them.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Protocol

from olmcat.errors import InputError
from olmcat.model import Meta, PackageCatalog
from olmcat.readers.bundledir import BundleDirCatalog
from olmcat.readers.pkgman import PkgmanCatalog
from olmcat.readers.source import CatalogSource

Warn = Callable[[str], None]


class _Source(CatalogSource, Protocol):
    skipped: list[str]


class DirectoryCatalog:
    def __init__(
        self,
        root: Path,
        *,
        permissive: bool = False,
        all_documents: bool = False,
        image_ref_template: str | None = None,
        warn: Warn | None = None,
    ) -> None:
        self.root = root
        pkgman = PkgmanCatalog(
            root, permissive=permissive, all_documents=all_documents, warn=warn, require=False
        )
        self._sources: list[_Source] = [pkgman]
        self._sources.append(
            BundleDirCatalog(
                root,
                exclude_dirs=pkgman.package_dirs(),
                permissive=permissive,
                image_ref_template=image_ref_template,
                warn=warn,
            )
        )
        seen: dict[str, int] = {}
        for index, source in enumerate(self._sources):
            for name in source.package_names():
                if name in seen:
                    raise InputError(
                        f"{root}: package {name!r} is defined both by a package manifest and by "
                        "bundle-format directories; keep one form"
                    )
                seen[name] = index
        if not seen:
            raise InputError(
                f"{root}: no package manifest (*.package.yaml) and no bundle directory "
                "(manifests/ + metadata/annotations.yaml) found"
            )
        self._names = sorted(seen)

    @property
    def skipped(self) -> list[str]:
        return sorted(name for source in self._sources for name in source.skipped)

    def package_names(self) -> list[str]:
        return list(self._names)

    def packages(self, only: Collection[str] | None = None) -> Iterator[PackageCatalog]:
        return heapq.merge(*(s.packages(only) for s in self._sources), key=lambda p: p.name)

    def global_others(self) -> list[Meta]:
        return []

    def __iter__(self) -> Iterator[PackageCatalog]:
        return self.packages()

    def close(self) -> None:
        for source in self._sources:
            source.close()
