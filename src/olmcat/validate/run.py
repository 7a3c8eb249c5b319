"""Validate a catalog of any form, package by package, reporting every problem.

FBC input is scanned with :class:`olmcat.readers.fbcscan.FbcScan` in collecting mode (the reader
uses the same scanner strictly), so file, document and envelope problems come first, each with
its file, line and column; then each package's blobs are turned into the model (field problems
reported, broken blobs left out) and the model rules of :mod:`olmcat.validate.checks` run on it.

Other forms (SQLite databases, package-manifest and bundle directories, index images holding a
database) are read by their readers in permissive mode; the notices they emit become problems
(what the legacy loader would have refused is an error), then the model rules run.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from olmcat.errors import InputError
from olmcat.files import safe
from olmcat.model import (
    SCHEMA_BUNDLE,
    SCHEMA_CHANNEL,
    SCHEMA_DEPRECATIONS,
    SCHEMA_PACKAGE,
    Bundle,
    Channel,
    Deprecation,
    Package,
    PackageCatalog,
)
from olmcat.model import property as prop
from olmcat.notices import Notice
from olmcat.readers.catalog import detect
from olmcat.readers.fbc import (
    BlobFields,
    bundle_blob,
    channel_blob,
    deprecations_blob,
    describe_blob,
    package_blob,
)
from olmcat.readers.fbcscan import KNOWN_SCHEMAS, BlobRef, FbcScan, Position, ScanProblem
from olmcat.validate.checks import Locations, check_package, q
from olmcat.validate.problems import Findings, Problem, Summary
from olmcat.validate.rules import DEFAULT_COMPAT, RuleSet

_SCAN_RULES = {
    "stray-file": "stray-file",
    "read": "unreadable-file",
    "parse": "unparsable-file",
    "empty-document": "empty-document",
    "blob": "blob-not-object",
    "schema": "missing-schema",
    "field-type": "field-type",
    "required-field": "required-field",
    "html-escape": "escaped-html-escape",
    "invalid-utf8": "invalid-utf8-in-json",
    "json-then-yaml": "json-then-yaml",
    "huge-number": "number-out-of-range",
}
_DUPLICATE_RULES = {
    SCHEMA_PACKAGE: "duplicate-package",
    SCHEMA_CHANNEL: "duplicate-channel",
    SCHEMA_BUNDLE: "duplicate-bundle",
    SCHEMA_DEPRECATIONS: "duplicate-deprecations",
}


def validate(
    reference: str | Path,
    *,
    rules: RuleSet | None = None,
    summary: Summary | None = None,
    platform: str | None = None,
) -> Iterator[Problem]:
    """Problems of the catalog at ``reference`` (any form), package by package.

    ``rules`` chooses the opm compatibility level and the rules that run (default: opm v1.72,
    the default rules). Raises :class:`InputError` when the input cannot be read at all.
    ``summary`` receives the counts as problems stream.
    """
    rules = rules if rules is not None else RuleSet.build(DEFAULT_COMPAT)
    summary = summary if summary is not None else Summary()
    summary.compat = rules.compat
    ref = str(reference)
    kind = detect(ref)
    summary.kind = kind
    out = Findings(rules)
    for problem in _validate(ref, kind, summary, out, platform):
        yield summary.count(problem)
    if summary.packages == 0:
        out.add(
            "empty-catalog",
            f"{ref}: the catalog holds no package (opm accepts an empty catalog; it serves "
            "nothing)",
            at=Position(ref) if ref != "-" else None,
        )
        for problem in out.take():
            yield summary.count(problem)


def _validate(
    ref: str, kind: str, summary: Summary, out: Findings, platform: str | None
) -> Iterator[Problem]:
    if kind == "fbc":
        yield from _validate_fbc(ref, summary, out)
    elif kind == "image":
        yield from _validate_image(ref, summary, out, platform)
    else:
        from olmcat.readers.catalog import open_catalog

        notices: list[Notice] = []
        with open_catalog(ref, notify=notices.append, permissive=True) as catalog:
            yield from _stream_with_notices(catalog.packages(), notices, summary, out)


# -- FBC ------------------------------------------------------------------------------------------


class _FbcValidation:
    def __init__(
        self, source: str, summary: Summary, out: Findings, shown: Callable[[str], str] = str
    ) -> None:
        self.summary = summary
        self.out = out
        self.real: dict[str, Path] = {}  # shown name -> path on disk (for v1.26's object refs)

        def show(path: str) -> str:
            name = shown(path)
            self.real[name] = Path(path)
            return name

        self.scan = FbcScan(source, report=self.scan_problem, shown=show)

    def scan_problem(self, problem: ScanProblem) -> None:
        if problem.kind == "duplicate":
            rule = _DUPLICATE_RULES[problem.schema]
        elif problem.schema == SCHEMA_DEPRECATIONS:
            rule = "malformed-deprecations"
        else:
            rule = _SCAN_RULES[problem.kind]
        self.out.add(
            rule,
            problem.message,
            at=problem.position,
            package=problem.package,
            channel=problem.name if problem.schema == SCHEMA_CHANNEL else "",
            bundle=problem.name if problem.schema == SCHEMA_BUNDLE else "",
            until=problem.until,
        )

    def run(self) -> Iterator[Problem]:
        yield from self.out.take()  # files, documents, envelopes
        for ref in self.scan.unowned:
            self.convert(ref, self.scan.load(ref))
        for ref in self.scan.global_blobs:
            self.blob_keys(ref, self.scan.load(ref))
        yield from self.out.take()
        for name in sorted(self.scan.by_package):
            refs = self.scan.by_package[name]
            if any(r.schema == SCHEMA_PACKAGE for r in refs):
                self.summary.packages += 1
                self.package(name, refs)
            else:
                self.unknown_package(name, refs)
            yield from self.out.take()

    def unknown_package(self, name: str, refs: list[BlobRef]) -> None:
        for ref in refs:
            data = self.scan.load(ref)
            self.blob_keys(ref, data)
            if ref.schema not in KNOWN_SCHEMAS:
                continue
            rule = (
                "deprecations-unknown-package"
                if ref.schema == SCHEMA_DEPRECATIONS
                else "unknown-package"
            )
            self.out.add(
                rule,
                f"{describe_blob(ref.schema, ref.name)} blob names package {q(name)}, which has "
                "no olm.package blob",
                at=ref.position,
                package=name,
                channel=ref.name if ref.schema == SCHEMA_CHANNEL else "",
                bundle=ref.name if ref.schema == SCHEMA_BUNDLE else "",
            )
            self.convert(ref, data)  # its other defects too: every problem in one run

    def package(self, name: str, refs: list[BlobRef]) -> None:
        locations = Locations()
        package: Package | None = None
        channels: list[Channel] = []
        bundles: list[Bundle] = []
        deprecations: list[Deprecation] = []
        for ref in refs:
            data = self.scan.load(ref)
            self.blob_keys(ref, data)
            if ref.schema not in KNOWN_SCHEMAS:
                continue
            locations.blobs.setdefault((ref.schema, ref.name), ref.position)
            converted, ok = self.convert(ref, data)
            if not ok:
                locations.broken.add((ref.schema, ref.name))
            if isinstance(converted, Package):
                package = converted
            elif isinstance(converted, Channel) and ok:
                channels.append(converted)
            elif isinstance(converted, Bundle) and ok:
                bundles.append(converted)
                self.bundle_object_refs(ref, data)
            elif isinstance(converted, Deprecation) and ok:
                deprecations.append(converted)
        assert package is not None
        pkg = PackageCatalog(package, tuple(channels), tuple(bundles), tuple(deprecations))
        check_package(pkg, locations=locations, out=self.out)

    def convert(self, ref: BlobRef, data: dict[str, Any]) -> tuple[object, bool]:
        """The blob as a model object, its field problems reported; ``ok`` is False when the
        blob is too broken to check further."""
        channel = ref.name if ref.schema == SCHEMA_CHANNEL else ""
        bundle = ref.name if ref.schema == SCHEMA_BUNDLE else ""
        malformed = ref.schema == SCHEMA_DEPRECATIONS

        def report(rule: str, message: str) -> None:
            if rule == "required-field" and not ref.package and '"package"' in message:
                return  # the scan has reported the blob without a package
            self.out.add(
                "malformed-deprecations" if malformed else rule,
                message,
                at=ref.position,
                package=ref.package,
                channel=channel,
                bundle=bundle,
            )

        fields = BlobFields(report, describe_blob(ref.schema, ref.name))
        converted: object
        if ref.schema == SCHEMA_PACKAGE:
            converted = package_blob(data, fields)
        elif ref.schema == SCHEMA_CHANNEL:
            converted = channel_blob(data, fields)
        elif ref.schema == SCHEMA_BUNDLE:
            converted = bundle_blob(data, fields)
        else:
            converted = deprecations_blob(data, fields)
        return converted, fields.ok

    def blob_keys(self, ref: BlobRef, data: dict[str, Any]) -> None:
        """Rules on the raw blob that only one opm release has."""
        folded: dict[str, list[str]] = {}
        for key in data:
            folded.setdefault(key.casefold(), []).append(key)
        for keys in folded.values():
            if len(keys) > 1:
                self.out.add(
                    "duplicate-key",
                    f"{describe_blob(ref.schema, ref.name)} blob has keys that differ only in "
                    f"case: {', '.join(sorted(keys))}",
                    at=ref.position,
                    package=ref.package,
                )
        if ref.schema not in KNOWN_SCHEMAS:
            problem = _meta_properties_problem(data.get("properties"))
            if problem is not None:
                self.out.add(
                    "other-blob-properties",
                    f"{describe_blob(ref.schema, ref.name)} blob: {problem}",
                    at=ref.position,
                    package=ref.package,
                )

    def bundle_object_refs(self, ref: BlobRef, data: dict[str, Any]) -> None:
        """opm v1.26's ``olm.bundle.object`` file references."""
        items = data.get("properties")
        if not isinstance(items, list):
            return
        for index, item in enumerate(items):
            if not isinstance(item, dict) or item.get("type") != prop.TYPE_BUNDLE_OBJECT:
                continue
            value = item.get("value")
            if not isinstance(value, dict) or not isinstance(value.get("ref"), str):
                continue
            target = value["ref"]
            at = f"bundle {q(ref.name)} properties[{index}] (olm.bundle.object)"
            problem = None
            if target and value.get("data"):
                problem = "fields 'ref' and 'data' are mutually exclusive"
            elif target:
                problem = self._ref_problem(ref.position.file, target)
            if problem is not None:
                self.out.add(
                    "bundle-object-ref",
                    f"{at}: ref {q(target)}: {problem}",
                    at=ref.position,
                    package=ref.package,
                    bundle=ref.name,
                )

    def _ref_problem(self, shown: str, target: str) -> str | None:
        if target.startswith("/"):
            return "reference must be a relative path"
        real = self.real.get(shown)
        if real is None:
            return "cannot be resolved: the catalog was read from stdin"
        source = Path(str(self.scan.source))
        root = source if source.is_dir() else source.parent
        # opm opens it through an fs.FS rooted at the catalog: no way out of the root.
        joined = os.path.normpath(os.path.join(os.path.dirname(real), target))
        if os.path.relpath(joined, root).startswith(".."):
            return "the path leads out of the catalog directory"
        if not Path(joined).is_file():
            return f"no such file beside {real.name}"
        return None


def _meta_properties_problem(value: Any) -> str | None:
    """opm v1.26 decodes ``properties`` of every blob as a list of {type, value}."""
    if value is None:
        return None
    if not isinstance(value, list):
        return "'properties' must be a list of {type, value} objects"
    for index, item in enumerate(value):
        if item is None:
            continue
        if not isinstance(item, dict):
            return f"properties[{index}] must be an object"
        type_ = item.get("type")
        if type_ is not None and not isinstance(type_, str):
            return f"properties[{index}].type must be a string"
    return None


def _validate_fbc(
    source: str, summary: Summary, out: Findings, shown: Callable[[str], str] = str
) -> Iterator[Problem]:
    run = _FbcValidation(source, summary, out, shown)
    try:
        yield from run.run()
    finally:
        run.scan.close()


# -- other forms ----------------------------------------------------------------------------------


def notice_problem(notice: Notice, out: Findings) -> None:
    """A reader's notice as a problem: what the legacy loader refuses is an error, anything
    else a warning."""
    rule = "legacy-rejected" if notice.severity == "error" else "reader-notice"
    out.add(
        rule,
        notice.message,
        at=Position(notice.file) if notice.file else None,
        package=notice.package,
        bundle=notice.bundle,
    )


def _stream_with_notices(
    packages: Iterable[PackageCatalog], notices: list[Notice], summary: Summary, out: Findings
) -> Iterator[Problem]:
    """Model rules per package; reader notices come out next to the package that caused them."""
    for pkg in packages:
        while notices:
            notice_problem(notices.pop(0), out)
        summary.packages += 1
        check_package(pkg, out=out)
        yield from out.take()
    while notices:
        notice_problem(notices.pop(0), out)
    yield from out.take()


def _validate_image(
    ref: str, summary: Summary, out: Findings, platform: str | None
) -> Iterator[Problem]:
    from olmcat.oci.pull import extract_image_catalog
    from olmcat.readers.sqlite import SqliteCatalog

    scratch = safe.scratch_dir("validate")
    try:
        found = extract_image_catalog(ref, scratch / "root", platform=platform)
        if found.kind == "fbc":
            root = str(found.path)
            image_root = found.image_path.rstrip("/")

            def shown(path: str) -> str:
                # Name files as they are inside the image, not in our scratch directory.
                inside = path[len(root) :] if path.startswith(root) else path
                return f"{ref}:{image_root}{inside}"

            yield from _validate_fbc(root, summary, out, shown)
            return
        notices: list[Notice] = []
        with SqliteCatalog(found.path, notify=notices.append) as catalog:
            yield from _stream_with_notices(catalog.packages(), notices, summary, out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


__all__ = ["InputError", "Problem", "Summary", "notice_problem", "validate"]
