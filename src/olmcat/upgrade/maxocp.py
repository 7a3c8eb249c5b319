"""``olm.maxOpenShiftVersion`` as OpenShift's OLM evaluates it before a cluster upgrade.

operator-lifecycle-manager ``pkg/controller/operators/openshift/helpers.go``
(``incompatibleOperators``, ``maxOpenShiftVersion``) sets the ``operator-lifecycle-manager``
ClusterOperator to ``Upgradeable=False`` while an installed, non-copied CSV declares a maximum
below the next minor release:

* the property is read from the **installed CSV**'s ``operatorframework.io/properties``
  annotation (where OLM copies the bundle's properties), not from a catalog;
* the value is the property's raw JSON with surrounding ``"`` trimmed, parsed with blang
  ``ParseTolerant`` (``4.15``, ``v4.15``); a version with a patch or pre-release part that is not
  zero (``4.15.1``, ``4.15.0-rc``) is **invalid**, as is ``""``, an unparsable value or a second
  ``olm.maxOpenShiftVersion`` property -- and an invalid value blocks the upgrade too;
* versions compare numerically on major and minor (``4.9 < 4.10``), with 4.23 and 5.0 counting as
  the same release; the upgrade to ``target`` is blocked when ``max < target``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from olmcat.errors import InputError
from olmcat.go.semver import Version, parse_version_tolerant
from olmcat.model.property import Property

__all__ = [
    "PROPERTY",
    "MaxOpenShiftVersion",
    "blocks",
    "from_annotation",
    "from_properties",
    "parse_target",
]

PROPERTY = "olm.maxOpenShiftVersion"


@dataclass(frozen=True, slots=True)
class MaxOpenShiftVersion:
    """``version`` (major.minor) when declared and valid; ``error`` when declared but invalid;
    both None when not declared. ``raw`` is the value as written."""

    version: Version | None = None
    error: str | None = None
    raw: str | None = None

    @property
    def declared(self) -> bool:
        return self.version is not None or self.error is not None

    def __str__(self) -> str:
        if self.version is not None:
            return f"{self.version.major}.{self.version.minor}"
        return self.raw or ""


def _evaluate(raw_values: list[str]) -> MaxOpenShiftVersion:
    if not raw_values:
        return MaxOpenShiftVersion()
    if len(raw_values) > 1:
        return MaxOpenShiftVersion(
            error=f'defining more than one "{PROPERTY}" property is not allowed',
            raw=raw_values[0],
        )
    raw = raw_values[0]
    value = raw.strip('"')
    if value == "":
        return MaxOpenShiftVersion(error='value cannot be "" (an empty string)', raw=raw)
    try:
        version = parse_version_tolerant(value)
    except InputError as error:
        return MaxOpenShiftVersion(error=f'failed to parse "{value}" as semver: {error}', raw=raw)
    truncated = Version(version.major, version.minor, 0)
    if version.compare(truncated) != 0:  # build metadata does not count, as in blang's EQ
        return MaxOpenShiftVersion(
            error=f"property {PROPERTY} must specify only <major>.<minor> version, got invalid "
            f"value {version}",
            raw=raw,
        )
    return MaxOpenShiftVersion(truncated, raw=raw)


def from_annotation(annotation: str | None) -> MaxOpenShiftVersion:
    """From a CSV's ``operatorframework.io/properties`` annotation (None: no annotation)."""
    if annotation is None:
        return MaxOpenShiftVersion()
    try:
        # Numbers keep their text: OLM hands the raw JSON of the value to ParseTolerant, so
        # 4.10 must not become 4.1.
        document = json.loads(annotation, parse_float=_RawNumber, parse_int=_RawNumber)
    except ValueError as error:
        return MaxOpenShiftVersion(error=f"failed to unmarshal properties annotation: {error}")
    properties = document.get("properties") if isinstance(document, dict) else None
    if not isinstance(properties, list):
        properties = []
    raw = [
        _raw_json(item.get("value"))
        for item in properties
        if isinstance(item, dict) and item.get("type") == PROPERTY
    ]
    return _evaluate(raw)


class _RawNumber(str):
    """A JSON number as written."""


def _raw_json(value: object) -> str:
    if isinstance(value, _RawNumber):
        return str(value)
    if value is None:
        return "null"
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def from_properties(properties: Iterable[Property]) -> MaxOpenShiftVersion:
    """From a catalog bundle's properties (their values are raw JSON, as in the annotation)."""
    return _evaluate([p.value for p in properties if p.type == PROPERTY])


def _normalized(version: Version) -> tuple[int, int]:
    if version.major == 4 and version.minor == 23:
        return (5, 0)
    return (version.major, version.minor)


def parse_target(text: str) -> Version:
    """``--target-ocp``: ``4.16`` (a patch part is ignored, as OLM reads the cluster version)."""
    try:
        version = parse_version_tolerant(text)
    except InputError:
        raise InputError(
            f"--target-ocp {text!r} is not an OpenShift version such as 4.16"
        ) from None
    return Version(version.major, version.minor, 0)


def blocks(declared: MaxOpenShiftVersion, target: Version) -> bool:
    """Whether ``declared`` keeps the cluster from upgrading to ``target``."""
    if declared.error is not None:
        return True
    if declared.version is None:
        return False
    return _normalized(declared.version) < _normalized(target)
