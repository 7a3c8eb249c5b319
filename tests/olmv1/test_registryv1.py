"""operator-controller v1.11.0's ``render/registryv1/registryv1_test.go`` (the validator and
generator lists, two renders) and ``rukpak/util/util_test.go``'s name test; unique names and
quantities as Go writes them."""

from __future__ import annotations

from typing import Any

import pytest

from olmcat.olmv1.bundle import RegistryV1
from olmcat.olmv1.render import generators
from olmcat.olmv1.render.names import base36, name_for_base_and_suffix, unique_name
from olmcat.olmv1.render.renderer import REGISTRY_V1, RenderError, render
from olmcat.olmv1.render.typed import canonical_quantity
from olmcat.olmv1.validators import RULES, check_object_support


def test_bundle_validator_has_all_validation_fns() -> None:
    """Test_BundleValidatorHasAllValidationFns: the 13 checks, in v1.11.0's order."""
    assert [check.__name__ for check in REGISTRY_V1.validators] == [
        "check_deployment_spec_uniqueness",
        "check_deployment_name_is_dns1123_subdomain",
        "check_crd_resource_uniqueness",
        "check_owned_crd_existence",
        "check_package_name_not_empty",
        "check_conversion_webhook_support",
        "check_webhook_deployment_referential_integrity",
        "check_webhook_name_uniqueness",
        "check_webhook_name_is_dns1123_subdomain",
        "check_conversion_webhook_crd_reference_uniqueness",
        "check_conversion_webhooks_reference_owned_crds",
        "check_webhook_rules",
        "check_object_support",
    ]
    assert list(REGISTRY_V1.validators) == list(RULES.values())
    assert REGISTRY_V1.validators[-1] is check_object_support


def test_resource_generators_has_all_generators() -> None:
    """Test_ResourceGeneratorsHasAllGenerators: the 10 generators, in v1.11.0's order."""
    assert REGISTRY_V1.generators == (
        generators.service_accounts,
        generators.roles,
        generators.cluster_roles,
        generators.crds,
        generators.additional_resources,
        generators.deployments,
        generators.validating_webhooks,
        generators.mutating_webhooks,
        generators.services,
        generators.cert_provider_objects,
    )


def _bundle(other: dict[str, Any]) -> RegistryV1:
    csv = {
        "kind": "ClusterServiceVersion",
        "metadata": {"name": "test-bundle"},
        "spec": {"installModes": [{"type": "AllNamespaces", "supported": True}]},
    }
    return RegistryV1("my-package", csv, (), (other,))


def test_renderer_success() -> None:
    """Test_Renderer_Success: a bundle with only a Service renders that Service, namespaced."""
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "my-service"}}
    objects = render(_bundle(service), "install-namespace")
    assert [(o["metadata"]["name"], o["metadata"]["namespace"]) for o in objects] == [
        ("my-service", "install-namespace")
    ]


def test_renderer_failure_unsupported_kind() -> None:
    """Test_Renderer_Failure_UnsupportedKind."""
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "testEvent"}}
    with pytest.raises(RenderError, match="unsupported resource"):
        render(_bundle(event), "install-namespace")


def test_object_name_for_base_and_suffix() -> None:
    """util_test.go Test_ObjectNameForBaseAndSuffix."""
    name = name_for_base_and_suffix(
        "my.object.thing.has.a.really.really.really.really.really.long.name", "suffix"
    )
    assert name == "my.object.thing.has.a.really.really.really.really.really-suffix"
    assert len(name) == 63


def test_unique_name_is_base_plus_base36_sha224() -> None:
    permission = {"serviceAccountName": "sa", "rules": [{"verbs": ["get"], "resources": ["pods"]}]}
    made = unique_name("base", permission)
    assert made.startswith("base-") and len(made) <= 63
    assert made == unique_name("base", dict(permission))  # deterministic
    assert made != unique_name("base", {**permission, "serviceAccountName": "other"})
    assert (base36(0), base36(35), base36(36)) == ("0", "z", "10")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("100m", "100m"),
        ("1000m", "1"),
        ("128Mi", "128Mi"),
        ("2048Mi", "2Gi"),
        ("1.5Gi", "1536Mi"),
        ("2000", "2k"),
        ("1e3", "1e3"),
        ("0.5", "500m"),
        (1, "1"),
    ],
)
def test_quantities_in_canonical_form(text: object, canonical: str) -> None:
    assert canonical_quantity(text) == canonical
