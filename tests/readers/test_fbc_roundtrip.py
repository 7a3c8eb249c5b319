"""Round trips: model -> FBC (JSON and YAML) -> model gives the model back."""

from __future__ import annotations

import io
import json
import tempfile
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from olmcat.model import PackageCatalog
from olmcat.model.property import Property
from olmcat.readers.fbc import FbcCatalog
from olmcat.writers import fbc
from tests.support.catalog_strategies import package_catalogs


def _roundtrip(pkg: PackageCatalog, output: fbc.OutputFormat) -> PackageCatalog:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        fbc.write_directory([pkg], out, output)
        with FbcCatalog(out) as catalog:
            (back,) = list(catalog)
            assert catalog.global_others() == []
    return back


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(package_catalogs())
def test_json_roundtrip_is_lossless(pkg: PackageCatalog) -> None:
    assert _roundtrip(pkg, "json") == pkg


def _sorted_keys(pkg: PackageCatalog) -> PackageCatalog:
    """YAML output sorts object keys (yaml.v2 does, so opm's YAML does too): compare JSON values
    of properties and unknown blobs with their keys sorted."""

    def canon(text: str) -> str:
        return json.dumps(json.loads(text), sort_keys=True)

    def props(items: tuple[Property, ...]) -> tuple[Property, ...]:
        return tuple(replace(p, value=canon(p.value)) for p in items)

    return replace(
        pkg,
        package=replace(pkg.package, properties=props(pkg.package.properties)),
        channels=tuple(replace(c, properties=props(c.properties)) for c in pkg.channels),
        bundles=tuple(replace(b, properties=props(b.properties)) for b in pkg.bundles),
        others=tuple(replace(m, blob=canon(m.blob)) for m in pkg.others),
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(package_catalogs())
def test_yaml_roundtrip_keeps_every_value(pkg: PackageCatalog) -> None:
    assert _sorted_keys(_roundtrip(pkg, "yaml")) == _sorted_keys(pkg)


@settings(max_examples=50, deadline=None)
@given(package_catalogs())
def test_rewriting_a_read_catalog_is_byte_identical(pkg: PackageCatalog) -> None:
    first = io.StringIO()
    fbc.stream([pkg], first)
    again = io.StringIO()
    fbc.stream([_roundtrip(pkg, "json")], again)
    assert again.getvalue() == first.getvalue()
