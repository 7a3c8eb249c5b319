"""The package-manifest reader on trees built in code: the legacy loader's rules, one per test."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import InputError, ValidationError
from olmcat.notices import NoticeLog
from olmcat.readers.pkgman import PkgmanCatalog
from tests.support.builders import crd_doc
from tests.support.builders import csv as csv_doc
from tests.support.paths import parse_stream
from tests.support.pkgman_trees import chain, install_with_env, write_package


def read(root: Path, **kwargs: Any) -> list[Any]:
    return list(PkgmanCatalog(root, **kwargs))


def test_channels_follow_replaces_from_current_csv(tmp_path: Path) -> None:
    write_package(
        tmp_path, "demo", [("stable", "demo.v0.3.0")], chain("demo", "0.1.0", "0.2.0", "0.3.0")
    )
    (pkg,) = read(tmp_path)
    entries = pkg.channel("stable").entries
    assert [(e.name, e.replaces) for e in entries] == [
        ("demo.v0.1.0", ""),
        ("demo.v0.2.0", "demo.v0.1.0"),
        ("demo.v0.3.0", "demo.v0.2.0"),
    ]
    # The only channel is the default even though defaultChannel is not set (loader rule).
    assert pkg.package.default_channel == "stable"


def test_skips_and_skip_range_come_from_the_csv(tmp_path: Path) -> None:
    versions = chain("demo", "0.1.0", "0.2.0")
    head = versions["0.2.0"][0]
    head["spec"]["skips"] = ["demo.v0.1.5"]
    head["metadata"]["annotations"] = {"olm.skipRange": "<0.2.0"}
    write_package(tmp_path, "demo", [("stable", "demo.v0.2.0")], versions)
    (pkg,) = read(tmp_path)
    entry = pkg.channel("stable").entry("demo.v0.2.0")
    assert (entry.replaces, entry.skips, entry.skip_range) == (
        "demo.v0.1.0",
        ("demo.v0.1.5",),
        "<0.2.0",
    )


def test_provided_and_required_apis_become_properties(tmp_path: Path) -> None:
    crd = crd_doc("widgets", "example.com", "Widget", ["v1alpha1", "v1"])
    csv = csv_doc(
        "demo.v1.0.0",
        "1.0.0",
        customresourcedefinitions={
            "owned": [{"name": "widgets.example.com", "version": "v1", "kind": "Widget"}],
            "required": [{"name": "gadgets.other.io", "version": "v2", "kind": "Gadget"}],
        },
    )
    write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], {"1.0.0": [csv, crd]})
    (pkg,) = read(tmp_path)
    props = [(p.type, json.loads(p.value)) for p in pkg.bundles[0].properties]
    assert ("olm.gvk", {"group": "example.com", "kind": "Widget", "version": "v1"}) in props
    assert ("olm.gvk", {"group": "example.com", "kind": "Widget", "version": "v1alpha1"}) in props
    assert ("olm.gvk.required", {"group": "other.io", "kind": "Gadget", "version": "v2"}) in props
    assert ("olm.package", {"packageName": "demo", "version": "1.0.0"}) in props
    objects = [v for t, v in props if t == "olm.bundle.object"]
    assert len(objects) == 2  # CSV and CRD, in file-name order


def test_non_manifest_files_are_skipped(tmp_path: Path) -> None:
    pkg_dir = write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    (pkg_dir / "ci.yaml").write_text("reviewers: [someone]\n")
    (pkg_dir / "1.0.0" / "Dockerfile").write_text("FROM scratch\n")
    (pkg_dir / "1.0.0" / "README.md").write_text("# not yaml: [\n")
    (pkg,) = read(tmp_path)
    assert [b.name for b in pkg.bundles] == ["demo.v1.0.0"]


def test_indexignore_excludes_files(tmp_path: Path) -> None:
    pkg_dir = write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    (pkg_dir / "1.0.0" / "broken.yaml").write_text("kind: [unclosed\n")
    (pkg_dir / ".indexignore").write_text("broken.yaml\n")
    (pkg,) = read(tmp_path)
    assert [b.name for b in pkg.bundles] == ["demo.v1.0.0"]


def test_symlink_outside_the_tree_is_refused_naming_the_link(tmp_path: Path) -> None:
    """Issue 12: a link whose target lies outside the input root is never read through; the
    run is refused with a message naming the link (a kubeconfig.yaml -> ~/.kube/config would
    otherwise become an olm.bundle.object)."""
    write_package(tmp_path / "src", "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    secret = tmp_path / "secret.yaml"
    secret.write_text("kind: Secret\napiVersion: v1\nmetadata: {name: s}\n")
    link = tmp_path / "src" / "demo" / "1.0.0" / "link.yaml"
    link.symlink_to(secret)
    with pytest.raises(InputError, match=r"link\.yaml: a symbolic link to .* leads outside"):
        read(tmp_path / "src")


def test_symlinked_version_directory_inside_the_tree_is_read(tmp_path: Path) -> None:
    write_package(tmp_path / "src", "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    (tmp_path / "src" / "demo" / "1.0.0").rename(tmp_path / "src" / ".real-1.0.0")
    (tmp_path / "src" / "demo" / "1.0.0").symlink_to("../.real-1.0.0", target_is_directory=True)
    (pkg,) = read(tmp_path / "src")
    assert [b.name for b in pkg.bundles] == ["demo.v1.0.0"]


def test_bundle_in_no_channel_is_left_out_with_a_warning(tmp_path: Path) -> None:
    versions = chain("demo", "1.0.0")
    versions["9.9.9"] = [csv_doc("demo.v9.9.9", "9.9.9")]
    write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], versions)
    notices = NoticeLog()
    (pkg,) = read(tmp_path, notify=notices)
    assert [b.name for b in pkg.bundles] == ["demo.v1.0.0"]
    (notice,) = [n for n in notices if n.code == "pkgman.bundle-not-in-channel"]
    assert notice.bundle == "demo.v9.9.9" and notice.severity == "warning"
    assert "is in no channel" in notice.message


# The initializer's errors; without --permissive any of them refuses the tree.
RULES = {
    "no-channels": (
        lambda root: write_package(root, "demo", [], chain("demo", "1.0.0")),
        "package 'demo' not loaded: no default channel",
    ),
    "current-csv-missing": (
        lambda root: write_package(
            root, "demo", [("stable", "demo.v2.0.0")], chain("demo", "1.0.0")
        ),
        "channel 'stable': currentCSV 'demo.v2.0.0' is not a loaded bundle",
    ),
    "owned-crd-missing": (
        lambda root: write_package(
            root,
            "demo",
            [("stable", "demo.v1.0.0")],
            {
                "1.0.0": [
                    csv_doc(
                        "demo.v1.0.0",
                        "1.0.0",
                        customresourcedefinitions={
                            "owned": [{"name": "foos.example.com", "version": "v1", "kind": "Foo"}]
                        },
                    )
                ]
            },
        ),
        "owned CRD foos.example.com v1/Foo is not in the bundle (the bundle is kept)",
    ),
    "same-csv-name-twice-in-a-directory": (
        lambda root: write_package(
            root,
            "demo",
            [("stable", "demo.v1.0.0")],
            {"1.0.0": [csv_doc("demo.v1.0.0", "1.0.0"), csv_doc("demo.v1.0.0", "1.0.1")]},
        ),
        "two CSVs with this name are in one directory",
    ),
    "replaces-missing": (
        lambda root: write_package(
            root,
            "demo",
            [("stable", "demo.v2.0.0")],
            {"2.0.0": [csv_doc("demo.v2.0.0", "2.0.0", replaces="demo.v1.0.0")]},
        ),
        "demo.v2.0.0 replaces 'demo.v1.0.0', which does not exist",
    ),
    "replaces-cycle": (
        lambda root: write_package(
            root,
            "demo",
            [("stable", "demo.v2.0.0")],
            {
                "1.0.0": [csv_doc("demo.v1.0.0", "1.0.0", replaces="demo.v2.0.0")],
                "2.0.0": [csv_doc("demo.v2.0.0", "2.0.0", replaces="demo.v1.0.0")],
            },
        ),
        "cycle, demo.v1.0.0 replaces demo.v2.0.0",
    ),
    "default-channel-unknown": (
        lambda root: write_package(
            root,
            "demo",
            [("a", "demo.v1.0.0"), ("b", "demo.v1.0.0")],
            chain("demo", "1.0.0"),
            default="c",
        ),
        "no default channel (defaultChannel 'c' is not a loaded channel)",
    ),
    "env-value-not-a-string": (
        lambda root: write_package(
            root,
            "demo",
            [("stable", "demo.v1.0.0")],
            {"1.0.0": [csv_doc("demo.v1.0.0", "1.0.0", install=install_with_env(1.0))]},
        ),
        "spec.install.spec.deployments[0].spec.template.spec.containers[0].env[0].value: "
        "a number where a string is expected",
    ),
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_legacy_rule_violations_name_file_and_rule(rule: str, tmp_path: Path) -> None:
    build, message = RULES[rule]
    build(tmp_path)
    with pytest.raises(ValidationError) as info:
        read(tmp_path)
    assert message in str(info.value)
    assert str(tmp_path / "demo") in str(info.value)
    assert "--permissive loads what loads" in str(info.value)


def test_permissive_leaves_out_the_failing_bundle_not_the_package(tmp_path: Path) -> None:
    # 1.1.0's CSV does not decode (an env value that is a number): the initializer refuses that
    # bundle, so the channel head becomes the one the package manifest still names (1.0.0).
    versions = chain("demo", "1.0.0")
    versions["1.1.0"] = [
        csv_doc("demo.v1.1.0", "1.1.0", replaces="demo.v1.0.0", install=install_with_env(1.0))
    ]
    write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], versions)
    notices = NoticeLog()
    (pkg,) = read(tmp_path, permissive=True, notify=notices)
    assert [b.name for b in pkg.bundles] == ["demo.v1.0.0"]
    assert [n.bundle for n in notices if n.code == "pkgman.bundle-rejected"] == ["demo.v1.1.0"]


def test_permissive_keeps_a_bundle_whose_owned_crd_is_missing(tmp_path: Path) -> None:
    build, _ = RULES["owned-crd-missing"]
    build(tmp_path)
    notices = NoticeLog()
    (pkg,) = read(tmp_path, permissive=True, notify=notices)
    assert [b.name for b in pkg.bundles] == ["demo.v1.0.0"]
    assert [n.code for n in notices if n.severity != "info"] == ["pkgman.owned-crd-missing"]


def test_permissive_skips_packages_that_cannot_be_built_and_keeps_the_rest(
    tmp_path: Path,
) -> None:
    write_package(tmp_path, "good", [("stable", "good.v1.0.0")], chain("good", "1.0.0"))
    write_package(tmp_path, "bad", [("stable", "bad.v9.0.0")], chain("bad", "1.0.0"))
    notices = NoticeLog()
    catalog = PkgmanCatalog(tmp_path, permissive=True, notify=notices)
    assert [p.name for p in catalog] == ["good"]
    assert catalog.skipped == ["bad"]
    rejected = [n for n in notices if n.code == "pkgman.package-rejected"]
    assert [(n.package, n.severity) for n in rejected] == [("bad", "error")]
    # bad.v1.0.0 loaded as a bundle, but no channel lists it.
    assert [n.bundle for n in notices if n.code == "pkgman.bundle-not-in-channel"] == ["bad.v1.0.0"]


def test_several_csvs_in_one_directory_are_one_bundle_each(tmp_path: Path) -> None:
    # operator-registry's manifests/etcd/0.9.2 holds etcdoperator.v0.9.0 and v0.9.2: each CSV
    # is a bundle made of itself and the directory's other objects.
    crd = crd_doc("widgets", "example.com", "Widget", ["v1"])
    write_package(
        tmp_path,
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
    (pkg,) = read(tmp_path)
    assert [b.name for b in pkg.bundles] == ["demo.v1.0.0", "demo.v1.1.0"]
    for bundle in pkg.bundles:
        objects = [json.loads(p.value) for p in bundle.properties if p.type == "olm.bundle.object"]
        kinds = [json.loads(base64.b64decode(o["data"]))["kind"] for o in objects]
        assert kinds == ["ClusterServiceVersion", "CustomResourceDefinition"], bundle.name


def test_flat_csvs_in_the_package_directory_are_bundles(tmp_path: Path) -> None:
    pkg_dir = write_package(tmp_path, "demo", [("stable", "demo.v2.0.0")], {})
    for version, replaces in (("1.0.0", ""), ("2.0.0", "demo.v1.0.0")):
        doc = csv_doc(f"demo.v{version}", version, replaces=replaces)
        (pkg_dir / f"demo.v{version}.clusterserviceversion.yaml").write_text(yaml.safe_dump(doc))
    (pkg,) = read(tmp_path)
    (channel,) = pkg.channels
    assert [(e.name, e.replaces) for e in channel.entries] == [
        ("demo.v1.0.0", ""),
        ("demo.v2.0.0", "demo.v1.0.0"),
    ]


def test_csv_olm_properties_annotation_is_kept(tmp_path: Path) -> None:
    annotation = (
        '[{"type": "olm.maxOpenShiftVersion", "value": "4.8"}, '
        '{"type": "olm.label", "value": {"label": "a<b"}}]'
    )
    doc = csv_doc("demo.v1.0.0", "1.0.0")
    doc["metadata"]["annotations"] = {"olm.properties": annotation}
    write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], {"1.0.0": [doc]})
    (pkg,) = read(tmp_path)
    props = {p.type: p.value for p in pkg.bundles[0].properties}
    assert props["olm.maxOpenShiftVersion"] == '"4.8"'
    # json.Marshal of a RawMessage escapes HTML characters; opm keeps that text.
    assert props["olm.label"] == '{"label":"a\\u003cb"}'


def test_manifest_without_api_version_is_kept_as_an_object(tmp_path: Path) -> None:
    write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    (tmp_path / "demo" / "1.0.0" / "extra.yaml").write_text(
        "kind: ConfigMap\nmetadata: {name: x}\n"
    )
    (tmp_path / "demo" / "1.0.0" / "nokind.yaml").write_text("apiVersion: v1\nmetadata: {}\n")
    (pkg,) = read(tmp_path)
    objects = [
        json.loads(base64.b64decode(json.loads(p.value)["data"]))
        for p in pkg.bundles[0].properties
        if p.type == "olm.bundle.object"
    ]
    assert [o["kind"] for o in objects] == ["ClusterServiceVersion", "ConfigMap"]


def test_empty_csv_icon_gives_no_package_icon(tmp_path: Path) -> None:
    doc = csv_doc("demo.v1.0.0", "1.0.0", icon=[{"base64data": "", "mediatype": ""}])
    write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], {"1.0.0": [doc]})
    notices = NoticeLog()
    (pkg,) = read(tmp_path, notify=notices)
    assert pkg.package.icon is None
    assert [n.severity for n in notices if n.code == "legacy.icon-empty"] == ["info"]


def test_second_identical_package_manifest_in_a_version_dir_is_loaded(tmp_path: Path) -> None:
    pkg_dir = write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    shutil.copy(pkg_dir / "demo.package.yaml", pkg_dir / "1.0.0" / "demo.package.yaml")
    notices = NoticeLog()
    (pkg,) = read(tmp_path, notify=notices)
    assert [b.name for b in pkg.bundles] == ["demo.v1.0.0"]
    assert [n.severity for n in notices if n.code == "pkgman.package-redefined"] == ["info"]


def test_first_document_is_what_go_reads(tmp_path: Path) -> None:
    # A comment and then "---": Go's YAML reader returns the comment as the first document, so
    # the loader sees nothing in this file (not the CSV after it).
    write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    hidden = csv_doc("demo.v2.0.0", "2.0.0", replaces="demo.v1.0.0")
    (tmp_path / "demo" / "1.0.0" / "z.yaml").write_text("# header\n---\n" + yaml.safe_dump(hidden))
    catalog = PkgmanCatalog(tmp_path)
    assert sorted(catalog.bundles) == ["demo.v1.0.0"]


def test_cli_strict_refuses_the_tree(tmp_path: Path) -> None:
    write_package(tmp_path, "bad", [("stable", "bad.v9.0.0")], chain("bad", "1.0.0"))
    result = CliRunner().invoke(cli, ["migrate", "pkgman", str(tmp_path), str(tmp_path / "out")])
    assert result.exit_code == 1
    last = result.stderr.splitlines()[-1]
    assert last.startswith("olmcat: error: ") and "currentCSV 'bad.v9.0.0'" in last
    assert not (tmp_path / "out").exists()


def test_cli_permissive_reports_what_it_left_out(tmp_path: Path) -> None:
    src = tmp_path / "src"
    write_package(src, "good", [("stable", "good.v1.0.0")], chain("good", "1.0.0"))
    write_package(src, "bad", [("stable", "bad.v9.0.0")], chain("bad", "1.0.0"))
    report = tmp_path / "report.json"
    result = CliRunner().invoke(
        cli,
        [
            "migrate",
            "pkgman",
            "--permissive",
            "--report",
            str(report),
            str(src),
            str(tmp_path / "out"),
        ],
    )
    assert result.exit_code == 0, result.stderr
    assert "olmcat: warning: " in result.stderr and "package 'bad' not loaded" in result.stderr
    assert "1 packages left out" in result.stderr
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["good"]
    document = json.loads(report.read_text())
    assert document["schema"] == "olmcat.report.v1" and document["ok"] is True
    assert document["packages_left_out"] == ["bad"]
    assert document["summary"]["by_code"] == {
        "pkgman.bundle-not-in-channel": 1,
        "pkgman.package-rejected": 1,
    }


def test_cli_without_out_streams_the_catalog_to_stdout(tmp_path: Path) -> None:
    write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    result = CliRunner().invoke(cli, ["migrate", "pkgman", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    schemas = [b["schema"] for b in parse_stream(result.stdout)]
    assert schemas == ["olm.package", "olm.channel", "olm.bundle"]
    assert "to stdout" in result.stderr


def test_cli_yaml_stream_has_document_separators(tmp_path: Path) -> None:
    write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    result = CliRunner().invoke(cli, ["migrate", "pkgman", "-q", "-o", "yaml", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("---\n") == 3
    assert [d["schema"] for d in yaml.safe_load_all(result.stdout)] == [
        "olm.package",
        "olm.channel",
        "olm.bundle",
    ]


def test_unsafe_package_name_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "src"
    pkg_dir = write_package(src, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    (pkg_dir / "demo.package.yaml").write_text(
        yaml.safe_dump(
            {"packageName": "..", "channels": [{"name": "s", "currentCSV": "demo.v1.0.0"}]}
        )
    )
    result = CliRunner().invoke(cli, ["migrate", "pkgman", str(src), str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "package name '..' cannot be used as a directory name" in result.stderr
    assert not (tmp_path / "out").exists()


def test_missing_directory_is_a_one_line_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["migrate", "pkgman", str(tmp_path / "nope")])
    assert result.exit_code == 1
    assert result.stderr.strip() == f"olmcat: error: {tmp_path / 'nope'}: no such directory"


def test_loader_errors_inside_bundle_format_directories_are_notes(tmp_path: Path) -> None:
    # A bundle-format directory no package manifest owns is the bundle-directory reader's: the
    # initializer's complaints about its CSV do not refuse the tree (a named deviation).
    write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    manifests = tmp_path / "other" / "1.0.0" / "manifests"
    manifests.mkdir(parents=True)
    (manifests.parent / "metadata").mkdir()
    doc = csv_doc("other.v1.0.0", "1.0.0", install=install_with_env(1.0))
    (manifests / "csv.yaml").write_text(yaml.safe_dump(doc))
    notices = NoticeLog()
    catalog = PkgmanCatalog(tmp_path, notify=notices)
    assert catalog.package_names() == ["demo"]
    assert [(n.code, n.severity) for n in notices] == [("pkgman.bundle-rejected", "info")]


def test_bundle_format_operator_directories_hold_no_loader_errors(tmp_path: Path) -> None:
    """Issue 29: beside bundle-format versions (no package manifest), nothing is a manifest:
    an unparsable template, an empty scorecard config, a ci.yaml whose channels is a list of
    strings, a CSV lying outside the bundles: noted (info), never loaded, never an error."""
    from tests.support.bundletrees import write_bundle

    write_bundle(tmp_path, "demo", "1.0.0")
    operator = tmp_path / "demo"
    (operator / "ci.yaml").write_text('channels: ["stable"]\n')
    (operator / "catalog-templates").mkdir()
    (operator / "catalog-templates" / "basic.yaml").write_text("entries: [\n")
    (operator / "1.0.0" / "tests" / "scorecard").mkdir(parents=True)
    (operator / "1.0.0" / "tests" / "scorecard" / "config.yaml").write_text("")
    (operator / "deploy").mkdir()
    (operator / "deploy" / "csv.yaml").write_text(yaml.safe_dump(csv_doc("demo.v0.9.0", "0.9.0")))
    log = NoticeLog()
    catalog = PkgmanCatalog(tmp_path, notify=log, require=False)
    assert catalog.bundles == {} and catalog.package_names() == []
    assert [(n.code, n.severity, Path(n.file).relative_to(operator).as_posix()) for n in log] == [
        ("pkgman.not-a-manifest", "info", "1.0.0/tests/scorecard/config.yaml"),
        ("pkgman.not-a-manifest", "info", "catalog-templates/basic.yaml"),
        ("pkgman.not-a-manifest", "info", "ci.yaml"),
        ("pkgman.not-a-manifest", "info", "deploy/csv.yaml"),
    ]


def test_beside_a_package_manifest_every_yaml_must_decode(tmp_path: Path) -> None:
    pkg_dir = write_package(tmp_path, "demo", [("stable", "demo.v1.0.0")], chain("demo", "1.0.0"))
    (pkg_dir / "ci.yaml").write_text('packageName: demo\nchannels: ["stable"]\n')
    with pytest.raises(ValidationError) as refused:
        read(tmp_path)
    assert str(refused.value) == (
        f"{pkg_dir / 'ci.yaml'}: not a manifest the legacy loader can decode (cannot decode it "
        "into a package manifest: channels[0]: a string where an object is expected); "
        "--permissive loads what loads, as initializer --permissive does"
    )
