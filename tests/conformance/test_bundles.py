"""Conformance of the bundle-directory reader and ``convert pkgman-to-bundles`` on the corpus.

* ``expected/bundle-renders/<pkg>-<dir>.json`` is ``opm render`` of the image
  ``127.0.0.1:5000/<pkg>-bundle:<dir>`` built from ``bundles/upstream/<pkg>/<dir>``: every bundle
  directory must render to it byte for byte. Known differences: none.
* ``expected/index-upstream.json`` is ``opm migrate`` of the index those images were added to
  with ``opm registry add``, package by package in the mode its ``ci.yaml`` names (replaces-mode
  and no ci.yaml: replaces, falling back to semver; ``bundles/index-build-modes.tsv`` records the
  mode each package ended up in). Its olm.bundle blobs differ by design (the image-built DB
  cleared non-head bundles), so the package and channel blobs are compared, and each bundle blob
  against its render.
* ``convert pkgman-to-bundles`` followed by ``migrate pkgman`` must give what migrating the
  package manifests gives, except the bundles' ``image`` (the converted tree has no image
  reference; the package manifests' migration has none either, but the template adds one).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from olmcat.migrate import migrate_pkgman
from olmcat.notices import NoticeLog
from olmcat.readers.bundledir import BundleDirCatalog, is_bundle_dir
from olmcat.readers.bundlerender import render_bundle_dir
from olmcat.writers.bundles import pkgman_to_bundles
from olmcat.writers.fbc import blobs, bundle_json, render_json
from tests.support.paths import FIXTURES, corpus_path, parse_stream

TEMPLATE = "127.0.0.1:5000/{package}-bundle:{dir}"
# Bundle dirs whose render differs from opm's, with the reason. Empty: all match.
KNOWN_RENDER_DIFFERENCES: dict[str, str] = {}


def build_modes() -> dict[str, str]:
    tsv = corpus_path("bundles/index-build-modes.tsv").read_text().splitlines()
    return {line.split("\t")[0]: line.split("\t")[1] for line in tsv[1:] if line.strip()}


def bundle_dirs(root: Path) -> list[Path]:
    return sorted(
        d for pkg in root.iterdir() if pkg.is_dir() for d in pkg.iterdir() if is_bundle_dir(d)
    )


def blob_texts(text: str) -> list[tuple[dict[str, Any], str]]:
    """Each blob of an opm JSON stream with its exact text (newline included)."""
    decoder, out, index = json.JSONDecoder(), [], 0
    while True:
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            return out
        blob, end = decoder.raw_decode(text, index)
        out.append((blob, text[index : end + 1]))
        index = end + 1


def test_every_bundle_dir_renders_byte_identical_to_opm() -> None:
    root = corpus_path("bundles/upstream")
    goldens = corpus_path("expected/bundle-renders")
    dirs = bundle_dirs(root)
    assert len(dirs) == 221
    differing = []
    for directory in dirs:
        key = f"{directory.parent.name}-{directory.name}"
        bundle = render_bundle_dir(directory, image_ref_template=TEMPLATE)
        text = "".join(render_json([bundle_json(bundle)]))
        if text != (goldens / f"{key}.json").read_text():
            differing.append(key)
    assert sorted(differing) == sorted(KNOWN_RENDER_DIFFERENCES)


def test_related_images_with_equal_images_follow_gos_unstable_sort() -> None:
    # syndesis 1.11.0 lists centos/postgresql-10-centos7 under two names among 15 related
    # images; past 12 elements Go's pdqsort does not keep them in input order.
    directory = corpus_path("bundles/upstream/syndesis/1.11.0")
    bundle = render_bundle_dir(directory, image_ref_template=TEMPLATE)
    names = [r.name for r in bundle.related_images if r.image == "centos/postgresql-10-centos7"]
    assert names == ["database", "postgres-version"]  # the CSV lists postgres-version first


def _render_goldens() -> dict[tuple[str, str], str]:
    """(package, bundle name) -> the render golden's text."""
    out = {}
    for path in corpus_path("expected/bundle-renders").glob("*.json"):
        text = path.read_text()
        blob = json.loads(text)
        out[(blob["package"], blob["name"])] = text
    return out


def _expected_catalog(package: str, renders: dict[tuple[str, str], str]) -> str:
    """The golden package and channel blobs, then the render golden of each bundle listed."""
    golden = corpus_path(f"expected/index-upstream.json/{package}/catalog.json").read_text()
    parts = [text for blob, text in blob_texts(golden) if blob["schema"] != "olm.bundle"]
    names = sorted(blob["name"] for blob, _ in blob_texts(golden) if blob["schema"] == "olm.bundle")
    return "".join(parts) + "".join(renders[(package, name)] for name in names)


def _check_against_index(catalog: BundleDirCatalog) -> list[str]:
    """Every catalog.json equals the index's package and channel blobs followed by the bundles'
    renders, byte for byte; returns the packages read."""
    renders = _render_goldens()
    seen = []
    for pkg in catalog.packages():
        text = "".join(render_json(blobs(pkg)))
        assert text == _expected_catalog(pkg.name, renders), pkg.name
        seen.append(pkg.name)
    return seen


def test_bundle_tree_migrates_to_the_index_build_by_its_ci_yaml() -> None:
    """No option: each package in the mode its ci.yaml names (the 29 + 10 of the TSV)."""
    modes = build_modes()
    log = NoticeLog()
    catalog = BundleDirCatalog(
        corpus_path("bundles/upstream"), image_ref_template=TEMPLATE, notify=log
    )
    assert _check_against_index(catalog) == sorted(modes)
    assert (len([m for m in modes.values() if m == "replaces"]), len(modes)) == (29, 39)
    # Three replaces-mode packages (one without ci.yaml) fall back to semver, as the index did.
    fell_back = sorted(n.package for n in log if n.code == "bundledir.mode-fallback")
    assert fell_back == ["couchbase-enterprise", "couchdb-operator", "istio-workspace-operator"]
    assert all(modes[name] == "semver" for name in fell_back)


def test_bundle_tree_migrates_to_the_index_build_in_the_recorded_modes() -> None:
    """--mode PKG=MODE with the modes the TSV records gives the same index."""
    modes = build_modes()
    package_modes = {name: mode for name, mode in modes.items() if mode in ("replaces", "semver")}
    catalog = BundleDirCatalog(
        corpus_path("bundles/upstream"),
        image_ref_template=TEMPLATE,
        package_modes=package_modes,  # type: ignore[arg-type]
    )
    assert _check_against_index(catalog) == sorted(modes)


def test_replaces_mode_matches_the_replaces_packages_only(tmp_path: Path) -> None:
    """--mode replaces: the 29 packages loaded in replaces mode equal the index. The 10 loaded in
    semver mode cannot: semver mode ignores the CSVs' replaces and chains each channel by
    version; in replaces mode they are refused or their graphs differ."""
    modes = build_modes()
    out = tmp_path / "out"
    result = migrate_pkgman(
        corpus_path("bundles/upstream"),
        out,
        image_ref_template=TEMPLATE,
        permissive=True,
        mode="replaces",
    )
    assert result.stats.packages + len(result.stats.skipped) == 39
    differing = set(result.stats.skipped)
    for name in modes:
        if name in differing:
            continue
        ours = [b for b in parse_stream((out / name / "catalog.json").read_text())]
        golden_path = corpus_path(f"expected/index-upstream.json/{name}/catalog.json")
        theirs = parse_stream(golden_path.read_text())
        if [b for b in ours if b["schema"] != "olm.bundle"] != [
            b for b in theirs if b["schema"] != "olm.bundle"
        ]:
            differing.add(name)
    assert differing == {name for name, mode in modes.items() if mode == "semver"}


def _without_image(text: str) -> list[dict[str, Any]]:
    out = parse_stream(text)
    for blob in out:
        blob.pop("image", None)
    return out


@pytest.mark.parametrize(
    "source",
    ["corpus:pkgman/upstream-subset", "fixtures:example/manifests"],
)
def test_convert_then_migrate_equals_migrating_the_package_manifests(
    tmp_path: Path, source: str
) -> None:
    where, _, relative = source.partition(":")
    src = corpus_path(relative) if where == "corpus" else FIXTURES / relative
    converted = tmp_path / "bundles"
    result = pkgman_to_bundles(src, converted)
    assert result.left_out == []
    direct, via_bundles = io.StringIO(), io.StringIO()
    if where == "corpus":
        golden = corpus_path("expected/upstream-subset.json")
        direct.write("".join(p.read_text() for p in sorted(golden.glob("*/catalog.json"))))
    else:
        migrate_pkgman(src, None, stdout=direct)
    migrate_pkgman(converted, None, stdout=via_bundles)
    expected = _without_image(direct.getvalue())
    assert _without_image(via_bundles.getvalue()) == expected
    assert len([b for b in expected if b["schema"] == "olm.package"]) == result.packages
    # Each bundle names exactly the channels that list it (operator-sdk #5170 gives a bundle
    # that heads no channel only the default channel).
    channels_of: dict[str, set[str]] = {}
    for blob in expected:
        if blob["schema"] == "olm.channel":
            for entry in blob["entries"]:
                channels_of.setdefault(entry["name"], set()).add(blob["name"])
    assert {b.name: set(b.channels) for b in result.bundles} == channels_of
    assert any(len(channels) > 1 for channels in channels_of.values())
