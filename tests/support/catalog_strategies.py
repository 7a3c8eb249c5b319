"""Hypothesis strategies that generate whole package catalogs of the model."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from olmcat.go import json as gojson
from olmcat.model import (
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    DeprecationEntry,
    Icon,
    Meta,
    Package,
    PackageCatalog,
    RelatedImage,
)
from olmcat.model.property import Property

names = st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True)
# Printable text without the characters whose YAML round trip depends on the emitter's line
# folding of control characters.
text = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp")), max_size=20
)

json_leaf: st.SearchStrategy[Any] = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**53), 2**53), text
)
json_values: st.SearchStrategy[Any] = st.recursive(
    json_leaf,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(names, children, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def properties(draw: st.DrawFn) -> tuple[Property, ...]:
    # FBC forbids null property values (the _Meta schema says value != null).
    values = json_values.filter(lambda v: v is not None)
    items = draw(
        st.lists(
            st.tuples(st.sampled_from(["olm.gvk", "olm.label", "x.custom"]), values),
            max_size=4,
        )
    )
    return tuple(Property(t, gojson.encode(v)) for t, v in items)


@st.composite
def package_catalogs(draw: st.DrawFn) -> PackageCatalog:
    pkg_name = draw(names)
    bundle_names = draw(st.lists(names, min_size=1, max_size=5, unique=True))
    bundles = tuple(
        Bundle(
            name=b,
            package=pkg_name,
            image=draw(st.sampled_from(["", f"quay.io/x/{b}:1"])),
            properties=draw(properties()),
            related_images=tuple(
                RelatedImage(n, i) for n, i in draw(st.lists(st.tuples(text, names), max_size=3))
            ),
        )
        for b in sorted(bundle_names)
    )
    channel_names = sorted(draw(st.lists(names, min_size=1, max_size=3, unique=True)))
    channels = []
    for channel in channel_names:
        members = sorted(draw(st.sets(st.sampled_from(bundle_names), min_size=1)))
        entries = tuple(
            ChannelEntry(
                name=m,
                replaces=draw(st.sampled_from(["", *bundle_names])),
                skips=tuple(draw(st.lists(names, max_size=2))),
                skip_range=draw(st.sampled_from(["", "<1.0.0", ">=1.0.0 <2.0.0 || >3.0.0"])),
            )
            for m in members
        )
        channels.append(Channel(channel, pkg_name, entries, draw(properties())))
    icon = draw(
        st.none() | st.builds(Icon, st.just("aGVsbG8="), st.sampled_from(["image/png", ""]))
    )
    deprecations: tuple[Deprecation, ...] = ()
    if draw(st.booleans()):
        deprecations = (
            Deprecation(
                pkg_name,
                (
                    DeprecationEntry("olm.package", "", draw(text)),
                    DeprecationEntry("olm.channel", channel_names[0], draw(text)),
                    DeprecationEntry("olm.bundle", bundle_names[0], draw(text)),
                ),
            ),
        )
    others = tuple(
        Meta(
            schema,
            pkg_name,
            name,
            gojson.encode({"schema": schema, "package": pkg_name, "name": name, "x": v}),
        )
        for schema, name, v in sorted(
            draw(
                st.lists(
                    st.tuples(st.sampled_from(["x.a", "x.b"]), names, json_values),
                    max_size=2,
                    unique_by=lambda t: (t[0], t[1]),
                )
            )
        )
    )
    return PackageCatalog(
        package=Package(
            name=pkg_name,
            default_channel=draw(st.sampled_from(channel_names)),
            icon=icon,
            description=draw(text),
            properties=draw(properties()),
        ),
        channels=tuple(channels),
        bundles=bundles,
        deprecations=deprecations,
        others=others,
    )
