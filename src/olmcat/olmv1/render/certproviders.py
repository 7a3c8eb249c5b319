"""Certificate providers for bundles with webhooks (``rukpak/render/certprovider.go`` and
``render/certproviders``): cert-manager and the OpenShift service CA.

A provider annotates the webhook configurations, conversion-webhook CRDs and webhook Services so
their CA bundle is injected, names the Secret the serving certificate lands in, and (cert-manager)
adds the self-signed Issuer and the Certificate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from olmcat.olmv1.render.names import name_for_base_and_suffix

CERT_MANAGER = "cert-manager"
OPENSHIFT_SERVICE_CA = "openshift-service-ca"
PROVIDERS = (CERT_MANAGER, OPENSHIFT_SERVICE_CA)

CERT_MANAGER_INJECT_CA = "cert-manager.io/inject-ca-from"
SERVICE_CA_SERVING_CERT = "service.beta.openshift.io/serving-cert-secret-name"
SERVICE_CA_INJECT_CABUNDLE = "service.beta.openshift.io/inject-cabundle"

_INJECTED_KINDS = {
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "CustomResourceDefinition",
}


@dataclass(frozen=True, slots=True)
class CertSecretInfo:
    secret_name: str
    certificate_key: str
    private_key_key: str


@dataclass(frozen=True, slots=True)
class CertProvisioner:
    """``render.CertificateProvisioner``: the names for one deployment's webhook service."""

    provider: str | None
    service_name: str
    cert_name: str
    namespace: str

    def inject_ca_bundle(self, obj: dict[str, Any]) -> None:
        """Add the provider's annotation to ``obj`` (in place)."""
        kind = obj.get("kind")
        if self.provider == CERT_MANAGER and kind in _INJECTED_KINDS:
            _annotate(obj, CERT_MANAGER_INJECT_CA, f"{self.namespace}/{self.cert_name}")
        elif self.provider == OPENSHIFT_SERVICE_CA:
            if kind in _INJECTED_KINDS:
                _annotate(obj, SERVICE_CA_INJECT_CABUNDLE, "true")
            elif kind == "Service":
                _annotate(obj, SERVICE_CA_SERVING_CERT, self.cert_name)

    def additional_objects(self) -> list[dict[str, Any]]:
        if self.provider != CERT_MANAGER:
            return []
        issuer_name = name_for_base_and_suffix(self.cert_name, "selfsigned-issuer")
        host = f"{self.service_name}.{self.namespace}"
        issuer = {
            "apiVersion": "cert-manager.io/v1",
            "kind": "Issuer",
            "metadata": {"name": issuer_name, "namespace": self.namespace},
            "spec": {"selfSigned": {}},
            "status": {},
        }
        certificate = {
            "apiVersion": "cert-manager.io/v1",
            "kind": "Certificate",
            "metadata": {"name": self.cert_name, "namespace": self.namespace},
            "spec": {
                "commonName": host,
                "dnsNames": [host, f"{host}.svc", f"{host}.svc.cluster.local"],
                "duration": "17520h0m0s",
                "issuerRef": {"name": issuer_name},
                "renewBefore": "24h0m0s",
                "secretName": self.cert_name,
                "usages": ["server auth"],
            },
            "status": {},
        }
        return [issuer, certificate]

    def cert_secret_info(self) -> CertSecretInfo | None:
        if self.provider is None:
            return None
        return CertSecretInfo(self.cert_name, "tls.crt", "tls.key")


def _annotate(obj: dict[str, Any], key: str, value: str) -> None:
    metadata = obj.setdefault("metadata", {})
    annotations = dict(metadata.get("annotations") or {})
    annotations[key] = value
    metadata["annotations"] = annotations


def provisioner_for(
    deployment: str, install_namespace: str, provider: str | None
) -> CertProvisioner:
    """``render.CertProvisionerFor``: ``<deployment, dots as dashes>-service`` and ``...-cert``."""
    service = name_for_base_and_suffix(deployment.replace(".", "-"), "service")
    return CertProvisioner(
        provider=provider,
        service_name=service,
        cert_name=name_for_base_and_suffix(service, "cert"),
        namespace=install_namespace,
    )
