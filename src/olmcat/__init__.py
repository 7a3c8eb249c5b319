"""olmcat: read every legacy OLM catalog form, write file-based catalogs as opm does, diff,
validate, filter and plan mirroring.

The public library API is what ``__all__`` lists; everything else is internal and may move.
Names are loaded on first use, so ``import olmcat`` stays cheap for the command line::

    import olmcat

    with olmcat.open_catalog("bundles.db") as catalog:      # any catalog reference
        for package in catalog.packages():
            print(package.name, [c.name for c in package.channels])

    log = olmcat.NoticeLog()                                 # what was left out, and why
    olmcat.migrate_sqlite("bundles.db", Path("out"), notify=log)
    result = olmcat.compare("old.db", "out")                 # upgrade-graph diff
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> "module:attribute"
_EXPORTS: dict[str, str] = {
    # errors and notices
    "OlmcatError": "olmcat.errors:OlmcatError",
    "InputError": "olmcat.errors:InputError",
    "OutputError": "olmcat.errors:OutputError",
    "ValidationError": "olmcat.errors:ValidationError",
    "EncodingError": "olmcat.errors:EncodingError",
    "UsageError": "olmcat.errors:UsageError",
    "Notice": "olmcat.notices:Notice",
    "NoticeLog": "olmcat.notices:NoticeLog",
    "NoticeSink": "olmcat.notices:NoticeSink",
    # the model
    "Package": "olmcat.model.types:Package",
    "Channel": "olmcat.model.types:Channel",
    "ChannelEntry": "olmcat.model.types:ChannelEntry",
    "Bundle": "olmcat.model.types:Bundle",
    "RelatedImage": "olmcat.model.types:RelatedImage",
    "Icon": "olmcat.model.types:Icon",
    "Deprecation": "olmcat.model.types:Deprecation",
    "DeprecationEntry": "olmcat.model.types:DeprecationEntry",
    "Meta": "olmcat.model.types:Meta",
    "PackageCatalog": "olmcat.model.types:PackageCatalog",
    "Property": "olmcat.model.property:Property",
    # reading and writing
    "open_catalog": "olmcat.readers.catalog:open_catalog",
    "Catalog": "olmcat.readers.catalog:Catalog",
    "CatalogSource": "olmcat.readers.source:CatalogSource",
    "MemoryCatalog": "olmcat.readers.memory:MemoryCatalog",
    "write_directory": "olmcat.writers.fbc:write_directory",
    "write_stream": "olmcat.writers.fbc:stream",
    # operations
    "migrate_sqlite": "olmcat.migrate:migrate_sqlite",
    "migrate_pkgman": "olmcat.migrate:migrate_pkgman",
    "MigrateResult": "olmcat.migrate:MigrateResult",
    "pkgman_to_bundles": "olmcat.writers.bundles:pkgman_to_bundles",
    "render_bundles": "olmcat.readers.bundlerender:render_bundles",
    "compare": "olmcat.diff.catalogs:compare",
    "Comparison": "olmcat.diff.catalogs:Comparison",
    "CatalogDiff": "olmcat.diff.compare:CatalogDiff",
    "diff_catalogs": "olmcat.diff.compare:diff_catalogs",
    "delta_catalog": "olmcat.diff.delta:delta_catalog",
    # not "validate": that name is the olmcat.validate subpackage once it is imported
    "validate_catalog": "olmcat.validate.run:validate",
    "filter_catalog": "olmcat.mirror.filter:filter_catalog",
    "FilterSpec": "olmcat.mirror.filter:FilterSpec",
    "PackageSelector": "olmcat.mirror.filter:PackageSelector",
    "catalog_images": "olmcat.mirror.images:catalog_images",
    "plan_catalog": "olmcat.mirror.plan:plan_catalog",
    "export_sqlite": "olmcat.export.sqlite:export_sqlite",
    "PlanOptions": "olmcat.mirror.plan:PlanOptions",
    "load_image_set_config": "olmcat.mirror.isc:load_image_set_config",
    "upgrade_check": "olmcat.upgrade.check:upgrade_check",
    "crd_upgrade": "olmcat.olmv1.crdupgrade.check:crd_upgrade",
    "diff_crd_safety": "olmcat.olmv1.crdupgrade.catalogs:diff_crd_safety",
    "upgrade_crd_safety": "olmcat.olmv1.crdupgrade.catalogs:upgrade_crd_safety",
    "CrdSafetyReport": "olmcat.olmv1.crdupgrade.catalogs:CrdSafetyReport",
    "CrdUpgradeResult": "olmcat.olmv1.crdupgrade.check:CrdUpgradeResult",
    "UpgradeReport": "olmcat.upgrade.check:UpgradeReport",
    "load_inventory": "olmcat.upgrade.inventory:load_inventory",
    "mirror_copy": "olmcat.mirror.copy:mirror_copy",
    "CopyOptions": "olmcat.mirror.copy:CopyOptions",
    "CopyReport": "olmcat.mirror.copy:CopyReport",
    # opm releases and migration levels
    "OpmRelease": "olmcat.go.opm:OpmRelease",
    "opm_release": "olmcat.go.opm:opm_release",
    "MIGRATE_LEVELS": "olmcat.go.opm:MIGRATE_LEVELS",
    # registries
    "RegistryOptions": "olmcat.oci.options:RegistryOptions",
    "use_registry_options": "olmcat.oci.options:use_options",
    "BlobCache": "olmcat.oci.cache:BlobCache",
    "render_template": "olmcat.templates:render_template",
    "render_template_text": "olmcat.templates:render_text",
    "generate_templates": "olmcat.templates:generate_templates",
    "BundleResolver": "olmcat.templates.resolve:BundleResolver",
    "TemplateReport": "olmcat.templates:TemplateReport",
    "add_bundles": "olmcat.maintain:add_bundles",
    "remove_packages": "olmcat.maintain:remove_packages",
    "prune_packages": "olmcat.maintain:prune_packages",
    "prune_stranded": "olmcat.maintain:prune_stranded",
    "deprecate_truncate": "olmcat.maintain:deprecate_truncate",
    "MaintainResult": "olmcat.maintain:MaintainResult",
    # pictures: SVG graphs and self-contained HTML reports
    "graph_svg": "olmcat.pictures.graph:graph_svg",
    "graph_html": "olmcat.pictures.graph:graph_html",
    "diff_html": "olmcat.pictures.diff:diff_html",
    "diff_pictures": "olmcat.pictures.diff:diff_pictures",
    "DiffPictures": "olmcat.pictures.diff:DiffPictures",
    "upgrade_html": "olmcat.pictures.upgrade:upgrade_html",
    "upgrade_pictures": "olmcat.pictures.upgrade:upgrade_pictures",
    "UpgradePictures": "olmcat.pictures.upgrade:UpgradePictures",
    # OLM v1 (operator-controller v1.11.0)
    "olmv1_install": "olmcat.olmv1.install:install_stream",
    "Olmv1InstallResult": "olmcat.olmv1.install:InstallResult",
    "olmv1_check": "olmcat.olmv1.check:check",
    "Olmv1CheckReport": "olmcat.olmv1.check:CheckReport",
    "olmv1_plan": "olmcat.olmv1.plan:plan",
    "Olmv1PlanReport": "olmcat.olmv1.plan:PlanReport",
    "olmv1_check_html": "olmcat.pictures.olmv1:check_html",
    "olmv1_plan_html": "olmcat.pictures.olmv1:plan_html",
    "RegistryV1": "olmcat.olmv1.bundle:RegistryV1",
    "read_olmv1_bundle": "olmcat.olmv1.bundle:read_bundle",
    "validate_olmv1_bundle": "olmcat.olmv1.validators:validate",
    "render_olmv1_bundle": "olmcat.olmv1.render:render_bundle",
    "render_olmv1_source": "olmcat.olmv1.render:render_source",
}

__all__ = [
    "MIGRATE_LEVELS",
    "BlobCache",
    "Bundle",
    "BundleResolver",
    "Catalog",
    "CatalogDiff",
    "CatalogSource",
    "Channel",
    "ChannelEntry",
    "Comparison",
    "CopyOptions",
    "CopyReport",
    "CrdSafetyReport",
    "CrdUpgradeResult",
    "Deprecation",
    "DeprecationEntry",
    "DiffPictures",
    "EncodingError",
    "FilterSpec",
    "Icon",
    "InputError",
    "MaintainResult",
    "MemoryCatalog",
    "Meta",
    "MigrateResult",
    "Notice",
    "NoticeLog",
    "NoticeSink",
    "OlmcatError",
    "Olmv1CheckReport",
    "Olmv1InstallResult",
    "Olmv1PlanReport",
    "OpmRelease",
    "OutputError",
    "Package",
    "PackageCatalog",
    "PackageSelector",
    "PlanOptions",
    "Property",
    "RegistryOptions",
    "RegistryV1",
    "RelatedImage",
    "TemplateReport",
    "UpgradePictures",
    "UpgradeReport",
    "UsageError",
    "ValidationError",
    "__version__",
    "add_bundles",
    "catalog_images",
    "compare",
    "crd_upgrade",
    "delta_catalog",
    "deprecate_truncate",
    "diff_catalogs",
    "diff_crd_safety",
    "diff_html",
    "diff_pictures",
    "export_sqlite",
    "filter_catalog",
    "generate_templates",
    "graph_html",
    "graph_svg",
    "load_image_set_config",
    "load_inventory",
    "migrate_pkgman",
    "migrate_sqlite",
    "mirror_copy",
    "olmv1_check",
    "olmv1_check_html",
    "olmv1_install",
    "olmv1_plan",
    "olmv1_plan_html",
    "open_catalog",
    "opm_release",
    "pkgman_to_bundles",
    "plan_catalog",
    "prune_packages",
    "prune_stranded",
    "read_olmv1_bundle",
    "remove_packages",
    "render_bundles",
    "render_olmv1_bundle",
    "render_olmv1_source",
    "render_template",
    "render_template_text",
    "upgrade_check",
    "upgrade_crd_safety",
    "upgrade_html",
    "upgrade_pictures",
    "use_registry_options",
    "validate_catalog",
    "validate_olmv1_bundle",
    "write_directory",
    "write_stream",
]


def __getattr__(name: str) -> Any:
    target = _EXPORTS.get(name)
    if target is None:
        raise AttributeError(f"module 'olmcat' has no attribute {name!r}")
    module, _, attribute = target.partition(":")
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # the same names, for type checkers and IDEs
    from olmcat.diff.catalogs import Comparison, compare
    from olmcat.diff.compare import CatalogDiff, diff_catalogs
    from olmcat.diff.delta import delta_catalog
    from olmcat.errors import (
        EncodingError,
        InputError,
        OlmcatError,
        OutputError,
        UsageError,
        ValidationError,
    )
    from olmcat.export.sqlite import export_sqlite
    from olmcat.go.opm import MIGRATE_LEVELS, OpmRelease, opm_release
    from olmcat.migrate import MigrateResult, migrate_pkgman, migrate_sqlite
    from olmcat.mirror.copy import CopyOptions, CopyReport, mirror_copy
    from olmcat.mirror.filter import FilterSpec, PackageSelector, filter_catalog
    from olmcat.mirror.images import catalog_images
    from olmcat.mirror.isc import load_image_set_config
    from olmcat.mirror.plan import PlanOptions, plan_catalog
    from olmcat.model.property import Property
    from olmcat.model.types import (
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
    from olmcat.notices import Notice, NoticeLog, NoticeSink
    from olmcat.oci.cache import BlobCache
    from olmcat.oci.options import RegistryOptions
    from olmcat.oci.options import use_options as use_registry_options
    from olmcat.olmv1.bundle import RegistryV1
    from olmcat.olmv1.bundle import read_bundle as read_olmv1_bundle
    from olmcat.olmv1.check import CheckReport as Olmv1CheckReport
    from olmcat.olmv1.check import check as olmv1_check
    from olmcat.olmv1.install import InstallResult as Olmv1InstallResult
    from olmcat.olmv1.install import install_stream as olmv1_install
    from olmcat.olmv1.plan import PlanReport as Olmv1PlanReport
    from olmcat.olmv1.plan import plan as olmv1_plan
    from olmcat.olmv1.render import render_bundle as render_olmv1_bundle
    from olmcat.olmv1.render import render_source as render_olmv1_source
    from olmcat.olmv1.validators import validate as validate_olmv1_bundle
    from olmcat.pictures.diff import DiffPictures, diff_html, diff_pictures
    from olmcat.pictures.graph import graph_html, graph_svg
    from olmcat.pictures.olmv1 import check_html as olmv1_check_html
    from olmcat.pictures.olmv1 import plan_html as olmv1_plan_html
    from olmcat.pictures.upgrade import UpgradePictures, upgrade_html, upgrade_pictures
    from olmcat.readers.bundlerender import render_bundles
    from olmcat.readers.catalog import Catalog, open_catalog
    from olmcat.readers.memory import MemoryCatalog
    from olmcat.readers.source import CatalogSource
    from olmcat.upgrade.check import UpgradeReport, upgrade_check
    from olmcat.upgrade.inventory import load_inventory
    from olmcat.validate.run import validate as validate_catalog
    from olmcat.writers.bundles import pkgman_to_bundles
    from olmcat.writers.fbc import stream as write_stream
    from olmcat.writers.fbc import write_directory
