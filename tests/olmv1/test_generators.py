"""operator-controller v1.11.0's generators, ``generators_test.go``'s tables as data
(tests/data/olmv1/generators_test.yaml; the file says what was adapted and what not ported).

The Go test compares typed objects; these compare the generated objects with the expected ones
with empty values (zero values Go's typed objects carry) pruned from both sides."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from olmcat.files.yaml import load
from olmcat.olmv1.bundle import RegistryV1
from olmcat.olmv1.render import generators
from olmcat.olmv1.render.generators import Options, RenderError
from tests.support.paths import DATA

TABLE = load((DATA / "olmv1" / "generators_test.yaml").read_text(), where="generators_test.yaml")
CASES = [
    pytest.param(test, case, id=f"{test['test']}[{index + 1}/{len(test['cases'])}]")
    for test in TABLE["tests"]
    for index, case in enumerate(test["cases"])
]
RBAC = "rbac.authorization.k8s.io/v1"


def bundle_of(case: dict[str, Any]) -> RegistryV1:
    """csv.Builder() with the parts the case sets."""
    csv_part = case.get("csv") or {}
    strategy: dict[str, Any] = {
        "deployments": csv_part.get("deployments", []),
        "permissions": csv_part.get("permissions", []),
        "clusterPermissions": csv_part.get("clusterPermissions", []),
    }
    csv = {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {"name": csv_part.get("name", ""), "annotations": csv_part.get("annotations")},
        "spec": {
            "install": {"strategy": "deployment", "spec": strategy},
            "webhookdefinitions": csv_part.get("webhooks", []),
        },
    }
    crds = tuple({"kind": "CustomResourceDefinition", **c} for c in case.get("crds", []))
    return RegistryV1("test", csv, crds, tuple(case.get("others", [])))


def options_of(case: dict[str, Any]) -> Options:
    opts = case["opts"]
    extra: dict[str, Any] = {}
    if opts.get("uniqueName") == "base":
        extra["unique_name"] = lambda base, _: base  # fakeUniqueNameGenerator
    return Options(
        install_namespace=opts["installNamespace"],
        target_namespaces=tuple(opts.get("targetNamespaces", [])),
        cert_provider=opts.get("certProvider"),
        deployment_config=opts.get("deploymentConfig"),
        **extra,
    )


def expand(item: dict[str, Any], install_namespace: str) -> dict[str, Any]:
    """The RBAC shorthands of the data file, as CreateRoleResource & co. build them."""
    if "role" in item or "clusterrole" in item:
        spec = item.get("role") or item["clusterrole"]
        kind = "Role" if "role" in item else "ClusterRole"
        meta = {"name": spec["name"], "namespace": spec.get("namespace")}
        return {"apiVersion": RBAC, "kind": kind, "metadata": meta, "rules": spec["rules"]}
    if "rolebinding" in item or "clusterrolebinding" in item:
        spec = item.get("rolebinding") or item["clusterrolebinding"]
        kind = "RoleBinding" if "rolebinding" in item else "ClusterRoleBinding"
        return {
            "apiVersion": RBAC,
            "kind": kind,
            "metadata": {"name": spec["name"], "namespace": spec.get("namespace")},
            "subjects": [
                {
                    "kind": "ServiceAccount",
                    "name": spec["serviceAccount"],
                    "namespace": install_namespace,
                }
            ],
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": kind.removesuffix("Binding"),
                "name": spec["name"],
            },
        }
    return item


def at_path(value: Any, path: str) -> Any:
    """The value at a dotted path (numbers index lists); None where the path ends early."""
    for part in path.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict):
            value = value.get(part)
        else:
            return None
    return value


def prune(value: Any) -> Any:
    """Drop empty values (None, "", 0, False, {}, []) from mappings, recursively."""
    if isinstance(value, dict):
        out = {k: prune(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, "", 0, False, {}, [])}
    if isinstance(value, list):
        return [prune(v) for v in value]
    return value


@pytest.mark.parametrize(("test", "case"), CASES)
def test_generator_case(test: dict[str, Any], case: dict[str, Any]) -> None:
    generate = getattr(generators, test["generator"])
    rv1, opts = bundle_of(case), options_of(case)
    if "error" in case:
        with pytest.raises(RenderError) as raised:
            generate(rv1, opts)
        assert case["error"] in str(raised.value)
        return
    objects = generate(rv1, opts)
    if test.get("sortByName"):
        objects = sorted(objects, key=lambda o: o["metadata"]["name"])
    if "expectedPodSpec" in case:
        (deployment,) = objects
        pod = deployment["spec"]["template"]["spec"]
        expected = case["expectedPodSpec"]
        assert prune({k: pod.get(k) for k in expected}) == prune(expected)
    elif "expectedPaths" in case:
        (deployment,) = objects
        for path, expected in case["expectedPaths"].items():
            assert prune(at_path(deployment, path)) == prune(expected), path
    elif "expectedAnnotations" in case:
        got = [o["metadata"].get("annotations") for o in objects]
        assert got == case["expectedAnnotations"]
    elif "expectedNames" in case:
        assert [[o["kind"], o["metadata"]["name"]] for o in objects] == case["expectedNames"]
    else:
        expected = [expand(item, opts.install_namespace) for item in case["expected"]]
        assert prune(objects) == prune(expected), case["name"]


def test_case_counts() -> None:
    counts = {t["test"]: len(t["cases"]) for t in TABLE["tests"]}
    assert sum(counts.values()) == len(CASES)


def test_data_file_is_where_the_tests_say() -> None:
    assert Path(DATA / "olmv1" / "generators_test.yaml").is_file()


def test_apiextensions_v1beta1_crd_is_passed_through() -> None:
    """A deviation kept on purpose (docs/deviations.md): v1.11.0 decodes every CRD into the
    apiextensions/v1 types, dropping what only v1beta1 has (``spec.version``,
    ``spec.validation``); olmcat passes the bundle's CRD through as written."""
    v1beta1 = {
        "apiVersion": "apiextensions.k8s.io/v1beta1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "version": "v1alpha1",
            "names": {"kind": "Widget", "plural": "widgets"},
            "scope": "Namespaced",
            "validation": {"openAPIV3Schema": {"type": "object"}},
        },
    }
    rv1 = RegistryV1("test", bundle_of({}).csv, (v1beta1,), ())
    (crd,) = generators.crds(rv1, Options(install_namespace="ns", target_namespaces=("",)))
    assert crd["apiVersion"] == "apiextensions.k8s.io/v1beta1"
    assert crd["spec"] == v1beta1["spec"]


def test_service_accounts_come_in_name_order() -> None:
    """A deviation kept on purpose (docs/deviations.md): v1.11.0 makes the ServiceAccounts from
    a Go set (random order); olmcat in name order, whatever the CSV's order."""
    csv_part = {
        "permissions": [{"serviceAccountName": "zeta", "rules": []}],
        "clusterPermissions": [
            {"serviceAccountName": "alpha", "rules": []},
            {"serviceAccountName": "mid", "rules": []},
        ],
    }
    rv1 = bundle_of({"csv": csv_part})
    made = generators.service_accounts(
        rv1, Options(install_namespace="ns", target_namespaces=("",))
    )
    assert [(o["kind"], o["metadata"]["name"]) for o in made] == [
        ("ServiceAccount", "alpha"),
        ("ServiceAccount", "mid"),
        ("ServiceAccount", "zeta"),
    ]
