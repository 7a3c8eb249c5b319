# ruff: noqa: E501 (one documented case per line)
"""The offline RBAC evaluator on the examples of the Kubernetes documentation.

Every object below is an example of "Using RBAC Authorization"
(https://kubernetes.io/docs/reference/access-authn-authz/rbac/) or of the ``PolicyRule`` API
reference, and every expected answer is what that page says of it (quoted in the case's note),
never what the code returns.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from olmcat.olmv1.rbac import Authority, PolicyRule, Request, covers, rules_of

# ------------------------------------------------------------------------------------------------
# "Role and ClusterRole", "RoleBinding and ClusterRoleBinding", "Referring to resources"
# ------------------------------------------------------------------------------------------------

POD_READER = """
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {namespace: default, name: pod-reader}
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "watch", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: read-pods, namespace: default}
subjects:
- {kind: User, name: jane, apiGroup: rbac.authorization.k8s.io}
roleRef: {kind: Role, name: pod-reader, apiGroup: rbac.authorization.k8s.io}
"""

SECRET_READER = """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: secret-reader}
rules:
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "watch", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: read-secrets, namespace: development}
subjects:
- {kind: User, name: dave, apiGroup: rbac.authorization.k8s.io}
roleRef: {kind: ClusterRole, name: secret-reader, apiGroup: rbac.authorization.k8s.io}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: read-secrets-global}
subjects:
- {kind: Group, name: manager, apiGroup: rbac.authorization.k8s.io}
roleRef: {kind: ClusterRole, name: secret-reader, apiGroup: rbac.authorization.k8s.io}
"""


def _role(kind: str, rules: list[dict[str, Any]], namespace: str = "") -> str:
    """A role named ``r`` with ``rules``, bound to user ``u`` (RoleBinding in ``namespace`` for a
    Role, or for a ClusterRole when ``namespace`` is given; ClusterRoleBinding otherwise)."""
    meta: dict[str, Any] = {"name": "r"}
    if kind == "Role":
        meta["namespace"] = namespace
    binding: dict[str, Any] = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding" if namespace else "ClusterRoleBinding",
        "metadata": {"name": "b", **({"namespace": namespace} if namespace else {})},
        "subjects": [{"kind": "User", "name": "u", "apiGroup": "rbac.authorization.k8s.io"}],
        "roleRef": {"kind": kind, "name": "r", "apiGroup": "rbac.authorization.k8s.io"},
    }
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta}
    return yaml.safe_dump_all([{**role, "rules": rules}, binding])


POD_AND_LOGS = _role(
    "Role",
    [{"apiGroups": [""], "resources": ["pods", "pods/log"], "verbs": ["get", "list"]}],
    "default",
)
CONFIGMAP_UPDATER = _role(
    "Role",
    [
        {
            "apiGroups": [""],
            "resources": ["configmaps"],
            "resourceNames": ["my-configmap"],
            "verbs": ["update", "get"],
        }
    ],
    "default",
)
CONFIGMAP_LISTER = _role(
    "Role",
    [
        {
            "apiGroups": [""],
            "resources": ["configmaps"],
            "resourceNames": ["my-configmap"],
            "verbs": ["list", "watch"],
        }
    ],
    "default",
)
POD_EXEC = _role(
    "Role",
    [
        {
            "apiGroups": [""],
            "resources": ["pods/exec"],
            "resourceNames": ["my-pod"],
            "verbs": ["create"],
        }
    ],
    "default",
)
SUPERUSER = _role(
    "Role", [{"apiGroups": ["example.com"], "resources": ["*"], "verbs": ["*"]}], "default"
)
NODES_IN_NAMESPACE = _role(
    "ClusterRole", [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}], "default"
)
NODES_CLUSTER = _role(
    "ClusterRole", [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]}]
)
HEALTHZ = _role(
    "ClusterRole", [{"nonResourceURLs": ["/healthz", "/healthz/*"], "verbs": ["get", "post"]}]
)
HEALTHZ_IN_NAMESPACE = _role(
    "ClusterRole", [{"nonResourceURLs": ["/healthz"], "verbs": ["get"]}], "default"
)
ALL_SCALE = _role(
    "ClusterRole", [{"apiGroups": ["apps"], "resources": ["*/scale"], "verbs": ["update"]}]
)

U = ("User", "u")

# (id, objects, subject (kind, name), request, allowed, what the documentation says)
REQUESTS: list[tuple[str, str, tuple[str, str], Request, bool]] = [
    # "grant read access to pods" in "default"; "This allows jane to read pods in the default
    # namespace."
    ("pod-reader-get", POD_READER, ("User", "jane"), Request("get", "", "pods", "default", "p"), True),
    ("pod-reader-list", POD_READER, ("User", "jane"), Request("list", "", "pods", "default"), True),
    ("pod-reader-watch", POD_READER, ("User", "jane"), Request("watch", "", "pods", "default"), True),
    ("pod-reader-delete", POD_READER, ("User", "jane"), Request("delete", "", "pods", "default", "p"), False),
    ("pod-reader-other-namespace", POD_READER, ("User", "jane"), Request("get", "", "pods", "kube-system", "p"), False),
    # a Role "can only be used to grant access to resources within a single namespace"
    ("pod-reader-all-namespaces", POD_READER, ("User", "jane"), Request("list", "", "pods", ""), False),
    ("pod-reader-other-user", POD_READER, ("User", "bob"), Request("get", "", "pods", "default", "p"), False),
    ("pod-reader-other-group", POD_READER, ("Group", "jane"), Request("get", "", "pods", "default", "p"), False),
    ("pod-reader-other-resource", POD_READER, ("User", "jane"), Request("get", "", "secrets", "default", "s"), False),
    ("pod-reader-other-group-name", POD_READER, ("User", "jane"), Request("get", "apps", "pods", "default", "p"), False),
    # "dave will only be able to read secrets in the development namespace"
    ("secret-reader-dave-development", SECRET_READER, ("User", "dave"), Request("get", "", "secrets", "development", "s"), True),
    ("secret-reader-dave-default", SECRET_READER, ("User", "dave"), Request("get", "", "secrets", "default", "s"), False),
    ("secret-reader-dave-all-namespaces", SECRET_READER, ("User", "dave"), Request("list", "", "secrets", ""), False),
    # "allows any user in the group manager to read secrets in any namespace"
    ("secret-reader-manager-any", SECRET_READER, ("Group", "manager"), Request("get", "", "secrets", "kube-system", "s"), True),
    ("secret-reader-manager-all-namespaces", SECRET_READER, ("Group", "manager"), Request("list", "", "secrets", ""), True),
    ("secret-reader-manager-write", SECRET_READER, ("Group", "manager"), Request("update", "", "secrets", "default", "s"), False),
    # "To allow a subject to read both pods and pod logs"
    ("subresource-log", POD_AND_LOGS, U, Request("get", "", "pods/log", "default", "p"), True),
    ("subresource-exec-not-granted", POD_AND_LOGS, U, Request("get", "", "pods/exec", "default", "p"), False),
    ("subresource-pods", POD_AND_LOGS, U, Request("list", "", "pods", "default"), True),
    # "To restrict a subject to only get and update a single configmap"
    ("resource-names-get", CONFIGMAP_UPDATER, U, Request("get", "", "configmaps", "default", "my-configmap"), True),
    ("resource-names-update", CONFIGMAP_UPDATER, U, Request("update", "", "configmaps", "default", "my-configmap"), True),
    ("resource-names-other", CONFIGMAP_UPDATER, U, Request("get", "", "configmaps", "default", "other"), False),
    ("resource-names-delete", CONFIGMAP_UPDATER, U, Request("delete", "", "configmaps", "default", "my-configmap"), False),
    # "You cannot restrict deletecollection or top-level create requests by resource name"
    ("resource-names-create", _role("Role", [{"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["my-configmap"], "verbs": ["create"]}], "default"), U, Request("create", "", "configmaps", "default"), False),
    # "If you restrict list or watch by resourceName, clients must include a metadata.name field
    # selector in their list or watch request"
    ("resource-names-list-unselected", CONFIGMAP_LISTER, U, Request("list", "", "configmaps", "default"), False),
    ("resource-names-list-field-selector", CONFIGMAP_LISTER, U, Request("list", "", "configmaps", "default", "my-configmap"), True),
    ("resource-names-watch-other-selector", CONFIGMAP_LISTER, U, Request("watch", "", "configmaps", "default", "other"), False),
    # "the create limitation applies only to top-level resources, not subresources. For example,
    # you can use the resourceNames field with pods/exec."
    ("resource-names-create-subresource", POD_EXEC, U, Request("create", "", "pods/exec", "default", "my-pod"), True),
    ("resource-names-create-subresource-other", POD_EXEC, U, Request("create", "", "pods/exec", "default", "your-pod"), False),
    # "allows access to perform any current and future action on all current and future resources
    # in the example.com API group"
    ("wildcard-any-verb", SUPERUSER, U, Request("frobnicate", "example.com", "widgets", "default", "w"), True),
    ("wildcard-subresource", SUPERUSER, U, Request("update", "example.com", "widgets/status", "default", "w"), True),
    ("wildcard-other-group", SUPERUSER, U, Request("get", "example.org", "widgets", "default", "w"), False),
    ("wildcard-other-namespace", SUPERUSER, U, Request("get", "example.com", "widgets", "other", "w"), False),
    # nodes: "because a Node is cluster-scoped, this must be in a ClusterRole bound with a
    # ClusterRoleBinding to be effective"
    ("cluster-scoped-via-rolebinding", NODES_IN_NAMESPACE, U, Request("get", "", "nodes", "", "n"), False),
    ("cluster-scoped-via-clusterrolebinding", NODES_CLUSTER, U, Request("get", "", "nodes", "", "n"), True),
    # "'*' in a nonResourceURL is a suffix glob match"; "must be in a ClusterRole bound with a
    # ClusterRoleBinding to be effective"
    ("non-resource-exact", HEALTHZ, U, Request("get", path="/healthz"), True),
    ("non-resource-glob", HEALTHZ, U, Request("post", path="/healthz/ready"), True),
    ("non-resource-other", HEALTHZ, U, Request("get", path="/metrics"), False),
    ("non-resource-verb", HEALTHZ, U, Request("delete", path="/healthz"), False),
    ("non-resource-no-prefix-match", HEALTHZ, U, Request("get", path="/healthzz"), False),
    ("non-resource-via-rolebinding", HEALTHZ_IN_NAMESPACE, U, Request("get", path="/healthz"), False),
    # PolicyRule.resources: "'*/foo' represents the subresource 'foo' for all resources in the
    # specified apiGroups"
    ("all-resources-subresource", ALL_SCALE, U, Request("update", "apps", "deployments/scale", "ns", "d"), True),
    ("all-resources-subresource-not-resource", ALL_SCALE, U, Request("update", "apps", "deployments", "ns", "d"), False),
    ("all-resources-subresource-other", ALL_SCALE, U, Request("update", "apps", "deployments/status", "ns", "d"), False),
]  # fmt: skip


@pytest.mark.parametrize(
    ("objects", "subject", "request_", "allowed"),
    [pytest.param(o, s, r, a, id=i) for i, o, s, r, a in REQUESTS],
)
def test_request(objects: str, subject: tuple[str, str], request_: Request, allowed: bool) -> None:
    authority = Authority.of_subject(yaml.safe_load_all(objects), *subject)
    assert authority.allows(request_) is allowed


def test_service_account_subject_needs_namespace() -> None:
    # "For the default service account in the kube-system namespace": a ServiceAccount subject
    # names its namespace; the same name in another namespace is another subject.
    objects = list(
        yaml.safe_load_all(
            _role("ClusterRole", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}])
        )
    )
    objects[1]["subjects"] = [
        {"kind": "ServiceAccount", "name": "default", "namespace": "kube-system"}
    ]
    request = Request("get", "", "pods", "x", "p")
    sa = Authority.of_subject(objects, "ServiceAccount", "default", "kube-system")
    assert sa.allows(request)
    other = Authority.of_subject(objects, "ServiceAccount", "default", "default")
    assert not other.allows(request)


# ------------------------------------------------------------------------------------------------
# "Privilege escalation prevention and bootstrapping"
# ------------------------------------------------------------------------------------------------

LIST_SECRETS = [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["list"]}]
CREATE_CLUSTERROLES = {
    "apiGroups": ["rbac.authorization.k8s.io"],
    "resources": ["clusterroles"],
    "verbs": ["create"],
}
CREATE_ROLES = {
    "apiGroups": ["rbac.authorization.k8s.io"],
    "resources": ["roles"],
    "verbs": ["create"],
}
ESCALATE = {
    "apiGroups": ["rbac.authorization.k8s.io"],
    "resources": ["clusterroles", "roles"],
    "verbs": ["escalate"],
}


def _authority(cluster: list[dict[str, Any]], **namespaced: list[dict[str, Any]]) -> Authority:
    return Authority(
        [PolicyRule.from_dict(r) for r in cluster],
        {ns: [PolicyRule.from_dict(r) for r in rules] for ns, rules in namespaced.items()},
    )


def _obj(
    kind: str, rules: list[dict[str, Any]], namespace: str = "", name: str = "new"
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": kind,
        "metadata": meta,
        "rules": rules,
    }


SECRET_CLUSTERROLE = _obj("ClusterRole", LIST_SECRETS)

# (id, authority, verb, object, resource, allowed) -- "You can only create/update a role if ...
# you already have all the permissions contained in the role, at the same scope as the object
# being modified (cluster-wide for a ClusterRole, within the same namespace or cluster-wide for a
# Role), [or] you are granted explicit permission to perform the escalate verb"
ROLE_WRITES: list[tuple[str, Authority, str, dict[str, Any], str, bool]] = [
    # "if user-1 does not have the ability to list Secrets cluster-wide, they cannot create a
    # ClusterRole containing that permission"
    ("clusterrole-without-permission", _authority([CREATE_CLUSTERROLES]), "create", SECRET_CLUSTERROLE, "clusterroles", False),
    ("clusterrole-holding-permission", _authority([CREATE_CLUSTERROLES, *LIST_SECRETS]), "create", SECRET_CLUSTERROLE, "clusterroles", True),
    ("clusterrole-holding-in-namespace-only", _authority([CREATE_CLUSTERROLES], ns=LIST_SECRETS), "create", SECRET_CLUSTERROLE, "clusterroles", False),
    ("clusterrole-escalate", _authority([CREATE_CLUSTERROLES, ESCALATE]), "create", SECRET_CLUSTERROLE, "clusterroles", True),
    # "Grant them a role that allows them to create/update Role or ClusterRole objects"
    ("clusterrole-no-create", _authority([*LIST_SECRETS]), "create", SECRET_CLUSTERROLE, "clusterroles", False),
    ("clusterrole-no-create-escalate", _authority([ESCALATE]), "create", SECRET_CLUSTERROLE, "clusterroles", False),
    # a Role: "within the same namespace or cluster-wide"
    ("role-holding-in-namespace", _authority([], ns=[CREATE_ROLES, *LIST_SECRETS]), "create", _obj("Role", LIST_SECRETS, "ns"), "roles", True),
    ("role-holding-cluster-wide", _authority([CREATE_ROLES, *LIST_SECRETS]), "create", _obj("Role", LIST_SECRETS, "ns"), "roles", True),
    ("role-holding-other-namespace", _authority([CREATE_ROLES], other=LIST_SECRETS), "create", _obj("Role", LIST_SECRETS, "ns"), "roles", False),
    ("role-escalate", _authority([CREATE_ROLES, ESCALATE]), "create", _obj("Role", LIST_SECRETS, "ns"), "roles", True),
    # "all the permissions contained in the role": one verb missing is enough to refuse
    ("role-partly-held", _authority([CREATE_ROLES, *LIST_SECRETS]), "create", _obj("Role", [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["list", "get"]}], "ns"), "roles", False),
    # a wildcard grants every current and future verb: only the same wildcard holds it
    ("role-wildcard-verb-not-held", _authority([CREATE_ROLES, {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"]}]), "create", _obj("Role", [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["*"]}], "ns"), "roles", False),
    ("role-wildcard-verb-held", _authority([CREATE_ROLES, {"apiGroups": [""], "resources": ["secrets"], "verbs": ["*"]}]), "create", _obj("Role", [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["*"]}], "ns"), "roles", True),
    ("role-named-held-by-unnamed", _authority([CREATE_ROLES, *LIST_SECRETS]), "create", _obj("Role", [{"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["s"], "verbs": ["list"]}], "ns"), "roles", True),
    ("role-unnamed-not-held-by-named", _authority([CREATE_ROLES, {"apiGroups": [""], "resources": ["secrets"], "resourceNames": ["s"], "verbs": ["list"]}]), "create", _obj("Role", LIST_SECRETS, "ns"), "roles", False),
    # update: the name is in the URL
    ("role-update-named", _authority([], ns=[{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"], "resourceNames": ["new"], "verbs": ["update"]}, *LIST_SECRETS]), "update", _obj("Role", LIST_SECRETS, "ns"), "roles", True),
    ("role-update-other-name", _authority([], ns=[{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"], "resourceNames": ["old"], "verbs": ["update"]}, *LIST_SECRETS]), "update", _obj("Role", LIST_SECRETS, "ns"), "roles", False),
]  # fmt: skip


@pytest.mark.parametrize(
    ("authority", "verb", "obj", "resource", "allowed"),
    [pytest.param(a, v, o, r, ok, id=i) for i, a, v, o, r, ok in ROLE_WRITES],
)
def test_role_write(
    authority: Authority, verb: str, obj: dict[str, Any], resource: str, allowed: bool
) -> None:
    reasons = authority.may_write(verb, obj, group="rbac.authorization.k8s.io", resource=resource)
    assert (reasons == []) is allowed, reasons


# The documentation's example: "this ClusterRole and RoleBinding would allow user-1 to grant other
# users the admin, edit, and view roles in the namespace user-1-namespace"
ROLE_GRANTOR = """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: role-grantor}
rules:
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["rolebindings"]
  verbs: ["create"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["clusterroles"]
  verbs: ["bind"]
  resourceNames: ["admin","edit","view"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: role-grantor-binding, namespace: user-1-namespace}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: role-grantor}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: user-1}
"""


def _binding(kind: str, role_kind: str, role: str, namespace: str = "") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "grant"}
    if namespace:
        meta["namespace"] = namespace
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": kind,
        "metadata": meta,
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role},
        "subjects": [{"kind": "User", "name": "user-2", "apiGroup": "rbac.authorization.k8s.io"}],
    }


GRANTOR = Authority.of_subject(yaml.safe_load_all(ROLE_GRANTOR), "User", "user-1")
SECRETS_ROLES = {
    ("ClusterRole", "", "secret-reader"): rules_of(next(yaml.safe_load_all(SECRET_READER)))
}
CREATE_CRB = {
    "apiGroups": ["rbac.authorization.k8s.io"],
    "resources": ["clusterrolebindings"],
    "verbs": ["create"],
}
READ_SECRETS = [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "watch", "list"]}]

# (id, authority, binding, resource, roles known, allowed) -- "You can only create/update a role
# binding if you already have all the permissions contained in the referenced role (at the same
# scope as the role binding) or if you have been authorized to perform the bind verb on the
# referenced role."
BINDING_WRITES: list[tuple[str, Authority, dict[str, Any], str, dict[Any, Any], bool]] = [
    ("grantor-admin", GRANTOR, _binding("RoleBinding", "ClusterRole", "admin", "user-1-namespace"), "rolebindings", {}, True),
    ("grantor-view", GRANTOR, _binding("RoleBinding", "ClusterRole", "view", "user-1-namespace"), "rolebindings", {}, True),
    ("grantor-cluster-admin", GRANTOR, _binding("RoleBinding", "ClusterRole", "cluster-admin", "user-1-namespace"), "rolebindings", {}, False),
    ("grantor-other-namespace", GRANTOR, _binding("RoleBinding", "ClusterRole", "admin", "other"), "rolebindings", {}, False),
    ("grantor-clusterrolebinding", GRANTOR, _binding("ClusterRoleBinding", "ClusterRole", "view"), "clusterrolebindings", {}, False),
    ("grantor-role-named-admin", GRANTOR, _binding("RoleBinding", "Role", "admin", "user-1-namespace"), "rolebindings", {}, False),
    # "if user-1 does not have the ability to list Secrets cluster-wide, they cannot create a
    # ClusterRoleBinding to a role that grants that permission"
    ("crb-without-permission", _authority([CREATE_CRB]), _binding("ClusterRoleBinding", "ClusterRole", "secret-reader"), "clusterrolebindings", SECRETS_ROLES, False),
    ("crb-holding-permission", _authority([CREATE_CRB, *READ_SECRETS]), _binding("ClusterRoleBinding", "ClusterRole", "secret-reader"), "clusterrolebindings", SECRETS_ROLES, True),
    ("crb-holding-in-namespace-only", _authority([CREATE_CRB], ns=READ_SECRETS), _binding("ClusterRoleBinding", "ClusterRole", "secret-reader"), "clusterrolebindings", SECRETS_ROLES, False),
    ("crb-bind", _authority([CREATE_CRB, {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"], "verbs": ["bind"], "resourceNames": ["secret-reader"]}]), _binding("ClusterRoleBinding", "ClusterRole", "secret-reader"), "clusterrolebindings", SECRETS_ROLES, True),
    ("crb-bind-other-role", _authority([CREATE_CRB, {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"], "verbs": ["bind"], "resourceNames": ["view"]}]), _binding("ClusterRoleBinding", "ClusterRole", "secret-reader"), "clusterrolebindings", SECRETS_ROLES, False),
    # "(at the same scope as the role binding)": a RoleBinding of the ClusterRole in one namespace
    # needs its permissions in that namespace only
    ("rb-holding-in-namespace", _authority([], ns=[{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["rolebindings"], "verbs": ["create"]}, *READ_SECRETS]), _binding("RoleBinding", "ClusterRole", "secret-reader", "ns"), "rolebindings", SECRETS_ROLES, True),
    ("rb-holding-other-namespace", _authority([{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["rolebindings"], "verbs": ["create"]}], other=READ_SECRETS), _binding("RoleBinding", "ClusterRole", "secret-reader", "ns"), "rolebindings", SECRETS_ROLES, False),
]  # fmt: skip


@pytest.mark.parametrize(
    ("authority", "binding", "resource", "roles", "allowed"),
    [pytest.param(a, b, r, k, ok, id=i) for i, a, b, r, k, ok in BINDING_WRITES],
)
def test_binding_write(
    authority: Authority,
    binding: dict[str, Any],
    resource: str,
    roles: dict[Any, Any],
    allowed: bool,
) -> None:
    reasons = authority.may_write(
        "create", binding, group="rbac.authorization.k8s.io", resource=resource, roles=roles
    )
    assert (reasons == []) is allowed, reasons


def test_aggregated_clusterrole_needs_full_authority() -> None:
    # An aggregated ClusterRole's rules are "filled in by the control plane" from any ClusterRole
    # its selector matches, so its creator must hold every permission (or escalate).
    aggregated = {
        "kind": "ClusterRole",
        "metadata": {"name": "monitoring"},
        "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"a": "b"}}]},
        "rules": [],
    }
    limited = _authority([CREATE_CLUSTERROLES])
    full = _authority(
        [CREATE_CLUSTERROLES, {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
         {"nonResourceURLs": ["*"], "verbs": ["*"]}]
    )  # fmt: skip
    group = "rbac.authorization.k8s.io"
    assert limited.may_write("create", aggregated, group=group, resource="clusterroles")
    assert not full.may_write("create", aggregated, group=group, resource="clusterroles")


def test_covers_counts_single_permissions() -> None:
    held = [PolicyRule(("get", "list"), ("",), ("pods",))]
    granted = [PolicyRule(("get", "list", "watch"), ("",), ("pods", "services"))]
    missing = {str(r) for r in covers(held, granted)}
    assert missing == {
        "{apiGroups='' resources=pods verbs=watch}",
        "{apiGroups='' resources=services verbs=get}",
        "{apiGroups='' resources=services verbs=list}",
        "{apiGroups='' resources=services verbs=watch}",
    }
