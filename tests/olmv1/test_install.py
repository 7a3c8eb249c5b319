# ruff: noqa: E501 (one rule or case per line)
"""The OLM v1 install stream: the installer's least-privilege rules and the ClusterExtension.

The rules are checked with the offline RBAC evaluator (tests/olmv1/test_rbac.py checks that on
the Kubernetes documentation's examples): sufficient (every request operator-controller's
pre-authorizer made for each object, and every create / update of a role or binding under
Kubernetes' escalation rules, is allowed) and minimal (leaving out any rule, or any verb, group,
resource or name of a rule, denies one of them). Every object validates against the Kubernetes
1.33 schemas and the ClusterExtension against operator-controller v1.11.0's CRD.
"""

from __future__ import annotations

from typing import Any

import pytest

from olmcat.errors import InputError, UsageError
from olmcat.notices import NoticeLog
from olmcat.olmv1.install import (
    CODE_GUESSED_RESOURCE,
    CODE_SA_IGNORED,
    CODE_UNPINNED,
    install_objects,
    install_stream,
    installer_needs,
    installer_rbac,
)
from olmcat.olmv1.rbac import Request
from olmcat.readers.catalog import open_catalog
from tests.support.install_checks import insufficient, not_minimal, schema_errors
from tests.support.paths import FIXTURES

NS = "operators"
RBAC = "rbac.authorization.k8s.io/v1"


def _obj(api: str, kind: str, name: str, namespace: str | None = NS, **rest: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": api, "kind": kind, "metadata": meta, **rest}


def _sa_binding(
    kind: str, name: str, role_kind: str, role: str, namespace: str | None
) -> dict[str, Any]:
    return _obj(
        RBAC,
        kind,
        name,
        namespace,
        roleRef={"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role},
        subjects=[{"kind": "ServiceAccount", "name": "op", "namespace": NS}],
    )


CLUSTER_RULES = [
    {"apiGroups": ["example.com"], "resources": ["widgets", "widgets/status"], "verbs": ["*"]},
    {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]},
    {"nonResourceURLs": ["/metrics"], "verbs": ["get"]},
]
NS_RULES = [
    {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"]},
    {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["*"]},
]  # fmt: skip

# What operator-controller applies for an operator: a CRD, the controller's ServiceAccount,
# ClusterRole and Role from the CSV's permissions (hashed names) with their bindings, bindings to
# roles the cluster has (not in the bundle), a Deployment, a Service, a ConfigMap, a webhook
# configuration, a PriorityClass and a cluster-scoped kind no table knows.
RENDERED: list[dict[str, Any]] = [
    _obj(
        "apiextensions.k8s.io/v1",
        "CustomResourceDefinition",
        "widgets.example.com",
        None,
        spec={"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}},
    ),
    _obj("v1", "ServiceAccount", "op"),
    _obj(RBAC, "ClusterRole", "op.v1-3x1ab", None, rules=CLUSTER_RULES),
    _sa_binding("ClusterRoleBinding", "op.v1-3x1ab", "ClusterRole", "op.v1-3x1ab", None),
    _obj(RBAC, "Role", "op.v1-9zq2c", rules=NS_RULES),
    _sa_binding("RoleBinding", "op.v1-9zq2c", "Role", "op.v1-9zq2c", NS),
    _sa_binding("ClusterRoleBinding", "op-auth-delegator", "ClusterRole", "system:auth-delegator", None),
    _sa_binding("RoleBinding", "op-view", "ClusterRole", "view", NS),
    _obj("apps/v1", "Deployment", "op-controller"),
    _obj("v1", "Service", "op-metrics"),
    _obj("v1", "ConfigMap", "op-config"),
    _obj("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "vwidgets.example.com", None),
    _obj("scheduling.k8s.io/v1", "PriorityClass", "op-critical", None),
    _obj("example.org/v1", "Frobby", "frob", None),
]  # fmt: skip


def test_rules_are_sufficient_and_minimal() -> None:
    log = NoticeLog()
    rbac = installer_rbac(RENDERED, "op", log)
    needs = installer_needs(RENDERED, "op")
    assert insufficient(rbac, needs, RENDERED) == []
    assert not_minimal(rbac, needs, RENDERED) == []
    # "frobbies", kubectl's guess for a kind it cannot look up, is reported
    assert [n.code for n in log.notices] == [CODE_GUESSED_RESOURCE]
    assert "'frobbies'" in log.notices[0].message


def test_escalation_and_bind() -> None:
    rbac = installer_rbac(RENDERED, "op")
    cluster = [r.to_dict() for r in rbac.cluster]
    namespaced = dict(rbac.namespaced)
    role = [r.to_dict() for r in namespaced[NS]]
    everything = cluster + role
    # never escalate (it cannot be limited to the roles being made on create)
    assert not any("escalate" in r["verbs"] for r in everything)
    # bind exactly on the roles the bundle binds but does not ship, at the binding's scope
    binds = [r for r in everything if "bind" in r["verbs"]]
    assert {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"], "resourceNames": ["system:auth-delegator"], "verbs": ["bind"]} in cluster  # fmt: skip
    assert {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"], "resourceNames": ["view"], "verbs": ["bind"]} in role  # fmt: skip
    assert len(binds) == 2
    # the generated roles' permissions are held at their scope: the wildcard on widgets
    # cluster-wide, the leases wildcard in the namespace only
    assert {"apiGroups": ["example.com"], "resources": ["widgets", "widgets/status"], "verbs": ["*"]} in cluster  # fmt: skip
    assert {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["*"]} in role  # fmt: skip
    assert not any("leases" in r.get("resources", []) for r in cluster)
    assert {"nonResourceURLs": ["/metrics"], "verbs": ["get"]} in cluster
    # "create" is never restricted by name; get/update/patch/delete always are, except where a
    # held rule already allows them
    for rule in everything:
        if "create" in rule["verbs"]:
            assert "resourceNames" not in rule, rule
    assert {"apiGroups": ["olm.operatorframework.io"], "resources": ["clusterextensions/finalizers"], "resourceNames": ["op"], "verbs": ["update"]} in cluster  # fmt: skip


def test_removing_the_role_permission_denies_creating_the_role() -> None:
    # "You can only create/update a role if ... you already have all the permissions contained in
    # the role": without the leases wildcard the generated Role cannot be created
    rbac = installer_rbac(RENDERED, "op")
    needs = installer_needs(RENDERED, "op")
    authority = rbac.authority()
    authority.namespaced[NS] = [r for r in authority.namespaced[NS] if "leases" not in r.resources]
    from olmcat.olmv1.install import unmet

    problems = unmet(authority, needs, RENDERED)
    assert problems and all("op.v1-9zq2c" in p for p in problems)


HELLO_CLUSTER = [
    {
        "apiGroups": ["apiextensions.k8s.io"],
        "resources": ["customresourcedefinitions"],
        "resourceNames": ["hellos.example.com"],
        "verbs": ["get", "update", "patch", "delete"],
    },
    {
        "apiGroups": ["apiextensions.k8s.io"],
        "resources": ["customresourcedefinitions"],
        "verbs": ["list", "watch", "create"],
    },
    {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["list", "watch"]},
    {
        "apiGroups": ["olm.operatorframework.io"],
        "resources": ["clusterextensions/finalizers"],
        "resourceNames": ["hello-operator"],
        "verbs": ["update"],
    },
]
HELLO_ROLE = [
    {"apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": ["hello-operator-controller-manager"], "verbs": ["get", "update", "patch", "delete"]},
    {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["create"]},
]  # fmt: skip


@pytest.fixture(scope="module")
def fixture_catalog(tmp_path_factory: pytest.TempPathFactory) -> str:
    from olmcat.migrate import migrate_sqlite

    out = tmp_path_factory.mktemp("olmv1") / "catalog"
    migrate_sqlite(str(FIXTURES / "example" / "sqlite" / "schema-13.db"), out)
    return str(out)


def test_fixture_stream(fixture_catalog: str) -> None:
    # hello-operator's newest bundle (0.3.0, channel beta) ships a CRD and a Deployment; the rules
    # are those the v1.10.0 pre-authorizer asked for, by hand: get/update/patch/delete by name,
    # create in the object's namespace, list/watch cluster-wide, the finalizers by name
    log = NoticeLog()
    with open_catalog(fixture_catalog) as catalog:
        result = install_stream(catalog, "hello-operator", "hello", notify=log)
    assert result.bundle == "hello-operator.v0.3.0"
    kinds = [(o["kind"], o["metadata"]["name"]) for o in result.objects]
    assert kinds == [
        ("Namespace", "hello"),
        ("ServiceAccount", "hello-operator-installer"),
        ("ClusterRole", "hello-operator-installer"),
        ("ClusterRoleBinding", "hello-operator-installer"),
        ("Role", "hello-operator-installer"),
        ("RoleBinding", "hello-operator-installer"),
        ("ClusterExtension", "hello-operator"),
    ]
    assert sorted(map(str, result.objects[2]["rules"])) == sorted(map(str, HELLO_CLUSTER))
    assert sorted(map(str, result.objects[4]["rules"])) == sorted(map(str, HELLO_ROLE))
    assert result.objects[-1] == {
        "apiVersion": "olm.operatorframework.io/v1",
        "kind": "ClusterExtension",
        "metadata": {"name": "hello-operator"},
        "spec": {
            "namespace": "hello",
            "serviceAccount": {"name": "hello-operator-installer"},
            "source": {"sourceType": "Catalog", "catalog": {"packageName": "hello-operator"}},
        },
    }
    assert insufficient(result.rbac, result.needs, result.rendered) == []
    assert not_minimal(result.rbac, result.needs, result.rendered) == []
    assert schema_errors(result.objects) == []
    assert [n.code for n in log.notices] == [CODE_SA_IGNORED, CODE_UNPINNED]


def test_fixture_stream_pinned_channel_template(fixture_catalog: str) -> None:
    log = NoticeLog()
    with open_catalog(fixture_catalog) as catalog:
        result = install_stream(
            catalog,
            "hello-operator",
            "hello",
            channel="stable",
            version_range="<0.3.0",
            service_account="installer",
            extension_name="hello",
            template=True,
            notify=log,
        )
    assert result.bundle == "hello-operator.v0.2.0"
    text = result.yaml()
    assert "hello-operator-controller-manager" in text
    for value in ("olmcat-template", "name: hello\n", "name: installer\n"):
        assert value not in text
    extension = result.objects[-1]
    assert extension["metadata"] == {"name": "${EXTENSION_NAME}"}
    assert extension["spec"]["namespace"] == "${NAMESPACE}"
    assert extension["spec"]["serviceAccount"] == {"name": "${SERVICE_ACCOUNT}"}
    assert extension["spec"]["source"]["catalog"] == {
        "packageName": "hello-operator",
        "channels": ["stable"],
        "version": "<0.3.0",
    }
    assert result.objects[0]["metadata"]["name"] == "${NAMESPACE}"
    finalizers = [
        r for r in result.objects[2]["rules"] if "clusterextensions/finalizers" in r["resources"]
    ]
    assert finalizers[0]["resourceNames"] == ["${EXTENSION_NAME}"]
    assert result.objects[3]["subjects"] == [
        {"kind": "ServiceAccount", "name": "${SERVICE_ACCOUNT}", "namespace": "${NAMESPACE}"}
    ]
    assert [n.code for n in log.notices] == [CODE_SA_IGNORED]


def test_own_namespace_watch(fixture_catalog: str) -> None:
    with open_catalog(fixture_catalog) as catalog:
        result = install_stream(catalog, "hello-operator", "hello", watch_namespace="hello")
    extension = result.objects[-1]
    assert extension["spec"]["config"] == {
        "configType": "Inline",
        "inline": {"watchNamespace": "hello"},
    }
    # spec.config is the experimental API's: the standard CRD refuses it
    assert schema_errors(result.objects, experimental=True) == []
    assert any("config" in e for e in schema_errors(result.objects))
    assert insufficient(result.rbac, result.needs, result.rendered) == []
    assert not_minimal(result.rbac, result.needs, result.rendered) == []


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        pytest.param({"namespace": "Hello"}, UsageError, "namespace 'Hello' is not a valid DNS-1123 label", id="namespace"),
        pytest.param({"namespace": "h", "extension_name": "a_b"}, UsageError, "extension name 'a_b'", id="extension-name"),
        pytest.param({"namespace": "h", "version_range": ">9"}, InputError, "no package 'hello-operator' matching version '>9' found", id="no-version"),
        pytest.param({"namespace": "h", "channel": "nope"}, InputError, "nope", id="no-channel"),
    ],
)  # fmt: skip
def test_refusals(
    fixture_catalog: str, kwargs: dict[str, Any], error: type[Exception], text: str
) -> None:
    with open_catalog(fixture_catalog) as catalog, pytest.raises(error) as info:
        install_stream(catalog, "hello-operator", **kwargs)
    assert text in str(info.value)


def test_install_objects_validate() -> None:
    objects, rbac, needs = install_objects(
        RENDERED, package="op", namespace=NS, extension_name="op", service_account="op-installer"
    )
    assert schema_errors(objects) == []
    assert insufficient(rbac, needs, RENDERED) == []


def test_needs_are_the_pre_authorizer_requests() -> None:
    # v1.10.0's rbacPreAuthorizer: per object get/patch/update/delete by name, create per
    # namespace, list/watch cluster-wide per resource (Helm applier), the finalizers update
    needs = installer_needs(RENDERED[:2], "op")
    assert [n.request for n in needs] == [
        Request("get", "apiextensions.k8s.io", "customresourcedefinitions", "", "widgets.example.com"),
        Request("update", "apiextensions.k8s.io", "customresourcedefinitions", "", "widgets.example.com"),
        Request("patch", "apiextensions.k8s.io", "customresourcedefinitions", "", "widgets.example.com"),
        Request("delete", "apiextensions.k8s.io", "customresourcedefinitions", "", "widgets.example.com"),
        Request("create", "apiextensions.k8s.io", "customresourcedefinitions", ""),
        Request("list", "apiextensions.k8s.io", "customresourcedefinitions"),
        Request("watch", "apiextensions.k8s.io", "customresourcedefinitions"),
        Request("get", "", "serviceaccounts", NS, "op"),
        Request("update", "", "serviceaccounts", NS, "op"),
        Request("patch", "", "serviceaccounts", NS, "op"),
        Request("delete", "", "serviceaccounts", NS, "op"),
        Request("create", "", "serviceaccounts", NS),
        Request("list", "", "serviceaccounts"),
        Request("watch", "", "serviceaccounts"),
        Request("update", "olm.operatorframework.io", "clusterextensions/finalizers", "", "op"),
    ]  # fmt: skip


def test_checks_catch_extra_and_missing_rules() -> None:
    # the checkers themselves: a redundant rule is reported as not minimal, a missing one as
    # insufficient
    from dataclasses import replace

    from olmcat.olmv1.rbac import PolicyRule

    rbac = installer_rbac(RENDERED, "op")
    needs = installer_needs(RENDERED, "op")
    extra = PolicyRule(("get",), ("apps",), ("deployments",), ("op-controller",))
    padded = replace(rbac, cluster=(*rbac.cluster, extra))
    assert any(str(extra) in what for what in not_minimal(padded, needs, RENDERED))
    trimmed = replace(rbac, cluster=rbac.cluster[1:])
    assert insufficient(trimmed, needs, RENDERED)


def test_held_wildcard_on_clusterroles_is_escalate_and_bind() -> None:
    # An operator whose ClusterRole grants "*" on clusterroles: the installer must hold that rule
    # to create the role, and holding it includes "escalate" and "bind" on every ClusterRole,
    # which "explicitly allow specifying any permission in a Role or ClusterRole" -- so the
    # role's other permissions need not be held
    rules = [
        {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"], "verbs": ["*"]},
        {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]},
    ]
    rendered = [
        _obj(RBAC, "ClusterRole", "op.v1-esc", None, rules=rules),
        _sa_binding("ClusterRoleBinding", "op.v1-esc", "ClusterRole", "op.v1-esc", None),
    ]
    rbac = installer_rbac(rendered, "op")
    cluster = [r.to_dict() for r in rbac.cluster]
    assert rules[0] in cluster
    assert not any("secrets" in r.get("resources", []) for r in cluster)
    needs = installer_needs(rendered, "op")
    assert insufficient(rbac, needs, rendered) == []
    assert not_minimal(rbac, needs, rendered) == []


@pytest.mark.parametrize(
    ("package", "channel", "version_range"),
    [
        ("hello-operator", None, None),
        ("hello-operator", "stable", None),
        ("hello-operator", "beta", None),
        ("hello-operator", None, "<0.3.0"),
        ("hello-operator", None, ">=0.1.0 <0.2.0"),
        ("world-operator", None, None),
    ],
)
def test_same_bundle_as_query_resolve(
    fixture_catalog: str, package: str, channel: str | None, version_range: str | None
) -> None:
    from olmcat.olmv1.install import resolve_bundle
    from olmcat.query.answers import resolve

    with open_catalog(fixture_catalog) as catalog:
        expected = resolve(catalog, package, channel, version_range)["name"]
        assert resolve_bundle(catalog, package, channel, version_range).name == expected


@pytest.mark.parametrize("provider", ["cert-manager", "openshift-service-ca"])
def test_webhook_bundle(provider: str) -> None:
    # The webhook bundle of olmv1 render's fixtures, rendered with a certificate provider:
    # webhook configurations are cluster-scoped although operator-controller writes a namespace
    # on them, so the installer manages them through its ClusterRole; cert-manager's Issuer and
    # Certificate are namespaced
    from olmcat.olmv1.bundle import read_bundle_dir
    from olmcat.olmv1.render import render_bundle

    rv1 = read_bundle_dir(FIXTURES / "olmv1" / "webhook-bundle")
    rendered = render_bundle(rv1, "webhook-system", cert_provider=provider)
    objects, rbac, needs = install_objects(
        rendered,
        package=rv1.package_name,
        namespace="webhook-system",
        extension_name="webhook",
        service_account="webhook-installer",
    )
    assert insufficient(rbac, needs, rendered) == []
    assert not_minimal(rbac, needs, rendered) == []
    assert schema_errors(objects) == []
    cluster = {res for r in rbac.cluster for res in r.resources}
    namespaced = {res for r in dict(rbac.namespaced)["webhook-system"] for res in r.resources}
    assert {"validatingwebhookconfigurations", "mutatingwebhookconfigurations"} <= cluster
    assert not {"validatingwebhookconfigurations", "mutatingwebhookconfigurations"} & namespaced
    if provider == "cert-manager":
        assert {"issuers", "certificates"} <= namespaced


def test_catalog_with_csv_metadata_only_reads_the_image(fixture_catalog: str) -> None:
    # a catalog that carries only olm.csv.metadata has no manifests: the bundle image is read
    # (here a stand-in that returns the manifests); without a reader the run says why it stops
    from dataclasses import replace

    from olmcat.model import property as prop
    from olmcat.olmv1.bundle import from_catalog_bundle
    from olmcat.readers.memory import MemoryCatalog

    with open_catalog(fixture_catalog) as catalog:
        pkg = next(iter(catalog.packages({"hello-operator"})))
    head = pkg.bundle("hello-operator.v0.3.0")
    assert head is not None
    rv1 = from_catalog_bundle(head)
    assert rv1 is not None
    stripped = replace(
        head,
        image="quay.io/example/hello-operator:v0.3.0",
        properties=tuple(p for p in head.properties if p.type != prop.TYPE_BUNDLE_OBJECT),
    )
    bundles = tuple(stripped if b.name == head.name else b for b in pkg.bundles)
    only_metadata = MemoryCatalog([replace(pkg, bundles=bundles)])
    with pytest.raises(InputError) as info:
        install_stream(only_metadata, "hello-operator", "hello")
    assert "the catalog holds only its olm.csv.metadata" in str(info.value)
    read: list[str] = []

    def read_image(ref: str) -> Any:
        read.append(ref)
        return rv1

    result = install_stream(only_metadata, "hello-operator", "hello", read_image=read_image)
    assert read == ["quay.io/example/hello-operator:v0.3.0"]
    with open_catalog(fixture_catalog) as catalog:
        direct = install_stream(catalog, "hello-operator", "hello")
    assert result.objects == direct.objects


def test_a_webhook_bundle_without_certificate_provider_is_refused_as_olmv1_check_refuses_it(
    tmp_path: Any,
) -> None:
    # cmd/operator-controller enables webhook support only with a certificate provider; the
    # message is provider.go's, the same one `olmv1 check` gives under the rule olmv1.provider.webhooks
    import shutil

    shutil.copytree(FIXTURES / "olmv1" / "webhook-bundle", tmp_path / "webhook-operator" / "0.0.5")
    with open_catalog(str(tmp_path)) as catalog, pytest.raises(InputError) as info:
        install_stream(catalog, "webhook-operator", namespace="w", cert_provider=None)
    assert str(info.value) == (
        "bundle webhook-operator.v0.0.5: unsupported bundle: webhookDefinitions are not supported"
    )
    with open_catalog(str(tmp_path)) as catalog:
        assert install_stream(catalog, "webhook-operator", namespace="w").objects
