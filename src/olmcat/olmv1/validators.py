"""The registry+v1 content checks operator-controller v1.11.0 runs before rendering a bundle.

``render/registryv1/validators/validator.go``: thirteen checks, run in the order of
``registryv1.BundleValidator``; every error of every check is kept (``errors.Join``). Each check
here has a stable rule ID (``olmv1.bundle.<name>``) and words its messages exactly as v1.11.0
does, in the same order (Go sorts most of them).

The supported kinds of :func:`check_object_support` are operator-registry's
``pkg/lib/bundle/supported_resources.go`` (the list v1.11.0's operator-registry v1.73.0 pins).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from olmcat.model.manifests import as_dict, as_list, as_str
from olmcat.olmv1.bundle import RegistryV1

__all__ = [
    "RULES",
    "SUPPORTED_KINDS",
    "Finding",
    "go_quote",
    "is_dns1123_subdomain",
    "validate",
]


@dataclass(frozen=True, slots=True)
class Finding:
    """One validation error: the rule that found it and the message v1.11.0 gives."""

    rule: str
    message: str

    def __str__(self) -> str:
        return self.message


# Kind -> namespaced (operator-registry's supportedResources).
SUPPORTED_KINDS: dict[str, bool] = {
    "ClusterServiceVersion": True,
    "CustomResourceDefinition": False,
    "ClusterRole": False,
    "ClusterRoleBinding": False,
    "Service": True,
    "ServiceAccount": True,
    "Role": True,
    "RoleBinding": True,
    "PrometheusRule": True,
    "ServiceMonitor": True,
    "Secret": True,
    "ConfigMap": True,
    "PodDisruptionBudget": True,
    "PriorityClass": False,
    "VerticalPodAutoscaler": False,
    "ConsoleYAMLSample": False,
}

CONVERSION_WEBHOOK = "ConversionWebhook"

# -- Go formatting ------------------------------------------------------------------------------

_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_GO_ESCAPES["\v"] = "\\v"


def go_quote(text: str) -> str:
    """Go's ``%q`` of a string (``strconv.Quote``)."""
    out = ['"']
    for char in text:
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif char in _GO_ESCAPES:
            out.append(_GO_ESCAPES[char])
        elif char.isprintable() or char == " ":
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) < 0x10000:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    out.append('"')
    return "".join(out)


def go_list(items: list[str]) -> str:
    """Go's ``%v`` of a string slice."""
    return "[" + " ".join(items) + "]"


_DNS1123_SUBDOMAIN = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_DNS1123_RE = re.compile(_DNS1123_SUBDOMAIN)
_DNS1123_MESSAGE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    f"for validation is '{_DNS1123_SUBDOMAIN}')"
)


def is_dns1123_subdomain(value: str) -> list[str]:
    """``validation.IsDNS1123Subdomain``: its error strings, empty when valid."""
    errors = []
    if len(value.encode()) > 253:
        errors.append("must be no more than 253 characters")
    if not _DNS1123_RE.fullmatch(value):
        errors.append(_DNS1123_MESSAGE)
    return errors


# -- the bundle, as the typed Go structs see it --------------------------------------------------


def _deployment_names(rv1: RegistryV1) -> list[str]:
    strategy = as_dict(as_dict(rv1.csv_spec.get("install")).get("spec"))
    return [as_str(as_dict(d).get("name")) for d in as_list(strategy.get("deployments"))]


def _webhooks(rv1: RegistryV1) -> list[dict[str, Any]]:
    return [as_dict(w) for w in as_list(rv1.csv_spec.get("webhookdefinitions"))]


def _owned_crd_names(rv1: RegistryV1) -> list[str]:
    crds = as_dict(rv1.csv_spec.get("customresourcedefinitions"))
    return [as_str(as_dict(c).get("name")) for c in as_list(crds.get("owned"))]


def _crd_names(rv1: RegistryV1) -> list[str]:
    return [as_str(as_dict(c.get("metadata")).get("name")) for c in rv1.crds]


def _duplicates(names: list[str]) -> list[str]:
    seen: set[str] = set()
    dups: set[str] = set()
    for name in names:
        if name in seen:
            dups.add(name)
        seen.add(name)
    return sorted(dups)


def _strings(value: Any) -> list[str]:
    return [as_str(v) for v in as_list(value)]


# -- the checks -----------------------------------------------------------------------------------


def check_deployment_spec_uniqueness(rv1: RegistryV1) -> list[str]:
    return [
        f"cluster service version contains duplicate strategy deployment spec '{name}'"
        for name in _duplicates(_deployment_names(rv1))
    ]


def check_deployment_name_is_dns1123_subdomain(rv1: RegistryV1) -> list[str]:
    invalid = {}
    for name in _deployment_names(rv1):
        errors = is_dns1123_subdomain(name)
        if errors:
            invalid[name] = sorted(errors)
    return [
        f"invalid cluster service version strategy deployment name '{name}': "
        + ", ".join(invalid[name])
        for name in sorted(invalid)
    ]


def check_crd_resource_uniqueness(rv1: RegistryV1) -> list[str]:
    return [
        f"bundle contains duplicate custom resource definition '{name}'"
        for name in _duplicates(_crd_names(rv1))
    ]


def check_owned_crd_existence(rv1: RegistryV1) -> list[str]:
    present = set(_crd_names(rv1))
    missing = sorted({name for name in _owned_crd_names(rv1) if name not in present})
    return [
        f"cluster service definition references owned custom resource definition '{name}' "
        "not found in bundle"
        for name in missing
    ]


def check_package_name_not_empty(rv1: RegistryV1) -> list[str]:
    return [] if rv1.package_name else ["package name is empty"]


def check_conversion_webhook_support(rv1: RegistryV1) -> list[str]:
    names = [
        as_str(w.get("generateName"))
        for w in _webhooks(rv1)
        if as_str(w.get("type")) == CONVERSION_WEBHOOK
    ]
    if not names:
        return []
    modes = {
        as_str(as_dict(m).get("type"))
        for m in as_list(rv1.csv_spec.get("installModes"))
        if as_dict(m).get("supported") is True
    }
    if modes == {"AllNamespaces"}:
        return []
    shown = go_list(sorted(modes))
    return [
        f"bundle contains conversion webhook {go_quote(name)} and supports install modes {shown}"
        " - conversion webhooks are only supported for bundles that only support AllNamespaces "
        "install mode"
        for name in names
    ]


def check_webhook_deployment_referential_integrity(rv1: RegistryV1) -> list[str]:
    deployments = set(_deployment_names(rv1))
    dangling: dict[str, list[dict[str, Any]]] = {}
    for webhook in _webhooks(rv1):
        deployment = as_str(webhook.get("deploymentName"))
        if deployment not in deployments:
            dangling.setdefault(deployment, []).append(webhook)
    out = []
    for deployment in sorted(dangling):
        for webhook in sorted(
            dangling[deployment],
            key=lambda w: (as_str(w.get("type")), as_str(w.get("generateName"))),
        ):
            out.append(
                f"webhook of type '{as_str(webhook.get('type'))}' with name "
                f"'{as_str(webhook.get('generateName'))}' references non-existent deployment "
                f"'{deployment}'"
            )
    return out


def check_webhook_name_uniqueness(rv1: RegistryV1) -> list[str]:
    by_type: dict[str, list[str]] = {}
    for webhook in _webhooks(rv1):
        by_type.setdefault(as_str(webhook.get("type")), []).append(
            as_str(webhook.get("generateName"))
        )
    return [
        f"duplicate webhook '{name}' of type '{type_}'"
        for type_ in sorted(by_type)
        for name in _duplicates(by_type[type_])
    ]


def check_conversion_webhooks_reference_owned_crds(rv1: RegistryV1) -> list[str]:
    conversions = [w for w in _webhooks(rv1) if as_str(w.get("type")) == CONVERSION_WEBHOOK]
    owned = set(_owned_crd_names(rv1))
    out = []
    for webhook in sorted(conversions, key=lambda w: as_str(w.get("generateName"))):
        for crd in sorted(_strings(webhook.get("conversionCRDs"))):
            if crd not in owned:
                out.append(
                    f"conversion webhook '{as_str(webhook.get('generateName'))}' references "
                    f"custom resource definition '{crd}' not owned bundle"
                )
    return out


def check_conversion_webhook_crd_reference_uniqueness(rv1: RegistryV1) -> list[str]:
    by_crd: dict[str, list[str]] = {}
    for webhook in _webhooks(rv1):
        if as_str(webhook.get("type")) != CONVERSION_WEBHOOK:
            continue
        for crd in _strings(webhook.get("conversionCRDs")):
            by_crd.setdefault(crd, []).append(as_str(webhook.get("generateName")))
    return [
        f"conversion webhooks [{','.join(sorted(names))}] reference same custom resource "
        f"definition '{crd}'"
        for crd, names in sorted(by_crd.items())
        if len(names) > 1
    ]


def check_webhook_name_is_dns1123_subdomain(rv1: RegistryV1) -> list[str]:
    invalid: dict[str, dict[str, list[str]]] = {}
    for webhook in _webhooks(rv1):
        name = as_str(webhook.get("generateName"))
        errors = is_dns1123_subdomain(name)
        if errors:
            invalid.setdefault(as_str(webhook.get("type")), {})[name] = sorted(errors)
    return [
        f"webhook of type '{type_}' has invalid name '{name}': {','.join(invalid[type_][name])}"
        for type_ in sorted(invalid)
        for name in sorted(invalid[type_])
    ]


_FORBIDDEN_GROUPS = {"olm.operatorframework.io", "*"}
_FORBIDDEN_ADMISSION_RESOURCES = {
    "*",
    "mutatingwebhookconfiguration",
    "mutatingwebhookconfigurations",
    "validatingwebhookconfiguration",
    "validatingwebhookconfigurations",
}


def check_webhook_rules(rv1: RegistryV1) -> list[str]:
    out = []
    for webhook in _webhooks(rv1):
        if as_str(webhook.get("type")) == CONVERSION_WEBHOOK:
            continue
        name = go_quote(as_str(webhook.get("generateName")))
        for rule in as_list(webhook.get("rules")):
            rule = as_dict(rule)
            for group in _strings(rule.get("apiGroups")):
                if group in _FORBIDDEN_GROUPS:
                    out.append(
                        f"webhook {name} contains forbidden rule: admission webhook rules cannot "
                        f"reference API group {go_quote(group)}"
                    )
                if group == "admissionregistration.k8s.io":
                    for resource in _strings(rule.get("resources")):
                        if resource.lower() in _FORBIDDEN_ADMISSION_RESOURCES:
                            out.append(
                                f"webhook {name} contains forbidden rule: admission webhook rules "
                                f"cannot reference resource {go_quote(resource)} for API group "
                                f"{go_quote(group)}"
                            )
    return out


def check_object_support(rv1: RegistryV1) -> list[str]:
    out = []
    for obj in rv1.others:
        kind = as_str(obj.get("kind"))
        if kind not in SUPPORTED_KINDS:
            name = as_str(as_dict(obj.get("metadata")).get("name"))
            out.append(f"unsupported resource {go_quote(name)} with kind {go_quote(kind)}")
    return out


# Rule ID -> check, in the order v1.11.0's BundleValidator runs them.
RULES: dict[str, Callable[[RegistryV1], list[str]]] = {
    "olmv1.bundle.duplicate-deployment-names": check_deployment_spec_uniqueness,
    "olmv1.bundle.invalid-deployment-name": check_deployment_name_is_dns1123_subdomain,
    "olmv1.bundle.duplicate-crds": check_crd_resource_uniqueness,
    "olmv1.bundle.owned-crd-missing": check_owned_crd_existence,
    "olmv1.bundle.package-name-empty": check_package_name_not_empty,
    "olmv1.bundle.conversion-webhook-install-modes": check_conversion_webhook_support,
    "olmv1.bundle.webhook-deployment-missing": check_webhook_deployment_referential_integrity,
    "olmv1.bundle.duplicate-webhook-names": check_webhook_name_uniqueness,
    "olmv1.bundle.invalid-webhook-name": check_webhook_name_is_dns1123_subdomain,
    "olmv1.bundle.conversion-webhook-crd-shared": check_conversion_webhook_crd_reference_uniqueness,
    "olmv1.bundle.conversion-webhook-crd-not-owned": check_conversion_webhooks_reference_owned_crds,
    "olmv1.bundle.forbidden-webhook-rule": check_webhook_rules,
    "olmv1.bundle.unsupported-kind": check_object_support,
}


def validate(bundle: RegistryV1) -> list[Finding]:
    """Every error v1.11.0's registry+v1 bundle validator finds, in its order."""
    return [Finding(rule, message) for rule, check in RULES.items() for message in check(bundle)]


def validation_error_text(findings: list[Finding]) -> str:
    """The error ``BundleValidator.Validate`` returns (``errors.Join``: one message a line)."""
    return "\n".join(f.message for f in findings)
