"""Checks of an OLM v1 install stream shared by the unit and corpus tests: the installer's rules
are sufficient and minimal under the offline RBAC evaluator, and every object validates against
its schema (Kubernetes 1.33 for built-in kinds, operator-controller's CRD for the
ClusterExtension)."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cache
from typing import Any

import yaml

from olmcat.olmv1.install import InstallerRBAC, Need, unmet
from olmcat.olmv1.rbac import Authority, PolicyRule
from tests.support.paths import DATA

KUBERNETES_VERSION = "1.33.0"
_FIELDS = ("verbs", "api_groups", "resources", "resource_names", "non_resource_urls")


def insufficient(
    rbac: InstallerRBAC, needs: Sequence[Need], rendered: Sequence[Mapping[str, Any]]
) -> list[str]:
    """Every need the installer's rules do not satisfy (empty: sufficient)."""
    return unmet(rbac.authority(), needs, rendered)


def _variants(rbac: InstallerRBAC) -> list[tuple[str, Authority]]:
    """The installer's authority with one rule, or one element of one rule, left out."""
    scopes: list[tuple[str, list[PolicyRule]]] = [("", list(rbac.cluster))]
    scopes += [(ns, list(rules)) for ns, rules in rbac.namespaced]
    out: list[tuple[str, Authority]] = []

    def authority(scope: str, rules: list[PolicyRule]) -> Authority:
        cluster = rules if scope == "" else list(rbac.cluster)
        namespaced = {ns: list(r) for ns, r in rbac.namespaced}
        if scope:
            namespaced[scope] = rules
        return Authority(cluster, namespaced)

    for scope, rules in scopes:
        where = f"Role in {scope}" if scope else "ClusterRole"
        for index, rule in enumerate(rules):
            without = rules[:index] + rules[index + 1 :]
            out.append((f"{where}: rule {rule} left out", authority(scope, without)))
            for name in _FIELDS:
                values: tuple[str, ...] = getattr(rule, name)
                if len(values) < 2:
                    continue  # none left would match nothing (or, for names, every name)
                for value in values:
                    smaller = replace(rule, **{name: tuple(v for v in values if v != value)})
                    changed = [*rules[:index], smaller, *rules[index + 1 :]]
                    out.append(
                        (
                            f"{where}: {value!r} left out of {name} of {rule}",
                            authority(scope, changed),
                        )
                    )
    return out


def not_minimal(
    rbac: InstallerRBAC, needs: Sequence[Need], rendered: Sequence[Mapping[str, Any]]
) -> list[str]:
    """Each rule, verb, group, resource, name or URL whose removal still allows every need
    (empty: minimal)."""
    return [what for what, authority in _variants(rbac) if not unmet(authority, needs, rendered)]


@cache
def _crd_schema(flavour: str) -> dict[str, Any]:
    path = DATA / "olmv1" / f"clusterextensions-{flavour}.v1.11.0.yaml"
    crd = yaml.safe_load(path.read_text(encoding="utf-8"))
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1")
    schema: dict[str, Any] = _closed(copy.deepcopy(version["schema"]["openAPIV3Schema"]))
    return schema


def _closed(schema: Any) -> Any:
    """The schema with unknown fields refused where the API server would prune them (an object
    with ``properties`` and without ``x-kubernetes-preserve-unknown-fields``): a field the CRD
    does not know is an error here, not silently dropped."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            schema[key] = _closed(value)
        if (
            schema.get("type") == "object"
            and "properties" in schema
            and not schema.get("x-kubernetes-preserve-unknown-fields")
            and "additionalProperties" not in schema
        ):
            schema["additionalProperties"] = False
    elif isinstance(schema, list):
        return [_closed(v) for v in schema]
    return schema


def schema_errors(objects: Sequence[Mapping[str, Any]], *, experimental: bool = False) -> list[str]:
    """Why objects of the stream do not validate: built-in kinds against the Kubernetes 1.33
    schemas (strict: unknown fields are errors), the ClusterExtension against operator-controller
    v1.11.0's CRD (the experimental one when ``experimental``)."""
    import jsonschema  # type: ignore[import-untyped]
    import kubernetes_validate  # type: ignore[import-untyped]

    errors: list[str] = []
    for obj in objects:
        what = f"{obj.get('kind')} {obj.get('metadata', {}).get('name')!r}"
        if obj.get("kind") == "ClusterExtension":
            schema = _crd_schema("experimental" if experimental else "standard")
            validator = jsonschema.Draft7Validator(schema)
            errors.extend(f"{what}: {e.message}" for e in validator.iter_errors(obj))
            continue
        try:
            kubernetes_validate.validate(dict(obj), KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as error:
            errors.append(f"{what}: {error.message}")
    return errors
