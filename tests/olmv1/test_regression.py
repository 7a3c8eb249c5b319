"""operator-controller v1.11.0's regression test ``test/regression/convert``: the seven cases of
generate-manifests.go (tests/data/olmv1/regression/cases.json), rendered and written one file per
object, byte-identical to ``testdata/expected-manifests``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from olmcat.olmv1.bundle import read_bundle_dir
from olmcat.olmv1.render.renderer import manifest_files, render
from tests.support.paths import DATA

ROOT = DATA / "olmv1" / "regression"
CASES = json.loads((ROOT / "cases.json").read_text())["cases"]


@pytest.mark.parametrize(
    "case", CASES, ids=[f"{c['testCaseName']}[{i + 1}/{len(CASES)}]" for i, c in enumerate(CASES)]
)
def test_regression_case_is_byte_identical(case: dict[str, Any]) -> None:
    bundle = read_bundle_dir(ROOT / "bundles" / case["bundle"])
    objects = render(
        bundle,
        case["installNamespace"],
        target_namespaces=[case.get("watchNamespace", "")],
        deployment_config=case.get("deploymentConfig"),
    )
    written = dict(manifest_files(objects))
    expected_dir = ROOT / "expected-manifests" / case["bundle"] / case["testCaseName"]
    expected = {f.name: f.read_bytes().decode() for f in expected_dir.iterdir()}
    assert sorted(written) == sorted(expected)
    for name, text in expected.items():
        assert written[name] == text, name


def test_seven_cases() -> None:
    assert len(CASES) == 7
