"""Object names as operator-controller v1.11.0 makes them.

``DefaultUniqueNameGenerator``: ``base`` + ``-`` + base36(sha224(``json.NewEncoder`` output of the
object, trailing newline included)), the base cut so the whole stays within 63 characters
(``util.ObjectNameForBaseAndSuffix``). The object is a Go struct, so its JSON keeps the struct's
field order: callers pass dicts built in that order (:func:`permission_json`).
"""

from __future__ import annotations

import hashlib
from typing import Any

from olmcat.go.json import go_marshal

MAX_NAME_LENGTH = 63
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def base36(number: int) -> str:
    """``big.Int.Text(36)``."""
    if number == 0:
        return "0"
    out = []
    while number:
        number, digit = divmod(number, 36)
        out.append(_DIGITS[digit])
    return "".join(reversed(out))


def deep_hash(struct_json: str) -> str:
    """``hashutil.DeepHashObject`` of an object whose Go JSON is ``struct_json``."""
    digest = hashlib.sha224((struct_json + "\n").encode()).digest()
    return base36(int.from_bytes(digest, "big"))


def name_for_base_and_suffix(base: str, suffix: str) -> str:
    """``util.ObjectNameForBaseAndSuffix`` (lengths in bytes, as Go counts them)."""
    encoded = base.encode()
    if len(encoded) + len(suffix.encode()) > MAX_NAME_LENGTH:
        encoded = encoded[: MAX_NAME_LENGTH - len(suffix.encode()) - 1]
    return f"{encoded.decode(errors='replace')}-{suffix}"


def policy_rule(rule: dict[str, Any]) -> dict[str, Any]:
    """An ``rbacv1.PolicyRule`` in Go field order (``verbs`` is not omitempty)."""
    out: dict[str, Any] = {"verbs": rule.get("verbs") if rule.get("verbs") is not None else None}
    for key in ("apiGroups", "resources", "resourceNames", "nonResourceURLs"):
        if rule.get(key):
            out[key] = rule[key]
    return out


def permission_json(permission: dict[str, Any]) -> str:
    """Go JSON of a ``v1alpha1.StrategyDeploymentPermissions``."""
    rules = permission.get("rules")
    struct = {
        "serviceAccountName": permission.get("serviceAccountName") or "",
        "rules": None if rules is None else [policy_rule(r) for r in rules],
    }
    return go_marshal(struct, sort_keys=False)


def unique_name(base: str, permission: dict[str, Any]) -> str:
    """``DefaultUniqueNameGenerator(base, permission)``."""
    return name_for_base_and_suffix(base, deep_hash(permission_json(permission)))
