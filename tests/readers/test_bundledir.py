"""The bundle-directory reader on trees built in code: opm's render rules and the replaces-mode
index build, one rule per test, plus validation messages and the CLI."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import InputError, ValidationError
from olmcat.migrate import migrate_pkgman
from olmcat.notices import NoticeLog
from olmcat.readers.bundledir import (
    ANNOTATION_CHANNELS,
    ANNOTATION_DEFAULT_CHANNEL,
    ANNOTATION_PACKAGE,
    BundleDirCatalog,
    render_bundle_dir,
)
from olmcat.writers.fbc import bundle_json
from tests.support.builders import crd_doc
from tests.support.builders import csv as csv_doc
from tests.support.paths import parse_stream


def deployment(*images: str) -> dict[str, Any]:
    containers = [{"name": f"c{i}", "image": image} for i, image in enumerate(images)]
    return {
        "strategy": "deployment",
        "spec": {
            "deployments": [
                {"name": "op", "spec": {"template": {"spec": {"containers": containers}}}}
            ]
        },
    }


def write_bundle(
    root: Path,
    package: str,
    version: str,
    *,
    channels: str = "stable",
    default: str | None = "stable",
    csv: dict[str, Any] | None = None,
    docs: list[dict[str, Any]] = (),  # type: ignore[assignment]
    dependencies: list[dict[str, Any]] | None = None,
    properties: list[dict[str, Any]] | None = None,
    replaces: str | None = None,
) -> Path:
    """<root>/<package>/<version>/{manifests/, metadata/annotations.yaml[, ...]}."""
    bundle = root / package / version
    (bundle / "manifests").mkdir(parents=True)
    (bundle / "metadata").mkdir()
    if csv is None:
        spec = {"replaces": replaces} if replaces else {}
        csv = csv_doc(f"{package}.v{version}", version, **spec)
    for index, doc in enumerate([csv, *docs]):
        name = f"{index:02d}-{doc['metadata']['name']}.yaml"
        (bundle / "manifests" / name).write_text(yaml.safe_dump(doc))
    annotations = {ANNOTATION_PACKAGE: package, ANNOTATION_CHANNELS: channels}
    if default is not None:
        annotations[ANNOTATION_DEFAULT_CHANNEL] = default
    (bundle / "metadata" / "annotations.yaml").write_text(
        yaml.safe_dump({"annotations": annotations})
    )
    if dependencies is not None:
        text = yaml.safe_dump({"dependencies": dependencies})
        (bundle / "metadata" / "dependencies.yaml").write_text(text)
    if properties is not None:
        text = yaml.safe_dump({"properties": properties})
        (bundle / "metadata" / "properties.yaml").write_text(text)
    return bundle


def chain(root: Path, package: str, *versions: str, **kwargs: Any) -> None:
    """Bundles where each CSV replaces the previous version."""
    for index, version in enumerate(versions):
        previous = f"{package}.v{versions[index - 1]}" if index else None
        write_bundle(root, package, version, replaces=previous, **kwargs)


def props(bundle_dir: Path, **kwargs: Any) -> list[tuple[str, Any]]:
    bundle = render_bundle_dir(bundle_dir, **kwargs)
    return [(p.type, json.loads(p.value)) for p in bundle.properties]


def read(root: Path, **kwargs: Any) -> list[Any]:
    return list(BundleDirCatalog(root, **kwargs).packages())


# -- render -------------------------------------------------------------------------------------


def test_render_properties_sorted_then_objects_in_file_order(tmp_path: Path) -> None:
    crd = crd_doc("widgets", "example.com", "Widget", ["v1alpha1", "v1"])
    csv = csv_doc(
        "demo.v1.0.0",
        "1.0.0",
        customresourcedefinitions={
            "owned": [{"name": "widgets.example.com", "version": "v1", "kind": "Widget"}],
            "required": [{"name": "gadgets.other.io", "version": "v2", "kind": "Gadget"}],
        },
    )
    # The CRD file sorts before the CSV file, so its object comes first.
    bundle = write_bundle(tmp_path, "demo", "1.0.0", csv=csv)
    (bundle / "manifests" / "00-aaa-crd.yaml").write_text(yaml.safe_dump(crd))
    assert [(t, v) for t, v in props(bundle) if t != "olm.bundle.object"] == [
        ("olm.gvk", {"group": "example.com", "kind": "Widget", "version": "v1"}),
        ("olm.gvk", {"group": "example.com", "kind": "Widget", "version": "v1alpha1"}),
        ("olm.gvk.required", {"group": "other.io", "kind": "Gadget", "version": "v2"}),
        ("olm.package", {"packageName": "demo", "version": "1.0.0"}),
    ]
    objects = [
        json.loads(base64.b64decode(v["data"])) for t, v in props(bundle) if t.endswith("object")
    ]
    assert [o["kind"] for o in objects] == ["CustomResourceDefinition", "ClusterServiceVersion"]


def test_objects_are_go_json_marshal_of_the_first_document(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    (bundle / "manifests" / "zz-cm.yaml").write_text(
        "kind: ConfigMap\napiVersion: v1\nmetadata: {name: cm}\ndata: {a: '<&>'}\n"
        "---\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: second}\n"
    )
    warnings: list[str] = []
    bundle_blob = render_bundle_dir(bundle, warn=warnings.append)
    last = bundle_blob.properties[-1]
    data = base64.b64decode(json.loads(last.value)["data"]).decode()
    assert data == (
        '{"apiVersion":"v1","data":{"a":"\\u003c\\u0026\\u003e"},"kind":"ConfigMap",'
        '"metadata":{"name":"cm"}}'
    )
    assert any("zz-cm.yaml: holds more than one document" in w for w in warnings)


def test_dependencies_become_required_properties_or_pass_through(tmp_path: Path) -> None:
    dependencies = [
        {"type": "olm.package", "value": {"packageName": "etcd", "version": ">=0.9.0"}},
        {"type": "olm.gvk", "value": {"group": "g.io", "kind": "K", "version": "v1"}},
        {"type": "olm.label", "value": {"label": "needs-<this>"}},
        {"type": "olm.constraint", "value": {"failureMessage": "m", "cel": {"rule": "true"}}},
    ]
    bundle = write_bundle(tmp_path, "demo", "1.0.0", dependencies=dependencies)
    rendered = render_bundle_dir(bundle)
    values = {p.type: p.value for p in rendered.properties if p.type != "olm.bundle.object"}
    assert values == {
        "olm.constraint": '{"cel":{"rule":"true"},"failureMessage":"m"}',  # keys sorted
        "olm.gvk.required": '{"group":"g.io","kind":"K","version":"v1"}',
        "olm.label": '{"label":"needs-\\u003cthis\\u003e"}',  # json.Marshal escapes HTML
        "olm.package": '{"packageName":"demo","version":"1.0.0"}',
        "olm.package.required": '{"packageName":"etcd","versionRange":">=0.9.0"}',
    }


def test_properties_file_and_csv_annotation_are_kept_raw(tmp_path: Path) -> None:
    csv = csv_doc("demo.v1.0.0", "1.0.0")
    # The annotation keeps its own escapes and is only compacted; its olm.package wins.
    csv["metadata"]["annotations"] = {
        "olm.properties": '[{"type": "olm.maxOpenShiftVersion", "value": "4.\\u0031"},'
        ' {"type": "olm.package", "value": {"packageName": "demo", "version": "9.9.9"}}]'
    }
    properties = [
        {"type": "olm.maxOpenShiftVersion", "value": "4.8"},
        {"type": "olm.gvk", "value": {"group": "p.io", "kind": "P", "version": "v1"}},
    ]
    bundle = write_bundle(tmp_path, "demo", "1.0.0", csv=csv, properties=properties)
    rendered = render_bundle_dir(bundle, image_ref_template="r/{package}:{version}")
    pairs = [(p.type, p.value) for p in rendered.properties if p.type != "olm.bundle.object"]
    assert pairs == [
        ("olm.gvk", '{"group":"p.io","kind":"P","version":"v1"}'),
        ("olm.maxOpenShiftVersion", '"4.8"'),
        ("olm.maxOpenShiftVersion", '"4.\\u0031"'),
        ("olm.package", '{"packageName":"demo","version":"9.9.9"}'),
    ]
    # The template sees the first olm.package (from the annotations), not the winning one.
    assert rendered.image == "r/demo:1.0.0"


def test_json_metadata_values_keep_their_raw_text(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    (bundle / "metadata" / "properties.json").write_text(
        '{"properties": [{"type": "com.example", "value": {"z": 1, "a": "\\u00e9 <"}}]}'
    )
    rendered = render_bundle_dir(bundle)
    # Key order and escapes as written (json.RawMessage), only compacted.
    assert ("com.example", '{"z":1,"a":"\\u00e9 <"}') in [
        (p.type, p.value) for p in rendered.properties
    ]


def test_bad_csv_properties_annotation_is_ignored_with_a_warning(tmp_path: Path) -> None:
    csv = csv_doc("demo.v1.0.0", "1.0.0")
    csv["metadata"]["annotations"] = {"olm.properties": "not json"}
    bundle = write_bundle(tmp_path, "demo", "1.0.0", csv=csv)
    warnings: list[str] = []
    rendered = render_bundle_dir(bundle, warn=warnings.append)
    assert [p.type for p in rendered.properties][:1] == ["olm.package"]
    assert any("annotation olm.properties is not a JSON list" in w for w in warnings)


def test_related_images_csv_bundle_and_operator_images_sorted(tmp_path: Path) -> None:
    csv = csv_doc(
        "demo.v1.0.0",
        "1.0.0",
        relatedImages=[{"name": "db", "image": "z/db:1"}, {"name": "op", "image": "b/op:1"}],
        install=deployment("b/op:1", "a/sidecar:1"),
    )
    bundle = write_bundle(tmp_path, "demo", "1.0.0", csv=csv)
    rendered = render_bundle_dir(bundle, image_ref_template="q/{package}-bundle:{dir}")
    assert [(r.name, r.image) for r in rendered.related_images] == [
        ("", "a/sidecar:1"),
        ("op", "b/op:1"),
        ("", "q/demo-bundle:1.0.0"),
        ("db", "z/db:1"),
    ]


def test_operator_images_only_for_the_deployment_strategy(tmp_path: Path) -> None:
    install = deployment("b/op:1")
    install["strategy"] = "other"
    csv = csv_doc("demo.v1.0.0", "1.0.0", install=install)
    bundle = write_bundle(tmp_path, "demo", "1.0.0", csv=csv)
    assert render_bundle_dir(bundle).related_images == ()


def test_image_template_placeholders(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    template = "{package}|{name}|{version}|{dir}"
    assert render_bundle_dir(bundle, image_ref_template=template).image == (
        "demo|demo.v1.0.0|1.0.0|1.0.0"
    )
    with pytest.raises(InputError, match=r"unknown placeholder '\{tag\}'"):
        render_bundle_dir(bundle, image_ref_template="x:{tag}")


def test_no_template_leaves_the_image_empty(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    assert json.loads(bundle_json(render_bundle_dir(bundle)))["image"] == ""


# -- the channel graph --------------------------------------------------------------------------


def test_replaces_chain_with_head_by_version(tmp_path: Path) -> None:
    chain(tmp_path, "demo", "0.1.0", "0.2.0", "0.10.0")
    (pkg,) = read(tmp_path)
    assert [(e.name, e.replaces) for e in pkg.channel("stable").entries] == [
        ("demo.v0.1.0", ""),
        ("demo.v0.10.0", "demo.v0.2.0"),
        ("demo.v0.2.0", "demo.v0.1.0"),
    ]
    assert pkg.channel("stable").head() == "demo.v0.10.0"
    assert pkg.package.default_channel == "stable"


def test_non_head_bundle_keeps_channels_through_the_replaces_chain(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0", channels="alpha,stable")
    write_bundle(tmp_path, "demo", "1.1.0", channels="alpha", replaces="demo.v1.0.0")
    (pkg,) = read(tmp_path)
    assert [c.name for c in pkg.channels] == ["alpha", "stable"]
    assert [e.name for e in pkg.channel("alpha").entries] == ["demo.v1.0.0", "demo.v1.1.0"]
    assert [e.name for e in pkg.channel("stable").entries] == ["demo.v1.0.0"]


def test_default_channel_from_the_highest_version_and_lone_channel_rule(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0", channels="alpha,beta", default="alpha")
    write_bundle(
        tmp_path, "demo", "2.0.0", channels="alpha,beta", default="beta", replaces="demo.v1.0.0"
    )
    (pkg,) = read(tmp_path)
    assert pkg.package.default_channel == "beta"
    other = tmp_path / "other"
    write_bundle(other, "solo", "1.0.0", channels="only", default=None)
    (solo,) = read(other)
    assert solo.package.default_channel == "only"


def test_skips_skip_range_and_unreached_bundles(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0")
    csv = csv_doc("demo.v2.0.0", "2.0.0", replaces="demo.v1.0.0", skips=["demo.v1.5.0"])
    csv["metadata"]["annotations"] = {"olm.skipRange": "<2.0.0"}
    write_bundle(tmp_path, "demo", "2.0.0", csv=csv)
    write_bundle(tmp_path, "demo", "0.5.0")  # nothing replaces it
    warnings: list[str] = []
    (pkg,) = read(tmp_path, warn=warnings.append)
    entry = pkg.channel("stable").entry("demo.v2.0.0")
    assert (entry.replaces, entry.skips, entry.skip_range) == (
        "demo.v1.0.0",
        ("demo.v1.5.0",),
        "<2.0.0",
    )
    assert [b.name for b in pkg.bundles] == ["demo.v1.0.0", "demo.v2.0.0"]
    assert any("demo.v0.5.0" in w and "is in no channel" in w for w in warnings)


def test_icon_comes_from_the_default_channel_head(tmp_path: Path) -> None:
    icon = [{"base64data": base64.b64encode(b"<svg/>").decode(), "mediatype": "image/svg+xml"}]
    write_bundle(tmp_path, "demo", "1.0.0", csv=csv_doc("demo.v1.0.0", "1.0.0", icon=icon))
    (pkg,) = read(tmp_path)
    assert pkg.package.icon is not None
    assert base64.b64decode(pkg.package.icon.base64data) == b"<svg/>"


def test_semver_mode_chains_bundles_by_version(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0", channels="stable,v1.0")
    write_bundle(tmp_path, "demo", "1.1.0", channels="stable")
    write_bundle(tmp_path, "demo", "1.2.0", channels="stable", default=None)
    (pkg,) = read(tmp_path, semver_packages={"demo"})
    assert [(e.name, e.replaces) for e in pkg.channel("stable").entries] == [
        ("demo.v1.0.0", ""),
        ("demo.v1.1.0", "demo.v1.0.0"),
        ("demo.v1.2.0", "demo.v1.1.0"),
    ]
    assert [e.name for e in pkg.channel("v1.0").entries] == ["demo.v1.0.0"]
    assert pkg.package.default_channel == "stable"


def test_stray_files_hidden_dirs_and_indexignore_are_skipped(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0")
    (tmp_path / "demo" / "ci.yaml").write_text("updateGraph: replaces-mode\n")
    (tmp_path / "demo" / "1.0.0" / "bundle.Dockerfile").write_text("FROM scratch\n")
    (tmp_path / "demo" / "1.0.0" / "manifests" / "Dockerfile").write_text("FROM scratch\n")
    (tmp_path / "demo" / "1.0.0" / "manifests" / "notes.txt").write_text("kind: [unclosed\n")
    write_bundle(tmp_path / ".git", "hidden", "1.0.0")
    write_bundle(tmp_path / "drafts", "draft", "1.0.0")
    (tmp_path / ".indexignore").write_text("drafts/\n")
    warnings: list[str] = []
    (pkg,) = read(tmp_path, warn=warnings.append)
    assert pkg.name == "demo"
    # A Dockerfile parses as a YAML string: no Kubernetes object, skipped as opm skips it.
    assert any("manifests/Dockerfile: not a Kubernetes object" in w for w in warnings)
    # Unparsable, but not named like a manifest: skipped with a warning, not an error.
    assert any("manifests/notes.txt: not a YAML or JSON manifest" in w for w in warnings)


def test_exclude_dirs_leave_package_manifest_packages_alone(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0")
    write_bundle(tmp_path / "legacy", "inside", "1.0.0")
    catalog = BundleDirCatalog(tmp_path, exclude_dirs={tmp_path / "legacy"})
    assert catalog.package_names() == ["demo"]


def test_a_single_bundle_directory_is_a_catalog(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    (pkg,) = read(bundle)
    assert [b.name for b in pkg.bundles] == ["demo.v1.0.0"]


# -- validation ---------------------------------------------------------------------------------


def _write_annotations(bundle: Path, annotations: dict[str, str]) -> None:
    (bundle / "metadata" / "annotations.yaml").write_text(
        yaml.safe_dump({"annotations": annotations})
    )


RULES: dict[str, tuple[Any, str]] = {
    "no-channel": (
        lambda root: write_bundle(root, "demo", "1.0.0", channels=""),
        "annotations.yaml: annotation operators.operatorframework.io.bundle.channels.v1 "
        "names no channel",
    ),
    "empty-channel-name": (
        lambda root: write_bundle(root, "demo", "1.0.0", channels="stable,"),
        "annotation operators.operatorframework.io.bundle.channels.v1 'stable,' has an empty "
        "channel name",
    ),
    "no-package": (
        lambda root: _write_annotations(
            write_bundle(root, "demo", "1.0.0"), {ANNOTATION_CHANNELS: "stable"}
        ),
        "annotations.yaml: no operators.operatorframework.io.bundle.package.v1 annotation",
    ),
    "no-annotations-file": (
        lambda root: (write_bundle(root, "demo", "1.0.0") / "metadata/annotations.yaml").unlink(),
        "demo/1.0.0/metadata: no annotations file",
    ),
    "two-csvs": (
        lambda root: write_bundle(root, "demo", "1.0.0", docs=[csv_doc("demo.v1.0.1", "1.0.1")]),
        "demo/1.0.0/manifests: a bundle must hold exactly one ClusterServiceVersion, found 2 "
        "(00-demo.v1.0.0.yaml, 01-demo.v1.0.1.yaml)",
    ),
    "no-csv": (
        lambda root: (
            write_bundle(root, "demo", "1.0.0") / "manifests/00-demo.v1.0.0.yaml"
        ).unlink(),
        "a bundle must hold exactly one ClusterServiceVersion, found 0",
    ),
    "owned-crd-missing": (
        lambda root: write_bundle(
            root,
            "demo",
            "1.0.0",
            csv=csv_doc(
                "demo.v1.0.0",
                "1.0.0",
                customresourcedefinitions={
                    "owned": [{"name": "foos.example.com", "version": "v1", "kind": "Foo"}]
                },
            ),
        ),
        "demo/1.0.0: the CSV owns CRDs that are not in manifests/: foos.example.com v1/Foo",
    ),
    "replaces-missing": (
        lambda root: write_bundle(root, "demo", "1.0.0", replaces="demo.v0.9.0"),
        "package 'demo': channel 'stable': demo.v1.0.0 replaces 'demo.v0.9.0', which does "
        "not exist",
    ),
    "duplicate-csv-name": (
        lambda root: [
            write_bundle(root, "demo", "1.0.0"),
            write_bundle(root, "demo", "copy", csv=csv_doc("demo.v1.0.0", "1.0.0")),
        ],
        "CSV 'demo.v1.0.0' is also defined in",
    ),
    "tied-highest-version": (
        lambda root: [
            write_bundle(root, "demo", "1.0.0"),
            write_bundle(root, "demo", "again", csv=csv_doc("demo.v1.0.0-again", "1.0.0")),
        ],
        "package 'demo': more than one bundle has the highest version 1.0.0",
    ),
    "default-not-a-channel": (
        lambda root: write_bundle(root, "demo", "1.0.0", channels="stable", default="beta"),
        "package 'demo': default channel 'beta' (annotated in",
    ),
    "no-default-several-channels": (
        lambda root: write_bundle(root, "demo", "1.0.0", channels="a,b", default=None),
        "package 'demo': no bundle annotation names a default channel and there are several "
        "channels (a, b)",
    ),
    "invalid-version": (
        lambda root: write_bundle(root, "demo", "1.0.0", csv=csv_doc("demo.v1", "v1")),
        'bundle demo.v1: invalid version "v1": MAJOR.MINOR.PATCH is required',
    ),
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_validation_rule(tmp_path: Path, rule: str) -> None:
    build, message = RULES[rule]
    build(tmp_path)
    with pytest.raises(ValidationError) as caught:
        read(tmp_path)
    assert message in str(caught.value)
    assert str(tmp_path) in str(caught.value) or "package 'demo'" in str(caught.value)


def test_unparsable_manifest_is_an_input_error_naming_the_file(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    (bundle / "manifests" / "broken.yaml").write_text("kind: [unclosed\n")
    with pytest.raises(InputError, match=r"manifests/broken\.yaml: not valid YAML"):
        read(tmp_path)


def test_unparsable_metadata_file_is_an_input_error(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    (bundle / "metadata" / "dependencies.yaml").write_text("dependencies: [\n")
    with pytest.raises(InputError, match=r"metadata/dependencies\.yaml: not valid YAML"):
        read(tmp_path)


def test_first_invalid_package_stops_unless_permissive(tmp_path: Path) -> None:
    write_bundle(tmp_path, "aaa", "1.0.0", replaces="aaa.v0.1.0")  # invalid
    write_bundle(tmp_path, "bbb", "1.0.0")
    _write_annotations(write_bundle(tmp_path, "ccc", "1.0.0"), {ANNOTATION_CHANNELS: "x"})
    with pytest.raises(
        ValidationError, match=r"no operators\.operatorframework\.io\.bundle\.package"
    ):
        read(tmp_path)
    warnings: list[str] = []
    catalog = BundleDirCatalog(tmp_path, permissive=True, warn=warnings.append)
    assert [p.name for p in catalog.packages()] == ["bbb"]
    assert catalog.skipped == [str(tmp_path / "ccc" / "1.0.0"), "aaa"]
    assert len([w for w in warnings if w.startswith("skipped ")]) == 2


# -- mixed trees and the CLI --------------------------------------------------------------------


def write_pkgman_package(root: Path, name: str) -> None:
    pkg_dir = root / name
    (pkg_dir / "1.0.0").mkdir(parents=True)
    manifest = {"packageName": name, "channels": [{"name": "stable", "currentCSV": f"{name}.v1"}]}
    (pkg_dir / f"{name}.package.yaml").write_text(yaml.safe_dump(manifest))
    (pkg_dir / "1.0.0" / "csv.yaml").write_text(yaml.safe_dump(csv_doc(f"{name}.v1", "1.0.0")))


def test_mixed_tree_migrates_both_formats(tmp_path: Path) -> None:
    write_pkgman_package(tmp_path / "tree", "legacy")
    write_bundle(tmp_path / "tree", "modern", "1.0.0")
    out = io.StringIO()
    result = migrate_pkgman(
        tmp_path / "tree", None, stdout=out, image_ref_template="reg/{package}:{version}"
    )
    assert result.stats.packages == 2
    blobs = parse_stream(out.getvalue())
    assert [(b["schema"], b.get("name")) for b in blobs] == [
        ("olm.package", "legacy"),
        ("olm.channel", "stable"),
        ("olm.bundle", "legacy.v1"),
        ("olm.package", "modern"),
        ("olm.channel", "stable"),
        ("olm.bundle", "modern.v1.0.0"),
    ]
    assert [b["image"] for b in blobs if b["schema"] == "olm.bundle"] == ["", "reg/modern:1.0.0"]


def test_bundle_dirs_inside_a_package_manifest_package_belong_to_it(tmp_path: Path) -> None:
    write_pkgman_package(tmp_path, "legacy")
    write_bundle(tmp_path / "legacy", "stray", "9.9.9")
    out = io.StringIO()
    migrate_pkgman(tmp_path, None, stdout=out)
    assert {b["name"] for b in parse_stream(out.getvalue()) if b["schema"] == "olm.package"} == {
        "legacy"
    }


def test_same_package_in_both_formats_is_read_from_the_package_manifest(tmp_path: Path) -> None:
    # As the legacy initializer: it reads package manifests and knows nothing of annotations.
    write_pkgman_package(tmp_path, "demo")
    write_bundle(tmp_path / "bundles", "demo", "1.0.0")
    out, notices = io.StringIO(), NoticeLog()
    migrate_pkgman(tmp_path, None, stdout=out, notify=notices)
    blobs = parse_stream(out.getvalue())
    assert [b["name"] for b in blobs if b["schema"] == "olm.bundle"] == ["demo.v1"]
    assert [n.package for n in notices if n.code == "pkgman.package-also-bundle-format"] == ["demo"]


def test_cli_migrates_a_bundle_tree(tmp_path: Path) -> None:
    chain(tmp_path / "tree", "demo", "1.0.0", "1.1.0")
    result = CliRunner().invoke(
        cli,
        [
            "migrate",
            "pkgman",
            str(tmp_path / "tree"),
            str(tmp_path / "out"),
            "--image-ref-template",
            "quay.io/x/{package}-bundle:v{version}",
        ],
    )
    assert result.exit_code == 0, result.output
    blobs = parse_stream((tmp_path / "out" / "demo" / "catalog.json").read_text())
    assert [b["image"] for b in blobs if b["schema"] == "olm.bundle"] == [
        "quay.io/x/demo-bundle:v1.0.0",
        "quay.io/x/demo-bundle:v1.1.0",
    ]


def test_cli_invalid_bundle_is_one_line_and_exit_1(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0", channels="")
    result = CliRunner().invoke(cli, ["migrate", "pkgman", str(tmp_path), str(tmp_path / "o")])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("olmcat: error: ") and "names no channel" in lines[0]
    assert not (tmp_path / "o").exists()


def test_cli_bad_template_exit_1_and_permissive_counts(tmp_path: Path) -> None:
    write_bundle(tmp_path / "t", "good", "1.0.0")
    write_bundle(tmp_path / "t", "bad", "1.0.0", channels="")
    bad_template = CliRunner().invoke(
        cli, ["migrate", "pkgman", str(tmp_path / "t"), "--image-ref-template", "{nope}"]
    )
    assert bad_template.exit_code == 1
    assert "unknown placeholder '{nope}'" in bad_template.output
    result = CliRunner().invoke(
        cli, ["migrate", "pkgman", str(tmp_path / "t"), str(tmp_path / "o"), "--permissive"]
    )
    assert result.exit_code == 0, result.output
    assert "skipped package 'bad'" in result.output
    assert "(1 packages left out" in result.output
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["good"]


def test_cli_usage_error_exit_2() -> None:
    result = CliRunner().invoke(cli, ["migrate", "pkgman", "--image-ref-template"])
    assert result.exit_code == 2
