"""Graph and lookup helpers of the model."""

from __future__ import annotations

import pytest

from olmcat.errors import ValidationError
from olmcat.model import (
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    DeprecationEntry,
    Package,
    PackageCatalog,
)
from olmcat.model import property as prop


def channel(*entries: ChannelEntry) -> Channel:
    return Channel("stable", "demo", entries)


def test_head_is_the_entry_nothing_replaces_or_skips() -> None:
    c = channel(
        ChannelEntry("a"),
        ChannelEntry("b", replaces="a"),
        ChannelEntry("c", replaces="b", skips=("x",)),
    )
    assert c.heads() == ["c"]
    assert c.head() == "c"


def test_two_heads_or_none_is_an_error() -> None:
    with pytest.raises(ValidationError, match="must have exactly one head, found a, b"):
        channel(ChannelEntry("a"), ChannelEntry("b")).head()
    with pytest.raises(ValidationError, match="found none"):
        channel(ChannelEntry("a", replaces="b"), ChannelEntry("b", replaces="a")).head()


def test_replaces_chain_stops_at_gaps_and_cycles() -> None:
    c = channel(ChannelEntry("a", replaces="gone"), ChannelEntry("b", replaces="a"))
    assert c.replaces_chain("b") == ["b", "a", "gone"]
    loop = channel(ChannelEntry("a", replaces="b"), ChannelEntry("b", replaces="a"))
    assert loop.replaces_chain("a") == ["a", "b"]


def test_bundle_version_comes_from_the_package_property() -> None:
    assert Bundle("x", "demo", properties=(prop.package("demo", "1.2.3"),)).version == "1.2.3"
    assert Bundle("x", "demo").version == ""
    assert Bundle("x", "demo", properties=(prop.Property("olm.package", "[]"),)).version == ""


def test_deprecated_names_merge_deprecations_and_the_legacy_property() -> None:
    pkg = PackageCatalog(
        Package("demo"),
        bundles=(
            Bundle("old", "demo", properties=(prop.Property(prop.TYPE_DEPRECATED, "{}"),)),
            Bundle("new", "demo"),
        ),
        deprecations=(
            Deprecation(
                "demo",
                (
                    DeprecationEntry("olm.channel", "beta", "use stable"),
                    DeprecationEntry("olm.bundle", "new", "broken"),
                ),
            ),
        ),
    )
    assert pkg.deprecated_names() == (False, {"beta"}, {"old", "new"})
