"""The CRD upgrade-safety engine against its specs, as data.

* operator-controller v1.11.0 ``rukpak/preflights/crdupgradesafety/crdupgradesafety_test.go``
  (``TestInstall``, ``TestUpgrade``, ``TestUpgrade_OneOf*``, ``TestUpgrade_UnhandledChanges_*``)
  on its ``testdata/manifests`` pairs, copied to ``tests/data/olmv1/crdupgrade/manifests``;
* ``unhandled_message_test.go`` (the concise summary);
* crdify's end-to-end suite (``test/*/{a.yaml,b.yaml,expected.json}``, crdify with no
  configuration), copied to ``tests/data/olmv1/crdupgrade/crdify``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from olmcat.olmv1.crdupgrade.check import compare_crd_lists
from olmcat.olmv1.crdupgrade.engine import (
    CRDIFY_DEFAULT,
    OLM_V1_11,
    Config,
    compare_crds,
    concise_unhandled,
)
from tests.support.paths import DATA

MANIFESTS = DATA / "olmv1" / "crdupgrade" / "manifests"
CRDIFY = DATA / "olmv1" / "crdupgrade" / "crdify"


def _crd(name: str) -> dict[str, Any]:
    value = json.loads((MANIFESTS / name).read_text())
    return value if isinstance(value, dict) else value[0]


def _preflight_error(old: str, new: str, config: Config = OLM_V1_11) -> str:
    """What v1.11.0's preflight returns for one CRD: "" when the upgrade is allowed."""
    return compare_crds(_crd(old), _crd(new), config).error()


# (case name as in crdupgradesafety_test.go, old file, new file, wanted substrings, unwanted)
PREFLIGHT_CASES: list[tuple[str, str, str, list[str], list[str]]] = [
    ("valid upgrade", "old-crd.json", "crd-valid-upgrade.json", [], []),
    (
        "new crd validation failures (all except existing field removal)",
        "old-crd.json",
        "crd-invalid-upgrade.json",
        [
            "scope:",
            "storedVersionRemoval:",
            "enum:",
            "required:",
            "maximum:",
            "maxItems:",
            "maxLength:",
            "maxProperties:",
            "minimum:",
            "minItems:",
            "minLength:",
            "minProperties:",
            "default:",
        ],
        [],
    ),
    (
        "new crd validation failure for existing field removal",
        "old-crd.json",
        "crd-field-removed.json",
        ["existingFieldRemoval:"],
        [],
    ),
    (
        "new crd validation should not fail on description changes",
        "old-crd.json",
        "crd-description-changed.json",
        [],
        [],
    ),
    (
        "optional field addition should not fail",
        "crd-optional-field-old.json",
        "crd-optional-field-new.json",
        [],
        [],
    ),
    (
        "webhook conversion strategy exists",
        "crd-conversion-webhook-old.json",
        "crd-conversion-webhook.json",
        [],
        [],
    ),
    (
        "new crd validation failure when missing conversion strategy and enum values removed",
        "crd-conversion-webhook-old.json",
        "crd-conversion-no-webhook.json",
        [
            'validating upgrade for CRD "crontabs.stable.example.com": v1 -> v2: '
            "^.spec.foobarbaz: enum: allowed enum values removed"
        ],
        [],
    ),
    (
        "success when old crd and new crd contain the exact same validation issues",
        "crd-conversion-no-webhook.json",
        "crd-conversion-no-webhook.json",
        [],
        [],
    ),
    (
        "failure when old crd and new crd contain the exact same validation issues, but new crd "
        "introduces another validation issue",
        "crd-conversion-no-webhook.json",
        "crd-conversion-no-webhook-extra-issue.json",
        [
            'validating upgrade for CRD "crontabs.stable.example.com":',
            'v1 -> v2: ^.spec.extraField: type: type changed : "boolean" -> "string"',
        ],
        ["v1 -> v2: ^.spec.foobarbaz: enum: allowed enum values removed"],
    ),
    (
        "complex breaking changes should fail",
        "crd-complex-breaking-changes-old.json",
        "crd-complex-breaking-changes-new.json",
        [
            'validating upgrade for CRD "services.networking.example.com"',
            "type: type changed",
            "nullable: nullable added",
            "oneOf: oneOf constraint added",
        ],
        [],
    ),
    (
        "OneOfRemoved: removing oneOf subschemas should fail",
        "crd-oneof-removed-old.json",
        "crd-oneof-removed-new.json",
        ["oneOf: allowed oneOf schemas removed"],
        [],
    ),
    (
        "OneOfAdded: adding oneOf required constraints to existing property should report oneOf "
        "error",
        "crd-oneof-safe-addition-old.json",
        "crd-oneof-safe-addition-new.json",
        ["oneOf: oneOf constraint added"],
        ["unhandled", "type:"],
    ),
    (
        "UnhandledChanges_InSpec_DefaultPolicy: unhandled spec changes cause error by default",
        "crd-unhandled-old.json",
        "crd-unhandled-new.json",
        ["unhandled changes found", 'Format "" -> "email"'],
        ["v1.JSONSchemaProps"],
    ),
]


# TestInstall runs the same preflight (Install and Upgrade both call runPreflight) on these
INSTALL_CASES = (
    "valid upgrade",
    "new crd validation failures (all except existing field removal)",
    "new crd validation failure for existing field removal",
    "new crd validation should not fail on description changes",
    "optional field addition should not fail",
)


def _preflight_params() -> list[Any]:
    params = [
        pytest.param(*case[1:], id=f"TestInstall/{case[0]}")
        for case in PREFLIGHT_CASES
        if case[0] in INSTALL_CASES
    ]
    params += [
        pytest.param(*case[1:], id=f"{'' if ':' in case[0] else 'TestUpgrade/'}{case[0]}")
        for case in PREFLIGHT_CASES
    ]
    return params


@pytest.mark.parametrize(("old", "new", "wanted", "unwanted"), _preflight_params())
def test_preflight_case(old: str, new: str, wanted: list[str], unwanted: list[str]) -> None:
    error = _preflight_error(old, new)
    if not wanted:
        assert error == ""
    for text in wanted:
        assert text in error
    for text in unwanted:
        assert text not in error


# The cases of TestInstall / TestUpgrade about what reaches the comparison, offline:
# "nil release", "release with no objects", "release with no CRD objects" and "fail to get old
# crd, not found error" compare no CRD at all (nothing to break); "release with invalid manifest"
# and "invalid crd manifest file" are input errors; "fail to get old crd, other than not found"
# (the cluster's API failing) has no offline counterpart and is not ported.
@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param([], [], id="nil release / release with no objects"),
        pytest.param([_crd("old-crd.json")], [], id="release with no CRD objects"),
        pytest.param(
            [], [_crd("crd-valid-upgrade.json")], id="fail to get old crd, not found error"
        ),
    ],
)
def test_nothing_to_compare_is_safe(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> None:
    compared, only_old, only_new = compare_crd_lists(old, new)
    assert compared == ()
    assert len(only_old) == len(old) and len(only_new) == len(new)


@pytest.mark.parametrize(
    "manifest", ["crd-invalid", "no-crds.json"], ids=["invalid crd manifest file", "no CRD objects"]
)
def test_unreadable_or_crd_less_input_is_trouble(manifest: str) -> None:
    from olmcat.errors import OlmcatError
    from olmcat.olmv1.crdupgrade.check import load_crds

    with pytest.raises(OlmcatError):
        load_crds(str(MANIFESTS / manifest))


def test_release_with_invalid_manifest_is_trouble(tmp_path: Path) -> None:
    from olmcat.errors import OlmcatError
    from olmcat.olmv1.crdupgrade.check import load_crds

    (tmp_path / "release.yaml").write_text("abcd")
    with pytest.raises(OlmcatError):
        load_crds(str(tmp_path / "release.yaml"))


def test_unhandled_changes_policy_error() -> None:
    """TestUpgrade_UnhandledChanges_PolicyError: conversion Ignore, unhandled Error, nothing else
    configured (so description and enum additions are enforced too)."""
    config = Config(conversion="Ignore", unhandled="Error")
    error = _preflight_error("crd-unhandled-old.json", "crd-unhandled-new.json", config)
    assert "unhandled changes found" in error
    assert 'Format "" -> "email"' in error


def test_preflight_error_is_the_joined_findings() -> None:
    """errors.Join: the CRD prefix once, then one finding a line."""
    result = compare_crds(_crd("old-crd.json"), _crd("crd-invalid-upgrade.json"))
    lines = result.error().split("\n")
    assert lines[0] == (
        'validating upgrade for CRD "crontabs.stable.example.com": scope: scope changed : '
        '"Cluster" -> "Namespaced"'
    )
    assert "storedVersionRemoval: stored versions removed : [v1]" in lines
    assert (
        'v2: ^.spec.defaultVal: default: default added when there was none previously : "\\"foo\\""'
        in lines
    )
    assert len(lines) == len(result.findings)


# unhandled_message_test.go
@pytest.mark.parametrize(
    ("raw", "want"),
    [
        pytest.param("some other error", "some other error", id="NoPrefix"),
        pytest.param(
            'unhandled changes found :\n- Format: ""\n+ Format: "email"\n',
            'unhandled changes found (Format "" -> "email")',
            id="SingleChange",
        ),
        pytest.param(
            'unhandled changes found :\n- Format: ""\n+ Format: "email"\n- Default: nil\n'
            '+ Default: "value"\n- Title: ""\n+ Title: "Widget"\n- Description: "old"\n'
            '+ Description: "new"\n',
            'unhandled changes found (Format "" -> "email"; Default nil -> "value"; '
            'Title "" -> "Widget"; Description "old" -> "new")',
            id="MultipleChanges",
        ),
        pytest.param(
            "unhandled changes found :\n- Default: &v1.JSONSchemaProps{}\n"
            '+ Default: &v1.JSONSchemaProps{Type: "string"}\n',
            "unhandled changes found (Default <complex value> -> <complex value> (changed))",
            id="SkipComplexValues",
        ),
    ],
)
def test_concise_unhandled_message(raw: str, want: str) -> None:
    assert concise_unhandled(raw) == want


# -- crdify's end-to-end suite ---------------------------------------------------------------------


def _load_yaml(path: Path) -> dict[str, Any]:
    documents = [d for d in yaml.safe_load_all(path.read_text()) if d]
    return documents[0]


def _expected(path: Path) -> Counter[tuple[str, str, str, str]]:
    data = json.loads(path.read_text()) if path.read_text().strip() else {}
    out: Counter[tuple[str, str, str, str]] = Counter()
    for result in data.get("crdValidation") or []:
        for error in result.get("errors") or []:
            out[("", "", result["name"], error)] += 1
    for key in ("sameVersionValidation", "servedVersionValidation"):
        for versioned in data.get(key) or []:
            for prop in versioned.get("propertyComparisons") or []:
                for result in prop.get("comparisonResults") or []:
                    for error in result.get("errors") or []:
                        if result["name"] == "unhandled":
                            error = concise_unhandled(error)
                        out[(versioned["version"], prop["property"], result["name"], error)] += 1
    return out


E2E = sorted(p.name for p in CRDIFY.iterdir() if p.is_dir())


@pytest.mark.parametrize("case", E2E)
def test_crdify_end_to_end(case: str) -> None:
    base = CRDIFY / case
    result = compare_crds(_load_yaml(base / "a.yaml"), _load_yaml(base / "b.yaml"), CRDIFY_DEFAULT)
    got = Counter((f.version, f.path, f.rule, f.message) for f in result.findings)
    assert got == _expected(base / "expected.json")


def test_crdify_end_to_end_cases_are_all_here() -> None:
    assert len(E2E) == 22


# The unhandled details of changes no validation handles. The first is v1.11.0's own example; the
# others are olmcat's rendering of go-cmp's report (it descends into structs and equal-length
# lists; other composite values are abbreviated), documented in docs/olmv1-crd-upgrade.md.
@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(
            {"type": "string"},
            {"type": "string", "format": "email"},
            'unhandled changes found (Format "" -> "email")',
            id="scalar",
        ),
        pytest.param(
            {"type": "object", "x-kubernetes-validations": [{"rule": "self.a > 0"}]},
            {"type": "object", "x-kubernetes-validations": [{"rule": "self.a > 1"}]},
            'unhandled changes found (Rule "self.a > 0" -> "self.a > 1")',
            id="a validation rule changed",
        ),
        pytest.param(
            {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            {"anyOf": [{"type": "integer"}]},
            "unhandled changes found (AnyOf <complex value> -> <complex value> (changed))",
            id="an anyOf subschema removed",
        ),
        pytest.param(
            {"type": "object"},
            {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            "unhandled changes found (XPreserveUnknownFields nil -> &true)",
            id="a pointer field set",
        ),
        # crdify flattens additionalProperties into a node of its own but leaves it on its
        # parent too (only properties and items are dropped), so any change inside it, even a
        # description, is an unhandled change of the parent (stackgres-community 1.19.0-rc1:
        # the EnvVar description under spec.pods.customEnv's additionalProperties.items)
        pytest.param(
            {"type": "object", "additionalProperties": {"type": "string", "description": "a"}},
            {"type": "object", "additionalProperties": {"type": "string", "description": "b"}},
            'unhandled changes found (Description "a" -> "b")',
            id="a description inside additionalProperties changed",
        ),
        pytest.param(
            {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
            },
            {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "integer"}},
            },
            'unhandled changes found (Type "string" -> "integer")',
            id="the items of additionalProperties changed",
        ),
        pytest.param(
            {"type": "object", "additionalProperties": False},
            {"type": "object", "additionalProperties": True},
            "unhandled changes found (Allows false -> true)",
            id="additionalProperties false to true",
        ),
        pytest.param(
            {"type": "object", "additionalProperties": True},
            {"type": "object", "additionalProperties": {"type": "string"}},
            "unhandled changes found (Schema nil -> <complex value>)",
            id="additionalProperties true to a schema",
        ),
        # mariadb-operator 26.6.0: a property added to the schema of additionalProperties
        pytest.param(
            {"type": "object", "additionalProperties": {"properties": {"a": {"type": "string"}}}},
            {
                "type": "object",
                "additionalProperties": {
                    "properties": {"a": {"type": "string"}, "b": {"type": "string"}}
                },
            },
            'unhandled changes found ("b" <empty> -> <complex value>)',
            id="a property added under additionalProperties",
        ),
        pytest.param(
            {"type": "object", "additionalProperties": {"properties": {"a": {"type": "string"}}}},
            {"type": "object", "additionalProperties": {"properties": {"a": {"type": "integer"}}}},
            'unhandled changes found (Type "string" -> "integer")',
            id="a property changed under additionalProperties",
        ),
    ],
)
def test_unhandled_details(old: dict[str, Any], new: dict[str, Any], want: str) -> None:
    version = {"name": "v1", "served": True, "storage": True}
    a = {
        "metadata": {"name": "x.example.com"},
        "spec": {
            "versions": [
                {
                    **version,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"f": old}}},
                }
            ]
        },
    }
    b = {
        "metadata": {"name": "x.example.com"},
        "spec": {
            "versions": [
                {
                    **version,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"f": new}}},
                }
            ]
        },
    }
    unhandled = [f for f in compare_crds(a, b).findings if f.rule == "unhandled"]
    assert [(f.path, f.message) for f in unhandled] == [("^.f", want)]


def _one_version_crd(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    version = {"name": name, "served": True, "storage": True}
    return {
        "metadata": {"name": "x.example.com"},
        "spec": {
            "scope": "Namespaced",
            "versions": [{**version, "schema": {"openAPIV3Schema": schema}}],
        },
    }


def test_findings_are_sorted_where_go_map_order_is_random() -> None:
    """A deviation kept on purpose (docs/deviations.md): crdify runs its validations over Go
    maps; olmcat sorts removed fields and properties by name, whatever the schema's order."""
    old = _one_version_crd(
        "v1",
        {
            "type": "object",
            "properties": {
                "b": {"type": "string"},
                "a": {"type": "object", "properties": {"z": {"type": "string"}}},
            },
        },
    )
    new = _one_version_crd("v1", {"type": "object", "properties": {}})
    lines = compare_crds(old, new).error().split("\n")
    removed = [line.rsplit(" : ", 1)[1] for line in lines if "removed field" in line]
    assert removed == ["v1.^.a", "v1.^.a.z", "v1.^.b"]
    typed = [line.split(": ")[1] for line in lines if ": type: " in line]
    assert typed == ["^.a", "^.a.z", "^.b"]


def test_stored_versions_are_assumed_from_the_storage_version() -> None:
    """A deviation kept on purpose (docs/deviations.md): a bundle's CRD has no
    ``status.storedVersions``; the old CRD's storage version is taken as stored, with an info
    notice, so dropping it is a ``storedVersionRemoval`` (crdify alone finds nothing)."""
    from olmcat.notices import Notice

    old = _one_version_crd("v1", {"type": "object"})
    new = _one_version_crd("v2", {"type": "object"})
    assert compare_crds(old, new).error() == ""
    notices: list[Notice] = []
    (compared,), _, _ = compare_crd_lists([old], [new], notify=notices.append)
    assert compared.error() == (
        'validating upgrade for CRD "x.example.com": storedVersionRemoval: stored versions '
        "removed : [v1]"
    )
    assert [(n.code, n.severity) for n in notices] == [
        ("olmv1.crd.stored-versions-assumed", "info")
    ]


def test_multi_line_string_in_unhandled_details_is_quoted_whole() -> None:
    """A deviation kept on purpose (docs/deviations.md): go-cmp splits a changed multi-line
    string into lines; olmcat's summary quotes it whole, as Go quotes a string."""
    old = _one_version_crd("v1", {"type": "object", "properties": {"f": {"title": "a\nb"}}})
    new = _one_version_crd("v1", {"type": "object", "properties": {"f": {"title": "a\nc"}}})
    assert compare_crds(old, new).error() == (
        'validating upgrade for CRD "x.example.com": v1: ^.f: unhandled: unhandled changes '
        'found (Title "a\\nb" -> "a\\nc")'
    )
