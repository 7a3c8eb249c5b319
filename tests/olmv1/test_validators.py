"""operator-controller v1.11.0's registry+v1 validators, case by case.

The cases are ``validators/validator_test.go``'s tables, ported as data
(tests/data/olmv1/validator_test.json): each names the Go test it comes from, the bundle as a
small description (deployments, CRDs, owned CRDs, webhooks, install modes, other objects) and the
errors v1.11.0 returns, in order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from olmcat.olmv1.bundle import RegistryV1
from olmcat.olmv1.validators import RULES, Finding, validate
from tests.support.paths import DATA

TABLE = json.loads((DATA / "olmv1" / "validator_test.json").read_text())
CASES = [
    pytest.param(test["rule"], case, id=f"{test['test']}[{index + 1}/{len(test['cases'])}]")
    for test in TABLE["tests"]
    for index, case in enumerate(test["cases"])
]


def bundle_of(spec: dict[str, Any]) -> RegistryV1:
    """A RegistryV1 from a case's description, as the Go test's csv.Builder() builds it."""
    csv_spec: dict[str, Any] = {
        "install": {
            "strategy": "deployment",
            "spec": {"deployments": [{"name": n, "spec": {}} for n in spec.get("deployments", [])]},
        },
        "installModes": [{"type": m, "supported": True} for m in spec.get("installModes", [])],
        "customresourcedefinitions": {"owned": [{"name": n} for n in spec.get("owned", [])]},
        "webhookdefinitions": spec.get("webhooks", []),
    }
    csv = {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion"}
    crds = tuple(
        {"kind": "CustomResourceDefinition", "metadata": {"name": n}} for n in spec.get("crds", [])
    )
    others = tuple(
        {"apiVersion": o["apiVersion"], "kind": o["kind"], "metadata": {"name": o["name"]}}
        for o in spec.get("others", [])
    )
    return RegistryV1(spec.get("package", ""), {**csv, "spec": csv_spec}, crds, others)


@pytest.mark.parametrize(("rule", "case"), CASES)
def test_validator_case(rule: str, case: dict[str, Any]) -> None:
    assert RULES[rule](bundle_of(case["bundle"])) == case["errors"], case["name"]


def test_case_count() -> None:
    # validator_test.go v1.11.0: 13 test functions, 55 table cases.
    assert len(TABLE["tests"]) == 13
    assert len(CASES) == 55


def test_validate_runs_every_rule_in_go_order() -> None:
    spec = {
        "deployments": ["dup", "dup"],
        "crds": ["a.crd.something", "a.crd.something"],
        "others": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}],
    }
    assert validate(bundle_of(spec)) == [
        Finding(
            "olmv1.bundle.duplicate-deployment-names",
            "cluster service version contains duplicate strategy deployment spec 'dup'",
        ),
        Finding(
            "olmv1.bundle.duplicate-crds",
            "bundle contains duplicate custom resource definition 'a.crd.something'",
        ),
        Finding("olmv1.bundle.package-name-empty", "package name is empty"),
        Finding("olmv1.bundle.unsupported-kind", 'unsupported resource "d" with kind "Deployment"'),
    ]


def test_rule_ids_are_stable() -> None:
    assert len(RULES) == 13
    assert all(rule.startswith("olmv1.bundle.") for rule in RULES)


def test_regression_bundles_validate_clean() -> None:
    from olmcat.olmv1.bundle import read_bundle_dir

    for name in ("argocd-operator.v0.6.0", "webhook-operator.v0.0.5"):
        path = Path(DATA / "olmv1" / "regression" / "bundles" / name)
        assert validate(read_bundle_dir(path)) == []
