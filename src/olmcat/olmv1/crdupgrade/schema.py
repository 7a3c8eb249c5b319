"""A CRD version's OpenAPI schema as crdify sees it: ``apiextensions/v1.JSONSchemaProps``.

operator-controller converts each CRD to the typed ``CustomResourceDefinition`` before crdify
compares it, so unknown keys are dropped, zero values of non-pointer fields are the same as
absent ones, and JSON values (``default``, ``enum``, ``example``) are compared as the bytes Go's
``json.Marshal`` writes for them. :func:`typed` makes that form out of a decoded manifest, once;
everything else here works on it.

:func:`flatten` walks a schema as crdify's ``SchemaHas`` does and names each node by its simple
location (``^.spec.items``, ``^.spec.oneOf[0]``, ``^.spec.patternProperties[^a]``).
"""

from __future__ import annotations

from typing import Any

from olmcat.errors import ValidationError
from olmcat.go.json import go_marshal
from olmcat.go.strconv import format_g

__all__ = [
    "FIELDS",
    "drop_children",
    "flatten",
    "flattened_diff",
    "go_float",
    "go_quote",
    "typed",
]

# JSONSchemaProps in Go struct order: JSON key -> (Go field name, kind).
# kinds: str / bool (zero = absent); pstr / pfloat / pint / pbool (pointers: zero kept);
# json (a JSON value, pointer); jsonlist (enum); strlist; schema (pointer); schemalist;
# schemamap; items (schema or list); orbool (additionalProperties/Items); deps; docs; rules.
FIELDS: dict[str, tuple[str, str]] = {
    "id": ("ID", "str"),
    "$schema": ("Schema", "str"),
    "$ref": ("Ref", "pstr"),
    "description": ("Description", "str"),
    "type": ("Type", "str"),
    "format": ("Format", "str"),
    "title": ("Title", "str"),
    "default": ("Default", "json"),
    "maximum": ("Maximum", "pfloat"),
    "exclusiveMaximum": ("ExclusiveMaximum", "bool"),
    "minimum": ("Minimum", "pfloat"),
    "exclusiveMinimum": ("ExclusiveMinimum", "bool"),
    "maxLength": ("MaxLength", "pint"),
    "minLength": ("MinLength", "pint"),
    "pattern": ("Pattern", "str"),
    "maxItems": ("MaxItems", "pint"),
    "minItems": ("MinItems", "pint"),
    "uniqueItems": ("UniqueItems", "bool"),
    "multipleOf": ("MultipleOf", "pfloat"),
    "enum": ("Enum", "jsonlist"),
    "maxProperties": ("MaxProperties", "pint"),
    "minProperties": ("MinProperties", "pint"),
    "required": ("Required", "strlist"),
    "items": ("Items", "items"),
    "allOf": ("AllOf", "schemalist"),
    "oneOf": ("OneOf", "schemalist"),
    "anyOf": ("AnyOf", "schemalist"),
    "not": ("Not", "schema"),
    "properties": ("Properties", "schemamap"),
    "additionalProperties": ("AdditionalProperties", "orbool"),
    "patternProperties": ("PatternProperties", "schemamap"),
    "dependencies": ("Dependencies", "deps"),
    "additionalItems": ("AdditionalItems", "orbool"),
    "definitions": ("Definitions", "schemamap"),
    "externalDocs": ("ExternalDocs", "docs"),
    "example": ("Example", "json"),
    "nullable": ("Nullable", "bool"),
    "x-kubernetes-preserve-unknown-fields": ("XPreserveUnknownFields", "pbool"),
    "x-kubernetes-embedded-resource": ("XEmbeddedResource", "bool"),
    "x-kubernetes-int-or-string": ("XIntOrString", "bool"),
    "x-kubernetes-list-map-keys": ("XListMapKeys", "strlist"),
    "x-kubernetes-list-type": ("XListType", "pstr"),
    "x-kubernetes-map-type": ("XMapType", "pstr"),
    "x-kubernetes-validations": ("XValidations", "rules"),
}
_RULE_FIELDS = ("rule", "message", "messageExpression", "reason", "fieldPath", "optionalOldSelf")


class JSONRaw(str):
    """A JSON value as the bytes ``json.Marshal`` writes for it (``apiextensions/v1.JSON.Raw``)."""


def _bad(where: str, key: str, want: str) -> ValidationError:
    return ValidationError(f"{where}: {key} is not {want}")


def _string(value: Any, where: str, key: str) -> str:
    if not isinstance(value, str):
        raise _bad(where, key, "a string")
    return value


def _number(value: Any, where: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise _bad(where, key, "a number")
    try:
        out = float(value)
    except ValueError:
        raise _bad(where, key, "a number") from None
    return out


def _integer(value: Any, where: str, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise _bad(where, key, "an integer")
    try:
        number = float(value)
    except ValueError:
        raise _bad(where, key, "an integer") from None
    if not number.is_integer():
        raise _bad(where, key, "an integer")
    return int(number)


def _orbool(value: Any, where: str, key: str) -> Any:
    if isinstance(value, bool):
        return value
    return typed(value, f"{where}.{key}")


def typed(schema: Any, where: str = "schema") -> dict[str, Any]:
    """The typed form of one schema object: known keys only, zero values of non-pointer fields
    left out, JSON values as :class:`JSONRaw` (``json.Marshal`` of the decoded value: a float
    that is whole is written ``1``, as Go's unstructured conversion writes it), sub-schemas typed
    too."""
    if schema is None:
        return {}
    if not isinstance(schema, dict):
        raise ValidationError(f"{where}: a schema is not an object")
    out: dict[str, Any] = {}
    for key, (_, kind) in FIELDS.items():
        if key not in schema or schema[key] is None:
            continue
        value = schema[key]
        if kind == "str":
            text = _string(value, where, key)
            if text:
                out[key] = text
        elif kind == "bool":
            if not isinstance(value, bool):
                raise _bad(where, key, "a boolean")
            if value:
                out[key] = True
        elif kind == "pstr":
            out[key] = _string(value, where, key)
        elif kind == "pbool":
            if not isinstance(value, bool):
                raise _bad(where, key, "a boolean")
            out[key] = value
        elif kind == "pfloat":
            out[key] = _number(value, where, key)
        elif kind == "pint":
            out[key] = _integer(value, where, key)
        elif kind == "json":
            out[key] = JSONRaw(go_marshal(value))
        elif kind == "jsonlist":
            if not isinstance(value, list):
                raise _bad(where, key, "a list")
            if value:
                out[key] = [JSONRaw(go_marshal(item)) for item in value]
        elif kind == "strlist":
            if not isinstance(value, list):
                raise _bad(where, key, "a list")
            if value:
                out[key] = [_string(item, where, key) for item in value]
        elif kind == "schema":
            out[key] = typed(value, f"{where}.{key}")
        elif kind == "schemalist":
            if not isinstance(value, list):
                raise _bad(where, key, "a list")
            if value:
                out[key] = [typed(item, f"{where}.{key}[{i}]") for i, item in enumerate(value)]
        elif kind == "schemamap":
            if not isinstance(value, dict):
                raise _bad(where, key, "an object")
            if value:
                out[key] = {str(k): typed(v, f"{where}.{key}.{k}") for k, v in value.items()}
        elif kind == "items":
            if isinstance(value, list):
                if value:
                    out[key] = [typed(item, f"{where}.{key}[{i}]") for i, item in enumerate(value)]
            else:
                out[key] = typed(value, f"{where}.{key}")
        elif kind == "orbool":
            out[key] = _orbool(value, where, key)
        elif kind == "deps":
            if not isinstance(value, dict):
                raise _bad(where, key, "an object")
            deps: dict[str, Any] = {}
            for name, dep in value.items():
                if isinstance(dep, list):
                    deps[str(name)] = [_string(item, where, key) for item in dep]
                else:
                    deps[str(name)] = typed(dep, f"{where}.{key}.{name}")
            if deps:
                out[key] = deps
        elif kind == "docs":
            if not isinstance(value, dict):
                raise _bad(where, key, "an object")
            out[key] = {k: value[k] for k in ("description", "url") if value.get(k)}
        elif kind == "rules":
            if not isinstance(value, list):
                raise _bad(where, key, "a list")
            rules = [
                {
                    k: rule[k]
                    for k in _RULE_FIELDS
                    if isinstance(rule, dict) and rule.get(k) is not None and rule.get(k) != ""
                }
                for rule in value
            ]
            if rules:
                out[key] = rules
    return out


def _child(path: str, name: str) -> str:
    return f"{path}.{name}"


def flatten(schema: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Every node of a typed schema by its simple location, as crdify's ``FlattenCRDVersion``
    (a later node with the same location replaces an earlier one, as in crdify's map)."""
    out: dict[str, dict[str, Any]] = {}
    if schema is None:
        return out

    def walk(node: dict[str, Any], path: str) -> None:
        out[path] = node
        items = node.get("items")
        if isinstance(items, dict):
            walk(items, _child(path, "items"))
        elif isinstance(items, list):
            for i, item in enumerate(items):
                walk(item, f"{path}.items[{i}]")
        for key in ("allOf", "anyOf", "oneOf"):
            for i, item in enumerate(node.get(key, ())):
                walk(item, f"{path}.{key}[{i}]")
        if "not" in node:
            walk(node["not"], _child(path, "not"))
        for name, prop in node.get("properties", {}).items():
            walk(prop, _child(path, name))
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            walk(extra, _child(path, "additionalProperties"))
        for name, prop in node.get("patternProperties", {}).items():
            walk(prop, f"{path}.patternProperties[{name}]")
        extra = node.get("additionalItems")
        if isinstance(extra, dict):
            walk(extra, _child(path, "additionalItems"))
        for name, prop in node.get("definitions", {}).items():
            walk(prop, f"{path}.definitions[{name}]")
        for name, dep in node.get("dependencies", {}).items():
            if isinstance(dep, dict):
                walk(dep, f"{path}.dependencies[{name}]")

    walk(schema, "^")
    return out


def drop_children(schema: dict[str, Any]) -> dict[str, Any]:
    """A shallow copy without ``properties`` and ``items``
    (crdify's ``DropChildrenPropertiesFromJSONSchema``)."""
    return {k: v for k, v in schema.items() if k not in ("properties", "items")}


# -- Go formatting ---------------------------------------------------------------------------------

_QUOTE_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    '"': '\\"',
}


def go_quote(text: str) -> str:
    """Go's ``%q`` of a string (``strconv.Quote``)."""
    parts = ['"']
    for ch in text:
        if ch in _QUOTE_ESCAPES:
            parts.append(_QUOTE_ESCAPES[ch])
        elif ch == " " or ch.isprintable():
            parts.append(ch)
        elif ord(ch) < 0x80:
            parts.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            parts.append(f"\\u{ord(ch):04x}")
        else:
            parts.append(f"\\U{ord(ch):08x}")
    parts.append('"')
    return "".join(parts)


def go_float(value: float) -> str:
    """Go's ``%v`` of a float64 (``strconv.FormatFloat(f, 'g', -1, 64)``)."""
    return format_g(value)


def flattened_diff(
    old: dict[str, Any] | None, new: dict[str, Any] | None
) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """crdify's ``FlattenedCRDVersionDiff`` of two typed schemas: every node of ``old`` that is
    gone (new side empty) or differs, children dropped, by its simple location."""
    old_flat, new_flat = flatten(old), flatten(new)
    out: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    for path in sorted(old_flat):
        before = drop_children(old_flat[path])
        if path not in new_flat:
            out[path] = (before, {})
            continue
        after = drop_children(new_flat[path])
        if before != after:
            out[path] = (before, after)
    return out
