"""The normalized catalog model: types, properties, channel graphs, version policy.

Independent of any input or output format. ``olmcat.model`` re-exports the types of
:mod:`olmcat.model.types`; properties, manifests and graph algorithms live in their own modules.
"""

from olmcat.model.types import (
    SCHEMA_BUNDLE,
    SCHEMA_CHANNEL,
    SCHEMA_DEPRECATIONS,
    SCHEMA_PACKAGE,
    Bundle,
    CatalogStats,
    Channel,
    ChannelEntry,
    Deprecation,
    DeprecationEntry,
    Icon,
    Meta,
    Package,
    PackageCatalog,
    RelatedImage,
    counted,
)

__all__ = [
    "SCHEMA_BUNDLE",
    "SCHEMA_CHANNEL",
    "SCHEMA_DEPRECATIONS",
    "SCHEMA_PACKAGE",
    "Bundle",
    "CatalogStats",
    "Channel",
    "ChannelEntry",
    "Deprecation",
    "DeprecationEntry",
    "Icon",
    "Meta",
    "Package",
    "PackageCatalog",
    "RelatedImage",
    "counted",
]
