"""crdify's comparison of an old and a new CustomResourceDefinition, configured as
operator-controller v1.11.0's CRD upgrade-safety preflight configures it.

Three validators run (``runner.Run``): the CRD-wide validations (``scope``,
``storedVersionRemoval``, ``existingFieldRemoval``); the property validations of every version
the old CRD has that the new one still has (same version); and, unless the new CRD converts with
a webhook (conversion policy ``Ignore``), the property validations of every pair of served
versions of the new CRD, minus the findings the old CRD's pairs already had (served version).

A property validation compares one flattened schema node of the old version with the same node
of the new one (children dropped); each validation clears the fields it handles, and whatever
still differs afterwards is an ``unhandled`` change. Go runs the validations in map order, so
its error order varies from run to run; here CRD-wide findings come in validation-name order,
versions in the old CRD's order (served pairs in name order), properties in name order and
validations in name order with ``unhandled`` last, and lists crdify prints unsorted (removed
fields, new required fields) are sorted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from olmcat.errors import ValidationError
from olmcat.go.json import go_float as json_float
from olmcat.go.json import go_string
from olmcat.olmv1.crdupgrade.schema import (
    FIELDS,
    JSONRaw,
    flatten,
    flattened_diff,
    go_float,
    go_quote,
    typed,
)

__all__ = [
    "CRDIFY_DEFAULT",
    "OLM_V1_11",
    "Config",
    "CrdComparison",
    "Finding",
    "compare_crds",
    "concise_unhandled",
    "run_validation",
    "served_version_pairs",
]

Enforcement = Literal["Error", "Warn", "None"]

CRD_WIDE = ("existingFieldRemoval", "scope", "storedVersionRemoval")
PROPERTY = (
    "default",
    "description",
    "enum",
    "maxItems",
    "maxLength",
    "maxProperties",
    "maximum",
    "minItems",
    "minLength",
    "minProperties",
    "minimum",
    "nullable",
    "oneOf",
    "pattern",
    "required",
    "type",
)
UNHANDLED = "unhandled"
RULES = (*CRD_WIDE, *PROPERTY, UNHANDLED)


@dataclass(frozen=True)
class Config:
    """crdify's ``config.Config`` and the validations' own settings."""

    conversion: Literal["None", "Ignore"] = "None"
    unhandled: Enforcement = "Error"
    enforcement: tuple[tuple[str, Enforcement], ...] = ()
    enum_addition: Literal["Allow", "Disallow"] = "Disallow"
    nullable_addition: Literal["Allow", "Disallow"] = "Disallow"
    nullable_removal: Literal["Allow", "Disallow"] = "Disallow"
    pattern_removal: Literal["Allow", "Disallow"] = "Disallow"
    # the property validations that run (None: every registered one, as crdify's runner; a
    # validator built with fewer comparators, as crdify's own tests build them, leaves the
    # fields of the others to the unhandled check)
    comparators: tuple[str, ...] | None = None

    def policy(self, name: str) -> Enforcement:
        return dict(self.enforcement).get(name, "Error")


#: crdify with no configuration file (its own end-to-end tests run with this).
CRDIFY_DEFAULT = Config()

#: ``crdupgradesafety.defaultConfig()`` of operator-controller v1.11.0.
OLM_V1_11 = Config(
    conversion="Ignore",
    unhandled="Error",
    enforcement=(("description", "None"), ("enum", "Error")),
    enum_addition="Allow",
)


@dataclass(frozen=True)
class Finding:
    """One error (or warning) of one validation, worded as crdify words it."""

    crd: str
    rule: str
    message: str
    version: str = ""  # "" for a CRD-wide validation; "v1" same version; "v1 -> v2" served
    path: str = ""  # the property's simple location, ^.spec.foo
    served: bool = False
    warning: bool = False

    @property
    def detail(self) -> str:
        """The line operator-controller writes for it after the CRD prefix."""
        if not self.version:
            return f"{self.rule}: {self.message}"
        return f"{self.version}: {self.path}: {self.rule}: {self.message}"

    @property
    def text(self) -> str:
        return f"validating upgrade for CRD {go_quote(self.crd)}: {self.detail}"

    def to_json(self) -> dict[str, Any]:
        return {
            "crd": self.crd,
            "rule": self.rule,
            "validation": "served version"
            if self.served
            else ("same version" if self.version else "crd"),
            "version": self.version,
            "property": self.path,
            "message": self.message,
            "text": self.text,
        }


@dataclass(frozen=True)
class CrdComparison:
    """The comparison of one CRD: its findings (errors) and warnings."""

    name: str
    findings: tuple[Finding, ...] = ()
    warnings: tuple[Finding, ...] = ()
    stored_versions_assumed: bool = False

    @property
    def safe(self) -> bool:
        return not self.findings

    def error(self) -> str:
        """operator-controller's error for this CRD: the prefix, then the findings joined by
        newlines (``errors.Join``); "" when it is safe."""
        if not self.findings:
            return ""
        details = "\n".join(f.detail for f in self.findings)
        return f"validating upgrade for CRD {go_quote(self.name)}: {details}"


# -- the CRD object --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Version:
    name: str
    served: bool
    storage: bool
    schema: dict[str, Any] | None


@dataclass(frozen=True)
class _Crd:
    name: str
    scope: str
    versions: tuple[_Version, ...]
    stored_versions: tuple[str, ...]
    webhook: bool


def _as_dict(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValidationError(f"{where} is not an object")
    return value


def _read_crd(obj: dict[str, Any], assume_stored: bool) -> tuple[_Crd, bool]:
    meta = _as_dict(obj.get("metadata"), "CRD metadata")
    raw_name = meta.get("name")
    name = raw_name if isinstance(raw_name, str) else ""
    where = f"CRD {go_quote(name)}"
    spec = _as_dict(obj.get("spec"), f"{where}: spec")
    raw_versions = spec.get("versions") or []
    if not isinstance(raw_versions, list):
        raise ValidationError(f"{where}: spec.versions is not a list")
    versions = []
    for i, item in enumerate(raw_versions):
        item = _as_dict(item, f"{where}: spec.versions[{i}]")
        vname = item.get("name", "")
        if not isinstance(vname, str):
            raise ValidationError(f"{where}: spec.versions[{i}].name is not a string")
        schema = _as_dict(item.get("schema"), f"{where}: spec.versions[{i}].schema")
        root = schema.get("openAPIV3Schema")
        versions.append(
            _Version(
                name=vname,
                served=item.get("served") is True,
                storage=item.get("storage") is True,
                schema=None if root is None else typed(root, f"{where}: {vname}"),
            )
        )
    status = _as_dict(obj.get("status"), f"{where}: status")
    stored = status.get("storedVersions")
    assumed = False
    if stored is None and assume_stored:
        # The API server records the storage version when it creates the CRD.
        stored = [v.name for v in versions if v.storage]
        assumed = True
    if stored is None:
        stored = []
    if not isinstance(stored, list) or not all(isinstance(s, str) for s in stored):
        raise ValidationError(f"{where}: status.storedVersions is not a list of strings")
    conversion = _as_dict(spec.get("conversion"), f"{where}: spec.conversion")
    scope = spec.get("scope", "")
    return (
        _Crd(
            name=name,
            scope=scope if isinstance(scope, str) else "",
            versions=tuple(versions),
            stored_versions=tuple(stored),
            webhook=conversion.get("strategy") == "Webhook",
        ),
        assumed,
    )


# -- CRD-wide validations --------------------------------------------------------------------------


def _go_list(items: Iterable[str]) -> str:
    return "[" + " ".join(items) + "]"


def _scope(old: _Crd, new: _Crd) -> list[str]:
    if old.scope != new.scope:
        return [f"scope changed : {go_quote(old.scope)} -> {go_quote(new.scope)}"]
    return []


def _stored_version_removal(old: _Crd, new: _Crd) -> list[str]:
    names = {v.name for v in new.versions}
    removed = [v for v in old.stored_versions if v not in names]
    if removed:
        return [f"stored versions removed : {_go_list(removed)}"]
    return []


def _existing_field_removal(old: _Crd, new: _Crd) -> list[str]:
    out: list[str] = []
    for version in new.versions:
        existing = next((v for v in old.versions if v.name == version.name), None)
        if existing is None:
            continue
        removed = set(flatten(existing.schema)) - set(flatten(version.schema))
        out.extend(f"removed field : {version.name}.{path}" for path in sorted(removed))
    return out


_CRD_CHECKS: dict[str, Callable[[_Crd, _Crd], list[str]]] = {
    "existingFieldRemoval": _existing_field_removal,
    "scope": _scope,
    "storedVersionRemoval": _stored_version_removal,
}


# -- property validations (each clears the fields it handles) --------------------------------------

Schema = dict[str, Any]


def _default(a: Schema, b: Schema, _: Config) -> list[str]:
    old, new = a.pop("default", None), b.pop("default", None)
    if old is None and new is not None:
        return [f"default added when there was none previously : {go_quote(new)}"]
    if old is not None and new is None:
        return [f"default value removed : {go_quote(old)}"]
    if old is not None and new is not None and old != new:
        return [f"default value changed : {go_quote(old)} -> {go_quote(new)}"]
    return []


def _description(a: Schema, b: Schema, _: Config) -> list[str]:
    old, new = a.pop("description", ""), b.pop("description", "")
    if old != new:
        return [f"description changed : {go_quote(old)} -> {go_quote(new)}"]
    return []


def _enum(a: Schema, b: Schema, config: Config) -> list[str]:
    old, new = set(a.pop("enum", ())), set(b.pop("enum", ()))
    if not old and new:
        return [f"enum constraint added when there was none previously : {_go_list(sorted(new))}"]
    if old - new:
        return [f"allowed enum values removed : {_go_list(sorted(old - new))}"]
    if new - old and config.enum_addition != "Allow":
        return [f"allowed enum values added : {_go_list(sorted(new - old))}"]
    return []


def _number(value: Any) -> str:
    return go_float(value) if isinstance(value, float) else str(value)


def _maximum(key: str) -> Callable[[Schema, Schema, Config], list[str]]:
    def check(a: Schema, b: Schema, _: Config) -> list[str]:
        old, new = a.pop(key, None), b.pop(key, None)
        if old is None and new is not None:
            return [f"maximum constraint added when there was none previously : {_number(new)}"]
        if old is not None and new is not None and new < old:
            return [f"maximum decreased : {_number(old)} -> {_number(new)}"]
        return []

    return check


def _minimum(key: str) -> Callable[[Schema, Schema, Config], list[str]]:
    def check(a: Schema, b: Schema, _: Config) -> list[str]:
        old, new = a.pop(key, None), b.pop(key, None)
        if old is None and new is not None:
            return [f"minimum constraint added when there was none previously : {_number(new)}"]
        if old is not None and new is not None and new > old:
            return [f"minimum increased : {_number(old)} -> {_number(new)}"]
        return []

    return check


def _nullable(a: Schema, b: Schema, config: Config) -> list[str]:
    old, new = a.pop("nullable", False), b.pop("nullable", False)
    if not old and new and config.nullable_addition != "Allow":
        return ["nullable added : false -> true"]
    if old and not new and config.nullable_removal != "Allow":
        return ["nullable removed : true -> false"]
    return []


def _pattern(a: Schema, b: Schema, config: Config) -> list[str]:
    old, new = a.pop("pattern", ""), b.pop("pattern", "")
    if old == new:
        return []
    if not old:
        return [f"pattern added : {go_quote(old)} -> {go_quote(new)}"]
    if not new:
        if config.pattern_removal == "Allow":
            return []
        return [f"pattern removed : {go_quote(old)} -> {go_quote(new)}"]
    return [f"pattern changed : {go_quote(old)} -> {go_quote(new)}"]


def _required(a: Schema, b: Schema, _: Config) -> list[str]:
    added = set(b.pop("required", ())) - set(a.pop("required", ()))
    if added:
        return [f"new required fields: {_go_list(sorted(added))}"]
    return []


def _type(a: Schema, b: Schema, _: Config) -> list[str]:
    old, new = a.pop("type", ""), b.pop("type", "")
    if old != new:
        return [f"type changed : {go_quote(old)} -> {go_quote(new)}"]
    return []


def _one_of(a: Schema, b: Schema, _: Config) -> list[str]:
    old = {_marshal_subschema(s) for s in a.pop("oneOf", ())}
    new = {_marshal_subschema(s) for s in b.pop("oneOf", ())}
    # The pinned crdify (bb9957dbf465) is not public; its oneOf errors, as v1.11.0's tests quote
    # them, are reported first-match like enum's (net-new constraint, removed, added).
    if not old and new:
        return ["oneOf constraint added when there was none previously"]
    if old - new:
        return [f"allowed oneOf schemas removed: {_go_list(sorted(old - new))}"]
    if new - old:
        return [f"allowed oneOf schemas added: {_go_list(sorted(new - old))}"]
    return []


_PROPERTY_CHECKS: dict[str, Callable[[Schema, Schema, Config], list[str]]] = {
    "default": _default,
    "description": _description,
    "enum": _enum,
    "maxItems": _maximum("maxItems"),
    "maxLength": _maximum("maxLength"),
    "maxProperties": _maximum("maxProperties"),
    "maximum": _maximum("maximum"),
    "minItems": _minimum("minItems"),
    "minLength": _minimum("minLength"),
    "minProperties": _minimum("minProperties"),
    "minimum": _minimum("minimum"),
    "nullable": _nullable,
    "oneOf": _one_of,
    "pattern": _pattern,
    "required": _required,
    "type": _type,
}


# -- Go's json.Marshal of a JSONSchemaProps struct (the oneOf validation's set members) ------------


def _marshal_value(kind: str, value: Any) -> str:
    if kind in ("str", "pstr"):
        return go_string(value, escape_html=True)
    if kind in ("bool", "pbool"):
        return "true" if value else "false"
    if kind == "pfloat":
        return json_float(value)
    if kind == "pint":
        return str(value)
    if kind == "json":
        return str(value)
    if kind == "jsonlist":
        return "[" + ",".join(value) + "]"
    if kind == "strlist":
        return "[" + ",".join(go_string(v, escape_html=True) for v in value) + "]"
    if kind == "schema":
        return _marshal_schema(value)
    if kind == "schemalist":
        return "[" + ",".join(_marshal_schema(v) for v in value) + "]"
    if kind == "schemamap":
        return _marshal_map(value, _marshal_schema)
    if kind == "items":
        if isinstance(value, list):
            return "[" + ",".join(_marshal_schema(v) for v in value) + "]"
        return _marshal_schema(value)
    if kind == "orbool":
        return _marshal_schema(value) if isinstance(value, dict) else _marshal_value("bool", value)
    if kind == "deps":
        return _marshal_map(
            value,
            lambda d: _marshal_value("strlist", d) if isinstance(d, list) else _marshal_schema(d),
        )
    if kind == "docs":
        return _marshal_fields(value, ("description", "url"))
    # rules
    return "[" + ",".join(_marshal_rule(r) for r in value) + "]"


def _marshal_map(value: dict[str, Any], each: Callable[[Any], str]) -> str:
    items = sorted(value.items())
    return "{" + ",".join(go_string(k, escape_html=True) + ":" + each(v) for k, v in items) + "}"


def _marshal_fields(value: dict[str, Any], keys: tuple[str, ...]) -> str:
    parts = [
        go_string(k, escape_html=True) + ":" + go_string(value[k], escape_html=True)
        for k in keys
        if value.get(k)
    ]
    return "{" + ",".join(parts) + "}"


def _marshal_rule(rule: dict[str, Any]) -> str:
    parts = ['"rule":' + go_string(str(rule.get("rule", "")), escape_html=True)]
    for key in ("message", "messageExpression", "reason", "fieldPath"):
        if rule.get(key):
            parts.append(f'"{key}":' + go_string(str(rule[key]), escape_html=True))
    if "optionalOldSelf" in rule:
        parts.append('"optionalOldSelf":' + ("true" if rule["optionalOldSelf"] else "false"))
    return "{" + ",".join(parts) + "}"


def _marshal_schema(schema: Schema) -> str:
    parts = [
        go_string(key, escape_html=True) + ":" + _marshal_value(kind, schema[key])
        for key, (_, kind) in FIELDS.items()
        if key in schema
    ]
    return "{" + ",".join(parts) + "}"


def _marshal_subschema(schema: Schema) -> str:
    return _marshal_schema({k: v for k, v in schema.items() if k not in ("description", "example")})


# -- unhandled changes -----------------------------------------------------------------------------


def _go_value(kind: str, value: Any) -> str:
    """A field's value as go-cmp prints it in a diff line (complex values abbreviated)."""
    if value is None:
        if kind == "str":
            return '""'
        if kind == "bool":
            return "false"
        return "nil"
    if kind == "str":
        return go_quote(value)
    if kind == "bool":
        return "true" if value else "false"
    if kind == "pstr":
        return "&" + go_quote(value)
    if kind == "pbool":
        return "&" + ("true" if value else "false")
    if kind in ("pfloat", "pint"):
        return "&" + _number(value)
    if kind == "json":
        return "&v1.JSON{Raw: " + go_quote(value) + "}"
    if kind == "strlist":
        return "[]string{" + ", ".join(go_quote(v) for v in value) + "}"
    if kind == "docs":
        return "&v1.ExternalDocumentation{...}"
    if kind == "rules":
        return f"v1.ValidationRules{{...}} ({_items(value)})"
    if kind == "rule":
        return "v1.ValidationRule{...}"
    if kind == "jsonlist":
        return f"[]v1.JSON{{...}} ({_items(value)})"
    if isinstance(value, list):
        return f"[]v1.JSONSchemaProps{{...}} ({_items(value)})"
    return "&v1.JSONSchemaProps{...}"


def _items(value: list[Any]) -> str:
    return "1 item" if len(value) == 1 else f"{len(value)} items"


_RULE_GO = (
    ("rule", "Rule", "str"),
    ("message", "Message", "str"),
    ("messageExpression", "MessageExpression", "str"),
    ("reason", "Reason", "pstr"),
    ("fieldPath", "FieldPath", "str"),
    ("optionalOldSelf", "OptionalOldSelf", "pbool"),
)
_DOCS_GO = (("description", "Description", "str"), ("url", "URL", "str"))


def _struct_fields(kind: str) -> tuple[tuple[str, str, str], ...]:
    if kind == "rule":
        return _RULE_GO
    if kind == "docs":
        return _DOCS_GO
    return tuple((key, go, k) for key, (go, k) in FIELDS.items())


def _diff_lines(name: str, kind: str, old: Any, new: Any, depth: int) -> list[str]:
    """go-cmp's report of one differing field: it descends into two structs (or two lists of
    the same length) and reports their differing fields; anything else is a pair of lines."""
    indent = "\t" * depth
    element = {"schemalist": "schema", "rules": "rule", "items": "schema"}.get(kind)
    if kind in ("schema", "docs", "rule") and isinstance(old, dict) and isinstance(new, dict):
        lines = []
        for key, go_name, sub in _struct_fields(kind):
            if old.get(key) != new.get(key):
                lines += _diff_lines(go_name, sub, old.get(key), new.get(key), depth + 1)
        return lines
    if kind == "orbool" and old is not None and new is not None:
        # JSONSchemaPropsOrBool{Allows, Schema}: go-cmp reports the differing field of the two
        lines = []
        (allows_old, schema_old), (allows_new, schema_new) = _or_bool(old), _or_bool(new)
        if allows_old != allows_new:
            lines += _diff_lines("Allows", "bool", allows_old, allows_new, depth + 1)
        if schema_old != schema_new:
            lines += _diff_lines("Schema", "schema", schema_old, schema_new, depth + 1)
        return lines
    if kind == "schemamap" and isinstance(old, dict) and isinstance(new, dict):
        # a map: go-cmp reports each entry added, removed (one line) or changed (descended)
        lines = []
        for key in sorted(set(old) | set(new)):
            if old.get(key) == new.get(key):
                continue
            if key in old and key in new:
                lines += _diff_lines("", "schema", old[key], new[key], depth + 1)
                continue
            sign, value = ("-", old[key]) if key in old else ("+", new[key])
            lines.append(f"{sign} {indent}\t{go_quote(key)}: {_go_value('schema', value)},")
        return lines
    if kind == "items" and isinstance(old, dict) and isinstance(new, dict):
        # JSONSchemaPropsOrArray{Schema, JSONSchemas}, both holding one schema
        return _diff_lines("Schema", "schema", old, new, depth + 1)
    if (
        element is not None
        and isinstance(old, list)
        and isinstance(new, list)
        and len(old) == len(new)
    ):
        lines = []
        for before, after in zip(old, new, strict=True):
            if before != after:
                lines += _diff_lines("", element, before, after, depth + 1)
        return lines
    label = f"{name}: " if name else ""
    return [
        f"- {indent}{label}{_go_value(kind, old)},",
        f"+ {indent}{label}{_go_value(kind, new)},",
    ]


def _or_bool(value: Any) -> tuple[bool, Any]:
    """(Allows, Schema) of a JSONSchemaPropsOrBool as Go unmarshals it: a schema allows."""
    if isinstance(value, bool):
        return value, None
    return True, value


def _unhandled_raw(a: Schema, b: Schema) -> str:
    """A diff of the fields still different, as go-cmp reports them (``-``/``+`` lines)."""
    lines = ["unhandled changes found :"]
    for key, (go_name, kind) in FIELDS.items():
        old, new = a.get(key), b.get(key)
        if old != new:
            lines += _diff_lines(go_name, kind, old, new, 1)
    return "\n".join(lines) + "\n"


_SUMMARY = "unhandled changes found"


def concise_unhandled(raw: str) -> str:
    """operator-controller's ``conciseUnhandledMessage``: the ``-``/``+`` lines of crdify's
    unhandled diff as "Field before -> after" pairs."""
    if _SUMMARY not in raw:
        return raw
    before: dict[str, tuple[str, str]] = {}
    after: dict[str, tuple[str, str]] = {}
    order: list[str] = []
    for line in raw.split("\n"):
        trimmed = line.strip()
        if len(trimmed) < 2 or trimmed[0] not in "-+":
            continue
        fragment = trimmed[1:].strip().removeprefix("\t").strip().removesuffix(",")
        name, colon, rest = fragment.partition(":")
        name = name.strip()
        if not colon or not name:
            continue
        raw_value = rest.strip()
        value = _normalize(raw_value)
        if name not in before and name not in after:
            order.append(name)
        (before if trimmed[0] == "-" else after)[name] = (value, raw_value)
    details = []
    for name in order:
        old, old_raw = before.get(name, ("", ""))
        new, new_raw = after.get(name, ("", ""))
        if not old and not new:
            continue
        if old == new and old_raw == new_raw:
            continue
        shown_old = old or "<empty>"
        shown_new = new or "<empty>"
        if old == new and old_raw != new_raw:
            shown_new += " (changed)"
        details.append(f"{name} {shown_old} -> {shown_new}")
    if not details:
        return _SUMMARY
    return f"{_SUMMARY} ({'; '.join(details)})"


def _normalize(value: str) -> str:
    value = value.removesuffix(",").strip()
    if value == "":
        return "<empty>"
    if value == '""':
        return value
    value = value.replace("v1.", "")
    if "JSONSchemaProps" in value:
        return "<complex value>"
    return value


# -- the runner ------------------------------------------------------------------------------------


@dataclass
class _Collected:
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)

    def add(self, policy: Enforcement, findings: list[Finding]) -> None:
        if policy == "Error":
            self.errors.extend(findings)
        elif policy == "Warn":
            self.warnings.extend(replace_warning(f) for f in findings)


def replace_warning(finding: Finding) -> Finding:
    return Finding(
        finding.crd,
        finding.rule,
        finding.message,
        finding.version,
        finding.path,
        finding.served,
        warning=True,
    )


# One property comparison: (property, rule, message, policy).
_Result = tuple[str, str, str, Enforcement]


def _compare_properties(a: Schema, b: Schema, config: Config) -> list[tuple[str, str, Enforcement]]:
    a, b = dict(a), dict(b)
    out: list[tuple[str, str, Enforcement]] = []
    for name, check in _PROPERTY_CHECKS.items():
        if config.comparators is not None and name not in config.comparators:
            continue
        messages = check(a, b, config)
        out.extend((name, message, config.policy(name)) for message in messages)
    if a != b:
        out.append((UNHANDLED, concise_unhandled(_unhandled_raw(a, b)), config.unhandled))
    return out


def _compare_versions(
    old: dict[str, Any] | None, new: dict[str, Any] | None, config: Config
) -> list[_Result]:
    out: list[_Result] = []
    for path, (before, after) in flattened_diff(old, new).items():
        out.extend((path, *r) for r in _compare_properties(before, after, config))
    return out


_KUBE_VERSION = re.compile(r"^v([0-9]+)(?:(alpha|beta)([0-9]+))?$")
_STABILITY = {"alpha": 0, "beta": 1, None: 2}


def _kube_key(name: str) -> tuple[int, ...]:
    """Sort key of ``version.CompareKubeAwareVersionStrings``, ascending: names that are not
    Kubernetes-like first (reverse name order), then alpha, beta and GA, each by major/minor."""
    match = _KUBE_VERSION.match(name)
    if match is None:
        return (0, *(-ord(c) for c in name), 0x110000)
    minor = int(match.group(3)) if match.group(3) else 0
    return (1, _STABILITY[match.group(2)], int(match.group(1)), minor)


def _served_pairs(crd: _Crd, config: Config) -> dict[str, list[_Result]]:
    served = sorted((v for v in crd.versions if v.served), key=lambda v: _kube_key(v.name))
    out: dict[str, list[_Result]] = {}
    for i, older in enumerate(served[:-1]):
        for newer in served[i + 1 :]:
            out[f"{older.name} -> {newer.name}"] = _compare_versions(
                older.schema, newer.schema, config
            )
    return out


def compare_crds(
    old: dict[str, Any],
    new: dict[str, Any],
    config: Config = OLM_V1_11,
    *,
    assume_stored_versions: bool = False,
) -> CrdComparison:
    """crdify's ``Runner.Run(old, new)`` under ``config``: every finding of the three validators.

    ``assume_stored_versions``: an old CRD without ``status.storedVersions`` (as bundles ship
    them) is taken to have stored its storage version, as the API server records on creation.
    """
    old_crd, assumed = _read_crd(old, assume_stored_versions)
    new_crd, _ = _read_crd(new, False)
    name = new_crd.name
    collected = _Collected()
    for rule in sorted(_CRD_CHECKS):
        messages = _CRD_CHECKS[rule](old_crd, new_crd)
        collected.add(config.policy(rule), [Finding(name, rule, m) for m in messages])

    def add(results: list[_Result], version: str, served: bool) -> None:
        ordered = sorted(results, key=lambda r: (r[0], r[1] == UNHANDLED, r[1]))
        for path, rule, message, policy in ordered:
            collected.add(policy, [Finding(name, rule, message, version, path, served)])

    for version in old_crd.versions:
        counterpart = next((v for v in new_crd.versions if v.name == version.name), None)
        if counterpart is not None:
            add(_compare_versions(version.schema, counterpart.schema, config), version.name, False)
    if not (config.conversion == "Ignore" and new_crd.webhook):
        known = _served_pairs(old_crd, config)
        for pair, results in sorted(_served_pairs(new_crd, config).items()):
            seen = {(p, r, m) for p, r, m, _ in known.get(pair, [])}
            add([x for x in results if (x[0], x[1], x[2]) not in seen], pair, True)
    return CrdComparison(
        name=name,
        findings=tuple(collected.errors),
        warnings=tuple(collected.warnings),
        stored_versions_assumed=assumed and bool(old_crd.stored_versions),
    )


_ = JSONRaw  # re-exported type of typed JSON values


def run_validation(
    name: str, old: dict[str, Any], new: dict[str, Any], config: Config = CRDIFY_DEFAULT
) -> tuple[list[str], list[str]]:
    """One validation alone, as crdify's ``Comparator.Compare``: (errors, warnings) under the
    validation's enforcement in ``config``. ``old``/``new`` are CRDs for the CRD-wide validations,
    schemas for the property ones."""
    if name in _CRD_CHECKS:
        messages = _CRD_CHECKS[name](_read_crd(old, False)[0], _read_crd(new, False)[0])
    elif name in _PROPERTY_CHECKS:
        messages = _PROPERTY_CHECKS[name](typed(old), typed(new), config)
    else:
        raise ValidationError(f"unknown validation {name!r} (one of {', '.join(RULES)})")
    policy = config.policy(name)
    if policy == "Error":
        return messages, []
    if policy == "Warn":
        return [], messages
    return [], []


def served_version_pairs(crd: dict[str, Any]) -> list[str]:
    """The served-version pairs crdify compares in one CRD ("v1 -> v2", older first)."""
    return list(_served_pairs(_read_crd(crd, False)[0], CRDIFY_DEFAULT))
