"""``olmcat olmv1 install`` on every package of the real corpus (../shared/corpus).

For each package the bundle OLM v1 resolves (no channel, no range: the newest version) is
rendered as operator-controller v1.11.0 renders it, and its install stream must pass the checks of
tests/olmv1/test_install.py: the installer's rules allow everything (sufficient) and nothing can be
left out (minimal) under the offline RBAC evaluator, and every object validates (Kubernetes 1.33,
the ClusterExtension CRD). Which packages install is derived independently from opm's golden FBC
(plain JSON): the newest bundle's CSV supports AllNamespaces and the bundle declares no dependency
(olm.package.required, olm.gvk.required, olm.constraint). Bundles without AllNamespaces are
installed too, with the watch namespace the SingleOwnNamespaceInstallSupport gate takes.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest

from olmcat.errors import OlmcatError
from olmcat.olmv1.install import InstallResult, install_stream
from olmcat.readers.catalog import open_catalog
from tests.support.install_checks import insufficient, not_minimal, schema_errors
from tests.support.paths import catalog_blobs, corpus_path

CATALOGS = ["expected/index-upstream.json", "expected/upstream-subset.json"]
DEPENDENCIES = {"olm.package.required", "olm.gvk.required", "olm.constraint"}


def _version_key(version: str) -> tuple[Any, ...]:
    core, _, pre = version.split("+")[0].partition("-")
    numbers = tuple(int(n) for n in re.findall(r"\d+", core)[:3])
    return (numbers, pre == "", pre)


def _expected(golden: Path) -> dict[str, tuple[str, list[str], bool]]:
    """package -> (newest bundle, its supported install modes, declares a dependency)."""
    blobs = list(catalog_blobs(golden))
    newest: dict[str, dict[str, Any]] = {}
    for blob in blobs:
        if blob.get("schema") != "olm.bundle":
            continue
        version = next(
            p["value"]["version"] for p in blob["properties"] if p["type"] == "olm.package"
        )
        kept = newest.get(blob["package"])
        if kept is None or _version_key(version) > _version_key(kept["_version"]):
            newest[blob["package"]] = {**blob, "_version": version}
    out: dict[str, tuple[str, list[str], bool]] = {}
    for package, blob in newest.items():
        csv: dict[str, Any] = {}
        for prop in blob["properties"]:
            if prop["type"] == "olm.bundle.object":
                obj = json.loads(base64.b64decode(prop["value"]["data"]))
                if obj.get("kind") == "ClusterServiceVersion":
                    csv = obj
        modes = [
            m["type"] for m in csv.get("spec", {}).get("installModes", []) if m.get("supported")
        ]
        dependency = any(p["type"] in DEPENDENCIES for p in blob["properties"])
        out[package] = (blob["name"], modes, dependency)
    return out


def _check(result: InstallResult, *, experimental: bool) -> list[str]:
    problems = insufficient(result.rbac, result.needs, result.rendered)
    problems += [
        f"not minimal: {m}" for m in not_minimal(result.rbac, result.needs, result.rendered)
    ]
    problems += schema_errors(result.objects, experimental=experimental)
    return problems


@pytest.mark.parametrize("catalog", CATALOGS)
def test_every_installable_package(catalog: str) -> None:
    path = corpus_path(*catalog.split("/"))
    expected = _expected(path)
    installed: dict[str, str] = {}
    watched: dict[str, str] = {}
    refused: dict[str, str] = {}
    failures: dict[str, list[str]] = {}
    with open_catalog(str(path)) as source:
        for package in source.package_names():
            _, modes, dependency = expected[package]
            try:
                result = install_stream(source, package, "operators")
            except OlmcatError as error:
                refused[package] = str(error)
            else:
                installed[package] = result.bundle
                failures[package] = _check(result, experimental=False)
                continue
            if dependency or "AllNamespaces" in modes:
                continue
            # the SingleOwnNamespaceInstallSupport feature gate: OwnNamespace, else one other
            watch = "operators" if "OwnNamespace" in modes else "watched"
            result = install_stream(source, package, "operators", watch_namespace=watch)
            watched[package] = result.bundle
            failures[package] = _check(result, experimental=True)
    assert {p: f for p, f in failures.items() if f} == {}
    assert installed == {
        p: name
        for p, (name, modes, dep) in expected.items()
        if "AllNamespaces" in modes and not dep
    }
    assert set(watched) == {
        p
        for p, (_, modes, dep) in expected.items()
        if not dep
        and "AllNamespaces" not in modes
        and {"OwnNamespace", "SingleNamespace"} & set(modes)
    }
    for package, message in refused.items():
        assert package not in installed
        assert ("does not support AllNamespaces" in message) or (
            "has a dependency declared via property" in message
        ), message
    print(
        f"\n{catalog}: {len(installed)} installable (AllNamespaces), {len(watched)} with a watch "
        f"namespace, {len(refused) - len(watched)} refused, of {len(expected)} packages"
    )
