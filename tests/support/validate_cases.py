"""Broken catalogs, one per rule of ``olmcat validate``: the blobs of ``catalog.json`` (one per
line), the problems expected under ``--compat v1.72`` as (rule ID, line), and whether opm v1.26.5
accepts the catalog (tests/differential/test_validate.py checks that flag against the real opm).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.support.fbc_catalogs import bnd, ch, entry, good_package, package_property, pkg

Blobs = list[dict[str, Any]]


def mutate(change: Callable[[Blobs], Any]) -> Blobs:
    blobs = good_package()
    change(blobs)
    return blobs


def _set(path: list[Any], value: Any) -> Callable[[Blobs], None]:
    def change(blobs: Blobs) -> None:
        target: Any = blobs
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _append(path: list[Any], value: Any) -> Callable[[Blobs], None]:
    def change(blobs: Blobs) -> None:
        target: Any = blobs
        for key in path:
            target = target[key]
        target.append(value)

    return change


CASES: dict[str, tuple[Blobs, list[tuple[str, int]], bool]] = {
    "blob-not-object": ([*good_package(), ["x"]], [("OLMCAT-BL001", 5)], False),
    "missing-schema": ([*good_package(), {"name": "x"}], [("OLMCAT-BL002", 5)], False),
    "field-type": (
        mutate(_set([3, "image"], 42)),
        [("OLMCAT-BL003", 4)],
        False,
    ),
    "required-field": (
        mutate(_append([1, "entries"], {"replaces": "foo.v0.2.0"})),
        [("OLMCAT-BL004", 2)],
        False,
    ),
    "unknown-package": (
        [*good_package(), ch("beta", entry("bar.v1"), package="bar")],
        [("OLMCAT-BL005", 5)],
        False,
    ),
    "duplicate-package": ([*good_package(), pkg()], [("OLMCAT-BL006", 5)], False),
    "duplicate-channel": (
        [*good_package(), ch("stable", entry("foo.v0.1.0"))],
        [("OLMCAT-BL007", 5)],
        False,
    ),
    "duplicate-bundle": (
        [*good_package(), bnd("foo.v0.1.0", "0.1.0")],
        [("OLMCAT-BL008", 5)],
        False,
    ),
    "other-blob-properties": (
        [*good_package(), {"schema": "x.other", "package": "foo", "properties": {"a": 1}}],
        [("OLMCAT-BL009", 5)],
        False,
    ),
    "duplicate-key": ([pkg(Name="foo"), *good_package()[1:]], [("OLMCAT-BL010", 1)], True),
    "invalid-package-name": (
        [
            pkg("Foo"),
            ch("stable", entry("Foo.v0.1.0"), package="Foo"),
            bnd("Foo.v0.1.0", "0.1.0", "Foo", image="quay.io/example/foo-bundle:v0.1.0"),
        ],
        [("OLMCAT-PK001", 1)],
        True,
    ),
    "no-default-channel": (mutate(_set([0, "defaultChannel"], "")), [("OLMCAT-PK002", 1)], False),
    "unknown-default-channel": (
        mutate(_set([0, "defaultChannel"], "fast")),
        [("OLMCAT-PK003", 1)],
        False,
    ),
    "no-channels": (
        [pkg(), bnd("foo.v0.1.0", "0.1.0")],
        [("OLMCAT-PK004", 1), ("OLMCAT-PK003", 1), ("OLMCAT-BU001", 2)],
        False,
    ),
    "duplicate-version": (
        mutate(_set([3, "properties"], [package_property("foo", "0.1.0")])),
        [("OLMCAT-PK005", 3), ("OLMCAT-PK005", 4)],
        True,
    ),
    "empty-channel": ([*good_package(), ch("fast")], [("OLMCAT-CH001", 5)], False),
    "duplicate-entry": (
        mutate(_append([1, "entries"], entry("foo.v0.1.0"))),
        [("OLMCAT-CH002", 2)],
        False,
    ),
    "stranded-bundle": (
        [
            pkg(),
            ch(
                "stable",
                entry("foo.v0.2.0", "foo.v0.1.0"),
                entry("foo.v0.1.0"),
                entry("foo.v0.0.1", "foo.v0.0.2"),
                entry("foo.v0.0.2", "foo.v0.0.1"),
            ),
            *[bnd(f"foo.v{v}", v) for v in ("0.2.0", "0.1.0", "0.0.1", "0.0.2")],
        ],
        [("OLMCAT-CH003", 2)],
        False,
    ),
    "chain-ends-at-skipped": (
        [
            pkg(),
            ch(
                "stable",
                entry("foo.v0.3.0", "foo.v0.2.0", skips=["foo.v0.2.0"]),
                entry("foo.v0.2.0", "foo.v0.1.0"),
                entry("foo.v0.1.0"),
            ),
            *[bnd(f"foo.v{v}", v) for v in ("0.3.0", "0.2.0", "0.1.0")],
        ],
        [("OLMCAT-CH007", 2)],
        True,
    ),
    "replaces-cycle-through-skipped": (
        [
            pkg(),
            ch(
                "stable",
                entry("foo.v0.3.0", "foo.v0.2.0", skips=["foo.v0.2.0", "foo.v0.1.0"]),
                entry("foo.v0.2.0", "foo.v0.1.0"),
                entry("foo.v0.1.0", "foo.v0.2.0"),
            ),
            *[bnd(f"foo.v{v}", v) for v in ("0.3.0", "0.2.0", "0.1.0")],
        ],
        [("OLMCAT-CH008", 2)],
        False,
    ),
    "no-head": (
        mutate(_set([1, "entries", 0, "replaces"], "foo.v0.2.0")),
        [("OLMCAT-CH005", 2)],
        False,
    ),
    "replaces-cycle": (
        [
            pkg(),
            ch(
                "stable",
                entry("foo.v0.3.0", "foo.v0.2.0"),
                entry("foo.v0.2.0", "foo.v0.1.0"),
                entry("foo.v0.1.0", "foo.v0.2.0"),
            ),
            *[bnd(f"foo.v{v}", v) for v in ("0.3.0", "0.2.0", "0.1.0")],
        ],
        [("OLMCAT-CH006", 2)],
        False,
    ),
    "channel-head": (
        [*good_package(), ch("fast", entry("foo.v0.1.0"), entry("foo.v0.2.0"))],
        [("OLMCAT-CH005", 5)],
        False,
    ),
    "missing-bundle": (
        mutate(_append([1, "entries"], entry("foo.v0.3.0", "foo.v0.2.0"))),
        [("OLMCAT-CH004", 2)],
        False,
    ),
    "empty-skip": (mutate(_set([1, "entries", 1, "skips"], [""])), [("OLMCAT-CH010", 2)], False),
    "invalid-skip-range": (
        mutate(_set([1, "entries", 1, "skipRange"], "<=v0.1.0")),
        [("OLMCAT-CH011", 2)],
        True,
    ),
    "replaces-outside-channel": (
        mutate(_set([1, "entries", 0, "replaces"], "foo.v0.0.9")),
        [("OLMCAT-CH009", 2)],
        True,
    ),
    "bundle-not-in-channel": (
        [*good_package(), bnd("foo.v0.3.0", "0.3.0")],
        [("OLMCAT-BU001", 5)],
        False,
    ),
    "package-property-count": (mutate(_set([3, "properties"], [])), [("OLMCAT-BU002", 4)], False),
    "package-property-mismatch": (
        mutate(_set([3, "properties"], [package_property("bar", "0.2.0")])),
        [("OLMCAT-BU003", 4)],
        False,
    ),
    "invalid-version": (
        mutate(_set([3, "properties"], [package_property("foo", "v0.2.0")])),
        [("OLMCAT-BU004", 4)],
        False,
    ),
    "invalid-release": (
        mutate(_set([3, "properties"], [package_property("foo", "0.2.0", release="01")])),
        [("OLMCAT-BU005", 4)],
        True,
    ),
    "bundle-name-not-normalized": (
        mutate(_set([3, "properties"], [package_property("foo", "0.2.0", release="2")])),
        [("OLMCAT-BU006", 4)],
        True,
    ),
    "no-bundle-image": (mutate(_set([3, "image"], "")), [("OLMCAT-BU008", 4)], False),
    "invalid-image-reference": (
        mutate(_set([3, "relatedImages"], [{"name": "op", "image": "quay.io/Example/op:v1"}])),
        [("OLMCAT-BU009", 4)],
        True,
    ),
    "invalid-bundle-object": (
        mutate(_append([3, "properties"], {"type": "olm.bundle.object", "value": {"data": "%%%"}})),
        [("OLMCAT-PR001", 4)],
        False,
    ),
    "invalid-property": (
        mutate(_append([3, "properties"], {"type": "olm.gvk", "value": {"kind": 5}})),
        [("OLMCAT-PR001", 4)],
        False,
    ),
    "invalid-csv-metadata": (
        mutate(
            _append([3, "properties"], {"type": "olm.csv.metadata", "value": {"keywords": "a"}})
        ),
        [("OLMCAT-PR002", 4)],
        True,
    ),
    "package-required-version-range": (
        mutate(
            _append(
                [3, "properties"],
                {
                    "type": "olm.package.required",
                    "value": {"packageName": "bar", "versionRange": "v0.1.0"},
                },
            )
        ),
        [("OLMCAT-PR005", 4)],
        True,
    ),
    "deprecations-unknown-package": (
        [*good_package(), {"schema": "olm.deprecations", "package": "bar", "entries": []}],
        [("OLMCAT-DE001", 5)],
        True,
    ),
    "deprecation-reference": (
        [
            *good_package(),
            {
                "schema": "olm.deprecations",
                "package": "foo",
                "entries": [{"reference": {"schema": "olm.bundle", "name": "x"}, "message": "m"}],
            },
        ],
        [("OLMCAT-DE003", 5)],
        True,
    ),
    "deprecation-message": (
        [
            *good_package(),
            {
                "schema": "olm.deprecations",
                "package": "foo",
                "entries": [{"reference": {"schema": "olm.channel", "name": "stable"}}],
            },
        ],
        [("OLMCAT-DE005", 5)],
        True,
    ),
}


# k8s.io/apimachinery v0.33.0 TestYAMLOrJSONDecoder (cases of 9b3d085f): (text, decodes). The
# generic documents of the Go test are catalog blobs here: P a package, C its channel, B its
# bundle (two lines each, to keep each case's shape).
P = '"schema": "olm.package", "name": "foo", "defaultChannel": "stable"'
P_YAML = "schema: olm.package, name: foo, defaultChannel: stable"
REST = "".join(json.dumps(b) + "\n" for b in good_package()[1:])
DECODER_CASES = [
    ("json-then-yaml-flow", "{" + P + "}\n---\n{schema: example.note, package: foo}\n", True),
    ("json-then-yaml-block", "{" + P + "}\n---\nschema: example.note\npackage: foo\n", True),
    ("trailing-blanks", "{" + P + "}    \n---\nschema: example.note\n", True),
    ("yaml-then-json", "{" + P_YAML + "}\n---\n" + '{"schema": "example.note"}\n', True),
    ("spaces", "{\n  " + P + "\n}\n---\n{\n  schema: example.note\n}\n", True),
    ("tabs", "{\n\t" + P + "\n}\n---\n{\n\tschema: example.note\n}\n", True),
    (
        "two-json-then-yaml",
        '{"schema": "example.a"}\n{"schema": "example.b"}\n---\n{schema: example.c}\n',
        False,
    ),
]
