"""The registry protocol in the hard cases: bearer tokens from a real token-auth docker-registry,
retries on 429 / 5xx / dropped connections, and digest verification of what comes back."""

from __future__ import annotations

import base64
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from olmcat.oci.copy import RegistryEndpoint, copy_image
from olmcat.oci.options import RegistryOptions
from olmcat.oci.registry import Registry
from tests.support.paths import CORPUS, FIXTURES
from tests.support.registry import (
    PASSWORD,
    USER,
    FaultProxy,
    Registries,
    RegistryServer,
    TokenService,
    clean_env,
    index_image,
    push,
    sha256,
    start_fault_proxy,
    write_auth_file,
)

pytestmark = pytest.mark.registry

DB = CORPUS / "sqlite" / "small.db"
if not DB.is_file():
    DB = FIXTURES / "example" / "sqlite" / "schema-13.db"


def _olmcat(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "olmcat", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def source_index(registries: Registries) -> str:
    return push(registries.plain, "protocol/index", "v1", index_image(DB))


def test_bearer_token_flow_for_push_and_pull(
    registries: Registries,
    token_registry: tuple[RegistryServer, TokenService],
    source_index: str,
    tmp_path: Path,
) -> None:
    server, service = token_registry
    authfile = write_auth_file(tmp_path / "auth.json", server.host, USER, PASSWORD)
    cache = tmp_path / "cache"
    source = Registry(registries.plain.host, RegistryOptions(use_http=True, cache_dir=cache))
    target = Registry(
        server.host, RegistryOptions(use_http=True, authfile=authfile, cache_dir=cache)
    )
    result = copy_image(
        RegistryEndpoint(source, "protocol/index"),
        "v1",
        RegistryEndpoint(target, "olm/index"),
        "v1",
    )
    assert result.digest == source_index and result.blobs_copied == 3
    assert any("repository:olm/index:pull,push" in scopes for _, scopes in service.issued)

    # Check independently: a token straight from the service, then the manifest by tag.
    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    token = httpx.get(
        service.url,
        params={"service": "olmcat-test", "scope": "repository:olm/index:pull"},
        headers={"Authorization": f"Basic {basic}"},
    ).json()["token"]
    response = httpx.get(
        f"http://{server.host}/v2/olm/index/manifests/v1",
        headers={
            "Authorization": f"Bearer {token}",
            "Accept": "application/vnd.oci.image.manifest.v1+json",
        },
    )
    assert response.status_code == 200 and sha256(response.content) == source_index

    # Pull through the CLI: a pull-only token, and the catalog equals the DB's.
    env = clean_env(tmp_path)
    remote = _olmcat(
        env,
        "migrate",
        "sqlite",
        f"docker://{server.host}/olm/index:v1",
        str(tmp_path / "a"),
        "--use-http",
        "--authfile",
        str(authfile),
    )
    assert remote.returncode == 0, remote.stderr
    local = _olmcat(env, "migrate", "sqlite", str(DB), str(tmp_path / "b"))
    assert local.returncode == 0, local.stderr
    for path in sorted((tmp_path / "b").rglob("*.json")):
        assert (tmp_path / "a" / path.relative_to(tmp_path / "b")).read_bytes() == path.read_bytes()
    assert any(scopes == ["repository:olm/index:pull"] for _, scopes in service.issued)

    wrong = write_auth_file(tmp_path / "wrong.json", server.host, USER, "nope-nope")
    refused = _olmcat(
        env,
        "images",
        f"docker://{server.host}/olm/index:v1",
        "--use-http",
        "--authfile",
        str(wrong),
    )
    assert refused.returncode == 1
    assert server.host in refused.stderr and str(wrong) in refused.stderr
    assert "nope-nope" not in refused.stderr


@pytest.fixture
def proxy(registries: Registries) -> Iterator[FaultProxy]:
    running = start_fault_proxy(registries.plain)
    yield running
    running.close()


def test_retries_on_429_5xx_and_dropped_connections(
    proxy: FaultProxy, source_index: str, tmp_path: Path
) -> None:
    proxy.faults = {"/manifests/": [503, 429], "/blobs/": [502, 0, 500]}
    env = clean_env(tmp_path)
    done = _olmcat(
        env,
        "migrate",
        "sqlite",
        f"docker://{proxy.host}/protocol/index:v1",
        str(tmp_path / "o"),
        "--use-http",
    )
    assert done.returncode == 0, done.stderr
    injected = [status for _, _, status in proxy.seen if status in (0, 429, 500, 502, 503)]
    assert sorted(injected) == [0, 429, 500, 502, 503]
    assert (tmp_path / "o").is_dir()


def test_a_corrupted_blob_is_refused(proxy: FaultProxy, source_index: str, tmp_path: Path) -> None:
    proxy.corrupt = "/blobs/"
    env = clean_env(tmp_path)
    done = _olmcat(env, "images", f"docker://{proxy.host}/protocol/index:v1", "--use-http")
    assert done.returncode == 1
    assert "digest mismatch" in done.stderr and proxy.host in done.stderr
    # Nothing unverified stays in the cache.
    blobs = tmp_path / "cache" / "blobs" / "sha256"
    for path in blobs.iterdir() if blobs.is_dir() else []:
        assert sha256(path.read_bytes()) == f"sha256:{path.name}"


def test_a_corrupted_manifest_is_refused(
    proxy: FaultProxy, source_index: str, tmp_path: Path
) -> None:
    proxy.corrupt = "/manifests/"
    done = _olmcat(
        clean_env(tmp_path), "images", f"docker://{proxy.host}/protocol/index:v1", "--use-http"
    )
    assert done.returncode == 1
    assert "digest mismatch" in done.stderr or "not valid JSON" in done.stderr
