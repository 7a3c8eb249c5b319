"""What an admin applies to install a package with OLM v1: the ``ClusterExtension`` and a
least-privilege installer ServiceAccount.

The installer's permissions are derived from the objects operator-controller applies for the
bundle (:func:`olmcat.olmv1.render.render_bundle`) the way operator-controller itself checked them
before it applied anything, with the ``PreflightPermissions`` pre-authorizer of v1.10.0
(``internal/operator-controller/authorization/rbac.go`` and the Helm applier that calls it), and
as its guide "Derive minimal ServiceAccount required for ClusterExtension Installation and
Management" (``docs/howto/derive-service-account.md``, v1.10.0) states them:

* every object: ``get``, ``update``, ``patch`` and ``delete`` on that object by name, in its
  namespace (``objectVerbs``: they "can be restricted by resourceNames"); ``create`` on its
  resource in that namespace (``namespacedCollectionVerbs``: "you can't specify resourceNames for
  create operations since the resource doesn't exist yet"); ``list`` and ``watch`` on its resource
  in all namespaces (the Helm applier's ``WithClusterCollectionVerbs("list", "watch")``: its
  content manager watches what it applied);
* ``update`` on ``clusterextensions/finalizers`` of the extension (``extManagementPerms``: to set
  ``blockOwnerDeletion`` owner references where ``OwnerReferencesPermissionEnforcement`` is on);
* every Role, ClusterRole and binding passes Kubernetes' escalation checks
  (:mod:`olmcat.olmv1.rbac`): the installer holds every permission a role grants, at the role's
  scope -- ``escalate`` cannot be limited to the roles being made, because the name of a new role
  is not part of the create request -- and a binding to a role that is not part of the bundle
  needs ``bind`` on exactly that role.

The rules are then made minimal: a rule, verb, resource, group or name is kept only if leaving it
out denies one of those requests (a CSV's wildcard rule, which the installer must hold anyway,
makes the narrower rules it covers unnecessary).

operator-controller v1.11.0 deprecated ``spec.serviceAccount``: it "is completely ignored" and
operator-controller applies everything with its own cluster-admin ServiceAccount (and a
ValidatingAdmissionPolicy warns when the field is set). v1.0 to v1.10 require the field and use
the ServiceAccount; the stream works with both (:data:`CODE_SA_IGNORED` says so).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from olmcat.errors import InputError, UsageError
from olmcat.model.manifests import as_dict, as_list, as_str
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.olmv1.check import DEFAULT_GATES, SINGLE_OWN, dependency_reasons, provider_reasons
from olmcat.olmv1.rbac import (
    FULL_AUTHORITY,
    RBAC_GROUP,
    Authority,
    PolicyRule,
    Request,
    RoleKey,
    atomic_rules,
    rule_allows,
    rule_covers,
    rules_of,
)

if TYPE_CHECKING:
    from olmcat.model import Bundle
    from olmcat.olmv1.bundle import RegistryV1
    from olmcat.readers.source import CatalogSource

__all__ = [
    "CLUSTER_EXTENSION_API",
    "InstallResult",
    "InstallerRBAC",
    "Need",
    "install_stream",
    "installer_needs",
    "installer_rbac",
    "resource_of",
    "unmet",
]

CLUSTER_EXTENSION_API = "olm.operatorframework.io/v1"
OLM_GROUP = "olm.operatorframework.io"

# Notice codes (stable; listed in docs/notices.md).
CODE_SA_IGNORED = "olmv1.install.service-account-ignored"
CODE_GUESSED_RESOURCE = "olmv1.install.guessed-resource"
CODE_AGGREGATED = "olmv1.install.aggregated-clusterrole"
CODE_WATCH_NAMESPACE = "olmv1.install.watch-namespace"
CODE_UNPINNED = "olmv1.install.unpinned"

# Verbs on one object, which RBAC can restrict by name, and on its collection, which it cannot
# ("You cannot restrict deletecollection or top-level create requests by resource name").
OBJECT_VERBS = ("get", "update", "patch", "delete")
NAMESPACE_COLLECTION_VERBS = ("create",)
CLUSTER_COLLECTION_VERBS = ("list", "watch")

# The API resource (plural) of the kinds registry+v1 bundles ship and operator-controller makes,
# by (group, kind), and whether it is namespaced. Custom resources take theirs from the bundle's
# CustomResourceDefinitions.
_CLUSTER, _NAMESPACED = False, True
_RESOURCES: dict[tuple[str, str], tuple[str, bool]] = {
    ("", "ConfigMap"): ("configmaps", _NAMESPACED),
    ("", "Namespace"): ("namespaces", _CLUSTER),
    ("", "Secret"): ("secrets", _NAMESPACED),
    ("", "Service"): ("services", _NAMESPACED),
    ("", "ServiceAccount"): ("serviceaccounts", _NAMESPACED),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): (
        "mutatingwebhookconfigurations",
        _CLUSTER,
    ),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): (
        "validatingwebhookconfigurations",
        _CLUSTER,
    ),
    ("apiextensions.k8s.io", "CustomResourceDefinition"): ("customresourcedefinitions", _CLUSTER),
    ("apiregistration.k8s.io", "APIService"): ("apiservices", _CLUSTER),
    ("apps", "Deployment"): ("deployments", _NAMESPACED),
    ("autoscaling.k8s.io", "VerticalPodAutoscaler"): ("verticalpodautoscalers", _NAMESPACED),
    ("cert-manager.io", "Certificate"): ("certificates", _NAMESPACED),
    ("cert-manager.io", "Issuer"): ("issuers", _NAMESPACED),
    ("console.openshift.io", "ConsoleCLIDownload"): ("consoleclidownloads", _CLUSTER),
    ("console.openshift.io", "ConsoleLink"): ("consolelinks", _CLUSTER),
    ("console.openshift.io", "ConsolePlugin"): ("consoleplugins", _CLUSTER),
    ("console.openshift.io", "ConsoleQuickStart"): ("consolequickstarts", _CLUSTER),
    ("console.openshift.io", "ConsoleYAMLSample"): ("consoleyamlsamples", _CLUSTER),
    ("monitoring.coreos.com", "PodMonitor"): ("podmonitors", _NAMESPACED),
    ("monitoring.coreos.com", "PrometheusRule"): ("prometheusrules", _NAMESPACED),
    ("monitoring.coreos.com", "ServiceMonitor"): ("servicemonitors", _NAMESPACED),
    ("networking.k8s.io", "NetworkPolicy"): ("networkpolicies", _NAMESPACED),
    ("policy", "PodDisruptionBudget"): ("poddisruptionbudgets", _NAMESPACED),
    (RBAC_GROUP, "ClusterRole"): ("clusterroles", _CLUSTER),
    (RBAC_GROUP, "ClusterRoleBinding"): ("clusterrolebindings", _CLUSTER),
    (RBAC_GROUP, "Role"): ("roles", _NAMESPACED),
    (RBAC_GROUP, "RoleBinding"): ("rolebindings", _NAMESPACED),
    ("scheduling.k8s.io", "PriorityClass"): ("priorityclasses", _CLUSTER),
}


def _meta(obj: Mapping[str, Any]) -> dict[str, Any]:
    return as_dict(obj.get("metadata"))


def _group(obj: Mapping[str, Any]) -> str:
    api_version = as_str(obj.get("apiVersion"))
    return api_version.rpartition("/")[0] if "/" in api_version else ""


def _guess_plural(kind: str) -> str:
    # client-go's UnsafeGuessKindToResource, which kubectl falls back on without discovery
    lower = kind.lower()
    if lower.endswith("s"):
        return lower + "es"
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        return lower[:-1] + "ies"
    return lower + "s"


def resource_of(
    obj: Mapping[str, Any],
    crds: Sequence[Mapping[str, Any]] = (),
    notify: NoticeSink = discard,
) -> tuple[str, str, bool]:
    """(API group, resource, namespaced) of ``obj``: built-in kinds from a table, custom resources
    from a CustomResourceDefinition of ``crds`` (``spec.names.plural``, ``spec.scope``), anything
    else guessed as kubectl guesses without discovery, namespaced when the object names a
    namespace (and reported)."""
    group, kind = _group(obj), as_str(obj.get("kind"))
    known = _RESOURCES.get((group, kind))
    if known is not None:
        return group, *known
    for crd in crds:
        spec = as_dict(crd.get("spec"))
        names = as_dict(spec.get("names"))
        if as_str(spec.get("group")) == group and as_str(names.get("kind")) == kind:
            plural = as_str(names.get("plural"))
            if plural:
                return group, plural, as_str(spec.get("scope")) != "Cluster"
    plural = _guess_plural(kind)
    namespaced = bool(as_str(_meta(obj).get("namespace")))
    notify(
        Notice(
            CODE_GUESSED_RESOURCE,
            f"{kind}.{group or 'core'} {as_str(_meta(obj).get('name'))!r}: no resource known for "
            f"the kind; the installer's rules name {plural!r} (kubectl's guess), "
            f"{'namespaced' if namespaced else 'cluster-scoped'} as the object has "
            f"{'a' if namespaced else 'no'} namespace: check it with `kubectl api-resources`",
        )
    )
    return group, plural, namespaced


# ------------------------------------------------------------------------------------------------
# What the installer must be able to do
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Need:
    """One thing the installer ServiceAccount must be allowed: a request, and for a ``create``,
    ``update`` or ``patch`` of a Role, ClusterRole or binding (``obj`` set) the escalation checks
    on top."""

    request: Request
    obj: Mapping[str, Any] | None = None

    def __str__(self) -> str:
        return str(self.request)


def installer_needs(
    objects: Sequence[Mapping[str, Any]],
    extension_name: str,
    notify: NoticeSink = discard,
) -> list[Need]:
    """Everything the installer of ``objects`` (what operator-controller applies) must be allowed,
    in object order, then the extension's finalizers."""
    crds = [o for o in objects if o.get("kind") == "CustomResourceDefinition"]
    needs: list[Need] = []
    creates: set[tuple[str, str, str]] = set()
    watches: set[tuple[str, str]] = set()
    for obj in objects:
        group, resource, namespaced = resource_of(obj, crds, notify)
        # a cluster-scoped object's namespace (operator-controller writes one on webhook
        # configurations) is not part of its requests
        namespace = as_str(_meta(obj).get("namespace")) if namespaced else ""
        if not namespaced and as_str(_meta(obj).get("namespace")):
            obj = {**obj, "metadata": {k: v for k, v in _meta(obj).items() if k != "namespace"}}
        name = as_str(_meta(obj).get("name"))
        rbac = group == RBAC_GROUP
        for verb in OBJECT_VERBS:
            escalates = rbac and verb in ("update", "patch")
            needs.append(
                Need(Request(verb, group, resource, namespace, name), obj if escalates else None)
            )
        if (group, resource, namespace) not in creates or rbac:
            creates.add((group, resource, namespace))
            for verb in NAMESPACE_COLLECTION_VERBS:
                needs.append(Need(Request(verb, group, resource, namespace), obj if rbac else None))
        if (group, resource) not in watches:
            watches.add((group, resource))
            for verb in CLUSTER_COLLECTION_VERBS:
                needs.append(Need(Request(verb, group, resource)))
    needs.append(
        Need(Request("update", OLM_GROUP, "clusterextensions/finalizers", "", extension_name))
    )
    return needs


def _roles(objects: Iterable[Mapping[str, Any]]) -> dict[RoleKey, tuple[PolicyRule, ...]]:
    roles: dict[RoleKey, tuple[PolicyRule, ...]] = {}
    for obj in objects:
        kind = as_str(obj.get("kind"))
        if kind in ("Role", "ClusterRole") and _group(obj) == RBAC_GROUP:
            scope = as_str(_meta(obj).get("namespace")) if kind == "Role" else ""
            roles[(kind, scope, as_str(_meta(obj).get("name")))] = rules_of(obj)
    return roles


def unmet(
    authority: Authority,
    needs: Iterable[Need],
    objects: Iterable[Mapping[str, Any]],
) -> list[str]:
    """Each need ``authority`` does not satisfy, with Kubernetes' reason (empty: all allowed)."""
    roles = _roles(objects)
    memo: dict[Any, list[PolicyRule]] = {}
    out: list[str] = []
    for need in needs:
        request = need.request
        if need.obj is None:
            if not authority.allows(request):
                out.append(f"{request} is not allowed")
            continue
        reasons = authority.may_write(
            request.verb,
            need.obj,
            group=request.api_group,
            resource=request.resource,
            roles=roles,
            memo=memo,
        )
        out.extend(f"{request}: {reason}" for reason in reasons)
    return out


# ------------------------------------------------------------------------------------------------
# The least-privilege rules
# ------------------------------------------------------------------------------------------------


@dataclass
class _Rule:
    scope: str  # "" cluster (ClusterRole), else the namespace (Role)
    verbs: list[str]
    api_groups: list[str] = field(default_factory=list)
    resources: list[str] = field(default_factory=list)
    resource_names: list[str] = field(default_factory=list)
    non_resource_urls: list[str] = field(default_factory=list)

    def frozen(self) -> PolicyRule:
        return PolicyRule(
            tuple(self.verbs),
            tuple(self.api_groups),
            tuple(self.resources),
            tuple(self.resource_names),
            tuple(self.non_resource_urls),
        )


@dataclass(frozen=True)
class _Check:
    """One atomic requirement: some rule at ``scope`` (or cluster-wide) must satisfy it."""

    scope: str
    request: Request | None = None  # allowed by the rule
    atom: PolicyRule | None = None  # held: covered by the rule

    def by(self, rule: PolicyRule) -> bool:
        if self.request is not None:
            return rule_allows(rule, self.request)
        assert self.atom is not None
        return rule_covers(rule, self.atom)


@dataclass
class _Checks:
    """The needs as atomic checks. ``alone`` must each be satisfied; each of ``groups`` -- the
    escalation check of one role or binding write -- is satisfied by its alternative (``escalate``
    or ``bind`` allowed) or by all of its permissions held."""

    checks: list[_Check] = field(default_factory=list)
    alone: set[int] = field(default_factory=set)
    groups: list[tuple[int, list[int]]] = field(default_factory=list)
    _index: dict[_Check, int] = field(default_factory=dict)

    def add(self, check: _Check) -> int:
        index = self._index.get(check)
        if index is None:
            index = self._index[check] = len(self.checks)
            self.checks.append(check)
        return index


def _checks(needs: Sequence[Need], objects: Sequence[Mapping[str, Any]]) -> _Checks:
    """The needs as atomic checks: each request, and for a role or binding written either its
    ``escalate`` / ``bind`` request or every permission it grants, held at its scope ("Privilege
    escalation prevention and bootstrapping"); a binding of a role not among ``objects`` needs
    ``bind`` on it."""
    roles = _roles(objects)
    out = _Checks()
    for need in needs:
        request = need.request
        out.alone.add(out.add(_Check(request.namespace, request=request)))
        obj = need.obj
        if obj is None:
            continue
        namespace = request.namespace
        if request.resource in ("roles", "clusterroles"):
            granted: Sequence[PolicyRule] = rules_of(obj)
            selectors = as_list(as_dict(obj.get("aggregationRule")).get("clusterRoleSelectors"))
            if request.resource == "clusterroles" and selectors:
                granted = [*granted, *FULL_AUTHORITY]
            escalate = Request("escalate", RBAC_GROUP, request.resource, namespace, request.name)
            atoms = [out.add(_Check(namespace, atom=a)) for r in granted for a in atomic_rules(r)]
            out.groups.append((out.add(_Check(namespace, request=escalate)), atoms))
            continue
        ref = as_dict(obj.get("roleRef"))
        kind, name = as_str(ref.get("kind")), as_str(ref.get("name"))
        key: RoleKey = (kind, namespace if kind == "Role" else "", name)
        resource = "clusterroles" if kind == "ClusterRole" else "roles"
        bind = out.add(
            _Check(namespace, request=Request("bind", RBAC_GROUP, resource, namespace, name))
        )
        if key in roles:
            atoms = [
                out.add(_Check(namespace, atom=a)) for r in roles[key] for a in atomic_rules(r)
            ]
            out.groups.append((bind, atoms))
        else:
            out.alone.add(bind)
    return out


def _candidates(
    objects: Sequence[Mapping[str, Any]], needs: Sequence[Need], extension_name: str
) -> list[_Rule]:
    """Rules that satisfy every check, before minimising: the verbs on the objects, grouped;
    the finalizers; every rule of every role made, at its scope; ``bind`` on roles not made."""
    rules: list[_Rule] = []
    unnamed: dict[tuple[str, str, tuple[str, ...]], _Rule] = {}
    named: dict[tuple[str, str, str], _Rule] = {}
    for need in needs:
        r = need.request
        if r.resource == "clusterextensions/finalizers" or r.verb == "bind":
            continue
        scope = r.namespace
        if r.name:
            key = (scope, r.api_group, r.resource)
            rule = named.get(key)
            if rule is None:
                rule = named[key] = _Rule(scope, [], [r.api_group], [r.resource])
                rules.append(rule)
            if r.verb not in rule.verbs:
                rule.verbs.append(r.verb)
            if r.name not in rule.resource_names:
                rule.resource_names.append(r.name)
        else:
            verbs = CLUSTER_COLLECTION_VERBS if r.verb in CLUSTER_COLLECTION_VERBS else (r.verb,)
            ukey = (scope, r.api_group, verbs)
            rule = unnamed.get(ukey)
            if rule is None:
                rule = unnamed[ukey] = _Rule(scope, list(verbs), [r.api_group], [])
                rules.append(rule)
            if r.resource not in rule.resources:
                rule.resources.append(r.resource)
    rules.append(
        _Rule("", ["update"], [OLM_GROUP], ["clusterextensions/finalizers"], [extension_name])
    )
    checks = _checks(needs, objects)
    for index in sorted(checks.alone):
        check = checks.checks[index]
        if check.request is not None and check.request.verb == "bind":
            req = check.request
            rules.append(_Rule(check.scope, ["bind"], [RBAC_GROUP], [req.resource], [req.name]))
    for obj in objects:
        kind = as_str(obj.get("kind"))
        if kind not in ("Role", "ClusterRole") or _group(obj) != RBAC_GROUP:
            continue
        scope = as_str(_meta(obj).get("namespace")) if kind == "Role" else ""
        granted = list(rules_of(obj))
        if kind == "ClusterRole" and as_list(
            as_dict(obj.get("aggregationRule")).get("clusterRoleSelectors")
        ):
            granted.extend(FULL_AUTHORITY)
        for g in granted:
            rules.append(
                _Rule(
                    scope,
                    list(g.verbs),
                    list(g.api_groups),
                    list(g.resources),
                    list(g.resource_names),
                    list(g.non_resource_urls),
                )
            )
    return rules


def _applies(rule: _Rule, check: _Check) -> bool:
    return rule.scope in ("", check.scope)


def _minimise(rules: list[_Rule], needed: _Checks) -> list[_Rule]:
    """Leave out every rule, and then every verb, group, resource, name and URL of a rule, that
    nothing needs: each removal keeps every lone check satisfied and every escalation group
    satisfied (its alternative allowed, or all its permissions held)."""
    checks = needed.checks
    satisfied_by: list[set[int]] = [
        {i for i, rule in enumerate(rules) if _applies(rule, check) and check.by(rule.frozen())}
        for check in checks
    ]
    groups_of: dict[int, list[int]] = {}
    for g, (alternative, atoms) in enumerate(needed.groups):
        for c in (alternative, *atoms):
            groups_of.setdefault(c, []).append(g)

    def group_ok(g: int, satisfied: Callable[[int], bool]) -> bool:
        alternative, atoms = needed.groups[g]
        return satisfied(alternative) or all(satisfied(a) for a in atoms)

    def now(c: int) -> bool:
        return bool(satisfied_by[c])

    problems = [str(checks[c].request) for c in needed.alone if not now(c)]
    problems += [
        str(checks[needed.groups[g][0]].request)
        for g in range(len(needed.groups))
        if not group_ok(g, now)
    ]
    if problems:  # pragma: no cover - the candidates are built to satisfy every check
        raise AssertionError("installer rules incomplete: " + "; ".join(problems))
    by_rule: dict[int, set[int]] = {i: set() for i in range(len(rules))}
    for c, holders in enumerate(satisfied_by):
        for i in holders:
            by_rule[i].add(c)
    alive = set(range(len(rules)))

    def try_change(index: int, changed: _Rule | None) -> bool:
        """Apply ``changed`` (None: drop the rule) if every check and group still holds."""
        frozen = changed.frozen() if changed is not None else None
        still = {c for c in by_rule[index] if frozen is not None and checks[c].by(frozen)}
        lost = by_rule[index] - still

        def after(c: int) -> bool:
            return bool(satisfied_by[c] - {index}) if c in lost else bool(satisfied_by[c])

        for c in lost:
            if c in needed.alone and not after(c):
                return False
        touched = {g for c in lost for g in groups_of.get(c, ())}
        if not all(group_ok(g, after) for g in touched):
            return False
        for c in lost:
            satisfied_by[c].discard(index)
        by_rule[index] = still
        if changed is None:
            alive.discard(index)
        else:
            rules[index] = changed
        return True

    # Whole rules first, most specific first (named rules, then the rest), so that a broad rule
    # that must stay (a CSV's wildcard) takes over the narrow ones it covers.
    order = sorted(range(len(rules)), key=lambda i: (not rules[i].resource_names, i))
    for index in order:
        try_change(index, None)
    for index in sorted(alive):
        for attr in ("verbs", "api_groups", "resources", "resource_names", "non_resource_urls"):
            for value in list(getattr(rules[index], attr)):
                if len(getattr(rules[index], attr)) == 1:
                    # none left: no verb, group, resource or URL matches nothing (dropping the
                    # rule was tried), no names matches every name
                    continue
                changed = _Rule(
                    rules[index].scope,
                    list(rules[index].verbs),
                    list(rules[index].api_groups),
                    list(rules[index].resources),
                    list(rules[index].resource_names),
                    list(rules[index].non_resource_urls),
                )
                getattr(changed, attr).remove(value)
                try_change(index, changed)
    return [rules[i] for i in sorted(alive)]


_VERB_ORDER = {
    v: i for i, v in enumerate(("get", "list", "watch", "create", "update", "patch", "delete"))
}


def _merged(rules: list[_Rule]) -> list[_Rule]:
    """Rules that differ in their verbs only, then unnamed rules that differ in their resources
    only, written as one (a rule grants each verb on each resource: the same permissions)."""
    by_rest: dict[tuple[Any, ...], _Rule] = {}
    out: list[_Rule] = []
    for rule in rules:
        key = (rule.scope, *map(tuple, (rule.api_groups, rule.resources, rule.resource_names)))
        key = (*key, tuple(rule.non_resource_urls))
        kept = by_rest.get(key)
        if kept is None:
            by_rest[key] = kept = _Rule(
                rule.scope,
                [],
                list(rule.api_groups),
                list(rule.resources),
                list(rule.resource_names),
                list(rule.non_resource_urls),
            )
            out.append(kept)
        kept.verbs.extend(v for v in rule.verbs if v not in kept.verbs)
    for rule in out:
        rule.verbs.sort(key=lambda v: (_VERB_ORDER.get(v, len(_VERB_ORDER)), v))
    by_verbs: dict[tuple[Any, ...], _Rule] = {}
    final: list[_Rule] = []
    for rule in out:
        if rule.resource_names or rule.non_resource_urls:
            final.append(rule)
            continue
        vkey = (rule.scope, tuple(rule.api_groups), tuple(rule.verbs))
        kept = by_verbs.get(vkey)
        if kept is None:
            by_verbs[vkey] = rule
            final.append(rule)
        else:
            kept.resources.extend(r for r in rule.resources if r not in kept.resources)
    return final


@dataclass(frozen=True)
class InstallerRBAC:
    """The installer's least-privilege rules: cluster-wide (a ClusterRole) and per namespace (a
    Role in each)."""

    cluster: tuple[PolicyRule, ...]
    namespaced: tuple[tuple[str, tuple[PolicyRule, ...]], ...]

    def authority(self) -> Authority:
        return Authority(list(self.cluster), {ns: list(rules) for ns, rules in self.namespaced})

    def objects(self, name: str, service_account: str, namespace: str) -> list[dict[str, Any]]:
        """ClusterRole, ClusterRoleBinding, and a Role and RoleBinding per namespace, all named
        ``name``, bound to the ServiceAccount ``service_account`` in ``namespace``."""
        subject = {"kind": "ServiceAccount", "name": service_account, "namespace": namespace}
        out: list[dict[str, Any]] = []
        if self.cluster:
            out.append(_role_object("ClusterRole", name, "", self.cluster))
            out.append(_binding_object("ClusterRoleBinding", name, "", "ClusterRole", subject))
        for ns, rules in self.namespaced:
            out.append(_role_object("Role", name, ns, rules))
            out.append(_binding_object("RoleBinding", name, ns, "Role", subject))
        return out


def _role_object(
    kind: str, name: str, namespace: str, rules: Iterable[PolicyRule]
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    return {
        "apiVersion": f"{RBAC_GROUP}/v1",
        "kind": kind,
        "metadata": metadata,
        "rules": [r.to_dict() for r in rules],
    }


def _binding_object(
    kind: str, name: str, namespace: str, role_kind: str, subject: dict[str, Any]
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    return {
        "apiVersion": f"{RBAC_GROUP}/v1",
        "kind": kind,
        "metadata": metadata,
        "roleRef": {"apiGroup": RBAC_GROUP, "kind": role_kind, "name": name},
        "subjects": [subject],
    }


def installer_rbac(
    objects: Sequence[Mapping[str, Any]],
    extension_name: str,
    notify: NoticeSink = discard,
) -> InstallerRBAC:
    """The least-privilege rules of the ServiceAccount that installs ``objects`` (what
    operator-controller applies for a bundle) for the ClusterExtension ``extension_name``."""
    for obj in objects:
        selectors = as_list(as_dict(obj.get("aggregationRule")).get("clusterRoleSelectors"))
        if obj.get("kind") == "ClusterRole" and selectors:
            notify(
                Notice(
                    CODE_AGGREGATED,
                    f"ClusterRole {as_str(_meta(obj).get('name'))!r} has an aggregationRule: "
                    "Kubernetes lets only a holder of every permission (cluster-admin) or of "
                    "escalate on clusterroles create it, so the installer's ClusterRole grants "
                    "everything",
                )
            )
    needs = installer_needs(objects, extension_name, notify)
    rules = _merged(_minimise(_candidates(objects, needs, extension_name), _checks(needs, objects)))
    cluster = tuple(r.frozen() for r in rules if not r.scope)
    namespaces: dict[str, list[PolicyRule]] = {}
    for rule in rules:
        if rule.scope:
            namespaces.setdefault(rule.scope, []).append(rule.frozen())
    return InstallerRBAC(cluster, tuple((ns, tuple(rs)) for ns, rs in sorted(namespaces.items())))


# ------------------------------------------------------------------------------------------------
# The stream: Namespace, installer ServiceAccount and RBAC, ClusterExtension
# ------------------------------------------------------------------------------------------------

_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
)

# --template: values rendered as these placeholders, then written as ${VARIABLE}
_PLACEHOLDERS = {
    "NAMESPACE": "olmcat-template-namespace",
    "WATCH_NAMESPACE": "olmcat-template-watch-namespace",
    "SERVICE_ACCOUNT": "olmcat-template-service-account",
    "EXTENSION_NAME": "olmcat-template-extension-name",
}


@dataclass(frozen=True)
class InstallResult:
    """The install stream of one package and what it was made from."""

    package: str
    bundle: str
    version: str
    image: str
    extension_name: str
    namespace: str
    service_account: str
    watch_namespace: str | None
    objects: tuple[dict[str, Any], ...]  # the stream, in apply order
    rendered: tuple[dict[str, Any], ...]  # what operator-controller applies for the bundle
    rbac: InstallerRBAC
    needs: tuple[Need, ...]

    def yaml(self) -> str:
        """The stream as YAML documents (``---`` before each)."""
        from olmcat.go.yaml import dump_document

        return "".join(dump_document(obj) for obj in self.objects)


def _check_name(value: str, what: str, pattern: re.Pattern[str], limit: int) -> None:
    if len(value) > limit or not pattern.match(value):
        kind = "DNS-1123 label" if pattern is _DNS1123_LABEL else "DNS-1123 subdomain"
        raise UsageError(
            f"{what} {value!r} is not a valid {kind} (lowercase letters, digits and '-'"
            f"{', ' + repr('.') if pattern is _DNS1123_SUBDOMAIN else ''}, at most {limit} "
            "characters, starting and ending with a letter or digit)"
        )


def _refusals(
    rv1: RegistryV1, name: str, property_types: Sequence[str], cert_provider: str | None
) -> list[str]:
    """operator-controller v1.11.0's refusals before rendering (``resolve/validation.go``,
    ``applier/provider.go``), in its words: ``olmv1 check``'s rules. The install-mode gate is
    taken as on, since ``--watch-namespace`` decides a bundle without AllNamespaces here."""
    refused, _, _ = provider_reasons(
        rv1.csv_spec,
        {**DEFAULT_GATES, SINGLE_OWN: True},
        webhook_support=cert_provider is not None,
        certificate_provider=cert_provider or "",
    )
    return [r.message for r in dependency_reasons(name, property_types) + refused]


def _watch_namespace(rv1: RegistryV1, namespace: str, watch_namespace: str | None) -> str | None:
    """The ``watchNamespace`` the ClusterExtension needs, or None for all namespaces."""
    modes = rv1.supported_install_modes()
    if watch_namespace is not None:
        return watch_namespace
    if "AllNamespaces" in modes:
        return None
    if not modes & {"SingleNamespace", "OwnNamespace"}:
        raise InputError(
            f"{rv1.csv_name}: unsupported bundle: bundle must support at least one of "
            "[AllNamespaces SingleNamespace OwnNamespace] install modes"
        )
    hint = (
        f"--watch-namespace {namespace} (OwnNamespace)"
        if "OwnNamespace" in modes
        else "--watch-namespace NAMESPACE (SingleNamespace)"
    )
    raise UsageError(
        f"{rv1.csv_name}: unsupported bundle: bundle does not support AllNamespaces install mode; "
        f"with the SingleOwnNamespaceInstallSupport feature gate enabled, install it with {hint}"
    )


def _replace_strings(value: Any, replacements: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        for old, new in replacements.items():
            value = value.replace(old, new)
        return value
    if isinstance(value, dict):
        return {
            _replace_strings(k, replacements): _replace_strings(v, replacements)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_replace_strings(v, replacements) for v in value]
    return value


def resolve_bundle(
    catalog: CatalogSource,
    package: str,
    channel: str | None = None,
    version_range: str | None = None,
) -> Bundle:
    """The bundle operator-controller installs for ``packageName`` / ``channels`` / ``version``:
    the bundles of the channel (of every channel without one) whose version is in the range, then
    :func:`olmcat.model.graph.olm_v1_choice` (not deprecated first, then the highest version and
    release). The same choice as :func:`olmcat.query.answers.resolve`, worded as it words its
    errors."""
    from olmcat.model.graph import olm_v1_choice
    from olmcat.model.versions import opm_version
    from olmcat.model.versions import version_range as parse_range

    constraint = parse_range(version_range) if version_range else None
    pkg = None
    if package in catalog.package_names():
        pkg = next(iter(catalog.packages({package})), None)
    if pkg is None:
        raise InputError(f"no package {package!r} in the catalog")
    bundles = list(pkg.bundles)
    if channel is not None:
        found = pkg.channel(channel)
        if found is None:
            known = ", ".join(sorted(c.name for c in pkg.channels)) or "none"
            raise InputError(f"package {pkg.name!r} has no channel {channel!r} (channels: {known})")
        names = {e.name for e in found.entries}
        bundles = [b for b in bundles if b.name in names]
    versions = {}
    for bundle in bundles:
        version = opm_version(bundle.version)
        if version is not None and (constraint is None or constraint.contains(version)):
            versions[bundle.name] = version
    if not versions:
        what = f" matching version {version_range!r}" if version_range else ""
        where = f" in channel {channel!r}" if channel is not None else ""
        raise InputError(f"no package {package!r}{what} found{where}")
    chosen = olm_v1_choice(sorted(versions), versions, pkg.deprecated_names()[2])
    found_bundle = pkg.bundle(chosen)
    assert found_bundle is not None
    return found_bundle


def cluster_extension(
    name: str,
    package: str,
    namespace: str,
    service_account: str | None,
    *,
    channel: str | None = None,
    version_range: str | None = None,
    watch_namespace: str | None = None,
) -> dict[str, Any]:
    """A ``ClusterExtension`` (olm.operatorframework.io/v1) installing ``package`` from a catalog
    into ``namespace`` (with ``spec.serviceAccount`` unless ``service_account`` is None: v1.11.0
    ignores it, earlier releases require it); ``spec.config`` only for a watch namespace (the
    experimental API of the SingleOwnNamespaceInstallSupport feature gate)."""
    catalog: dict[str, Any] = {"packageName": package}
    if channel is not None:
        catalog["channels"] = [channel]
    if version_range is not None:
        catalog["version"] = version_range
    spec: dict[str, Any] = {"namespace": namespace}
    if service_account is not None:
        spec["serviceAccount"] = {"name": service_account}
    spec["source"] = {"sourceType": "Catalog", "catalog": catalog}
    if watch_namespace is not None:
        spec["config"] = {"configType": "Inline", "inline": {"watchNamespace": watch_namespace}}
    return {
        "apiVersion": CLUSTER_EXTENSION_API,
        "kind": "ClusterExtension",
        "metadata": {"name": name},
        "spec": spec,
    }


def install_objects(
    rendered: Sequence[Mapping[str, Any]],
    *,
    package: str,
    namespace: str,
    extension_name: str,
    service_account: str,
    channel: str | None = None,
    version_range: str | None = None,
    watch_namespace: str | None = None,
    installer: bool = True,
    notify: NoticeSink = discard,
) -> tuple[list[dict[str, Any]], InstallerRBAC, list[Need]]:
    """The stream for objects already rendered: Namespace(s), ServiceAccount, the installer's
    roles and bindings, the ClusterExtension; with the rules and the needs they were made for.
    Without ``installer`` the stream is the Namespace(s) and a ClusterExtension without
    ``spec.serviceAccount`` (what v1.11.0 needs; the rules are still computed)."""
    rbac = installer_rbac(rendered, extension_name, notify)
    needs = installer_needs(rendered, extension_name)
    namespaces = [namespace]
    if watch_namespace is not None and watch_namespace != namespace:
        namespaces.append(watch_namespace)
    objects: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}} for ns in namespaces
    ]
    if installer:
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "ServiceAccount",
                "metadata": {"name": service_account, "namespace": namespace},
            }
        )
        objects.extend(rbac.objects(f"{extension_name}-installer", service_account, namespace))
    objects.append(
        cluster_extension(
            extension_name,
            package,
            namespace,
            service_account if installer else None,
            channel=channel,
            version_range=version_range,
            watch_namespace=watch_namespace,
        )
    )
    return objects, rbac, needs


def install_stream(
    catalog: CatalogSource,
    package: str,
    namespace: str,
    *,
    channel: str | None = None,
    version_range: str | None = None,
    service_account: str | None = None,
    extension_name: str | None = None,
    watch_namespace: str | None = None,
    cert_provider: str | None = "cert-manager",
    template: bool = False,
    installer: bool = True,
    read_image: Callable[[str], RegistryV1] | None = None,
    notify: NoticeSink = discard,
) -> InstallResult:
    """What an admin applies to install ``package`` from ``catalog`` with OLM v1: the bundle is
    the one operator-controller resolves (:func:`resolve_bundle`), rendered as
    v1.11.0 renders it (:func:`olmcat.olmv1.render.render_bundle`, the watch namespace validated
    as the ClusterExtension's configuration); the installer ServiceAccount gets least-privilege
    rules for it.

    ``read_image`` reads the bundle image when the catalog holds only ``olm.csv.metadata``
    (without it, such a bundle is an error). ``cert_provider`` is the certificate provider of the
    cluster (v1.11.0's default: cert-manager; None: none, and bundles with webhooks are refused).
    With ``template`` the namespace, watch namespace, ServiceAccount and extension name are
    written as ``${NAMESPACE}``, ``${WATCH_NAMESPACE}``, ``${SERVICE_ACCOUNT}`` and
    ``${EXTENSION_NAME}``. Without ``installer`` the stream leaves out the installer
    ServiceAccount and its roles, and the ClusterExtension has no ``spec.serviceAccount``
    (operator-controller v1.11.0 ignores it and warns when it is set).
    """
    from olmcat.olmv1.bundle import from_catalog_bundle
    from olmcat.olmv1.render import render_bundle

    extension_name = extension_name or package
    service_account = service_account or f"{extension_name}-installer"
    _check_name(namespace, "namespace", _DNS1123_LABEL, 63)
    _check_name(extension_name, "extension name", _DNS1123_SUBDOMAIN, 253)
    _check_name(service_account, "service account", _DNS1123_SUBDOMAIN, 253)
    if watch_namespace is not None:
        _check_name(watch_namespace, "watch namespace", _DNS1123_LABEL, 63)

    found = resolve_bundle(catalog, package, channel, version_range)
    rv1 = from_catalog_bundle(found)
    if rv1 is None:
        if read_image is None or not found.image:
            raise InputError(
                f"bundle {found.name}: the catalog holds only its olm.csv.metadata, not its "
                "manifests, and its image could not be read"
            )
        rv1 = read_image(found.image)
    refusals = _refusals(rv1, found.name, [p.type for p in found.properties], cert_provider)
    if refusals:
        raise InputError(f"bundle {found.name}: " + "; ".join(refusals))
    watch = _watch_namespace(rv1, namespace, watch_namespace)
    values = {
        "NAMESPACE": namespace,
        "SERVICE_ACCOUNT": service_account,
        "EXTENSION_NAME": extension_name,
    }
    if watch is not None:
        values["WATCH_NAMESPACE"] = watch
    shown = {k: _PLACEHOLDERS[k] for k in values} if template else dict(values)
    if template and watch == namespace:
        shown["WATCH_NAMESPACE"] = shown["NAMESPACE"]
    rendered = render_bundle(
        rv1,
        shown["NAMESPACE"],
        watch_namespace=shown.get("WATCH_NAMESPACE"),
        cert_provider=cert_provider,
    )
    if watch is not None:
        notify(
            Notice(
                CODE_WATCH_NAMESPACE,
                f"{found.name} watches namespace {watch}: operator-controller v1.11.0 installs it "
                "only with the SingleOwnNamespaceInstallSupport feature gate (alpha, off by "
                "default), whose experimental ClusterExtension API has spec.config",
                package=package,
                bundle=found.name,
            )
        )

    objects, rbac, needs = install_objects(
        rendered,
        package=package,
        namespace=shown["NAMESPACE"],
        extension_name=shown["EXTENSION_NAME"],
        service_account=shown["SERVICE_ACCOUNT"],
        channel=channel,
        version_range=version_range,
        watch_namespace=shown.get("WATCH_NAMESPACE"),
        installer=installer,
        notify=notify,
    )
    if template:
        replacements = {_PLACEHOLDERS[k]: "${" + k + "}" for k in shown}
        objects = [_replace_strings(o, replacements) for o in objects]
    if installer:
        notify(
            Notice(
                CODE_SA_IGNORED,
                f"{found.name}: operator-controller v1.11.0 ignores spec.serviceAccount "
                "(deprecated: it applies everything with its own cluster-admin ServiceAccount "
                "and warns when the field is set); v1.0 to v1.10 require it and install with the "
                "ServiceAccount's least-privilege rules written here (--no-service-account "
                "leaves them out)",
                package=package,
                bundle=found.name,
            )
        )
    if version_range is None:
        notify(
            Notice(
                CODE_UNPINNED,
                f"the installer's rules are those of {found.name} ({found.version}); OLM v1 "
                "upgrades the extension to newer bundles of the package, which may need more: "
                f"pass --version {found.version} to pin it",
                severity="info",
                package=package,
                bundle=found.name,
            )
        )
    return InstallResult(
        package=package,
        bundle=found.name,
        version=found.version,
        image=found.image,
        extension_name=extension_name,
        namespace=namespace,
        service_account=service_account,
        watch_namespace=watch,
        objects=tuple(objects),
        rendered=tuple(rendered),
        rbac=rbac,
        needs=tuple(needs),
    )
