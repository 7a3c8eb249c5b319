"""Will operator-controller v1.11.0 install a bundle? Every reason it would refuse, as it words it.

A bundle reaches the cluster in three steps, and each can refuse it:

1. **Resolution** (``resolve/validation.go`` ``NoDependencyValidation``): a catalog bundle with
   an ``olm.package.required``, ``olm.gvk.required`` or ``olm.constraint`` property is refused
   (``olmv1.resolve.dependency-property``; v1.11.0 stops at the first such property, this check
   lists each type).
2. **The manifest provider** (``applier/provider.go``): owned APIService definitions
   (``olmv1.provider.apiservice-definitions``); webhook definitions while neither webhook
   provider gate is on (``olmv1.provider.webhooks-disabled``) or with no certificate provider
   (``olmv1.provider.no-certificate-provider``); no AllNamespaces install mode while
   ``SingleOwnNamespaceInstallSupport`` is off (``olmv1.provider.all-namespaces-required``);
   none of AllNamespaces, SingleNamespace, OwnNamespace
   (``olmv1.provider.no-supported-install-mode``). With ``SingleOwnNamespaceInstallSupport`` on,
   a bundle without AllNamespaces needs ``spec.config.inline.watchNamespace`` (v1.11.0 refuses
   the ClusterExtension without it): a *requirement*
   (``olmv1.config.watch-namespace-required``), not a refusal.
3. **The renderer's bundle validators** (``render/registryv1/validators``): the thirteen content
   checks of :mod:`olmcat.olmv1.validators`, each its own rule.

v1.11.0 reports the first refusal of the first step that refuses; this check runs them all.

Where the bundle's files are needed (webhook definitions and the content validators) and a catalog
has only ``olm.csv.metadata``, the bundle image is read; when it cannot be (offline, or
``pull=False``), the verdict is ``unknown`` and names the checks that could not run -- never a
silent yes.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from olmcat.errors import InputError, OlmcatError, UsageError
from olmcat.model import Bundle, PackageCatalog
from olmcat.model import property as prop
from olmcat.model.versions import version_key
from olmcat.notices import Notice, NoticeSink, discard

if TYPE_CHECKING:
    from olmcat.oci.options import RegistryOptions
    from olmcat.olmv1.bundle import RegistryV1

__all__ = [
    "DEFAULT_GATES",
    "OWN_RULES",
    "SCHEMA",
    "BundleCheck",
    "CheckReport",
    "Reason",
    "Rule",
    "check",
    "check_bundle",
    "check_catalog_bundle",
    "extension_config",
    "gates_text",
    "parse_feature_gates",
    "rules",
    "rules_table",
]

SCHEMA: Final = "olmcat.olmv1-check.v1"
Verdict = Literal["installable", "refused", "unknown"]
VERDICTS: tuple[Verdict, ...] = ("installable", "refused", "unknown")

# Notice codes (docs/notices.md).
CODE_IMAGE_UNREAD: Final = "olmv1.check.image-not-read"
CODE_UNREADABLE: Final = "olmv1.check.bundle-unreadable"
CODE_NO_PROPERTIES: Final = "olmv1.check.render-failed"

# ------------------------------------------------------------------------------------------------
# Feature gates (internal/operator-controller/features/features.go, v1.11.0)
# ------------------------------------------------------------------------------------------------

SINGLE_OWN: Final = "SingleOwnNamespaceInstallSupport"
CERT_MANAGER: Final = "WebhookProviderCertManager"
SERVICE_CA: Final = "WebhookProviderOpenshiftServiceCA"
DEPLOYMENT_CONFIG: Final = "DeploymentConfig"

DEFAULT_GATES: Final[Mapping[str, bool]] = {
    "BoxcutterRuntime": False,
    "BundleReleaseSupport": False,
    DEPLOYMENT_CONFIG: False,
    SINGLE_OWN: False,
    CERT_MANAGER: True,
    SERVICE_CA: True,
}

# strconv.ParseBool
_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def parse_feature_gates(specs: str | Iterable[str] | None) -> dict[str, bool]:
    """``Name=true,Name2=false`` (as ``--feature-gates`` takes it; several specs add up) over
    v1.11.0's defaults. An unknown gate or a value that is not a Go boolean is a UsageError."""
    gates = dict(DEFAULT_GATES)
    if specs is None:
        return gates
    for spec in [specs] if isinstance(specs, str) else specs:
        for item in spec.split(","):
            item = item.strip()
            if not item:
                continue
            name, sep, value = item.partition("=")
            name, value = name.strip(), value.strip()
            if name not in DEFAULT_GATES:
                known = ", ".join(sorted(DEFAULT_GATES))
                raise UsageError(f"unrecognized feature gate: {name} (known: {known})")
            if not sep:
                raise UsageError(f"missing bool value for {name}")
            if value in _TRUE:
                gates[name] = True
            elif value in _FALSE:
                gates[name] = False
            else:
                raise UsageError(
                    f"invalid value of {name}={value}, err: strconv.ParseBool: parsing "
                    f'"{value}": invalid syntax'
                )
    return gates


def gates_text(gates: Mapping[str, bool]) -> str:
    """The gates as ``--feature-gates`` takes them, names sorted."""
    return ",".join(f"{name}={'true' if gates[name] else 'false'}" for name in sorted(gates))


def cert_provider(gates: Mapping[str, bool]) -> str | None:
    """``getCertificateProvider`` of cmd/operator-controller: cert-manager first."""
    if gates.get(CERT_MANAGER):
        return "cert-manager"
    if gates.get(SERVICE_CA):
        return "openshift-service-ca"
    return None


# ------------------------------------------------------------------------------------------------
# Rules
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    name: str
    source: str  # the v1.11.0 file the check comes from
    needs_files: bool  # needs the bundle's manifests, not only the catalog's metadata
    summary: str


RULE_DEPENDENCY: Final = "olmv1.resolve.dependency-property"
RULE_APISERVICE: Final = "olmv1.provider.apiservice-definitions"
RULE_WEBHOOKS: Final = "olmv1.provider.webhooks-disabled"
RULE_NO_CERT_PROVIDER: Final = "olmv1.provider.no-certificate-provider"
RULE_ALL_NAMESPACES: Final = "olmv1.provider.all-namespaces-required"
RULE_INSTALL_MODES: Final = "olmv1.provider.no-supported-install-mode"
RULE_WATCH_NAMESPACE: Final = "olmv1.config.watch-namespace-required"
RULE_UNREADABLE: Final = "olmv1.source.unreadable"
RULE_RENDER: Final = "olmv1.render.refused"
RULE_CONFIG: Final = "olmv1.config.invalid"

_PROVIDER = "internal/operator-controller/applier/provider.go"
OWN_RULES: Final[tuple[Rule, ...]] = (
    Rule(
        RULE_DEPENDENCY,
        "dependency-property",
        "internal/operator-controller/resolve/validation.go",
        False,
        "olm.package.required, olm.gvk.required and olm.constraint properties are refused: "
        "OLM v1 resolves no dependencies",
    ),
    Rule(
        RULE_APISERVICE,
        "apiservice-definitions",
        _PROVIDER,
        False,
        "a CSV owning APIService definitions is refused",
    ),
    Rule(
        RULE_WEBHOOKS,
        "webhooks-disabled",
        _PROVIDER,
        True,
        "webhook definitions need WebhookProviderCertManager or WebhookProviderOpenshiftServiceCA",
    ),
    Rule(
        RULE_NO_CERT_PROVIDER,
        "webhooks-no-certificate-provider",
        _PROVIDER,
        True,
        "webhook support is on but no certificate provider is configured",
    ),
    Rule(
        RULE_ALL_NAMESPACES,
        "all-namespaces-required",
        _PROVIDER,
        False,
        "without SingleOwnNamespaceInstallSupport the CSV must support AllNamespaces",
    ),
    Rule(
        RULE_INSTALL_MODES,
        "no-supported-install-mode",
        _PROVIDER,
        False,
        "the CSV must support AllNamespaces, SingleNamespace or OwnNamespace",
    ),
    Rule(
        RULE_WATCH_NAMESPACE,
        "watch-namespace-required",
        "internal/operator-controller/rukpak/bundle/registryv1.go",
        False,
        "a bundle without AllNamespaces installs only with spec.config.inline.watchNamespace "
        "(a requirement, not a refusal)",
    ),
    Rule(
        RULE_CONFIG,
        "config-invalid",
        "internal/operator-controller/config/config.go",
        False,
        "the ClusterExtension's spec.config.inline does not validate against the bundle's "
        "configuration schema (only when a configuration is given)",
    ),
    Rule(
        RULE_UNREADABLE,
        "bundle-unreadable",
        "internal/operator-controller/rukpak/bundle/source/source.go",
        True,
        "the bundle's files cannot be read as operator-controller reads them",
    ),
)


def _validator_rules() -> tuple[Rule, ...]:
    """The content validators' rules, in the order :mod:`olmcat.olmv1.validators` runs them."""
    from olmcat.olmv1 import validators

    return tuple(
        Rule(
            rule_id,
            rule_id.rsplit(".", 1)[-1],
            "internal/operator-controller/rukpak/render/registryv1/validators/validator.go",
            True,
            _VALIDATOR_SUMMARIES.get(rule_id, check.__name__.replace("_", " ")),
        )
        for rule_id, check in validators.RULES.items()
    )


_VALIDATOR_SUMMARIES: Final = {
    "olmv1.bundle.duplicate-deployment-names": "two strategy deployments of one name",
    "olmv1.bundle.invalid-deployment-name": "a strategy deployment name that is no DNS-1123 "
    "subdomain",
    "olmv1.bundle.duplicate-crds": "two CustomResourceDefinitions of one name",
    "olmv1.bundle.owned-crd-missing": "a CRD the CSV owns that the bundle does not ship",
    "olmv1.bundle.package-name-empty": "no package name",
    "olmv1.bundle.conversion-webhook-install-modes": "a conversion webhook in a bundle that does "
    "not support AllNamespaces only",
    "olmv1.bundle.webhook-deployment-missing": "a webhook naming a deployment the CSV lacks",
    "olmv1.bundle.duplicate-webhook-names": "two webhooks of one type and name",
    "olmv1.bundle.invalid-webhook-name": "a webhook name that is no DNS-1123 subdomain",
    "olmv1.bundle.conversion-webhook-crd-shared": "a CRD named by two conversion webhooks",
    "olmv1.bundle.conversion-webhook-crd-not-owned": "a conversion webhook for a CRD the CSV does "
    "not own",
    "olmv1.bundle.forbidden-webhook-rule": "an admission webhook rule on API group "
    "olm.operatorframework.io or *, or on webhook configurations",
    "olmv1.bundle.unsupported-kind": "an object kind a registry+v1 bundle may not carry",
}


RENDER_RULES: Final[tuple[Rule, ...]] = (
    Rule(
        RULE_RENDER,
        "render-refused",
        "internal/operator-controller/rukpak/render/registryv1/generators/generators.go",
        True,
        "the renderer's generators refuse the bundle (e.g. a conversion webhook on a CRD with "
        "spec.preserveUnknownFields: true)",
    ),
)


def rules() -> tuple[Rule, ...]:
    """Every rule of the check, in the order v1.11.0 applies them."""
    return OWN_RULES + _validator_rules() + RENDER_RULES


# ------------------------------------------------------------------------------------------------
# Results
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reason:
    rule: str
    message: str  # worded as v1.11.0 words the error

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "message": self.message}


@dataclass(slots=True)
class BundleCheck:
    """The verdict for one bundle."""

    package: str
    name: str
    version: str = ""
    image: str = ""
    channels: tuple[str, ...] = ()
    source: str = ""  # where the bundle's facts came from (catalog objects, image, directory, ...)
    reference: str = ""  # the catalog or bundle reference it was found in
    reasons: list[Reason] = field(default_factory=list)
    requirements: list[Reason] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)  # rule IDs that could not run
    not_run_because: str = ""
    install_modes: tuple[str, ...] = ()  # the supported ones, when known

    @property
    def verdict(self) -> Verdict:
        if self.reasons:
            return "refused"
        if self.not_run:
            return "unknown"
        return "installable"

    @property
    def first(self) -> Reason | None:
        """The refusal a ClusterExtension's status would show (v1.11.0 stops at the first)."""
        return self.reasons[0] if self.reasons else None

    def summary(self) -> str:
        """The verdict as one phrase."""
        if self.verdict == "unknown":
            return (
                f"unknown: checks {_rule_list(self.not_run)} could not run because "
                f"{self.not_run_because}"
            )
        if self.verdict == "refused":
            count = len(self.reasons)
            return f"refused ({count} reason{'s' if count != 1 else ''})"
        if self.requirements:
            return "installable with " + "; ".join(r.message for r in self.requirements)
        return "installable"

    def to_json(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "name": self.name,
            "version": self.version or None,
            "image": self.image or None,
            "channels": list(self.channels),
            "source": self.source,
            "reference": self.reference,
            "verdict": self.verdict,
            "reasons": [r.to_json() for r in self.reasons],
            "requirements": [r.to_json() for r in self.requirements],
            "notRun": list(self.not_run),
            "notRunBecause": self.not_run_because or None,
            "installModes": list(self.install_modes),
        }


def _rule_list(ids: Sequence[str]) -> str:
    """Rule IDs for a sentence; the thirteen content validators, when all are listed, as one."""
    content = validator_rule_ids()
    if content and all(rule in ids for rule in content):
        shown = [rule for rule in ids if rule not in content]
        at = ids.index(content[0])
        shown.insert(at, f"the {len(content)} content validators (olmv1.bundle.*)")
        return ", ".join(shown)
    return ", ".join(ids)


@dataclass(slots=True)
class CheckReport:
    references: list[str]
    gates: dict[str, bool]
    all_bundles: bool
    bundles: list[BundleCheck]
    seconds: float = 0.0
    namespace: str = ""  # the ClusterExtension's install namespace ("" : a placeholder)
    config: Mapping[str, Any] | str | None = None  # its spec.config.inline (None: none)
    catalogs: bool = True  # a catalog was among the references (else only bundles were given)

    @property
    def scope(self) -> str:
        """Which bundles were checked."""
        if not self.catalogs:
            return "the bundles given"
        return "every bundle" if self.all_bundles else "channel heads"

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {verdict: 0 for verdict in VERDICTS}
        for item in self.bundles:
            out[item.verdict] += 1
        return out

    def by_rule(self) -> dict[str, int]:
        """Bundles refused per rule (a bundle counts once for each rule that refuses it)."""
        counted: Counter[str] = Counter()
        for item in self.bundles:
            counted.update({r.rule for r in item.reasons})
        return dict(sorted(counted.items()))

    @property
    def ok(self) -> bool:
        """Every bundle installable (the exit status 0 of the command)."""
        return all(item.verdict == "installable" for item in self.bundles)

    def summary_line(self) -> str:
        counts = self.counts()
        total = len(self.bundles)
        parts = [f"{counts[v]} {v}" for v in VERDICTS if counts[v]]
        what = "bundle" if total == 1 else "bundles"
        return f"{total} {what}: {', '.join(parts) or 'none checked'}"

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "references": list(self.references),
            "operatorController": "v1.11.0",
            "featureGates": dict(sorted(self.gates.items())),
            "bundlesChecked": self.scope,
            "installNamespace": self.namespace or None,
            "config": self.config
            if self.config is None or isinstance(self.config, str)
            else dict(self.config),
            "summary": {
                "bundles": len(self.bundles),
                **self.counts(),
                "refusedByRule": self.by_rule(),
            },
            "bundles": [item.to_json() for item in self.bundles],
        }


# ------------------------------------------------------------------------------------------------
# The checks
# ------------------------------------------------------------------------------------------------

_DEPENDENCY_TYPES: Final = (
    prop.TYPE_PACKAGE_REQUIRED,
    prop.TYPE_GVK_REQUIRED,
    prop.TYPE_CONSTRAINT,
)
_CLUSTER_SCOPED_MODES: Final = ("AllNamespaces", "SingleNamespace", "OwnNamespace")
_INSTALL_MODES: Final = ("OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces")


def dependency_reasons(name: str, property_types: Iterable[str]) -> list[Reason]:
    """``NoDependencyValidation``: one reason per dependency property type, in property order."""
    seen: list[str] = []
    for type_ in property_types:
        if type_ in _DEPENDENCY_TYPES and type_ not in seen:
            seen.append(type_)
    return [
        Reason(
            RULE_DEPENDENCY,
            f"bundle {_go_quote(name)} has a dependency declared via property "
            f"{_go_quote(type_)} which is currently not supported",
        )
        for type_ in seen
    ]


def _go_quote(text: str) -> str:
    from olmcat.olmv1.validators import go_quote

    return go_quote(text)


def _supported(install_modes: Any) -> set[str]:
    """Types the CSV lists with ``supported: true`` (the sets.New(InstallModes) membership)."""
    out: set[str] = set()
    for mode in install_modes if isinstance(install_modes, list) else []:
        if isinstance(mode, dict) and mode.get("supported") is True:
            out.add(str(mode.get("type", "")))
    return out


def _owned_apiservices(spec: Mapping[str, Any]) -> int:
    definitions = spec.get("apiservicedefinitions", spec.get("apiServiceDefinitions"))
    owned = definitions.get("owned") if isinstance(definitions, dict) else None
    return len(owned) if isinstance(owned, list) else 0


def provider_reasons(
    spec: Mapping[str, Any],
    gates: Mapping[str, bool],
    *,
    webhook_support: bool | None = None,
    certificate_provider: str | None = None,
    webhooks_known: bool = True,
) -> tuple[list[Reason], list[Reason], list[str]]:
    """``RegistryV1ManifestProvider.Get``'s refusals for a CSV ``spec`` (or an olm.csv.metadata
    value, whose keys are the same but for webhook definitions, which it lacks:
    ``webhooks_known=False``). Returns (refusals, requirements, rule IDs that could not run).

    ``webhook_support`` and ``certificate_provider`` default to what cmd/operator-controller
    derives from the gates (support = a provider is configured); ``certificate_provider=""``
    is a provider that is not set (nil)."""
    provider = (
        cert_provider(gates) if certificate_provider is None else certificate_provider or None
    )
    support = (provider is not None) if webhook_support is None else webhook_support
    refusals: list[Reason] = []
    requirements: list[Reason] = []
    not_run: list[str] = []
    if _owned_apiservices(spec):
        refusals.append(
            Reason(RULE_APISERVICE, "unsupported bundle: apiServiceDefintions are not supported")
        )
    if not webhooks_known:
        if not support:
            not_run.append(RULE_WEBHOOKS)
        elif provider is None:
            not_run.append(RULE_NO_CERT_PROVIDER)
    else:
        webhooks = spec.get("webhookdefinitions")
        if isinstance(webhooks, list) and webhooks:
            if not support:
                refusals.append(
                    Reason(
                        RULE_WEBHOOKS, "unsupported bundle: webhookDefinitions are not supported"
                    )
                )
            elif provider is None:
                refusals.append(
                    Reason(
                        RULE_NO_CERT_PROVIDER,
                        "unsupported bundle: webhookDefinitions are not supported: certificate "
                        "provider is nil",
                    )
                )
    supported = _supported(spec.get("installModes"))
    single_own = bool(gates.get(SINGLE_OWN))
    if not single_own and "AllNamespaces" not in supported:
        refusals.append(
            Reason(
                RULE_ALL_NAMESPACES,
                "unsupported bundle: bundle does not support AllNamespaces install mode",
            )
        )
    if not supported & set(_CLUSTER_SCOPED_MODES):
        refusals.append(
            Reason(
                RULE_INSTALL_MODES,
                "unsupported bundle: bundle must support at least one of [AllNamespaces "
                "SingleNamespace OwnNamespace] install modes",
            )
        )
    elif single_own and "AllNamespaces" not in supported:
        own_only = "OwnNamespace" in supported and "SingleNamespace" not in supported
        what = (
            "the install namespace (the bundle supports only OwnNamespace)"
            if own_only
            else "a namespace other than the install namespace"
            if "OwnNamespace" not in supported
            else "a namespace"
        )
        requirements.append(
            Reason(
                RULE_WATCH_NAMESPACE,
                f"spec.config.inline.watchNamespace set to {what}; without it v1.11.0 says "
                "invalid ClusterExtension configuration: invalid configuration: required field "
                '"watchNamespace" is missing',
            )
        )
    return refusals, requirements, not_run


def _validator_reasons(bundle: RegistryV1) -> list[Reason]:
    from olmcat.olmv1.validators import validate

    return [Reason(str(f.rule), str(f.message)) for f in validate(bundle)]


def validator_rule_ids() -> list[str]:
    return [rule.id for rule in _validator_rules()]


def check_bundle(
    bundle: RegistryV1,
    *,
    name: str = "",
    property_types: Iterable[str] | None = None,
    gates: Mapping[str, bool] | None = None,
    webhook_support: bool | None = None,
    certificate_provider: str | None = None,
    namespace: str = "",
    config: Mapping[str, Any] | str | None = None,
) -> BundleCheck:
    """Every refusal of a registry+v1 bundle whose files are known.

    ``name`` is the catalog bundle name (default: the CSV's name); ``property_types`` the types of
    its catalog properties (default: those the bundle carries). ``namespace`` is the
    ClusterExtension's install namespace (default: a placeholder) and ``config`` its
    ``spec.config.inline`` (a mapping or YAML/JSON text; None: no configuration)."""
    chosen = dict(DEFAULT_GATES) if gates is None else dict(gates)
    install_namespace = namespace or CHECK_NAMESPACE
    csv_name = _csv_name(bundle.csv)
    label = name or csv_name
    types = (
        [str(p.get("type", "")) for p in bundle.properties]
        if property_types is None
        else list(property_types)
    )
    spec = bundle.csv.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    result = BundleCheck(bundle.package_name, label, _csv_version(spec), source=bundle.source)
    result.reasons += dependency_reasons(label, types)
    refusals, requirements, _ = provider_reasons(
        spec, chosen, webhook_support=webhook_support, certificate_provider=certificate_provider
    )
    result.reasons += refusals
    supported = bundle.supported_install_modes()
    result.install_modes = tuple(m for m in _INSTALL_MODES if m in supported)
    options: _RenderOptions | None = _RenderOptions()
    if config is not None:
        # The configuration given decides (provider.go extractBundleConfigOptions).
        options = _config_options(supported, config, chosen, install_namespace, result)
    else:
        result.requirements += requirements
    if options is not None and options.targets is None and "AllNamespaces" not in supported:
        # No default target: rendered for the namespaces it would be configured to watch, so
        # that the generators are checked too (whether v1.11.0 gets there is decided above).
        targets = _stand_in_targets(supported, install_namespace)
        options = None if targets is None else replace(options, targets=targets)
    content = _validator_reasons(bundle)
    result.reasons += content
    if not content and options is not None:  # the generators run on a bundle the validators pass
        _render_stage(bundle, chosen, result, certificate_provider, install_namespace, options)
    return result


def extension_config(
    config: Mapping[str, Any] | str | None, watch_namespace: str | None
) -> Mapping[str, Any] | str | None:
    """The ClusterExtension's ``spec.config.inline``: ``config`` (a mapping or YAML/JSON text)
    with ``watchNamespace`` set when ``watch_namespace`` is given; None when neither is."""
    if watch_namespace is None:
        return config
    data: dict[str, Any] = {}
    if isinstance(config, str):
        from olmcat.olmv1.config import unmarshal_config

        data = dict(unmarshal_config(config, None, ""))
    elif config is not None:
        data = dict(config)
    data["watchNamespace"] = watch_namespace
    return data


def _stand_in_targets(supported: set[str], install_namespace: str) -> tuple[str, ...] | None:
    """Target namespaces a bundle without AllNamespaces supports (None: it supports none)."""
    if "OwnNamespace" in supported:
        return (install_namespace,)
    if "SingleNamespace" in supported:
        return (CHECK_WATCH_NAMESPACE,)
    if "MultiNamespace" in supported:
        return (CHECK_WATCH_NAMESPACE, f"{CHECK_WATCH_NAMESPACE}-2")
    return None


@dataclass(frozen=True, slots=True)
class _RenderOptions:
    targets: tuple[str, ...] | None = None
    deployment_config: dict[str, Any] | None = None


def _config_options(
    modes: set[str],
    config: Mapping[str, Any] | str,
    gates: Mapping[str, bool],
    install_namespace: str,
    result: BundleCheck,
) -> _RenderOptions | None:
    """``extractBundleConfigOptions``: the configuration against the bundle's schema (without
    ``deploymentConfig`` while that gate is off); a refusal when it does not validate."""
    from olmcat.olmv1.config import (
        ConfigError,
        config_schema_for_modes,
        deployment_config,
        unmarshal_config,
        watch_namespace,
    )

    text = config if isinstance(config, str) else json.dumps(dict(config))
    schema = config_schema_for_modes(modes)
    if not gates.get(DEPLOYMENT_CONFIG):
        properties = schema.get("properties")
        if isinstance(properties, dict):
            properties.pop("deploymentConfig", None)
    try:
        checked = unmarshal_config(text, schema, install_namespace)
    except ConfigError as error:
        result.reasons.append(
            Reason(RULE_CONFIG, f"invalid ClusterExtension configuration: {error}")
        )
        return None
    watched = watch_namespace(checked)
    deployment = None
    if gates.get(DEPLOYMENT_CONFIG):
        try:
            deployment = deployment_config(checked)
        except ConfigError as error:
            result.reasons.append(Reason(RULE_CONFIG, f"invalid deploymentConfig: {error}"))
            return None
    return _RenderOptions((watched,) if watched is not None else None, deployment)


CHECK_NAMESPACE: Final = "olmv1-check"  # the install namespace the render stage assumes
CHECK_WATCH_NAMESPACE: Final = "olmv1-check-watched"


def _render_stage(
    bundle: RegistryV1,
    gates: Mapping[str, bool],
    result: BundleCheck,
    certificate_provider: str | None,
    install_namespace: str,
    options: _RenderOptions,
) -> None:
    """Render the bundle as v1.11.0 would: the generators can still refuse it."""
    from olmcat.olmv1.render.renderer import render

    provider = cert_provider(gates) if certificate_provider is None else certificate_provider
    try:
        render(
            bundle,
            install_namespace,
            target_namespaces=options.targets,
            cert_provider=provider
            if provider in ("cert-manager", "openshift-service-ca")
            else None,
            deployment_config=options.deployment_config,
        )
    except OlmcatError as error:
        result.reasons += [Reason(RULE_RENDER, line) for line in str(error).splitlines() if line]
    except Exception as error:  # olmcat's renderer failed: say so, never a silent yes
        result.not_run.append(RULE_RENDER)
        result.not_run_because = f"olmcat's renderer failed: {_one_line(error)}"


def _csv_name(csv: Mapping[str, Any]) -> str:
    metadata = csv.get("metadata")
    value = metadata.get("name") if isinstance(metadata, dict) else None
    return value if isinstance(value, str) else ""


def _csv_version(spec: Mapping[str, Any]) -> str:
    value = spec.get("version")
    return value if isinstance(value, str) else ""


def _csv_metadata(bundle: Bundle) -> dict[str, Any] | None:
    for item in bundle.properties_of(prop.TYPE_CSV_METADATA):
        value = item.parsed()
        if isinstance(value, dict):
            return value
    return None


ImageReader = Callable[[str], "RegistryV1"]


def check_catalog_bundle(
    bundle: Bundle,
    *,
    gates: Mapping[str, bool] | None = None,
    read_image: ImageReader | None = None,
    channels: Sequence[str] = (),
    reference: str = "",
    notify: NoticeSink = discard,
    namespace: str = "",
    config: Mapping[str, Any] | str | None = None,
) -> BundleCheck:
    """The verdict for a catalog bundle: from its ``olm.bundle.object`` properties when the
    catalog has them, else from its image (``read_image``; None: not read) for the checks that
    need the files, and from ``olm.csv.metadata`` for the others. ``namespace`` and ``config``:
    as :func:`check_bundle`."""
    from olmcat.olmv1.bundle import from_catalog_bundle

    chosen = dict(DEFAULT_GATES) if gates is None else dict(gates)
    types = [p.type for p in bundle.properties]
    base = BundleCheck(
        bundle.package,
        bundle.name,
        bundle.version,
        bundle.image,
        tuple(channels),
        reference=reference,
    )
    failure = objects_failure = ""
    try:
        registry_v1 = from_catalog_bundle(bundle)
    except OlmcatError as error:
        registry_v1, objects_failure = None, _one_line(error)
    if registry_v1 is not None:
        return _merged(
            base,
            check_bundle(
                registry_v1,
                name=bundle.name,
                property_types=types,
                gates=chosen,
                namespace=namespace,
                config=config,
            ),
            "catalog (olm.bundle.object)",
        )
    if read_image is not None and bundle.image:
        try:
            registry_v1 = read_image(bundle.image)
        except (OlmcatError, OSError) as error:
            failure = _one_line(error)
            notify(
                Notice(
                    CODE_IMAGE_UNREAD,
                    f"bundle {bundle.name}: the catalog has no usable olm.bundle.object and its "
                    f"image {bundle.image} could not be read ({failure}): the checks that need "
                    "the bundle's files did not run",
                    package=bundle.package,
                    bundle=bundle.name,
                    file=reference,
                )
            )
        else:
            return _merged(
                base,
                check_bundle(
                    registry_v1,
                    name=bundle.name,
                    property_types=types,
                    gates=chosen,
                    namespace=namespace,
                    config=config,
                ),
                f"image {bundle.image}",
            )
    # The metadata alone: dependency properties, APIService definitions and install modes.
    metadata = _csv_metadata(bundle)
    base.reasons += dependency_reasons(bundle.name, types)
    if metadata is None:
        base.source = "catalog properties only"
        spec: dict[str, Any] = {}
        not_run = [RULE_APISERVICE, RULE_ALL_NAMESPACES, RULE_INSTALL_MODES]
    else:
        base.source = "catalog (olm.csv.metadata)"
        spec = metadata
        modes = _supported(spec.get("installModes"))
        base.install_modes = tuple(m for m in _INSTALL_MODES if m in modes)
        not_run = []
    if metadata is not None:
        refusals, requirements, missing = provider_reasons(spec, chosen, webhooks_known=False)
        base.reasons += refusals
        not_run += missing
        if config is None:
            base.requirements += requirements
        else:
            _config_options(
                _supported(spec.get("installModes")),
                config,
                chosen,
                namespace or CHECK_NAMESPACE,
                base,
            )
    else:
        provider = cert_provider(chosen)
        if provider is None:
            not_run.insert(1, RULE_WEBHOOKS)
    not_run += [*validator_rule_ids(), RULE_RENDER]
    base.not_run = not_run
    if objects_failure:
        why = f"the catalog's olm.bundle.object cannot be read ({objects_failure})"
    else:
        why = "the catalog has no olm.bundle.object"
    if failure:
        why += f" and the bundle image could not be read: {failure}"
    elif not bundle.image:
        why += " and the bundle has no image"
    elif read_image is None:
        why += " and the bundle image was not read (offline)"
    base.not_run_because = why
    if not failure:  # (a failed read was reported as it happened)
        notify(
            Notice(
                CODE_IMAGE_UNREAD,
                f"bundle {bundle.name}: {why}: the checks that need the bundle's files did not run",
                package=bundle.package,
                bundle=bundle.name,
                file=reference,
            )
        )
    return base


def _merged(base: BundleCheck, found: BundleCheck, source: str) -> BundleCheck:
    base.reasons = found.reasons
    base.requirements = found.requirements
    base.not_run = found.not_run
    base.not_run_because = found.not_run_because
    base.install_modes = found.install_modes
    base.source = source
    if not base.version:
        base.version = found.version
    return base


def _one_line(error: BaseException) -> str:
    text = (
        str(error)
        if isinstance(error, OlmcatError)
        else (getattr(error, "strerror", None) or str(error))
    )
    return " ".join(str(text).split()) or type(error).__name__


# ------------------------------------------------------------------------------------------------
# References: bundle directories, bundle images, catalogs
# ------------------------------------------------------------------------------------------------


def _is_bundle_image(reference: str, platform: str | None, options: Any) -> bool | None:
    """Whether an image reference names a bundle image (its bundle label); None: not an image."""
    from olmcat.oci.transport import parse_location
    from olmcat.readers.bundlerender import BUNDLE_LABEL

    location = parse_location(reference)
    path = Path(reference)
    if location is None:
        from olmcat.oci.archive import is_image_archive

        if not (path.exists() and is_image_archive(path)):
            return None
    if location is not None and location.is_registry:
        from olmcat.oci.options import current_options
        from olmcat.oci.pull import resolve_image
        from olmcat.oci.registry import RegistryPool

        ref = location.reference
        assert ref is not None
        repository = f"{ref.namespace}/{ref.name}" if ref.namespace else ref.name
        with RegistryPool(options or current_options()) as pool:
            image = resolve_image(
                pool.get(ref.registry), repository, ref.digest or ref.tag, platform
            )
            return BUNDLE_LABEL in image.labels
    from olmcat.oci.archive import open_image

    if location is not None:
        assert location.path is not None
        if not location.path.exists():
            raise InputError(f"{reference}: {location.path} does not exist")
        with open_image(location.path, platform=platform, ref=location.ref) as opened:
            return BUNDLE_LABEL in opened.labels
    with open_image(path, platform=platform) as opened:
        return BUNDLE_LABEL in opened.labels


def _bundle_properties(reference: str, platform: str | None, notify: NoticeSink) -> Bundle | None:
    """The bundle as ``opm render`` puts it in a catalog (its dependency properties come from the
    CSV's required APIs and metadata/dependencies.yaml); None when opm would not render it."""
    from olmcat.readers.bundlerender import render_source

    try:
        return render_source(reference, platform=platform, notify=discard)
    except OlmcatError as error:
        notify(
            Notice(
                CODE_NO_PROPERTIES,
                f"{reference}: opm render refuses the bundle ({_one_line(error)}): its dependency "
                "properties are taken from metadata/properties.yaml only",
                file=reference,
            )
        )
        return None


def _check_bundle_reference(
    reference: str,
    gates: Mapping[str, bool],
    *,
    platform: str | None,
    options: Any,
    notify: NoticeSink,
    image: bool,
    namespace: str = "",
    config: Mapping[str, Any] | str | None = None,
) -> BundleCheck:
    from olmcat.olmv1.bundle import read_bundle

    rendered = _bundle_properties(reference, platform, notify)
    try:
        registry_v1 = read_bundle(reference, platform=platform, options=options, notify=notify)
    except (OlmcatError, OSError) as error:
        message = _one_line(error)
        notify(
            Notice(
                CODE_UNREADABLE,
                f"{reference}: operator-controller could not read the bundle: {message}",
                severity="error",
                file=reference,
            )
        )
        name = rendered.name if rendered is not None else Path(reference).name
        result = BundleCheck(
            rendered.package if rendered is not None else "",
            name,
            rendered.version if rendered is not None else "",
            source="bundle",
            reference=reference,
        )
        result.reasons.append(Reason(RULE_UNREADABLE, message))
        return result
    if rendered is not None:
        types: list[str] = [p.type for p in rendered.properties]
        name = rendered.name
    else:
        types = [str(p.get("type", "")) for p in registry_v1.properties]
        name = ""
    result = check_bundle(
        registry_v1,
        name=name,
        property_types=types,
        gates=gates,
        namespace=namespace,
        config=config,
    )
    result.reference = reference
    result.image = rendered.image if rendered is not None else ""
    result.source = "bundle image" if image else "bundle directory"
    return result


def _heads(pkg: PackageCatalog) -> dict[str, list[str]]:
    """Channel heads -> the channels they head (every head of a channel with several)."""
    out: dict[str, list[str]] = {}
    for channel in sorted(pkg.channels, key=lambda c: c.name):
        for head in channel.heads():
            out.setdefault(head, []).append(channel.name)
    return out


def _channels_of(pkg: PackageCatalog) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for channel in sorted(pkg.channels, key=lambda c: c.name):
        for entry in channel.entries:
            names = out.setdefault(entry.name, [])
            if channel.name not in names:
                names.append(channel.name)
    return out


def catalog_bundles(
    pkg: PackageCatalog, *, all_bundles: bool = False
) -> Iterator[tuple[Bundle, list[str]]]:
    """The bundles to check in a package (channel heads, or all) with their channels, by
    version."""
    chosen = _channels_of(pkg) if all_bundles else _heads(pkg)
    found = [(b, chosen[b.name]) for b in pkg.bundles if b.name in chosen]
    found.sort(key=lambda item: version_key(_version(item[0]), item[0].name))
    yield from found


def _version(bundle: Bundle) -> Any:
    from olmcat.model.versions import opm_version

    return opm_version(bundle.version)


def check_package(
    pkg: PackageCatalog,
    *,
    gates: Mapping[str, bool] | None = None,
    all_bundles: bool = False,
    read_image: ImageReader | None = None,
    reference: str = "",
    notify: NoticeSink = discard,
    namespace: str = "",
    config: Mapping[str, Any] | str | None = None,
) -> list[BundleCheck]:
    return [
        check_catalog_bundle(
            bundle,
            gates=gates,
            read_image=read_image,
            channels=channels,
            reference=reference,
            notify=notify,
            namespace=namespace,
            config=config,
        )
        for bundle, channels in catalog_bundles(pkg, all_bundles=all_bundles)
    ]


def image_reader(
    *,
    platform: str | None = None,
    options: RegistryOptions | None = None,
    notify: NoticeSink = discard,
) -> ImageReader:
    """Reads bundle images through olmcat's registry support; a registry that failed once is
    not asked again in the same run (its error is repeated)."""
    from olmcat.oci.transport import parse_location
    from olmcat.olmv1.bundle import read_bundle_image

    failed: dict[str, str] = {}

    def read(image: str) -> RegistryV1:
        location = parse_location(image)
        host = ""
        if location is not None and location.reference is not None:
            host = location.reference.registry
        if host in failed:
            raise InputError(failed[host])
        try:
            return read_bundle_image(image, platform=platform, options=options, notify=notify)
        except (OlmcatError, OSError) as error:
            if host and _unreachable(error):
                failed[host] = f"registry {host} unreachable: {_one_line(error)}"
            raise

    return read


def _unreachable(error: BaseException) -> bool:
    text = str(error).lower()
    return isinstance(error, OSError) or any(
        word in text
        for word in ("connect", "resolve", "unreachable", "timed out", "name or service", "network")
    )


def check(
    references: Sequence[str | Path],
    *,
    packages: Collection[str] | None = None,
    all_bundles: bool = False,
    gates: Mapping[str, bool] | str | None = None,
    pull: bool = True,
    platform: str | None = None,
    registry: RegistryOptions | None = None,
    notify: NoticeSink = discard,
    namespace: str = "",
    config: Mapping[str, Any] | str | None = None,
) -> CheckReport:
    """``olmcat olmv1 check``: the verdict of operator-controller v1.11.0 for each bundle.

    Each reference is a bundle directory, a bundle image (registry or archive) or any catalog
    (:func:`olmcat.readers.catalog.open_catalog`); of a catalog, the channel heads are checked
    (``all_bundles``: every bundle), of the ``packages`` named (default: all). ``gates`` are the
    feature gates (a mapping, or ``Name=true,...`` text) over v1.11.0's defaults. ``pull``: read a
    bundle image when the catalog has only ``olm.csv.metadata``. ``namespace`` and ``config``:
    the ClusterExtension's install namespace and ``spec.config.inline`` (see
    :func:`check_bundle`)."""
    from olmcat.readers.bundlefiles import is_bundle_dir
    from olmcat.readers.catalog import open_catalog

    started = time.perf_counter()
    chosen = parse_feature_gates(gates) if gates is None or isinstance(gates, str) else dict(gates)
    for name in chosen:
        if name not in DEFAULT_GATES:
            raise UsageError(f"unrecognized feature gate: {name}")
    chosen = {**DEFAULT_GATES, **chosen}
    wanted = set(packages) if packages else None
    reader = image_reader(platform=platform, options=registry, notify=notify) if pull else None
    results: list[BundleCheck] = []
    seen_packages: set[str] = set()
    catalogs = False
    for reference in references:
        text = str(reference)
        path = Path(text)
        bundle_dir = path.is_dir() and is_bundle_dir(path)
        if bundle_dir or (text != "-" and _is_bundle_image(text, platform, registry)):
            found = _check_bundle_reference(
                text,
                chosen,
                platform=platform,
                options=registry,
                notify=notify,
                image=not bundle_dir,
                namespace=namespace,
                config=config,
            )
            seen_packages.add(found.package)
            if wanted is None or found.package in wanted:
                results.append(found)
            continue
        catalogs = True
        with open_catalog(
            text, notify=notify, permissive=True, platform=platform, registry=registry
        ) as catalog:
            names = catalog.package_names()
            seen_packages.update(names)
            only = (set(names) & wanted) if wanted is not None else None
            if only is not None and not only:
                continue
            for pkg in catalog.packages(only):
                results += check_package(
                    pkg,
                    gates=chosen,
                    all_bundles=all_bundles,
                    read_image=reader,
                    reference=text,
                    notify=notify,
                    namespace=namespace,
                    config=config,
                )
    if wanted is not None:
        missing = sorted(wanted - seen_packages)
        if missing:
            raise InputError(
                f"no package {', '.join(repr(m) for m in missing)} in "
                f"{', '.join(str(r) for r in references)}"
            )
    return CheckReport(
        [str(r) for r in references],
        chosen,
        all_bundles,
        results,
        time.perf_counter() - started,
        namespace,
        config,
        catalogs,
    )


def rules_table() -> str:
    """Every rule, one line each: ID, what it refuses, the v1.11.0 file it comes from."""
    listed = rules()
    width = max(len(rule.id) for rule in listed)
    lines = [f"{'RULE'.ljust(width)}  FILES  WHAT IT REFUSES (v1.11.0 SOURCE)"]
    for rule in listed:
        files = "yes" if rule.needs_files else "no"
        lines.append(f"{rule.id.ljust(width)}  {files.ljust(5)}  {rule.summary} ({rule.source})")
    return "\n".join(lines) + "\n"
