"""crdify's ``pkg/validations/util_test.go`` as data (tests/data/olmv1/crdupgrade/crdify-util.yaml):
``TestFlattenCRDVersion`` (the simple location of every schema node) and
``TestFlattenedCRDVersionDiff`` (which nodes differ, children dropped)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from olmcat.olmv1.crdupgrade.schema import flatten, flattened_diff, typed
from tests.support.paths import DATA

CASES = yaml.safe_load((DATA / "olmv1" / "crdupgrade" / "crdify-util.yaml").read_text())["cases"]


def _schema(version: dict[str, Any]) -> dict[str, Any] | None:
    root = (version.get("schema") or {}).get("openAPIV3Schema")
    return None if root is None else typed(root)


def _params(test: str) -> list[Any]:
    return [pytest.param(c, id=c["name"]) for c in CASES if c["test"] == test]


@pytest.mark.parametrize("case", _params("TestFlattenCRDVersion"))
def test_flatten_crd_version(case: dict[str, Any]) -> None:
    assert sorted(flatten(_schema(case["version"]))) == sorted(case["expectedKeys"])


@pytest.mark.parametrize("case", _params("TestFlattenedCRDVersionDiff"))
def test_flattened_crd_version_diff(case: dict[str, Any]) -> None:
    diff = flattened_diff(_schema(case["old"]), _schema(case["new"]))
    if not case.get("diffKey"):  # "no change": the Go case sets no key and expects no diff
        assert diff == {}
        return
    assert list(diff) == [case["diffKey"]]
    assert diff[case["diffKey"]] == (typed(case["oldDiff"]), typed(case["newDiff"]))


def test_every_case_is_here() -> None:
    assert len(CASES) == 15
