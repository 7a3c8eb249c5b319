"""Legacy catalog directories: package-manifest packages and bundle-format directories, mixed.

Packages defined by a ``*.package.yaml`` are read by :mod:`olmcat.readers.pkgman`; bundle-format
directories (``manifests/`` + ``metadata/annotations.yaml``) outside those packages are read by
:mod:`olmcat.readers.bundledir`. Each reader streams packages by name; this module merges them.

A package that has a package manifest *and* bundle-format directories elsewhere in the tree is
read from the package manifest, as the legacy ``initializer`` reads it (it knows nothing of
bundle annotations); its bundle-format definition is left out with a warning.

Operator directories laid out as operator pipelines lay them out (``<operator>/<version>/
{manifests,metadata}`` beside ``ci.yaml``, ``catalog-templates/``, ``<version>/tests/``, ...) hold
no manifest outside their bundles: the loader notes those files and never fails on them
(``pkgman.not-a-manifest``), and a bundle nested below a version directory is left out with a
warning (``bundledir.nested-bundle``), as no pipeline builds it.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path

from olmcat.errors import InputError
from olmcat.model import Meta, PackageCatalog
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.readers.bundlecache import CachedPackage, PackageOutputs, RenderCache
from olmcat.readers.bundledir import BundleDirCatalog
from olmcat.readers.pkgman import PkgmanCatalog, walk_tree
from olmcat.readers.update_modes import Mode


class DirectoryCatalog:
    def __init__(
        self,
        root: Path,
        *,
        permissive: bool = False,
        all_documents: bool = False,
        image_ref_template: str | None = None,
        notify: NoticeSink = discard,
        mode: Mode | None = None,
        package_modes: Mapping[str, Mode] | None = None,
        cache: RenderCache | None = None,
    ) -> None:
        """``cache``: rendered bundle directories to reuse (and to fill)."""
        self.root = root
        if cache is not None:
            cache.begin()
        tree = walk_tree(root)  # once, for both readers
        self.pkgman = PkgmanCatalog(
            root,
            permissive=permissive,
            all_documents=all_documents,
            notify=notify,
            require=False,
            tree=tree,
            cache=cache,
        )

        try:
            self.bundledir = BundleDirCatalog(
                root,
                exclude_dirs=self.pkgman.package_dirs(),
                permissive=permissive,
                image_ref_template=image_ref_template,
                mode=mode,
                package_modes=package_modes,
                notify=notify,
                tree=tree,
                cache=cache,
            )
        except BaseException:
            self.pkgman.close()
            raise
        pkgman_names = set(self.pkgman.package_names())
        self._bundle_format = sorted(set(self.bundledir.package_names()) - pkgman_names)
        for name in sorted(pkgman_names & set(self.bundledir.package_names())):
            notify(
                Notice(
                    "pkgman.package-also-bundle-format",
                    f"{root}: package {name!r} is defined by a package manifest and by "
                    "bundle-format directories; read from the package manifest, as the legacy "
                    "initializer does (its bundle-format directories are left out)",
                    package=name,
                )
            )
        self._names = sorted(pkgman_names | set(self._bundle_format))
        if not self._names and not self.pkgman.manifest_files:
            self.close()
            raise InputError(
                f"{root}: no package manifest (*.package.yaml) and no bundle directory "
                "(manifests/ + metadata/annotations.yaml) found"
            )

    @property
    def skipped(self) -> list[str]:
        return sorted([*self.pkgman.skipped, *self.bundledir.skipped])

    def package_names(self) -> list[str]:
        return list(self._names)

    def packages(self, only: Collection[str] | None = None) -> Iterator[PackageCatalog]:
        wanted = set(self._bundle_format if only is None else set(only) & set(self._bundle_format))
        return heapq.merge(
            self.pkgman.packages(only),
            self.bundledir.packages(wanted),
            key=lambda p: p.name,
        )

    def package_items(
        self, only: Collection[str] | None = None, outputs: PackageOutputs | None = None
    ) -> Iterator[PackageCatalog | CachedPackage]:
        """:meth:`packages`, bundle-format packages that ``outputs`` holds finished as
        :class:`CachedPackage` (see :meth:`BundleDirCatalog.package_items`)."""
        wanted = set(self._bundle_format if only is None else set(only) & set(self._bundle_format))
        pkgman: Iterator[PackageCatalog | CachedPackage] = iter(self.pkgman.packages(only))
        return heapq.merge(
            pkgman,
            self.bundledir.package_items(wanted, outputs),
            key=lambda p: p.name,
        )

    def global_others(self) -> list[Meta]:
        return []

    def __iter__(self) -> Iterator[PackageCatalog]:
        return self.packages()

    def close(self) -> None:
        self.pkgman.close()
        self.bundledir.close()
