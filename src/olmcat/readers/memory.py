"""A catalog held in memory: packages built in code, served through the reader contract."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator

from olmcat.errors import InputError
from olmcat.model import Meta, PackageCatalog
from olmcat.readers.source import selected


class MemoryCatalog:
    """Packages given as values; :class:`~olmcat.readers.source.CatalogSource` like every reader."""

    def __init__(self, packages: Iterable[PackageCatalog], others: Iterable[Meta] = ()) -> None:
        by_name: dict[str, PackageCatalog] = {}
        for pkg in packages:
            if pkg.name in by_name:
                raise InputError(f"package {pkg.name!r} is given twice")
            by_name[pkg.name] = pkg
        self._packages = by_name
        self._others = list(others)

    def package_names(self) -> list[str]:
        return sorted(self._packages)

    def packages(self, only: Collection[str] | None = None) -> Iterator[PackageCatalog]:
        for name in selected(self.package_names(), only):
            yield self._packages[name]

    def __iter__(self) -> Iterator[PackageCatalog]:
        return self.packages()

    def global_others(self) -> list[Meta]:
        return list(self._others)

    def close(self) -> None:
        pass
