#!/usr/bin/env python3
"""Generate ``src/olmcat/go/k8stypes.py``: the field layout of the Go structs the legacy loader and
opm decode manifests into (Kubernetes core/apps/rbac/admission, CRDs, the OLM CSV).

The legacy loader rejects a bundle when Go's decoder cannot fill one of these structs (a number
where a string is declared, a malformed quantity, ...). olmcat checks the same layout; this script
extracts it from the Go sources operator-registry v1.26.5 vendors, so the table is the decoder's
own view, not a hand-written guess. Only the *shape* is taken: type names, JSON field names and
field types. Types with their own JSON decoding (Quantity, IntOrString, Time, ...) are named and
handled by ``olmcat.go.typed``.

    python scripts/gen_go_types.py [--repo /work/.mirror/operator-framework+operator-registry/repo]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REPO = Path("/work/.mirror/operator-framework+operator-registry/repo")
TAG = "v1.26.5"
VENDOR = "vendor/"

# import path -> short package key used in the table
PACKAGES = {
    "k8s.io/api/core/v1": "core",
    "k8s.io/api/apps/v1": "apps",
    "k8s.io/api/rbac/v1": "rbac",
    "k8s.io/api/admissionregistration/v1": "admission",
    "k8s.io/apimachinery/pkg/apis/meta/v1": "meta",
    "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1": "crdv1",
    "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1": "crdv1beta1",
    "github.com/operator-framework/api/pkg/operators/v1alpha1": "olm",
}
FILES = {
    "core": ["types.go"],
    "apps": ["types.go"],
    "rbac": ["types.go"],
    "admission": ["types.go"],
    "meta": ["types.go", "group_version.go"],
    "crdv1": ["types.go", "types_jsonschema.go"],
    "crdv1beta1": ["types.go", "types_jsonschema.go"],
    "olm": ["clusterserviceversion_types.go"],
}
# Types defined outside the parsed files, by import path and name: what olmcat.go.typed knows.
EXTERNAL = {
    ("k8s.io/apimachinery/pkg/api/resource", "Quantity"): "quantity",
    ("k8s.io/apimachinery/pkg/util/intstr", "IntOrString"): "intorstring",
    ("k8s.io/apimachinery/pkg/types", "UID"): "string",
    ("k8s.io/apimachinery/pkg/runtime", "RawExtension"): "any",
    ("k8s.io/apimachinery/pkg/labels", "Set"): "map[string]string",
    ("encoding/json", "RawMessage"): "any",
    ("github.com/operator-framework/api/pkg/lib/version", "OperatorVersion"): "semver",
}
# Types inside parsed packages whose JSON decoding is their own code.
CUSTOM = {
    "meta.Time": "time",
    "meta.MicroTime": "time",
    "meta.Duration": "duration",
    "meta.FieldsV1": "any",
    "crdv1.JSON": "any",
    "crdv1beta1.JSON": "any",
    "crdv1.JSONSchemaPropsOrArray": "schema-or-array:crdv1.JSONSchemaProps",
    "crdv1beta1.JSONSchemaPropsOrArray": "schema-or-array:crdv1beta1.JSONSchemaProps",
    "crdv1.JSONSchemaPropsOrBool": "schema-or-bool:crdv1.JSONSchemaProps",
    "crdv1beta1.JSONSchemaPropsOrBool": "schema-or-bool:crdv1beta1.JSONSchemaProps",
    "crdv1.JSONSchemaPropsOrStringArray": "schema-or-strings:crdv1.JSONSchemaProps",
    "crdv1beta1.JSONSchemaPropsOrStringArray": "schema-or-strings:crdv1beta1.JSONSchemaProps",
}
BASIC = {
    "string",
    "bool",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "byte",
}

_IMPORT_BLOCK = re.compile(r"^import \((.*?)^\)", re.M | re.S)
_IMPORT_ONE = re.compile(r'^import\s+(?:(\w+)\s+)?"([^"]+)"', re.M)
_IMPORT_LINE = re.compile(r'^\s*(?:(\w+|_)\s+)?"([^"]+)"', re.M)
_STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.M | re.S)
_EMPTY_STRUCT = re.compile(r"^type (\w+) struct ?\{\}", re.M)
_NAMED = re.compile(r"^type (\w+) ([^\s{=][^\n{]*)$", re.M)
_FIELD = re.compile(r"^\t(\w+)\s+([^\s`]+)\s*(`[^`]*`)?")
_EMBEDDED = re.compile(r"^\t(\*?[\w.]+)\s*(`[^`]*`)?\s*$")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_JSON_TAG = re.compile(r'json:"([^"]*)"')


def git_show(repo: Path, path: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "show", f"{TAG}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def imports(source: str) -> dict[str, str]:
    """Package name (alias or last path element) -> import path."""
    found: dict[str, str] = {}
    lines: list[tuple[str | None, str]] = []
    for block in _IMPORT_BLOCK.findall(source):
        lines += [(m.group(1), m.group(2)) for m in _IMPORT_LINE.finditer(block)]
    lines += [(m.group(1), m.group(2)) for m in _IMPORT_ONE.finditer(source)]
    for alias, path in lines:
        found[alias or path.rsplit("/", 1)[-1]] = path
    return found


class Resolver:
    def __init__(self, package: str, imported: dict[str, str]) -> None:
        self.package = package
        self.imported = imported

    def __call__(self, expr: str) -> str:
        if expr.startswith("*"):
            return "*" + self(expr[1:])
        if expr.startswith("[]"):
            inner = expr[2:]
            return "bytes" if inner == "byte" else "[]" + self(inner)
        if expr.startswith("map["):
            key, _, value = expr[4:].partition("]")
            return f"map[{self._key(key)}]{self(value)}"
        if expr in ("interface{}", "any"):
            return "any"
        if expr in BASIC:
            return expr
        if "." in expr:
            alias, _, name = expr.partition(".")
            path = self.imported.get(alias)
            if path is None:
                raise SystemExit(f"{self.package}: unknown package {alias!r} in {expr}")
            if (path, name) in EXTERNAL:
                return EXTERNAL[(path, name)]
            if path not in PACKAGES:
                raise SystemExit(f"{self.package}: type {expr} from {path} is not known")
            return self._named(f"{PACKAGES[path]}.{name}")
        return self._named(f"{self.package}.{expr}")

    def _key(self, expr: str) -> str:
        # Every map in these types is keyed by a string kind (ResourceName, ...).
        if self(expr) not in ("string",) and not self(expr).startswith(self.package):
            raise SystemExit(f"{self.package}: map key {expr} is not a string kind")
        return "string"

    @staticmethod
    def _named(key: str) -> str:
        return CUSTOM.get(key, key)


def parse_package(repo: Path, package: str, path: str) -> dict[str, object]:
    types: dict[str, object] = {}
    for filename in FILES[package]:
        source = _BLOCK_COMMENT.sub("", git_show(repo, f"{VENDOR}{path}/{filename}"))
        resolve = Resolver(package, imports(source))
        for match in _STRUCT.finditer(source):
            name, body = match.group(1), match.group(2)
            key = f"{package}.{name}"
            if key in CUSTOM:
                continue
            fields: list[tuple[str, str]] = []
            for line in body.splitlines():
                if line.strip().startswith("//") or not line.strip():
                    continue
                field = _FIELD.match(line)
                embedded = None if field else _EMBEDDED.match(line)
                if embedded:
                    tag_match = _JSON_TAG.search(embedded.group(2) or "")
                    json_name = tag_match.group(1).split(",")[0] if tag_match else ""
                    if json_name == "-":
                        continue
                    fields.append((json_name or "", resolve(embedded.group(1))))
                    continue
                if not field:
                    raise SystemExit(f"{key}: cannot read field line {line!r}")
                go_name, type_expr, tag = field.groups()
                if not go_name[0].isupper():
                    continue
                tag_match = _JSON_TAG.search(tag or "")
                json_name = tag_match.group(1).split(",")[0] if tag_match else ""
                if json_name == "-":
                    continue
                # No name in the tag: encoding/json uses the Go field name (matched without case).
                fields.append((json_name or "~" + go_name, resolve(type_expr)))
            types[key] = tuple(fields)
        for match in _EMPTY_STRUCT.finditer(source):
            types[f"{package}.{match.group(1)}"] = ()
        for match in _NAMED.finditer(source):
            name, target = match.group(1), match.group(2).split("//")[0].strip()
            key = f"{package}.{name}"
            if key in CUSTOM or key in types or target.startswith(("func", "interface")):
                continue
            types[key] = resolve(target)
    return types


ROOTS = (
    "olm.ClusterServiceVersion",
    "apps.DeploymentSpec",
    "crdv1.CustomResourceDefinition",
    "crdv1beta1.CustomResourceDefinition",
)
_NAME = re.compile(r"[a-z0-9]+\.\w+")


def reachable(table: dict[str, object], roots: tuple[str, ...]) -> dict[str, object]:
    """Only the types the roots refer to, directly or through other types."""
    keep: dict[str, object] = {}
    todo = list(roots)
    while todo:
        key = todo.pop()
        if key in keep:
            continue
        keep[key] = table[key]
        value = table[key]
        exprs = [t for _, t in value] if isinstance(value, tuple) else [value]
        for expr in exprs:
            todo += [n for n in _NAME.findall(str(expr)) if n in table]
    return keep


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=DEFAULT_REPO)
    parser.add_argument("--out", type=Path, default=ROOT / "src/olmcat/go/k8stypes.py")
    args = parser.parse_args()
    table: dict[str, object] = {}
    for path, package in PACKAGES.items():
        table.update(parse_package(args.repo, package, path))
    table = reachable(table, ROOTS)
    lines = [
        '"""The field layout of the Go structs opm and the legacy loader decode manifests into.',
        "",
        f"Generated by scripts/gen_go_types.py from operator-registry {TAG}'s vendored sources",
        "(type names, JSON field names, field types); do not edit. A struct is a tuple of",
        "(JSON name, type) pairs: an empty name is an embedded struct whose fields are promoted,",
        'a name starting with "~" is an untagged Go field name (encoding/json matches it',
        "ignoring case). Anything else names another type: a Go kind, ``[]T``, ``map[string]T``,",
        "``*T``, ``bytes`` ([]byte), ``any`` or one of the decoders ``olmcat.go.typed``",
        "implements (quantity, intorstring, time, ...).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "TYPES: dict[str, str | tuple[tuple[str, str], ...]] = {",
    ]
    for key in sorted(table):
        value = table[key]
        if isinstance(value, tuple):
            lines.append(f"    {key!r}: (")
            lines += [f"        ({name!r}, {type_!r})," for name, type_ in value]
            lines.append("    ),")
        else:
            lines.append(f"    {key!r}: {value!r},")
    lines.append("}")
    args.out.write_text("\n".join(lines) + "\n")
    # The committed file is ruff-formatted; format it the same way when ruff is at hand.
    subprocess.run(["ruff", "format", "--quiet", str(args.out)], check=False)
    print(f"wrote {len(table)} types to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
