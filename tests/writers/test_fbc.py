"""writers/fbc.py: the JSON layout written directly equals ``json.Indent`` of the compact blobs
(what opm's encoder does), for generated catalogs and for the shapes it takes shortcuts on."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from olmcat.go import json as gojson
from olmcat.model import Bundle, Channel, ChannelEntry, Package, PackageCatalog, RelatedImage
from olmcat.model.property import Property
from olmcat.writers import fbc
from tests.support.catalog_strategies import package_catalogs


def via_indent(pkg: PackageCatalog) -> str:
    """The reference: every compact blob re-indented by the json.Indent port."""
    return "".join(gojson.indent(text, 0) + "\n" for text in fbc.blobs(pkg))


def written(pkg: PackageCatalog) -> str:
    return "".join(fbc._package_chunks(pkg, "json"))


@settings(max_examples=60, deadline=None)
@given(package_catalogs())
def test_direct_layout_equals_indented_compact_blobs(pkg: PackageCatalog) -> None:
    assert written(pkg) == via_indent(pkg)


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=30), st.text(max_size=8))
def test_bundle_object_shortcut_agrees_with_indent(data: str, other_key: str) -> None:
    # {"data": ...} values are laid out without tokenizing; anything else goes through indent
    values = [
        gojson.encode({"data": data}),
        gojson.encode({"data": data, other_key or "k": 1}),
        gojson.encode({other_key or "k": data}),
        gojson.encode([data]),
        gojson.encode(data),
    ]
    bundle = Bundle(
        name="b",
        package="p",
        image="",
        properties=tuple(Property("olm.bundle.object", v) for v in values),
        related_images=(RelatedImage("", "quay.io/x:1"), RelatedImage(data, "y")),
    )
    pkg = PackageCatalog(package=Package("p", "c"), bundles=(bundle,))
    assert written(pkg) == via_indent(pkg)


def test_channel_shapes() -> None:
    entries = (
        ChannelEntry("a.v2", replaces="a.v1", skips=("a.v0", "a.v0.5"), skip_range="<2.0.0"),
        ChannelEntry("a.v1"),
    )
    pkg = PackageCatalog(
        package=Package("a", "stable"),
        channels=(Channel("stable", "a", entries), Channel("empty", "a", ())),
    )
    text = written(pkg)
    assert text == via_indent(pkg)
    assert '"entries": []' in text
    assert '            "skips": [\n                "a.v0",\n' in text
