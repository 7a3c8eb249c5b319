"""Properties of the CRD comparison, on real CRDs (the ``olm.bundle.object``s of the corpus's
index-upstream.db) and on generated schemas:

* a CRD compared with itself finds nothing;
* adding an optional field anywhere (in every version that has its parent) finds nothing;
* removing any field of a real CRD is an ``existingFieldRemoval`` naming it.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from olmcat.olmv1.crdupgrade.engine import compare_crds
from tests.support.paths import corpus_path

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@functools.cache
def _corpus_crds() -> tuple[dict[str, Any], ...]:
    from olmcat.olmv1.bundle import from_catalog_bundle
    from olmcat.readers.catalog import open_catalog

    found: dict[str, dict[str, Any]] = {}
    with open_catalog(str(corpus_path("sqlite", "index-upstream.db"))) as catalog:
        for pkg in catalog.packages():
            for bundle in pkg.bundles:
                read = from_catalog_bundle(bundle)
                for crd in read.crds if read is not None else ():
                    found.setdefault(crd["metadata"]["name"], crd)
    return tuple(found[name] for name in sorted(found))


def _crds() -> st.SearchStrategy[dict[str, Any]]:
    return st.integers(min_value=0, max_value=10**6).map(
        lambda i: _corpus_crds()[i % len(_corpus_crds())]
    )


def _fields(crd: dict[str, Any]) -> list[tuple[int, tuple[str, ...], str]]:
    """(version index, keys down to a ``properties`` map, property name) of every field."""
    out: list[tuple[int, tuple[str, ...], str]] = []

    def walk(node: Any, keys: tuple[str, ...], index: int) -> None:
        if not isinstance(node, dict):
            return
        for name, child in (node.get("properties") or {}).items():
            out.append((index, keys, name))
            walk(child, (*keys, "properties", name), index)
        items = node.get("items")
        if isinstance(items, dict):
            walk(items, (*keys, "items"), index)

    for index, version in enumerate(crd["spec"].get("versions") or []):
        root = (version.get("schema") or {}).get("openAPIV3Schema")
        walk(root, (), index)
    return out


def _node(crd: dict[str, Any], index: int, keys: tuple[str, ...]) -> dict[str, Any]:
    node = crd["spec"]["versions"][index]["schema"]["openAPIV3Schema"]
    for key in keys:
        node = node[key]
    return node  # type: ignore[no-any-return]


def _location(keys: tuple[str, ...], name: str) -> str:
    parts = ["^"] + [k for k in keys if k != "properties"] + [name]
    return ".".join(parts)


@SETTINGS
@given(_crds())
def test_a_crd_compared_with_itself_finds_nothing(crd: dict[str, Any]) -> None:
    result = compare_crds(crd, copy.deepcopy(crd), assume_stored_versions=True)
    assert result.findings == ()


@SETTINGS
@given(_crds(), st.data())
def test_adding_an_optional_field_finds_nothing(crd: dict[str, Any], data: st.DataObject) -> None:
    fields = _fields(crd)
    if not fields:
        return
    _, keys, _ = data.draw(st.sampled_from(fields))
    new = copy.deepcopy(crd)
    name = data.draw(st.from_regex(r"\AzzAdded[a-z]{0,6}\Z"))
    added = data.draw(
        st.sampled_from(
            [
                {"type": "string"},
                {"type": "integer", "minimum": 0},
                {"type": "object", "properties": {"a": {"type": "boolean"}}},
                {"type": "array", "items": {"type": "string"}},
            ]
        )
    )
    # in every version that has the parent: a field only some served versions have is a
    # served-version difference crdify reports (v1alpha1 -> v1beta1: ^.x: type changed)
    for index in {i for i, k, _ in fields if k == keys}:
        _node(new, index, keys)["properties"][name] = copy.deepcopy(added)
    result = compare_crds(crd, new, assume_stored_versions=True)
    assert result.findings == ()


@SETTINGS
@given(_crds(), st.data())
def test_removing_a_field_is_an_existing_field_removal(
    crd: dict[str, Any], data: st.DataObject
) -> None:
    fields = _fields(crd)
    if not fields:
        return
    index, keys, name = data.draw(st.sampled_from(fields))
    new = copy.deepcopy(crd)
    del _node(new, index, keys)["properties"][name]
    version = crd["spec"]["versions"][index]["name"]
    result = compare_crds(crd, new, assume_stored_versions=True)
    removals = [f.message for f in result.findings if f.rule == "existingFieldRemoval"]
    assert f"removed field : {version}.{_location(keys, name)}" in removals


def test_the_corpus_has_crds() -> None:
    assert len(_corpus_crds()) > 50
