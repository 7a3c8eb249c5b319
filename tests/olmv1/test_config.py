"""The configuration of a registry+v1 bundle (``spec.config.inline``) as operator-controller
v1.11.0 validates it: ``config/config_test.go`` and ``error_formatting_test.go`` as data
(tests/data/olmv1/config_test.json; the Go tests check that the error *contains* the text, so do
these), and ``rukpak/bundle/registryv1_test.go`` (the schema's shape, every ``$ref`` resolvable).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from olmcat.olmv1.bundle import RegistryV1
from olmcat.olmv1.config import (
    ConfigError,
    base_schema,
    bundle_config_schema,
    deployment_config,
    unmarshal_config,
    watch_namespace,
)
from tests.support.paths import DATA

TABLE = json.loads((DATA / "olmv1" / "config_test.json").read_text())


def _cases(test: str) -> list[Any]:
    cases = TABLE[test]
    return [pytest.param(c, id=f"{test}[{i + 1}/{len(cases)}]") for i, c in enumerate(cases)]


def bundle(modes: list[str]) -> RegistryV1:
    csv = {
        "kind": "ClusterServiceVersion",
        "metadata": {"name": "test-operator"},
        "spec": {"installModes": [{"type": m, "supported": True} for m in modes]},
    }
    return RegistryV1("", csv, (), ())


def _check(case: dict[str, Any], schema: dict[str, Any] | None, namespace: str) -> None:
    expected_error = case.get("expectedErrMessage")
    if expected_error:
        with pytest.raises(ConfigError) as raised:
            unmarshal_config(case["rawConfig"], schema, namespace)
        assert expected_error in str(raised.value)
    else:
        config = unmarshal_config(case["rawConfig"], schema, namespace)
        assert watch_namespace(config) == case.get("expectedWatchNamespace")


@pytest.mark.parametrize("case", _cases("Test_UnmarshalConfig"))
def test_unmarshal_config(case: dict[str, Any]) -> None:
    schema = bundle_config_schema(bundle(case["supportedInstallModes"]))
    _check(case, schema, case["installNamespace"])


@pytest.mark.parametrize("case", _cases("Test_ErrorFormatting_SchemaLibraryVersion"))
def test_error_formatting(case: dict[str, Any]) -> None:
    schema = bundle_config_schema(bundle(case["supportedInstallModes"]))
    with pytest.raises(ConfigError) as raised:
        unmarshal_config(case["rawConfig"], schema, case["installNamespace"])
    for text in case["expectedErrSubstrings"]:
        assert text in str(raised.value)


@pytest.mark.parametrize("case", _cases("Test_ErrorFormatting_YAMLParseErrors"))
def test_yaml_parse_errors(case: dict[str, Any]) -> None:
    schema = bundle_config_schema(bundle(["SingleNamespace"]))
    with pytest.raises(ConfigError) as raised:
        unmarshal_config(case["rawConfig"], schema, "test-namespace")
    for text in case["expectedErrSubstrings"]:
        assert text in str(raised.value)


@pytest.mark.parametrize("case", _cases("Test_UnmarshalConfig_EmptySchema"))
def test_unmarshal_config_empty_schema(case: dict[str, Any]) -> None:
    _check(case, None, "my-namespace")


@pytest.mark.parametrize("case", _cases("Test_UnmarshalConfig_HelmLike"))
def test_unmarshal_config_helm_like(case: dict[str, Any]) -> None:
    _check(case, case["helmSchema"], "my-namespace")


@pytest.mark.parametrize("case", _cases("Test_GetDeploymentConfig"))
def test_get_deployment_config(case: dict[str, Any]) -> None:
    assert deployment_config(unmarshal_config(case["rawConfig"], None, "")) == case["expected"]


def test_deployment_config_is_an_independent_copy() -> None:
    config = unmarshal_config('{"deploymentConfig": {"nodeSelector": {"a": "b"}}}', None, "")
    first = deployment_config(config)
    assert first is not None
    first["nodeSelector"]["mutated"] = "value"
    assert deployment_config(config) == {"nodeSelector": {"a": "b"}}


def test_invalid_deployment_config_type() -> None:
    with pytest.raises(ConfigError):
        deployment_config({"deploymentConfig": "not-an-object"})


def test_case_counts() -> None:
    counts = {k: len(v) for k, v in TABLE.items() if isinstance(v, list)}
    assert counts == {
        "Test_UnmarshalConfig": 39,
        "Test_ErrorFormatting_SchemaLibraryVersion": 8,
        "Test_ErrorFormatting_YAMLParseErrors": 3,
        "Test_UnmarshalConfig_EmptySchema": 4,
        "Test_UnmarshalConfig_HelmLike": 9,
        "Test_GetDeploymentConfig": 4,
    }


# -- rukpak/bundle/registryv1_test.go -----------------------------------------------------------


def test_bundle_config_schema_map() -> None:
    """TestGetBundleConfigSchemaMap."""
    schema = base_schema()
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert "registry-v1-bundle-config" in schema["$id"]
    assert schema["title"] == "Registry+v1 Bundle Configuration"
    assert schema["description"]
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    properties = schema["properties"]
    assert "watchNamespace" in properties and "deploymentConfig" in properties
    assert len(properties["watchNamespace"]["anyOf"]) == 2
    deployment = properties["deploymentConfig"]
    assert deployment["type"] == "object" and deployment["additionalProperties"] is False
    assert deployment["description"]
    for name in (
        "nodeSelector",
        "tolerations",
        "resources",
        "env",
        "envFrom",
        "volumes",
        "volumeMounts",
        "affinity",
        "annotations",
    ):
        assert name in deployment["properties"]
    assert "selector" not in deployment["properties"]
    schemas = schema["components"]["schemas"]
    for name in (
        "io.k8s.api.core.v1.Toleration",
        "io.k8s.api.core.v1.ResourceRequirements",
        "io.k8s.api.core.v1.EnvVar",
    ):
        assert name in schemas


def test_schema_compilation() -> None:
    """TestSchemaCompilation: every $ref of the schema resolves."""
    schema = base_schema()
    refs: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                refs.append(node["$ref"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    assert refs
    for ref in refs:
        target: Any = schema
        for part in ref.removeprefix("#/").split("/"):
            target = target[part]
        assert isinstance(target, dict), ref


@pytest.mark.parametrize(
    ("modes", "required", "shape"),
    [
        (["AllNamespaces"], False, None),
        (["OwnNamespace"], True, "ownNamespaceInstallMode"),
        (["SingleNamespace"], True, "singleNamespaceInstallMode"),
        (["OwnNamespace", "SingleNamespace"], True, ""),
        (["AllNamespaces", "OwnNamespace"], False, "ownNamespaceInstallMode"),
    ],
)
def test_watch_namespace_per_install_modes(
    modes: list[str], required: bool, shape: str | None
) -> None:
    schema = bundle_config_schema(bundle(modes))
    field = schema["properties"].get("watchNamespace")
    if shape is None:
        assert field is None and "watchNamespace" not in schema.get("required", [])
        return
    assert ("watchNamespace" in schema.get("required", [])) is required
    inner = field if required else field["anyOf"][1]
    assert inner.get("format", "") == shape
    assert inner["pattern"] == "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"


@pytest.mark.parametrize(
    ("raw", "first", "second"),
    [("a: 1\nb: 2\n", "a", "b"), ("b: 2\na: 1\n", "b", "a")],
    ids=["a then b", "b then a"],
)
def test_errors_come_in_document_order(raw: str, first: str, second: str) -> None:
    """A deviation kept on purpose (docs/deviations.md): v1.11.0 lists the errors in the order
    its schema library finds them, iterating Go maps (random run to run); olmcat in the order
    of the configuration's own fields."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}
    with pytest.raises(ConfigError) as raised:
        unmarshal_config(raw, schema, "ns")
    assert str(raised.value) == (
        "invalid configuration: multiple errors found:\n"
        f'  - invalid type for field "{first}": got number, want string\n'
        f'  - invalid type for field "{second}": got number, want string'
    )
