"""A manifest as Go writes it after decoding it into a typed Kubernetes struct.

operator-controller builds the Deployment (and Services, webhook configurations, RBAC) as typed Go
structs and writes them with ``encoding/json``: a field the manifest did not set is written as its
zero value unless the field is ``omitempty`` (``resources: {}``, ``strategy: {}``, ``status: {}``,
``selector: null``), and an ``omitempty`` field holding its zero value disappears (``env: []``,
``stdin: false``). :func:`as_typed` does the same to plain data, using the struct layouts of
:mod:`olmcat.go.k8stypes` (which say which fields are pointers, slices, maps and structs) and
:data:`REQUIRED` (the fields Kubernetes declares without ``omitempty``).

Fields the layouts do not know (newer Kubernetes fields) are kept as they are, never dropped.
Quantities are written in their canonical form (``resource.Quantity``'s ``String``).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from olmcat.go.json import RawNumber
from olmcat.go.k8stypes import TYPES

Layout = tuple[tuple[str, str], ...]

# Types operator-controller writes that operator-registry's layouts do not hold.
EXTRA_TYPES: dict[str, str | Layout] = {
    "apps.Deployment": (
        ("apiVersion", "string"),
        ("kind", "string"),
        ("metadata", "meta.ObjectMeta"),
        ("spec", "apps.DeploymentSpec"),
        ("status", "apps.DeploymentStatus"),
    ),
    "apps.DeploymentStatus": (),
    "core.SleepAction": (("seconds", "int64"),),
}

# Fields declared without omitempty: written as their zero value when not set.
REQUIRED: dict[str, frozenset[str]] = {
    key: frozenset(value)
    for key, value in {
        "apps.DeploymentSpec": {"selector", "template"},
        "core.PodSpec": {"containers"},
        "core.Container": {"name"},
        "core.EphemeralContainerCommon": {"name"},
        "core.ContainerPort": {"containerPort"},
        "core.EnvVar": {"name"},
        "core.ObjectFieldSelector": {"fieldPath"},
        "core.ResourceFieldSelector": {"resource"},
        "core.SecretKeySelector": {"key"},
        "core.ConfigMapKeySelector": {"key"},
        "core.HTTPHeader": {"name", "value"},
        "core.GRPCAction": {"port", "service"},
        "core.VolumeMount": {"name", "mountPath"},
        "core.VolumeDevice": {"name", "devicePath"},
        "core.Volume": {"name"},
        "core.KeyToPath": {"key", "path"},
        "core.NodeSelector": {"nodeSelectorTerms"},
        "core.NodeSelectorRequirement": {"key", "operator"},
        "core.PreferredSchedulingTerm": {"weight"},
        "core.PodAffinityTerm": {"topologyKey"},
        "core.WeightedPodAffinityTerm": {"weight"},
        "meta.LabelSelectorRequirement": {"key", "operator"},
        "core.SeccompProfile": {"type"},
        "core.TopologySpreadConstraint": {"maxSkew", "topologyKey", "whenUnsatisfiable"},
        "core.HostPathVolumeSource": {"path"},
        "core.PersistentVolumeClaimVolumeSource": {"claimName"},
        "core.ProjectedVolumeSource": {"sources"},
        "core.DownwardAPIVolumeFile": {"path"},
        "core.ServiceAccountTokenProjection": {"path"},
        "core.CSIVolumeSource": {"driver"},
        "core.NFSVolumeSource": {"server", "path"},
        "core.Sysctl": {"name", "value"},
        "core.PodReadinessGate": {"conditionType"},
        "core.PodSchedulingGate": {"name"},
        "core.SleepAction": {"seconds"},
        "core.PodOS": {"name"},
        "core.ResourceClaim": {"name"},
        "core.PodResourceClaim": {"name"},
        "core.GitRepoVolumeSource": {"repository"},
        "rbac.PolicyRule": {"verbs"},
    }.items()
}

_SCALARS = {"string": "", "bool": False, "int32": 0, "int64": 0, "float64": 0}


def _resolve(type_name: str) -> str | Layout:
    found = EXTRA_TYPES.get(type_name)
    if found is None:
        found = TYPES.get(type_name)
    if found is None:
        return "any"
    if isinstance(found, str) and found in TYPES | EXTRA_TYPES:
        return _resolve(found)
    return found


def _is_empty(value: Any) -> bool:
    """Go's omitempty test on a decoded value."""
    if value is None or value is False:
        return True
    if isinstance(value, str | list | dict) and len(value) == 0:
        return True
    if isinstance(value, int) and not isinstance(value, bool) and value == 0:
        return True
    return isinstance(value, RawNumber) and float(value) == 0


def _zero(type_name: str) -> tuple[bool, Any]:
    """(is-written-even-if-omitempty, zero value) of a field of ``type_name``."""
    if type_name.startswith(("[]", "map[", "*")):
        return False, None
    if type_name == "quantity":
        return True, "0"
    if type_name == "intorstring":
        return True, 0
    if type_name == "time":
        return False, None  # creationTimestamp is omitzero since Kubernetes 1.34
    resolved = _resolve(type_name)
    if isinstance(resolved, tuple):
        return True, as_typed({}, type_name)
    return False, _SCALARS.get(resolved)


def _value(value: Any, type_name: str) -> Any:
    if value is None:
        return None
    if type_name.startswith("[]"):
        return [_value(item, type_name[2:]) for item in value] if isinstance(value, list) else value
    if type_name.startswith("map[string]"):
        inner = type_name[len("map[string]") :]
        if not isinstance(value, dict):
            return value
        return {k: _value(v, inner) for k, v in value.items()}
    if type_name.startswith("*"):
        return _value(value, type_name[1:])
    if type_name == "quantity":
        return canonical_quantity(value)
    resolved = _resolve(type_name)
    if isinstance(resolved, tuple):
        return as_typed(value, type_name) if isinstance(value, dict) else value
    if resolved == "core.ResourceList" or type_name == "core.ResourceList":
        return {k: canonical_quantity(v) for k, v in value.items()}
    return value


def _fields(layout: Layout) -> list[tuple[str, str]]:
    """Fields of a struct, embedded structs' fields promoted (Go field order)."""
    out: list[tuple[str, str]] = []
    for name, type_name in layout:
        if name == "":
            inner = _resolve(type_name)
            if isinstance(inner, tuple):
                out.extend(_fields(inner))
        elif not name.startswith("~"):
            out.append((name, type_name))
    return out


def as_typed(value: dict[str, Any], type_name: str) -> dict[str, Any]:
    """``value`` as ``json.Marshal`` writes it after ``json.Unmarshal`` into ``type_name``."""
    layout = _resolve(type_name)
    if not isinstance(layout, tuple):
        return value
    required = REQUIRED.get(type_name, frozenset())
    for name, embedded in layout:
        if name == "":
            required = required | REQUIRED.get(embedded, frozenset())
    out: dict[str, Any] = {}
    known = set()
    for name, field_type in _fields(layout):
        known.add(name)
        if field_type == "core.ResourceList":
            field_type = "map[string]quantity"
        always, zero = _zero(field_type)
        if name in value:
            item = _value(value[name], field_type)
            if item is None and (always or not field_type.startswith(("[]", "map[", "*"))):
                item = zero
        elif always or name in required:
            item = zero
        else:
            continue
        pointer_set = field_type.startswith("*") and item is not None
        if name not in required and not always and _is_empty(item) and not pointer_set:
            continue
        out[name] = item
    for name, item in value.items():
        if name not in known:
            out[name] = item  # a field these layouts do not know: kept as written
    return out


# -- quantities ---------------------------------------------------------------------------------

_QUANTITY = re.compile(r"^([+-]?[0-9.]+)([eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE]?)$")
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX = {v: k for k, v in _DECIMAL.items()}


def canonical_quantity(value: Any) -> Any:
    """``resource.Quantity``'s canonical text (``1000m`` -> ``1``, ``2048Mi`` -> ``2Gi``); a value
    it cannot parse is returned unchanged (Go would have refused the manifest)."""
    text = str(value).strip() if not isinstance(value, str) else value.strip()
    match = _QUANTITY.match(text)
    if not match:
        return value
    try:
        number = Decimal(match.group(1))
    except InvalidOperation:
        return value
    suffix = match.group(2)
    if suffix in _BINARY:
        amount = number * (Decimal(2) ** _BINARY[suffix])
        if amount == amount.to_integral_value() and amount >= 1024:
            whole = int(amount)
            exponent = 0
            while whole % 1024 == 0 and exponent < 60:
                whole //= 1024
                exponent += 10
            if exponent:
                names = {v: k for k, v in _BINARY.items()}
                return f"{whole}{names[exponent]}"
        return _decimal_text(amount)
    if suffix[:1] in "eE" and suffix:
        amount = number * (Decimal(10) ** int(suffix[1:]))
        return _decimal_text(amount, exponent_form=True)
    return _decimal_text(number * (Decimal(10) ** _DECIMAL[suffix]))


def _decimal_text(
    amount: Decimal, *, exponent_form: bool = False, binary_zero: bool = False
) -> str:
    if amount == 0:
        return "0"
    # Round up to nano precision, as Quantity does.
    scaled = (amount * Decimal(10) ** 9).to_integral_value(rounding="ROUND_CEILING")
    exponent = -9
    while scaled % 1000 == 0 and exponent < 18:
        scaled //= 1000
        exponent += 3
    if exponent_form:
        return f"{scaled}" if exponent == 0 else f"{scaled}e{exponent}"
    return f"{scaled}{_DECIMAL_SUFFIX[exponent]}"
