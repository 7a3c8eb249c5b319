"""Hand-built file-based catalogs for validate tests: blob builders and a writer that puts one
blob per line, so blob N of a file starts at line N, column 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def pkg(name: str = "foo", default: str | None = "stable", **more: Any) -> dict[str, Any]:
    blob: dict[str, Any] = {"schema": "olm.package", "name": name, **more}
    if default is not None:
        blob["defaultChannel"] = default
    return blob


def ch(name: str, *entries: dict[str, Any], package: str = "foo") -> dict[str, Any]:
    return {"schema": "olm.channel", "name": name, "package": package, "entries": list(entries)}


def entry(name: str, replaces: str = "", **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, **more}
    if replaces:
        out["replaces"] = replaces
    return out


def package_property(package: str, version: str, **more: str) -> dict[str, Any]:
    return {"type": "olm.package", "value": {"packageName": package, "version": version, **more}}


def bnd(
    name: str,
    version: str,
    package: str = "foo",
    *,
    props: list[dict[str, Any]] | None = None,
    image: str | None = None,
    **more: Any,
) -> dict[str, Any]:
    return {
        "schema": "olm.bundle",
        "name": name,
        "package": package,
        "image": f"quay.io/example/{package}-bundle:v{version}" if image is None else image,
        "properties": [package_property(package, version)] if props is None else props,
        **more,
    }


def good_package(package: str = "foo") -> list[dict[str, Any]]:
    """A valid package: stable = v0.1.0 <- v0.2.0."""
    return [
        pkg(package),
        ch(
            "stable",
            entry(f"{package}.v0.1.0"),
            entry(f"{package}.v0.2.0", f"{package}.v0.1.0"),
            package=package,
        ),
        bnd(f"{package}.v0.1.0", "0.1.0", package),
        bnd(f"{package}.v0.2.0", "0.2.0", package),
    ]


def write_fbc(root: Path, *blobs: Any, name: str = "catalog.json") -> Path:
    """Blobs, one compact JSON value per line, in root/name; returns the root directory."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(b) + "\n" for b in blobs))
    return root
