"""render-template pulls bundle images no local source has from their registry: a real
docker-registry on 127.0.0.1 with TLS and basic auth (tests/support/registry.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.registry import (
    PASSWORD,
    USER,
    Registries,
    clean_env,
    directory_files,
    make_image,
    push,
    write_auth_file,
)
from tests.support.template_strategies import POOL, write_pool

pytestmark = pytest.mark.registry

PACKAGE_LABEL = "operators.operatorframework.io.bundle.package.v1"


def olmcat(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "olmcat", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_bundle_images_are_pulled_with_auth_and_tls(registries: Registries, tmp_path: Path) -> None:
    secure = registries.secure
    assert secure.tls is not None
    bundles = [b for b in POOL if b.package == "demo" and b.version in ("1.0.0", "1.1.0", "2.0.0")]
    dirs = write_pool(tmp_path / "pool", tuple(bundles))
    refs = []
    for bundle, directory in zip(bundles, dirs.values(), strict=True):
        image = make_image([directory_files(directory)], labels={PACKAGE_LABEL: "demo"})
        tag = bundle.version.replace("+", "_")
        push(secure, "demo-bundle", tag, image)
        refs.append((f"{secure.host}/demo-bundle:{tag}", directory))
    template = tmp_path / "t.yaml"
    template.write_text(
        "schema: olm.semver\nstable:\n  bundles:\n" + "".join(f"  - image: {r}\n" for r, _ in refs)
    )
    env = clean_env(tmp_path)
    authfile = write_auth_file(tmp_path / "auth.json", secure.host, USER, PASSWORD)
    pulled = olmcat(
        "render-template",
        "semver",
        str(template),
        "--authfile",
        str(authfile),
        "--cert-dir",
        str(secure.tls.ca_dir),
        env=env,
    )
    assert pulled.returncode == 0, pulled.stderr
    local = olmcat(
        "render-template",
        "semver",
        str(template),
        "--no-pull",
        *[a for r, d in refs for a in ("--bundle-dir", f"{r}={d}")],
        env=env,
    )
    assert local.returncode == 0, local.stderr
    assert pulled.stdout == local.stdout  # the image renders as the directory it was built from
    # without credentials the registry refuses, and no secret is printed either way
    refused = olmcat(
        "render-template", "semver", str(template), "--cert-dir", str(secure.tls.ca_dir), env=env
    )
    assert refused.returncode == 1
    assert "cannot resolve bundle image" in refused.stderr and "pulling it failed" in refused.stderr
    for result in (pulled, local, refused):
        assert PASSWORD not in result.stdout + result.stderr
