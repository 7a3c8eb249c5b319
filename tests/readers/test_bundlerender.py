"""Rendering a bundle as ``opm render`` renders its image: one rule per test, on bundles built in
code. Expectations are opm's (each rule was checked with the oracle's ``bundle-index render``; the
differential tests in tests/differential/test_bundles_render.py re-check them on generated trees).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import InputError, ValidationError
from olmcat.notices import NoticeLog
from olmcat.readers.bundlerender import render_bundle_dir, render_bundle_image, render_bundles
from olmcat.writers.fbc import bundle_json, render_json
from tests.support.builders import crd_doc
from tests.support.builders import csv as csv_doc
from tests.support.bundletrees import bundle_image, deployment, write_bundle
from tests.support.paths import corpus_path, parse_stream


def props(bundle_dir: Path, **kwargs: object) -> list[tuple[str, object]]:
    bundle = render_bundle_dir(bundle_dir, **kwargs)  # type: ignore[arg-type]
    return [(p.type, json.loads(p.value)) for p in bundle.properties]


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
    log = NoticeLog()
    bundle_blob = render_bundle_dir(bundle, notify=log)
    last = bundle_blob.properties[-1]
    data = base64.b64decode(json.loads(last.value)["data"]).decode()
    assert data == (
        '{"apiVersion":"v1","data":{"a":"\\u003c\\u0026\\u003e"},"kind":"ConfigMap",'
        '"metadata":{"name":"cm"}}'
    )
    assert [n.code for n in log] == ["bundledir.later-documents-ignored"]
    assert "zz-cm.yaml: holds more than one document" in log.notices[0].message


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
    log = NoticeLog()
    rendered = render_bundle_dir(bundle, notify=log)
    assert [p.type for p in rendered.properties][:1] == ["olm.package"]
    assert log.codes() == {"bundledir.csv-properties-invalid": 1}
    assert "annotation olm.properties is not a JSON list" in log.notices[0].message


def untyped_bundle(root: Path) -> Path:
    """Entries without ``type`` in properties.yaml, the CSV's olm.properties and
    dependencies.yaml (issue 21: opm keeps each with type "")."""
    csv = csv_doc("demo.v1.0.0", "1.0.0")
    csv["metadata"]["annotations"] = {"olm.properties": '[{"value": {"from": "csv"}}]'}
    return write_bundle(
        root,
        "demo",
        "1.0.0",
        csv=csv,
        properties=[{"value": {"label": "untyped"}}, {"type": "olm.label", "value": "x"}],
        dependencies=[{"value": {"needs": "nothing"}}],
    )


def test_entries_without_type_are_kept_with_an_empty_type_and_a_notice(tmp_path: Path) -> None:
    bundle = untyped_bundle(tmp_path)
    log = NoticeLog()
    rendered = render_bundle_dir(bundle, notify=log)
    pairs = [(p.type, p.value) for p in rendered.properties if p.type != "olm.bundle.object"]
    # "" sorts first, as opm sorts on (type, raw value) -- checked with bundle-index render
    assert pairs == [
        ("", '{"from":"csv"}'),
        ("", '{"label":"untyped"}'),
        ("", '{"needs":"nothing"}'),
        ("olm.label", '"x"'),
        ("olm.package", '{"packageName":"demo","version":"1.0.0"}'),
    ]
    where = {
        "property": str(bundle / "metadata" / "properties.yaml"),
        "csv": str(next((bundle / "manifests").glob("*demo.v1.0.0.yaml"))),
        "dependency": str(bundle / "metadata" / "dependencies.yaml"),
    }
    found = sorted((n.code, n.package, n.bundle, n.file, n.severity) for n in log.notices)
    assert found == sorted(
        ("bundledir.property-without-type", "demo", "demo.v1.0.0", file, "warning")
        for file in where.values()
    )
    assert all('has no type; kept with type ""' in n.message for n in log.notices)


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


def test_image_option_names_the_image(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    assert render_bundle_dir(bundle, image="quay.io/x/demo:1").image == "quay.io/x/demo:1"


# -- what opm refuses, and what it leaves out -----------------------------------------------------


@pytest.mark.parametrize("where", ["dependencies", "properties"])
def test_gvk_without_a_value_is_refused_naming_the_file(tmp_path: Path, where: str) -> None:
    # opm render: parse property[0] of type "olm.gvk": unexpected end of JSON input
    bundle = write_bundle(tmp_path, "demo", "1.0.0", **{where: f"{where}:\n- type: olm.gvk\n"})
    with pytest.raises(ValidationError) as caught:
        render_bundle_dir(bundle)
    assert f"metadata/{where}.yaml: " in str(caught.value)
    assert "olm.gvk: has no value" in str(caught.value)


def test_package_dependency_without_a_value_is_refused(tmp_path: Path) -> None:
    bundle = write_bundle(
        tmp_path, "demo", "1.0.0", dependencies="dependencies:\n- type: olm.package\n"
    )
    with pytest.raises(ValidationError, match=r"dependencies\.yaml: dependency olm\.package"):
        render_bundle_dir(bundle)


def test_other_types_without_a_value_render_null(tmp_path: Path) -> None:
    # A nil json.RawMessage is written as null; it sorts before every written value.
    bundle = write_bundle(
        tmp_path,
        "demo",
        "1.0.0",
        properties="properties:\n- type: example.com/a\n  value: 1\n- type: example.com/a\n",
    )
    pairs = [(p.type, p.value) for p in render_bundle_dir(bundle).properties]
    assert pairs[:2] == [("example.com/a", "null"), ("example.com/a", "1")]


def test_a_second_csv_is_left_out_as_opm_keeps_the_first(tmp_path: Path) -> None:
    # opm's parser keeps the first ClusterServiceVersion in file order and drops later ones.
    bundle = write_bundle(tmp_path, "demo", "1.0.0", docs=[csv_doc("demo.v1.0.1", "1.0.1")])
    log = NoticeLog()
    rendered = render_bundle_dir(bundle, notify=log)
    assert rendered.name == "demo.v1.0.0"
    assert [p.type for p in rendered.properties].count("olm.bundle.object") == 1
    assert log.codes() == {"bundledir.extra-csv-ignored": 1}
    assert log.notices[0].bundle == "demo.v1.0.1"


def test_a_package_manifest_in_manifests_is_left_out(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    (bundle / "manifests" / "demo.package.yaml").write_text(
        "packageName: demo\nchannels: [{name: stable, currentCSV: demo.v1.0.0}]\n"
    )
    log = NoticeLog()
    rendered = render_bundle_dir(bundle, notify=log)
    assert [p.type for p in rendered.properties].count("olm.bundle.object") == 1
    assert log.codes() == {"bundledir.package-manifest-ignored": 1}


def test_substitutes_for_renders_as_any_annotation(tmp_path: Path) -> None:
    # opm render does not look at olm.substitutesFor (only the index build refuses it).
    csv = csv_doc("demo.v1.1.0", "1.1.0", replaces="demo.v1.0.0")
    csv["metadata"]["annotations"] = {"olm.substitutesFor": "demo.v1.0.0"}
    bundle = write_bundle(tmp_path, "demo", "1.1.0", csv=csv)
    assert render_bundle_dir(bundle).name == "demo.v1.1.0"


# -- images saved to disk, and the command --------------------------------------------------------

TEMPLATE = "127.0.0.1:5000/{package}-bundle:{dir}"


@pytest.mark.parametrize("form", ["oci-archive", "oci-layout", "docker-archive"])
def test_a_bundle_image_archive_renders_like_its_directory(tmp_path: Path, form: str) -> None:
    directory = corpus_path("bundles/upstream/kiali/1.4.2")
    golden = corpus_path("expected/bundle-renders/kiali-1.4.2.json").read_text()
    ref = "127.0.0.1:5000/kiali-bundle:1.4.2"
    archive = bundle_image(directory, tmp_path / "kiali.img", ref=ref, form=form)
    rendered = render_bundle_image(archive)  # the archive names the image
    assert "".join(render_json([bundle_json(rendered)])) == golden
    assert render_bundle_image(archive, image="x/y:z").image == "x/y:z"


def test_an_archive_without_a_whole_reference_leaves_the_image_empty(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path / "t", "demo", "1.0.0")
    archive = bundle_image(bundle, tmp_path / "img.tar", ref="v1")  # a bare tag names no image
    log = NoticeLog()
    assert render_bundle_image(archive, notify=log).image == ""
    assert log.codes() == {"render.image-unknown": 1}


def test_errors_inside_an_archive_name_the_archive(tmp_path: Path) -> None:
    bundle = write_bundle(
        tmp_path / "t", "demo", "1.0.0", dependencies="dependencies:\n- type: olm.gvk\n"
    )
    archive = bundle_image(bundle, tmp_path / "img.tar")
    with pytest.raises(ValidationError) as caught:
        render_bundle_image(archive)
    assert str(caught.value).startswith(f"{archive}!/metadata/dependencies.yaml: ")


def test_an_image_that_is_no_bundle_is_refused(tmp_path: Path) -> None:
    archive = corpus_path("images/test-index-v1.oci.tar")
    with pytest.raises(InputError, match="not a bundle image"):
        render_bundle_image(archive)


def test_render_orders_by_package_then_name(tmp_path: Path) -> None:
    dirs = [
        write_bundle(tmp_path, "zeta", "1.0.0"),
        write_bundle(tmp_path, "alpha", "2.0.0"),
        write_bundle(tmp_path, "alpha", "1.0.0"),
    ]
    assert [b.name for b in render_bundles(dirs)] == ["alpha.v1.0.0", "alpha.v2.0.0", "zeta.v1.0.0"]


def test_cli_renders_json_and_yaml_and_reports(tmp_path: Path) -> None:
    directory = corpus_path("bundles/upstream/kiali/1.4.2")
    golden = corpus_path("expected/bundle-renders/kiali-1.4.2.json").read_text()
    ref = "127.0.0.1:5000/kiali-bundle:1.4.2"
    # The corpus renders are opm v1.26.5's.
    v126 = ["--opm-version", "1.26"]
    result = CliRunner().invoke(cli, ["render", str(directory), "--image", ref, *v126])
    assert result.exit_code == 0, result.output
    assert result.stdout == golden
    as_yaml = CliRunner().invoke(
        cli, ["render", str(directory), "--image", ref, "-o", "yaml", *v126]
    )
    assert as_yaml.exit_code == 0
    assert yaml.safe_load(as_yaml.stdout) == json.loads(golden)
    bundle = write_bundle(tmp_path, "demo", "1.0.0", docs=[csv_doc("demo.v2", "2.0.0")])
    report = tmp_path / "report.json"
    both = CliRunner().invoke(
        cli,
        [
            "render",
            str(bundle),
            str(directory),
            "--image-ref-template",
            TEMPLATE,
            "--report",
            str(report),
        ],
    )
    assert both.exit_code == 0, both.output
    assert [b["name"] for b in parse_stream(both.stdout)] == [
        "demo.v1.0.0",
        "kiali-operator.v1.4.2",
    ]
    assert json.loads(report.read_text())["summary"]["by_code"] == {
        "bundledir.extra-csv-ignored": 1
    }


def test_cli_errors(tmp_path: Path) -> None:
    bundle = write_bundle(
        tmp_path, "demo", "1.0.0", dependencies="dependencies:\n- type: olm.gvk\n"
    )
    refused = CliRunner().invoke(cli, ["render", str(bundle)])
    assert refused.exit_code == 1
    assert refused.output.count("\n") == 1 and "olm.gvk: has no value" in refused.output
    usage = CliRunner().invoke(cli, ["render", str(bundle), str(bundle), "--image", "x/y:1"])
    assert usage.exit_code == 2
    missing = CliRunner().invoke(cli, ["render", str(tmp_path / "nope")])
    assert missing.exit_code == 1 and "no such file or directory" in missing.output


def test_cli_report_is_written_when_render_fails(tmp_path: Path) -> None:
    bundle = write_bundle(
        tmp_path, "demo", "1.0.0", dependencies="dependencies:\n- type: olm.gvk\n"
    )
    (bundle / "manifests" / "Dockerfile").write_text("FROM scratch\n")
    report = tmp_path / "r.json"
    result = CliRunner().invoke(cli, ["render", str(bundle), "--report", str(report)])
    assert result.exit_code == 1
    document = json.loads(report.read_text())
    assert document["ok"] is False and document["command"] == "render"
    assert document["summary"]["by_code"] == {"bundledir.object-without-kind": 1}
