"""The bundle-directory tree reader: packages as an index build makes them, in each update mode.

Trees are built in code. Every expected graph and every refusal here was checked with the oracle
(``bundle-index index --mode PKG=MODE`` + ``opm migrate``); the differential tests in
tests/differential/test_bundles_index.py check the same rules on generated trees.
"""

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
    BundleDirCatalog,
    parse_mode_options,
)
from olmcat.readers.bundlefiles import load_bundle_dir
from olmcat.readers.update_modes import Mode
from olmcat.writers.fbc import blobs, render_json
from tests.support.builders import csv as csv_doc
from tests.support.bundletrees import (
    PIPELINE_FILES,
    chain,
    nest_bundle,
    write_bundle,
    write_pipeline_files,
)
from tests.support.paths import parse_stream


def read(root: Path, **kwargs: Any) -> list[Any]:
    return list(BundleDirCatalog(root, **kwargs).packages())


def only(root: Path, mode: Mode | None = None, **kwargs: Any) -> Any:
    (pkg,) = read(root, mode=mode, **kwargs)
    return pkg


def edges(pkg: Any, channel: str) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(e.name, e.replaces, e.skips) for e in pkg.channel(channel).entries]


# -- replaces mode -------------------------------------------------------------------------------


def test_replaces_chain_with_head_by_version(tmp_path: Path) -> None:
    chain(tmp_path, "demo", "0.1.0", "0.2.0", "0.10.0")
    pkg = only(tmp_path, "replaces")
    assert edges(pkg, "stable") == [
        ("demo.v0.1.0", "", ()),
        ("demo.v0.10.0", "demo.v0.2.0", ()),
        ("demo.v0.2.0", "demo.v0.1.0", ()),
    ]
    assert pkg.package.default_channel == "stable"


def test_a_chain_reaches_bundles_into_channels_they_do_not_name(tmp_path: Path) -> None:
    # The head of "fast" replaces 1.0.0, which names only "stable": fast lists it all the same.
    write_bundle(tmp_path, "demo", "1.0.0", channels="stable", default=None)
    write_bundle(tmp_path, "demo", "1.1.0", channels="stable,fast", replaces="demo.v1.0.0")
    write_bundle(
        tmp_path, "demo", "1.2.0", channels="stable", default="fast", replaces="demo.v1.1.0"
    )
    pkg = only(tmp_path, "replaces")
    assert [e.name for e in pkg.channel("fast").entries] == ["demo.v1.0.0", "demo.v1.1.0"]
    assert [e.name for e in pkg.channel("stable").entries] == [
        "demo.v1.0.0",
        "demo.v1.1.0",
        "demo.v1.2.0",
    ]
    assert pkg.package.default_channel == "fast"


def test_default_channel_from_the_highest_version_and_lone_channel_rule(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0", channels="alpha,beta", default="alpha")
    write_bundle(
        tmp_path, "demo", "2.0.0", channels="alpha,beta", default="beta", replaces="demo.v1.0.0"
    )
    assert only(tmp_path, "replaces").package.default_channel == "beta"
    other = tmp_path / "other"
    write_bundle(other, "solo", "1.0.0", channels="only", default=None)
    assert only(other, "replaces").package.default_channel == "only"


def test_skips_and_skip_range(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0")
    csv = csv_doc("demo.v2.0.0", "2.0.0", replaces="demo.v1.0.0", skips=["demo.v1.5.0"])
    csv["metadata"]["annotations"] = {"olm.skipRange": "<2.0.0"}
    write_bundle(tmp_path, "demo", "2.0.0", csv=csv)
    entry = only(tmp_path, "replaces").channel("stable").entry("demo.v2.0.0")
    assert (entry.replaces, entry.skips, entry.skip_range) == (
        "demo.v1.0.0",
        ("demo.v1.5.0",),
        "<2.0.0",
    )


# (tree, outcome in replaces mode, outcome in the default mode): opm's answers.
REFUSALS: dict[str, tuple[Any, str, str]] = {
    "unreached bundle": (
        lambda root: [chain(root, "demo", "1.0.0", "2.0.0"), write_bundle(root, "demo", "0.5.0")],
        "add prunes bundle demo.v0.5.0",
        "ok",
    ),
    "replaces target missing": (
        lambda root: write_bundle(root, "demo", "1.0.0", replaces="demo.v0.9.0"),
        "demo.v1.0.0 replaces 'demo.v0.9.0', which does not exist",
        "ok",
    ),
    "no default and several channels": (
        lambda root: write_bundle(root, "demo", "1.0.0", channels="a,b", default=None),
        "no bundle annotation names a default channel and there are several channels (a, b)",
        "ok",
    ),
    "same CSV name twice": (
        lambda root: [
            write_bundle(root, "demo", "1.0.0"),
            write_bundle(root, "demo", "1.0.0", dirname="copy"),
        ],
        "UNIQUE constraint failed: operatorbundle.name",
        "Bundle already added that provides package and csv",
    ),
    "two bundles of the highest version": (
        lambda root: [
            write_bundle(root, "demo", "1.0.0"),
            write_bundle(root, "demo", "1.0.0", dirname="again", name="demo.again"),
        ],
        "more than one bundle has the highest version 1.0.0",
        "Bundle version 1.0.0 already added to index",
    ),
    "default channel no bundle is in": (
        lambda root: write_bundle(root, "demo", "1.0.0", channels="stable", default="beta"),
        "default channel 'beta'",
        "the default channel (beta) does not exist",
    ),
    "no channels": (
        lambda root: write_bundle(root, "demo", "1.0.0", channels=""),
        "default channel 'stable'",
        "the default channel (stable) does not exist",
    ),
    "invalid version": (
        lambda root: write_bundle(root, "demo", "v1", name="demo.v1"),
        'invalid version "v1"',
        "Bundle version v1 is not valid",
    ),
    "substitutesFor": (
        lambda root: [
            write_bundle(root, "demo", "1.0.0"),
            write_bundle(
                root,
                "demo",
                "1.1.0",
                csv={
                    **csv_doc("demo.v1.1.0", "1.1.0", replaces="demo.v1.0.0"),
                    "metadata": {
                        "name": "demo.v1.1.0",
                        "annotations": {"olm.substitutesFor": "demo.v1.0.0"},
                    },
                },
            ),
        ],
        "SubstitutesFor is an alpha-only feature",
        "SubstitutesFor is an alpha-only feature",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_what_each_mode_refuses(tmp_path: Path, case: str) -> None:
    build, in_replaces, in_default = REFUSALS[case]
    build(tmp_path)
    with pytest.raises(ValidationError) as caught:
        read(tmp_path, mode="replaces")
    assert in_replaces in str(caught.value)
    if in_default == "ok":
        assert len(read(tmp_path)) == 1
    else:
        with pytest.raises(ValidationError) as caught:
            read(tmp_path)
        assert in_default in str(caught.value)


def test_permissive_leaves_out_what_opm_leaves_out(tmp_path: Path) -> None:
    # bundle-index (replaces-then-semver): replaces refuses the duplicate CSV name; in semver
    # mode the copy is refused and the rest is added.
    write_bundle(tmp_path, "demo", "1.0.0")
    write_bundle(tmp_path, "demo", "1.0.0", dirname="copy")
    write_bundle(tmp_path, "demo", "1.1.0")
    log = NoticeLog()
    pkg = only(tmp_path, permissive=True, notify=log)
    assert edges(pkg, "stable") == [
        ("demo.v1.0.0", "", ()),
        ("demo.v1.1.0", "demo.v1.0.0", ()),
    ]
    assert log.codes() == {"bundledir.mode-fallback": 1, "bundledir.refused": 1}
    refused = next(n for n in log if n.code == "bundledir.refused")
    assert refused.file == str(tmp_path / "demo" / "copy")


def test_a_bundle_in_no_channel_is_left_out_with_a_notice(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0", channels="")
    write_bundle(tmp_path, "demo", "1.1.0")
    log = NoticeLog()
    pkg = only(tmp_path, "replaces", notify=log)
    assert [b.name for b in pkg.bundles] == ["demo.v1.1.0"]
    assert log.codes() == {"bundledir.not-in-channel": 1}


def test_an_empty_channel_name_is_refused(tmp_path: Path) -> None:
    # opm registry add accepts "stable,"; opm migrate then refuses the whole catalog.
    write_bundle(tmp_path, "demo", "1.0.0", channels="stable,")
    with pytest.raises(ValidationError, match=f"{ANNOTATION_CHANNELS} names an empty channel"):
        read(tmp_path)


def test_icon_comes_from_the_default_channel_head(tmp_path: Path) -> None:
    icon = [{"base64data": base64.b64encode(b"<svg/>").decode(), "mediatype": "image/svg+xml"}]
    write_bundle(tmp_path, "demo", "1.0.0", csv=csv_doc("demo.v1.0.0", "1.0.0", icon=icon))
    pkg = only(tmp_path)
    assert pkg.package.icon is not None
    assert base64.b64decode(pkg.package.icon.base64data) == b"<svg/>"


# -- semver modes --------------------------------------------------------------------------------


def test_semver_mode_chains_bundles_by_version(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0", channels="stable,v1.0", replaces="demo.v0.0.1")
    write_bundle(tmp_path, "demo", "1.1.0", channels="stable")
    write_bundle(tmp_path, "demo", "1.2.0", channels="stable", default=None)
    pkg = only(tmp_path, "semver")
    assert edges(pkg, "stable") == [
        ("demo.v1.0.0", "", ()),
        ("demo.v1.1.0", "demo.v1.0.0", ()),
        ("demo.v1.2.0", "demo.v1.1.0", ()),
    ]
    assert [e.name for e in pkg.channel("v1.0").entries] == ["demo.v1.0.0"]
    assert pkg.package.default_channel == "stable"


def test_semver_mode_guesses_the_default_channel_from_the_first_bundle(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0", channels="zeta,beta", default=None)
    assert only(tmp_path, "semver").package.default_channel == "beta"


def test_skippatch_replaces_lower_patches_and_refuses_what_opm_refuses(tmp_path: Path) -> None:
    # bundle-index --mode semver-skippatch: 1.0.1 skips 1.0.0; adding 1.0.2 then fails opm's
    # depth check ("Invalid graph ... (1 != 0)"), so 1.0.2 is not in the index.
    for version in ("0.9.0", "1.0.0", "1.0.1"):
        write_bundle(tmp_path, "demo", version)
    log = NoticeLog()
    pkg = only(tmp_path, "semver-skippatch", permissive=True, notify=log)
    assert edges(pkg, "stable") == [("demo.v0.9.0", "", ()), ("demo.v1.0.0", "demo.v0.9.0", ())]
    assert log.codes() == {"bundledir.refused": 1}
    assert "Invalid graph" in log.notices[0].message
    with pytest.raises(ValidationError, match=r"1\.0\.1: semver-skippatch mode refuses"):
        read(tmp_path, mode="semver-skippatch")
    # 1.0.1 skips 1.0.0 (which leaves the graph); adding 1.1.0 reads 1.0.0 back as a node, so
    # the final rows chain it: 1.0.1 replaces 1.0.0.
    duo, solo = tmp_path / "duo", tmp_path / "solo"
    for version in ("1.0.0", "1.0.1"):
        write_bundle(duo, "duo", version)
        write_bundle(solo, "solo", version)
    write_bundle(solo, "solo", "1.1.0")
    assert edges(only(duo, "semver-skippatch"), "stable") == [
        ("duo.v1.0.0", "", ()),
        ("duo.v1.0.1", "", ("duo.v1.0.0",)),
    ]
    assert edges(only(solo, "semver-skippatch"), "stable") == [
        ("solo.v1.0.0", "", ()),
        ("solo.v1.0.1", "solo.v1.0.0", ()),
        ("solo.v1.1.0", "solo.v1.0.1", ()),
    ]


# -- choosing the mode ----------------------------------------------------------------------------


def _semver_or_replaces(root: Path, package: str = "demo") -> None:
    """1.1.0 replaces nothing: replaces mode lists two channel members apart (prunes 1.0.0:
    refused); semver mode chains them."""
    write_bundle(root, package, "1.0.0")
    write_bundle(root, package, "1.1.0", skips=[f"{package}.v0.1.0"])


@pytest.mark.parametrize(
    ("update_graph", "expected"),
    [
        ("replaces-mode", "semver"),  # replaces refused: falls back
        ("semver-mode", "semver"),
        ("semver-skippatch-mode", "skippatch"),
        (None, "semver"),
        ("something-else", "semver"),
    ],
)
def test_ci_yaml_update_graph_picks_the_mode(
    tmp_path: Path, update_graph: str | None, expected: str
) -> None:
    for version in ("1.0.0", "1.0.1"):
        write_bundle(tmp_path, "demo", version)
    if update_graph is not None:
        (tmp_path / "demo" / "ci.yaml").write_text(f"updateGraph: {update_graph}\n")
    log = NoticeLog()
    pkg = only(tmp_path, notify=log)
    if expected == "skippatch":
        assert edges(pkg, "stable") == [
            ("demo.v1.0.0", "", ()),
            ("demo.v1.0.1", "", ("demo.v1.0.0",)),
        ]
    else:
        assert edges(pkg, "stable") == [("demo.v1.0.0", "", ()), ("demo.v1.0.1", "demo.v1.0.0", ())]
    codes = log.codes()
    assert codes["bundledir.mode-fallback"] == (
        expected == "semver" and update_graph != "semver-mode"
    )
    assert codes["bundledir.ci-yaml-ignored"] == (update_graph == "something-else")


def test_mode_options_win_over_ci_yaml(tmp_path: Path) -> None:
    for version in ("1.0.0", "1.0.1"):
        write_bundle(tmp_path, "demo", version)
    (tmp_path / "demo" / "ci.yaml").write_text("updateGraph: semver-mode\n")
    run_mode, per_package = parse_mode_options(["replaces", "demo=semver-skippatch"])
    pkg = only(tmp_path, mode=run_mode, package_modes=per_package)
    assert edges(pkg, "stable")[1] == ("demo.v1.0.1", "", ("demo.v1.0.0",))
    with pytest.raises(ValidationError, match=r"add prunes bundle demo\.v1\.0\.0"):
        read(tmp_path, mode=run_mode)


def test_parse_mode_options() -> None:
    assert parse_mode_options([]) == (None, {})
    assert parse_mode_options(["semver", "a=replaces", "b=auto", "auto"]) == (
        None,
        {"a": "replaces"},
    )
    with pytest.raises(ValueError, match="unknown update mode 'fast'"):
        parse_mode_options(["fast"])
    with pytest.raises(ValueError, match="needs a package name"):
        parse_mode_options(["=semver"])


def test_unused_package_mode_is_a_notice(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0")
    log = NoticeLog()
    BundleDirCatalog(tmp_path, package_modes={"ghost": "semver"}, notify=log)
    assert log.codes() == {"bundledir.mode-unused": 1}


# -- discovery ------------------------------------------------------------------------------------


def test_stray_files_hidden_dirs_and_indexignore_are_skipped(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0")
    (tmp_path / "demo" / "ci.yaml").write_text("updateGraph: replaces-mode\n")
    (tmp_path / "demo" / "1.0.0" / "bundle.Dockerfile").write_text("FROM scratch\n")
    (tmp_path / "demo" / "1.0.0" / "manifests" / "Dockerfile").write_text("FROM scratch\n")
    (tmp_path / "demo" / "1.0.0" / "manifests" / "notes.txt").write_text("kind: [unclosed\n")
    write_bundle(tmp_path / ".git", "hidden", "1.0.0")
    write_bundle(tmp_path / "drafts", "draft", "1.0.0")
    (tmp_path / ".indexignore").write_text("drafts/\n")
    log = NoticeLog()
    pkg = only(tmp_path, notify=log)
    assert pkg.name == "demo"
    # A Dockerfile parses as a YAML string: no Kubernetes object, skipped as opm skips it.
    # Unparsable, but not named like a manifest: skipped with a notice, not an error.
    assert sorted((n.code, Path(n.file).name) for n in log) == [
        ("bundledir.file-not-a-manifest", "notes.txt"),
        ("bundledir.object-without-kind", "Dockerfile"),
    ]


def test_exclude_dirs_leave_package_manifest_packages_alone(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0")
    write_bundle(tmp_path / "legacy", "inside", "1.0.0")
    catalog = BundleDirCatalog(tmp_path, exclude_dirs={tmp_path / "legacy"})
    assert catalog.package_names() == ["demo"]


def test_a_single_bundle_directory_is_a_catalog(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    assert [b.name for b in only(bundle).bundles] == ["demo.v1.0.0"]


def test_unparsable_manifest_is_an_input_error_naming_the_file(tmp_path: Path) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    (bundle / "manifests" / "broken.yaml").write_text("kind: [unclosed\n")
    with pytest.raises(InputError, match=r"manifests/broken\.yaml: not valid YAML"):
        read(tmp_path)


# A dependencies file whose later entries are indented one step too deep (the shape of a 2022
# community-operators bundle): libyaml and go-yaml both stop at the second "value:".
OVER_INDENTED_DEPENDENCIES = """\
dependencies:
  - type: olm.gvk
    value:
      group: sources.example.dev
      kind: Binding
      version: v1
  - type: olm.gvk
      value:
        group: eventing.example.dev
        kind: Trigger
        version: v1
"""


def test_unparsable_metadata_file_stops_unless_permissive_which_skips_it_as_opm(
    tmp_path: Path,
) -> None:
    bundle = write_bundle(tmp_path / "bad", "demo", "1.0.0")
    write_bundle(tmp_path / "none", "demo", "1.0.0")
    (bundle / "metadata" / "dependencies.yaml").write_text(OVER_INDENTED_DEPENDENCIES)
    with pytest.raises(
        ValidationError,
        match=r"metadata/dependencies\.yaml: not valid YAML: line 8, column 12: mapping values "
        r"are not allowed in this context; opm skips the file, and the bundle loses",
    ):
        read(tmp_path / "bad")
    log = NoticeLog()
    (kept,) = read(tmp_path / "bad", permissive=True, notify=log)
    assert log.codes() == {"bundle.metadata-unparsable": 1}
    (notice,) = log.notices
    assert notice.file == str(bundle / "metadata" / "dependencies.yaml")
    assert "skipped, as opm skips it" in notice.message
    # opm's bundle parser skips a metadata file it cannot decode: the bundle is what it is
    # without the file (no olm.gvk.required from it).
    (without,) = read(tmp_path / "none")
    assert "".join(render_json(blobs(kept))) == "".join(render_json(blobs(without)))


def test_unparsable_metadata_file_is_still_an_error_outside_an_index_build(
    tmp_path: Path,
) -> None:
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    (bundle / "metadata" / "dependencies.yaml").write_text(OVER_INDENTED_DEPENDENCIES)
    with pytest.raises(InputError, match=r"metadata/dependencies\.yaml: not valid YAML"):
        load_bundle_dir(bundle)


def test_cli_unparsable_metadata_file_one_line_strict_and_noted_permissive(
    tmp_path: Path,
) -> None:
    bundle = write_bundle(tmp_path / "t", "demo", "1.0.0")
    (bundle / "metadata" / "dependencies.yaml").write_text(OVER_INDENTED_DEPENDENCIES)
    strict = CliRunner().invoke(
        cli, ["migrate", "pkgman", str(tmp_path / "t"), str(tmp_path / "o1")]
    )
    assert strict.exit_code == 1
    (line,) = strict.output.strip().splitlines()
    assert line.startswith(f"olmcat: error: {bundle / 'metadata' / 'dependencies.yaml'}: ")
    assert not (tmp_path / "o1").exists()
    report = tmp_path / "r.json"
    permissive = CliRunner().invoke(
        cli,
        [
            "migrate",
            "pkgman",
            "--permissive",
            str(tmp_path / "t"),
            str(tmp_path / "o2"),
            "--report",
            str(report),
        ],
    )
    assert permissive.exit_code == 0, permissive.output
    assert (tmp_path / "o2" / "demo" / "catalog.json").is_file()
    codes = json.loads(report.read_text())["summary"]["by_code"]
    assert codes == {"bundle.metadata-unparsable": 1}


def test_first_invalid_package_stops_unless_permissive(tmp_path: Path) -> None:
    write_bundle(tmp_path, "aaa", "1.0.0", replaces="aaa.v0.1.0")
    write_bundle(tmp_path, "bbb", "1.0.0")
    bad = write_bundle(tmp_path, "ccc", "1.0.0")
    (bad / "metadata" / "annotations.yaml").write_text(
        yaml.safe_dump({"annotations": {ANNOTATION_CHANNELS: "x"}})
    )
    with pytest.raises(
        ValidationError, match=r"no operators\.operatorframework\.io\.bundle\.package"
    ):
        read(tmp_path, mode="replaces")
    log = NoticeLog()
    catalog = BundleDirCatalog(tmp_path, permissive=True, mode="replaces", notify=log)
    assert [p.name for p in catalog.packages()] == ["bbb"]
    assert catalog.skipped == [str(tmp_path / "ccc" / "1.0.0"), "aaa"]
    assert log.codes() == {"bundledir.directory-skipped": 1, "bundledir.package-skipped": 1}


# -- mixed trees and the CLI ----------------------------------------------------------------------


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


def test_a_package_manifest_inside_a_bundle_leaves_it_a_bundle(tmp_path: Path) -> None:
    # Issue 10: a *.package.yaml in a bundle's manifests/ made the directory a package-manifest
    # package (and the image template was ignored). opm reads the bundle's image, where that
    # file is no object.
    bundle = write_bundle(tmp_path, "demo", "1.0.0")
    (bundle / "manifests" / "demo.package.yaml").write_text(
        "packageName: demo\nchannels: [{name: stable, currentCSV: demo.v1.0.0}]\n"
    )
    log = NoticeLog()
    out = io.StringIO()
    migrate_pkgman(
        tmp_path, None, stdout=out, image_ref_template="reg/{package}:{version}", notify=log
    )
    (bundle_blob,) = [b for b in parse_stream(out.getvalue()) if b["schema"] == "olm.bundle"]
    assert bundle_blob["image"] == "reg/demo:1.0.0"
    warnings = [n for n in log if n.severity != "info"]
    assert [n.code for n in warnings] == ["bundledir.package-manifest-ignored"]


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


def test_cli_mode_option(tmp_path: Path) -> None:
    for version in ("1.0.0", "1.0.1"):
        write_bundle(tmp_path / "t", "demo", version)
    strict = CliRunner().invoke(
        cli, ["migrate", "pkgman", str(tmp_path / "t"), "--mode", "replaces"]
    )
    assert strict.exit_code == 1
    assert "add prunes bundle demo.v1.0.0" in strict.output
    chained = CliRunner().invoke(
        cli,
        ["migrate", "pkgman", str(tmp_path / "t"), "--mode", "replaces", "--mode", "demo=semver"],
    )
    assert chained.exit_code == 0, chained.output
    channel = next(b for b in parse_stream(chained.stdout) if b["schema"] == "olm.channel")
    assert channel["entries"][1] == {"name": "demo.v1.0.1", "replaces": "demo.v1.0.0"}
    usage = CliRunner().invoke(cli, ["migrate", "pkgman", str(tmp_path / "t"), "--mode", "fast"])
    assert usage.exit_code == 2 and "unknown update mode 'fast'" in usage.output


def test_cli_invalid_bundle_is_one_line_and_exit_1(tmp_path: Path) -> None:
    write_bundle(tmp_path, "demo", "1.0.0", channels="stable,")
    result = CliRunner().invoke(cli, ["migrate", "pkgman", str(tmp_path), str(tmp_path / "o")])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("olmcat: error: ") and "names an empty channel" in lines[0]
    assert not (tmp_path / "o").exists()


def test_cli_bad_template_exit_1_and_permissive_counts(tmp_path: Path) -> None:
    write_bundle(tmp_path / "t", "good", "1.0.0")
    write_bundle(tmp_path / "t", "bad", "1.0.0", channels="stable,")
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


def test_notices_are_picklable_through_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With several workers the packages are read in other processes; their notices come back.
    monkeypatch.setenv("OLMCAT_WORKERS", "2")
    for package in ("aaa", "bbb"):
        write_bundle(tmp_path, package, "1.0.0")
        (tmp_path / package / "1.0.0" / "manifests" / "Dockerfile").write_text("FROM x\n")
    log = NoticeLog()
    assert [p.name for p in read(tmp_path, notify=log)] == ["aaa", "bbb"]
    assert [n.code for n in log] == ["bundledir.object-without-kind"] * 2
    assert json.dumps([n.to_json() for n in log])


# -- operator directories as operator pipelines lay them out (issue 29) ------------------------


def _migrated(root: Path, out: Path, **kwargs: Any) -> tuple[dict[str, bytes], NoticeLog]:
    log = NoticeLog()
    migrate_pkgman(root, out, notify=log, **kwargs)
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.json"))}, log


@pytest.mark.parametrize("name", sorted(PIPELINE_FILES))
def test_a_file_outside_the_bundles_is_noted_never_refused(tmp_path: Path, name: str) -> None:
    chain(tmp_path / "tree", "demo", "1.0.0", "1.1.0")
    (path,) = write_pipeline_files(tmp_path / "tree" / "demo", "1.0.0", [name])
    strict, log = _migrated(tmp_path / "tree", tmp_path / "strict")
    permissive, plog = _migrated(tmp_path / "tree", tmp_path / "permissive", permissive=True)
    assert strict == permissive and list(strict) == ["demo/catalog.json"]
    for notices in (log, plog):
        noted = [n for n in notices if n.code == "pkgman.not-a-manifest"]
        assert [(n.file, n.severity) for n in noted] == [(str(path), "info")]
        assert "outside its bundles' manifests/ and metadata/" in noted[0].message
        assert not [n for n in notices if n.severity == "error"]


def test_every_pipeline_file_at_once_in_walk_order(tmp_path: Path) -> None:
    chain(tmp_path, "demo", "1.0.0", "1.1.0")
    write_pipeline_files(tmp_path / "demo", "1.0.0")
    (tmp_path / "demo" / "1.1.0" / "bundle.Dockerfile").write_text("FROM scratch\n")
    log = NoticeLog()
    migrate_pkgman(tmp_path, tmp_path / "out", notify=log)
    noted = [
        str(Path(n.file).relative_to(tmp_path / "demo"))
        for n in log
        if n.code == "pkgman.not-a-manifest"
    ]
    assert noted == [  # Go's walk order: byte-sorted names, files and directories interleaved
        "1.0.0/release-config.yaml",
        "1.0.0/tests/scorecard/config.yaml",
        "1.1.0/bundle.Dockerfile",
        "Makefile",
        "README.md",
        "catalog-templates/basic.yaml",
        "catalog-templates/semver.yaml",
        "ci.yaml",
    ]
    ci = next(n for n in log if n.file.endswith("ci.yaml"))
    assert "its updateGraph sets the mode unless --mode does" in ci.message


def test_files_outside_bundles_of_a_tree_without_package_manifests(tmp_path: Path) -> None:
    write_bundle(tmp_path / "operators", "demo", "1.0.0")
    (tmp_path / "config.yaml").write_text("organization: [unclosed\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ci.yaml").write_text("")
    log = NoticeLog()
    migrate_pkgman(tmp_path, tmp_path / "out", notify=log)
    noted = {Path(n.file).name: n.message for n in log if n.code == "pkgman.not-a-manifest"}
    assert sorted(noted) == ["ci.yaml", "config.yaml"]
    assert "of a tree without package manifests" in noted["config.yaml"]


def _package_manifest_tree(root: Path) -> None:
    from tests.support.pkgman_trees import chain as pkgman_chain
    from tests.support.pkgman_trees import write_package

    write_package(
        root, "legacy", [("stable", "legacy.v0.2.0")], pkgman_chain("legacy", "0.1.0", "0.2.0")
    )


def test_package_manifest_trees_keep_the_initializers_rule(tmp_path: Path) -> None:
    """Beside a package manifest every *.yaml must decode; the strict error says what stops
    the run (nothing "ignored"), the permissive notice what was ignored."""
    _package_manifest_tree(tmp_path)
    chain(tmp_path, "demo", "1.0.0")
    write_pipeline_files(tmp_path / "demo", "1.0.0", ["ci.yaml", "catalog-templates/basic.yaml"])
    # Beside a CSV (so read in both modes): a list where the loader wants an object.
    stray = tmp_path / "legacy" / "0.1.0" / "ci.yaml"
    stray.write_text('packageName: legacy\nchannels: ["stable"]\n')
    with pytest.raises(ValidationError) as refused:
        migrate_pkgman(tmp_path, tmp_path / "out")
    message = str(refused.value)
    assert message.startswith(f"{stray}: not a manifest the legacy loader can decode (")
    assert "ignored" not in message and "(and " not in message  # the bundle-format ones: noted
    assert message.endswith("--permissive loads what loads, as initializer --permissive does")
    log = NoticeLog()
    migrate_pkgman(tmp_path, tmp_path / "out", notify=log, permissive=True)
    (error,) = [n for n in log if n.severity == "error"]
    assert error.message.endswith("; ignored, as initializer --permissive ignores it")
    noted = sorted(Path(n.file).name for n in log if n.code == "pkgman.not-a-manifest")
    assert noted == ["basic.yaml", "ci.yaml"]


def test_a_stray_yaml_at_the_root_of_a_mixed_tree_is_the_loaders(tmp_path: Path) -> None:
    _package_manifest_tree(tmp_path / "legacy-ops")
    chain(tmp_path / "bundle-ops", "demo", "1.0.0")
    (tmp_path / "notes.yaml").write_text("a: [unclosed\n")
    with pytest.raises(ValidationError, match=r"notes\.yaml: not a manifest the legacy loader"):
        migrate_pkgman(tmp_path, tmp_path / "out")


def test_strict_loader_errors_do_not_say_left_out(tmp_path: Path) -> None:
    _package_manifest_tree(tmp_path)
    broken = csv_doc("legacy.v0.3.0", "0.3.0")
    broken["spec"]["install"] = "not an install strategy"
    (tmp_path / "legacy" / "0.3.0").mkdir()
    (tmp_path / "legacy" / "0.3.0" / "csv.yaml").write_text(yaml.safe_dump(broken))
    with pytest.raises(ValidationError) as refused:
        migrate_pkgman(tmp_path, tmp_path / "out")
    assert "the legacy loader refuses it" in str(refused.value)
    assert "left out" not in str(refused.value)
    log = NoticeLog()
    migrate_pkgman(tmp_path, tmp_path / "out", notify=log, permissive=True)
    assert any("left out, the legacy loader refuses it" in n.message for n in log)


def test_a_nested_bundle_is_left_out_with_a_warning(tmp_path: Path) -> None:
    chain(tmp_path, "demo", "1.0.0", "1.1.0")
    write_pipeline_files(tmp_path / "demo", "1.0.0", ["ci.yaml"])
    expected, _ = _migrated(tmp_path, tmp_path / "expected")
    nested = nest_bundle(tmp_path, "demo", "2.0.0", replaces="demo.v1.1.0")
    for permissive in (False, True):
        out = tmp_path / f"out-{permissive}"
        got, log = _migrated(tmp_path, out, permissive=permissive)
        assert got == expected
        (warning,) = [n for n in log if n.code == "bundledir.nested-bundle"]
        assert (warning.severity, warning.file) == ("warning", str(nested))
        assert "inside version directory '2.0.0' of operator directory" in warning.message
        assert "left out" in warning.message
        # Its files are the nested bundle's: not noted one by one.
        assert not [n for n in log if n.code == "pkgman.not-a-manifest" and "2.0.0" in n.file]


def test_a_bundle_inside_a_bundle_directory_is_left_out_with_a_warning(tmp_path: Path) -> None:
    # <operator>/<version>/ is a bundle and also holds bundle/{manifests,metadata} (a copy made
    # by operator-sdk's layout): pipelines build the version's image of its own manifests/ and
    # metadata/; the inner directory is no bundle of the index, and is named.
    chain(tmp_path, "demo", "1.0.0", "1.1.0")
    write_pipeline_files(tmp_path / "demo", "1.0.0", ["ci.yaml"])
    expected, _ = _migrated(tmp_path, tmp_path / "expected")
    inner = nest_bundle(tmp_path, "demo", "1.1.0", replaces="demo.v1.0.0", name="demo.v9.0.0")
    for permissive in (False, True):
        got, log = _migrated(tmp_path, tmp_path / f"out-{permissive}", permissive=permissive)
        assert got == expected
        (warning,) = [n for n in log if n.code == "bundledir.nested-bundle"]
        assert (warning.severity, warning.file) == ("warning", str(inner))
        assert f"inside bundle directory {tmp_path / 'demo' / '1.1.0'}; left out" in warning.message


@pytest.mark.parametrize(
    "shape",
    [
        "sibling versions",  # demo/1.0.0 is a bundle: demo is an operator directory
        "only nested versions with a ci.yaml",  # ci.yaml makes demo an operator directory
        "two levels down",
        "inside a bundle directory",  # demo/1.0.0 is a bundle and holds another in bundle/
        "inside a bundle directory, deeper",
    ],
)
def test_nested_bundle_shapes(tmp_path: Path, shape: str) -> None:
    if shape == "inside a bundle directory":
        write_bundle(tmp_path, "demo", "1.0.0")
        nest_bundle(tmp_path, "demo", "1.0.0")
    elif shape == "inside a bundle directory, deeper":
        write_bundle(tmp_path, "demo", "1.0.0")
        nest_bundle(tmp_path / "demo" / "1.0.0", "x", "y", inner="bundle", name="demo.v1.0.0")
    elif shape == "sibling versions":
        write_bundle(tmp_path, "demo", "1.0.0")
        nest_bundle(tmp_path, "demo", "2.0.0")
    elif shape == "only nested versions with a ci.yaml":
        nest_bundle(tmp_path, "demo", "1.0.0")
        nest_bundle(tmp_path, "demo", "2.0.0")
        (tmp_path / "demo" / "ci.yaml").write_text("updateGraph: semver-mode\n")
    else:
        write_bundle(tmp_path, "demo", "1.0.0")
        nest_bundle(tmp_path / "demo" / "2.0.0", "x", "bundle", inner="", name="demo.v2.0.0")
    log = NoticeLog()
    catalog = BundleDirCatalog(tmp_path, notify=log)
    nested = sorted(Path(n.file).relative_to(tmp_path).as_posix() for n in log)
    expected = {
        "sibling versions": ["demo/2.0.0/bundle"],
        "only nested versions with a ci.yaml": ["demo/1.0.0/bundle", "demo/2.0.0/bundle"],
        "two levels down": ["demo/2.0.0/x/bundle"],
        "inside a bundle directory": ["demo/1.0.0/bundle"],
        "inside a bundle directory, deeper": ["demo/1.0.0/x/y/bundle"],
    }[shape]
    assert nested == expected
    assert sorted(p.relative_to(tmp_path).as_posix() for p in catalog.nested) == expected
    assert {n.code for n in log} == {"bundledir.nested-bundle"}


@pytest.mark.parametrize("root", ["repository", "operator directory", "version directory"])
def test_bundles_where_pipelines_look_are_not_nested(tmp_path: Path, root: str) -> None:
    repo = tmp_path / "repo"
    write_bundle(repo / "operators", "demo", "1.0.0")
    nest_bundle(repo / "operators", "demo", "2.0.0")
    (repo / "operators" / "demo" / "ci.yaml").write_text("updateGraph: replaces-mode\n")
    start = {
        "repository": repo,
        "operator directory": repo / "operators" / "demo",
        "version directory": repo / "operators" / "demo" / "2.0.0",  # one bundle, asked for
    }[root]
    log = NoticeLog()
    catalog = BundleDirCatalog(start, notify=log)
    nested = [n for n in log if n.code == "bundledir.nested-bundle"]
    if root == "version directory":
        assert not nested and catalog.bundle_dirs("demo") == [start / "bundle"]
    else:
        assert [Path(n.file) for n in nested] == [repo / "operators" / "demo" / "2.0.0" / "bundle"]
        assert catalog.bundle_dirs("demo") == [repo / "operators" / "demo" / "1.0.0"]


# ci.yaml against operator-pipelines' schema (operatorcert/schemas/ci-schema.json): the text,
# the notices it gives (code, the key named), the edges of the two-bundle replaces chain.
_VALID_CI = """\
updateGraph: semver-mode
reviewers: [alice, bob]
addReviewers: true
merge: false
cert_project_id: "5f0c"
channels: ["stable"]
fbc:
  enabled: false
  catalog_mapping:
    - template_name: basic.yaml
      type: olm.template.basic
      catalog_names: ["v4.14", "v4.15"]
"""
SEMVER = [("demo.v1.0.0", "", ()), ("demo.v1.0.1", "demo.v1.0.0", ())]
CI_CASES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "valid, every key": (_VALID_CI, []),
    "empty file": ("", []),
    "updateGraph null": ("updateGraph:\n", []),
    "updateGraph a list": (
        "updateGraph: [semver-mode]\n",
        [("bundledir.ci-yaml-ignored", "updateGraph")],
    ),
    "updateGraph unknown": (
        "updateGraph: skip-mode\n",
        [("bundledir.ci-yaml-ignored", "updateGraph")],
    ),
    "not a mapping": ("- updateGraph: semver-mode\n", [("bundledir.ci-yaml-ignored", "")]),
    "does not parse": ("updateGraph: [\n", [("bundledir.ci-yaml-ignored", "")]),
    "reviewers a string": ("reviewers: alice\n", [("bundledir.ci-yaml-invalid", "reviewers")]),
    "reviewers empty": ("reviewers: []\n", [("bundledir.ci-yaml-invalid", "reviewers")]),
    "reviewers a number": (
        "reviewers: [alice, 7]\n",
        [("bundledir.ci-yaml-invalid", "reviewers[1]")],
    ),
    "merge a string": ("merge: 'yes'\n", [("bundledir.ci-yaml-invalid", "merge")]),
    "addReviewers a string": (
        "addReviewers: sure\n",
        [("bundledir.ci-yaml-invalid", "addReviewers")],
    ),
    "cert_project_id a number": (
        "cert_project_id: 12\n",
        [("bundledir.ci-yaml-invalid", "cert_project_id")],
    ),
    "fbc a list": ("fbc: [enabled]\n", [("bundledir.ci-yaml-invalid", "fbc")]),
    "fbc unknown key": (
        "fbc: {enabled: false, catalogs: []}\n",
        [("bundledir.ci-yaml-invalid", "fbc.catalogs")],
    ),
    "fbc.version_promotion_strategy review-needed": (
        "fbc: {enabled: false, version_promotion_strategy: review-needed}\n",
        [],
    ),
    "fbc.version_promotion_strategy always": (
        "fbc: {version_promotion_strategy: always, enabled: false}\n",
        [],
    ),
    "fbc.version_promotion_strategy unknown": (
        "fbc: {enabled: false, version_promotion_strategy: sometimes}\n",
        [("bundledir.ci-yaml-invalid", "fbc.version_promotion_strategy")],
    ),
    "fbc.enabled a string": (
        "fbc: {enabled: 'true'}\n",
        [("bundledir.ci-yaml-invalid", "fbc.enabled")],
    ),
    "fbc enabled": ("fbc: {enabled: true}\n", [("bundledir.ci-yaml-fbc", "fbc.enabled")]),
    "catalog_mapping a mapping": (
        "fbc: {catalog_mapping: {a: b}}\n",
        [("bundledir.ci-yaml-invalid", "fbc.catalog_mapping")],
    ),
    "catalog_mapping entry without type": (
        "fbc:\n  catalog_mapping:\n  - {template_name: t.yaml, catalog_names: [v4.15]}\n",
        [("bundledir.ci-yaml-invalid", "fbc.catalog_mapping[0].type")],
    ),
    "catalog_mapping unknown type": (
        "fbc:\n  catalog_mapping:\n  - {template_name: t, type: olm.fbc, catalog_names: [v4.15]}\n",
        [("bundledir.ci-yaml-invalid", "fbc.catalog_mapping[0].type")],
    ),
    "catalog_names twice the same": (
        "fbc:\n  catalog_mapping:\n  - {template_name: t, type: olm.semver, catalog_names: [a, a]}"
        "\n",
        [("bundledir.ci-yaml-invalid", "fbc.catalog_mapping[0].catalog_names")],
    ),
    "a bad key beside a good updateGraph": (
        "updateGraph: semver-mode\nreviewers: 3\n",
        [("bundledir.ci-yaml-invalid", "reviewers")],
    ),
}


@pytest.mark.parametrize("case", sorted(CI_CASES))
def test_ci_yaml_is_read_as_operator_pipelines_read_it(tmp_path: Path, case: str) -> None:
    text, expected = CI_CASES[case]
    for version in ("1.0.0", "1.0.1"):
        write_bundle(tmp_path, "demo", version)  # no replaces: replaces mode refuses two heads
    (tmp_path / "demo" / "ci.yaml").write_text(text)
    log = NoticeLog()
    pkg = only(tmp_path, notify=log)
    ci_path = str(tmp_path / "demo" / "ci.yaml")
    got = []
    for notice in log:
        if notice.code.startswith("bundledir.ci-yaml"):
            assert notice.file == ci_path
            key = notice.message.removeprefix(f"{ci_path}: ").split(":")[0]
            got.append((notice.code, key if key in {k for _, k in expected} else ""))
    assert got == expected
    # The mode: semver-mode where updateGraph says so, else the default (replaces, refused for
    # two unrelated bundles, then semver: the same edges, with a fallback notice).
    assert edges(pkg, "stable") == SEMVER
    semver_asked = "updateGraph: semver-mode" in text and case != "not a mapping"
    assert log.codes()["bundledir.mode-fallback"] == (not semver_asked)
    warned = [n for n in log if n.code == "bundledir.ci-yaml-invalid"]
    assert all("olmcat does not use it" in n.message for n in warned)


def test_cli_strict_run_of_a_pipeline_tree_counts_and_reports_what_it_skipped(
    tmp_path: Path,
) -> None:
    tree = tmp_path / "tree"
    chain(tree, "demo", "1.0.0", "1.1.0")
    skipped = write_pipeline_files(tree / "demo", "1.0.0")
    nested = nest_bundle(tree, "demo", "2.0.0", replaces="demo.v1.1.0")
    outputs = {}
    for flags in ([], ["--permissive"]):
        out, report = tmp_path / f"out{len(flags)}", tmp_path / f"report{len(flags)}.json"
        result = CliRunner().invoke(
            cli, ["migrate", "pkgman", str(tree), str(out), "--report", str(report), *flags]
        )
        assert result.exit_code == 0, result.output
        lines = result.stderr.splitlines()
        assert lines[0] == f"olmcat: warning: {nested}: " + (
            f"bundle directory inside version directory '2.0.0' of operator directory "
            f"{tree / 'demo'}; left out: operator pipelines build bundles only from "
            "<operator>/<version>/{manifests,metadata} (read, it would be one more bundle of "
            "the channel, its image tagged 'bundle')"
        )
        assert (
            f"(1 warnings, {len(skipped)} files outside bundles not read as manifests, named "
            "in --report" in lines[-1]
        )
        assert len(lines) == 2  # the notes go to --report only
        notices = json.loads(report.read_text())["notices"]
        assert sorted(n["file"] for n in notices if n["code"] == "pkgman.not-a-manifest") == (
            sorted(map(str, skipped))
        )
        assert [n["file"] for n in notices if n["code"] == "bundledir.nested-bundle"] == [
            str(nested)
        ]
        outputs[len(flags)] = (out / "demo" / "catalog.json").read_bytes()
    assert outputs[0] == outputs[1]
    blobs = parse_stream(outputs[0].decode())
    assert [b["name"] for b in blobs if b["schema"] == "olm.bundle"] == [
        "demo.v1.0.0",
        "demo.v1.1.0",
    ]
