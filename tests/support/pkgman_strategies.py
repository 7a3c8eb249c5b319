"""Hypothesis strategies for package-manifest trees, valid and not, for differential tests.

A drawn tree is a dict of relative path -> file bytes. It holds a few packages with replaces
chains, skips and skipRange annotations, and the things real trees hold that the legacy loader
treats in its own way: several CSVs in one version directory, CSVs kept flat in the package
directory, ``olm.properties`` annotations, icons (valid, empty, without data, not base64), owned
CRDs present or missing, required CRDs, related images naming one image twice, manifests without
``apiVersion``, multi-document files, a comment before the first ``---``, non-YAML files, a second
package manifest, scalars yaml.v2 reads differently from YAML 1.2, and CSVs Go cannot decode
(numbers where strings are declared, bad quantities, non-string annotations).
"""

from __future__ import annotations

import base64
import json
import random
from typing import Any

import yaml
from hypothesis import strategies as st

PACKAGES = ("alpha-op", "beta", "gamma-operator")
VERSIONS = ("0.1.0", "0.2.0", "0.9.0", "1.0.0", "1.0.1", "1.1.0", "2.0.0")
CHANNELS = ("stable", "alpha", "beta")
IMAGES = ("quay.io/acme/op:v1", "quay.io/acme/op:v2", "registry.io/x/helper:1")
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(24))).decode()


def _dump(doc: Any) -> str:
    return yaml.safe_dump(doc, sort_keys=False)


def weighted(rng: random.Random, weights: dict[str, int]) -> str:
    """One key, with the given relative frequency (hypothesis' own choices favour the first and
    last items, which would make the rare cases common)."""
    pick = rng.randrange(sum(weights.values()))
    for key, weight in weights.items():
        if pick < weight:
            return key
        pick -= weight
    raise AssertionError("unreachable")


def icons(rng: random.Random) -> list[dict[str, Any]] | None:
    kind = weighted(rng, {"none": 4, "png": 4, "empty": 2, "no-data": 1, "bad": 1, "spaces": 1})
    if kind == "none":
        return None
    if kind == "png":
        return [{"base64data": PNG, "mediatype": "image/png"}]
    if kind == "empty":
        return [{"base64data": "", "mediatype": ""}]
    if kind == "no-data":
        return [{"mediatype": "image/svg+xml"}]
    if kind == "bad":
        return [{"base64data": "not*base64", "mediatype": "image/png"}]
    return [{"base64data": PNG[:8] + " " + PNG[8:], "mediatype": "image/png"}]


def olm_properties(rng: random.Random) -> str | None:
    kind = weighted(rng, {"none": 20, "ok": 12, "label": 8, "broken": 1, "bad-label": 1})
    if kind == "none":
        return None
    if kind == "broken":
        return '[{"type": "olm.maxOpenShiftVersion", '
    if kind == "bad-label":
        return '[{"type": "olm.label", "value": {"label": 5}}]'
    items: list[str] = ['{"type": "olm.maxOpenShiftVersion", "value": "4.8"}']
    if kind == "label":
        items.append('{"type":"olm.label","value":{"label":"tier<1>&x"}}')
    items.append('{"type": "example.com/custom", "value": {"b": 1.50, "a": [true, null]}}')
    rng.shuffle(items)
    return "[" + ", ".join(items) + "]"


TROUBLES = {
    "none": 120,
    "env-number": 1,
    "annotation-bool": 1,
    "version-number": 1,
    "bad-quantity": 1,
    "substitutes": 1,
    "spec-list": 1,
    "bad-port": 1,
    "maturity-y": 1,
}


def csv_documents(
    rng: random.Random, name: str, version: str, earlier: list[str], group: str
) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """(CSV, CRDs it owns that should be written, extra raw YAML appended to the CSV file)."""
    annotations: dict[str, Any] = {}
    if rng.random() < 0.3:
        annotations["olm.skipRange"] = rng.choice(["<1.0.0", ">=0.1.0 <2.0.0", "nope"])
    properties = olm_properties(rng)
    if properties is not None:
        annotations["olm.properties"] = properties
    trouble = weighted(rng, TROUBLES)
    if trouble == "annotation-bool":
        annotations["certified"] = False
    if trouble == "substitutes" and earlier:
        annotations["olm.substitutesFor"] = earlier[-1]
    spec: dict[str, Any] = {"version": version, "displayName": name}
    if trouble == "version-number":
        spec["version"] = 1.5
    replaces = {
        "previous": earlier[-1] if earlier else None,
        "earlier": rng.choice(earlier) if earlier else None,
        "none": None,
        "missing": "missing.v0.0.1",
    }[weighted(rng, {"previous": 30, "earlier": 3, "none": 3, "missing": 1})]
    if replaces:
        spec["replaces"] = replaces
    if earlier and rng.random() < 0.25:
        spec["skips"] = rng.sample(
            [*earlier, "gone.v0.0.0"], k=rng.randint(1, min(2, len(earlier)))
        )
    related = [
        (rng.choice(["op", "helper", ""]), rng.choice(IMAGES)) for _ in range(rng.randint(0, 3))
    ]
    if related:
        spec["relatedImages"] = [{"name": n, "image": i} if n else {"image": i} for n, i in related]
    container: dict[str, Any] = {"name": "manager", "image": rng.choice(IMAGES)}
    if trouble == "env-number":
        container["env"] = [{"name": "RATIO", "value": 1.0}]
    if trouble == "bad-quantity":
        container["resources"] = {"limits": {"cpu": "1 core"}}
    else:
        container["resources"] = {"requests": {"cpu": "100m", "memory": 64}}
    if trouble == "bad-port":
        container["ports"] = [{"containerPort": "8080"}]
    pod = {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}}
    deployment = {"name": "manager", "spec": {"replicas": 1, "template": pod}}
    spec["install"] = {"strategy": "deployment", "spec": {"deployments": [deployment]}}
    crds: list[dict[str, Any]] = []
    owned: list[dict[str, Any]] = []
    if rng.random() < 0.5:
        owned.append({"name": f"widgets.{group}", "version": "v1", "kind": "Widget"})
        if rng.random() < 0.85:
            crds.append(_crd("widgets", group, "Widget", rng.random() < 0.5))
    required = []
    if rng.random() < 0.25:
        required.append({"name": "gadgets.other.io", "version": "v2", "kind": "Gadget"})
    if owned or required:
        spec["customresourcedefinitions"] = {"owned": owned, "required": required}
    icon = icons(rng)
    if icon is not None:
        spec["icon"] = icon
    metadata: dict[str, Any] = {"name": name}
    if annotations:
        metadata["annotations"] = annotations
    csv = {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": metadata,
        "spec": [spec] if trouble == "spec-list" else spec,
    }
    extra = "  maturity: y\n" if trouble == "maturity-y" else ""
    return csv, crds, extra


def _crd(plural: str, group: str, kind: str, v1beta1: bool) -> dict[str, Any]:
    if v1beta1:
        return {
            "apiVersion": "apiextensions.k8s.io/v1beta1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{group}"},
            "spec": {"group": group, "version": "v1", "names": {"kind": kind, "plural": plural}},
        }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": True, "storage": True}],
        },
    }


EXTRAS = {
    "configmap.yaml": _dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}),
    "kind-only.yaml": "kind: Service\nmetadata:\n  name: svc\n",
    "no-kind.yaml": "apiVersion: v1\nmetadata:\n  name: x\n",
    "two-docs.yaml": "kind: Secret\napiVersion: v1\nmetadata: {name: s}\n---\nkind: Role\n",
    "commented.yaml": "# generated\n---\nkind: ServiceAccount\napiVersion: v1\n",
    "object.json": json.dumps({"kind": "Service", "apiVersion": "v1", "spec": {"port": 1.5}}),
    "extra.txt": "kind: ConfigMap\napiVersion: v1\nmetadata: {name: txt}\n",
    "README.md": "# Operator\n\nSome text: here\n",
}


def _package_manifest(
    name: str, channels: list[tuple[str, str]], default: str | None, style: str
) -> str:
    if style == "json":
        doc: dict[str, Any] = {
            "packageName": name,
            "channels": [{"name": c, "currentCSV": h} for c, h in channels],
        }
        if default is not None:
            doc["defaultChannel"] = default
        return json.dumps(doc, indent=2)
    lines = [f"packageName: {name}", "channels:"]
    for channel, head in channels:
        lines += [f"- name: {channel}", f"  currentCSV: {head}"]
    if default is not None:
        lines.append(f"defaultChannel: {default}")
    return "\n".join(lines) + "\n"


def _package(rng: random.Random, package: str, files: dict[str, bytes]) -> None:
    versions = sorted(rng.sample(VERSIONS, k=rng.randint(1, 4)), key=VERSIONS.index)
    csv_names = [f"{package}.v{v}" for v in versions]
    group = f"{package.replace('-', '')}.example.com"
    layout = weighted(rng, {"dirs": 6, "shared": 2, "flat": 2})
    for index, (version, csv_name) in enumerate(zip(versions, csv_names, strict=True)):
        csv, crds, extra = csv_documents(rng, csv_name, version, csv_names[:index], group)
        directory = {
            "dirs": f"{package}/{version}",
            "shared": f"{package}/{'all' if index % 2 else 'first'}",
            "flat": package,
        }[layout]
        files[f"{directory}/{csv_name}.clusterserviceversion.yaml"] = (_dump(csv) + extra).encode()
        for crd in crds:
            files[f"{directory}/{crd['metadata']['name']}.crd.yaml"] = _dump(crd).encode()
        if rng.random() < 0.3:
            for extra_name in rng.sample(sorted(EXTRAS), k=rng.randint(1, 2)):
                files[f"{directory}/{extra_name}"] = EXTRAS[extra_name].encode()
    if rng.random() < 0.1 and len(csv_names) > 1:
        # A CSV of the same name in a second directory (the first in walk order wins).
        copy = rng.choice(csv_names)
        duplicate = {
            "apiVersion": "operators.coreos.com/v1alpha1",
            "kind": "ClusterServiceVersion",
            "metadata": {"name": copy},
            "spec": {"version": "9.9.9"},
        }
        place = rng.choice(["0-dup", "zz-dup"])
        files[f"{package}/{place}/{copy}.yaml"] = _dump(duplicate).encode()
    channel_names = rng.sample(CHANNELS, k=rng.randint(1, 3))
    shape = weighted(rng, {"ok": 20, "none": 1, "twice": 1})
    if shape == "none":
        channel_names = []
    elif shape == "twice":
        channel_names.append(channel_names[0])
    channels = []
    for channel in channel_names:
        head = {
            "last": csv_names[-1],
            "other": rng.choice(csv_names),
            "missing": f"{package}.v8.8.8",
        }[weighted(rng, {"last": 12, "other": 3, "missing": 1})]
        channels.append((channel, head))
    default = {
        "named": rng.choice(channel_names) if channel_names else None,
        "absent": None,
        "bogus": "bogus",
    }[weighted(rng, {"named": 10, "absent": 3, "bogus": 1})]
    style = weighted(rng, {"yaml": 3, "json": 1})
    manifest = _package_manifest(package, channels, default, style).encode()
    files[f"{package}/{package}.package.{'json' if style == 'json' else 'yaml'}"] = manifest
    if rng.random() < 0.15:
        files[f"{package}/{versions[0]}/copy.package.yaml"] = manifest  # a second, identical one


@st.composite
def pkgman_trees(draw: st.DrawFn) -> dict[str, bytes]:
    """A package-manifest tree: relative path -> content. Hypothesis draws the seed; the choices
    inside use a seeded generator so rare cases stay rare (hypothesis favours extremes)."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    files: dict[str, bytes] = {}
    for package in rng.sample(PACKAGES, k=rng.randint(1, 2)):
        _package(rng, package, files)
    return files
