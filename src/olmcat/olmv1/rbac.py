"""Kubernetes RBAC, evaluated offline, as the Kubernetes documentation states it.

The reference is the page "Using RBAC Authorization"
(https://kubernetes.io/docs/reference/access-authn-authz/rbac/); each rule below cites the section
it comes from. Two questions are answered:

* :meth:`Authority.allows` -- is one API request allowed? ("Role and ClusterRole", "RoleBinding
  and ClusterRoleBinding", "Referring to resources");
* :meth:`Authority.may_write` -- may a subject create or update an object? For Roles, ClusterRoles
  and their bindings that is the request *and* the section "Privilege escalation prevention and
  bootstrapping" ("Restrictions on role creation or update", "Restrictions on role binding
  creation or update").

An :class:`Authority` is what one subject has been granted: the rules of the roles bound to it by
ClusterRoleBindings (cluster-wide) and by RoleBindings (per namespace). Nothing here talks to a
cluster; the roles a binding refers to are looked up in the ``roles`` mapping a caller passes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from olmcat.model.manifests import as_dict, as_list, as_str

__all__ = [
    "RBAC_GROUP",
    "Authority",
    "PolicyRule",
    "Request",
    "RoleKey",
    "atomic_rules",
    "covers",
    "rule_allows",
    "rule_covers",
    "rules_of",
]

RBAC_GROUP = "rbac.authorization.k8s.io"
ALL = "*"

# (kind "Role" | "ClusterRole", namespace ("" for a ClusterRole), name)
RoleKey = tuple[str, str, str]


@dataclass(frozen=True)
class PolicyRule:
    """One entry of a role's ``rules`` (``rbac.authorization.k8s.io/v1`` ``PolicyRule``)."""

    verbs: tuple[str, ...]
    api_groups: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()
    non_resource_urls: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, data: Any) -> PolicyRule:
        rule = as_dict(data)

        def strings(key: str) -> tuple[str, ...]:
            return tuple(as_str(v) for v in as_list(rule.get(key)) if isinstance(v, str))

        return cls(
            verbs=strings("verbs"),
            api_groups=strings("apiGroups"),
            resources=strings("resources"),
            resource_names=strings("resourceNames"),
            non_resource_urls=strings("nonResourceURLs"),
        )

    def to_dict(self) -> dict[str, Any]:
        """The rule as a manifest writes it (fields in the API's order, empty ones left out)."""
        out: dict[str, Any] = {}
        if self.api_groups:
            out["apiGroups"] = list(self.api_groups)
        if self.resources:
            out["resources"] = list(self.resources)
        if self.resource_names:
            out["resourceNames"] = list(self.resource_names)
        if self.non_resource_urls:
            out["nonResourceURLs"] = list(self.non_resource_urls)
        out["verbs"] = list(self.verbs)
        return out

    def __str__(self) -> str:
        parts = []
        if self.api_groups:
            parts.append("apiGroups=" + ",".join(repr(g) for g in self.api_groups))
        if self.resources:
            parts.append("resources=" + ",".join(self.resources))
        if self.resource_names:
            parts.append("resourceNames=" + ",".join(self.resource_names))
        if self.non_resource_urls:
            parts.append("nonResourceURLs=" + ",".join(self.non_resource_urls))
        parts.append("verbs=" + ",".join(self.verbs))
        return "{" + " ".join(parts) + "}"


def rules_of(role: Mapping[str, Any]) -> tuple[PolicyRule, ...]:
    """The ``rules`` of a Role or ClusterRole object."""
    return tuple(PolicyRule.from_dict(r) for r in as_list(role.get("rules")))


@dataclass(frozen=True)
class Request:
    """The attributes of one API request that RBAC decides on.

    A resource request names ``resource`` (``"deployments"``, or ``"clusterextensions/finalizers"``
    for a subresource), its API group (``""`` for the core group), the namespace (``""`` for a
    cluster-scoped object or a request across all namespaces) and the object's name (``""`` for
    create, list, watch and deletecollection: "resource names are not present in the URL" of those).
    A non-resource request sets ``path`` instead ("/healthz").
    """

    verb: str
    api_group: str = ""
    resource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""

    @property
    def is_resource_request(self) -> bool:
        return not self.path

    def __str__(self) -> str:
        if not self.is_resource_request:
            return f"{self.verb} {self.path}"
        group = self.api_group or "core"
        where = f" in namespace {self.namespace}" if self.namespace else " (cluster scope)"
        named = f" {self.name!r}" if self.name else ""
        return f"{self.verb} {self.resource}.{group}{named}{where}"


# ------------------------------------------------------------------------------------------------
# Matching one request against one rule ("Referring to resources")
# ------------------------------------------------------------------------------------------------


def _verb_matches(rule: PolicyRule, verb: str) -> bool:
    return ALL in rule.verbs or verb in rule.verbs


def _group_matches(rule: PolicyRule, group: str) -> bool:
    return ALL in rule.api_groups or group in rule.api_groups


def _resource_matches(rule: PolicyRule, resource: str) -> bool:
    # "use a slash to delimit the resource and subresource" (pods/log); "*" is every resource,
    # "*/scale" one subresource of every resource.
    _, _, subresource = resource.partition("/")
    for granted in rule.resources:
        if granted in (ALL, resource):
            return True
        if subresource and granted == "*/" + subresource:
            return True
    return False


def _name_matches(rule: PolicyRule, name: str) -> bool:
    # "For resourceNames, an empty set means that everything is allowed"; a request without a
    # name (create, list, watch, deletecollection) never matches a rule that lists names.
    return not rule.resource_names or name in rule.resource_names


def _url_matches(rule: PolicyRule, path: str) -> bool:
    # "'*' in a nonResourceURL is a suffix glob match"
    for granted in rule.non_resource_urls:
        if granted in (ALL, path):
            return True
        if granted.endswith(ALL) and path.startswith(granted.rstrip(ALL)):
            return True
    return False


def rule_allows(rule: PolicyRule, request: Request) -> bool:
    """Whether ``rule`` allows ``request`` (scope is the caller's business)."""
    if not _verb_matches(rule, request.verb):
        return False
    if not request.is_resource_request:
        return _url_matches(rule, request.path)
    return (
        _group_matches(rule, request.api_group)
        and _resource_matches(rule, request.resource)
        and _name_matches(rule, request.name)
    )


# ------------------------------------------------------------------------------------------------
# Holding a permission ("Privilege escalation prevention and bootstrapping")
# ------------------------------------------------------------------------------------------------


def atomic_rules(rule: PolicyRule) -> Iterator[PolicyRule]:
    """``rule`` as single permissions: one group, resource, verb and name (or no name) each, and one
    URL and verb each for non-resource rules. "All the permissions contained in the role" are
    these."""
    for group in rule.api_groups:
        for resource in rule.resources:
            for verb in rule.verbs:
                if rule.resource_names:
                    for name in rule.resource_names:
                        yield PolicyRule((verb,), (group,), (resource,), (name,))
                else:
                    yield PolicyRule((verb,), (group,), (resource,))
    for url in rule.non_resource_urls:
        for verb in rule.verbs:
            yield PolicyRule((verb,), non_resource_urls=(url,))


def _has_all(held: Sequence[str], wanted: Sequence[str]) -> bool:
    for w in wanted:  # noqa: SIM110 - a loop: all() over a generator is slower here
        if w not in held:
            return False
    return True


def _resources_cover(held: Sequence[str], wanted: Sequence[str]) -> bool:
    if ALL in held:
        return True
    for resource in wanted:
        if resource in held:
            continue
        _, slash, subresource = resource.partition("/")
        if not slash or "*/" + subresource not in held:
            return False
    return True


def _urls_cover(held: Sequence[str], wanted: Sequence[str]) -> bool:
    for path in wanted:
        if not any(h == path or (h.endswith(ALL) and path.startswith(h.rstrip(ALL))) for h in held):
            return False
    return True


def rule_covers(held: PolicyRule, wanted: PolicyRule) -> bool:
    """Whether holding ``held`` holds every permission of ``wanted``."""
    # A wildcard granted ("*" verb, group or resource: every current and future value) is held
    # only by the same wildcard; names listed are held by a rule without names or listing them.
    if ALL not in held.verbs and not _has_all(held.verbs, wanted.verbs):
        return False
    if ALL not in held.api_groups and not _has_all(held.api_groups, wanted.api_groups):
        return False
    if not _resources_cover(held.resources, wanted.resources):
        return False
    if wanted.resource_names:
        if held.resource_names and not _has_all(held.resource_names, wanted.resource_names):
            return False
    elif held.resource_names:
        return False
    return _urls_cover(held.non_resource_urls, wanted.non_resource_urls)


def covers(held: Iterable[PolicyRule], granted: Iterable[PolicyRule]) -> list[PolicyRule]:
    """The single permissions of ``granted`` that no rule of ``held`` covers (empty: all held)."""
    owner = list(held)
    return [
        atom
        for rule in granted
        for atom in atomic_rules(rule)
        if not any(rule_covers(h, atom) for h in owner)
    ]


FULL_AUTHORITY = (
    PolicyRule((ALL,), (ALL,), (ALL,)),
    PolicyRule((ALL,), non_resource_urls=(ALL,)),
)


# ------------------------------------------------------------------------------------------------
# A subject's authority
# ------------------------------------------------------------------------------------------------


def _namespace(obj: Mapping[str, Any]) -> str:
    return as_str(as_dict(obj.get("metadata")).get("namespace"))


def _name(obj: Mapping[str, Any]) -> str:
    return as_str(as_dict(obj.get("metadata")).get("name"))


def _is_subject(subject: Any, kind: str, name: str, namespace: str) -> bool:
    s = as_dict(subject)
    if s.get("kind") != kind or s.get("name") != name:
        return False
    return kind != "ServiceAccount" or as_str(s.get("namespace")) == namespace


@dataclass
class Authority:
    """What one subject may do: rules granted cluster-wide (through ClusterRoleBindings) and rules
    granted in one namespace (through RoleBindings there, to a Role or a ClusterRole)."""

    cluster: list[PolicyRule] = field(default_factory=list)
    namespaced: dict[str, list[PolicyRule]] = field(default_factory=dict)

    @classmethod
    def of_subject(
        cls, objects: Iterable[Mapping[str, Any]], kind: str, name: str, namespace: str = ""
    ) -> Authority:
        """The authority ``objects`` (Roles, ClusterRoles and their bindings) give one subject:
        ``kind`` "ServiceAccount" (with its ``namespace``), "User" or "Group"."""
        objs = list(objects)
        roles: dict[RoleKey, tuple[PolicyRule, ...]] = {}
        for obj in objs:
            if obj.get("kind") in ("Role", "ClusterRole"):
                scope = _namespace(obj) if obj.get("kind") == "Role" else ""
                roles[(as_str(obj.get("kind")), scope, _name(obj))] = rules_of(obj)
        authority = cls()
        for obj in objs:
            if obj.get("kind") not in ("RoleBinding", "ClusterRoleBinding"):
                continue
            if not any(_is_subject(s, kind, name, namespace) for s in as_list(obj.get("subjects"))):
                continue
            ref = as_dict(obj.get("roleRef"))
            ns = _namespace(obj) if obj.get("kind") == "RoleBinding" else ""
            ref_kind = as_str(ref.get("kind"))
            rules = roles.get((ref_kind, ns if ref_kind == "Role" else "", as_str(ref.get("name"))))
            if rules is None:
                continue
            if ns:
                authority.namespaced.setdefault(ns, []).extend(rules)
            else:
                authority.cluster.extend(rules)
        return authority

    def rules_for(self, namespace: str) -> list[PolicyRule]:
        """The rules that apply to a request in ``namespace`` ("" = cluster scope): "a
        ClusterRoleBinding may be used to grant permission at the cluster level and in all
        namespaces"; a RoleBinding grants "within the RoleBinding's namespace" only."""
        if not namespace:
            return list(self.cluster)
        return [*self.cluster, *self.namespaced.get(namespace, ())]

    def allows(self, request: Request) -> bool:
        """RBAC's decision on one request. A non-resource URL is cluster-scoped ("must be in a
        ClusterRole bound with a ClusterRoleBinding to be effective")."""
        namespace = request.namespace if request.is_resource_request else ""
        return any(rule_allows(rule, request) for rule in self.rules_for(namespace))

    def missing(self, granted: Iterable[PolicyRule], namespace: str) -> list[PolicyRule]:
        """The permissions of ``granted`` this subject does not hold at the scope of
        ``namespace`` ("cluster-wide for a ClusterRole, within the same namespace or cluster-wide
        for a Role")."""
        return covers(self.rules_for(namespace), granted)

    # --------------------------------------------------------------------------------------------

    def may_write(
        self,
        verb: str,
        obj: Mapping[str, Any],
        *,
        group: str,
        resource: str,
        roles: Mapping[RoleKey, Sequence[PolicyRule]] | None = None,
        memo: dict[Any, list[PolicyRule]] | None = None,
    ) -> list[str]:
        """Why this subject may not ``verb`` (create, update, patch) ``obj``; empty when it may.

        ``group`` and ``resource`` name the object's API resource. For Roles, ClusterRoles and their
        bindings the escalation rules apply on top of the request; ``roles`` holds the rules of the
        roles a binding may refer to (a role not in it is unknown: only ``bind`` allows binding
        it). ``memo`` keeps permissions found missing between calls on an unchanged authority.
        """
        namespace = _namespace(obj)
        name = _name(obj)
        request = Request(verb, group, resource, namespace, "" if verb == "create" else name)
        reasons = [] if self.allows(request) else [f"{request} is not allowed"]
        if group != RBAC_GROUP or verb not in ("create", "update", "patch"):
            return reasons
        if resource in ("roles", "clusterroles"):
            reasons.extend(self._role_escalation(obj, resource, namespace, request.name, memo))
        elif resource in ("rolebindings", "clusterrolebindings"):
            reasons.extend(self._binding_escalation(obj, namespace, roles or {}, memo))
        return reasons

    def _missing(
        self,
        granted: Sequence[PolicyRule],
        namespace: str,
        memo: dict[Any, list[PolicyRule]] | None,
    ) -> list[PolicyRule]:
        if memo is None:
            return self.missing(granted, namespace)
        key = (tuple(granted), namespace)
        if key not in memo:
            memo[key] = self.missing(granted, namespace)
        return memo[key]

    def _role_escalation(
        self,
        role: Mapping[str, Any],
        resource: str,
        namespace: str,
        name: str,
        memo: dict[Any, list[PolicyRule]] | None = None,
    ) -> list[str]:
        # "Restrictions on role creation or update": you can create/update a role if you already
        # have all the permissions contained in the role, at the same scope as the object being
        # modified, or you are granted the escalate verb on roles / clusterroles. The escalate
        # request carries the role's name only where the URL does (update, patch): the name of a
        # new object "may not be known at authorization time".
        if self.allows(Request("escalate", RBAC_GROUP, resource, namespace, name)):
            return []
        reasons = []
        selectors = as_list(as_dict(role.get("aggregationRule")).get("clusterRoleSelectors"))
        if resource == "clusterroles" and selectors and self.missing(FULL_AUTHORITY, ""):
            reasons.append(
                f"ClusterRole {_name(role)!r} has an aggregationRule: creating it needs every "
                "permission on every resource and URL (cluster-admin), or escalate"
            )
        absent = self._missing(rules_of(role), namespace, memo)
        if absent:
            kind = "Role" if resource == "roles" else "ClusterRole"
            reasons.append(
                f"{kind} {_name(role)!r} grants permissions not held"
                f"{' in namespace ' + namespace if namespace else ' cluster-wide'} "
                "and escalate is not allowed: " + ", ".join(str(a) for a in absent)
            )
        return reasons

    def _binding_escalation(
        self,
        binding: Mapping[str, Any],
        namespace: str,
        roles: Mapping[RoleKey, Sequence[PolicyRule]],
        memo: dict[Any, list[PolicyRule]] | None = None,
    ) -> list[str]:
        # "Restrictions on role binding creation or update": you can create/update a role binding
        # if you already have all the permissions contained in the referenced role (at the same
        # scope as the role binding) or you are authorized to perform the bind verb on the
        # referenced role (resourceNames may name the roles one may bind).
        ref = as_dict(binding.get("roleRef"))
        kind = as_str(ref.get("kind"))
        ref_name = as_str(ref.get("name"))
        resource = "clusterroles" if kind == "ClusterRole" else "roles"
        if self.allows(Request("bind", RBAC_GROUP, resource, namespace, ref_name)):
            return []
        key: RoleKey = (kind, namespace if kind == "Role" else "", ref_name)
        if key not in roles:
            return [
                f"{kind} {ref_name!r} is not known, so its permissions cannot be shown to be held, "
                "and bind on it is not allowed"
            ]
        absent = self._missing(roles[key], namespace, memo)
        if not absent:
            return []
        return [
            f"binding {kind} {ref_name!r} grants permissions not held"
            f"{' in namespace ' + namespace if namespace else ' cluster-wide'} "
            "and bind is not allowed: " + ", ".join(str(a) for a in absent)
        ]
