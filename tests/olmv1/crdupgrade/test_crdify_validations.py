"""crdify's own validation tests (``pkg/validations/**/*_test.go``, the ``Testcase`` tables run by
``internaltesting.RunTestcases``) as data: tests/data/olmv1/crdupgrade/crdify-unit/*.yaml, one
file per Go test file. Each case runs one validation three times, as crdify's runner does: with
enforcement Error (flagged = errors), Warn (flagged = warnings) and None (never flagged).

The ``Validate*Config`` tests of enum, nullable and pattern check crdify's configuration-file
parsing, which olmcat does not have (its configuration is v1.11.0's, fixed): not ported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from olmcat.olmv1.crdupgrade.engine import Config, run_validation
from tests.support.paths import DATA

UNIT = DATA / "olmv1" / "crdupgrade" / "crdify-unit"

# Go type of the validation -> crdify's validation name
NAMES = {
    "ExistingFieldRemoval": "existingFieldRemoval",
    "Scope": "scope",
    "StoredVersionRemoval": "storedVersionRemoval",
    "Default": "default",
    "Description": "description",
    "Enum": "enum",
    "Maximum": "maximum",
    "MaxItems": "maxItems",
    "MaxLength": "maxLength",
    "MaxProperties": "maxProperties",
    "Minimum": "minimum",
    "MinItems": "minItems",
    "MinLength": "minLength",
    "MinProperties": "minProperties",
    "Nullable": "nullable",
    "Pattern": "pattern",
    "Required": "required",
    "Type": "type",
}

# cases per Go test file, as counted in the Go source
COUNTS = {
    "existingfieldremoval": 3,
    "scope": 2,
    "storedversionremoval": 3,
    "default": 5,
    "description": 3,
    "enum": 8,
    "max": 20,
    "min": 20,
    "nullable": 6,
    "pattern": 6,
    "required": 3,
    "type": 3,
}


def _policy(value: Any) -> str:
    text = str(value)
    return "Allow" if text.endswith("Allow") else "Disallow"


def _config(validation: str, settings: dict[str, Any], enforcement: str) -> Config:
    fields: dict[str, Any] = {"enforcement": ((validation, enforcement),)}
    if "AdditionPolicy" in settings:
        key = "enum_addition" if validation == "enum" else "nullable_addition"
        fields[key] = _policy(settings["AdditionPolicy"])
    if "RemovalPolicy" in settings:
        key = "pattern_removal" if validation == "pattern" else "nullable_removal"
        fields[key] = _policy(settings["RemovalPolicy"])
    return Config(**fields)


def _cases() -> list[Any]:
    out = []
    for path in sorted(UNIT.glob("*.yaml")):
        for case in yaml.safe_load(path.read_text())["cases"]:
            out.append(pytest.param(case, id=f"{path.stem}/{case['test']}/{case['name']}"))
    return out


@pytest.mark.parametrize("case", _cases())
def test_crdify_validation_case(case: dict[str, Any]) -> None:
    name = NAMES[case["validation"]]
    old, new = case["old"] or {}, case["new"] or {}
    errors, _ = run_validation(name, old, new, _config(name, case["config"], "Error"))
    assert bool(errors) is case["flagged"]
    _, warnings = run_validation(name, old, new, _config(name, case["config"], "Warn"))
    assert bool(warnings) is case["flagged"]
    assert run_validation(name, old, new, _config(name, case["config"], "None")) == ([], [])


@pytest.mark.parametrize("stem", sorted(COUNTS))
def test_every_case_of_each_go_file_is_here(stem: str) -> None:
    cases = yaml.safe_load((UNIT / f"{stem}.yaml").read_text())["cases"]
    assert len(cases) == COUNTS[stem]


def test_the_tables_are_all_here() -> None:
    assert {p.stem for p in Path(UNIT).glob("*.yaml")} == set(COUNTS)
