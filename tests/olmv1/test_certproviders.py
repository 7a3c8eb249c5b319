"""operator-controller v1.11.0's certificate providers: ``render/certproviders/``
``certmanager_test.go``, ``openshift_serviceca_test.go``
and ``render/certprovider_test.go``, their cases as tables.

Not ported: ``Test_CertificateProvisioner_WithCertProvider`` and ``_Errors`` test the plumbing of
a mocked provider interface; olmcat's providers are the two named ones, not an interface.
"""

from __future__ import annotations

from typing import Any

import pytest

from olmcat.olmv1.render.certproviders import (
    CERT_MANAGER,
    OPENSHIFT_SERVICE_CA,
    CertProvisioner,
    CertSecretInfo,
    provisioner_for,
)

CFG = {"service_name": "webhook-service", "namespace": "namespace", "cert_name": "cert-name"}

# (test, case name, provider, kind, expected annotations or None)
INJECT = [
    ("CertManager", "injects certificate annotation in validating webhook configuration",
     CERT_MANAGER, "ValidatingWebhookConfiguration",
     {"cert-manager.io/inject-ca-from": "namespace/cert-name"}),
    ("CertManager", "injects certificate annotation in mutating webhook configuration",
     CERT_MANAGER, "MutatingWebhookConfiguration",
     {"cert-manager.io/inject-ca-from": "namespace/cert-name"}),
    ("CertManager", "injects certificate annotation in custom resource definition",
     CERT_MANAGER, "CustomResourceDefinition",
     {"cert-manager.io/inject-ca-from": "namespace/cert-name"}),
    ("CertManager", "ignores other objects", CERT_MANAGER, "Service", None),
    ("OpenshiftServiceCA", "injects inject-cabundle annotation in validating webhook configuration",
     OPENSHIFT_SERVICE_CA, "ValidatingWebhookConfiguration",
     {"service.beta.openshift.io/inject-cabundle": "true"}),
    ("OpenshiftServiceCA", "injects inject-cabundle annotation in mutating webhook configuration",
     OPENSHIFT_SERVICE_CA, "MutatingWebhookConfiguration",
     {"service.beta.openshift.io/inject-cabundle": "true"}),
    ("OpenshiftServiceCA", "injects inject-cabundle annotation in custom resource definition",
     OPENSHIFT_SERVICE_CA, "CustomResourceDefinition",
     {"service.beta.openshift.io/inject-cabundle": "true"}),
    ("OpenshiftServiceCA",
     "injects serving-cert-secret-name annotation in service resource referencing the "
     "certificate name", OPENSHIFT_SERVICE_CA, "Service",
     {"service.beta.openshift.io/serving-cert-secret-name": "cert-name"}),
    ("OpenshiftServiceCA", "ignores other objects", OPENSHIFT_SERVICE_CA, "Secret", None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("test", "name", "provider", "kind", "annotations"),
    INJECT,
    ids=[f"{c[0]}_InjectCABundle[{i + 1}]" for i, c in enumerate(INJECT)],
)
def test_inject_ca_bundle(
    test: str, name: str, provider: str, kind: str, annotations: dict[str, str] | None
) -> None:
    obj: dict[str, Any] = {"kind": kind}
    CertProvisioner(provider=provider, **CFG).inject_ca_bundle(obj)
    expected: dict[str, Any] = {"kind": kind}
    if annotations is not None:
        expected["metadata"] = {"annotations": annotations}
    assert obj == expected, name


def test_cert_manager_additional_objects() -> None:
    objs = CertProvisioner(provider=CERT_MANAGER, **CFG).additional_objects()
    assert objs == [
        {
            "apiVersion": "cert-manager.io/v1",
            "kind": "Issuer",
            "metadata": {"name": "cert-name-selfsigned-issuer", "namespace": "namespace"},
            "spec": {"selfSigned": {}},
            "status": {},
        },
        {
            "apiVersion": "cert-manager.io/v1",
            "kind": "Certificate",
            "metadata": {"name": "cert-name", "namespace": "namespace"},
            "spec": {
                "secretName": "cert-name",
                "usages": ["server auth"],
                "commonName": "webhook-service.namespace",
                "dnsNames": [
                    "webhook-service.namespace",
                    "webhook-service.namespace.svc",
                    "webhook-service.namespace.svc.cluster.local",
                ],
                "issuerRef": {"name": "cert-name-selfsigned-issuer"},
                "duration": "17520h0m0s",  # 730 * 24h, metav1.Duration's text
                "renewBefore": "24h0m0s",
            },
            "status": {},
        },
    ]


def test_openshift_service_ca_additional_objects() -> None:
    assert CertProvisioner(provider=OPENSHIFT_SERVICE_CA, **CFG).additional_objects() == []


@pytest.mark.parametrize("provider", [CERT_MANAGER, OPENSHIFT_SERVICE_CA])
def test_get_cert_secret_info(provider: str) -> None:
    assert CertProvisioner(provider=provider, **CFG).cert_secret_info() == CertSecretInfo(
        secret_name="cert-name", certificate_key="tls.crt", private_key_key="tls.key"
    )


def test_provisioner_without_cert_provider() -> None:
    """Test_CertificateProvisioner_WithoutCertProvider."""
    provisioner = CertProvisioner(None, "webhook", "cert", "namespace")
    secret: dict[str, Any] = {"kind": "Secret"}
    provisioner.inject_ca_bundle(secret)
    assert secret == {"kind": "Secret"}
    assert provisioner.cert_secret_info() is None
    assert provisioner.additional_objects() == []


def test_cert_provisioner_for() -> None:
    """Test_CertProvisionerFor."""
    prov = provisioner_for("my.deployment.thing", "my-namespace", CERT_MANAGER)
    assert prov.provider == CERT_MANAGER
    assert prov.service_name == "my-deployment-thing-service"
    assert prov.cert_name == "my-deployment-thing-service-cert"
    assert prov.namespace == "my-namespace"


def test_cert_provisioner_for_extra_large_name() -> None:  # ..._ExtraLargeName_MoreThan63Chars
    prov = provisioner_for(
        "my.object.thing.has.a.really.really.really.really.really.long.name", "", None
    )
    assert len(prov.service_name) == len(prov.cert_name) == 63
    assert prov.service_name == "my-object-thing-has-a-really-really-really-really-reall-service"
    assert prov.cert_name == "my-object-thing-has-a-really-really-really-really-reall-se-cert"
