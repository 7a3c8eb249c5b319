"""olm.maxOpenShiftVersion evaluated as operator-lifecycle-manager's openshift helpers do.

Expected values follow helpers.go (maxOpenShiftVersion, incompatibleOperators) and its unit test
cases (helpers_test.go): "1.1.0+build" is 1.1, "1.1.0-pre" is invalid, "bad_version" fails to
parse, two properties are an error, 4.23 and 5.0 are the same release.
"""

from __future__ import annotations

import json

import pytest

from olmcat.errors import InputError
from olmcat.model.property import Property
from olmcat.upgrade import maxocp


def annotation(*values: object, raw: str | None = None) -> str:
    if raw is not None:
        return '{"properties":[{"type":"olm.maxOpenShiftVersion","value":' + raw + "}]}"
    return json.dumps(
        {"properties": [{"type": "olm.maxOpenShiftVersion", "value": v} for v in values]}
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("4.8", "4.8"),
        ("v4.8", "4.8"),  # ParseTolerant forgives the v
        ("4", "4.0"),
        ("4.8.0", "4.8"),  # equal to its major.minor: valid
        ("1.1.0+build", "1.1"),  # build metadata does not count (helpers_test.go)
    ],
)
def test_valid_values(value: str, expected: str) -> None:
    declared = maxocp.from_annotation(annotation(value))
    assert declared.error is None and str(declared) == expected


def test_a_json_number_keeps_its_text() -> None:
    # OLM parses the raw JSON: the number 4.10 is 4.10, not 4.1
    declared = maxocp.from_annotation(annotation(raw="4.10"))
    assert str(declared) == "4.10"
    assert not maxocp.blocks(declared, maxocp.parse_target("4.10"))
    assert maxocp.blocks(declared, maxocp.parse_target("4.11"))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("4.15.1", "must specify only <major>.<minor> version, got invalid value 4.15.1"),
        ("1.1.0-pre", "got invalid value 1.1.0-pre"),
        ("", 'value cannot be "" (an empty string)'),
        ("bad_version", 'failed to parse "bad_version" as semver'),
    ],
)
def test_invalid_values_are_reported_and_block(value: str, message: str) -> None:
    declared = maxocp.from_annotation(annotation(value))
    assert declared.error is not None and message in declared.error
    assert maxocp.blocks(declared, maxocp.parse_target("4.1"))  # even a low target


def test_two_properties_are_not_allowed() -> None:
    declared = maxocp.from_annotation(annotation("4.8", "4.9"))
    assert (
        declared.error == 'defining more than one "olm.maxOpenShiftVersion" property is not allowed'
    )


def test_no_annotation_or_no_property_declares_nothing() -> None:
    assert not maxocp.from_annotation(None).declared
    assert not maxocp.from_annotation('{"properties":[{"type":"olm.package","value":{}}]}').declared
    assert maxocp.from_annotation("{not json").error is not None


def test_comparison_is_numeric_and_4_23_is_5_0() -> None:
    def blocks(value: str, target: str) -> bool:
        return maxocp.blocks(maxocp.from_annotation(annotation(value)), maxocp.parse_target(target))

    assert blocks("4.9", "4.10")  # numerically 9 < 10 (a string compare would say otherwise)
    assert not blocks("4.10", "4.9")
    assert not blocks("4.16", "4.16")  # the maximum itself is allowed
    assert blocks("4.15", "4.16")
    assert not blocks("4.23", "5.0") and not blocks("5.0", "4.23")
    assert blocks("4.22", "5.0")
    assert not blocks("5.1", "4.23")


def test_target_accepts_a_patch_and_rejects_garbage() -> None:
    assert str(maxocp.parse_target("4.16.3")) == "4.16.0"
    with pytest.raises(InputError, match="--target-ocp 'four'"):
        maxocp.parse_target("four")


def test_catalog_properties_are_read_the_same_way() -> None:
    props = [Property("olm.maxOpenShiftVersion", '"4.8"'), Property("olm.package", "{}")]
    assert str(maxocp.from_properties(props)) == "4.8"
    assert maxocp.from_properties([Property("olm.maxOpenShiftVersion", '"4.8.2"')]).error
