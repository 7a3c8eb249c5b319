"""Catalog references: every form is detected and opened by the one resolver."""

from __future__ import annotations

import shutil
import tarfile
import tempfile
from pathlib import Path

import pytest

from olmcat.errors import InputError
from olmcat.readers.catalog import detect, open_catalog
from tests.support.builders import make_index_db, simple_package
from tests.support.paths import FIXTURES, corpus_path

EXAMPLE = FIXTURES / "example"


def _names(reference: str | Path, **kwargs: object) -> list[str]:
    with open_catalog(reference, **kwargs) as catalog:  # type: ignore[arg-type]
        return [p.name for p in catalog]


def test_every_example_form_gives_the_same_packages(tmp_path: Path) -> None:
    expected = ["hello-operator", "world-operator"]
    assert detect(str(EXAMPLE / "expected")) == "fbc"
    assert detect(str(EXAMPLE / "sqlite" / "schema-13.db")) == "sqlite"
    assert detect(str(EXAMPLE / "manifests")) == "pkgman"
    for reference in (
        EXAMPLE / "expected",
        EXAMPLE / "sqlite" / "schema-13.db",
        EXAMPLE / "manifests",
    ):
        assert _names(reference) == expected


def test_sqlite_database_by_header_or_suffix(tmp_path: Path) -> None:
    db = make_index_db(tmp_path / "index", [simple_package()])  # no suffix: found by its header
    assert detect(str(db)) == "sqlite"


def test_expected_kind_is_enforced(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a file holding a SQLite index database"):
        open_catalog(EXAMPLE / "expected", expect=("sqlite",))


def test_missing_reference(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file or directory"):
        open_catalog(tmp_path / "nope")


@pytest.mark.parametrize("form", ["oci-archive", "oci-layout-dir"])
def test_index_image_archive(form: str, tmp_path: Path) -> None:
    archive = corpus_path("images/test-index-v1.oci.tar")
    reference: Path = archive
    if form == "oci-layout-dir":
        reference = tmp_path / "layout"
        with tarfile.open(archive) as tar:
            tar.extractall(reference, filter="data")
    assert detect(str(reference)) == "image"
    with open_catalog(reference) as catalog:
        assert catalog.kind == "image"
        assert "SQLite" in catalog.detail
        names = catalog.package_names()
    assert names == sorted(p.name for p in corpus_path("expected/index-upstream.json").iterdir())


def test_image_scratch_directory_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = corpus_path("images/test-index-v1.oci.tar")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with open_catalog(archive):
        assert any(p.name.startswith("olmcat-image-") for p in tmp_path.iterdir())
    assert not any(p.name.startswith("olmcat-image-") for p in tmp_path.iterdir())


def test_fbc_directory_holding_an_index_json_is_not_an_image_layout(tmp_path: Path) -> None:
    # Only a directory with the oci-layout marker file is an OCI image layout.
    root = tmp_path / "catalog"
    shutil.copytree(EXAMPLE / "expected", root)
    (root / "index.json").write_text('{"schema": "olm.index-note", "name": "notes"}\n')
    with open_catalog(root) as catalog:
        assert catalog.kind == "fbc"
        assert catalog.package_names() == ["hello-operator", "world-operator"]
