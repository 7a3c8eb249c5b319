"""Every container image a catalog references: bundle images and their related images.

The counterpart of the legacy ``select * from related_image`` query, for any catalog form. Each
reference is reported with the package and bundle that use it and, for related images, the name
the bundle gives it. Rows stream one package at a time (packages in catalog order, then by bundle,
image, name, kind), so memory holds one package, never the catalog.

A bundle image usually also appears in the bundle's own ``relatedImages`` (opm adds it); both
rows are kept because they carry different facts (``kind`` ``bundle`` and ``related``). Empty
image fields (bundles built from directories without an image) are not images and are skipped.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal, TextIO

from olmcat.model import PackageCatalog

__all__ = [
    "FORMATS",
    "CatalogImage",
    "ImageFormat",
    "catalog_images",
    "package_images",
    "unique_images",
    "write_images",
    "write_unique_images",
]

ImageFormat = Literal["text", "json", "csv"]
FORMATS: tuple[ImageFormat, ...] = ("text", "json", "csv")
Kind = Literal["bundle", "related"]
_FIELDS = ("image", "package", "bundle", "name", "kind")


@dataclass(frozen=True, slots=True, order=True)
class CatalogImage:
    """One use of an image: ``name`` is the related-image name (``""`` for a bundle image)."""

    package: str
    bundle: str
    image: str
    name: str
    kind: Kind

    def as_dict(self) -> dict[str, str]:
        return {field: getattr(self, field) for field in _FIELDS}


def package_images(pkg: PackageCatalog) -> list[CatalogImage]:
    """The de-duplicated, sorted image uses of one package."""
    rows: set[CatalogImage] = set()
    for bundle in pkg.bundles:
        if bundle.image:
            rows.add(CatalogImage(pkg.name, bundle.name, bundle.image, "", "bundle"))
        for related in bundle.related_images:
            if related.image:
                rows.add(
                    CatalogImage(pkg.name, bundle.name, related.image, related.name, "related")
                )
    return sorted(rows)


def catalog_images(packages: Iterable[PackageCatalog]) -> Iterator[CatalogImage]:
    """Image uses of a whole catalog, streamed package by package."""
    for pkg in packages:
        yield from package_images(pkg)


def unique_images(rows: Iterable[CatalogImage]) -> list[str]:
    """The distinct image references of ``rows``, sorted (what has to be copied)."""
    return sorted({row.image for row in rows})


def write_images(rows: Iterable[CatalogImage], out: TextIO, output: ImageFormat = "text") -> int:
    """Write ``rows`` to ``out``; returns how many were written.

    * ``text``: tab-separated ``image package bundle kind name`` (``-`` for no name), one per
      line;
    * ``json``: a JSON array of objects, one per line, written as rows arrive;
    * ``csv``: a header line ``image,package,bundle,name,kind`` then one row per use.
    """
    count = 0
    if output == "json":
        out.write("[")
        for row in rows:
            out.write(("\n" if count == 0 else ",\n") + json.dumps(row.as_dict()))
            count += 1
        out.write("\n]\n" if count else "]\n")
    elif output == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(_FIELDS)
        for row in rows:
            writer.writerow([getattr(row, field) for field in _FIELDS])
            count += 1
    elif output == "text":
        for row in rows:
            out.write(f"{row.image}\t{row.package}\t{row.bundle}\t{row.kind}\t{row.name or '-'}\n")
            count += 1
    else:
        raise ValueError(f"unknown image list format {output!r}")
    return count


def write_unique_images(images: Iterable[str], out: TextIO, output: ImageFormat = "text") -> int:
    """Write distinct image references: one per line, a JSON array, or a one-column CSV."""
    items = list(images)
    if output == "json":
        out.write(json.dumps(items, indent=0) + "\n" if items else "[]\n")
    elif output == "csv":
        out.write("image\n")
        writer = csv.writer(out, lineterminator="\n")
        writer.writerows([item] for item in items)
    elif output == "text":
        out.write("".join(f"{item}\n" for item in items))
    else:
        raise ValueError(f"unknown image list format {output!r}")
    return len(items)
