"""The registry+v1 resource generators of operator-controller v1.11.0
(``render/registryv1/generators/generators.go``), run in ``registryv1.ResourceGenerators`` order.

Each takes the bundle and the render options and returns plain objects (dicts), typed objects
already written as Go writes them (:func:`olmcat.olmv1.render.typed.as_typed`). Two generators
iterate Go sets (ServiceAccounts, cert-provider objects), whose order Go leaves random; here they
come in name order so a render is reproducible.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from olmcat.errors import ValidationError
from olmcat.model.manifests import as_dict, as_list, as_str
from olmcat.olmv1.bundle import RegistryV1
from olmcat.olmv1.render.certproviders import CertSecretInfo, provisioner_for
from olmcat.olmv1.render.names import policy_rule, unique_name
from olmcat.olmv1.render.typed import as_typed
from olmcat.olmv1.validators import SUPPORTED_KINDS

Manifest = dict[str, Any]


class RenderError(ValidationError):
    """The bundle or the options are refused, worded as v1.11.0 words it."""


CONVERSION_WEBHOOK = "ConversionWebhook"
VALIDATING_WEBHOOK = "ValidatingAdmissionWebhook"
MUTATING_WEBHOOK = "MutatingAdmissionWebhook"
NAMESPACE_LABEL = "kubernetes.io/metadata.name"
NAMESPACES_RULE = {
    "verbs": ["get", "list", "watch"],
    "apiGroups": [""],
    "resources": ["namespaces"],
}

# (volume name, mount path, certificate file, key file): the protected certificate volumes.
CERT_VOLUMES = (
    ("webhook-cert", "/tmp/k8s-webhook-server/serving-certs", "tls.crt", "tls.key"),
    ("apiservice-cert", "/apiserver.local.config/certificates", "apiserver.crt", "apiserver.key"),
)


@dataclass(frozen=True)
class Options:
    """``render.Options``: where and for which namespaces the bundle is rendered."""

    install_namespace: str
    target_namespaces: tuple[str, ...]
    cert_provider: str | None = None
    deployment_config: dict[str, Any] | None = None
    unique_name: Callable[[str, dict[str, Any]], str] = field(default=unique_name)

    @property
    def all_namespaces(self) -> bool:
        return self.target_namespaces == ("",)


# -- the bundle, as the typed CSV holds it --------------------------------------------------------


def _strategy(rv1: RegistryV1) -> dict[str, Any]:
    return as_dict(as_dict(rv1.csv_spec.get("install")).get("spec"))


def deployment_specs(rv1: RegistryV1) -> list[dict[str, Any]]:
    return [as_dict(d) for d in as_list(_strategy(rv1).get("deployments"))]


def permissions(rv1: RegistryV1) -> list[dict[str, Any]]:
    return [as_dict(p) for p in as_list(_strategy(rv1).get("permissions"))]


def cluster_permissions(rv1: RegistryV1) -> list[dict[str, Any]]:
    return [as_dict(p) for p in as_list(_strategy(rv1).get("clusterPermissions"))]


def webhooks(rv1: RegistryV1) -> list[dict[str, Any]]:
    return [as_dict(w) for w in as_list(rv1.csv_spec.get("webhookdefinitions"))]


def _sa_name(permission: dict[str, Any]) -> str:
    return as_str(permission.get("serviceAccountName")) or "default"


def _rules(permission: dict[str, Any]) -> list[dict[str, Any]]:
    return [policy_rule(as_dict(r)) for r in as_list(permission.get("rules"))]


def _meta(name: str, namespace: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return meta


# -- generators -----------------------------------------------------------------------------------


def service_accounts(rv1: RegistryV1, opts: Options) -> list[Manifest]:
    names = {_sa_name(p) for p in permissions(rv1) + cluster_permissions(rv1)}
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta(n, opts.install_namespace)}
        for n in sorted(names)
        if n != "default"
    ]


def _binding(kind: str, name: str, namespace: str | None, sa: str, opts: Options) -> Manifest:
    role_kind = "Role" if kind == "RoleBinding" else "ClusterRole"
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": kind,
        "metadata": _meta(name, namespace),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": name},
        "subjects": [{"kind": "ServiceAccount", "name": sa, "namespace": opts.install_namespace}],
    }


def roles(rv1: RegistryV1, opts: Options) -> list[Manifest]:
    if opts.all_namespaces:
        return []
    out: list[Manifest] = []
    for namespace in opts.target_namespaces:
        for permission in permissions(rv1):
            sa = _sa_name(permission)
            name = opts.unique_name(f"{rv1.csv_name}-{sa}", permission)
            rules = _rules(permission)
            out.append(
                {
                    "apiVersion": "rbac.authorization.k8s.io/v1",
                    "kind": "Role",
                    "metadata": _meta(name, namespace),
                    "rules": None if permission.get("rules") is None else rules,
                }
            )
            out.append(_binding("RoleBinding", name, namespace, sa, opts))
    return out


def cluster_roles(rv1: RegistryV1, opts: Options) -> list[Manifest]:
    granted = list(cluster_permissions(rv1))
    if opts.all_namespaces:
        for permission in permissions(rv1):
            rules = [*as_list(permission.get("rules")), NAMESPACES_RULE]
            granted.append({**permission, "rules": rules})
    out: list[Manifest] = []
    for permission in granted:
        sa = _sa_name(permission)
        name = opts.unique_name(f"{rv1.csv_name}-{sa}", permission)
        out.append(
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRole",
                "metadata": _meta(name),
                "rules": None if permission.get("rules") is None else _rules(permission),
            }
        )
        out.append(_binding("ClusterRoleBinding", name, None, sa, opts))
    return out


def _conversion_webhooks_by_crd(rv1: RegistryV1) -> dict[str, dict[str, Any]]:
    by_crd: dict[str, dict[str, Any]] = {}
    for webhook in webhooks(rv1):
        if as_str(webhook.get("type")) != CONVERSION_WEBHOOK:
            continue
        for crd in as_list(webhook.get("conversionCRDs")):
            if crd in by_crd:
                raise RenderError(
                    f"custom resource definition '{crd}' is referenced by multiple conversion "
                    "webhook definitions"
                )
            by_crd[as_str(crd)] = webhook
    return by_crd


def _typed_crd(crd: Manifest) -> Manifest:
    out = copy.deepcopy(crd)
    out["metadata"] = as_typed(as_dict(out.get("metadata")), "meta.ObjectMeta")
    status = as_dict(out.get("status"))
    out["status"] = {
        **status,
        "acceptedNames": as_typed(as_dict(status.get("acceptedNames")), "crd.Names"),
        "conditions": status.get("conditions"),
        "storedVersions": status.get("storedVersions"),
    }
    out["status"]["acceptedNames"].setdefault("kind", "")
    out["status"]["acceptedNames"].setdefault("plural", "")
    return out


def crds(rv1: RegistryV1, opts: Options) -> list[Manifest]:
    by_crd = _conversion_webhooks_by_crd(rv1)
    out: list[Manifest] = []
    for crd in rv1.crds:
        typed = _typed_crd(crd)
        name = as_str(as_dict(crd.get("metadata")).get("name"))
        webhook = by_crd.get(name)
        if webhook is not None:
            if as_dict(crd.get("spec")).get("preserveUnknownFields") is True:
                raise RenderError(
                    f"custom resource definition '{name}' must have .spec.preserveUnknownFields "
                    "set to false to let API Server call webhook to do the conversion"
                )
            path = webhook.get("webhookPath")
            provisioner = provisioner_for(
                as_str(webhook.get("deploymentName")), opts.install_namespace, opts.cert_provider
            )
            service: dict[str, Any] = {
                "name": provisioner.service_name,
                "namespace": opts.install_namespace,
                "path": path if path is not None else "/",
                "port": webhook.get("containerPort") or 0,
            }
            conversion: dict[str, Any] = {
                "strategy": "Webhook",
                "webhook": {"clientConfig": {"service": service}},
            }
            conversion["webhook"]["conversionReviewVersions"] = webhook.get(
                "admissionReviewVersions"
            )
            typed["spec"] = {**as_dict(typed.get("spec")), "conversion": conversion}
            provisioner.inject_ca_bundle(typed)
        out.append(typed)
    return out


def additional_resources(rv1: RegistryV1, opts: Options) -> list[Manifest]:
    out: list[Manifest] = []
    for obj in rv1.others:
        kind = as_str(obj.get("kind"))
        if kind not in SUPPORTED_KINDS:
            name = as_str(as_dict(obj.get("metadata")).get("name"))
            raise RenderError(f"bundle contains unsupported resource: Name: {name}, Kind: {kind}")
        copied = copy.deepcopy(obj)
        if SUPPORTED_KINDS[kind]:
            copied["metadata"] = {
                **as_dict(copied.get("metadata")),
                "namespace": opts.install_namespace,
            }
        out.append(copied)
    return out


def _webhook_deployments(rv1: RegistryV1) -> set[str]:
    return {as_str(w.get("deploymentName")) for w in webhooks(rv1)}


def deployments(rv1: RegistryV1, opts: Options) -> list[Manifest]:
    csv_annotations = as_dict(as_dict(rv1.csv.get("metadata")).get("annotations"))
    with_webhooks = _webhook_deployments(rv1)
    out: list[Manifest] = []
    for spec_entry in deployment_specs(rv1):
        name = as_str(spec_entry.get("name"))
        spec = as_typed(copy.deepcopy(as_dict(spec_entry.get("spec"))), "apps.DeploymentSpec")
        template = spec["template"]
        template_meta = dict(as_dict(template.get("metadata")))
        annotations = {**csv_annotations, **as_dict(template_meta.get("annotations"))}
        annotations["olm.targetNamespaces"] = ",".join(opts.target_namespaces)
        annotations["olm.operatorNamespace"] = opts.install_namespace
        template_meta["annotations"] = annotations
        template["metadata"] = template_meta
        spec["revisionHistoryLimit"] = 1
        metadata = _meta(name, opts.install_namespace)
        labels = spec_entry.get("label")
        if labels:
            metadata["labels"] = labels
        deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": metadata}
        deployment["spec"] = spec
        info = provisioner_for(name, opts.install_namespace, opts.cert_provider).cert_secret_info()
        if name in with_webhooks and info is not None:
            _cert_volumes(spec, info)
        if opts.deployment_config is not None:
            _apply_config(deployment, opts.deployment_config)
        out.append(as_typed(deployment, "apps.Deployment"))
    return out


def _cert_volumes(spec: dict[str, Any], info: CertSecretInfo) -> None:
    pod = spec["template"].setdefault("spec", {})
    remove = {name for name, *_ in CERT_VOLUMES}
    paths = {path for _, path, *_ in CERT_VOLUMES}
    containers = as_list(pod.get("containers"))
    for container in containers:
        for mount in as_list(as_dict(container).get("volumeMounts")):
            if as_dict(mount).get("mountPath") in paths:
                remove.add(as_str(as_dict(mount).get("name")))
    volumes = [
        {
            "name": name,
            "secret": {
                "items": [
                    {"key": info.certificate_key, "path": cert},
                    {"key": info.private_key_key, "path": key},
                ],
                "secretName": info.secret_name,
            },
        }
        for name, _, cert, key in CERT_VOLUMES
    ]
    mounts = [{"mountPath": path, "name": name} for name, path, *_ in CERT_VOLUMES]
    kept = [v for v in as_list(pod.get("volumes")) if as_dict(v).get("name") not in remove]
    pod["volumes"] = kept + volumes
    for container in containers:
        current = as_list(container.get("volumeMounts"))
        container["volumeMounts"] = [
            m for m in current if as_dict(m).get("name") not in remove
        ] + copy.deepcopy(mounts)


# -- deployment config (OLM v0's SubscriptionConfig) ----------------------------------------------


def _typed_list(items: Any, type_name: str) -> list[Any]:
    return [as_typed(as_dict(i), type_name) for i in as_list(items)]


def _merged_by_name(
    current: list[dict[str, Any]], items: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """``current`` with each of ``items`` replacing the entry of its name in place, or appended:
    how the deployment config merges env, volumes and volume mounts."""
    index = {entry.get("name"): i for i, entry in enumerate(current)}
    for item in items:
        if item.get("name") in index:
            current[index[item["name"]]] = item
        else:
            current.append(item)
    return current


def _apply_config(deployment: Manifest, config: dict[str, Any]) -> None:
    pod = deployment["spec"]["template"].setdefault("spec", {})
    containers = [c for c in as_list(pod.get("containers")) if isinstance(c, dict)]
    env = _typed_list(config.get("env"), "core.EnvVar")
    if env:
        for container in containers:
            current = [as_typed(as_dict(e), "core.EnvVar") for e in as_list(container.get("env"))]
            container["env"] = _merged_by_name(current, env)
    env_from = _typed_list(config.get("envFrom"), "core.EnvFromSource")
    if env_from:
        for container in containers:
            current = _typed_list(container.get("envFrom"), "core.EnvFromSource")
            for item in env_from:
                if item not in current:
                    current.append(item)
            container["envFrom"] = current
    volumes = _typed_list(config.get("volumes"), "core.Volume")
    if volumes:
        current = _typed_list(pod.get("volumes"), "core.Volume")
        pod["volumes"] = _merged_by_name(current, volumes)
    mounts = _typed_list(config.get("volumeMounts"), "core.VolumeMount")
    if mounts:
        for container in containers:
            current = _typed_list(container.get("volumeMounts"), "core.VolumeMount")
            container["volumeMounts"] = _merged_by_name(current, mounts)
    tolerations = _typed_list(config.get("tolerations"), "core.Toleration")
    if tolerations:
        current = _typed_list(pod.get("tolerations"), "core.Toleration")
        for item in tolerations:
            if item not in current:
                current.append(item)
        pod["tolerations"] = current
    if config.get("resources") is not None:
        for container in containers:
            container["resources"] = as_typed(
                as_dict(config["resources"]), "core.ResourceRequirements"
            )
    if config.get("nodeSelector") is not None:
        pod["nodeSelector"] = config["nodeSelector"]
    if config.get("affinity") is not None:
        _apply_affinity(pod, as_dict(config["affinity"]))
    annotations = as_dict(config.get("annotations"))
    if annotations:
        for meta in (deployment["metadata"], deployment["spec"]["template"]["metadata"]):
            merged = dict(as_dict(meta.get("annotations")))
            for key, value in annotations.items():
                merged.setdefault(key, value)
            meta["annotations"] = merged


def _empty_node_affinity(value: dict[str, Any]) -> bool:
    required = value.get("requiredDuringSchedulingIgnoredDuringExecution")
    required_empty = required is None or not as_list(as_dict(required).get("nodeSelectorTerms"))
    return required_empty and not as_list(
        value.get("preferredDuringSchedulingIgnoredDuringExecution")
    )


def _empty_pod_affinity(value: dict[str, Any]) -> bool:
    return not as_list(value.get("requiredDuringSchedulingIgnoredDuringExecution")) and not as_list(
        value.get("preferredDuringSchedulingIgnoredDuringExecution")
    )


_AFFINITY_PARTS = (
    ("nodeAffinity", "core.NodeAffinity", _empty_node_affinity),
    ("podAffinity", "core.PodAffinity", _empty_pod_affinity),
    ("podAntiAffinity", "core.PodAntiAffinity", _empty_pod_affinity),
)


def _apply_affinity(pod: dict[str, Any], config: dict[str, Any]) -> None:
    if all(config.get(key) is None for key, *_ in _AFFINITY_PARTS):
        pod.pop("affinity", None)
        return
    affinity = dict(as_dict(pod.get("affinity")))
    for key, type_name, is_empty in _AFFINITY_PARTS:
        if config.get(key) is None:
            continue
        part = as_dict(config[key])
        if is_empty(part):
            affinity.pop(key, None)
        else:
            affinity[key] = as_typed(part, type_name)
    if all(
        affinity.get(key) is None or is_empty(as_dict(affinity[key]))
        for key, _, is_empty in _AFFINITY_PARTS
    ):
        pod.pop("affinity", None)
    else:
        pod["affinity"] = affinity


# -- webhooks and their services ------------------------------------------------------------------


def _namespace_selector(opts: Options) -> dict[str, Any] | None:
    namespaces = list(opts.target_namespaces)
    if namespaces and "" not in namespaces:
        return {
            "matchExpressions": [{"key": NAMESPACE_LABEL, "operator": "In", "values": namespaces}]
        }
    return None


def _webhook_configurations(rv1: RegistryV1, opts: Options, kind: str) -> list[Manifest]:
    wanted = VALIDATING_WEBHOOK if kind == "ValidatingWebhookConfiguration" else MUTATING_WEBHOOK
    out: list[Manifest] = []
    for webhook in webhooks(rv1):
        if as_str(webhook.get("type")) != wanted:
            continue
        provisioner = provisioner_for(
            as_str(webhook.get("deploymentName")), opts.install_namespace, opts.cert_provider
        )
        name = as_str(webhook.get("generateName")).removesuffix("-")
        service: dict[str, Any] = {
            "name": provisioner.service_name,
            "namespace": opts.install_namespace,
            "port": webhook.get("containerPort") or 0,
        }
        if webhook.get("webhookPath") is not None:
            service["path"] = webhook["webhookPath"]
        entry: dict[str, Any] = {
            "admissionReviewVersions": webhook.get("admissionReviewVersions"),
            "clientConfig": {"service": service},
            "name": name,
            "sideEffects": webhook.get("sideEffects"),
        }
        for key in ("failurePolicy", "matchPolicy", "timeoutSeconds"):
            if webhook.get(key) is not None:
                entry[key] = webhook[key]
        if webhook.get("objectSelector") is not None:
            entry["objectSelector"] = as_typed(
                as_dict(webhook["objectSelector"]), "meta.LabelSelector"
            )
        if webhook.get("rules"):
            entry["rules"] = _typed_list(webhook["rules"], "admission.RuleWithOperations")
        if kind == "MutatingWebhookConfiguration" and webhook.get("reinvocationPolicy"):
            entry["reinvocationPolicy"] = webhook["reinvocationPolicy"]
        selector = _namespace_selector(opts)
        if selector is not None:
            entry["namespaceSelector"] = selector
        resource = {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": kind,
            "metadata": _meta(name, opts.install_namespace),
            "webhooks": [entry],
        }
        provisioner.inject_ca_bundle(resource)
        out.append(resource)
    return out


def validating_webhooks(rv1: RegistryV1, opts: Options) -> list[Manifest]:
    return _webhook_configurations(rv1, opts, "ValidatingWebhookConfiguration")


def mutating_webhooks(rv1: RegistryV1, opts: Options) -> list[Manifest]:
    return _webhook_configurations(rv1, opts, "MutatingWebhookConfiguration")


def _target_port_int(port: Any) -> int:
    """``intstr.IntValue``: an int, or a string parsed as one (0 when it is not)."""
    if isinstance(port, int):
        return port
    try:
        return int(str(port))
    except ValueError:
        return 0


def services(rv1: RegistryV1, opts: Options) -> list[Manifest]:
    ports_by_deployment: dict[str, list[dict[str, Any]]] = {}
    for webhook in webhooks(rv1):
        container_port = webhook.get("containerPort")
        port = container_port if isinstance(container_port, int) and container_port > 0 else 443
        target = webhook.get("targetPort")
        entry = {"name": str(port), "port": port, "targetPort": port if target is None else target}
        found = ports_by_deployment.setdefault(as_str(webhook.get("deploymentName")), [])
        if entry not in found:
            found.append(entry)
    out: list[Manifest] = []
    for spec_entry in deployment_specs(rv1):
        name = as_str(spec_entry.get("name"))
        if name not in ports_by_deployment:
            continue
        ports = sorted(
            ports_by_deployment[name],
            key=lambda p: (p["port"], _target_port_int(p["targetPort"])),
        )
        selector = as_dict(as_dict(spec_entry.get("spec")).get("selector")).get("matchLabels")
        provisioner = provisioner_for(name, opts.install_namespace, opts.cert_provider)
        spec: dict[str, Any] = {"ports": ports}
        if selector:
            spec["selector"] = selector
        service = {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": _meta(provisioner.service_name, opts.install_namespace),
            "spec": spec,
            "status": {"loadBalancer": {}},
        }
        provisioner.inject_ca_bundle(service)
        out.append(service)
    return out


def cert_provider_objects(rv1: RegistryV1, opts: Options) -> list[Manifest]:
    out: list[Manifest] = []
    for name in sorted(_webhook_deployments(rv1)):
        provisioner = provisioner_for(name, opts.install_namespace, opts.cert_provider)
        out.extend(provisioner.additional_objects())
    return out


# ``registryv1.ResourceGenerators``, in order.
GENERATORS: tuple[Callable[[RegistryV1, Options], list[Manifest]], ...] = (
    service_accounts,
    roles,
    cluster_roles,
    crds,
    additional_resources,
    deployments,
    validating_webhooks,
    mutating_webhooks,
    services,
    cert_provider_objects,
)
