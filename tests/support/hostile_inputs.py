"""Builders of small valid catalogs (to break) and of hostile inputs (bombs, deep nesting).

Nothing here uses olmcat's own readers or writers, so the inputs are independent of the code
under test.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shutil
import tarfile
from pathlib import Path

from tests.support.paths import FIXTURES

EXAMPLE = FIXTURES / "example"
DB_LABEL = "operators.operatorframework.io.index.database.v1"
CONFIGS_LABEL = "operators.operatorframework.io.index.configs.v1"


def copy_tree(source: Path, dest: Path) -> Path:
    shutil.copytree(source, dest)
    for path in [dest, *dest.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    return dest


def pkgman_tree(dest: Path) -> Path:
    """Two packages (hello-operator: three versions with CRDs; world-operator: one)."""
    return copy_tree(EXAMPLE / "manifests", dest)


def fbc_tree(dest: Path) -> Path:
    return copy_tree(EXAMPLE / "expected", dest)


def index_db(dest: Path) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(EXAMPLE / "sqlite" / "schema-13.db", dest)
    return dest


CSV_TEMPLATE = """apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: {name}.v{version}
spec:
  version: {version}
  displayName: {name}
  install:
    strategy: deployment
    spec:
      deployments:
      - name: {name}
        spec:
          template:
            spec:
              containers:
              - name: manager
                image: quay.io/example/{name}:v{version}
"""

ANNOTATIONS_TEMPLATE = """annotations:
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.package.v1: {name}
  operators.operatorframework.io.bundle.channels.v1: stable
  operators.operatorframework.io.bundle.channel.default.v1: stable
"""


def bundle_dir(dest: Path, name: str = "bundled-operator", version: str = "1.0.0") -> Path:
    """One bundle-format directory: manifests/ with a CSV, metadata/annotations.yaml."""
    (dest / "manifests").mkdir(parents=True)
    (dest / "metadata").mkdir()
    (dest / "manifests" / f"{name}.clusterserviceversion.yaml").write_text(
        CSV_TEMPLATE.format(name=name, version=version)
    )
    (dest / "metadata" / "annotations.yaml").write_text(ANNOTATIONS_TEMPLATE.format(name=name))
    return dest


def alias_bomb(levels: int = 9, key: str = "lol") -> str:
    """ "Billion laughs": each level is a list of nine aliases of the level below (9**9 leaves)."""
    lines = [f'{key}0: &{key}0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels):
        refs = ", ".join([f"*{key}{level - 1}"] * 9)
        lines.append(f"{key}{level}: &{key}{level} [{refs}]")
    return "\n".join(lines) + "\n"


def merge_bomb(levels: int = 9) -> str:
    """The same through ``<<`` merge keys, which PyYAML flattens before building anything."""
    lines = ["m0: &m0 {k: v}"]
    for level in range(1, levels):
        refs = ", ".join([f"*m{level - 1}"] * 9)
        lines.append(f"m{level}: &m{level}\n  <<: [{refs}]\n  x{level}: 1")
    return "\n".join(lines) + "\n"


def deep_flow_yaml(depth: int = 60_000) -> str:
    return "a: " + "[" * depth + "]" * depth + "\n"


def deep_block_yaml(depth: int = 60_000) -> str:
    """Compact nested sequences: two characters per level on one line."""
    return "- " * depth + "x\n"


def deep_json(depth: int = 100_000) -> str:
    return '{"schema": "olm.package", "name": "deep", "x": ' + "[" * depth + "]" * depth + "}\n"


# -- image archives -------------------------------------------------------------------------------


def tar_bytes(files: dict[str, bytes], *, pax_header: int = 0) -> bytes:
    """A tar of regular files (parent directories implied), in the order given."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            if pax_header:
                info.pax_headers = {"comment": "x" * pax_header}
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def oci_archive(
    dest: Path,
    layer: bytes,
    *,
    label: str = DB_LABEL,
    value: str = "/database/index.db",
    gzip_layer: bool = True,
    precompressed: bool = False,
) -> Path:
    """An oci-archive tar: one image, one layer (gzip-compressed unless told otherwise;
    ``precompressed``: ``layer`` is the gzip blob already, and no diff_id is recorded)."""
    if precompressed:
        blob, diff_ids = layer, []
    else:
        blob = gzip.compress(layer, compresslevel=1, mtime=0) if gzip_layer else layer
        diff_ids = [_digest(layer)]
    config = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            "config": {"Labels": {label: value}},
            "rootfs": {"type": "layers", "diff_ids": diff_ids},
        }
    ).encode()
    media = "application/vnd.oci.image.layer.v1.tar" + ("+gzip" if gzip_layer else "")
    manifest = json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {
                "mediaType": "application/vnd.oci.image.config.v1+json",
                "digest": _digest(config),
                "size": len(config),
            },
            "layers": [{"mediaType": media, "digest": _digest(blob), "size": len(blob)}],
        }
    ).encode()
    index = json.dumps(
        {
            "schemaVersion": 2,
            "manifests": [
                {
                    "mediaType": "application/vnd.oci.image.manifest.v1+json",
                    "digest": _digest(manifest),
                    "size": len(manifest),
                    "platform": {"architecture": "amd64", "os": "linux"},
                }
            ],
        }
    ).encode()
    files = {
        "oci-layout": b'{"imageLayoutVersion": "1.0.0"}',
        "index.json": index,
        **{f"blobs/sha256/{_digest(b)[7:]}": b for b in (config, manifest, blob)},
    }
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(tar_bytes(files))
    return dest


def zeros_gzip_stream(size: int) -> bytes:
    """gzip of a tar holding one file of ``size`` zero bytes (a multiple of 1 MiB), as gzip
    members back to back (valid gzip; built in milliseconds whatever the size)."""
    info = tarfile.TarInfo("database/index.db")
    info.size = size
    header = gzip.compress(info.tobuf(format=tarfile.PAX_FORMAT), mtime=0)
    zeros = gzip.compress(bytes(1 << 20), compresslevel=9, mtime=0)
    trailer = gzip.compress(bytes(1024), mtime=0)
    return header + zeros * (size >> 20) + trailer
