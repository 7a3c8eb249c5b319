"""What an index built by opm in semver mode loses, against ``olmcat migrate pkgman`` of the same
bundle tree (a named deviation: docs/deviations.md).

Every semver-mode ``opm registry add`` ends with ``ClearNonHeadBundles``: the csv and bundle
columns of every image-built bundle that heads no channel are set to NULL, in the whole
database, other packages included. ``opm migrate`` of that database then writes those bundles
(1) without their olm.bundle.object properties, and takes their related images from the
related_image table, so (2) the related images lose their names and (3) an image the CSV lists
under two names is written once. Packages added before the last semver-mode add lose the same;
packages added after it keep everything.

olmcat keeps every bundle as ``opm render`` renders it. This test pins the deviation exactly: on
a tree of three packages (replaces, semver, replaces, added in name order as bundle-index adds
them), opm's output equals olmcat's once the bundles the rule names are cleared that way, and
nothing else differs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from olmcat.readers.bundledir import BundleDirCatalog
from olmcat.writers.fbc import blobs, render_json
from tests.support import oracle
from tests.support.builders import csv as csv_doc
from tests.support.bundletrees import blob_texts, deployment, write_bundle
from tests.support.oracle import require_bundle_index

pytestmark = pytest.mark.differential

TEMPLATE = "127.0.0.1:5000/{package}-bundle:{dir}"
MODES = {"alpha": "replaces", "beta": "semver", "gamma": "replaces"}


def related(version: str) -> list[dict[str, str]]:
    return [
        {"name": "db", "image": f"quay.io/x/db:{version}"},
        {"name": "database", "image": f"quay.io/x/db:{version}"},  # one image, two names
        {"name": "proxy", "image": "quay.io/x/proxy:1"},
    ]


def tree(root: Path) -> Path:
    for package, versions in (
        ("alpha", ["1.0.0", "1.1.0"]),
        ("beta", ["0.1.0", "0.2.0", "0.3.0"]),
        ("gamma", ["2.0.0", "2.1.0"]),
    ):
        previous = ""
        for version in versions:
            spec: dict[str, Any] = {
                "relatedImages": related(version),
                "install": deployment(f"quay.io/x/{package}-operator:{version}"),
            }
            if previous and MODES[package] == "replaces":
                spec["replaces"] = previous
            csv = csv_doc(f"{package}.v{version}", version, **spec)
            write_bundle(root, package, version, csv=csv)
            previous = f"{package}.v{version}"
    return root


def opm_bundles(source: Path, work: Path) -> dict[str, dict[str, Any]]:
    work.mkdir(parents=True)
    db = work / "index.db"
    args: list[str | Path] = ["index", source, db]
    for package, mode in sorted(MODES.items()):
        args += ["--mode", f"{package}={mode}"]
    run = oracle.bundle_index(*args, cwd=work, timeout=900)
    assert run.ok, run.stderr[-2000:]
    migrated = oracle.migrate(db, work / "out", cwd=work)
    assert migrated.ok, migrated.stderr[-2000:]
    out = {}
    for catalog in sorted((work / "out").glob("*/catalog.json")):
        for blob, text in blob_texts(catalog.read_text()):
            if blob["schema"] == "olm.bundle":
                out[blob["name"]] = {"blob": blob, "text": text}
    return out


def olmcat_bundles(source: Path) -> dict[str, dict[str, Any]]:
    catalog = BundleDirCatalog(source, image_ref_template=TEMPLATE, package_modes=MODES)  # type: ignore[arg-type]
    out = {}
    for pkg in catalog.packages():
        for blob, text in blob_texts("".join(render_json(blobs(pkg)))):
            if blob["schema"] == "olm.bundle":
                out[blob["name"]] = {"blob": blob, "text": text}
    return out


def cleared_like_an_index(blob: dict[str, Any]) -> dict[str, Any]:
    """What opm migrate writes for a bundle whose csv and bundle columns were cleared."""
    out = dict(blob)
    out["properties"] = [p for p in blob["properties"] if p["type"] != "olm.bundle.object"]
    images = sorted({r["image"] for r in blob.get("relatedImages", [])})
    out["relatedImages"] = [{"name": "", "image": image} for image in images]
    return out


def test_semver_adds_clear_non_head_bundles_of_every_package_added_so_far(tmp_path: Path) -> None:
    require_bundle_index()
    source = tree(tmp_path / "tree")
    theirs = opm_bundles(source, tmp_path / "work")
    ours = olmcat_bundles(source)
    assert sorted(theirs) == sorted(ours)

    # The rule: the last semver-mode add is beta's, so the non-heads of alpha (added before)
    # and of beta are cleared; gamma (added after, replaces mode) keeps everything.
    cleared = {"alpha.v1.0.0", "beta.v0.1.0", "beta.v0.2.0"}
    without_objects = {
        name
        for name, item in theirs.items()
        if not any(p["type"] == "olm.bundle.object" for p in item["blob"]["properties"])
    }
    assert without_objects == cleared

    for name in sorted(theirs):
        opm_blob, our_blob = theirs[name]["blob"], ours[name]["blob"]
        if name in cleared:
            # The three effects named in the Deviations table, and only those.
            assert any(r["name"] for r in our_blob["relatedImages"])
            assert not any(r["name"] for r in opm_blob["relatedImages"])
            assert len(opm_blob["relatedImages"]) < len(our_blob["relatedImages"])
            assert opm_blob == cleared_like_an_index(our_blob)
        else:
            assert theirs[name]["text"] == ours[name]["text"], name


def test_the_deviation_is_named_in_the_deviations_table() -> None:
    from tests.support.paths import ROOT

    table = (ROOT / "docs" / "deviations.md").read_text()
    row = next(line for line in table.splitlines() if "ClearNonHeadBundles" in line)
    for effect in ("olm.bundle.object", "names", "two names"):
        assert effect in row, effect
    assert "tests/differential/test_semver_clearing.py" in row
