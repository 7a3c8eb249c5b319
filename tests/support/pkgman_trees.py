"""Package-manifest trees written in code: the hand-made cases the reader's unit tests and the
differential tests share (each case is a function that writes one tree under a root)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from tests.support.builders import crd_doc
from tests.support.builders import csv as csv_doc


def write_package(
    root: Path,
    name: str,
    channels: list[tuple[str, str]],
    versions: dict[str, list[dict[str, Any]]],
    default: str | None = None,
    *,
    file_name: Callable[[int, dict[str, Any]], str] | None = None,
) -> Path:
    """<root>/<name>/<name>.package.yaml plus one directory per version with its manifests,
    each named by ``file_name(index, manifest)`` (default ``NN-<metadata.name>.yaml``)."""
    pkg_dir = root / name
    pkg_dir.mkdir(parents=True)
    manifest: dict[str, Any] = {
        "packageName": name,
        "channels": [{"name": c, "currentCSV": h} for c, h in channels],
    }
    if default is not None:
        manifest["defaultChannel"] = default
    (pkg_dir / f"{name}.package.yaml").write_text(yaml.safe_dump(manifest))
    for version, docs in versions.items():
        (pkg_dir / version).mkdir()
        for index, doc in enumerate(docs):
            filename = (
                file_name(index, doc)
                if file_name
                else f"{index:02d}-{doc['metadata']['name']}.yaml"
            )
            (pkg_dir / version / filename).write_text(yaml.safe_dump(doc))
    return pkg_dir


def chain(name: str, *versions: str) -> dict[str, list[dict[str, Any]]]:
    """Version dirs where each CSV replaces the previous version."""
    out = {}
    for index, version in enumerate(versions):
        spec = {"replaces": f"{name}.v{versions[index - 1]}"} if index else {}
        out[version] = [csv_doc(f"{name}.v{version}", version, **spec)]
    return out


def install_with_env(value: Any) -> dict[str, Any]:
    """An install strategy whose one container has one env var of ``value``."""
    container = {"name": "op", "image": "quay.io/x/op:1", "env": [{"name": "X", "value": value}]}
    deployment = {"name": "op", "spec": {"template": {"spec": {"containers": [container]}}}}
    return {"strategy": "deployment", "spec": {"deployments": [deployment]}}


def owning(name: str, version: str, plural: str = "foos", **spec: Any) -> dict[str, Any]:
    """A CSV that owns the CRD ``<plural>.example.com`` v1 kind Foo."""
    owned = [{"name": f"{plural}.example.com", "version": "v1", "kind": "Foo"}]
    return csv_doc(name, version, customresourcedefinitions={"owned": owned}, **spec)


# -- the cases: one per difference issue 10 lists, and a few neighbours ---------------------------

Case = Callable[[Path], None]


def several_csvs_in_one_directory(root: Path) -> None:
    crd = crd_doc("widgets", "example.com", "Widget", ["v1"])
    write_package(
        root,
        "demo",
        [("stable", "demo.v1.1.0")],
        {
            "1.x": [
                csv_doc("demo.v1.0.0", "1.0.0"),
                csv_doc("demo.v1.1.0", "1.1.0", replaces="demo.v1.0.0"),
                crd,
            ]
        },
    )


def flat_csvs_in_the_package_directory(root: Path) -> None:
    pkg_dir = write_package(root, "demo", [("stable", "demo.v2.0.0")], {})
    for version, replaces in (("1.0.0", ""), ("2.0.0", "demo.v1.0.0")):
        doc = csv_doc(f"demo.v{version}", version, replaces=replaces)
        (pkg_dir / f"demo.v{version}.clusterserviceversion.yaml").write_text(yaml.safe_dump(doc))
    crd = crd_doc("widgets", "example.com", "Widget", ["v1"])
    (pkg_dir / "widgets.crd.yaml").write_text(yaml.safe_dump(crd))


def same_csv_name_twice_in_a_directory(root: Path) -> None:
    write_package(
        root,
        "demo",
        [("stable", "demo.v1.0.0")],
        {"1.0.0": [csv_doc("demo.v1.0.0", "1.0.0"), csv_doc("demo.v1.0.0", "1.0.1")]},
    )


def same_csv_name_in_two_directories(root: Path) -> None:
    write_package(
        root,
        "demo",
        [("stable", "demo.v1.0.0")],
        {
            "1.0.0": [csv_doc("demo.v1.0.0", "1.0.0")],
            "1.0.0-copy": [csv_doc("demo.v1.0.0", "9.9.9")],
        },
    )


OLM_PROPERTIES = (
    '[{"type": "olm.maxOpenShiftVersion", "value": "4.8"}, '
    '{"type": "olm.label", "value": {"label": "a<b"}}, '
    '{"type": "custom.type", "value": {"nested": [1, 2.50, "x"]}}]'
)


def csv_properties_annotation(root: Path) -> None:
    doc = csv_doc("demo.v1.0.0", "1.0.0")
    doc["metadata"]["annotations"] = {"olm.properties": OLM_PROPERTIES}
    write_package(root, "demo", [("stable", "demo.v1.0.0")], {"1.0.0": [doc]})


def invalid_properties_annotation(root: Path) -> None:
    versions = chain("demo", "1.0.0", "1.1.0")
    versions["1.1.0"][0]["metadata"]["annotations"] = {"olm.properties": '[{"type": '}
    write_package(root, "demo", [("stable", "demo.v1.1.0")], versions)


def manifest_without_api_version(root: Path) -> None:
    write_package(root, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    (root / "demo" / "1.0.0" / "extra.yaml").write_text("kind: ConfigMap\nmetadata: {name: x}\n")
    (root / "demo" / "1.0.0" / "nokind.yaml").write_text("apiVersion: v1\nmetadata: {}\n")


def empty_csv_icon(root: Path) -> None:
    doc = csv_doc("demo.v1.0.0", "1.0.0", icon=[{"base64data": "", "mediatype": ""}])
    write_package(root, "demo", [("stable", "demo.v1.0.0")], {"1.0.0": [doc]})


def icon_without_data(root: Path) -> None:
    doc = csv_doc("demo.v1.0.0", "1.0.0", icon=[{"mediatype": "image/png"}])
    write_package(root, "demo", [("stable", "demo.v1.0.0")], {"1.0.0": [doc]})


def second_identical_package_manifest(root: Path) -> None:
    pkg_dir = write_package(root, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    shutil.copy(pkg_dir / "demo.package.yaml", pkg_dir / "1.0.0" / "demo.package.yaml")


def second_different_package_manifest(root: Path) -> None:
    # Go's walk order visits demo/1.0.0/ before demo/demo.package.yaml ("1" sorts before "d"),
    # so the version directory's manifest is applied first and then replaced.
    pkg_dir = write_package(
        root, "demo", [("stable", "demo.v1.1.0")], chain("demo", "1.0.0", "1.1.0")
    )
    other = {"packageName": "demo", "channels": [{"name": "old", "currentCSV": "demo.v1.0.0"}]}
    (pkg_dir / "1.0.0" / "zz.package.yaml").write_text(yaml.safe_dump(other))


def env_value_not_a_string(root: Path) -> None:
    versions = chain("demo", "1.0.0")
    versions["1.1.0"] = [
        csv_doc("demo.v1.1.0", "1.1.0", replaces="demo.v1.0.0", install=install_with_env(1.0))
    ]
    write_package(root, "demo", [("stable", "demo.v1.1.0")], versions)


def owned_crd_missing(root: Path) -> None:
    versions = {"1.0.0": [owning("demo.v1.0.0", "1.0.0")]}
    write_package(root, "demo", [("stable", "demo.v1.0.0")], versions)


def current_csv_refused(root: Path) -> None:
    # The head's CSV does not decode: its package cannot be built; another package is fine.
    write_package(root, "good", [("stable", "good.v1.0.0")], chain("good", "1.0.0"))
    write_package(
        root,
        "bad",
        [("stable", "bad.v1.0.0")],
        {"1.0.0": [csv_doc("bad.v1.0.0", "1.0.0", replaces=7)]},
    )


def comment_before_the_first_separator(root: Path) -> None:
    write_package(root, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    hidden = csv_doc("demo.v2.0.0", "2.0.0", replaces="demo.v1.0.0")
    (root / "demo" / "1.0.0" / "z.yaml").write_text("# header\n---\n" + yaml.safe_dump(hidden))


def package_in_both_formats(root: Path) -> None:
    write_package(root, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    bundle = root / "bundles" / "demo" / "2.0.0"
    (bundle / "manifests").mkdir(parents=True)
    (bundle / "metadata").mkdir()
    doc = csv_doc("demo.v2.0.0", "2.0.0", replaces="demo.v1.0.0")
    (bundle / "manifests" / "csv.yaml").write_text(yaml.safe_dump(doc))
    annotations = {
        "operators.operatorframework.io.bundle.package.v1": "demo",
        "operators.operatorframework.io.bundle.channels.v1": "stable",
    }
    (bundle / "metadata" / "annotations.yaml").write_text(
        yaml.safe_dump({"annotations": annotations})
    )


def substitutes_for(root: Path) -> None:
    versions = chain("demo", "1.0.0", "1.0.1")
    versions["1.0.1"][0]["metadata"]["annotations"] = {"olm.substitutesFor": "demo.v1.0.0"}
    write_package(root, "demo", [("stable", "demo.v1.0.0")], versions)


def yaml_scalars_as_go_reads_them(root: Path) -> None:
    # yaml.v2: "y" is a boolean, 08 a float; a channel named 4.10 (unquoted) is "4.1".
    pkg_dir = root / "demo"
    (pkg_dir / "1.0.0").mkdir(parents=True)
    (pkg_dir / "demo.package.yaml").write_text(
        "packageName: demo\nchannels:\n- name: 4.10\n  currentCSV: demo.v1.0.0\n"
    )
    doc = csv_doc("demo.v1.0.0", "1.0.0")
    text = yaml.safe_dump(doc) + "extra:\n  flags: [y, n, on, 08, 1e3, 0o17, 1_000]\n"
    (pkg_dir / "1.0.0" / "csv.yaml").write_text(text)


def head_csv_opm_cannot_decode(root: Path) -> None:
    # The initializer keeps the bundle (it reads spec loosely); opm migrate decodes the default
    # channel head's CSV into a ClusterServiceVersion and refuses the catalog.
    modes = [{"type": "OwnNamespace", "supported": "yes"}]
    doc = csv_doc("demo.v0.1.0", "0.1.0", installModes=modes)
    write_package(root, "demo", [("stable", "demo.v0.1.0")], {"0.1.0": [doc]})


def images_without_a_reference(root: Path) -> None:
    containers = [{"name": "a"}, {"name": "b", "image": "quay.io/x/op:1"}]
    pod = {"containers": containers, "initContainers": [{"name": "i", "image": ""}]}
    deployment = {"name": "op", "spec": {"template": {"spec": pod}}}
    related = [{"name": "x"}, {"name": "y", "image": "quay.io/x/op:1"}, {"image": "quay.io/z:1"}]
    install = {"strategy": "deployment", "spec": {"deployments": [deployment]}}
    doc = csv_doc("demo.v1.0.0", "1.0.0", relatedImages=related, install=install)
    write_package(root, "demo", [("stable", "demo.v1.0.0")], {"1.0.0": [doc]})


def skips_holding_commas(root: Path) -> None:
    # The loader stores skips comma-joined and splits them again: "a,b" is two skips, and an
    # empty one becomes an empty skip that opm's model refuses.
    versions = chain("demo", "1.0.0", "1.1.0", "2.0.0")
    versions["2.0.0"][0]["spec"]["skips"] = ["demo.v1.0.0,demo.v1.1.0", ""]
    write_package(root, "demo", [("stable", "demo.v2.0.0")], versions)


def head_from_another_package(root: Path) -> None:
    write_package(root, "a", [("stable", "b.v1.0.0")], {})
    write_package(root, "b", [("stable", "b.v1.0.0")], chain("b", "1.0.0"))


def numbers_as_go_prints_them(root: Path) -> None:
    write_package(root, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    (root / "demo" / "1.0.0" / "cm.yaml").write_text(
        "kind: ConfigMap\nx: 12345678901234567890\ny: 1.0\nz: 1e400\nw: 0.1\nv: -0\n"
        "u: 123456789012345678901234\nmerged:\n  <<: {a: on}\n  b: 2\n"
    )


def json_package_manifest_keys_in_two_cases(root: Path) -> None:
    write_package(root, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    (root / "demo" / "demo.package.yaml").write_text(
        '{"packageName": "demo", "PackageName": "other", '
        '"channels": [{"name": "stable", "currentCSV": "demo.v1.0.0"}]}'
    )


CASES: dict[str, Case] = {
    "several-csvs-in-one-directory": several_csvs_in_one_directory,
    "flat-csvs-in-the-package-directory": flat_csvs_in_the_package_directory,
    "same-csv-name-twice-in-a-directory": same_csv_name_twice_in_a_directory,
    "same-csv-name-in-two-directories": same_csv_name_in_two_directories,
    "csv-properties-annotation": csv_properties_annotation,
    "invalid-properties-annotation": invalid_properties_annotation,
    "manifest-without-api-version": manifest_without_api_version,
    "empty-csv-icon": empty_csv_icon,
    "icon-without-data": icon_without_data,
    "second-identical-package-manifest": second_identical_package_manifest,
    "second-different-package-manifest": second_different_package_manifest,
    "env-value-not-a-string": env_value_not_a_string,
    "owned-crd-missing": owned_crd_missing,
    "current-csv-refused": current_csv_refused,
    "comment-before-the-first-separator": comment_before_the_first_separator,
    "package-in-both-formats": package_in_both_formats,
    "substitutes-for": substitutes_for,
    "yaml-scalars-as-go-reads-them": yaml_scalars_as_go_reads_them,
    "head-csv-opm-cannot-decode": head_csv_opm_cannot_decode,
    "images-without-a-reference": images_without_a_reference,
    "skips-holding-commas": skips_holding_commas,
    "head-from-another-package": head_from_another_package,
    "numbers-as-go-prints-them": numbers_as_go_prints_them,
    "json-package-manifest-keys-in-two-cases": json_package_manifest_keys_in_two_cases,
}
