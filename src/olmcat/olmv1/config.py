"""A ClusterExtension's ``spec.config.inline`` for a registry+v1 bundle, as operator-controller
v1.11.0 validates it (``rukpak/bundle/registryv1.go`` + ``config/config.go``).

The schema is v1.11.0's ``registryv1bundleconfig.json`` (shipped next to this module), with
``watchNamespace`` rewritten for the bundle's install modes: gone when only AllNamespaces is
supported, required when AllNamespaces is not, and checked against the install namespace by the
``ownNamespaceInstallMode`` / ``singleNamespaceInstallMode`` formats.

operator-controller validates with santhosh-tekuri/jsonschema v6 and turns its "basic output"
into one message per error (``formatSchemaError``). The messages users see depend on the shape
of that library's error tree, so this module validates with a small draft-07 validator of its own
that builds the same tree (type and format checks stop a schema, a draft-07 ``$ref`` ignores its
siblings, ``anyOf`` / ``allOf`` / ``oneOf`` wrap their branches' errors, two errors or more in
one schema are a group) and flattens it as the library does. It knows the keywords the bundle
schema uses (and the common ones a Helm values schema uses); it is not a general validator. The
alternative, the ``jsonschema`` package, would add a runtime dependency and still need the
library's tree to word the errors as v1.11.0 does.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from olmcat.errors import InputError, ValidationError
from olmcat.files.yaml import load
from olmcat.go.typed import valid_rfc3339
from olmcat.olmv1.bundle import RegistryV1

__all__ = [
    "ConfigError",
    "bundle_config_schema",
    "deployment_config",
    "unmarshal_config",
    "watch_namespace",
]

WATCH_NAMESPACE = "watchNamespace"
NAMESPACE_PATTERN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
FORMAT_OWN = "ownNamespaceInstallMode"
FORMAT_SINGLE = "singleNamespaceInstallMode"
SCHEMA_LOCATION = "file:///config-schema.json"


class ConfigError(ValidationError):
    """The configuration does not validate; the message is v1.11.0's."""


@cache
def _base_schema_text() -> str:
    return resources.files("olmcat.olmv1").joinpath("registryv1bundleconfig.json").read_text()


def base_schema() -> dict[str, Any]:
    """v1.11.0's registry+v1 bundle configuration schema, unmodified (a fresh copy)."""
    return dict(json.loads(_base_schema_text()))


def bundle_config_schema(rv1: RegistryV1) -> dict[str, Any]:
    """``RegistryV1.GetConfigSchema``: the base schema with ``watchNamespace`` for the bundle's
    supported install modes."""
    return config_schema_for_modes(rv1.supported_install_modes())


def config_schema_for_modes(modes: set[str]) -> dict[str, Any]:
    schema = base_schema()
    properties = schema["properties"]
    has_own = "OwnNamespace" in modes
    has_single = "SingleNamespace" in modes
    if not (has_own or has_single):
        properties.pop(WATCH_NAMESPACE, None)
        _remove_required(schema, WATCH_NAMESPACE)
        return schema
    field_schema: dict[str, Any] = {
        "type": "string",
        "minLength": 1,
        "maxLength": 63,
        "pattern": NAMESPACE_PATTERN,
    }
    if has_own and not has_single:
        field_schema["format"] = FORMAT_OWN
    elif has_single and not has_own:
        field_schema["format"] = FORMAT_SINGLE
    description = "The namespace that the operator should watch for custom resources"
    if "AllNamespaces" not in modes:
        field_schema["description"] = description
        properties[WATCH_NAMESPACE] = field_schema
        required = schema.get("required") or []
        if WATCH_NAMESPACE not in required:
            schema["required"] = [*required, WATCH_NAMESPACE]
    else:
        properties[WATCH_NAMESPACE] = {
            "description": description,
            "anyOf": [{"type": "null"}, field_schema],
        }
        _remove_required(schema, WATCH_NAMESPACE)
    return schema


def _remove_required(schema: dict[str, Any], name: str) -> None:
    required = [r for r in schema.get("required") or [] if r != name]
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)


# -- the validator --------------------------------------------------------------------------------


@dataclass
class _Error:
    """A santhosh-tekuri/jsonschema v6 ``ValidationError``: its kind, message and causes."""

    kind: str
    message: str
    location: tuple[str, ...]
    causes: list[_Error] = field(default_factory=list)
    want: int = 0
    got: int = 0
    pattern: str = ""


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, int | float):
        return "number"
    return "string"


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _quote(text: str) -> str:
    """The library's ``quote``: Go ``%q`` with ``"`` unescaped and ``'`` escaped, in ``'...'``."""
    from olmcat.olmv1.validators import go_quote

    inner = go_quote(text)[1:-1].replace('\\"', '"').replace("'", "\\'")
    return f"'{inner}'"


def _display(value: Any) -> str:
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, list | dict):
        return "value"
    if value is None:
        return "<nil>"
    if value is True or value is False:
        return "true" if value else "false"
    return str(value)


class _Validator:
    def __init__(self, root: dict[str, Any], install_namespace: str) -> None:
        self.root = root
        self.install_namespace = install_namespace

    def _resolve(self, ref: str) -> dict[str, Any]:
        if not ref.startswith("#"):
            raise ConfigError(f"failed to compile schema: unsupported $ref {ref!r}")
        node: Any = self.root
        for part in ref[1:].split("/")[1:] if ref != "#" else []:
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[int(part)] if isinstance(node, list) else node[part]
        return dict(node)

    def _format_error(self, name: str, value: Any) -> str | None:
        if name in (FORMAT_OWN, FORMAT_SINGLE):
            if not self.install_namespace:
                return None
            if not isinstance(value, str):
                return "value must be a string"
            ns = self.install_namespace
            if name == FORMAT_OWN and value != ns:
                return (
                    f"invalid value {_go_q(value)}: must be {_go_q(ns)} (the namespace where the "
                    "operator is installed) because this operator only supports OwnNamespace "
                    "install mode"
                )
            if name == FORMAT_SINGLE and value == ns:
                return (
                    f"invalid value {_go_q(value)}: must be different from {_go_q(ns)} (the "
                    "install namespace) because this operator uses SingleNamespace install mode "
                    "to watch a different namespace"
                )
            return None
        if name == "date-time" and isinstance(value, str) and not valid_rfc3339(value):
            return "invalid date-time"
        return None

    def validate(self, schema: Any, value: Any, loc: tuple[str, ...]) -> _Error | None:
        if schema is True or schema is None:
            return None
        if schema is False:
            return _Error("false", "false schema", loc)
        errors: list[_Error] = []
        kind = _type_of(value)
        types = schema.get("type")
        if types is not None:
            wanted = [types] if isinstance(types, str) else list(types)
            matched = kind in wanted or (
                "integer" in wanted and kind == "number" and _is_integer(value)
            )
            if not matched:
                return _Error("type", f"got {kind}, want {' or '.join(wanted)}", loc)
        if "enum" in schema and value not in schema["enum"]:
            shown = ", ".join(_display(v) for v in schema["enum"])
            many = len(schema["enum"]) > 1
            return _Error("enum", f"value must be {'one of ' if many else ''}{shown}", loc)
        if "format" in schema:
            problem = self._format_error(schema["format"], value)
            if problem is not None:
                message = f"{_display(value)} is not valid {schema['format']}: {problem}"
                return _Error("format", message, loc)
        if "$ref" in schema:
            inner = self.validate(self._resolve(schema["$ref"]), value, loc)
            if inner is None:
                return None
            causes = inner.causes if inner.kind == "group" else [inner]
            return _Error("reference", "validation failed", loc, causes)
        if isinstance(value, dict):
            self._object(schema, value, loc, errors)
        elif isinstance(value, list):
            items = schema.get("items")
            if isinstance(items, dict):
                for index, item in enumerate(value):
                    self._add(errors, self.validate(items, item, (*loc, str(index))))
        elif isinstance(value, str):
            self._string(schema, value, loc, errors)
        elif kind == "number":
            self._number(schema, value, loc, errors)
        self._combinators(schema, value, loc, errors)
        if not errors:
            return None
        if len(errors) == 1:
            return errors[0]
        return _Error("group", "validation failed", loc, errors)

    @staticmethod
    def _add(errors: list[_Error], error: _Error | None) -> None:
        if error is not None:
            errors.append(error)

    def _object(
        self,
        schema: dict[str, Any],
        value: dict[str, Any],
        loc: tuple[str, ...],
        errors: list[_Error],
    ) -> None:
        missing = [name for name in schema.get("required") or [] if name not in value]
        if missing:
            if len(missing) == 1:
                message = f"missing property {_quote(missing[0])}"
            else:
                message = "missing properties " + ", ".join(_quote(m) for m in missing)
            errors.append(_Error("required", message, loc))
        properties = schema.get("properties") or {}
        additional = schema.get("additionalProperties")
        extra = []
        for name, item in value.items():
            if name in properties:
                self._add(errors, self.validate(properties[name], item, (*loc, name)))
            elif additional is False:
                extra.append(name)
            elif isinstance(additional, dict):
                self._add(errors, self.validate(additional, item, (*loc, name)))
        if extra:
            names = ", ".join(_quote(e) for e in extra)
            message = f"additional properties {names} not allowed"
            errors.append(_Error("additionalProperties", message, loc))

    def _string(
        self, schema: dict[str, Any], value: str, loc: tuple[str, ...], errors: list[_Error]
    ) -> None:
        length = len(value)
        if "minLength" in schema and length < schema["minLength"]:
            errors.append(
                _Error(
                    "minLength",
                    f"minLength: got {length}, want {schema['minLength']}",
                    loc,
                    want=schema["minLength"],
                    got=length,
                )
            )
        if "maxLength" in schema and length > schema["maxLength"]:
            errors.append(
                _Error(
                    "maxLength",
                    f"maxLength: got {length}, want {schema['maxLength']}",
                    loc,
                    want=schema["maxLength"],
                    got=length,
                )
            )
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(
                _Error(
                    "pattern",
                    f"{_quote(value)} does not match pattern {_quote(schema['pattern'])}",
                    loc,
                    pattern=schema["pattern"],
                )
            )

    def _number(
        self, schema: dict[str, Any], value: float, loc: tuple[str, ...], errors: list[_Error]
    ) -> None:
        checks: tuple[tuple[str, Any], ...] = (
            ("minimum", lambda limit: value < limit),
            ("maximum", lambda limit: value > limit),
            ("exclusiveMinimum", lambda limit: value <= limit),
            ("exclusiveMaximum", lambda limit: value >= limit),
        )
        for key, failed in checks:
            if key in schema and failed(schema[key]):
                got, want = _go_v_float(value), _go_v_float(schema[key])
                errors.append(_Error(key, f"{key}: got {got}, want {want}", loc))

    def _combinators(
        self, schema: dict[str, Any], value: Any, loc: tuple[str, ...], errors: list[_Error]
    ) -> None:
        if schema.get("allOf"):
            failed = [
                e for e in (self.validate(s, value, loc) for s in schema["allOf"]) if e is not None
            ]
            if failed:
                errors.append(_Error("allOf", "'allOf' failed", loc, failed))
        if schema.get("anyOf"):
            results = [self.validate(s, value, loc) for s in schema["anyOf"]]
            if all(r is not None for r in results):
                errors.append(_Error("anyOf", "'anyOf' failed", loc, [r for r in results if r]))
        if schema.get("oneOf"):
            results = [self.validate(s, value, loc) for s in schema["oneOf"]]
            matched = [i for i, r in enumerate(results) if r is None]
            if not matched:
                errors.append(
                    _Error("oneOf", "'oneOf' failed, none matched", loc, [r for r in results if r])
                )
            elif len(matched) > 1:
                errors.append(
                    _Error(
                        "oneOf",
                        f"'oneOf' failed, subschemas {matched[0]}, {matched[1]} matched",
                        loc,
                    )
                )


def _go_q(text: str) -> str:
    from olmcat.olmv1.validators import go_quote

    return go_quote(text)


def _go_v_float(value: float) -> str:
    """Go's ``%v`` of a float64."""
    from olmcat.go.json import go_float

    number = float(value)
    return go_float(number) if not number.is_integer() or abs(number) >= 1e21 else str(int(number))


# -- the messages (formatSchemaError) -------------------------------------------------------------


def _flatten(error: _Error) -> list[tuple[_Error, tuple[str, ...]]]:
    """``BasicOutput``'s units under ``error``: (error kind, instance location) per unit."""
    units: list[tuple[_Error, tuple[str, ...]]] = []
    for cause in error.causes:
        if cause.kind == "reference" and len(cause.causes) == 1:
            # The library "skips" a reference with one cause: it keeps only the first unit
            # under it (the cause's location) and gives it the reference's kind, so neither the
            # cause's own error nor anything below it is reported.
            units.append((cause, cause.causes[0].location))
            continue
        units.append((cause, cause.location))
        units.extend(_flatten(cause))
    return units


def _field_path(location: tuple[str, ...]) -> str:
    return ".".join(location)


def _single(error: _Error, location: tuple[str, ...]) -> str:
    path = _field_path(location)
    if error.kind == "required":
        name = error.message.split("'")[1] if "'" in error.message else ""
        return f"required field {_go_q(name)} is missing" if name else "required field is missing"
    if error.kind == "additionalProperties":
        name = error.message.split("'")[1] if "'" in error.message else ""
        return f"unknown field {_go_q(name)}" if name else "unknown field"
    if error.kind == "type":
        if path:
            if "got null" in error.message:
                return f"required field {_go_q(path)} is missing"
            return f"invalid type for field {_go_q(path)}: {error.message}"
        return f"invalid type: {error.message}"
    if error.kind == "format":
        if path:
            return f"invalid format for field {_go_q(path)}: {error.message}"
        return f"invalid format: {error.message}"
    if error.kind == "anyOf":
        return f"invalid value for field {_go_q(path)}" if path else "invalid value"
    if error.kind in ("maxLength", "minLength") and path:
        which = "maximum" if error.kind == "maxLength" else "minimum"
        return f"field {_go_q(path)} must have {which} length of {error.want} (len={error.got})"
    if error.kind == "pattern" and path:
        return f"field {_go_q(path)} must match pattern {_go_q(error.pattern)}"
    return error.message


def _schema_error_text(error: _Error) -> str:
    root = _Error("schema", "", (), error.causes if error.kind == "group" else [error])
    messages = [m for m in (_single(e, loc) for e, loc in _flatten(root)) if m]
    if len(messages) == 1:
        return messages[0]
    return "multiple errors found:\n  - " + "\n  - ".join(messages)


_YAML_PROBLEM = re.compile(r":\s*([^:]*?)(?: \(while [^)]*\))?$")


def _parse(raw: str | None) -> Any:
    text = "{}" if raw is None else raw
    try:
        return load(text, where="config")
    except InputError as error:
        match = _YAML_PROBLEM.search(str(error))
        reason = match.group(1).strip() if match else str(error)
        raise ConfigError(f"invalid configuration: {reason}") from None


def unmarshal_config(
    raw: str | None, schema: dict[str, Any] | None, install_namespace: str
) -> dict[str, Any]:
    """``config.UnmarshalConfig``: the configuration (YAML or JSON text; None is ``{}``) checked
    against ``schema`` (None: not checked); a :class:`ConfigError` worded as v1.11.0 words it."""
    data = _parse(raw)
    if schema is not None:
        error = _Validator(schema, install_namespace).validate(schema, data, ())
        if error is not None:
            raise ConfigError(f"invalid configuration: {_schema_error_text(error)}")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError("error unmarshalling configuration: input is not a valid JSON object")
    return data


def watch_namespace(config: dict[str, Any]) -> str | None:
    """``Config.GetWatchNamespace``: None when unset or null."""
    value = config.get(WATCH_NAMESPACE)
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value)


def deployment_config(config: dict[str, Any]) -> dict[str, Any] | None:
    """``Config.GetDeploymentConfig``: a copy, None when unset or null."""
    value = config.get("deploymentConfig")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigError(
            "failed to unmarshal deploymentConfig: json: cannot unmarshal "
            f"{_type_of(value)} into Go value of type v1alpha1.SubscriptionConfig"
        )
    return copy.deepcopy(value)
