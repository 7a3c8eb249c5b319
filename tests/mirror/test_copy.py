"""``mirror copy`` against real registries: registry to registry, to disk and back, resume.

The source catalog's images are built and pushed by test code (tests/support/registry.py); the
expected digests are the ones the test pushed, and the copies are checked by asking the
destination registry directly (and skopeo, where installed) -- never through olmcat.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.mirror.copy import CopyOptions, mirror_copy
from olmcat.oci.options import RegistryOptions
from tests.support.registry import (
    PASSWORD,
    USER,
    MirrorCatalog,
    Registries,
    build_mirror_catalog,
    clean_env,
    fbc_image,
    manifest_digest,
    push,
    skopeo,
    write_auth_file,
)
from tests.support.terminal import run_on_terminal

pytestmark = pytest.mark.registry

HTTP = ("--src-use-http", "--dest-use-http")


@pytest.fixture(scope="module")
def catalog(registries: Registries, tmp_path_factory: pytest.TempPathFactory) -> MirrorCatalog:
    root = tmp_path_factory.mktemp("mirror-catalog")
    return build_mirror_catalog(registries.plain, root / "catalog", layer_size=1 << 20)


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "olmcat", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )


def _mapping(plan: Path) -> list[tuple[str, str]]:
    lines = (plan / "mapping.txt").read_text().splitlines()
    return [tuple(line.split("=", 1)) for line in lines]  # type: ignore[misc]


def _split(reference: str) -> tuple[str, str, str]:
    """host, repository, tag-or-digest of a pull spec (test-side parsing)."""
    host, _, rest = reference.partition("/")
    if "@" in rest:
        repository, _, ref = rest.partition("@")
    else:
        repository, _, ref = rest.rpartition(":")
    return host, repository, ref


def _source_digest(catalog: MirrorCatalog, registries: Registries, source: str) -> str:
    if source in catalog.images:
        return catalog.images[source]
    host, repository, ref = _split(source)
    assert host == registries.plain.host
    digest = manifest_digest(registries.plain, repository, ref)
    assert digest is not None, source
    return digest


def _check_skopeo(target: str, digest: str, tls: tuple[str, ...], tmp: Path) -> None:
    """skopeo, independently: the raw manifest hashes to ``digest`` and the image copies."""
    binary = skopeo()
    if binary is None:
        return
    raw = subprocess.run(
        [binary, "inspect", "--raw", *tls, f"docker://{target}"],
        capture_output=True,
        timeout=120,
        check=True,
    ).stdout
    import hashlib

    assert "sha256:" + hashlib.sha256(raw).hexdigest() == digest
    out = tmp / f"skopeo-{digest[7:19]}"
    subprocess.run(
        [binary, "copy", "--all", *tls, f"docker://{target}", f"oci:{out}:check"],
        capture_output=True,
        timeout=300,
        check=True,
    )


def test_copy_of_a_filtered_catalog_keeps_every_digest(
    registries: Registries, catalog: MirrorCatalog, tmp_path: Path
) -> None:
    env = clean_env(tmp_path)
    keep = catalog.packages[0]
    filtered = tmp_path / "filtered"
    done = _run(env, "filter", str(catalog.directory), str(filtered), "-p", keep)
    assert done.returncode == 0, done.stderr
    dest = f"{registries.second.host}/filtered"
    done = _run(env, "mirror", "plan", str(filtered), dest, str(tmp_path / "plan"), "--name", "t")
    assert done.returncode == 0, done.stderr
    mapping = _mapping(tmp_path / "plan")
    assert mapping and all(keep in source or "kube-rbac-proxy" in source for source, _ in mapping)

    copy = _run(env, "mirror", "copy", str(tmp_path / "plan"), dest, *HTTP, "--format", "json")
    assert copy.returncode == 0, copy.stderr
    report = json.loads(copy.stdout)
    assert report["summary"]["copied"] == len(mapping) == report["summary"]["images"]
    assert report["summary"]["failed"] == 0
    for source, target in mapping:
        expected = _source_digest(catalog, registries, source)
        host, repository, tag = _split(target)
        assert host == registries.second.host
        assert manifest_digest(registries.second, repository, tag) == expected, target
        assert manifest_digest(registries.second, repository, expected) == expected
        _check_skopeo(target, expected, ("--tls-verify=false",), tmp_path)

    # A second run finds everything in place and uploads nothing.
    mark = registries.second.mark()
    again = _run(env, "mirror", "copy", str(tmp_path / "plan"), dest, *HTTP, "--format", "json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["summary"]["present"] == len(mapping)
    writes = [r for r in registries.second.requests(mark) if r[0] in ("PUT", "POST", "PATCH")]
    assert writes == []


def test_catalog_copy_rebuilds_the_catalog_image(
    registries: Registries, catalog: MirrorCatalog, tmp_path: Path
) -> None:
    env = clean_env(tmp_path)
    dest = f"docker://{registries.second.host}/rebuilt"
    done = _run(
        env,
        "mirror",
        "copy",
        str(catalog.directory),
        dest,
        *HTTP,
        "--catalog-image",
        "olm/catalog:v1",
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["summary"]["copied"] == len(catalog.images) + 1
    pushed = report["catalog_image"]
    assert pushed.startswith(f"{registries.second.host}/rebuilt/olm/catalog@sha256:")
    # The pushed catalog image holds the same catalog (read back through the registry).
    same = _run(env, "diff", f"docker://{pushed}", str(catalog.directory), "--use-http")
    assert same.returncode == 0, same.stdout + same.stderr
    _check_skopeo(
        f"{registries.second.host}/rebuilt/olm/catalog:v1",
        pushed.rpartition("@")[2],
        ("--tls-verify=false",),
        tmp_path,
    )


def test_killed_midway_the_rerun_copies_only_what_is_missing(
    registries: Registries, catalog: MirrorCatalog, tmp_path: Path
) -> None:
    env = clean_env(tmp_path)
    dest = f"{registries.second.host}/resumed"
    args = [sys.executable, "-m", "olmcat", "mirror", "copy", str(catalog.directory), dest, *HTTP]
    process = subprocess.Popen(
        [*args, "--workers", "1"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env=env,
        text=True,
    )
    assert process.stderr is not None
    finished = 0
    for line in process.stderr:
        if line.startswith("[") and " copied " in line:
            finished += 1
            if finished == 2:
                process.send_signal(signal.SIGKILL)
                break
    process.wait(timeout=60)
    assert process.returncode == -signal.SIGKILL, "the copy ended before it could be killed"

    rerun = _run(env, *args[3:], "--format", "json")
    assert rerun.returncode == 0, rerun.stderr
    summary = json.loads(rerun.stdout)["summary"]
    assert summary["failed"] == 0
    assert summary["present"] >= 2
    assert summary["copied"] >= 1
    assert summary["present"] + summary["copied"] == len(catalog.images)
    for row in json.loads(rerun.stdout)["images"]:
        _, repository, tag = _split(row["target"])
        assert manifest_digest(registries.second, repository, tag) == catalog.images[row["source"]]


def test_to_disk_and_back_gives_the_same_digests(
    registries: Registries, catalog: MirrorCatalog, tmp_path: Path
) -> None:
    plain, secure = registries.plain, registries.secure
    assert secure.tls is not None
    # The catalog as a published index image in the source registry.
    index_digest = push(plain, "catalogs/index", "v1", fbc_image(catalog.directory))
    index = f"docker://{plain.host}/catalogs/index:v1"
    env = clean_env(tmp_path)
    layout = tmp_path / "usb" / "mirror"
    to_disk = _run(
        env, "mirror", "copy", index, f"oci:{layout}", "--src-use-http", "--format", "json"
    )
    assert to_disk.returncode == 0, to_disk.stderr
    names = {
        m["annotations"]["org.opencontainers.image.ref.name"]: m["digest"]
        for m in json.loads((layout / "index.json").read_text())["manifests"]
    }
    expected = {**catalog.images, f"{plain.host}/catalogs/index:v1": index_digest}
    assert names == expected

    # On the disconnected side: from the layout into the TLS + auth registry, the source registry
    # untouched (the catalog itself is read from the layout too).
    authfile = write_auth_file(tmp_path / "auth.json", secure.host, USER, PASSWORD)
    mark = plain.mark()
    back = _run(
        env,
        "mirror",
        "copy",
        "--from",
        f"oci:{layout}",
        index,
        f"docker://{secure.host}/disconnected",
        "--dest-authfile",
        str(authfile),
        "--dest-cert-dir",
        str(secure.tls.ca_dir),
        "--format",
        "json",
        "--report",
        str(tmp_path / "report.json"),
    )
    assert back.returncode == 0, back.stderr
    assert plain.requests(mark) == []
    written = json.loads((tmp_path / "report.json").read_text())
    assert written["copy"]["summary"] == json.loads(back.stdout)["summary"]
    assert PASSWORD not in (tmp_path / "report.json").read_text()
    report = json.loads(back.stdout)
    assert report["summary"]["copied"] == len(expected)
    for row in report["images"]:
        source = row["source"]
        digest = expected.get(source) or expected[f"{plain.host}/catalogs/index:v1"]
        _, repository, tag = _split(row["target"])
        assert manifest_digest(secure, repository, tag) == digest
        assert row["digest"] == digest
    assert PASSWORD not in back.stdout + back.stderr
    if skopeo() is not None:
        name = f"{plain.host}/catalogs/index:v1"
        inspected = subprocess.run(
            [skopeo() or "", "inspect", "--raw", f"oci:{layout}:{name}"],
            capture_output=True,
            timeout=60,
            check=True,
        ).stdout
        import hashlib

        assert "sha256:" + hashlib.sha256(inspected).hexdigest() == index_digest


def test_dry_run_copies_nothing(
    registries: Registries, catalog: MirrorCatalog, tmp_path: Path
) -> None:
    runner = CliRunner()
    dest = f"{registries.second.host}/dry"
    mark = registries.second.mark()
    result = runner.invoke(
        cli,
        ["mirror", "copy", str(catalog.directory), dest, *HTTP, "--dry-run", "--format", "json"],
        env=clean_env(tmp_path),
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["dry_run"] is True
    assert report["summary"]["planned"] == len(catalog.images)
    assert [r for r in registries.second.requests(mark) if r[0] not in ("GET", "HEAD")] == []
    layout = tmp_path / "never"
    result = runner.invoke(
        cli,
        ["mirror", "copy", str(catalog.directory), f"oci:{layout}", "--src-use-http", "--dry-run"],
        env=clean_env(tmp_path),
    )
    assert result.exit_code == 0, result.output
    assert not layout.exists()
    assert "would copy" in result.stdout


def test_same_registry_mounts_and_large_blobs_go_in_chunks(
    registries: Registries, catalog: MirrorCatalog, tmp_path: Path
) -> None:
    plain = registries.plain
    options = RegistryOptions(use_http=True, cache_dir=tmp_path / "cache")
    mark = plain.mark()
    report = mirror_copy(
        str(catalog.directory),
        f"{plain.host}/mounted",
        CopyOptions(workers=2),
        src_registry=options,
        dest_registry=options,
    )
    assert report.ok and report.count("copied") == len(catalog.images)
    requests = plain.requests(mark)
    mounts = [r for r in requests if r[0] == "POST" and "mount=" in r[1]]
    assert mounts and all(status == 201 for _, _, status in mounts)
    assert not [r for r in requests if r[0] == "PATCH"]

    chunked = RegistryOptions(
        use_http=True, monolithic_limit=200 << 10, chunk_size=300 << 10, cache_dir=tmp_path / "c2"
    )
    mark = registries.second.mark()
    report = mirror_copy(
        str(catalog.directory),
        f"{registries.second.host}/chunked",
        src_registry=options,
        dest_registry=chunked,
    )
    assert report.ok and report.count("copied") == len(catalog.images)
    patches = [r for r in registries.second.requests(mark) if r[0] == "PATCH"]
    assert patches and all(status == 202 for _, _, status in patches)
    for row in report.images:
        _, repository, tag = _split(row.target)
        assert manifest_digest(registries.second, repository, tag) == catalog.images[row.source]


def test_failures_are_reported_per_image(
    registries: Registries, catalog: MirrorCatalog, tmp_path: Path
) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    text = (catalog.directory / catalog.packages[0] / "catalog.json").read_text()
    missing = f"{registries.plain.host}/nowhere/gone@sha256:{'0' * 64}"
    (broken / "catalog.json").write_text(
        text.replace('"name": "proxy", "image": ', '"name": "proxy", "image": ', 1).replace(
            f'"{registries.plain.host}/infra/kube-rbac-proxy:v0.13.0"', f'"{missing}"'
        )
    )
    result = CliRunner().invoke(
        cli,
        ["mirror", "copy", str(broken), f"{registries.second.host}/partial", *HTTP],
        env=clean_env(tmp_path),
    )
    assert result.exit_code == 1
    assert f"failed   {missing}" in result.stdout
    assert "1 failed" in result.stdout


def test_a_destination_that_refuses_the_credentials_stops_the_copy_at_once(
    registries: Registries, catalog: MirrorCatalog, tmp_path: Path
) -> None:
    secure = registries.secure
    assert secure.tls is not None
    wrong = write_auth_file(tmp_path / "wrong.json", secure.host, USER, "wrong-pass-123")
    done = _run(
        clean_env(tmp_path),
        "mirror",
        "copy",
        str(catalog.directory),
        f"{secure.host}/refused",
        "--src-use-http",
        "--dest-authfile",
        str(wrong),
        "--dest-cert-dir",
        str(secure.tls.ca_dir),
    )
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if line.startswith("olmcat: error:")]
    assert len(errors) == 1, done.stderr
    assert secure.host in errors[0] and str(wrong) in errors[0]
    assert "wrong-pass-123" not in done.stderr + done.stdout


def test_progress_shows_bytes_and_images_on_a_terminal_and_lines_elsewhere(
    registries: Registries, catalog: MirrorCatalog, tmp_path: Path
) -> None:
    env = clean_env(tmp_path)
    total = len(catalog.images)
    dest = f"{registries.second.host}/progress"
    shown = run_on_terminal(
        ["mirror", "copy", str(catalog.directory), dest, *HTTP], tmp_path, timeout=300, env=env
    )
    # tqdm redraws one line with carriage returns: bytes with a scaled unit, images done / total.
    assert "copying" in shown and "\r" in shown, shown
    assert f"images {total}/{total}" in shown, shown
    assert any(unit in shown for unit in ("kB", "MB")), shown
    assert "Traceback" not in shown
    # Not a terminal: one line per image instead of a bar (the images are present by now).
    piped = _run(env, "mirror", "copy", str(catalog.directory), dest, *HTTP)
    assert piped.returncode == 0, piped.stderr
    lines = [line for line in piped.stderr.splitlines() if line.startswith("[")]
    assert len(lines) == total, piped.stderr
    assert lines[-1].startswith(f"[{total}/{total}] present "), lines
    assert "\r" not in piped.stderr
    # -q: neither.
    quiet = run_on_terminal(
        ["mirror", "copy", "-q", str(catalog.directory), dest, *HTTP], tmp_path, env=env
    )
    assert "copying" not in quiet and f"[{total}/{total}]" not in quiet, quiet
