"""crdify's served-version validator tests (``pkg/validators/version/served/served_test.go``) as
data: the CRDs are built as the Go test builds them (``createCRD``, ``withVersion``,
``withConversion``, ``createSimpleSchema``); each table row is one Go case.

Not ported: ``TestValidator_New_*`` and ``TestValidator_Options_DefaultHandling`` (Go constructor
defaults; olmcat's :class:`Config` has the same defaults, checked below) and
``Test_numUnidirectionalPermutations`` (a map-capacity helper; the pair counts it computes are
checked through ``served_version_pairs``)."""

from __future__ import annotations

from typing import Any

import pytest

from olmcat.olmv1.crdupgrade.engine import (
    CRDIFY_DEFAULT,
    Config,
    compare_crds,
    served_version_pairs,
)


def _schema(fields: dict[str, dict[str, Any]] | None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object"}
    if fields:
        schema["properties"] = fields
    return schema


def _crd(*versions: tuple[str, bool, Any], conversion: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "versions": [
            {"name": name, "served": served, "schema": {"openAPIV3Schema": schema}}
            for name, served, schema in versions
        ]
    }
    if conversion:
        spec["conversion"] = {"strategy": conversion}
    return {"metadata": {"name": "things.example.com"}, "spec": spec}


STRING = _schema({"field1": {"type": "string"}})
INTEGER = _schema({"field1": {"type": "integer"}})
A = _crd(("v1", True, STRING), ("v2", True, STRING))


def _served(old: dict[str, Any], new: dict[str, Any], config: Config) -> list[Any]:
    result = compare_crds(old, new, config)
    return [f for f in (*result.findings, *result.warnings) if f.served]


# TestValidator_Validate_ConversionPolicyIgnore
@pytest.mark.parametrize(
    ("conversion", "empty"),
    [
        pytest.param(
            "Webhook", True, id="webhook conversion with ignore policy should return empty results"
        ),
        pytest.param(
            None, False, id="no conversion webhook with ignore policy should still validate"
        ),
        pytest.param(
            "None", False, id="non-webhook conversion with ignore policy should still validate"
        ),
    ],
)
def test_conversion_policy_ignore(conversion: str | None, empty: bool) -> None:
    new = _crd(("v1", True, STRING), ("v2", True, INTEGER), conversion=conversion)
    found = _served(A, new, Config(conversion="Ignore"))
    assert (found == []) is empty


def test_conversion_policy_none() -> None:
    """TestValidator_Validate_ConversionPolicyNone: webhook conversion is still validated."""
    new = _crd(("v1", True, STRING), ("v2", True, INTEGER), conversion="Webhook")
    assert _served(A, new, Config(conversion="None")) != []


# TestValidator_Validate_VersionPairs
@pytest.mark.parametrize(
    ("versions", "pairs"),
    [
        pytest.param([("v1", False, _schema(None))], [], id="no served versions"),
        pytest.param([("v1", True, _schema(None))], [], id="single served version"),
        pytest.param(
            [
                ("v1", True, STRING),
                (
                    "v2",
                    True,
                    _schema({"field1": {"type": "string"}, "field2": {"type": "integer"}}),
                ),
            ],
            ["v1 -> v2"],
            id="two served versions",
        ),
        pytest.param(
            [("v1", True, _schema(None)), ("v2", True, _schema(None)), ("v3", True, _schema(None))],
            ["v1 -> v2", "v1 -> v3", "v2 -> v3"],
            id="three served versions",
        ),
        pytest.param(
            [
                ("v1", True, _schema(None)),
                ("v1beta1", False, _schema(None)),
                ("v2", True, _schema(None)),
            ],
            ["v1 -> v2"],
            id="mixed served and non-served versions",
        ),
    ],
)
def test_version_pairs(versions: list[tuple[str, bool, Any]], pairs: list[str]) -> None:
    assert sorted(served_version_pairs(_crd(*versions))) == pairs


# TestValidator_Validate_EnforcementPolicies: a validator with no comparators, so the type change
# is an unhandled change, reported as the unhandled policy says
@pytest.mark.parametrize(
    ("policy", "errors", "warnings"),
    [
        pytest.param("Error", 1, 0, id="error policy"),
        pytest.param("Warn", 0, 1, id="warn policy"),
        pytest.param("None", 0, 0, id="none policy"),
    ],
)
def test_enforcement_policies(policy: str, errors: int, warnings: int) -> None:
    new = _crd(("v1", True, STRING), ("v2", True, INTEGER))
    config = Config(unhandled=policy, comparators=())  # type: ignore[arg-type]
    result = compare_crds(A, new, config)
    served = [f for f in (*result.findings, *result.warnings) if f.served]
    assert {(f.version, f.path, f.rule) for f in served} <= {("v1 -> v2", "^.field1", "unhandled")}
    assert len([f for f in served if not f.warning]) == errors
    assert len([f for f in served if f.warning]) == warnings
    for finding in served:
        assert finding.message == 'unhandled changes found (Type "string" -> "integer")'


def test_subtract_existing_issues() -> None:
    """TestValidator_Validate_SubtractExistingIssues: type errors, description warnings; the old
    CRD's v1 -> v2 issues of field1 are not reported again, everything new is."""
    a = _crd(
        (
            "v1",
            True,
            _schema({"field1": {"type": "string", "description": "Original description"}}),
        ),
        (
            "v2",
            True,
            _schema({"field1": {"type": "integer", "description": "Updated description"}}),
        ),
    )
    b = _crd(
        (
            "v1",
            True,
            _schema(
                {
                    "field1": {"type": "string", "description": "Original description"},
                    "field2": {"type": "string", "description": "New field original"},
                }
            ),
        ),
        (
            "v2",
            True,
            _schema(
                {
                    "field1": {"type": "integer", "description": "Updated description"},
                    "field2": {"type": "integer", "description": "New field changed"},
                }
            ),
        ),
        (
            "v3",
            True,
            _schema(
                {"field1": {"type": "boolean", "description": "Different type and description"}}
            ),
        ),
    )
    config = Config(
        enforcement=(("type", "Error"), ("description", "Warn")),
        comparators=("type", "description"),
    )
    result = compare_crds(a, b, config)
    errors = sorted((f.version, f.path, f.rule) for f in result.findings if f.served)
    warnings = sorted((f.version, f.path, f.rule) for f in result.warnings if f.served)
    expected = [
        ("v1 -> v2", "^.field2", ""),
        ("v1 -> v3", "^.field1", ""),
        ("v1 -> v3", "^.field2", ""),
        ("v2 -> v3", "^.field1", ""),
        ("v2 -> v3", "^.field2", ""),
    ]
    assert errors == [(v, p, "type") for v, p, _ in expected]
    assert warnings == [(v, p, "description") for v, p, _ in expected]


def test_empty_schemas() -> None:
    """TestValidator_Validate_EmptySchemas: nil schemas give one pair and nothing in it."""
    a = _crd(("v1", True, None), ("v2", True, None))
    assert served_version_pairs(a) == ["v1 -> v2"]
    assert compare_crds(a, a).findings == ()


def test_defaults_are_crdifys() -> None:
    """TestValidator_New_DefaultValues: conversion None, unhandled Error."""
    assert (CRDIFY_DEFAULT.conversion, CRDIFY_DEFAULT.unhandled) == ("None", "Error")
