"""opm's ``bundle-object-to-csv-metadata`` migration: ``olm.csv.metadata`` from a bundle's CSV.

opm ``json.Unmarshal``s the CSV into operator-framework/api ``v1alpha1.ClusterServiceVersion``,
copies some of it into operator-registry's ``property.CSVMetadata`` and marshals that with
``json.Encoder`` (``SetEscapeHTML(false)``) and ``json.Compact``. To write the same bytes we model
the Go types as data: a table of struct specs with Go's JSON tags, a decoder with
``encoding/json``'s rules (keys matched exactly, then case-insensitively; unknown keys dropped;
``null`` leaves a scalar or struct as it was; type mismatches fail the whole decode) and an encoder
with its output rules (struct field order, sorted map keys, ``omitempty`` never omits a struct).

The whole CSV is decoded, not just the fields CSVMetadata reads, because any type error anywhere
makes opm fail. Only a deployment's ``spec`` (the large ``apps/v1.DeploymentSpec`` tree) is not
modelled: it must be an object (or null), and nothing inside it is checked.
"""

from __future__ import annotations

import dataclasses
import json
import json.decoder
import json.scanner
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from olmcat.errors import InputError
from olmcat.go.json import compact, go_float, go_string
from olmcat.go.opm import MIGRATE_TO_CSV_METADATA, NEWEST, MigrateLevel, OpmRelease
from olmcat.go.semver import parse_version_tolerant
from olmcat.model import Bundle, PackageCatalog
from olmcat.model.property import (
    TYPE_BUNDLE_OBJECT,
    TYPE_CSV_METADATA,
    Property,
    bundle_object_data,
)
from olmcat.notices import Notice, NoticeSink, discard

__all__ = [
    "BundleForm",
    "as_rendered_by",
    "bundle_objects_to_csv_metadata",
    "csv_metadata",
    "csv_metadata_default_notice",
    "default_csv_metadata",
    "migrate_bundle",
    "rendered_manifests",
]

CSV_KIND: Final = "ClusterServiceVersion"
_CSV_KIND_BYTES: Final = CSV_KIND.encode()


# --------------------------------------------------------------------------------------------------
# Go types as data
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Scalar:
    """A Go type decoded by a rule of its own (see ``_decode_scalar``)."""

    kind: str


@dataclass(frozen=True, slots=True)
class _Slice:
    item: GoType


@dataclass(frozen=True, slots=True)
class _Map:
    """``map[string]item``."""

    item: GoType


@dataclass(frozen=True, slots=True)
class _Ptr:
    item: GoType


@dataclass(frozen=True, slots=True)
class _Field:
    key: str
    type: GoType
    omitempty: bool


@dataclass(frozen=True, slots=True)
class _Struct:
    name: str
    fields: tuple[_Field, ...]
    by_key: dict[str, _Field]
    by_folded_key: dict[str, _Field]


GoType: TypeAlias = _Scalar | _Slice | _Map | _Ptr | _Struct

STRING: Final = _Scalar("string")
BOOL: Final = _Scalar("bool")
INT32: Final = _Scalar("int32")
INT64: Final = _Scalar("int64")
RAW: Final = _Scalar("json.RawMessage")
# A struct whose contents opm never reads and we do not model: only "object or null" is checked.
OPAQUE: Final = _Scalar("opaque struct")
VERSION: Final = _Scalar("version.OperatorVersion")
# operator-framework/api v0.37.0's release.OperatorRelease (opm v1.62.0 and later).
RELEASE: Final = _Scalar("release.OperatorRelease")
TIME: Final = _Scalar("metav1.Time")
INT_OR_STRING: Final = _Scalar("intstr.IntOrString")
FIELDS_V1: Final = _Scalar("metav1.FieldsV1")

_INT_RANGES: Final = {"int32": 2**31, "int64": 2**63}


def _fold(key: str) -> str:
    """Go's case-insensitive key folding (``bytes.EqualFold``), enough for ASCII field names.

    Besides ASCII letters, only the Kelvin sign and the long s fold onto ASCII letters.
    """
    if key.isascii():
        return key.upper()
    return "".join(_FOLD_EXTRA.get(c, c.upper() if c.isascii() else c) for c in key)


_FOLD_EXTRA: Final = {"\u212a": "K", "\u017f": "S"}


def _struct(name: str, *tags: tuple[str, GoType]) -> _Struct:
    """A struct spec from ``(json tag, type)`` pairs, in Go declaration order."""
    fields = []
    for tag, type_ in tags:
        key, _, options = tag.partition(",")
        fields.append(_Field(key, type_, options == "omitempty"))
    by_folded: dict[str, _Field] = {}
    for f in fields:
        by_folded.setdefault(_fold(f.key), f)  # the first field wins, as in Go
    return _Struct(name, tuple(fields), {f.key: f for f in fields}, by_folded)


STRINGS: Final = _Slice(STRING)
STRING_MAP: Final = _Map(STRING)

# operator-framework/api pkg/operators/v1alpha1/clusterserviceversion_types.go
API_RESOURCE_REFERENCE: Final = _struct(
    "APIResourceReference", ("name", STRING), ("kind", STRING), ("version", STRING)
)


def _descriptor(name: str) -> _Struct:
    # SpecDescriptor, StatusDescriptor and ActionDescriptor share one layout.
    return _struct(
        name,
        ("path", STRING),
        ("displayName,omitempty", STRING),
        ("description,omitempty", STRING),
        ("x-descriptors,omitempty", STRINGS),
        ("value,omitempty", RAW),
    )


_DESCRIPTOR_TAGS: Final[tuple[tuple[str, GoType], ...]] = (
    ("resources,omitempty", _Slice(API_RESOURCE_REFERENCE)),
    ("statusDescriptors,omitempty", _Slice(_descriptor("StatusDescriptor"))),
    ("specDescriptors,omitempty", _Slice(_descriptor("SpecDescriptor"))),
    ("actionDescriptors,omitempty", _Slice(_descriptor("ActionDescriptor"))),
)
CRD_DESCRIPTION: Final = _struct(
    "CRDDescription",
    ("name", STRING),
    ("version", STRING),
    ("kind", STRING),
    ("displayName,omitempty", STRING),
    ("description,omitempty", STRING),
    *_DESCRIPTOR_TAGS,
)
API_SERVICE_DESCRIPTION: Final = _struct(
    "APIServiceDescription",
    ("name", STRING),
    ("group", STRING),
    ("version", STRING),
    ("kind", STRING),
    ("deploymentName,omitempty", STRING),
    ("containerPort,omitempty", INT32),
    ("displayName,omitempty", STRING),
    ("description,omitempty", STRING),
    *_DESCRIPTOR_TAGS,
)
CUSTOM_RESOURCE_DEFINITIONS: Final = _struct(
    "CustomResourceDefinitions",
    ("owned,omitempty", _Slice(CRD_DESCRIPTION)),
    ("required,omitempty", _Slice(CRD_DESCRIPTION)),
)
API_SERVICE_DEFINITIONS: Final = _struct(
    "APIServiceDefinitions",
    ("owned,omitempty", _Slice(API_SERVICE_DESCRIPTION)),
    ("required,omitempty", _Slice(API_SERVICE_DESCRIPTION)),
)
INSTALL_MODE: Final = _struct("InstallMode", ("type", STRING), ("supported", BOOL))
APP_LINK: Final = _struct("AppLink", ("name,omitempty", STRING), ("url,omitempty", STRING))
MAINTAINER: Final = _struct("Maintainer", ("name,omitempty", STRING), ("email,omitempty", STRING))
# k8s.io/apimachinery pkg/apis/meta/v1
GROUP_VERSION_KIND: Final = _struct(
    "GroupVersionKind", ("group", STRING), ("version", STRING), ("kind", STRING)
)
LABEL_SELECTOR: Final = _struct(
    "LabelSelector",
    ("matchLabels,omitempty", STRING_MAP),
    (
        "matchExpressions,omitempty",
        _Slice(
            _struct(
                "LabelSelectorRequirement",
                ("key", STRING),
                ("operator", STRING),
                ("values,omitempty", STRINGS),
            )
        ),
    ),
)
OBJECT_META: Final = _struct(
    "ObjectMeta",
    ("name,omitempty", STRING),
    ("generateName,omitempty", STRING),
    ("namespace,omitempty", STRING),
    ("selfLink,omitempty", STRING),
    ("uid,omitempty", STRING),
    ("resourceVersion,omitempty", STRING),
    ("generation,omitempty", INT64),
    ("creationTimestamp,omitempty", TIME),
    ("deletionTimestamp,omitempty", _Ptr(TIME)),
    ("deletionGracePeriodSeconds,omitempty", _Ptr(INT64)),
    ("labels,omitempty", STRING_MAP),
    ("annotations,omitempty", STRING_MAP),
    (
        "ownerReferences,omitempty",
        _Slice(
            _struct(
                "OwnerReference",
                ("apiVersion", STRING),
                ("kind", STRING),
                ("name", STRING),
                ("uid", STRING),
                ("controller,omitempty", _Ptr(BOOL)),
                ("blockOwnerDeletion,omitempty", _Ptr(BOOL)),
            )
        ),
    ),
    ("finalizers,omitempty", STRINGS),
    (
        "managedFields,omitempty",
        _Slice(
            _struct(
                "ManagedFieldsEntry",
                ("manager,omitempty", STRING),
                ("operation,omitempty", STRING),
                ("apiVersion,omitempty", STRING),
                ("time,omitempty", _Ptr(TIME)),
                ("fieldsType,omitempty", STRING),
                ("fieldsV1,omitempty", _Ptr(FIELDS_V1)),
                ("subresource,omitempty", STRING),
            )
        ),
    ),
)
# k8s.io/api rbac/v1
POLICY_RULE: Final = _struct(
    "PolicyRule",
    ("verbs", STRINGS),
    ("apiGroups,omitempty", STRINGS),
    ("resources,omitempty", STRINGS),
    ("resourceNames,omitempty", STRINGS),
    ("nonResourceURLs,omitempty", STRINGS),
)
PERMISSIONS: Final = _Slice(
    _struct(
        "StrategyDeploymentPermissions",
        ("serviceAccountName", STRING),
        ("rules", _Slice(POLICY_RULE)),
    )
)
NAMED_INSTALL_STRATEGY: Final = _struct(
    "NamedInstallStrategy",
    ("strategy", STRING),
    (
        "spec,omitempty",
        _struct(
            "StrategyDetailsDeployment",
            (
                "deployments",
                _Slice(
                    _struct(
                        "StrategyDeploymentSpec",
                        ("name", STRING),
                        ("spec", OPAQUE),  # apps/v1 DeploymentSpec
                        ("label,omitempty", STRING_MAP),
                    )
                ),
            ),
            ("permissions,omitempty", PERMISSIONS),
            ("clusterPermissions,omitempty", PERMISSIONS),
        ),
    ),
)
# k8s.io/api admissionregistration/v1 RuleWithOperations (Rule is embedded inline)
WEBHOOK_RULE: Final = _struct(
    "RuleWithOperations",
    ("operations,omitempty", STRINGS),
    ("apiGroups,omitempty", STRINGS),
    ("apiVersions,omitempty", STRINGS),
    ("resources,omitempty", STRINGS),
    ("scope,omitempty", _Ptr(STRING)),
)
WEBHOOK_DESCRIPTION: Final = _struct(
    "WebhookDescription",
    ("generateName", STRING),
    ("type", STRING),
    ("deploymentName,omitempty", STRING),
    ("containerPort,omitempty", INT32),
    ("targetPort,omitempty", _Ptr(INT_OR_STRING)),
    ("rules,omitempty", _Slice(WEBHOOK_RULE)),
    ("failurePolicy,omitempty", _Ptr(STRING)),
    ("matchPolicy,omitempty", _Ptr(STRING)),
    ("objectSelector,omitempty", _Ptr(LABEL_SELECTOR)),
    ("sideEffects", _Ptr(STRING)),
    ("timeoutSeconds,omitempty", _Ptr(INT32)),
    ("admissionReviewVersions", STRINGS),
    ("reinvocationPolicy,omitempty", _Ptr(STRING)),
    ("webhookPath,omitempty", _Ptr(STRING)),
    ("conversionCRDs,omitempty", STRINGS),
)
CONVERSION_WEBHOOK_DESCRIPTION: Final = _struct(
    "ConversionWebhookDescription",
    ("generateName", STRING),
    ("deploymentName", STRING),
    ("url,omitempty", _Ptr(STRING)),
    ("containerPort,omitempty", _Ptr(INT32)),
    ("targetPort,omitempty", _Ptr(INT_OR_STRING)),
    ("webhookPath,omitempty", _Ptr(STRING)),
    ("conversionCRDs", STRINGS),
    ("conversionReviewVersions", STRINGS),
)
CSV_SPEC: Final = _struct(
    "ClusterServiceVersionSpec",
    ("install", NAMED_INSTALL_STRATEGY),
    ("version,omitempty", VERSION),
    ("maturity,omitempty", STRING),
    ("customresourcedefinitions,omitempty", CUSTOM_RESOURCE_DEFINITIONS),
    ("apiservicedefinitions,omitempty", API_SERVICE_DEFINITIONS),
    ("webhookdefinitions,omitempty", _Slice(WEBHOOK_DESCRIPTION)),
    ("nativeAPIs,omitempty", _Slice(GROUP_VERSION_KIND)),
    ("minKubeVersion,omitempty", STRING),
    ("displayName", STRING),
    ("description,omitempty", STRING),
    ("keywords,omitempty", STRINGS),
    ("maintainers,omitempty", _Slice(MAINTAINER)),
    ("provider,omitempty", APP_LINK),
    ("links,omitempty", _Slice(APP_LINK)),
    ("icon,omitempty", _Slice(_struct("Icon", ("base64data", STRING), ("mediatype", STRING)))),
    ("conversionwebhookdefinitions,omitempty", _Slice(CONVERSION_WEBHOOK_DESCRIPTION)),
    ("installModes,omitempty", _Slice(INSTALL_MODE)),
    ("replaces,omitempty", STRING),
    ("labels,omitempty", STRING_MAP),
    ("annotations,omitempty", STRING_MAP),
    ("selector,omitempty", _Ptr(LABEL_SELECTOR)),
    ("cleanup,omitempty", _struct("CleanupSpec", ("enabled", BOOL))),
    ("skips,omitempty", STRINGS),
    (
        "relatedImages,omitempty",
        _Slice(_struct("RelatedImage", ("name", STRING), ("image", STRING))),
    ),
)
_CONDITION_TAGS: Final[tuple[tuple[str, GoType], ...]] = (
    ("phase,omitempty", STRING),
    ("message,omitempty", STRING),
    ("reason,omitempty", STRING),
    ("lastUpdateTime,omitempty", _Ptr(TIME)),
    ("lastTransitionTime,omitempty", _Ptr(TIME)),
)
CSV_STATUS: Final = _struct(
    "ClusterServiceVersionStatus",
    *_CONDITION_TAGS,
    ("conditions,omitempty", _Slice(_struct("ClusterServiceVersionCondition", *_CONDITION_TAGS))),
    (
        "requirementStatus,omitempty",
        _Slice(
            _struct(
                "RequirementStatus",
                ("group", STRING),
                ("version", STRING),
                ("kind", STRING),
                ("name", STRING),
                ("status", STRING),
                ("message", STRING),
                ("uuid,omitempty", STRING),
                (
                    "dependents,omitempty",
                    _Slice(
                        _struct(
                            "DependentStatus",
                            ("group", STRING),
                            ("version", STRING),
                            ("kind", STRING),
                            ("status", STRING),
                            ("uuid,omitempty", STRING),
                            ("message,omitempty", STRING),
                        )
                    ),
                ),
            )
        ),
    ),
    ("certsLastUpdated,omitempty", _Ptr(TIME)),
    ("certsRotateAt,omitempty", _Ptr(TIME)),
    (
        "cleanup,omitempty",
        _struct(
            "CleanupStatus",
            (
                "pendingDeletion,omitempty",
                _Slice(
                    _struct(
                        "ResourceList",
                        ("group", STRING),
                        ("kind", STRING),
                        (
                            "instances",
                            _Slice(
                                _struct(
                                    "ResourceInstance",
                                    ("name", STRING),
                                    ("namespace,omitempty", STRING),
                                )
                            ),
                        ),
                    )
                ),
            ),
        ),
    ),
)
CLUSTER_SERVICE_VERSION: Final = _struct(
    "ClusterServiceVersion",
    ("apiVersion,omitempty", STRING),  # metav1.TypeMeta, embedded: its fields are promoted
    ("kind,omitempty", STRING),
    ("metadata", OBJECT_META),
    ("spec", CSV_SPEC),
    ("status", CSV_STATUS),
)
# The same with spec.release (operator-framework/api v0.37.0, in opm since v1.62.0).
CLUSTER_SERVICE_VERSION_WITH_RELEASE: Final = _struct(
    "ClusterServiceVersion",
    ("apiVersion,omitempty", STRING),
    ("kind,omitempty", STRING),
    ("metadata", OBJECT_META),
    (
        "spec",
        _struct(
            CSV_SPEC.name,
            *((f.key + (",omitempty" if f.omitempty else ""), f.type) for f in CSV_SPEC.fields[:2]),
            ("release", RELEASE),
            *((f.key + (",omitempty" if f.omitempty else ""), f.type) for f in CSV_SPEC.fields[2:]),
        ),
    ),
    ("status", CSV_STATUS),
)

# operator-registry alpha/property/property.go
CSV_METADATA: Final = _struct(
    "CSVMetadata",
    ("annotations,omitempty", STRING_MAP),
    ("apiServiceDefinitions,omitempty", API_SERVICE_DEFINITIONS),
    ("crdDescriptions,omitempty", CUSTOM_RESOURCE_DEFINITIONS),
    ("description,omitempty", STRING),
    ("displayName,omitempty", STRING),
    ("installModes,omitempty", _Slice(INSTALL_MODE)),
    ("keywords,omitempty", STRINGS),
    ("labels,omitempty", STRING_MAP),
    ("links,omitempty", _Slice(APP_LINK)),
    ("maintainers,omitempty", _Slice(MAINTAINER)),
    ("maturity,omitempty", STRING),
    ("minKubeVersion,omitempty", STRING),
    ("nativeAPIs,omitempty", _Slice(GROUP_VERSION_KIND)),
    ("provider,omitempty", APP_LINK),
)
# Where MustBuildCSVMetadata takes each CSVMetadata field from (metadata = ObjectMeta).
CSV_METADATA_SOURCES: Final[dict[str, tuple[str, str]]] = {
    "annotations": ("metadata", "annotations"),
    "apiServiceDefinitions": ("spec", "apiservicedefinitions"),
    "crdDescriptions": ("spec", "customresourcedefinitions"),
    "description": ("spec", "description"),
    "displayName": ("spec", "displayName"),
    "installModes": ("spec", "installModes"),
    "keywords": ("spec", "keywords"),
    "labels": ("metadata", "labels"),
    "links": ("spec", "links"),
    "maintainers": ("spec", "maintainers"),
    "maturity": ("spec", "maturity"),
    "minKubeVersion": ("spec", "minKubeVersion"),
    "nativeAPIs": ("spec", "nativeAPIs"),
    "provider": ("spec", "provider"),
}


# --------------------------------------------------------------------------------------------------
# Decoding (json.Unmarshal). Go values: a struct is a dict of the fields that were set (missing =
# zero value), a nil slice / map / pointer is None, json.RawMessage is its compact text.
# --------------------------------------------------------------------------------------------------


class _Number:
    """A JSON number kept as its source text (json.RawMessage keeps the literal as written)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _EscapedStr(str):
    """A decoded JSON string that also remembers its source text (a RawMessage keeps escapes)."""

    raw: str


class _DecodeError(Exception):
    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"field {path}: {problem}" if path else problem)


def _member(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


_SURROGATE = re.compile("[\ud800-\udfff]")
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:[.,][0-9]+)?"
    r"(?:Z|[+-]([0-9]{2}):([0-9]{2}))"
)
_DAYS_IN_MONTH: Final = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float | _Number):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _mismatch(value: Any, go_type: str, path: str) -> _DecodeError:
    return _DecodeError(path, f"cannot decode {_json_kind(value)} into Go type {go_type}")


def _go_str(value: str) -> str:
    # Go decodes an unpaired surrogate escape to U+FFFD (Python keeps it and could not encode it).
    return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value


def _decode(type_: GoType, value: Any, current: Any, path: str) -> Any:
    """Decode JSON ``value`` into ``current`` (a Go value of ``type_``) as encoding/json does.

    Decoding into the current value (not a fresh one) matters only for repeated keys, where Go
    merges a second object into the struct decoded from the first.
    """
    if isinstance(type_, _Scalar):
        return _decode_scalar(type_, value, current, path)
    if value is None:  # null: nil for slices, maps and pointers; a struct is left as it is
        return current if isinstance(type_, _Struct) else None
    if isinstance(type_, _Ptr):
        return _decode(type_.item, value, current, path)
    if isinstance(type_, _Slice):
        if not isinstance(value, list):
            raise _mismatch(value, "slice", path)
        old = current or []
        return [
            _decode(type_.item, item, old[i] if i < len(old) else None, f"{path}[{i}]")
            for i, item in enumerate(value)
        ]
    if not isinstance(value, dict):
        raise _mismatch(value, "map" if isinstance(type_, _Map) else type_.name, path)
    result: dict[str, Any] = dict(current) if current else {}
    if isinstance(type_, _Map):
        for key, item in value.items():
            # Each map element starts from the zero value, unlike struct fields.
            result[_go_str(key)] = _decode(type_.item, item, None, _member(path, key))
        return result
    for key, item in value.items():
        field = type_.by_key.get(key) or type_.by_folded_key.get(_fold(key))
        if field is not None:  # unknown keys are skipped
            result[field.key] = _decode(field.type, item, result.get(field.key), _member(path, key))
    return result


def _decode_scalar(type_: _Scalar, value: Any, current: Any, path: str) -> Any:
    kind = type_.kind
    if kind == "json.RawMessage":
        return _raw_text(value)  # null included: RawMessage("null") is not empty
    if kind == "metav1.FieldsV1":
        return None
    if kind == "version.OperatorVersion":
        # Its UnmarshalJSON runs even for null, and ParseTolerant("") fails.
        text = "" if value is None else value
        if not isinstance(text, str):
            raise _mismatch(value, "string (spec.version)", path)
        try:
            parse_version_tolerant(text)
        except InputError as exc:
            raise _DecodeError(path, str(exc)) from None
        return text
    if kind == "release.OperatorRelease":
        # Its UnmarshalJSON runs for null too: "" then fails as an empty identifier.
        _check_release(value, path)
        return None
    if value is None:
        return current  # null leaves a string, number, bool or struct unchanged
    if kind == "string":
        if not isinstance(value, str):
            raise _mismatch(value, "string", path)
        return _go_str(value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise _mismatch(value, "bool", path)
        return value
    if kind in _INT_RANGES:
        return _decode_int(value, kind, path)
    if kind == "opaque struct":
        if not isinstance(value, dict):
            raise _mismatch(value, "struct", path)
        return None
    if kind == "metav1.Time":
        if not isinstance(value, str):
            raise _mismatch(value, "string (metav1.Time)", path)
        _check_rfc3339(value, path)
        return value
    if kind == "intstr.IntOrString":
        return value if isinstance(value, str) else _decode_int(value, "int32", path)
    raise AssertionError(f"unknown scalar kind {kind}")


_RELEASE_IDENTIFIER = re.compile(r"[0-9A-Za-z-]+")


def _check_release(value: Any, path: str) -> None:
    """``OperatorRelease.UnmarshalJSON``: a string of dot-separated blang pre-release
    identifiers (alphanumerics and hyphens; numeric ones without leading zeros, within uint64)."""
    text = "" if value is None else value
    if not isinstance(text, str):
        raise _mismatch(value, "string (spec.release)", path)
    for part in text.split("."):
        if not part:
            raise _DecodeError(path, "Prerelease is empty")
        if part.isdigit() and part.isascii():
            if len(part) > 1 and part[0] == "0":
                raise _DecodeError(
                    path,
                    f"Numeric PreRelease version must not contain leading zeroes {go_string(part)}",
                )
            if int(part) >= 2**64:
                raise _DecodeError(path, f"{go_string(part)} is out of range for a numeric release")
        elif not _RELEASE_IDENTIFIER.fullmatch(part):
            raise _DecodeError(path, f"Invalid character(s) found in prerelease {go_string(part)}")


def _decode_int(value: Any, kind: str, path: str) -> int:
    if isinstance(value, _Number):
        # strconv.ParseInt: a literal with a fraction or exponent is not an integer.
        if len(value.text) > 25 or not _INTEGER.fullmatch(value.text):
            raise _DecodeError(path, f"cannot decode number {value.text} into Go type {kind}")
        value = int(value.text)
    if not isinstance(value, int) or isinstance(value, bool):
        raise _mismatch(value, kind, path)
    limit = _INT_RANGES[kind]
    if not -limit <= value < limit:
        raise _DecodeError(path, f"number {value} overflows Go type {kind}")
    return value


def _check_rfc3339(text: str, path: str) -> None:
    """``time.Parse(time.RFC3339, ...)`` as metav1.Time uses it (an approximation of Go's rules)."""
    match = _RFC3339.fullmatch(text)
    if match is not None:
        year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
        zone_hour, zone_minute = match.group(7), match.group(8)
        if 1 <= month <= 12:
            leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
            days = 28 + leap if month == 2 else _DAYS_IN_MONTH[month - 1]
            if (
                1 <= day <= days
                and hour < 24
                and minute < 60
                and second < 60
                # Go (since 1.20) accepts zone offsets up to 24:60 ("some people do write them").
                and (zone_hour is None or (int(zone_hour) <= 24 and int(zone_minute) <= 60))
            ):
                return
    raise _DecodeError(path, f"{go_string(text)} is not an RFC 3339 time")


def _raw_text(value: Any) -> str:
    """Compact JSON text of a json.RawMessage value.

    Keys stay in document order and strings are not HTML-escaped (json.Compact keeps the text as
    written); values parsed by ``_parse_csv`` are written back as their exact source text.
    """
    if isinstance(value, _SourceDict | _SourceList):
        return compact(value.source)
    if isinstance(value, str):
        return value.raw if isinstance(value, _EscapedStr) else go_string(_go_str(value))
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, _Number):
        return value.text
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, dict):
        body = ",".join(f"{go_string(_go_str(k))}:{_raw_text(v)}" for k, v in value.items())
        return "{" + body + "}"
    if isinstance(value, list):
        return "[" + ",".join(_raw_text(v) for v in value) + "]"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


# --------------------------------------------------------------------------------------------------
# Encoding (json.Encoder with SetEscapeHTML(false), then json.Compact)
# --------------------------------------------------------------------------------------------------


def _is_empty(type_: GoType, value: Any) -> bool:
    """Go's omitempty test; a struct is never empty."""
    if isinstance(type_, _Struct):
        return False
    return not value  # "", 0, false, nil, and zero-length slices, maps and RawMessages


def _encode(type_: GoType, value: Any) -> str:
    if isinstance(type_, _Struct):
        fields = value or {}
        parts = []
        for f in type_.fields:
            item = fields.get(f.key)
            if not (f.omitempty and _is_empty(f.type, item)):
                parts.append(f"{go_string(f.key)}:{_encode(f.type, item)}")
        return "{" + ",".join(parts) + "}"
    if isinstance(type_, _Slice):
        if value is None:
            return "null"
        return "[" + ",".join(_encode(type_.item, v) for v in value) + "]"
    if isinstance(type_, _Map):
        if value is None:
            return "null"
        items = sorted(value.items())  # Go sorts map keys (byte order = code point order)
        return "{" + ",".join(f"{go_string(k)}:{_encode(type_.item, v)}" for k, v in items) + "}"
    if isinstance(type_, _Ptr):
        return "null" if value is None else _encode(type_.item, value)
    kind = type_.kind
    if kind == "string":
        return go_string(value or "")
    if kind == "bool":
        return "true" if value else "false"
    if kind in _INT_RANGES:
        return str(value or 0)
    if kind == "json.RawMessage":
        return value if value else "null"
    raise AssertionError(f"CSVMetadata never encodes a {kind}")


# --------------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------------


def csv_metadata(csv: Mapping[str, Any], *, release_field: bool = True) -> Property:
    """The ``olm.csv.metadata`` property opm builds for ``csv`` (the CSV as parsed JSON).

    Raises :class:`InputError` naming the field when Go's ``json.Unmarshal`` of the CSV into
    ``v1alpha1.ClusterServiceVersion`` would fail (opm then fails the migration).
    ``release_field``: the CSV type has ``spec.release`` (opm v1.62.0 and later), whose value
    must then decode too.
    """
    spec = CLUSTER_SERVICE_VERSION_WITH_RELEASE if release_field else CLUSTER_SERVICE_VERSION
    try:
        decoded = _decode(spec, dict(csv), None, "")
    except _DecodeError as exc:
        meta = csv.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        what = f"CSV {name}" if isinstance(name, str) and name else "CSV"
        raise InputError(f"{what} cannot be read as opm reads it: {exc}") from None
    metadata = {
        key: (decoded.get(part) or {}).get(field)
        for key, (part, field) in CSV_METADATA_SOURCES.items()
    }
    return Property(TYPE_CSV_METADATA, _encode(CSV_METADATA, metadata))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _parse_int(text: str) -> Any:
    # Python's int is exact, so only "-0" and very long literals need their text kept.
    return _Number(text) if len(text) > 18 or text == "-0" else int(text)


# Stable but untyped stdlib internals: the pure-Python scanner lets us see where values start.
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_json_object: Callable[..., tuple[Any, int]] = json.decoder.JSONObject  # type: ignore[attr-defined]
_json_array: Callable[..., tuple[Any, int]] = json.decoder.JSONArray  # type: ignore[attr-defined]
_py_make_scanner: Callable[[Any], Callable[[str, int], tuple[Any, int]]] = (
    json.scanner.py_make_scanner  # type: ignore[attr-defined]
)
_VALUE_KEY = re.compile('"value"', re.IGNORECASE)


class _SourceDict(dict[str, Any]):
    """A parsed JSON object that knows its source text (duplicate keys, escapes and all)."""

    __slots__ = ("source",)
    source: str


class _SourceList(list[Any]):
    __slots__ = ("source",)
    source: str


class _SourceKeepingDecoder(json.JSONDecoder):
    """A JSON decoder whose values can be written back as their exact source text."""

    def __init__(self) -> None:
        super().__init__(
            parse_float=_Number,
            parse_int=_parse_int,
            parse_constant=_reject_constant,
            object_pairs_hook=_SourceDict,
        )
        self.parse_object = self._parse_object
        self.parse_array = self._parse_array
        self.parse_string = self._parse_string
        self.scan_once = _py_make_scanner(self)

    @staticmethod
    def _parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[Any, int]:
        obj, end = _json_object(s_and_end, *args)
        text, start = s_and_end
        obj.source = text[start - 1 : end]
        return obj, end

    @staticmethod
    def _parse_array(s_and_end: tuple[str, int], scan_once: Any) -> tuple[Any, int]:
        items, end = _json_array(s_and_end, scan_once)
        text, start = s_and_end
        result = _SourceList(items)
        result.source = text[start - 1 : end]
        return result, end

    @staticmethod
    def _parse_string(text: str, end: int, strict: bool) -> tuple[str, int]:
        value, after = _scanstring(text, end, strict)
        source = text[end - 1 : after]
        if "\\" not in source and "\u2028" not in value and "\u2029" not in value:
            return value, after  # go_string writes it back unchanged
        escaped = _EscapedStr(value)
        escaped.raw = source
        return escaped, after


def _parse_csv(text: str) -> Any:
    """Parse CSV JSON so that json.RawMessage fields can be written exactly as they were."""
    if _VALUE_KEY.search(text):
        # Only descriptor values are RawMessages; when there may be one, keep source text
        # (slower: the pure-Python scanner).
        return _SourceKeepingDecoder().decode(text)
    return json.loads(
        text, parse_float=_Number, parse_int=_parse_int, parse_constant=_reject_constant
    )


def _find_csv(bundle: Bundle) -> Any:
    """The first CSV among the bundle's inline ``olm.bundle.object`` properties, or None."""
    unreadable = 0
    for prop in bundle.properties_of(TYPE_BUNDLE_OBJECT):
        data = bundle_object_data(prop)
        if data is None or _CSV_KIND_BYTES not in data:
            continue
        try:
            obj = _parse_csv(data.decode("utf-8", errors="replace"))
        except ValueError:
            unreadable += 1  # opm reads only the CSV: another broken object does not matter
            continue
        if isinstance(obj, dict) and obj.get("kind") == CSV_KIND:
            return obj
    if unreadable:
        raise InputError("an olm.bundle.object that may be the CSV is not valid JSON")
    return None


def _migrate_bundle(bundle: Bundle, *, release_field: bool = True) -> Bundle:
    if not bundle.image:
        return bundle
    try:
        csv = _find_csv(bundle)
        if csv is None:
            return bundle
        # Decoded before the check below: opm unmarshals the CSV first and fails even then.
        metadata = csv_metadata(csv, release_field=release_field)
    except InputError as exc:
        raise InputError(f"bundle {bundle.name} (package {bundle.package}): {exc}") from None
    if any(p.type == TYPE_CSV_METADATA for p in bundle.properties):
        # opm v1.72 returns when it meets this property, but it has been compacting the kept
        # properties in place (same Go array): the bundle only stays intact when no kept
        # property follows an olm.bundle.object, as in opm's own order (objects last).
        return bundle
    kept = tuple(p for p in bundle.properties if p.type != TYPE_BUNDLE_OBJECT)
    return dataclasses.replace(bundle, properties=(*kept, metadata))


def bundle_objects_to_csv_metadata(
    pkg: PackageCatalog, release: OpmRelease = NEWEST
) -> PackageCatalog:
    """opm's ``bundle-object-to-csv-metadata`` migration over one package.

    A bundle with an image and a CSV among its ``olm.bundle.object`` properties loses all of those
    and gains one ``olm.csv.metadata`` property, last; other properties keep their order. Bundles
    without image or CSV, or that already have ``olm.csv.metadata``, are left as they are.
    """
    return dataclasses.replace(
        pkg, bundles=tuple(migrate_bundle(b, MIGRATE_TO_CSV_METADATA, release) for b in pkg.bundles)
    )


# --------------------------------------------------------------------------------------------------
# Migration levels and the olm.csv.metadata that releases v1.28.0-v1.45 wrote by default
# --------------------------------------------------------------------------------------------------


def migrate_bundle(bundle: Bundle, level: MigrateLevel, release: OpmRelease = NEWEST) -> Bundle:
    """``bundle`` after opm ``release``'s migrations up to ``level`` (``none``: unchanged)."""
    if level == "none":
        return bundle
    return _migrate_bundle(bundle, release_field=release.has("render-csv-release-field"))


def _is_csv_object(prop: Property) -> Any:
    """The CSV a ``olm.bundle.object`` holds (parsed), else None."""
    data = bundle_object_data(prop)
    if data is None or _CSV_KIND_BYTES not in data:
        return None
    try:
        obj = _parse_csv(data.decode("utf-8", errors="replace"))
    except ValueError:
        return None
    return obj if isinstance(obj, dict) and obj.get("kind") == CSV_KIND else None


def rendered_manifests(
    objects: Sequence[Property], release: OpmRelease, image: str
) -> list[Property]:
    """A rendered bundle's manifests (one ``olm.bundle.object`` each, as opm renders them
    today) as opm ``release`` writes them: from v1.28.0 to v1.45 a bundle with an image keeps
    only its CSV, as one ``olm.csv.metadata`` (the object itself where Go cannot decode the CSV);
    otherwise they are unchanged. The one implementation of ``render-csv-metadata-by-default``:
    :func:`olmcat.readers.bundlerender.render` and :func:`default_csv_metadata` call it."""
    if not image or not release.has("render-csv-metadata-by-default"):
        return list(objects)
    rendered: list[Property] = []
    for prop in objects:
        csv = _is_csv_object(prop)
        if csv is None:
            continue
        try:
            rendered.append(
                csv_metadata(csv, release_field=release.has("render-csv-release-field"))
            )
        except InputError:
            rendered.append(prop)
    return rendered


def default_csv_metadata(
    bundle: Bundle, release: OpmRelease, *, from_sqlite: bool = False
) -> Bundle:
    """The bundle as opm ``release`` renders it when it writes ``olm.csv.metadata`` by default
    (v1.28.0 to v1.45): unchanged for other releases and for bundles without an image.

    A rendered bundle (image or directory): :func:`rendered_manifests` of its objects, last. A
    bundle of an SQLite database (``from_sqlite``): all objects give way to one
    ``olm.csv.metadata`` when the CSV decodes, else all stay."""
    flavour = (
        "render-sqlite-csv-metadata-by-default" if from_sqlite else "render-csv-metadata-by-default"
    )
    if not release.has(flavour) or not bundle.image:
        return bundle
    objects = [p for p in bundle.properties if p.type == TYPE_BUNDLE_OBJECT]
    if not objects:
        return bundle
    kept = [p for p in bundle.properties if p.type != TYPE_BUNDLE_OBJECT]
    if from_sqlite:
        csv = next((c for c in map(_is_csv_object, objects) if c is not None), None)
        if csv is None:
            return bundle
        try:
            metadata = csv_metadata(csv, release_field=release.has("render-csv-release-field"))
        except InputError:
            return bundle
        return dataclasses.replace(bundle, properties=(*kept, metadata))
    rendered = rendered_manifests(objects, release, bundle.image)
    return dataclasses.replace(bundle, properties=(*kept, *rendered))


def csv_metadata_default_notice(package: str, bundle: str, release: OpmRelease) -> Notice:
    """The info notice for a bundle whose objects gave way to ``olm.csv.metadata`` because
    ``release`` renders bundles with an image so (v1.28.0 to v1.45)."""
    return Notice(
        "render.csv-metadata-default",
        f"package {package!r}: bundle {bundle!r}: olm.csv.metadata in place of "
        f"olm.bundle.object properties, as opm {release.tag} renders bundles with an image",
        "info",
        package=package,
        bundle=bundle,
    )


BundleForm = Literal["current", "sqlite", "release"]
"""What a bundle handed to :func:`as_rendered_by` already is: ``current`` — rendered as opm
renders it today, one ``olm.bundle.object`` per manifest (a catalog's blob, the bundle an index
build stores); ``sqlite`` — a bundle of an SQLite database (``opm migrate``, ``opm render DB``,
``add``); ``release`` — rendered by that very release already (``olmcat render``, a template's
bundle image): only the migrations are left to do."""


def as_rendered_by(
    bundle: Bundle,
    release: OpmRelease,
    level: MigrateLevel = "none",
    notify: NoticeSink = discard,
    *,
    form: BundleForm = "current",
) -> Bundle:
    """``bundle`` (in ``form``) as opm ``release`` writes it: ``olm.csv.metadata`` by default in
    v1.28.0-v1.45 (:func:`default_csv_metadata`), then the migrations up to ``level``
    (:func:`migrate_bundle`). The one implementation behind ``--opm-version`` and
    ``--migrate-level`` for bundle blobs, whatever the command. Each rewrite is an info notice."""
    out = bundle
    if form != "release":
        out = default_csv_metadata(bundle, release, from_sqlite=form == "sqlite")
        if out is not bundle:
            notify(csv_metadata_default_notice(bundle.package, bundle.name, release))
    migrated = migrate_bundle(out, level, release)
    if migrated is not out:
        notify(
            Notice(
                "migrate.csv-metadata",
                f"package {bundle.package!r}: bundle {bundle.name!r}: olm.bundle.object "
                f"properties replaced by one olm.csv.metadata (--migrate-level {level})",
                "info",
                package=bundle.package,
                bundle=bundle.name,
            )
        )
    return migrated
