"""The one contract every catalog reader implements.

A catalog is read as a stream of :class:`~olmcat.model.PackageCatalog` values in package-name
order, one package in memory at a time. ``only`` asks for some packages; readers that can load
packages selectively (FBC, SQLite) skip the others cheaply, the rest read and drop them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Protocol, runtime_checkable

from olmcat.model import Meta, PackageCatalog


@runtime_checkable
class CatalogSource(Protocol):
    def package_names(self) -> list[str]:
        """Every package of the catalog, sorted."""
        ...

    def packages(self, only: Collection[str] | None = None) -> Iterator[PackageCatalog]:
        """Packages in name order; only those named in ``only`` when it is given."""
        ...

    def global_others(self) -> list[Meta]:
        """Blobs of unknown schemas that belong to no package (FBC only; others have none)."""
        ...

    def close(self) -> None:
        """Release files, connections and temporary directories."""
        ...


def selected(names: list[str], only: Collection[str] | None) -> list[str]:
    """``names`` restricted to ``only`` (all of them when ``only`` is None), order kept."""
    if only is None:
        return names
    wanted = set(only)
    return [name for name in names if name in wanted]
