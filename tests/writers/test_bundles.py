"""``convert pkgman-to-bundles`` on trees built in code: channel membership, the files written,
the round trip through ``migrate pkgman`` and the CLI."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import OutputError, ValidationError
from olmcat.migrate import migrate_pkgman
from olmcat.notices import NoticeLog
from olmcat.writers.bundles import annotations_yaml, pkgman_to_bundles
from tests.support import pkgman_trees as trees
from tests.support.builders import csv as csv_doc
from tests.support.paths import parse_stream
from tests.support.pkgman_trees import several_csvs_in_one_directory


def write_package(
    root: Path,
    name: str,
    channels: list[tuple[str, str]],
    versions: dict[str, dict[str, Any]],
    default: str | None = None,
) -> Path:
    """<root>/<name>/<name>.package.yaml plus <version>/<csv file> per version (spec extras)."""
    return trees.write_package(
        root,
        name,
        channels,
        {v: [csv_doc(f"{name}.v{v}", v, **spec)] for v, spec in versions.items()},
        default,
        file_name=lambda _, doc: f"{doc['metadata']['name']}.clusterserviceversion.yaml",
    )


def annotations(out: Path, package: str, version: str) -> dict[str, str]:
    text = (out / package / version / "metadata" / "annotations.yaml").read_text()
    parsed: dict[str, str] = yaml.safe_load(text)["annotations"]
    return parsed


CHANNELS = "operators.operatorframework.io.bundle.channels.v1"
DEFAULT = "operators.operatorframework.io.bundle.channel.default.v1"


def two_channel_package(root: Path) -> Path:
    # stable: 1.0.0 <- 1.1.0 <- 1.2.0 (head); fast: 1.0.0 <- 1.1.0 <- 2.0.0 (head)
    return write_package(
        root,
        "demo",
        [("stable", "demo.v1.2.0"), ("fast", "demo.v2.0.0")],
        {
            "1.0.0": {},
            "1.1.0": {"replaces": "demo.v1.0.0"},
            "1.2.0": {"replaces": "demo.v1.1.0"},
            "2.0.0": {"replaces": "demo.v1.1.0"},
        },
        default="stable",
    )


def test_non_head_bundle_is_in_every_channel_whose_chain_reaches_it(tmp_path: Path) -> None:
    # operator-sdk issue #5170: pkgman-to-bundle puts a bundle that heads no channel in the
    # default channel only, so an index built from its bundles loses 1.0.0 and 1.1.0 from fast.
    two_channel_package(tmp_path / "src")
    result = pkgman_to_bundles(tmp_path / "src", tmp_path / "out")
    out = tmp_path / "out"
    assert annotations(out, "demo", "1.1.0")[CHANNELS] == "stable,fast"
    assert annotations(out, "demo", "1.0.0")[CHANNELS] == "stable,fast"
    assert annotations(out, "demo", "1.2.0")[CHANNELS] == "stable"
    assert annotations(out, "demo", "2.0.0")[CHANNELS] == "fast"
    assert {annotations(out, "demo", v)[DEFAULT] for v in ("1.0.0", "2.0.0")} == {"stable"}
    assert (result.packages, len(result.bundles), result.left_out) == (1, 4, [])


def test_annotations_file_content(tmp_path: Path) -> None:
    assert annotations_yaml("demo", ["stable", "fast"], "stable") == (
        "annotations:\n"
        "  operators.operatorframework.io.bundle.channel.default.v1: stable\n"
        "  operators.operatorframework.io.bundle.channels.v1: stable,fast\n"
        "  operators.operatorframework.io.bundle.manifests.v1: manifests/\n"
        "  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n"
        "  operators.operatorframework.io.bundle.metadata.v1: metadata/\n"
        "  operators.operatorframework.io.bundle.package.v1: demo\n"
    )


def test_skipped_bundle_belongs_to_the_channel_that_skips_it(tmp_path: Path) -> None:
    write_package(
        tmp_path / "src",
        "demo",
        [("stable", "demo.v2.0.0")],
        {"1.0.0": {}, "1.5.0": {}, "2.0.0": {"replaces": "demo.v1.0.0", "skips": ["demo.v1.5.0"]}},
    )
    pkgman_to_bundles(tmp_path / "src", tmp_path / "out")
    assert annotations(tmp_path / "out", "demo", "1.5.0")[CHANNELS] == "stable"
    assert annotations(tmp_path / "out", "demo", "1.5.0")[DEFAULT] == "stable"


def test_manifests_are_copied_byte_for_byte_and_strays_stay_behind(tmp_path: Path) -> None:
    pkg_dir = write_package(tmp_path / "src", "demo", [("stable", "demo.v1.0.0")], {"1.0.0": {}})
    crd_text = (
        "# a comment opm never sees\nkind: CustomResourceDefinition\n"
        "apiVersion: apiextensions.k8s.io/v1\n"
    )
    (pkg_dir / "1.0.0" / "crd.yml").write_text(crd_text)
    (pkg_dir / "1.0.0" / "Dockerfile").write_text("FROM scratch\n")
    (pkg_dir / "ci.yaml").write_text("reviewers: []\n")
    pkgman_to_bundles(tmp_path / "src", tmp_path / "out")
    manifests_dir = tmp_path / "out" / "demo" / "1.0.0" / "manifests"
    assert sorted(p.name for p in manifests_dir.iterdir()) == [
        "crd.yml",
        "demo.v1.0.0.clusterserviceversion.yaml",
    ]
    assert (manifests_dir / "crd.yml").read_bytes() == crd_text.encode()
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["demo"]


def test_version_in_no_channel_is_left_out_with_a_warning(tmp_path: Path) -> None:
    write_package(tmp_path / "src", "demo", [("stable", "demo.v1.0.0")], {"1.0.0": {}, "9.0.0": {}})
    notices = NoticeLog()
    result = pkgman_to_bundles(tmp_path / "src", tmp_path / "out", notify=notices)
    csv_file = tmp_path / "src" / "demo" / "9.0.0" / "demo.v9.0.0.clusterserviceversion.yaml"
    assert result.left_out == [csv_file]
    assert not (tmp_path / "out" / "demo" / "9.0.0").exists()
    (notice,) = [n for n in notices if n.code == "convert.bundle-not-in-channel"]
    assert notice.bundle == "demo.v9.0.0" and "is in no channel; not converted" in notice.message


@pytest.mark.parametrize(
    ("channels", "versions", "default", "message"),
    [
        (
            [("stable", "demo.v2.0.0")],
            {"1.0.0": {}},
            None,
            "channel 'stable': currentCSV 'demo.v2.0.0' is not a loaded bundle",
        ),
        (
            [("stable", "demo.v1.0.0")],
            {"1.0.0": {"replaces": "demo.v0.9.0"}},
            None,
            "demo.v1.0.0 replaces 'demo.v0.9.0', which does not exist",
        ),
        (
            [("a", "demo.v1.0.0"), ("b", "demo.v1.0.0")],
            {"1.0.0": {}},
            None,
            "no default channel",
        ),
        ([], {"1.0.0": {}}, None, "package 'demo' not loaded: no default channel"),
    ],
)
def test_invalid_package_stops_and_writes_nothing(
    tmp_path: Path,
    channels: list[tuple[str, str]],
    versions: dict[str, dict[str, Any]],
    default: str | None,
    message: str,
) -> None:
    write_package(tmp_path / "src", "demo", channels, versions, default)
    with pytest.raises(ValidationError) as caught:
        pkgman_to_bundles(tmp_path / "src", tmp_path / "out")
    assert message in str(caught.value)
    assert "demo.package.yaml" in str(caught.value)
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["src"]  # no partial output left behind


def test_output_must_be_empty(tmp_path: Path) -> None:
    write_package(tmp_path / "src", "demo", [("stable", "demo.v1.0.0")], {"1.0.0": {}})
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep").write_text("")
    with pytest.raises(OutputError, match="is not empty"):
        pkgman_to_bundles(tmp_path / "src", tmp_path / "out")


def _blobs_without_image(source: Path) -> list[dict[str, Any]]:
    buffer = io.StringIO()
    migrate_pkgman(source, None, stdout=buffer)
    blobs = parse_stream(buffer.getvalue())
    for blob in blobs:
        blob.pop("image", None)
    return blobs


def test_round_trip_gives_the_same_catalog(tmp_path: Path) -> None:
    two_channel_package(tmp_path / "src")
    write_package(
        tmp_path / "src",
        "other",
        [("stable", "other.v2.0.0")],
        {
            "1.0.0": {},
            "1.5.0": {},
            "2.0.0": {"replaces": "other.v1.0.0", "skips": ["other.v1.5.0"]},
        },
    )
    pkgman_to_bundles(tmp_path / "src", tmp_path / "out")
    original = _blobs_without_image(tmp_path / "src")
    assert _blobs_without_image(tmp_path / "out") == original
    assert [b["name"] for b in original if b["schema"] == "olm.package"] == ["demo", "other"]


def test_cli_convert_exit_codes(tmp_path: Path) -> None:
    two_channel_package(tmp_path / "src")
    runner = CliRunner()
    ok = runner.invoke(
        cli, ["convert", "pkgman-to-bundles", str(tmp_path / "src"), str(tmp_path / "o")]
    )
    assert ok.exit_code == 0, ok.output
    assert "wrote 4 bundles of 1 packages" in ok.output
    again = runner.invoke(
        cli, ["convert", "pkgman-to-bundles", str(tmp_path / "src"), str(tmp_path / "o")]
    )
    assert again.exit_code == 1
    assert again.output.strip().count("\n") == 0
    assert again.output.startswith("olmcat: error: output directory")
    missing = runner.invoke(
        cli, ["convert", "pkgman-to-bundles", str(tmp_path / "nope"), str(tmp_path / "o2")]
    )
    assert missing.exit_code == 1
    assert "no such directory" in missing.output
    usage = runner.invoke(cli, ["convert", "pkgman-to-bundles", str(tmp_path / "src")])
    assert usage.exit_code == 2
    helped = runner.invoke(cli, ["convert", "pkgman-to-bundles", "--help"])
    assert helped.exit_code == 0 and "operator-sdk" in helped.output


def test_several_csvs_in_one_directory_become_one_bundle_directory_each(tmp_path: Path) -> None:
    several_csvs_in_one_directory(tmp_path / "src")
    result = pkgman_to_bundles(tmp_path / "src", tmp_path / "out")
    assert sorted(b.target.name for b in result.bundles) == ["demo.v1.0.0", "demo.v1.1.0"]
    for bundle in result.bundles:
        files = sorted(p.name for p in (bundle.target / "manifests").iterdir())
        assert len(files) == 2 and any(f.startswith("02-widgets") for f in files), files
    assert _blobs_without_image(tmp_path / "out") == _blobs_without_image(tmp_path / "src")
