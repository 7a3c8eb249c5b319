"""The basic catalog template: an FBC whose bundles are given by image only.

Two forms are read, whatever the opm release emulated:

* up to v1.43: a plain FBC stream (JSON or YAML documents); every ``olm.bundle`` must carry only
  a ``schema`` and an ``image`` (a ``name`` is tolerated, as opm tolerates it);
* since v1.44.0: one document ``{"schema": "olm.template.basic", "entries": [blob, ...]}`` (only
  the first document of the stream is read, as opm reads it).

Rendering replaces each bundle reference by the rendered bundle (:mod:`.resolve`) and writes the
result as opm does (:mod:`.decl`). Full ``olm.bundle`` blobs are refused, as opm refuses them,
unless ``inline_bundles`` is set (an olmcat extension: they are passed through unchanged).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from olmcat.errors import InputError
from olmcat.go.opm import NEWEST, MigrateLevel, OpmRelease
from olmcat.model import Bundle
from olmcat.model.csvmetadata import as_rendered_by
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.templates.decl import (
    Blob,
    Config,
    Source,
    bundle_fields,
    channel_blob,
    deprecation_blob,
    loads_documents,
    meta_blob,
    package_blob,
    schema_of,
    struct_fields,
)
from olmcat.templates.resolve import BundleResolver

SCHEMA = "olm.template.basic"


@dataclass(frozen=True, slots=True)
class BasicTemplate:
    """The blobs of a basic template, each with where it came from."""

    documents: tuple[tuple[dict[str, Any], Source], ...]
    form: str  # "fbc" (up to v1.43) or "olm.template.basic" (since v1.44.0)


def parse(text: str, where: str, *, opm: OpmRelease = NEWEST) -> BasicTemplate:
    """Read either form of basic template (blobs decoded as ``opm`` decodes them)."""
    documents = list(loads_documents(text, where, opm))
    if not documents:
        raise InputError(f"{where}: the template is empty")
    first, source = documents[0]
    if isinstance(first, dict) and schema_of(first, source) == SCHEMA:
        fields = struct_fields(first, ("schema", "entries"))
        entries = fields.get("entries")
        if entries is None:
            entries = []
        if not isinstance(entries, list):
            raise InputError(f"{where}: {SCHEMA}: 'entries' must be a list of blobs")
        return BasicTemplate(
            tuple(
                (entry, Source(f"{where} (entries[{i}])", source.from_yaml, source.reencoded))
                for i, entry in enumerate(entries)
            ),
            SCHEMA,
        )
    return BasicTemplate(tuple((d, s) for d, s in documents), "fbc")


def _rendered_bundle_text(bundle: Bundle) -> str:
    from olmcat.writers.fbc import bundle_json

    return bundle_json(bundle)


def render(
    template: BasicTemplate,
    resolver: BundleResolver,
    *,
    opm: OpmRelease = NEWEST,
    inline_bundles: bool = False,
    migrate_level: MigrateLevel = "none",
    notify: NoticeSink = discard,
) -> Config:
    """The catalog the template stands for (``basic.Template.Render``)."""
    config = Config()
    for doc, source in template.documents:
        schema = schema_of(doc, source)
        if schema == "olm.package":
            config.packages.append(package_blob(doc, source))
        elif schema == "olm.channel":
            config.channels.append(channel_blob(doc, source))
        elif schema == "olm.bundle":
            config.bundles.append(
                _bundle(doc, source, resolver, opm, inline_bundles, migrate_level, notify)
            )
        elif schema == "olm.deprecations" and opm.has("encoding-deprecations-typed"):
            config.deprecations.append(deprecation_blob(doc, source))
        else:
            config.others.append(meta_blob(doc, source, opm, schema))
    return config


def _bundle(
    doc: dict[str, Any],
    source: Source,
    resolver: BundleResolver,
    opm: OpmRelease,
    inline_bundles: bool,
    migrate_level: MigrateLevel,
    notify: NoticeSink,
) -> Blob:
    fields = bundle_fields(doc, source)
    if fields.is_image_reference():
        resolved = resolver.resolve(fields.image, opm)
        bundle = as_rendered_by(resolved.bundle, opm, migrate_level, notify, form=resolved.form)
        return Blob("olm.bundle", bundle.package, bundle.name, _rendered_bundle_text(bundle))
    if not inline_bundles:
        raise InputError(
            f"{source.where}: unexpected fields present in basic template bundle "
            f"{fields.name or fields.image or '(unnamed)'}: a bundle entry may carry only schema "
            "and image (pass --inline-bundles to accept full olm.bundle blobs, an olmcat "
            "extension opm does not have)"
        )
    if not fields.package or not fields.name:
        raise InputError(
            f"{source.where}: inline olm.bundle {fields.name or fields.image!r} needs a name and "
            "a package"
        )
    notify(
        Notice(
            "template.inline-bundle",
            f"bundle {fields.name} of package {fields.package} is inline in the template "
            "(olmcat extension; opm refuses full bundles in a basic template)",
            severity="info",
            file=source.where,
            package=fields.package,
            bundle=fields.name,
        )
    )
    return Blob("olm.bundle", fields.package, fields.name, fields.text(opm))


# -- generating a basic template from a catalog -------------------------------------------------


def template_documents(
    blobs: Iterable[str],
    *,
    inline_bundles: bool,
) -> Iterator[str]:
    """Compact JSON texts of a template made from a catalog's blobs (``FromReader``): every
    ``olm.bundle`` reduced to its schema and image unless ``inline_bundles``."""
    import json

    for text in blobs:
        blob = json.loads(text)
        if blob.get("schema") == "olm.bundle" and not inline_bundles:
            from olmcat.go.json import go_string

            yield f'{{"schema":"olm.bundle","image":{go_string(blob.get("image", ""))}}}'
        else:
            yield text
