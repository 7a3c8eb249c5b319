"""operator-controller v1.11.0's verdict on a bundle: provider.go, resolve/validation.go, the gates.

The Go tests are ported as data (tests/data/olmv1/provider_test.json, validation_test.json):
each case names the Go test it comes from, and the ids count them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from olmcat.errors import UsageError
from olmcat.model import Bundle, Channel, ChannelEntry, Package, PackageCatalog
from olmcat.model.property import Property
from olmcat.notices import NoticeLog
from olmcat.olmv1 import validators
from olmcat.olmv1.bundle import RegistryV1
from olmcat.olmv1.check import (
    DEFAULT_GATES,
    OWN_RULES,
    RULE_ALL_NAMESPACES,
    RULE_APISERVICE,
    RULE_DEPENDENCY,
    RULE_UNREADABLE,
    RULE_WATCH_NAMESPACE,
    RULE_WEBHOOKS,
    check,
    check_bundle,
    check_catalog_bundle,
    dependency_reasons,
    parse_feature_gates,
    rules,
)
from tests.support.paths import DATA, FIXTURES, corpus_path

PROVIDER = json.loads((DATA / "olmv1" / "provider_test.json").read_text())
VALIDATION = json.loads((DATA / "olmv1" / "validation_test.json").read_text())
OWN = {rule.id for rule in OWN_RULES}
REGRESSION = DATA / "olmv1" / "regression" / "bundles"


def _bundle(spec: dict[str, Any], others: list[dict[str, Any]] | None = None) -> RegistryV1:
    csv = {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {"name": "test.v1.0.0"},
        "spec": spec,
    }
    return RegistryV1("test", csv, (), tuple(others or ()))


# -- provider_test.go ------------------------------------------------------------------------------

PROVIDER_CASES = [
    pytest.param(case, id=f"{index + 1}/{len(PROVIDER['cases'])} {case['test']}")
    for index, case in enumerate(PROVIDER["cases"])
]


@pytest.mark.parametrize("case", PROVIDER_CASES)
def test_provider_case(case: dict[str, Any]) -> None:
    switches = case["provider"]
    gates = {
        **DEFAULT_GATES,
        "SingleOwnNamespaceInstallSupport": switches.get("singleOwn", False),
        "DeploymentConfig": switches.get("deploymentConfig", False),
    }
    result = check_bundle(
        _bundle(case["spec"], case.get("others")),
        gates=gates,
        webhook_support=switches.get("webhookSupport", False),  # the Go zero value
        certificate_provider=switches.get("certificateProvider", ""),  # nil
        namespace=case["namespace"],
        config=case["config"],
    )
    # A stub renderer runs no content validator and no generator: only the provider's own
    # checks count there.
    reasons = result.reasons if case["renderer"] else [r for r in result.reasons if r.rule in OWN]
    expect = case["expect"]
    if expect.get("none"):
        assert reasons == []
        return
    if "requirement" in expect:
        assert reasons == []
        assert [r.rule for r in result.requirements] == [RULE_WATCH_NAMESPACE]
        assert expect["requirement"] in result.requirements[0].message
        return
    assert reasons, "v1.11.0 refuses this bundle"
    first = reasons[0]  # the error provider.Get returns
    if "equal" in expect:
        assert first.message == expect["equal"]
    else:
        for part in expect["contains"]:
            assert part in first.message, first.message


def test_provider_case_count() -> None:
    # provider_test.go v1.11.0: 29 subtests; 24 ported (the rest mock a generator or wrap Helm).
    assert len(PROVIDER_CASES) == 24
    assert len(PROVIDER["not_ported"]) == 5


def test_every_provider_refusal_has_its_rule() -> None:
    result = check_bundle(
        _bundle(
            {
                "apiservicedefinitions": {"owned": [{"name": "a"}]},
                "webhookdefinitions": [{"type": "ValidatingAdmissionWebhook"}],
                "installModes": [{"type": "MultiNamespace", "supported": True}],
            }
        ),
        gates={**DEFAULT_GATES, "WebhookProviderCertManager": False},
        webhook_support=False,
    )
    assert [r.rule for r in result.reasons if r.rule in OWN] == [
        RULE_APISERVICE,
        RULE_WEBHOOKS,
        RULE_ALL_NAMESPACES,
        "olmv1.provider.no-supported-install-mode",
    ]
    assert result.first is not None and result.first.rule == RULE_APISERVICE
    assert result.verdict == "refused"


def test_gates_decide_webhook_support_as_main_go_does() -> None:
    spec = {
        "installModes": [{"type": "AllNamespaces", "supported": True}],
        "webhookdefinitions": [{"type": "ValidatingAdmissionWebhook"}],
    }
    only_service_ca = parse_feature_gates("WebhookProviderCertManager=false")
    off = parse_feature_gates(
        "WebhookProviderCertManager=false,WebhookProviderOpenshiftServiceCA=false"
    )

    def own(gates: dict[str, bool]) -> list[str]:
        return [r.rule for r in check_bundle(_bundle(spec), gates=gates).reasons if r.rule in OWN]

    assert own(dict(DEFAULT_GATES)) == []
    assert own(only_service_ca) == []
    assert own(off) == [RULE_WEBHOOKS]


# -- validation_test.go --------------------------------------------------------------------------

VALIDATION_CASES = [
    pytest.param(case, id=f"{index + 1}/{len(VALIDATION['cases'])} {case['name']}")
    for index, case in enumerate(VALIDATION["cases"])
]


@pytest.mark.parametrize("case", VALIDATION_CASES)
def test_no_dependency_validation(case: dict[str, Any]) -> None:
    types = [p["type"] for p in case["properties"]]
    reasons = dependency_reasons(case["bundle"], types)
    if not case["wantErr"]:
        assert reasons == []
    else:
        assert [r.message for r in reasons] == [case["wantErr"]]
        assert reasons[0].rule == RULE_DEPENDENCY
    # The same from a catalog bundle carrying those properties.
    props = tuple(Property(p["type"], json.dumps(p["value"])) for p in case["properties"])
    bundle = Bundle(case["bundle"], "pkg", "", props)
    found = check_catalog_bundle(bundle)
    assert [r.message for r in found.reasons if r.rule == RULE_DEPENDENCY] == (
        [case["wantErr"]] if case["wantErr"] else []
    )


def test_validation_case_count() -> None:
    assert len(VALIDATION_CASES) == 4  # TestNoDependencyValidation v1.11.0


# -- feature gates ---------------------------------------------------------------------------------


def test_feature_gate_defaults_are_v1_11_0s() -> None:
    assert dict(DEFAULT_GATES) == {
        "SingleOwnNamespaceInstallSupport": False,
        "WebhookProviderCertManager": True,
        "WebhookProviderOpenshiftServiceCA": True,
        "BoxcutterRuntime": False,
        "DeploymentConfig": False,
        "BundleReleaseSupport": False,
    }


@pytest.mark.parametrize(
    ("spec", "changed"),
    [
        ("SingleOwnNamespaceInstallSupport=true", {"SingleOwnNamespaceInstallSupport": True}),
        (
            " DeploymentConfig=1 , BoxcutterRuntime=T ",
            {"DeploymentConfig": True, "BoxcutterRuntime": True},
        ),
        ("WebhookProviderCertManager=False,", {"WebhookProviderCertManager": False}),
        ("", {}),
    ],
)
def test_parse_feature_gates(spec: str, changed: dict[str, bool]) -> None:
    assert parse_feature_gates(spec) == {**DEFAULT_GATES, **changed}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("Nope=true", "unrecognized feature gate: Nope"),
        ("DeploymentConfig", "missing bool value for DeploymentConfig"),
        ("DeploymentConfig=yes", "invalid value of DeploymentConfig=yes"),
    ],
)
def test_bad_feature_gates(spec: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_feature_gates(spec)


def test_single_own_gate_turns_a_refusal_into_a_requirement() -> None:
    spec = {"installModes": [{"type": "OwnNamespace", "supported": True}]}
    off = check_bundle(_bundle(spec))
    on = check_bundle(
        _bundle(spec), gates=parse_feature_gates("SingleOwnNamespaceInstallSupport=true")
    )
    assert off.verdict == "refused" and on.verdict == "installable"
    assert "the install namespace" in on.requirements[0].message
    assert on.summary().startswith("installable with spec.config.inline.watchNamespace")


# -- catalogs, bundle directories, images ---------------------------------------------------


def test_example_catalog_heads() -> None:
    log = NoticeLog()
    report = check([str(FIXTURES / "example" / "sqlite" / "schema-13.db")], notify=log)
    verdicts = {b.name: b.verdict for b in report.bundles}
    assert verdicts == {
        "hello-operator.v0.2.0": "installable",
        "hello-operator.v0.3.0": "installable",
        "world-operator.v1.0.0": "refused",
    }
    world = report.bundles[-1]
    assert [r.message for r in world.reasons] == [
        'bundle "world-operator.v1.0.0" has a dependency declared via property '
        '"olm.gvk.required" which is currently not supported'
    ]
    assert report.by_rule() == {RULE_DEPENDENCY: 1}
    assert not report.ok
    assert list(log) == []


def test_all_bundles_and_packages() -> None:
    ref = str(FIXTURES / "example" / "expected")
    report = check([ref], all_bundles=True, packages=["hello-operator"])
    assert [b.name for b in report.bundles] == [
        "hello-operator.v0.1.0",
        "hello-operator.v0.2.0",
        "hello-operator.v0.3.0",
    ]
    assert report.ok


def test_unknown_package_is_an_error() -> None:
    from olmcat.errors import InputError

    with pytest.raises(InputError, match="no package 'nope'"):
        check([str(FIXTURES / "example" / "expected")], packages=["nope"])


def _metadata_only_catalog(tmp_path: Path, modes: list[str], image: str) -> Path:
    """The example's hello-operator with olm.csv.metadata instead of olm.bundle.object."""
    out = tmp_path / "catalog"
    out.mkdir()
    lines = []
    source = FIXTURES / "example" / "expected" / "hello-operator" / "catalog.json"
    from tests.support.paths import parse_stream

    for blob in parse_stream(source.read_text()):
        if blob["schema"] == "olm.bundle":
            props = [p for p in blob["properties"] if p["type"] != "olm.bundle.object"]
            props.append(
                {
                    "type": "olm.csv.metadata",
                    "value": {"installModes": [{"type": m, "supported": True} for m in modes]},
                }
            )
            blob = {**blob, "properties": props, "image": image}
        lines.append(json.dumps(blob))
    (out / "catalog.json").write_text("\n".join(lines) + "\n")
    return out


def test_metadata_only_offline_is_unknown_never_a_silent_yes(tmp_path: Path) -> None:
    ref = _metadata_only_catalog(tmp_path, ["AllNamespaces"], "127.0.0.1:1/hello:v1")
    log = NoticeLog()
    report = check([str(ref)], pull=False, notify=log)
    assert {b.verdict for b in report.bundles} == {"unknown"}
    first = report.bundles[0]
    # the content validators and the renderer need the files
    assert first.not_run == [*validators.RULES, "olmv1.render.refused"]
    assert "offline" in first.not_run_because
    assert first.summary() == (
        "unknown: checks the 13 content validators (olmv1.bundle.*), olmv1.render.refused could "
        "not run because the catalog has no olm.bundle.object and the bundle image was not read "
        "(offline)"
    )
    assert {n.code for n in log} == {"olmv1.check.image-not-read"}
    assert not report.ok


def test_metadata_only_unreachable_image_is_unknown(tmp_path: Path) -> None:
    ref = _metadata_only_catalog(tmp_path, ["AllNamespaces"], "127.0.0.1:1/hello:v1")
    log = NoticeLog()
    report = check([str(ref)], notify=log)  # port 1 on loopback: refused at once
    assert {b.verdict for b in report.bundles} == {"unknown"}
    assert all("could not be read" in b.not_run_because for b in report.bundles)
    assert log and all("127.0.0.1:1/hello:v1" in n.message for n in log)


def test_metadata_only_refusal_needs_no_image(tmp_path: Path) -> None:
    ref = _metadata_only_catalog(tmp_path, ["OwnNamespace"], "127.0.0.1:1/hello:v1")
    report = check([str(ref)], pull=False)
    assert {b.verdict for b in report.bundles} == {"refused"}
    assert {r.rule for b in report.bundles for r in b.reasons} == {RULE_ALL_NAMESPACES}


def test_bundle_directories() -> None:
    webhook = str(REGRESSION / "webhook-operator.v0.0.5")
    report = check([webhook, str(REGRESSION / "argocd-operator.v0.6.0")])
    assert [(b.name, b.verdict, b.source) for b in report.bundles] == [
        ("webhook-operator.v0.0.5", "installable", "bundle directory"),
        ("argocd-operator.v0.6.0", "installable", "bundle directory"),
    ]
    off = check(
        [webhook],
        gates="WebhookProviderCertManager=false,WebhookProviderOpenshiftServiceCA=false",
    )
    assert [r.message for r in off.bundles[0].reasons] == [
        "unsupported bundle: webhookDefinitions are not supported"
    ]


def test_unreadable_bundle_directory(tmp_path: Path) -> None:
    bundle = tmp_path / "broken"
    (bundle / "manifests").mkdir(parents=True)
    (bundle / "metadata").mkdir()
    log = NoticeLog()
    report = check([str(bundle)], notify=log)
    assert [r.rule for r in report.bundles[0].reasons] == [RULE_UNREADABLE]
    assert "metadata/annotations.yaml" in report.bundles[0].reasons[0].message
    assert "olmv1.check.bundle-unreadable" in {n.code for n in log}


def test_catalog_bundle_with_objects_reads_no_image() -> None:
    def never(image: str) -> RegistryV1:
        raise AssertionError(image)

    pkg = _one_package()
    found = check_catalog_bundle(pkg.bundles[0], read_image=never)
    assert found.verdict == "installable" and found.source == "catalog (olm.bundle.object)"


def _one_package() -> PackageCatalog:
    from olmcat.readers.catalog import open_catalog

    with open_catalog(str(FIXTURES / "example" / "expected")) as catalog:
        pkg = next(iter(catalog.packages({"hello-operator"})))
    return PackageCatalog(
        Package("hello-operator", "stable"),
        (Channel("stable", "hello-operator", (ChannelEntry(pkg.bundles[-1].name),)),),
        (pkg.bundles[-1],),
    )


def test_rules_are_listed_once_in_order() -> None:
    ids = [rule.id for rule in rules()]
    assert len(ids) == len(set(ids)) == len(OWN_RULES) + 13 + 1
    assert ids[len(OWN_RULES) : -1] == list(validators.RULES)
    assert ids[-1] == "olmv1.render.refused"


# -- real data ------------------------------------------------------------------------------------


@pytest.mark.conformance
@pytest.mark.parametrize(
    "parts",
    [
        ("sqlite", "index-upstream.db"),
        ("sqlite", "index-upstream-synth.db"),
        ("sqlite", "upstream-subset.db"),
        ("sqlite", "small.db"),
        ("expected", "index-upstream.json"),
        ("expected", "upstream-subset.json"),
    ],
    ids=lambda parts: "/".join(parts),
)
def test_corpus_heads_every_refusal_is_a_rule(parts: tuple[str, str]) -> None:
    ref = corpus_path(*parts)
    report = check([str(ref)], pull=False)
    known = {rule.id for rule in rules()}
    assert report.bundles
    for item in report.bundles:
        assert item.verdict != "unknown", item.name  # the heads' objects are in the catalog
        assert {r.rule for r in item.reasons} <= known


@pytest.mark.parametrize("form", ["oci-archive", "oci-layout", "docker-archive"])
def test_bundle_image_archive_is_checked_like_its_directory(tmp_path: Path, form: str) -> None:
    from tests.support.bundletrees import bundle_image

    directory = REGRESSION / "webhook-operator.v0.0.5"
    archive = bundle_image(
        directory, tmp_path / "img", ref="127.0.0.1:5000/webhook:v0.0.5", form=form
    )
    off = "WebhookProviderCertManager=false,WebhookProviderOpenshiftServiceCA=false"
    from_image = check([str(archive)], gates=off).bundles
    from_directory = check([str(directory)], gates=off).bundles
    assert [b.source for b in from_image] == ["bundle image"]
    assert [(b.name, b.reasons) for b in from_image] == [
        (b.name, b.reasons) for b in from_directory
    ]


def test_index_image_archive_is_a_catalog() -> None:
    report = check([str(corpus_path("images", "test-index-v1.oci.tar"))], pull=False)
    sqlite = check([str(corpus_path("sqlite", "index-upstream.db"))], pull=False)
    assert [(b.name, b.verdict) for b in report.bundles] == [
        (b.name, b.verdict) for b in sqlite.bundles
    ]


def test_the_generators_can_still_refuse() -> None:
    """A conversion webhook on a CRD that preserves unknown fields passes every validator; the
    CRD generator refuses it (generators.go BundleCRDGenerator)."""
    crd_name = "foos.example.com"
    spec = {
        "installModes": [{"type": "AllNamespaces", "supported": True}],
        "install": {"strategy": "deployment", "spec": {"deployments": [{"name": "d", "spec": {}}]}},
        "customresourcedefinitions": {"owned": [{"name": crd_name}]},
        "webhookdefinitions": [
            {
                "type": "ConversionWebhook",
                "generateName": "c.example.com",
                "deploymentName": "d",
                "containerPort": 443,
                "conversionCRDs": [crd_name],
                "admissionReviewVersions": ["v1"],
                "sideEffects": "None",
            }
        ],
    }
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": crd_name},
        "spec": {"group": "example.com", "preserveUnknownFields": True},
    }
    bundle = RegistryV1("test", _bundle(spec).csv, (crd,), ())
    assert validators.validate(bundle) == []
    result = check_bundle(bundle)
    assert [(r.rule, r.message) for r in result.reasons] == [
        (
            "olmv1.render.refused",
            f"custom resource definition '{crd_name}' must have .spec.preserveUnknownFields set "
            "to false to let API Server call webhook to do the conversion",
        )
    ]


@pytest.mark.parametrize(
    "modes",
    [["OwnNamespace"], ["SingleNamespace"], ["MultiNamespace"], ["MultiNamespace", "OwnNamespace"]],
)
def test_a_bundle_without_all_namespaces_is_not_refused_twice(modes: list[str]) -> None:
    """Without SingleOwnNamespaceInstallSupport v1.11.0 stops at the install mode; rendering it
    for the namespaces it supports adds no second, made-up refusal."""
    spec = {"installModes": [{"type": m, "supported": True} for m in modes]}
    result = check_bundle(_bundle(spec))
    assert {r.rule for r in result.reasons} <= {
        RULE_ALL_NAMESPACES,
        "olmv1.provider.no-supported-install-mode",
    }
    assert result.reasons[0].rule == RULE_ALL_NAMESPACES
