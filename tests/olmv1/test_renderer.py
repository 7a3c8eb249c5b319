"""operator-controller v1.11.0's ``render/render_test.go``: the two tables as data
(tests/data/olmv1/render_test.json) and the single-case tests as tests here."""

from __future__ import annotations

import json
from typing import Any

import pytest

from olmcat.olmv1.bundle import RegistryV1
from olmcat.olmv1.render.generators import Options
from olmcat.olmv1.render.names import unique_name
from olmcat.olmv1.render.renderer import REGISTRY_V1, BundleRenderer, RenderError
from olmcat.olmv1.validators import RULES
from tests.support.paths import DATA

TABLE = json.loads((DATA / "olmv1" / "render_test.json").read_text())
DEFAULTS = TABLE["Test_BundleRenderer_DefaultTargetNamespaces"]
OPTIONS = TABLE["Test_BundleRenderer_ValidatesRenderOptions"]


def bundle(modes: list[str], name: str = "") -> RegistryV1:
    """csv.Builder().WithName(name).WithInstallModeSupportFor(modes...).Build()."""
    csv = {
        "kind": "ClusterServiceVersion",
        "metadata": {"name": name},
        "spec": {"installModes": [{"type": m, "supported": True} for m in modes]},
    }
    return RegistryV1("", csv, (), ())


def recorder(seen: list[Options]) -> Any:
    """A generator that records the options it is called with and makes nothing."""

    def generator(rv1: RegistryV1, opts: Options) -> list[dict[str, Any]]:
        seen.append(opts)
        return []

    return generator


def marker(calls: list[str], mark: str) -> Any:
    def validator(rv1: RegistryV1) -> list[str]:
        calls.append(mark)
        return []

    return validator


def _ids(cases: list[dict[str, Any]], test: str) -> list[str]:
    return [f"{test}[{i + 1}/{len(cases)}]" for i in range(len(cases))]


@pytest.mark.parametrize("case", DEFAULTS, ids=_ids(DEFAULTS, "DefaultTargetNamespaces"))
def test_default_target_namespaces(case: dict[str, Any]) -> None:
    seen: list[tuple[str, ...]] = []

    def generator(rv1: RegistryV1, opts: Options) -> list[dict[str, Any]]:
        seen.append(opts.target_namespaces)
        return []

    renderer = BundleRenderer(generators=(generator,))
    rv1 = bundle(case["supportedInstallModes"], "test")
    if "expectedErrMsg" in case:
        with pytest.raises(RenderError, match=case["expectedErrMsg"]):
            renderer.render(rv1, "some-namespace")
    else:
        renderer.render(rv1, "some-namespace")
        assert seen == [tuple(case["expectedTargetNamespaces"])]


@pytest.mark.parametrize("case", OPTIONS, ids=_ids(OPTIONS, "ValidatesRenderOptions"))
def test_validates_render_options(case: dict[str, Any]) -> None:
    kwargs: dict[str, Any] = {"target_namespaces": case.get("targetNamespaces")}
    if "uniqueNameGenerator" in case:
        kwargs["unique_name_generator"] = None
    rv1 = bundle(case["supportedInstallModes"])
    if "err" in case:
        with pytest.raises(RenderError) as raised:
            BundleRenderer().render(rv1, case["installNamespace"], **kwargs)
        assert str(raised.value) == case["err"]
    else:
        assert BundleRenderer().render(rv1, case["installNamespace"], **kwargs) == []


def test_table_sizes() -> None:
    assert (len(DEFAULTS), len(OPTIONS)) == (15, 13)


def test_no_config_renders_nothing() -> None:
    """Test_BundleRenderer_NoConfig."""
    assert BundleRenderer().render(bundle(["AllNamespaces"]), "") == []


def test_validates_bundle() -> None:
    """Test_BundleRenderer_ValidatesBundle."""
    renderer = BundleRenderer(validators=(lambda rv1: ["this bundle is invalid"],))
    with pytest.raises(RenderError, match="this bundle is invalid"):
        renderer.render(bundle([]), "")


def test_creates_correct_default_options() -> None:
    """Test_BundleRenderer_CreatesCorrectDefaultOptions."""
    seen: list[Options] = []
    renderer = BundleRenderer(generators=(recorder(seen),))
    renderer.render(bundle(["AllNamespaces"]), "install-namespace")
    assert seen[0].install_namespace == "install-namespace"
    assert seen[0].target_namespaces == ("",)
    assert seen[0].unique_name is unique_name
    assert seen[0].cert_provider is None


def test_calls_resource_generators_in_order() -> None:
    """Test_BundleRenderer_CallsResourceGenerators."""
    renderer = BundleRenderer(
        generators=(
            lambda rv1, opts: [{"kind": "Namespace"}, {"kind": "Service"}],
            lambda rv1, opts: [{"kind": "Deployment"}],
        )
    )
    assert [o["kind"] for o in renderer.render(bundle(["AllNamespaces"]), "")] == [
        "Namespace",
        "Service",
        "Deployment",
    ]


def test_returns_resource_generator_errors() -> None:
    """Test_BundleRenderer_ReturnsResourceGeneratorErrors."""

    def failing(rv1: RegistryV1, opts: Options) -> list[dict[str, Any]]:
        raise RenderError("generator error")

    renderer = BundleRenderer(generators=(lambda rv1, opts: [{"kind": "Namespace"}], failing))
    with pytest.raises(RenderError, match="generator error"):
        renderer.render(bundle(["AllNamespaces"]), "")


def test_validator_calls_all_validation_fns_in_order() -> None:  # Test_BundleValidatorCallsAll...
    calls: list[str] = []
    renderer = BundleRenderer(validators=(marker(calls, "h"), marker(calls, "i")))
    renderer.render(bundle(["AllNamespaces"]), "")
    assert "".join(calls) == "hi"


@pytest.mark.parametrize(
    "config", [{"env": [{"name": "TEST_ENV", "value": "test-value"}]}, None], ids=["set", "nil"]
)
def test_with_deployment_config(config: dict[str, Any] | None) -> None:
    """Test_WithDeploymentConfig."""
    seen: list[Options] = []
    renderer = BundleRenderer(generators=(recorder(seen),))
    renderer.render(bundle(["AllNamespaces"]), "test-namespace", deployment_config=config)
    assert seen[0].deployment_config == config


def test_with_unique_name_generator() -> None:
    """Test_WithUniqueNameGenerator."""
    seen: list[Options] = []
    renderer = BundleRenderer(generators=(recorder(seen),))
    renderer.render(
        bundle(["AllNamespaces"]), "ns", unique_name_generator=lambda s, o: "a man needs a name"
    )
    assert seen[0].unique_name("", {}) == "a man needs a name"


def test_registry_v1_renderer_runs_every_validator() -> None:
    assert len(REGISTRY_V1.validators) == len(RULES) == 13
    assert len(REGISTRY_V1.generators) == 10
