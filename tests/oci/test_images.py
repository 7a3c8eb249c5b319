"""Layer selection, the rebuilt catalog image and the OCI layout writer (no network)."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from olmcat.errors import InputError
from olmcat.oci.archive import CONFIGS_LABEL, extract_catalog
from olmcat.oci.build import build_catalog_image
from olmcat.oci.copy import LayoutEndpoint, copy_image
from olmcat.oci.layout import OciLayout
from olmcat.oci.pull import _layer_verdict
from tests.support.paths import FIXTURES
from tests.support.registry import tar_bytes

DB = "database/index.db"


def _tar(*members: tuple[str, str, str]) -> tarfile.TarFile:
    """(name, kind, link target) -> an open streaming tar; kind is file, dir, sym or hard."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, kind, target in members:
            info = tarfile.TarInfo(name)
            if kind == "dir":
                info.type = tarfile.DIRTYPE
            elif kind == "sym":
                info.type, info.linkname = tarfile.SYMTYPE, target
            elif kind == "hard":
                info.type, info.linkname = tarfile.LNKTYPE, target
            tar.addfile(info, io.BytesIO(b"") if kind == "file" else None)
    buffer.seek(0)
    return tarfile.open(fileobj=buffer, mode="r|")


@pytest.mark.parametrize(
    ("members", "verdict"),
    [
        ([("bin/opm", "file", "")], "absent"),
        ([("database/", "dir", ""), (DB, "file", "")], "plain"),
        ([("./database/index.db", "file", "")], "plain"),
        ([(DB, "sym", "/other.db")], "complex"),
        ([(DB, "hard", "other.db")], "complex"),
        ([("database/.wh.index.db", "file", "")], "complex"),
        ([("database/.wh..wh..opq", "file", ""), (DB, "file", "")], "complex"),
        ([(".wh.database", "file", "")], "complex"),
        ([("database", "sym", "/var/db")], "complex"),
        ([("database/.wh.other.db", "file", "")], "absent"),
    ],
)
def test_layer_verdict(members: list[tuple[str, str, str]], verdict: str) -> None:
    with _tar(*members) as tar:
        assert _layer_verdict(tar, DB) == verdict


def _configs(tmp_path: Path) -> Path:
    configs = tmp_path / "configs"
    for package in ("hello-operator", "world-operator"):
        (configs / package).mkdir(parents=True)
        source = FIXTURES / "example" / "expected" / package / "catalog.json"
        (configs / package / "catalog.json").write_bytes(source.read_bytes())
    return configs


def test_catalog_image_is_reproducible_and_readable(tmp_path: Path) -> None:
    configs = _configs(tmp_path)
    first, second = build_catalog_image(configs), build_catalog_image(configs)
    assert first.digest == second.digest and first.blobs == second.blobs

    manifest = json.loads(first.manifest.data)
    assert len(manifest["layers"]) == 1
    config = json.loads(first.blobs[manifest["config"]["digest"]])
    assert config["config"]["Labels"] == {CONFIGS_LABEL: "/configs"}
    layer = gzip.decompress(first.blobs[manifest["layers"][0]["digest"]])
    assert config["rootfs"]["diff_ids"] == ["sha256:" + hashlib.sha256(layer).hexdigest()]
    with tarfile.open(fileobj=io.BytesIO(layer)) as tar:
        members = {m.name: m for m in tar.getmembers()}
    assert set(members) == {
        "configs",
        "configs/hello-operator",
        "configs/hello-operator/catalog.json",
        "configs/world-operator",
        "configs/world-operator/catalog.json",
    }
    assert {(m.uid, m.gid, m.mtime) for m in members.values()} == {(0, 0, 0)}

    # Written to a layout, the archive reader finds the catalog where the label says.
    layout = OciLayout(tmp_path / "layout", create=True)
    copy_image(first, first.digest, LayoutEndpoint(layout), "catalog:v1")
    found = extract_catalog(tmp_path / "layout", tmp_path / "out", ref="catalog:v1")
    assert found.kind == "fbc" and found.manifest_digest == first.digest
    for package in ("hello-operator", "world-operator"):
        assert (found.path / package / "catalog.json").read_bytes() == (
            configs / package / "catalog.json"
        ).read_bytes()


def test_layout_refuses_a_corrupt_blob_and_keeps_entries_of_other_runs(tmp_path: Path) -> None:
    layout = OciLayout(tmp_path / "l", create=True)
    data = tar_bytes({"a": b"1"})
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    with pytest.raises(InputError, match="digest mismatch"):
        layout.write_blob(digest, [data + b"x"], "blob")
    assert not layout.has_blob(digest)
    assert layout.write_blob(digest, [data[:10], data[10:]], "blob") == len(data)
    from olmcat.oci.media import Descriptor

    layout.set_ref("one", Descriptor("application/vnd.oci.image.manifest.v1+json", digest, 3))
    # Another process (another OciLayout object) adds its own entry.
    OciLayout(tmp_path / "l").set_ref(
        "two", Descriptor("application/vnd.oci.image.manifest.v1+json", digest, 3)
    )
    layout.set_ref("one", Descriptor("application/vnd.oci.image.index.v1+json", digest, 3))
    refs = OciLayout(tmp_path / "l").refs()
    assert sorted(refs) == ["one", "two"]
    assert refs["one"].media_type == "application/vnd.oci.image.index.v1+json"
    path = layout.blob_path(digest)
    path.write_bytes(data.replace(b"1", b"2"))
    with pytest.raises(InputError, match="corrupt"):
        b"".join(layout.blob_chunks(digest))
