"""``olmcat render`` of bundle images in real registries (docker-registry on 127.0.0.1, one of them
with TLS and basic auth): the same bytes as the image saved to disk and as its directory, the
registry options every other command has, the image cache (a second run downloads no blob) and
one-line failures that never show a credential.
"""

from __future__ import annotations

import base64
import subprocess
import sys
from pathlib import Path

import pytest

from olmcat.go.opm import opm_release
from olmcat.readers.bundlerender import render_bundle_dir
from olmcat.writers.fbc import bundle_json, render_json
from tests.support.bundleimages import SHAPES, demo_bundle
from tests.support.registry import (
    PASSWORD,
    USER,
    Registries,
    clean_env,
    index_image,
    push,
    write_auth_file,
)

pytestmark = pytest.mark.registry


def _olmcat(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "olmcat", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


def _directory_render(bundle: Path, image: str, tag: str) -> str:
    rendered = render_bundle_dir(bundle, image=image, release=opm_release(tag))
    return "".join(render_json([bundle_json(rendered)]))


@pytest.fixture(scope="module")
def demo(registries: Registries, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo bundle as a two-layer image (whiteouts over stale manifests) in the plain and
    the secure registry, and as a single reverse-ordered layer under another tag."""
    work = tmp_path_factory.mktemp("demo-bundle")
    bundle = demo_bundle(work)
    layered, _ = SHAPES["whiteouts"](bundle, work)
    reverse, _ = SHAPES["one-layer-reverse"](bundle, work)
    for server in (registries.plain, registries.secure):
        push(server, "demo-bundle", "v1.0.0", layered.test_image())
        push(server, "demo-bundle", "reverse", reverse.test_image())
    return bundle


@pytest.mark.parametrize("tag", ["1.26", "1.45", "1.73"])
def test_render_over_tls_with_basic_auth_equals_the_directory(
    registries: Registries, demo: Path, tmp_path: Path, tag: str
) -> None:
    server = registries.secure
    assert server.tls is not None
    authfile = write_auth_file(tmp_path / "auth.json", server.host, USER, PASSWORD)
    ref = f"{server.host}/demo-bundle:v1.0.0"
    done = _olmcat(
        clean_env(tmp_path),
        "render",
        ref,  # a plain reference, as opm render takes it
        "--opm-version",
        tag,
        "--authfile",
        str(authfile),
        "--cert-dir",
        str(server.tls.ca_dir),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == _directory_render(demo, ref, tag)


def test_docker_prefix_several_images_and_the_cache(
    registries: Registries, demo: Path, tmp_path: Path
) -> None:
    server = registries.plain
    env = clean_env(tmp_path)
    refs = [f"{server.host}/demo-bundle:reverse", f"{server.host}/demo-bundle:v1.0.0"]
    args = ("render", f"docker://{refs[0]}", refs[1], "--use-http", "--opm-version", "1.71")
    mark = server.mark()
    first = _olmcat(env, *args)
    first_requests = server.requests(mark)
    mark = server.mark()
    second = _olmcat(env, *args)
    second_requests = server.requests(mark)
    assert first.returncode == 0, first.stderr
    # Two bundles of one name: ordered by name (a stable tie), each image as it was written.
    expected = "".join(_directory_render(demo, ref, "1.71") for ref in refs)
    assert first.stdout == second.stdout == expected
    assert [r for r in first_requests if r[0] == "GET" and "/blobs/" in r[1]]
    assert not [r for r in second_requests if r[0] == "GET" and "/blobs/" in r[1]], second_requests


def test_an_index_image_is_refused_before_its_layers_are_fetched(
    registries: Registries, tmp_path: Path
) -> None:
    server = registries.plain
    database = tmp_path / "index.db"
    database.write_bytes(b"SQLite format 3\x00" + bytes(4096))
    push(server, "not-a-bundle", "v1", index_image(database))
    env = clean_env(tmp_path)
    mark = server.mark()
    done = _olmcat(env, "render", f"{server.host}/not-a-bundle:v1", "--use-http")
    requests = server.requests(mark)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "not a bundle image" in lines[0]
    assert f"{server.host}/not-a-bundle:v1" in lines[0]
    # The config blob only: no layer was downloaded.
    assert len([r for r in requests if r[0] == "GET" and "/blobs/" in r[1]]) == 1, requests


def test_wrong_credentials_and_untrusted_certificates_fail_in_one_line(
    registries: Registries, demo: Path, tmp_path: Path
) -> None:
    server = registries.secure
    assert server.tls is not None
    env = clean_env(tmp_path)
    ref = f"{server.host}/demo-bundle:v1.0.0"
    wrong = "not-the-password-4567"
    authfile = write_auth_file(tmp_path / "wrong.json", server.host, USER, wrong)
    done = _olmcat(
        env, "render", ref, "--authfile", str(authfile), "--cert-dir", str(server.tls.ca_dir)
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and server.host in lines[0] and "authentication failed" in lines[0]
    for secret in (wrong, base64.b64encode(f"{USER}:{wrong}".encode()).decode()):
        assert secret not in done.stderr + done.stdout
    untrusted = _olmcat(env, "render", ref)
    assert untrusted.returncode == 1 and "--cert-dir" in untrusted.stderr
    good = write_auth_file(tmp_path / "auth.json", server.host, USER, PASSWORD)
    insecure = _olmcat(env, "render", ref, "--tls-verify=false", "--authfile", str(good))
    assert insecure.returncode == 0, insecure.stderr
    assert insecure.stdout == _directory_render(demo, ref, "1.73")
    assert PASSWORD not in insecure.stderr + insecure.stdout


def test_a_missing_image_names_the_reference(registries: Registries, tmp_path: Path) -> None:
    server = registries.plain
    done = _olmcat(
        clean_env(tmp_path), "render", f"docker://{server.host}/nothing:here", "--use-http"
    )
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1
    assert server.host in done.stderr and "nothing:here" in done.stderr
