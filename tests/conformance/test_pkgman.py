"""Conformance: ``migrate pkgman`` of the corpus package-manifest tree against opm's output.

``sqlite/upstream-subset.db`` is the legacy ``initializer --permissive`` over
``pkgman/upstream-subset`` and ``expected/upstream-subset.{json,yaml}`` is ``opm migrate`` of that
DB, so migrating the directory in one step must give the same bytes.
"""

from __future__ import annotations

import io
from pathlib import Path

from olmcat.migrate import migrate_pkgman, migrate_sqlite
from olmcat.notices import NoticeLog
from tests.support.paths import corpus_path, parse_stream

LATER = "pkgman.later-documents-ignored"


def test_pkgman_tree_json_is_byte_identical_to_opm(tmp_path: Path) -> None:
    source = corpus_path("pkgman/upstream-subset")
    golden = corpus_path("expected/upstream-subset.json")
    notices = NoticeLog()
    result = migrate_pkgman(source, tmp_path / "out", notify=notices)
    assert result.stats.packages == 40
    packages = sorted(p.name for p in golden.iterdir())
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == packages
    for pkg in packages:
        expected = (golden / pkg / "catalog.json").read_bytes()
        assert (tmp_path / "out" / pkg / "catalog.json").read_bytes() == expected, pkg
    # The one multi-document manifest file is reported, not silently cut short.
    assert [n.file.split("upstream-subset/")[1] for n in notices if n.code == LATER] == [
        "litmuschaos/1.9.0/chaosengines.litmuschaos.io.crd.yaml"
    ]


def test_pkgman_tree_yaml_is_identical_blob_for_blob(tmp_path: Path) -> None:
    source = corpus_path("pkgman/upstream-subset")
    golden = corpus_path("expected/upstream-subset.yaml")
    migrate_pkgman(source, tmp_path / "out", output="yaml")
    for pkg_dir in sorted(golden.iterdir()):
        expected = (pkg_dir / "catalog.yaml").read_text().split("---\n")[1:]
        actual = (tmp_path / "out" / pkg_dir.name / "catalog.yaml").read_text().split("---\n")[1:]
        assert actual == expected, pkg_dir.name


def test_stdout_stream_equals_the_directory_output_concatenated(tmp_path: Path) -> None:
    source = corpus_path("pkgman/upstream-subset/etcd")
    buffer = io.StringIO()
    migrate_pkgman(source, None, stdout=buffer)
    golden = corpus_path("expected/upstream-subset.json/etcd/catalog.json").read_text()
    assert buffer.getvalue() == golden


def test_all_documents_reads_the_extra_crds(tmp_path: Path) -> None:
    source = corpus_path("pkgman/upstream-subset/litmuschaos")
    buffer = io.StringIO()
    migrate_pkgman(source, None, stdout=buffer, all_documents=True)
    head = next(
        b for b in parse_stream(buffer.getvalue()) if b.get("name") == "chaosoperator.v1.9.0"
    )
    kinds = {p["value"]["kind"] for p in head["properties"] if p["type"] == "olm.gvk"}
    assert kinds == {"ChaosEngine", "ChaosExperiment", "ChaosResult"}


def test_image_archive_migrates_like_the_database_inside_it(tmp_path: Path) -> None:
    archive = corpus_path("images/test-index-v1.oci.tar")
    golden = corpus_path("expected/index-upstream.json")
    migrate_sqlite(archive, tmp_path / "out")
    for pkg_dir in sorted(golden.iterdir()):
        actual = (tmp_path / "out" / pkg_dir.name / "catalog.json").read_bytes()
        assert actual == (pkg_dir / "catalog.json").read_bytes(), pkg_dir.name
