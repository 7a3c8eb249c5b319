"""Templates as the opm releases real pipelines pin render them: v1.46.0 (with ``--migrate-level
bundle-object-to-csv-metadata``) and v1.71.0, on the channel shapes issue 23 found in catalogs
rendered by v1.46.0.

Every expectation is worked out by hand from operator-registry's code at the tag (``git show
TAG:alpha/template/semver/semver.go``, ``alpha/action/migrations``, ``alpha/property``):

* v1.46.0 links each channel on its own (v1.37.0's ``linkChannels``): within a major channel, the
  last entry of each minor version replaces the previous minor's last entry, skips it (until
  v1.57.0) and skips the lower entries of its own minor version, in version order. So
  ``v0.2.3 replaces v0.1.1, skips [v0.1.1, v0.2.0, v0.2.1, v0.2.2]`` and ``v0.3.0 replaces v0.2.3,
  skips [v0.2.3]``; ``v0.8.2 replaces v0.7.0, skips [v0.7.0]``.
* v1.71.0 links one run per archetype, kind and major (v1.61.0 reverted to this): ``v0.3.0``
  replaces ``v0.2.3`` and skips every other lower entry of the major; ``v0.8.2`` only replaces.
* A semver template's package has no icon or description before v1.65.0; v1.71.0 copies them from
  the default channel head's CSV. A basic template's package keeps those of the template.
* ``--migrate-level bundle-object-to-csv-metadata`` (v1.46.0) replaces the bundle's
  olm.bundle.object properties (CSV and CRD here) by one olm.csv.metadata, last, whose value
  follows ``property.CSVMetadata`` (fields in struct order, empty ones omitted except the
  ``apiServiceDefinitions`` and ``provider`` structs; Go sorts map keys; no HTML escaping).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from olmcat.cli import cli
from tests.support.paths import parse_stream

PIXEL = base64.b64encode(b"\x89PNG\r\n\x1a\n-pinned").decode()
ACME = ["0.1.1", "0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.3.0"]
BETA = ["0.7.0", "0.8.2"]
HEAD_DESCRIPTION = "Acme <fast> & safe"
HEAD_CSV_METADATA = (
    '{"annotations":{"capabilities":"Basic Install","containerImage":"quay.io/acme/op:v0.3.0"},'
    '"apiServiceDefinitions":{},"crdDescriptions":{"owned":[{"name":"widgets.acme.example",'
    '"version":"v1","kind":"Widget","displayName":"Widget","description":"A widget"}]},'
    '"description":"Acme <fast> & safe","displayName":"Acme Operator","installModes":'
    '[{"type":"OwnNamespace","supported":true},{"type":"AllNamespaces","supported":false}],'
    '"keywords":["acme","demo"],"labels":{"operatorframework.io/arch.amd64":"supported"},'
    '"links":[{"name":"Docs","url":"https://acme.example/docs"}],"maintainers":[{"name":"Ops",'
    '"email":"ops@acme.example"}],"maturity":"alpha","minKubeVersion":"1.25.0",'
    '"provider":{"name":"Acme"}}'
)


def ref(package: str, version: str) -> str:
    return f"quay.io/acme/{package}-bundle:v{version}"


def write_bundle(root: Path, package: str, version: str) -> Path:
    directory = root / package / version
    (directory / "manifests").mkdir(parents=True)
    (directory / "metadata").mkdir()
    head = package == "acme-operator" and version == ACME[-1]
    csv = {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {
            "name": f"{package}.v{version}",
            "annotations": {
                "containerImage": "quay.io/acme/op:v0.3.0",
                "capabilities": "Basic Install",
            },
            "labels": {"operatorframework.io/arch.amd64": "supported"},
        },
        "spec": {
            "version": version,
            "displayName": "Acme Operator",
            "description": HEAD_DESCRIPTION if head else f"{package} {version}",
            "icon": [{"base64data": PIXEL, "mediatype": "image/png" if head else "image/gif"}],
            "keywords": ["acme", "demo"],
            "provider": {"name": "Acme"},
            "maintainers": [{"name": "Ops", "email": "ops@acme.example"}],
            "links": [{"name": "Docs", "url": "https://acme.example/docs"}],
            "maturity": "alpha",
            "minKubeVersion": "1.25.0",
            "installModes": [
                {"type": "OwnNamespace", "supported": True},
                {"type": "AllNamespaces", "supported": False},
            ],
            "customresourcedefinitions": {
                "owned": [
                    {
                        "name": "widgets.acme.example",
                        "version": "v1",
                        "kind": "Widget",
                        "displayName": "Widget",
                        "description": "A widget",
                    }
                ]
            },
            "install": {"strategy": "deployment", "spec": {"deployments": []}},
        },
    }
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.acme.example"},
        "spec": {
            "group": "acme.example",
            "names": {"kind": "Widget", "plural": "widgets"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": True, "storage": True}],
        },
    }
    (directory / "manifests" / "csv.yaml").write_text(yaml.safe_dump(csv))
    (directory / "manifests" / "crd.yaml").write_text(yaml.safe_dump(crd))
    annotations = {
        "operators.operatorframework.io.bundle.mediatype.v1": "registry+v1",
        "operators.operatorframework.io.bundle.manifests.v1": "manifests/",
        "operators.operatorframework.io.bundle.metadata.v1": "metadata/",
        "operators.operatorframework.io.bundle.package.v1": package,
        "operators.operatorframework.io.bundle.channels.v1": "stable",
    }
    (directory / "metadata" / "annotations.yaml").write_text(
        yaml.safe_dump({"annotations": annotations})
    )
    return directory


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pinned")
    lines = []
    for package, versions in (("acme-operator", ACME), ("beta-operator", BETA)):
        for version in versions:
            lines.append(f"{ref(package, version)}={write_bundle(root, package, version)}\n")
    mapping = root / "bundles.map"
    mapping.write_text("".join(lines))
    return mapping


def semver_template(package: str, versions: list[str]) -> str:
    images = "".join(f"  - image: {ref(package, v)}\n" for v in versions)
    return (
        "schema: olm.semver\ngenerateMajorChannels: true\ngenerateMinorChannels: false\n"
        f"stable:\n  bundles:\n{images}"
    )


def render(mapping: Path, text: str, *options: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        cli,
        ["render-template", "-", "--no-pull", "--bundle-map", str(mapping), *options],
        input=text,
    )
    return result.exit_code, result.stdout, result.stderr


def entries(blobs: list[dict[str, Any]], channel: str) -> dict[str, dict[str, Any]]:
    found = next(b for b in blobs if b["schema"] == "olm.channel" and b["name"] == channel)
    return {e["name"]: {k: v for k, v in e.items() if k != "name"} for e in found["entries"]}


def acme(version: str) -> str:
    return f"acme-operator.v{version}"


def beta(version: str) -> str:
    return f"beta-operator.v{version}"


V146 = ("--opm-version", "1.46", "--migrate-level", "bundle-object-to-csv-metadata")


@pytest.mark.parametrize("output", ["json", "yaml"])
def test_v146_semver_links_each_channel_and_migrates_bundles(bundles: Path, output: str) -> None:
    code, out, err = render(bundles, semver_template("acme-operator", ACME), *V146, "-o", output)
    assert code == 0, err
    blobs = parse_stream(out) if output == "json" else list(yaml.safe_load_all(out))
    package = blobs[0]
    assert package == {
        "schema": "olm.package",
        "name": "acme-operator",
        "defaultChannel": "stable-v0",
    }  # no icon, no description before v1.65.0
    assert entries(blobs, "stable-v0") == {
        acme("0.1.1"): {},
        acme("0.2.0"): {},
        acme("0.2.1"): {},
        acme("0.2.2"): {},
        acme("0.2.3"): {
            "replaces": acme("0.1.1"),
            "skips": [acme("0.1.1"), acme("0.2.0"), acme("0.2.1"), acme("0.2.2")],
        },
        acme("0.3.0"): {"replaces": acme("0.2.3"), "skips": [acme("0.2.3")]},
    }
    bundle_blobs = [b for b in blobs if b["schema"] == "olm.bundle"]
    assert len(bundle_blobs) == len(ACME)
    for blob in bundle_blobs:
        types = [p["type"] for p in blob["properties"]]
        assert "olm.bundle.object" not in types and types[-1] == "olm.csv.metadata", types
    head = next(b for b in bundle_blobs if b["name"] == acme("0.3.0"))
    assert head["properties"][-1]["value"] == json.loads(HEAD_CSV_METADATA)
    if output == "json":
        # the value's bytes: key order and no HTML escaping, re-indented as opm indents
        value = json.dumps(json.loads(HEAD_CSV_METADATA), indent=4, ensure_ascii=False)
        assert "\n".join(" " * 12 + line for line in value.split("\n")).strip() in out


def test_v146_single_minor_head_replaces_and_skips_the_previous_head(bundles: Path) -> None:
    code, out, err = render(bundles, semver_template("beta-operator", BETA), *V146)
    assert code == 0, err
    assert entries(parse_stream(out), "stable-v0") == {
        beta("0.7.0"): {},
        beta("0.8.2"): {"replaces": beta("0.7.0"), "skips": [beta("0.7.0")]},
    }


def test_v171_links_runs_and_copies_the_head_icon_and_description(bundles: Path) -> None:
    text = semver_template("acme-operator", ACME)
    code, out, err = render(bundles, text, "--opm-version", "1.71")
    assert code == 0, err
    blobs = parse_stream(out)
    assert blobs[0]["description"] == HEAD_DESCRIPTION
    assert blobs[0]["icon"] == {"base64data": PIXEL, "mediatype": "image/png"}
    assert entries(blobs, "stable-v0")[acme("0.2.3")] == {
        "replaces": acme("0.1.1"),
        "skips": [acme("0.2.0"), acme("0.2.1"), acme("0.2.2")],
    }
    assert entries(blobs, "stable-v0")[acme("0.3.0")] == {
        "replaces": acme("0.2.3"),
        "skips": [acme("0.1.1"), acme("0.2.0"), acme("0.2.1"), acme("0.2.2")],
    }
    # no migration asked: every manifest stays an olm.bundle.object
    head = next(b for b in blobs if b.get("name") == acme("0.3.0"))
    types = [p["type"] for p in head["properties"]]
    assert types.count("olm.bundle.object") == 2 and "olm.csv.metadata" not in types
    code, out, _ = render(bundles, semver_template("beta-operator", BETA), "--opm-version", "1.71")
    assert entries(parse_stream(out), "stable-v0")[beta("0.8.2")] == {"replaces": beta("0.7.0")}


def basic_template() -> str:
    package = {
        "schema": "olm.package",
        "name": "beta-operator",
        "defaultChannel": "stable",
        "description": "Beta, from the template",
        "icon": {"base64data": PIXEL, "mediatype": "image/png"},
    }
    channel = {
        "schema": "olm.channel",
        "name": "stable",
        "package": "beta-operator",
        "entries": [
            {"name": beta("0.7.0")},
            {"name": beta("0.8.2"), "replaces": beta("0.7.0"), "skips": [beta("0.7.0")]},
        ],
    }
    bundles = [{"schema": "olm.bundle", "image": ref("beta-operator", v)} for v in BETA]
    return json.dumps({"schema": "olm.template.basic", "entries": [package, channel, *bundles]})


@pytest.mark.parametrize("release", ["1.46", "1.71"])
def test_basic_template_keeps_its_package_icon_and_description(bundles: Path, release: str) -> None:
    options = V146 if release == "1.46" else ("--opm-version", release)
    code, out, err = render(bundles, basic_template(), *options)
    assert code == 0, err
    blobs = parse_stream(out)
    assert blobs[0]["description"] == "Beta, from the template"
    assert blobs[0]["icon"] == {"base64data": PIXEL, "mediatype": "image/png"}
    assert entries(blobs, "stable")[beta("0.8.2")] == {
        "replaces": beta("0.7.0"),
        "skips": [beta("0.7.0")],
    }
    last = [b["properties"][-1]["type"] for b in blobs if b["schema"] == "olm.bundle"]
    expected = "olm.csv.metadata" if release == "1.46" else "olm.bundle.object"
    assert last == [expected, expected]


def test_migrate_level_before_v146_is_a_usage_error(bundles: Path) -> None:
    text = semver_template("beta-operator", BETA)
    code, _, err = render(
        bundles, text, "--opm-version", "1.45", "--migrate-level", "bundle-object-to-csv-metadata"
    )
    assert code == 2
    assert "opm v1.45.0 has no migration levels" in err and "v1.46.0" in err
    code, _, err = render(bundles, text, "--opm-version", "1.99")
    assert code == 2 and "v1.26.5 to v1.73.0" in err


def test_v128_to_v145_write_csv_metadata_without_a_migration_level(bundles: Path) -> None:
    text = semver_template("beta-operator", BETA)
    code, out, err = render(bundles, text, "--opm-version", "1.40")
    assert code == 0, err
    for blob in (b for b in parse_stream(out) if b["schema"] == "olm.bundle"):
        types = [p["type"] for p in blob["properties"]]
        assert "olm.bundle.object" not in types and types[-1] == "olm.csv.metadata"
