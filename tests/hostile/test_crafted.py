"""Crafted hostile inputs against every reader and command, each in a subprocess with 1 GiB of
address space and a timeout (issue 12).

Every case asserts: the expected exit status (1 or 2 with exactly one stderr line and no traceback
for refusals), nothing written outside OUT, nothing left in TMPDIR, the input byte for byte
unchanged. Refusals must also be quick: a bounded reader gives up early, it does not work through
the bomb first.
"""

from __future__ import annotations

import json
import os
import random
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import hostile_inputs as make
from tests.support.hostile import Result, Sandbox, assert_one_line_failure

Args = list[str]


@dataclass(frozen=True)
class Case:
    build: Callable[[Sandbox], list[Args]]  # builds the input; returns the command lines to run
    expect: str = "error"  # "error": one-line refusal; "ok": success
    match: str = ""  # regex the stderr line must match (error) or contain (ok: a warning)
    env: tuple[tuple[str, str], ...] = ()


CASES: dict[str, Case] = {}


def case(
    name: str, expect: str = "error", match: str = "", env: dict[str, str] | None = None
) -> Callable[[Callable[[Sandbox], list[Args]]], Callable[[Sandbox], list[Args]]]:
    def register(build: Callable[[Sandbox], list[Args]]) -> Callable[[Sandbox], list[Args]]:
        CASES[name] = Case(build, expect, match, tuple((env or {}).items()))
        return build

    return register


def readers_of_fbc(ref: str) -> list[Args]:
    """Every command that reads an FBC."""
    return [
        ["validate", ref],
        ["images", ref],
        ["render-graph", ref],
        ["query", ref, "packages"],
        ["filter", ref, "out"],
        ["diff", ref, ref],
        ["mirror", "plan", ref, "mirror.example.com", "out"],
    ]


def readers_of_pkgman(ref: str) -> list[Args]:
    return [
        ["migrate", "pkgman", ref, "out"],
        ["migrate", "pkgman", ref],
        ["validate", ref],
        ["images", ref],
        ["filter", ref, "out"],
    ]


# -- YAML bombs and depth --------------------------------------------------------------------------


@case("alias-bomb-package-yaml", match="alias")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    path = tree / "world-operator" / "world-operator.package.yaml"
    path.write_text(path.read_text() + make.alias_bomb())
    return [*readers_of_pkgman("input/m"), ["convert", "pkgman-to-bundles", "input/m", "out"]]


@case("alias-bomb-csv", match="alias")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    csv = tree / "world-operator" / "1.0.0" / "world-operator.v1.0.0.clusterserviceversion.yaml"
    csv.write_text(csv.read_text() + make.alias_bomb(key="x"))
    return readers_of_pkgman("input/m")


@case("merge-key-bomb-csv", match="alias")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    csv = tree / "world-operator" / "1.0.0" / "world-operator.v1.0.0.clusterserviceversion.yaml"
    csv.write_text(csv.read_text() + make.merge_bomb())
    return [["migrate", "pkgman", "input/m", "out"]]


@case("alias-bomb-annotations-yaml", match="alias")
def _(box: Sandbox) -> list[Args]:
    bundle = make.bundle_dir(box.input / "b" / "op" / "1.0.0")
    annotations = bundle / "metadata" / "annotations.yaml"
    annotations.write_text(annotations.read_text() + make.alias_bomb())
    return readers_of_pkgman("input/b")


for _name in ("dependencies.yaml", "properties.yaml"):

    def _build(box: Sandbox, name: str = _name) -> list[Args]:
        bundle = make.bundle_dir(box.input / "b" / "op" / "1.0.0")
        (bundle / "metadata" / name).write_text(make.alias_bomb())
        return [["migrate", "pkgman", "input/b", "out"], ["validate", "input/b"]]

    case(f"alias-bomb-{_name}", match="alias")(_build)


@case("alias-bomb-ci-yaml", expect="ok", match="(an alias bomb?)")
def _(box: Sandbox) -> list[Args]:
    # ci.yaml (operator pipelines' settings file) sits beside bundles; it is no manifest (issue
    # 29), only its updateGraph is read: the bomb is refused, never expanded, and the package
    # is built in the default mode with a warning.
    make.bundle_dir(box.input / "b" / "op" / "1.0.0")
    ci = box.input / "b" / "op" / "ci.yaml"
    ci.write_text("updateGraph: replaces-mode\n" + make.alias_bomb())
    return [["migrate", "pkgman", "input/b", "out"]]


@case("alias-bomb-fbc-yaml", match="alias")
def _(box: Sandbox) -> list[Args]:
    (box.input / "c").mkdir()
    (box.input / "c" / "catalog.yaml").write_text(
        "schema: olm.package\nname: bomb\n" + make.alias_bomb()
    )
    return readers_of_fbc("input/c")


@case("alias-bomb-fbc-yaml-stdin", match="alias")
def _(box: Sandbox) -> list[Args]:
    return [["validate", "-"], ["images", "-"]]


@case("alias-bomb-image-set-config", match="alias")
def _(box: Sandbox) -> list[Args]:
    make.fbc_tree(box.input / "c")
    (box.input / "isc.yaml").write_text(
        "apiVersion: mirror.openshift.io/v2alpha1\nkind: ImageSetConfiguration\n"
        + make.alias_bomb()
    )
    return [["filter", "input/c", "out", "--image-set-config", "input/isc.yaml"]]


@case("alias-bomb-inventory", match="alias")
def _(box: Sandbox) -> list[Args]:
    make.fbc_tree(box.input / "c")
    (box.input / "installed.yaml").write_text("apiVersion: v1\nkind: List\n" + make.alias_bomb())
    return [["upgrade-check", "input/c", "input/c", "--installed", "input/installed.yaml"]]


@case("fifo-as-inventory-and-image-set-config", match="FIFO")
def _(box: Sandbox) -> list[Args]:
    make.fbc_tree(box.input / "c")
    os.mkfifo(box.input / "installed.yaml")
    os.mkfifo(box.input / "isc.yaml")
    return [
        ["upgrade-check", "input/c", "input/c", "--installed", "input/installed.yaml"],
        ["filter", "input/c", "out", "--image-set-config", "input/isc.yaml"],
    ]


@case("recursive-alias", match="contains it")
def _(box: Sandbox) -> list[Args]:
    (box.input / "c").mkdir()
    (box.input / "c" / "catalog.yaml").write_text("schema: olm.package\nname: a\nx: &a [*a]\n")
    return [["validate", "input/c"], ["images", "input/c"]]


@case("deep-yaml-flow", match="nested deeper than 256")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    csv = tree / "world-operator" / "1.0.0" / "world-operator.v1.0.0.clusterserviceversion.yaml"
    csv.write_text(csv.read_text() + make.deep_flow_yaml())
    (box.input / "c").mkdir()
    (box.input / "c" / "catalog.yaml").write_text(make.deep_flow_yaml())
    return [["migrate", "pkgman", "input/m", "out"], ["validate", "input/c"]]


@case("deep-yaml-block", match="nested deeper than 256")
def _(box: Sandbox) -> list[Args]:
    bundle = make.bundle_dir(box.input / "b" / "op" / "1.0.0")
    (bundle / "manifests" / "deep.yaml").write_text(make.deep_block_yaml())
    (box.input / "c").mkdir()
    (box.input / "c" / "catalog.yaml").write_text(make.deep_block_yaml())
    return [["migrate", "pkgman", "input/b", "out"], ["images", "input/c"]]


@case("deep-json-fbc", match="nested deeper than 256")
def _(box: Sandbox) -> list[Args]:
    (box.input / "c").mkdir()
    (box.input / "c" / "catalog.json").write_text(make.deep_json())
    return readers_of_fbc("input/c")


@case("deep-json-in-yaml-reader", match="nested deeper than 256")
def _(box: Sandbox) -> list[Args]:
    bundle = make.bundle_dir(box.input / "b" / "op" / "1.0.0")
    (bundle / "manifests" / "deep.json").write_text(make.deep_json(5000))
    return [["migrate", "pkgman", "input/b", "out"]]


@case("json-integer-over-4300-digits", match="digits")
def _(box: Sandbox) -> list[Args]:
    (box.input / "c").mkdir()
    (box.input / "c" / "catalog.json").write_text(
        '{"schema": "olm.package", "name": "n", "x": ' + "9" * 5000 + "}\n"
    )
    return readers_of_fbc("input/c")


@case("yaml-integer-over-4300-digits", match="digits")
def _(box: Sandbox) -> list[Args]:
    (box.input / "c").mkdir()
    (box.input / "c" / "catalog.yaml").write_text(
        "schema: olm.package\nname: big\nx: " + "9" * 5000 + "\n"
    )
    bundle = make.bundle_dir(box.input / "b" / "op" / "1.0.0")
    (bundle / "metadata" / "properties.yaml").write_text("properties: " + "9" * 5000 + "\n")
    return [["images", "input/c"], ["migrate", "pkgman", "input/b", "out"]]


# -- symbolic links --------------------------------------------------------------------------------

SECRET = """apiVersion: v1
kind: Secret
metadata:
  name: stolen
data:
  token: c2VjcmV0
"""


def outside_secret(box: Sandbox) -> Path:
    secret = box.outside / "secret.yaml"
    secret.write_text(SECRET)
    return secret


@case("symlinked-manifest-outside", match=r"secret\.yaml.*leads outside")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    target = outside_secret(box)
    (tree / "world-operator" / "1.0.0" / "secret.yaml").symlink_to(target)
    return [
        *readers_of_pkgman("input/m"),
        ["migrate", "pkgman", "input/m/world-operator", "out"],
        ["convert", "pkgman-to-bundles", "input/m", "out"],
    ]


@case("symlinked-version-dir-outside", match="leads outside")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    elsewhere = box.outside / "2.0.0"
    elsewhere.mkdir()
    (elsewhere / "kubeconfig.yaml").write_text(SECRET)
    (tree / "world-operator" / "2.0.0").symlink_to(elsewhere, target_is_directory=True)
    return [["migrate", "pkgman", "input/m", "out"], ["validate", "input/m"]]


@case("symlinked-bundle-metadata-outside", match="leads outside")
def _(box: Sandbox) -> list[Args]:
    bundle = make.bundle_dir(box.input / "b" / "op" / "1.0.0")
    elsewhere = box.outside / "meta"
    (bundle / "metadata").rename(elsewhere)
    (bundle / "metadata").symlink_to(elsewhere, target_is_directory=True)
    return [["migrate", "pkgman", "input/b", "out"]]


@case("symlinked-fbc-file-outside", match="leads outside")
def _(box: Sandbox) -> list[Args]:
    catalog = make.fbc_tree(box.input / "c")
    outside = box.outside / "catalog.json"
    (catalog / "world-operator" / "catalog.json").rename(outside)
    (catalog / "world-operator" / "catalog.json").symlink_to(outside)
    return readers_of_fbc("input/c")


@case("symlinked-fbc-dir-outside", match="leads outside")
def _(box: Sandbox) -> list[Args]:
    catalog = make.fbc_tree(box.input / "c")
    outside = box.outside / "world"
    (catalog / "world-operator").rename(outside)
    (catalog / "world-operator").symlink_to(outside, target_is_directory=True)
    return [["validate", "input/c"], ["filter", "input/c", "out"]]


@case("dev-zero-as-json", match=r"zero\.json")
def _(box: Sandbox) -> list[Args]:
    catalog = make.fbc_tree(box.input / "c")
    (catalog / "zero.json").symlink_to("/dev/zero")
    return [["validate", "input/c"], ["images", "input/c"]]


@case("symlink-loop-inside", match="loop")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    (tree / "hello-operator" / "again").symlink_to("..", target_is_directory=True)
    return [["migrate", "pkgman", "input/m", "out"]]


def linked_package(box: Sandbox) -> None:
    """input/m/hello-operator -> .store/hello-operator (hidden, so read only through the link)."""
    make.pkgman_tree(box.input / "m" / ".store")
    (box.input / "m" / "hello-operator").symlink_to(
        ".store/hello-operator", target_is_directory=True
    )


@case("no-follow-symlinks-refuses-inside-links", match="--no-follow-symlinks")
def _(box: Sandbox) -> list[Args]:
    linked_package(box)
    return [["migrate", "pkgman", "--no-follow-symlinks", "input/m", "out"]]


# -- special files and sizes -----------------------------------------------------------------------


@case("fifo-named-yaml-in-version-dir", match="FIFO")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    os.mkfifo(tree / "world-operator" / "1.0.0" / "pipe.yaml")
    return [
        ["migrate", "pkgman", "input/m", "out"],
        ["convert", "pkgman-to-bundles", "input/m", "out"],
    ]


@case("fifo-named-json-in-fbc", match="FIFO")
def _(box: Sandbox) -> list[Args]:
    catalog = make.fbc_tree(box.input / "c")
    os.mkfifo(catalog / "pipe.json")
    return [["images", "input/c"], ["filter", "input/c", "out"], ["validate", "input/c"]]


@case("fifo-as-the-catalog", match="FIFO")
def _(box: Sandbox) -> list[Args]:
    os.mkfifo(box.input / "pipe.db")
    os.mkfifo(box.input / "pipe.json")
    return [
        ["migrate", "sqlite", "input/pipe.db", "out"],
        ["validate", "input/pipe.json"],
        ["images", "input/pipe.json"],
    ]


@case(
    "fifo-in-bundle-metadata-is-skipped",
    expect="ok",
    match="FIFO (named pipe), not a regular file; skipped",
)
def _(box: Sandbox) -> list[Args]:
    bundle = make.bundle_dir(box.input / "b" / "op" / "1.0.0")
    os.mkfifo(bundle / "metadata" / "pipe.yaml")
    return [["migrate", "pkgman", "-q", "input/b", "out"]]


@case("file-over-the-size-limit", match="--max-file-size")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    catalog = make.fbc_tree(box.input / "c")
    del tree, catalog
    return [
        ["migrate", "pkgman", "--max-file-size", "1K", "input/m", "out"],
        ["validate", "input/c", "--max-file-size", "1K"],
    ]


# -- image archives --------------------------------------------------------------------------------


@case("oci-layout-blob-linked-outside", match="leads outside")
def _(box: Sandbox) -> list[Args]:
    import tarfile

    db = make.index_db(box.outside / "index.db").read_bytes()
    archive = make.oci_archive(box.outside / "img.tar", make.tar_bytes({"database/index.db": db}))
    layout = box.input / "layout"
    with tarfile.open(archive) as tar:
        tar.extractall(layout, filter="data")
    blobs = sorted((layout / "blobs" / "sha256").iterdir(), key=lambda p: p.stat().st_size)
    layer = blobs[-1]  # the largest blob is the layer
    layer.rename(box.outside / "layer.blob")
    layer.symlink_to(box.outside / "layer.blob")
    return [["migrate", "sqlite", "input/layout", "out"], ["images", "input/layout"]]


@case("layer-decompression-bomb", match="decompression bomb")
def _(box: Sandbox) -> list[Args]:
    make.oci_archive(
        box.input / "bomb.oci.tar", make.zeros_gzip_stream(256 << 20), precompressed=True
    )
    return [
        ["migrate", "sqlite", "input/bomb.oci.tar", "out"],
        ["images", "input/bomb.oci.tar"],
        ["validate", "input/bomb.oci.tar"],
    ]


@case("layer-bomb-under-an-explicit-ratio", match="decompression bomb")
def _(box: Sandbox) -> list[Args]:
    db = make.index_db(box.outside / "index.db").read_bytes()
    layer = make.tar_bytes({"database/index.db": db + bytes(4 << 20)})
    make.oci_archive(box.input / "img.oci.tar", layer)
    return [
        [
            "migrate",
            "sqlite",
            "--max-archive-ratio",
            "2",
            "--max-archive-size",
            "1M",
            "input/img.oci.tar",
            "out",
        ],
    ]


@case("outer-archive-gzip-bomb", match="decompression bomb")
def _(box: Sandbox) -> list[Args]:
    import gzip
    import tarfile

    # A tar whose one member claims 512 MiB of zeros, gzip-compressed as members back to back.
    info = tarfile.TarInfo("padding")
    info.size = 512 << 20
    zeros = gzip.compress(bytes(1 << 20), compresslevel=9, mtime=0)
    head = gzip.compress(info.tobuf(format=tarfile.PAX_FORMAT), mtime=0)
    (box.input / "outer.tar.gz").write_bytes(head + zeros * 512)
    return [["images", "input/outer.tar.gz"], ["migrate", "sqlite", "input/outer.tar.gz", "out"]]


@case("pax-header-bomb", match="extended header|not an image archive")
def _(box: Sandbox) -> list[Args]:
    import gzip

    files = make.tar_bytes({"index.json": b"{}"}, pax_header=64 << 20)
    (box.input / "pax.tar.gz").write_bytes(gzip.compress(files, mtime=0))
    return [["images", "input/pax.tar.gz"]]


@case("random-tar", match="not an image archive")
def _(box: Sandbox) -> list[Args]:
    (box.input / "random.tar").write_bytes(random.Random(452).randbytes(20000))
    (box.input / "empty.tar").write_bytes(b"")
    return [
        ["migrate", "sqlite", "input/random.tar", "out"],
        ["migrate", "sqlite", "input/empty.tar", "out"],
        ["images", "input/random.tar"],
        ["validate", "input/empty.tar"],
    ]


@case("random-bytes-as-database", match="SQLite|binary data")
def _(box: Sandbox) -> list[Args]:
    (box.input / "random.bin").write_bytes(b"\x00\x01" + random.Random(464).randbytes(5000))
    return [["migrate", "sqlite", "input/random.bin", "out"]]


@case("corrupt-db-inside-image", match=r"img\.oci\.tar:/database/index\.db")
def _(box: Sandbox) -> list[Args]:
    db = bytearray(make.index_db(box.outside / "index.db").read_bytes())
    db[4096:8192] = bytes(4096)  # zero the second page
    make.oci_archive(box.input / "img.oci.tar", make.tar_bytes({"database/index.db": bytes(db)}))
    return [["migrate", "sqlite", "input/img.oci.tar", "out"], ["images", "input/img.oci.tar"]]


# -- malformed inputs (issue 12, item 9) -----------------------------------------------------------


@case("package-name-stored-as-blob", match="index.db")
def _(box: Sandbox) -> list[Args]:
    db = make.index_db(box.input / "index.db")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE package SET name = CAST(name AS BLOB)")
        conn.execute("UPDATE channel SET package_name = CAST(package_name AS BLOB)")
    conn.close()
    return [["migrate", "sqlite", "input/index.db", "out"], ["images", "input/index.db"]]


@case("sqlite-master-invalid-utf8", match="index.db")
def _(box: Sandbox) -> list[Args]:
    db = make.index_db(box.input / "index.db")
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE x (a)")
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute(
            "UPDATE sqlite_master SET name = CAST(X'78FF' AS TEXT), tbl_name = CAST(X'78FF' AS "
            "TEXT) WHERE name = 'x'"
        )
    conn.close()
    return [["migrate", "sqlite", "input/index.db", "out"], ["validate", "input/index.db"]]


@case("truncated-db", match="index.db")
def _(box: Sandbox) -> list[Args]:
    db = make.index_db(box.outside / "full.db").read_bytes()
    (box.input / "index.db").write_bytes(db[: len(db) // 2])
    return [["migrate", "sqlite", "input/index.db", "out"], ["images", "input/index.db"]]


@case("channels-is-a-number", match="channels")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    (tree / "world-operator" / "world-operator.package.yaml").write_text(
        "packageName: world-operator\nchannels: 5\n"
    )
    return readers_of_pkgman("input/m")


@case("indexignore-not-utf8", match="UTF-8")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    (tree / ".indexignore").write_bytes(b"\xff\xfe*.md\n")
    catalog = make.fbc_tree(box.input / "c")
    (catalog / ".indexignore").write_bytes(b"\xff\xfe*.md\n")
    return [["migrate", "pkgman", "input/m", "out"], ["images", "input/c"]]


@case("yaml-key-with-nel", match="not valid YAML")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    path = tree / "world-operator" / "world-operator.package.yaml"
    path.write_text(path.read_text() + "k\x85ey: 1\n")
    return [["migrate", "pkgman", "input/m", "out"]]


@case("workers-not-a-number", match="OLMCAT_WORKERS", env={"OLMCAT_WORKERS": "abc"})
def _(box: Sandbox) -> list[Args]:
    make.pkgman_tree(box.input / "m")
    return [["migrate", "pkgman", "input/m", "out"]]


@case("invalid-package-after-a-valid-one-to-stdout", match="currentCSV")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    package = tree / "world-operator" / "world-operator.package.yaml"
    package.write_text(package.read_text().replace("currentCSV: world", "currentCSV: nope"))
    return [["migrate", "pkgman", "input/m"], ["migrate", "pkgman", "input/m", "-"]]


@case("not-yaml-at-all", match="not valid (YAML|JSON)|UTF-8")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    # Fixed bytes, so the case is the same every run (random bytes starting with "{" are JSON).
    junk = random.Random(549).randbytes(3000)
    (tree / "world-operator" / "1.0.0" / "junk.yaml").write_bytes(junk)
    return [["migrate", "pkgman", "input/m", "out"]]


@case("python-tag-in-yaml", match="constructor")
def _(box: Sandbox) -> list[Args]:
    (box.input / "c").mkdir()
    (box.input / "c" / "catalog.yaml").write_text("!!python/object/apply:os.system ['touch x']\n")
    return readers_of_fbc("input/c")


@case("terminal-escapes-in-a-name", match=r"\\(x1b|u001b)")
def _(box: Sandbox) -> list[Args]:
    (box.input / "c").mkdir()
    (box.input / "c" / "catalog.json").write_text(
        json.dumps({"schema": "olm.channel", "name": "c\x1b[2J\nfake", "package": ""}) + "\n"
    )
    return [["images", "input/c"]]


@case("bad-dependency-value-fails-as-opm", match="olm.package")
def _(box: Sandbox) -> list[Args]:
    bundle = make.bundle_dir(box.input / "b" / "op" / "1.0.0")
    (bundle / "metadata" / "dependencies.yaml").write_text(
        "dependencies:\n- type: olm.package\n  value: 5\n"
    )
    return [["migrate", "pkgman", "input/b", "out"]]


# -- oddities that pass with a warning -------------------------------------------------------------


@case("duplicate-yaml-key-warns", expect="ok", match="appears twice")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    path = tree / "world-operator" / "world-operator.package.yaml"
    path.write_text(path.read_text() + "defaultChannel: stable\n" * 2)
    return [["migrate", "pkgman", "-q", "input/m", "out"]]


@case(
    "duplicate-yaml-key-in-a-bundle-manifest-names-the-file",
    expect="ok",
    match="world-operator.v1.0.0.clusterserviceversion.yaml: line",
)
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    path = tree / "world-operator" / "1.0.0" / "world-operator.v1.0.0.clusterserviceversion.yaml"
    path.write_text(path.read_text() + "kind: ClusterServiceVersion\n")
    return [["migrate", "pkgman", "-q", "input/m", "out"]]


@case("yaml-inf-in-a-bundle-manifest-warns", expect="ok", match=".inf")
def _(box: Sandbox) -> list[Args]:
    bundle = make.bundle_dir(box.input / "b" / "op" / "1.0.0")
    (bundle / "manifests" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  v: .inf\n"
    )
    return [["migrate", "pkgman", "-q", "input/b", "out"]]


@case("yaml-inf-fails-where-opm-fails", match="non-finite|\\.inf")
def _(box: Sandbox) -> list[Args]:
    tree = make.pkgman_tree(box.input / "m")
    csv = tree / "world-operator" / "1.0.0" / "world-operator.v1.0.0.clusterserviceversion.yaml"
    csv.write_text(csv.read_text().replace("spec:\n", "spec:\n  replicasHint: .inf\n", 1))
    (box.input / "c").mkdir()
    (box.input / "c" / "catalog.yaml").write_text("schema: olm.package\nname: x\nfoo: .inf\n")
    return [["migrate", "pkgman", "input/m", "out"], ["images", "input/c"]]


@case("bidi-controls-in-package-name-warn", expect="ok", match="bidirectional")
def _(box: Sandbox) -> list[Args]:
    (box.input / "c").mkdir()
    name = "evil\u202egnp.exe"
    version = {"packageName": name, "version": "1.0.0"}
    blobs = [
        {"schema": "olm.package", "name": name, "defaultChannel": "stable"},
        {"schema": "olm.channel", "name": "stable", "package": name, "entries": [{"name": "b.v1"}]},
        {
            "schema": "olm.bundle",
            "name": "b.v1",
            "package": name,
            "image": "x/y:1",
            "properties": [{"type": "olm.package", "value": version}],
        },
    ]
    (box.input / "c" / "catalog.json").write_text("\n".join(json.dumps(b) for b in blobs) + "\n")
    return [["filter", "-q", "input/c", "out"]]


@case("malformed-dependencies-file-warns", expect="ok", match="ignored, as opm ignores it")
def _(box: Sandbox) -> list[Args]:
    bundle = make.bundle_dir(box.input / "b" / "op" / "1.0.0")
    (bundle / "metadata" / "dependencies.yaml").write_text("dependencies: 5\n")
    return [["migrate", "pkgman", "-q", "input/b", "out"]]


# -- running the cases -----------------------------------------------------------------------------

STDIN_CASES = {"alias-bomb-fbc-yaml-stdin": ("schema: olm.package\nname: x\n" + make.alias_bomb())}


def _reset_out(box: Sandbox) -> None:
    import shutil

    for name in ("out",):
        path = box.root / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def test_symlinked_package_dir_inside_the_root_migrates_as_the_real_one(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    linked_package(box)
    (box.input / "link-to-m").symlink_to("m", target_is_directory=True)
    box.seal()
    expected = (make.EXAMPLE / "expected" / "hello-operator" / "catalog.json").read_bytes()
    for root in ("input/m", "input/link-to-m"):
        result = box.run("migrate", "pkgman", "-q", root, "out")
        assert (result.code, result.stderr) == (0, ""), result.describe()
        assert [p.name for p in box.out.iterdir()] == ["hello-operator"]
        assert (box.out / "hello-operator" / "catalog.json").read_bytes() == expected
        assert box.leftovers() == []
        _reset_out(box)


def _run_case(tmp_path: Path, name: str, every_reader: bool) -> None:
    spec = CASES[name]
    box = Sandbox(tmp_path, env=dict(spec.env))
    commands = spec.build(box)
    if not every_reader:
        commands = [commands[0], commands[-1]] if len(commands) > 1 else commands
    box.seal()
    stdin = STDIN_CASES.get(name, "").encode()
    for args in commands:
        result: Result = box.run(*args, stdin=stdin)
        if spec.expect == "error" and args[0] == "validate":
            # validate reports problems on stdout, its verdict on stderr.
            assert_one_line_failure(result, codes=(1,), prefix="")
            shown = result.stdout.decode() + result.stderr
            assert re.search(spec.match, shown), result.describe()
            assert re.match(r"olmcat: error: |.*: invalid\b", result.lines[0]), result.describe()
        elif spec.expect == "error":
            assert_one_line_failure(result)
            assert re.search(spec.match, result.lines[0]), result.describe()
            assert "\x1b" not in result.stderr, "a terminal escape reached stderr"
            assert not (box.root / "out").exists(), f"partial output: {result.describe()}"
            assert result.stdout == b"", f"partial stdout: {result.describe()}"
        else:
            assert result.code == 0, result.describe()
            assert "Traceback" not in result.stderr
            if spec.match:
                assert spec.match in result.stderr, result.describe()
        assert box.leftovers() == [], result.describe()
        _reset_out(box)


@pytest.mark.parametrize("name", sorted(CASES))
def test_crafted_input(tmp_path: Path, name: str) -> None:
    """The first and the last reader of each case (the default suite)."""
    _run_case(tmp_path, name, every_reader=False)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_crafted_input_every_reader(tmp_path: Path, name: str) -> None:
    _run_case(tmp_path, name, every_reader=True)


def test_every_scratch_directory_names_its_process() -> None:
    """Temporary directories must be olmcat-<kind>-<pid>-* (files.safe.scratch_dir), so the next
    run can remove what a killed one left; a bare tempfile.mkdtemp in a reader would leak."""
    from tests.support.paths import ROOT

    offenders = [
        f"{path.relative_to(ROOT)}: {call.group(0)}"
        for path in sorted((ROOT / "src" / "olmcat").rglob("*.py"))
        if path.name != "safe.py"
        for call in re.finditer(r"mkdtemp\((?:[^()]|\([^()]*\))*\)", path.read_text())
        if "dir=" not in call.group(0)  # beside an output or in the cache: swept there
    ]
    assert not offenders, offenders
