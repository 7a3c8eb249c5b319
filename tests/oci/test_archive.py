"""Tests of olmcat.oci.archive: image archives on disk -> catalog (sqlite DB / FBC dir)."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import io
import json
import tarfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from olmcat.errors import InputError, OutputError
from olmcat.files import safe
from olmcat.oci import archive as image_mod
from olmcat.oci.archive import (
    CONFIGS_LABEL,
    DATABASE_LABEL,
    extract_catalog,
    is_image_archive,
    open_image,
)
from tests.support.paths import SHARED

IMAGES = SHARED / "corpus" / "images"
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
OCI_CONFIG = "application/vnd.oci.image.config.v1+json"
LAYER_GZ = "application/vnd.oci.image.layer.v1.tar+gzip"
LAYER_TAR = "application/vnd.oci.image.layer.v1.tar"
LAYER_ZSTD = "application/vnd.oci.image.layer.v1.tar+zstd"
DB = "/database/index.db"


# ------------------------------------------------------------------------------------------------
# Builders


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def f(name: str, data: bytes | str = b"") -> tuple[str, str, bytes | str]:
    return ("file", name, data)


def d(name: str) -> tuple[str, str, bytes | str]:
    return ("dir", name, b"")


def sym(name: str, target: str) -> tuple[str, str, bytes | str]:
    return ("symlink", name, target)


def hard(name: str, target: str) -> tuple[str, str, bytes | str]:
    return ("hardlink", name, target)


def fifo(name: str) -> tuple[str, str, bytes | str]:
    return ("fifo", name, b"")


def mk_tar(entries: list[tuple[str, str, bytes | str]]) -> bytes:
    """A layer tar exactly as listed (names kept verbatim, even hostile ones)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for kind, name, payload in entries:
            info = tarfile.TarInfo(name)
            info.mtime = 0
            if kind == "file":
                data = payload.encode() if isinstance(payload, str) else payload
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
                continue
            if kind == "dir":
                info.type, info.mode = tarfile.DIRTYPE, 0o755
            elif kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, str(payload)
            elif kind == "hardlink":
                info.type, info.linkname = tarfile.LNKTYPE, str(payload)
            else:
                info.type = tarfile.FIFOTYPE
            tar.addfile(info)
    return buf.getvalue()


@dataclass
class Img:
    layers: list[bytes]  # uncompressed layer tars
    labels: dict[str, str] = field(default_factory=lambda: {DATABASE_LABEL: DB})
    os: str = "linux"
    arch: str = "amd64"
    variant: str | None = None
    compression: str = "gzip"  # "gzip" | "none"; applies to every layer
    media_type: str | None = None  # override every layer's media type

    def config(self) -> bytes:
        cfg: dict[str, Any] = {
            "architecture": self.arch,
            "os": self.os,
            "config": {"Labels": self.labels},
            "rootfs": {"type": "layers", "diff_ids": [sha(t) for t in self.layers]},
        }
        if self.variant:
            cfg["variant"] = self.variant
        return json.dumps(cfg).encode()


class Layout:
    """Builds OCI layouts (dir / oci-archive / docker>=25 save) from Img descriptions."""

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}

    def add(self, data: bytes, media_type: str, **extra: Any) -> dict[str, Any]:
        digest = sha(data)
        self.blobs[digest] = data
        return {"mediaType": media_type, "digest": digest, "size": len(data), **extra}

    def image(self, img: Img, **extra: Any) -> dict[str, Any]:
        layers = []
        for tar in img.layers:
            if img.compression == "gzip":
                blob, media_type = gzip.compress(tar, mtime=0), LAYER_GZ
            else:
                blob, media_type = tar, LAYER_TAR
            layers.append(self.add(blob, img.media_type or media_type))
        manifest = {
            "schemaVersion": 2,
            "mediaType": OCI_MANIFEST,
            "config": self.add(img.config(), OCI_CONFIG),
            "layers": layers,
        }
        return self.add(json.dumps(manifest).encode(), OCI_MANIFEST, **extra)

    def index(self, manifests: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        doc = {"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": manifests}
        return self.add(json.dumps(doc).encode(), OCI_INDEX, **extra)

    def files(self, manifests: list[dict[str, Any]]) -> dict[str, bytes]:
        out = {
            "oci-layout": b'{"imageLayoutVersion": "1.0.0"}',
            "index.json": json.dumps({"schemaVersion": 2, "manifests": manifests}).encode(),
        }
        for digest, data in self.blobs.items():
            out["blobs/sha256/" + digest.split(":")[1]] = data
        return out

    def write_dir(self, root: Path, manifests: list[dict[str, Any]]) -> Path:
        for name, data in self.files(manifests).items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(data)
        return root

    def write_tar(
        self,
        path: Path,
        manifests: list[dict[str, Any]],
        *,
        gz: bool = False,
        extra: dict[str, bytes] | None = None,
    ) -> Path:
        write_archive(path, {**self.files(manifests), **(extra or {})}, gz=gz)
        return path


def write_archive(path: Path, files: dict[str, bytes], *, gz: bool = False) -> None:
    with tarfile.open(path, "w:gz" if gz else "w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def one_image(tmp_path: Path, img: Img, *, name: str = "img.oci.tar") -> Path:
    layout = Layout()
    return layout.write_tar(tmp_path / name, [layout.image(img)])


def docker_save(path: Path, images: list[tuple[Img, list[str]]]) -> Path:
    """A legacy `docker save` tar: <id>/layer.tar (uncompressed), <hex>.json, manifest.json."""
    files: dict[str, bytes] = {}
    manifest = []
    for img, tags in images:
        config = img.config()
        paths = []
        for tar in img.layers:
            layer_id = hashlib.sha256(b"id" + tar).hexdigest()
            files[f"{layer_id}/VERSION"] = b"1.0"
            files[f"{layer_id}/layer.tar"] = tar
            paths.append(f"{layer_id}/layer.tar")
        files[f"{hashlib.sha256(config).hexdigest()}.json"] = config
        manifest.append(
            {
                "Config": f"{hashlib.sha256(config).hexdigest()}.json",
                "RepoTags": tags,
                "Layers": paths,
            }
        )
    files["manifest.json"] = json.dumps(manifest).encode()
    write_archive(path, files)
    return path


def assert_only(dest: Path, label_path: str) -> None:
    """dest holds the labelled path, its descendants and its parent dirs, nothing else, no links."""
    label = PurePosixPath(label_path.lstrip("/"))
    for path in dest.rglob("*"):
        rel = PurePosixPath(path.relative_to(dest).as_posix())
        assert not path.is_symlink(), rel
        if rel in label.parents:
            assert path.is_dir(), rel
        else:
            assert rel == label or label in rel.parents, f"{rel} lies outside {label}"


def db_layer(content: bytes | str, *extra: tuple[str, str, bytes | str]) -> bytes:
    return mk_tar([d("database"), f("database/index.db", content), *extra])


# ------------------------------------------------------------------------------------------------
# Corpus (real index image archives)

needs_corpus = pytest.mark.skipif(
    not IMAGES.is_dir(), reason=f"shared corpus not present at {IMAGES}"
)
CORPUS = [
    ("test-index-v1.oci.tar", "index-upstream.db", "127.0.0.1:5000/test-index:v1"),
    ("test-index-v0-old.oci.tar", "index-upstream-old.db", "127.0.0.1:5000/test-index:v0"),
]


def corpus_db_sha(archive: Path) -> str:
    """Independent of the module: follow index.json -> manifest -> layers with plain tarfile."""
    with tarfile.open(archive) as outer:

        def blob(digest: str) -> bytes:
            handle = outer.extractfile("blobs/sha256/" + digest.split(":")[1])
            assert handle is not None
            return handle.read()

        index = json.loads(outer.extractfile("index.json").read())  # type: ignore[union-attr]
        manifest = json.loads(blob(index["manifests"][0]["digest"]))
        found = None
        for layer in manifest["layers"]:
            with tarfile.open(fileobj=io.BytesIO(blob(layer["digest"]))) as inner:
                for member in inner:
                    if member.name.lstrip("./") == "database/index.db":
                        found = hashlib.sha256(inner.extractfile(member).read()).hexdigest()  # type: ignore[union-attr]
        assert found is not None
        return found


@needs_corpus
@pytest.mark.parametrize(("name", "db_name", "ref"), CORPUS)
def test_corpus_archive(tmp_path: Path, name: str, db_name: str, ref: str) -> None:
    archive = IMAGES / name
    assert is_image_archive(archive)
    with open_image(archive) as img:
        assert img.format == "oci-archive"
        assert img.labels == {DATABASE_LABEL: DB}
        assert (img.os, img.architecture, img.platform) == ("linux", "amd64", "linux/amd64")
        assert img.refs == (ref,)
        assert len(img.layers) == 1
        assert img.layers[0].media_type == LAYER_GZ
    result = extract_catalog(archive, tmp_path / "out")
    assert result.kind == "sqlite"
    assert result.label == DATABASE_LABEL
    assert result.image_path == DB
    assert result.path == tmp_path / "out" / "database" / "index.db"
    got = hashlib.sha256(result.path.read_bytes()).hexdigest()
    assert got == corpus_db_sha(archive)
    # README: the image holds the corpus DB of the same name.
    corpus_db = SHARED / "corpus" / "sqlite" / db_name
    if corpus_db.is_file():
        assert got == hashlib.sha256(corpus_db.read_bytes()).hexdigest()
    assert_only(tmp_path / "out", DB)


@needs_corpus
def test_corpus_as_layout_dir_and_gzipped_archive(tmp_path: Path) -> None:
    archive = IMAGES / "test-index-v1.oci.tar"
    expected = corpus_db_sha(archive)
    layout = tmp_path / "layout"
    with tarfile.open(archive) as tar:
        tar.extractall(layout, filter="data")
    assert is_image_archive(layout)
    with open_image(layout) as img:
        assert img.format == "oci-layout"
    result = extract_catalog(layout, tmp_path / "a")
    assert hashlib.sha256(result.path.read_bytes()).hexdigest() == expected
    gz = tmp_path / "index.oci.tar.gz"
    gz.write_bytes(gzip.compress(archive.read_bytes(), compresslevel=1))
    assert is_image_archive(gz)
    result = extract_catalog(gz, tmp_path / "b")
    assert hashlib.sha256(result.path.read_bytes()).hexdigest() == expected


@needs_corpus
def test_archive_is_streamed_not_extracted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("the archive must not be extracted to disk")

    monkeypatch.setattr(tarfile.TarFile, "extractall", forbidden)
    monkeypatch.setattr(tarfile.TarFile, "extract", forbidden)
    result = extract_catalog(IMAGES / "test-index-v1.oci.tar", tmp_path / "out")
    assert result.path.is_file()


# ------------------------------------------------------------------------------------------------
# Synthetic images: layers and whiteouts


def test_whiteout_deletes_then_later_layer_readds(tmp_path: Path) -> None:
    img = Img(
        [
            db_layer("v1", f("etc/passwd", "root")),
            mk_tar([d("database"), f("database/.wh.index.db")]),
            db_layer("v3"),
        ]
    )
    result = extract_catalog(one_image(tmp_path, img), tmp_path / "out")
    assert result.path.read_text() == "v3"
    assert_only(tmp_path / "out", DB)


def test_whiteout_removing_the_db_is_reported(tmp_path: Path) -> None:
    img = Img([db_layer("v1"), mk_tar([f("database/.wh.index.db")]), mk_tar([f("etc/x", "x")])])
    layout = Layout()
    manifest = layout.image(img)
    archive = layout.write_tar(tmp_path / "img.tar", [manifest])
    with pytest.raises(InputError, match=r"deleted by a whiteout in layer 1 \(sha256:") as err:
        extract_catalog(archive, tmp_path / "out")
    assert str(archive) in str(err.value)
    assert "\n" not in str(err.value)
    assert not (tmp_path / "out").exists()  # created by the call, removed on failure


def test_whiteout_of_parent_dir_removes_db(tmp_path: Path) -> None:
    img = Img([db_layer("v1"), mk_tar([f(".wh.database")])])
    with pytest.raises(InputError, match="deleted by a whiteout"):
        extract_catalog(one_image(tmp_path, img), tmp_path / "out")


def test_whiteout_only_hides_lower_layers(tmp_path: Path) -> None:
    # The same layer re-adds the file and (after it, in tar order) whites it out: it stays.
    img = Img([db_layer("v1"), mk_tar([f("database/index.db", "v2"), f("database/.wh.index.db")])])
    result = extract_catalog(one_image(tmp_path, img), tmp_path / "out")
    assert result.path.read_text() == "v2"


def fbc(pkg: str) -> str:
    return json.dumps({"schema": "olm.package", "name": pkg})


def test_opaque_dir_in_fbc_image(tmp_path: Path) -> None:
    labels = {CONFIGS_LABEL: "/configs", "other": "x"}
    img = Img(
        [
            mk_tar(
                [
                    f("bin/opm", "ELF"),
                    d("configs"),
                    f("configs/a/catalog.json", fbc("a")),
                    f("configs/b/catalog.json", fbc("b")),
                    f("etc/passwd", "root"),
                ]
            ),
            # Opaque marker after its siblings: still applies to lower layers only.
            mk_tar(
                [
                    d("configs"),
                    f("configs/c/catalog.json", fbc("c")),
                    f("configs/.wh..wh..opq"),
                ]
            ),
            mk_tar([f("configs/d/catalog.json", fbc("d")), f("configs/.wh.c")]),
        ],
        labels=labels,
    )
    result = extract_catalog(one_image(tmp_path, img), tmp_path / "out")
    assert result.kind == "fbc"
    assert result.label == CONFIGS_LABEL
    assert result.path == tmp_path / "out" / "configs"
    assert sorted(p.name for p in result.path.iterdir()) == ["d"]
    assert json.loads((result.path / "d" / "catalog.json").read_text())["name"] == "d"
    assert_only(tmp_path / "out", "/configs")


def test_opaque_keeps_same_layer_dirs_but_drops_their_lower_content(tmp_path: Path) -> None:
    labels = {CONFIGS_LABEL: "/configs"}
    img = Img(
        [
            mk_tar([f("configs/a/old.json", "{}"), f("configs/a/keep.json", "{}")]),
            mk_tar([d("configs/a"), f("configs/a/new.json", "{}"), f("configs/.wh..wh..opq")]),
        ],
        labels=labels,
    )
    result = extract_catalog(one_image(tmp_path, img), tmp_path / "out")
    assert sorted(p.name for p in (result.path / "a").iterdir()) == ["new.json"]


def test_both_labels_prefers_database_unless_told(tmp_path: Path) -> None:
    labels = {DATABASE_LABEL: DB, CONFIGS_LABEL: "/configs"}
    img = Img([db_layer("db", f("configs/p/catalog.json", fbc("p")))], labels=labels)
    archive = one_image(tmp_path, img)
    assert extract_catalog(archive, tmp_path / "a").kind == "sqlite"
    result = extract_catalog(archive, tmp_path / "b", kind="fbc")
    assert result.kind == "fbc"
    assert_only(tmp_path / "b", "/configs")


@pytest.mark.parametrize("compression", ["gzip", "none"])
def test_gzip_and_uncompressed_layers(tmp_path: Path, compression: str) -> None:
    img = Img([db_layer("v1"), db_layer("v2")], compression=compression)
    with open_image(one_image(tmp_path, img)) as opened:
        assert [layer.media_type for layer in opened.layers] == [
            LAYER_GZ if compression == "gzip" else LAYER_TAR
        ] * 2
        result = opened.extract_catalog(tmp_path / "out")
    assert result.path.read_text() == "v2"


def test_magic_bytes_win_over_mislabelled_media_type(tmp_path: Path) -> None:
    # A gzip blob labelled as a plain tar (and the reverse) still reads.
    img = Img([db_layer("gz")], compression="gzip", media_type=LAYER_TAR)
    assert extract_catalog(one_image(tmp_path, img), tmp_path / "a").path.read_text() == "gz"
    img = Img([db_layer("plain")], compression="none", media_type=LAYER_GZ)
    archive = one_image(tmp_path, img, name="b.tar")
    assert extract_catalog(archive, tmp_path / "b").path.read_text() == "plain"


def test_zstd_layer_without_module_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(image_mod, "_zstd_reader", lambda src: None)
    layout = Layout()
    blob = layout.add(b"\x28\xb5\x2f\xfd" + b"\0" * 32, LAYER_ZSTD)
    config = layout.add(Img([b""]).config(), OCI_CONFIG)
    manifest = {"schemaVersion": 2, "config": config, "layers": [blob]}
    desc = layout.add(json.dumps(manifest).encode(), OCI_MANIFEST)
    archive = layout.write_tar(tmp_path / "z.tar", [desc])
    with pytest.raises(InputError, match="unsupported compression zstd") as err:
        extract_catalog(archive, tmp_path / "out")
    assert blob["digest"] in str(err.value)


def test_unsupported_compression_and_media_type(tmp_path: Path) -> None:
    img = Img([db_layer("x")], compression="none")
    layout = Layout()
    desc = layout.image(img)
    # Swap the layer for an xz-looking blob under the same (re-computed) descriptor.
    manifest = json.loads(layout.blobs[desc["digest"]])
    manifest["layers"] = [layout.add(b"\xfd7zXZ\x00" + b"\0" * 32, LAYER_TAR)]
    desc = layout.add(json.dumps(manifest).encode(), OCI_MANIFEST)
    with pytest.raises(InputError, match="unsupported compression xz"):
        extract_catalog(layout.write_tar(tmp_path / "a.tar", [desc]), tmp_path / "a")
    manifest["layers"] = [layout.add(mk_tar([f("x", "y")]), "application/vnd.example.thing")]
    desc = layout.add(json.dumps(manifest).encode(), OCI_MANIFEST)
    with pytest.raises(InputError, match="unsupported layer media type"):
        extract_catalog(layout.write_tar(tmp_path / "b.tar", [desc]), tmp_path / "b")


# ------------------------------------------------------------------------------------------------
# Image selection


def multi_arch(tmp_path: Path, *, nested: bool = True) -> Path:
    layout = Layout()
    arm = layout.image(
        Img([db_layer("arm64")], arch="arm64", variant="v8"),
        platform={"os": "linux", "architecture": "arm64", "variant": "v8"},
    )
    amd = layout.image(Img([db_layer("amd64")]), platform={"os": "linux", "architecture": "amd64"})
    ppc = layout.image(Img([db_layer("ppc64le")], arch="ppc64le"))  # platform from config only
    attestation = layout.add(
        b"{}",
        OCI_MANIFEST,
        platform={"os": "unknown", "architecture": "unknown"},
        annotations={"vnd.docker.reference.type": "attestation-manifest"},
    )
    entries = [arm, attestation, amd, ppc]
    if nested:
        top = layout.index(entries, annotations={"org.opencontainers.image.ref.name": "v1"})
        return layout.write_tar(tmp_path / "multi.tar", [top])
    return layout.write_tar(tmp_path / "multi.tar", entries)


@pytest.mark.parametrize("nested", [True, False])
def test_multi_arch_prefers_linux_amd64(tmp_path: Path, nested: bool) -> None:
    archive = multi_arch(tmp_path, nested=nested)
    with open_image(archive) as img:
        assert img.platform == "linux/amd64"
        assert [e.platform for e in img.images] == [
            "linux/arm64/v8",
            "linux/amd64",
            "linux/ppc64le",
        ]
        if nested:
            assert img.refs == ("v1",)
    assert extract_catalog(archive, tmp_path / "out").path.read_text() == "amd64"


def test_multi_arch_platform_choice(tmp_path: Path) -> None:
    archive = multi_arch(tmp_path)
    result = extract_catalog(archive, tmp_path / "a", platform="linux/arm64")
    assert result.path.read_text() == "arm64"
    assert result.platform == "linux/arm64/v8"
    result = extract_catalog(archive, tmp_path / "b", platform="linux/aarch64/v8")
    assert result.path.read_text() == "arm64"
    result = extract_catalog(archive, tmp_path / "c", platform="linux/ppc64le")
    assert result.path.read_text() == "ppc64le"
    with pytest.raises(InputError, match=r"no image for platform linux/s390x \(platforms: "):
        open_image(archive, platform="linux/s390x")
    with pytest.raises(InputError, match="invalid platform"):
        open_image(archive, platform="amd64")


def test_without_amd64_the_first_image_is_chosen(tmp_path: Path) -> None:
    layout = Layout()
    first = layout.image(Img([db_layer("s390x")], arch="s390x"))
    second = layout.image(Img([db_layer("arm64")], arch="arm64"))
    archive = layout.write_tar(tmp_path / "x.tar", [first, second])
    assert extract_catalog(archive, tmp_path / "out").path.read_text() == "s390x"


def test_several_tags_select_by_ref(tmp_path: Path) -> None:
    layout = Layout()
    tag = "org.opencontainers.image.ref.name"
    v1 = layout.image(Img([db_layer("v1")]), annotations={tag: "example.com/index:v1"})
    v2 = layout.image(Img([db_layer("v2")]), annotations={tag: "example.com/index:v2"})
    archive = layout.write_tar(tmp_path / "tags.tar", [v1, v2])
    assert extract_catalog(archive, tmp_path / "a").path.read_text() == "v1"
    result = extract_catalog(archive, tmp_path / "b", ref="example.com/index:v2")
    assert result.path.read_text() == "v2"
    with pytest.raises(InputError, match=r"no image named nope \(images: example.com/index:v1"):
        open_image(archive, ref="nope")


def test_nested_index_with_missing_blob(tmp_path: Path) -> None:
    layout = Layout()
    inner = layout.index([{"mediaType": OCI_INDEX, "digest": sha(b"missing"), "size": 7}])
    archive = layout.write_tar(tmp_path / "x.tar", [inner])
    with pytest.raises(InputError, match="missing blob sha256:"):
        open_image(archive)


# ------------------------------------------------------------------------------------------------
# Other archive forms


def test_oci_layout_directory(tmp_path: Path) -> None:
    layout = Layout()
    root = layout.write_dir(tmp_path / "layout", [layout.image(Img([db_layer("dir")]))])
    assert is_image_archive(root)
    with open_image(root) as img:
        assert img.format == "oci-layout"
    assert extract_catalog(root, tmp_path / "out").path.read_text() == "dir"


def test_gzipped_oci_archive(tmp_path: Path) -> None:
    layout = Layout()
    archive = layout.write_tar(
        tmp_path / "img.oci.tar.gz", [layout.image(Img([db_layer("gz")]))], gz=True
    )
    assert is_image_archive(archive)
    assert extract_catalog(archive, tmp_path / "out").path.read_text() == "gz"


def test_docker_save_legacy(tmp_path: Path) -> None:
    archive = docker_save(
        tmp_path / "save.tar",
        [
            (Img([db_layer("one")], arch="arm64"), ["example.com/index:arm"]),
            (Img([db_layer("v1"), db_layer("v2")]), ["example.com/index:v2", "index:latest"]),
        ],
    )
    assert is_image_archive(archive)
    with open_image(archive) as img:
        assert img.format == "docker-archive"
        assert img.refs == ("example.com/index:v2", "index:latest")
        assert img.manifest_digest is None
        assert img.labels == {DATABASE_LABEL: DB}
        assert [layer.diff_id for layer in img.layers] == [
            sha(db_layer("v1")),
            sha(db_layer("v2")),
        ]
    result = extract_catalog(archive, tmp_path / "out")
    assert result.path.read_text() == "v2"
    assert_only(tmp_path / "out", DB)
    result = extract_catalog(archive, tmp_path / "arm", ref="example.com/index:arm")
    assert result.path.read_text() == "one"


def test_docker_save_legacy_corrupt_layer(tmp_path: Path) -> None:
    archive = docker_save(tmp_path / "save.tar", [(Img([db_layer("v1")]), ["i:1"])])
    with tarfile.open(archive) as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}  # type: ignore[union-attr]
    name = next(n for n in files if n.endswith("layer.tar"))
    files[name] = db_layer("v9")  # same size, other content
    write_archive(archive, files)
    with pytest.raises(InputError, match="digest mismatch for layer 0"):
        extract_catalog(archive, tmp_path / "out")


def test_docker_save_with_oci_layout(tmp_path: Path) -> None:
    # docker >= 25: index.json + blobs and a manifest.json pointing at the same blobs.
    layout = Layout()
    img = Img([db_layer("new")], compression="none")
    desc = layout.image(
        img, annotations={"io.containerd.image.name": "docker.io/library/index:new"}
    )
    manifest = json.loads(layout.blobs[desc["digest"]])
    legacy = [
        {
            "Config": "blobs/sha256/" + manifest["config"]["digest"].split(":")[1],
            "RepoTags": ["index:new"],
            "Layers": [
                "blobs/sha256/" + layer["digest"].split(":")[1] for layer in manifest["layers"]
            ],
        }
    ]
    archive = layout.write_tar(
        tmp_path / "save.tar", [desc], extra={"manifest.json": json.dumps(legacy).encode()}
    )
    with open_image(archive) as opened:
        assert opened.format == "oci-archive"
        assert opened.refs == ("docker.io/library/index:new",)
    assert extract_catalog(archive, tmp_path / "out").path.read_text() == "new"
    # Without index.json the legacy manifest.json (with blobs/sha256 paths) is used.
    with tarfile.open(archive) as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}  # type: ignore[union-attr]
    del files["index.json"], files["oci-layout"]
    write_archive(archive, files)
    with open_image(archive) as opened:
        assert opened.format == "docker-archive"
        assert opened.layers[0].digest == manifest["layers"][0]["digest"]
    assert extract_catalog(archive, tmp_path / "legacy").path.read_text() == "new"


# ------------------------------------------------------------------------------------------------
# Links and hostile archives


def test_symlinked_db_is_materialised_as_a_file(tmp_path: Path) -> None:
    img = Img(
        [
            mk_tar([f("data/real.db", "real"), f("data/other", "x")]),
            mk_tar([d("database"), sym("database/index.db", "../data/real.db")]),
        ]
    )
    result = extract_catalog(one_image(tmp_path, img), tmp_path / "out")
    assert not result.path.is_symlink()
    assert result.path.read_text() == "real"
    assert_only(tmp_path / "out", DB)


def test_symlinked_parent_dir_absolute_target(tmp_path: Path) -> None:
    img = Img([mk_tar([f("var/lib/cat/index.db", "deep"), sym("database", "/var/lib/cat")])])
    result = extract_catalog(one_image(tmp_path, img), tmp_path / "out")
    assert result.path.read_text() == "deep"
    assert_only(tmp_path / "out", DB)


def test_hardlinked_db_outside_label_path(tmp_path: Path) -> None:
    img = Img([mk_tar([f("data/real.db", "linked"), hard("database/index.db", "data/real.db")])])
    result = extract_catalog(one_image(tmp_path, img), tmp_path / "out")
    assert result.path.read_text() == "linked"
    assert_only(tmp_path / "out", DB)


def test_links_inside_configs_dir(tmp_path: Path) -> None:
    img = Img(
        [
            mk_tar(
                [
                    f("configs/a/catalog.json", fbc("a")),
                    sym("configs/b", "a"),
                    hard("configs/c.json", "configs/a/catalog.json"),
                    f("shared/x.json", fbc("x")),
                    sym("configs/x.json", "/shared/x.json"),
                ]
            )
        ],
        labels={CONFIGS_LABEL: "/configs"},
    )
    result = extract_catalog(one_image(tmp_path, img), tmp_path / "out")
    assert (result.path / "b" / "catalog.json").read_text() == fbc("a")
    assert (result.path / "c.json").read_text() == fbc("a")
    assert (result.path / "x.json").read_text() == fbc("x")
    assert_only(tmp_path / "out", "/configs")


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([f("../evil", "x")], r"path '?\.\./evil'? with '\.\.' rejected"),
        ([f("database/../../evil", "x")], "with '..' rejected"),
        ([f("/abs/evil", "x")], "absolute path /abs/evil rejected"),
        ([sym("database/index.db", "../../../../etc/passwd")], "escapes the image root"),
        ([hard("database/index.db", "../../etc/passwd")], "escapes the layer"),
        ([hard("database/index.db", "/etc/passwd")], "escapes the layer"),
        ([sym("database/index.db", "loop"), sym("database/loop", "index.db")], "too many levels"),
        ([sym("configs", "/")], "resolves to the image root"),
        ([fifo("database/index.db")], "device or fifo"),
    ],
)
def test_hostile_layers_rejected(
    tmp_path: Path, entries: list[tuple[str, str, bytes | str]], message: str
) -> None:
    labels = {CONFIGS_LABEL: "/configs"} if entries[0][1] == "configs" else {DATABASE_LABEL: DB}
    img = Img([db_layer("v1") if labels.get(DATABASE_LABEL) else mk_tar([]), mk_tar(entries)])
    img.labels = labels
    archive = one_image(tmp_path, img)
    dest = tmp_path / "deep" / "out"
    with pytest.raises(InputError, match=message) as err:
        extract_catalog(archive, dest)
    assert str(archive) in str(err.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep", "img.oci.tar"]
    assert list((tmp_path / "deep").iterdir()) == []


def test_symlink_escaping_dest_is_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    planted = mk_tar([sym("database", str(outside))])
    # A later layer writing through the planted link is refused...
    img = Img([planted, mk_tar([f("database/index.db", "x")])])
    with pytest.raises(InputError, match="lies under database, which is a symlink"):
        extract_catalog(one_image(tmp_path, img), tmp_path / "a")
    # ...while one that re-creates database/ as a directory replaces the link (OCI semantics).
    img = Img([planted, db_layer("x")])
    result = extract_catalog(one_image(tmp_path, img, name="b.tar"), tmp_path / "b")
    assert result.path.read_text() == "x"
    assert_only(tmp_path / "b", DB)
    assert list(outside.iterdir()) == []


def test_label_path_with_dotdot_rejected(tmp_path: Path) -> None:
    img = Img([db_layer("x")], labels={DATABASE_LABEL: "/database/../../index.db"})
    with pytest.raises(InputError, match=r"contains '\.\.'"):
        extract_catalog(one_image(tmp_path, img), tmp_path / "out")


def test_layer_digest_mismatch_names_the_blob(tmp_path: Path) -> None:
    layout = Layout()
    desc = layout.image(Img([db_layer("good")], compression="none"))
    layer = json.loads(layout.blobs[desc["digest"]])["layers"][0]
    layout.blobs[layer["digest"]] = db_layer("evil")  # same size, different bytes
    archive = layout.write_tar(tmp_path / "x.tar", [desc])
    with pytest.raises(InputError, match=f"digest mismatch for blob {layer['digest']}"):
        extract_catalog(archive, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_gzip_layer_digest_mismatch(tmp_path: Path) -> None:
    layout = Layout()
    desc = layout.image(Img([db_layer("good")]))
    layer = json.loads(layout.blobs[desc["digest"]])["layers"][0]
    blob = bytearray(layout.blobs[layer["digest"]])
    blob[-12] ^= 0xFF  # inside the deflate data / crc: corrupt either way
    layout.blobs[layer["digest"]] = bytes(blob)
    with pytest.raises(InputError, match=f"digest mismatch for blob {layer['digest']}"):
        extract_catalog(layout.write_tar(tmp_path / "x.tar", [desc]), tmp_path / "out")


def test_config_and_manifest_digest_mismatch(tmp_path: Path) -> None:
    layout = Layout()
    desc = layout.image(Img([db_layer("x")]))
    config_digest = json.loads(layout.blobs[desc["digest"]])["config"]["digest"]
    original = layout.blobs[config_digest]
    layout.blobs[config_digest] = original.replace(b"amd64", b"amd99")
    with pytest.raises(InputError, match=f"digest mismatch for blob {config_digest}"):
        open_image(layout.write_tar(tmp_path / "a.tar", [desc]))
    layout.blobs[config_digest] = original
    layout.blobs[desc["digest"]] = layout.blobs[desc["digest"]] + b" "
    with pytest.raises(InputError, match=f"size mismatch for {desc['digest']}"):
        open_image(layout.write_tar(tmp_path / "b.tar", [desc]))


def test_missing_blob(tmp_path: Path) -> None:
    layout = Layout()
    desc = layout.image(Img([db_layer("x")]))
    layer = json.loads(layout.blobs[desc["digest"]])["layers"][0]
    del layout.blobs[layer["digest"]]
    with pytest.raises(InputError, match=f"missing blob {layer['digest']}"):
        extract_catalog(layout.write_tar(tmp_path / "x.tar", [desc]), tmp_path / "out")


def test_no_catalog_label_lists_labels(tmp_path: Path) -> None:
    img = Img([db_layer("x")], labels={"maintainer": "me", "io.k8s.name": "y"})
    with pytest.raises(
        InputError, match=r"no catalog label .*labels found: io.k8s.name, maintainer"
    ):
        extract_catalog(one_image(tmp_path, img), tmp_path / "out")
    img = Img([db_layer("x")], labels={})
    with pytest.raises(InputError, match=r"labels found: none"):
        extract_catalog(one_image(tmp_path, img, name="b.tar"), tmp_path / "out")


def test_label_path_not_in_layers(tmp_path: Path) -> None:
    img = Img([mk_tar([f("etc/passwd", "root")])])
    with pytest.raises(InputError, match=r"label path /database/index.db is not present"):
        extract_catalog(one_image(tmp_path, img), tmp_path / "out")


def test_label_kind_mismatch(tmp_path: Path) -> None:
    img = Img([mk_tar([f("database/index.db/x", "x")])])
    with pytest.raises(InputError, match="is a directory, not a DB file"):
        extract_catalog(one_image(tmp_path, img), tmp_path / "out")


def test_not_an_archive(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    plain_tar = tmp_path / "plain.tar"
    write_archive(plain_tar, {"README": b"x"})
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    for path in (text, plain_tar, empty_dir):
        assert not is_image_archive(path)
        with pytest.raises(InputError, match="not an image archive") as err:
            open_image(path)
        assert str(path) in str(err.value)
    assert not is_image_archive(tmp_path / "nope")
    with pytest.raises(InputError, match="does not exist"):
        open_image(tmp_path / "nope")


def test_layout_without_index_json(tmp_path: Path) -> None:
    root = tmp_path / "layout"
    root.mkdir()
    (root / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
    assert is_image_archive(root)
    with pytest.raises(InputError, match=r"missing index\.json"):
        open_image(root)


def test_dest_dir_must_be_empty(tmp_path: Path) -> None:
    archive = one_image(tmp_path, Img([db_layer("x")]))
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "keep").write_text("mine")
    with pytest.raises(OutputError, match="not an empty directory"):
        extract_catalog(archive, dest)
    assert (dest / "keep").read_text() == "mine"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert extract_catalog(archive, empty).path.read_text() == "x"


# ------------------------------------------------------------------------------------------------
# Several directories in one pass (a bundle image's manifests/ and metadata/)

BUNDLE_DIRS = ("manifests", "metadata")


def count_layer_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The indexes of the layers streamed (each one inflated and hashed in full)."""
    seen: list[int] = []
    original = image_mod.ImageArchive._layer_tar

    def counting(self: image_mod.ImageArchive, layer: image_mod.Layer) -> Any:
        seen.append(layer.index)
        return original(self, layer)

    monkeypatch.setattr(image_mod.ImageArchive, "_layer_tar", counting)
    return seen


def inflations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per gzip stream opened, with the bytes it gave (all of them: tarfile's
    ``r:*`` probe of the archive itself counts too)."""
    opened: list[int] = []

    class Counting(gzip.GzipFile):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            opened.append(0)

        def read(self, size: int | None = -1) -> bytes:
            data = super().read(size)
            opened[-1] += len(data)
            return data

    monkeypatch.setattr(image_mod.gzip, "GzipFile", Counting)
    return opened


def files_under(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_both_directories_from_one_pass_inflate_each_layer_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layers = [
        mk_tar([d("manifests"), f("manifests/csv.yaml", "csv-1"), f("etc/passwd", "root")]),
        mk_tar([d("metadata"), f("metadata/annotations.yaml", "a: 1"), f("usr/big", "x" * 5000)]),
        mk_tar([f("manifests/crd.yaml", "crd"), f("metadata/extra.yaml", "e")]),
    ]
    archive = one_image(tmp_path, Img(layers, labels={"bundle": "x"}))
    streamed = count_layer_reads(monkeypatch)
    gunzipped = inflations(monkeypatch)
    dest = tmp_path / "bundle"
    dest.mkdir()
    with open_image(archive) as img:
        outs = img.extract_directories(BUNDLE_DIRS, dest)
    assert outs == [dest / "manifests", dest / "metadata"]
    assert streamed == [0, 1, 2]
    # Each layer inflated in full, once (tarfile's probe of the outer archive inflates nothing).
    assert [n for n in gunzipped if n] == [len(t) for t in layers]
    assert files_under(dest) == {
        "manifests/crd.yaml": "crd",
        "manifests/csv.yaml": "csv-1",
        "metadata/annotations.yaml": "a: 1",
        "metadata/extra.yaml": "e",
    }
    assert sorted(p.name for p in dest.iterdir()) == ["manifests", "metadata"]  # no scratch left
    assert not any(p.is_symlink() for p in dest.rglob("*"))


def test_one_directory_at_a_time_reads_every_layer_for_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What extract_directory (one path) does, for contrast with the one-pass call above.
    layers = [mk_tar([f("manifests/a.yaml", "a"), f("metadata/b.yaml", "b")]), mk_tar([d("x")])]
    archive = one_image(tmp_path, Img(layers, labels={"bundle": "x"}))
    streamed = count_layer_reads(monkeypatch)
    with open_image(archive) as img:
        for part in BUNDLE_DIRS:
            img.extract_directory(part, tmp_path / part)
    assert streamed == [0, 1, 0, 1]
    assert (tmp_path / "manifests" / "a.yaml").read_text() == "a"
    assert (tmp_path / "metadata" / "b.yaml").read_text() == "b"


def test_whiteouts_across_layers_apply_to_both_directories(tmp_path: Path) -> None:
    layers = [
        mk_tar(
            [
                d("manifests"),
                f("manifests/old-csv.yaml", "old"),
                f("manifests/keep.yaml", "keep"),
                d("metadata"),
                f("metadata/annotations.yaml", "v1"),
                f("metadata/stale.yaml", "stale"),
            ]
        ),
        # Deletes one manifest, hides metadata's lower content; its own new file survives.
        mk_tar(
            [
                f("manifests/.wh.old-csv.yaml"),
                f("metadata/annotations.yaml", "v2"),
                f("metadata/.wh..wh..opq"),
            ]
        ),
        mk_tar([f("manifests/new-csv.yaml", "new"), f("manifests/.wh.keep.yaml")]),
        mk_tar([f("manifests/keep.yaml", "back")]),  # re-added above its whiteout
    ]
    archive = one_image(tmp_path, Img(layers, labels={"bundle": "x"}))
    dest = tmp_path / "out"
    dest.mkdir()
    with open_image(archive) as img:
        img.extract_directories(BUNDLE_DIRS, dest)
    one_at_a_time = tmp_path / "single"
    one_at_a_time.mkdir()
    with open_image(archive) as img:
        for part in BUNDLE_DIRS:
            img.extract_directory(part, one_at_a_time / part)
    assert files_under(dest) == {
        "manifests/keep.yaml": "back",
        "manifests/new-csv.yaml": "new",
        "metadata/annotations.yaml": "v2",
    }
    assert files_under(one_at_a_time) == files_under(dest)


def test_links_between_the_directories_resolve_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layers = [
        mk_tar(
            [
                f("metadata/annotations.yaml", "ann"),
                sym("manifests/ann-link.yaml", "../metadata/annotations.yaml"),
                hard("manifests/hard.yaml", "metadata/annotations.yaml"),
                f("shared/crd.yaml", "crd"),
                sym("manifests/crd.yaml", "/shared/crd.yaml"),  # outside both: a second pass
            ]
        )
    ]
    archive = one_image(tmp_path, Img(layers, labels={"bundle": "x"}))
    streamed = count_layer_reads(monkeypatch)
    dest = tmp_path / "out"
    dest.mkdir()
    with open_image(archive) as img:
        img.extract_directories(BUNDLE_DIRS, dest)
    assert streamed == [0, 0]  # the pass that found /shared, then the one that keeps it
    assert files_under(dest) == {
        "manifests/ann-link.yaml": "ann",
        "manifests/crd.yaml": "crd",
        "manifests/hard.yaml": "ann",
        "metadata/annotations.yaml": "ann",
    }
    assert not any(p.is_symlink() for p in dest.rglob("*"))


@pytest.mark.parametrize(
    ("layers", "message"),
    [
        # Named in the order asked for, as one directory at a time names them.
        ([mk_tar([f("metadata/a.yaml", "a")])], r"label path /manifests is not present"),
        ([mk_tar([f("manifests/a.yaml", "a")])], r"label path /metadata is not present"),
        (
            [mk_tar([f("manifests/a", "a"), f("metadata/a", "a")]), mk_tar([f(".wh.metadata")])],
            r"label path /metadata was deleted by a whiteout in layer 1 \(sha256:",
        ),
        ([mk_tar([f("manifests/a", "a"), f("metadata", "a file")])], r"/metadata is a file"),
        (
            [mk_tar([f("manifests/a", "a"), sym("metadata/x", "../../../etc")])],
            r"link under metadata escapes the image root",
        ),
        ([mk_tar([f("manifests/a", "a"), fifo("metadata/p")])], r"metadata/p is a device or fifo"),
        (
            [mk_tar([f("manifests/a", "a"), sym("metadata/x", "/nowhere")])],
            r"link metadata/x under metadata points to /nowhere, which does not exist",
        ),
    ],
)
def test_one_pass_errors_name_the_image_and_the_directory(
    tmp_path: Path, layers: list[bytes], message: str
) -> None:
    archive = one_image(tmp_path, Img(layers, labels={"bundle": "x"}))
    dest = tmp_path / "out"
    dest.mkdir()
    with open_image(archive) as img, pytest.raises(InputError, match=message) as err:
        img.extract_directories(BUNDLE_DIRS, dest)
    assert str(err.value).startswith(f"{archive}: ")
    assert list(dest.iterdir()) == []  # nothing half-written is left
    single = tmp_path / "single"
    single.mkdir()
    with open_image(archive) as img, pytest.raises(InputError) as alone:
        for part in BUNDLE_DIRS:
            img.extract_directory(part, single / part)
    assert str(alone.value) == str(err.value)


def test_one_pass_keeps_the_decompression_budget(tmp_path: Path) -> None:
    # Two layers of 1.5 MB each: within a 2 MB image budget one at a time, not together; one
    # pass counts both layers against it, as each single-directory pass does.
    pad = b"\0" * 1_500_000
    layers = [mk_tar([f("manifests/a", "a"), f("pad1", pad)]), mk_tar([f("metadata/b", pad)])]
    archive = one_image(tmp_path, Img(layers, labels={"bundle": "x"}))
    dest = tmp_path / "out"
    dest.mkdir()
    small = dataclasses.replace(safe.limits(), max_archive_size=2_000_000)
    with safe.using(small), open_image(archive) as img:
        with pytest.raises(InputError, match=r"layer 1 \(sha256:.*decompression bomb"):
            img.extract_directories(BUNDLE_DIRS, dest)
        assert list(dest.iterdir()) == []
        with pytest.raises(InputError, match=r"layer 1 \(sha256:.*decompression bomb"):
            img.extract_directory("manifests", tmp_path / "single")


def test_directories_already_there_are_refused(tmp_path: Path) -> None:
    archive = one_image(tmp_path, Img([mk_tar([f("manifests/a", "a"), f("metadata/b", "b")])]))
    dest = tmp_path / "out"
    (dest / "metadata").mkdir(parents=True)
    with open_image(archive) as img, pytest.raises(OutputError, match="metadata: already exists"):
        img.extract_directories(BUNDLE_DIRS, dest)
    assert [p.name for p in dest.iterdir()] == ["metadata"]
    with open_image(archive) as img, pytest.raises(InputError, match="not a directory path"):
        img.extract_directories(("manifests", "/"), tmp_path)
