"""Operator directories as operator pipelines lay them out (issue 29), against the oracle.

A tree of bundle-format operators, each with what pipelines keep beside its bundles (a
``ci.yaml`` whose ``channels`` is a list of strings, ``catalog-templates/`` with a template that
does not parse, an empty ``<version>/tests/scorecard/config.yaml``, README, Makefile, a
``release-config.yaml``), one with a bundle nested below a version directory, one with an
``fbc`` block, one whose ``ci.yaml`` values the schema refuses. The oracle's ``bundle-index
index`` builds an image of each ``<package>/<version>`` and adds them with ``opm registry add``
in the mode ``ci.yaml`` names; ``opm migrate`` writes the catalog. ``olmcat migrate pkgman``
without ``--permissive`` must write the same bytes, the same as with ``--permissive``, every file
outside the bundles and the nested bundle named in its notices.

Run alone: ``pytest -m differential tests/differential/test_pipeline_trees.py``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from olmcat.migrate import migrate_pkgman
from olmcat.notices import NoticeLog
from tests.support import oracle
from tests.support.bundletrees import (
    IMAGE_TEMPLATE,
    blob_texts,
    chain,
    compare,
    nest_bundle,
    oracle_index,
    write_bundle,
    write_pipeline_files,
)
from tests.support.oracle import require_bundle_index

FBC_CI = """\
updateGraph: semver-mode
reviewers: [someone]
fbc:
  enabled: true
  catalog_mapping:
    - template_name: semver.yaml
      type: olm.semver
      catalog_names: ["v4.15", "v4.16"]
"""


def pipeline_tree(root: Path) -> dict[str, list[Path]]:
    """The tree; per operator, the files that are no manifest (the nested bundle under
    "nested")."""
    outside: dict[str, list[Path]] = {}
    # replaces-mode, every kind of file beside the bundles
    chain(root, "alpha", "1.0.0", "1.1.0", "1.2.0")
    outside["alpha"] = write_pipeline_files(root / "alpha", "1.0.0")
    # semver-mode with an fbc block; unrelated versions (replaces mode would refuse two heads)
    for version in ("0.1.0", "0.2.0", "0.2.1"):
        write_bundle(root, "beta", version, channels="stable,fast")
    (root / "beta" / "ci.yaml").write_text(FBC_CI)
    outside["beta"] = [root / "beta" / "ci.yaml"]
    outside["beta"] += write_pipeline_files(
        root / "beta", "0.2.1", ["catalog-templates/semver.yaml"]
    )
    outside["beta"] += write_pipeline_files(
        root / "beta", "0.2.1", ["{v}/tests/scorecard/config.yaml"]
    )
    # a bundle one level below its version directory: no pipeline builds it
    chain(root, "gamma", "1.0.0", "1.1.0")
    outside["gamma"] = write_pipeline_files(root / "gamma", "1.0.0", ["ci.yaml", "README.md"])
    outside["nested"] = [nest_bundle(root, "gamma", "2.0.0", replaces="gamma.v1.1.0")]
    # values the schema refuses: updateGraph as a list (the default mode), reviewers a number
    chain(root, "delta", "1.0.0", "1.0.1")
    (root / "delta" / "ci.yaml").write_text("updateGraph: [semver-mode]\nreviewers: 3\n")
    outside["delta"] = [root / "delta" / "ci.yaml"]
    return outside


def _cleared_like_an_index(blob: dict[str, Any]) -> dict[str, Any]:
    """A bundle as opm migrate writes it once a semver add cleared its csv and bundle columns:
    no olm.bundle.object, related images from the related_image table (no names, each once)."""
    out = dict(blob)
    out["properties"] = [p for p in blob["properties"] if p["type"] != "olm.bundle.object"]
    images = sorted({r["image"] for r in blob.get("relatedImages", [])})
    out["relatedImages"] = [{"name": "", "image": image} for image in images]
    return out


def _catalogs(out: Path) -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in sorted(out.glob("*/catalog.json"))}


def test_pipeline_tree_matches_opm_and_strict_equals_permissive(tmp_path: Path) -> None:
    require_bundle_index()
    tree = tmp_path / "tree"
    outside = pipeline_tree(tree)
    # bundle-index stops on an updateGraph that is no string (a TypeError of its own); asked
    # for the mode it gives an operator without one, it builds what the pipeline's default
    # means. olmcat reads delta's ci.yaml itself (no --mode): its fallback must be the same.
    index = oracle_index(tree, tmp_path / "oracle", {"delta": "replaces-then-semver"})
    assert not index.stderr.count("Traceback"), index.stderr[-2000:]
    assert not compare(tree, index, {})
    assert {name: p.added for name, p in index.packages.items()} == {
        "alpha": 3,
        "beta": 3,
        "delta": 2,
        "gamma": 2,  # not the nested one
    }
    # The whole catalog, byte for byte: opm migrate of the index the oracle built.
    db = tmp_path / "copy.db"
    shutil.copy(tmp_path / "oracle" / "index.db", db)
    migrated = oracle.migrate(db, tmp_path / "opm-out", cwd=tmp_path)
    assert migrated.ok, migrated.stderr[-2000:]
    expected = _catalogs(tmp_path / "opm-out")

    strict_log, permissive_log = NoticeLog(), NoticeLog()
    migrate_pkgman(tree, tmp_path / "strict", image_ref_template=IMAGE_TEMPLATE, notify=strict_log)
    migrate_pkgman(
        tree,
        tmp_path / "permissive",
        image_ref_template=IMAGE_TEMPLATE,
        notify=permissive_log,
        permissive=True,
    )
    strict = _catalogs(tmp_path / "strict")
    assert _catalogs(tmp_path / "permissive") == strict
    # opm's output is olmcat's up to the named deviation (docs/deviations.md,
    # bundle-format: semver adds clear the non-head bundles of every package added so far):
    # beta's semver add clears beta's and alpha's (added before it) non-heads; delta and
    # gamma, added after in replaces mode, keep everything.
    assert sorted(strict) == sorted(expected)
    cleared = set()
    for name in sorted(expected):
        theirs, ours = blob_texts(expected[name].decode()), blob_texts(strict[name].decode())
        assert [b.get("name") for b, _ in theirs] == [b.get("name") for b, _ in ours], name
        for (opm_blob, opm_text), (our_blob, our_text) in zip(theirs, ours, strict=True):
            if opm_blob != our_blob and opm_blob == _cleared_like_an_index(our_blob):
                cleared.add(opm_blob["name"])
            else:
                assert opm_text == our_text, name
    assert cleared == {"alpha.v1.0.0", "alpha.v1.1.0", "beta.v0.1.0", "beta.v0.2.0"}
    for log in (strict_log, permissive_log):
        noted = sorted(n.file for n in log if n.code == "pkgman.not-a-manifest")
        files = sorted(str(p) for name, ps in outside.items() if name != "nested" for p in ps)
        assert noted == files
        nested = [n.file for n in log if n.code == "bundledir.nested-bundle"]
        assert nested == [str(p) for p in outside["nested"]]
        assert not [n for n in log if n.severity == "error"]
