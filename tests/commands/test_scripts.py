"""The mirroring scripts in scripts/, run end to end as a user runs them (bash, olmcat on PATH)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.mirror_checks import check_fbc_directory, oc_key
from tests.support.paths import ROOT, corpus_path

SCRIPTS = ROOT / "scripts"
NAMES = ["mirror-legacy-index.sh", "related-images.sh", "catalog-delta.sh"]
DEST = "mirror.example.com:5000/olm"
INDEX = "quay.io/example/test-index:v1-filtered"
BIN = Path(sys.executable).parent  # the venv's bin directory, where its olmcat lives


def run(
    name: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    if shutil.which("olmcat", path=str(BIN)) is None:
        pytest.skip(f"no olmcat executable next to {sys.executable}; run pip install -e .")
    environment = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    environment.pop("OLMCAT", None)
    environment.update(env or {})
    return subprocess.run(
        ["bash", str(SCRIPTS / name), *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=600,
        check=False,
    )


def olmcat(*args: str) -> str:
    result = subprocess.run(
        [str(BIN / "olmcat"), *args], capture_output=True, text=True, check=True, timeout=600
    )
    return result.stdout


@pytest.mark.parametrize("name", NAMES)
def test_help_and_strict_mode(name: str) -> None:
    text = (SCRIPTS / name).read_text()
    assert text.startswith("#!/usr/bin/env bash\n")
    assert "\nset -euo pipefail\n" in text
    assert os.access(SCRIPTS / name, os.X_OK)
    assert subprocess.run(["bash", "-n", str(SCRIPTS / name)], check=False).returncode == 0
    result = run(name, "--help")
    assert result.returncode == 0
    assert result.stdout.startswith("Usage: " + name)
    assert run(name).returncode == 2  # missing arguments: usage on stderr
    unknown = run(name, "--frobnicate", "a")
    assert unknown.returncode == 2
    assert "unknown option --frobnicate" in unknown.stderr


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_shellcheck() -> None:
    result = subprocess.run(
        ["shellcheck", *(str(SCRIPTS / n) for n in NAMES)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout


def test_mirror_legacy_index_end_to_end(tmp_path: Path) -> None:
    archive = corpus_path("images", "test-index-v1.oci.tar")
    work = tmp_path / "work"
    result = run(
        "mirror-legacy-index.sh",
        "-p", "cert-manager",
        "-p", "couchdb-operator:stable",
        "-p", "kiali:stable@>=1.30.0",
        "--index-image", INDEX,
        str(archive), DEST, str(work),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    manifests = work / "manifests"
    # The filtered catalog is valid and holds what was asked for.
    packages = check_fbc_directory(work / "filtered")
    assert set(packages) == {"cert-manager", "couchdb-operator", "kiali"}
    assert list(packages["couchdb-operator"]["channels"]) == ["stable"]
    assert "default channel v1.4 is filtered out" in result.stderr
    # images.txt is `olmcat images --unique` of the filtered catalog; mapping.txt maps each one.
    images = (work / "images.txt").read_text().splitlines()
    assert images == olmcat("images", "--unique", str(work / "filtered")).splitlines()
    assert len(images) == 32
    mapping = dict(
        line.split("=", 1) for line in (manifests / "mapping.txt").read_text().splitlines()
    )
    assert set(mapping) == {oc_key(i) for i in images} | {INDEX}
    assert sorted(p.name for p in manifests.iterdir()) == [
        "catalogSource.yaml",
        "clusterCatalog.yaml",
        "imageContentSourcePolicy.yaml",
        "imageDigestMirrorSet.yaml",
        "imageTagMirrorSet.yaml",
        "mapping.txt",
    ]
    # The oc steps are printed, not run.
    out = result.stdout
    assert f"32 images to mirror (listed in {work}/images.txt)" in out
    assert f"opm generate dockerfile {work}/filtered" in out
    assert f"podman build -t {INDEX} -f {work}/filtered.Dockerfile {work}" in out
    assert (
        f"oc image mirror [-a ${{REG_CREDS}}] --filter-by-os='.*' -f {manifests}/mapping.txt" in out
    )
    assert f"oc apply -f {manifests}/imageContentSourcePolicy.yaml" in out
    assert f"oc apply -f {manifests}/imageTagMirrorSet.yaml" in out
    assert f"oc apply -f {manifests}/catalogSource.yaml" in out
    assert f"oc apply -f {manifests}/clusterCatalog.yaml" in out


def test_mirror_legacy_index_everything_heads_only(tmp_path: Path) -> None:
    archive = corpus_path("images", "test-index-v1.oci.tar")
    work = tmp_path / "work"
    result = run("mirror-legacy-index.sh", "--heads-only", str(archive), DEST, str(work))
    assert result.returncode == 0, result.stderr
    packages = check_fbc_directory(work / "filtered")
    assert len(packages) == 39
    assert "rerun with --index-image REF" in result.stdout
    assert not (work / "manifests" / "catalogSource.yaml").exists()
    # A second run into the same WORKDIR refuses to overwrite (olmcat's outputs must be new).
    again = run("mirror-legacy-index.sh", str(archive), DEST, str(work))
    assert again.returncode == 1
    assert "is not empty" in again.stderr


def sqlite_related_images(db: Path, like: str = "%") -> set[tuple[str, str]]:
    """The legacy query itself: select * from related_image where operatorbundle_name like ..."""
    connection = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    try:
        rows = connection.execute(
            "select image, operatorbundle_name from related_image where operatorbundle_name like ?",
            (like,),
        )
        return set(rows)
    finally:
        connection.close()


def tsv(text: str) -> set[tuple[str, str]]:
    return {tuple(line.split("\t")) for line in text.splitlines()}  # type: ignore[misc]


def test_related_images_is_the_legacy_query_for_every_form() -> None:
    db = corpus_path("sqlite", "index-upstream.db")
    want = sqlite_related_images(db)
    assert len(want) == 666
    for reference in (
        db,
        corpus_path("images", "test-index-v1.oci.tar"),
        corpus_path("expected", "index-upstream.json"),
    ):
        result = run("related-images.sh", "--format", "tsv", str(reference))
        assert result.returncode == 0, result.stderr
        assert tsv(result.stdout) == want, reference


@pytest.mark.parametrize("pattern", ["kiali-operator.v1.3%", "KIALI%", "cert-manager._.4.0", "x%"])
def test_related_images_like_patterns(pattern: str) -> None:
    db = corpus_path("sqlite", "index-upstream.db")
    result = run("related-images.sh", "-b", pattern, "-f", "tsv", str(db))
    assert result.returncode == 0, result.stderr
    assert tsv(result.stdout) == sqlite_related_images(db, pattern)


def test_related_images_line_format_like_sqlite3() -> None:
    db = corpus_path("sqlite", "small.db")
    result = run(
        "related-images.sh", "--bundle", "etcdoperator.v0.9.0", "--package", "etcd", str(db)
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "image = quay.io/coreos/etcd-operator@sha256:"
        "db563baa8194fcfe39d1df744ed70024b0f1f9e9b55b5923c2f3a413c44dc6b8\n"
        "operatorbundle_name = etcdoperator.v0.9.0\n"
    )
    several = run("related-images.sh", "-b", "etcdoperator.v0.9.2", str(db))
    records = several.stdout.split("\n\n")
    assert len(records) == 3
    assert all(r.startswith("image = ") for r in records)
    missing = run("related-images.sh", str(db.parent / "missing.db"))
    assert missing.returncode == 1
    assert "olmcat: error:" in missing.stderr


def test_catalog_delta_end_to_end(tmp_path: Path) -> None:
    old = corpus_path("images", "test-index-v0-old.oci.tar")
    new = corpus_path("images", "test-index-v1.oci.tar")
    work = tmp_path / "work"
    index = "quay.io/example/test-index:v2"
    result = run("catalog-delta.sh", "--index-image", index, str(old), str(new), DEST, str(work))
    assert result.returncode == 0, result.stderr
    new_images = set(olmcat("images", "--unique", str(new)).splitlines()) - set(
        olmcat("images", "--unique", str(old)).splitlines()
    )
    mapping = dict(
        line.split("=", 1) for line in (work / "manifests" / "mapping.txt").read_text().splitlines()
    )
    assert set(mapping) == {oc_key(i) for i in new_images} | {index}
    icsp = (work / "manifests" / "imageContentSourcePolicy.yaml").read_text()
    assert "  name: test-index-v1-delta-0\n" in icsp  # not the name of the policies applied before
    assert (work / "diff.txt").read_text().splitlines()[-1].startswith("39 packages differ")
    out = result.stdout
    assert f"{len(mapping)} images to copy in {work}/manifests/mapping.txt" in out
    assert (
        f"oc image mirror [-a ${{REG_CREDS}}] --filter-by-os='.*' -f {work}/manifests/mapping.txt"
        in out
    )
    assert f"oc apply -f {work}/manifests/catalogSource.yaml" in out


def test_catalog_delta_needs_the_diff_command(tmp_path: Path) -> None:
    # An olmcat without `diff` (as before that command existed): a clear message, exit 1.
    fake = tmp_path / "olmcat-without-diff"
    fake.write_text(
        '#!/usr/bin/env bash\nif [[ $1 == diff ]]; then echo "No such command" >&2; exit 2; fi\n'
        f'exec "{BIN / "olmcat"}" "$@"\n'
    )
    fake.chmod(0o755)
    old = corpus_path("sqlite", "small.db")
    result = run(
        "catalog-delta.sh", str(old), str(old), DEST, str(tmp_path / "w"), env={"OLMCAT": str(fake)}
    )
    assert result.returncode == 1
    assert "this olmcat has no 'diff' command" in result.stderr
    assert not (tmp_path / "w").exists()
