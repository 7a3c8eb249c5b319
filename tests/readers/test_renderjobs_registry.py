"""``olmcat render`` of several bundle images in worker processes: the registry options (TLS
trust, basic auth from an auth file) reach the workers, and the output is that of one process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from olmcat.go.opm import opm_release
from olmcat.readers.bundlerender import render_bundle_dir
from olmcat.writers.fbc import bundle_json, render_json
from tests.support.bundleimages import SHAPES, demo_bundle
from tests.support.registry import PASSWORD, USER, Registries, clean_env, push, write_auth_file

pytestmark = pytest.mark.registry


def test_several_images_over_tls_with_auth_in_workers_equal_one_process(
    registries: Registries, tmp_path: Path
) -> None:
    server = registries.secure
    assert server.tls is not None
    bundle = demo_bundle(tmp_path / "work")
    layered, _ = SHAPES["whiteouts"](bundle, tmp_path / "work")
    tags = ["w1", "w2", "w3", "w4"]
    for tag in tags:
        push(server, "workers-bundle", tag, layered.test_image())
    refs = [f"{server.host}/workers-bundle:{tag}" for tag in reversed(tags)]
    authfile = write_auth_file(tmp_path / "auth.json", server.host, USER, PASSWORD)
    args = ["--authfile", str(authfile), "--cert-dir", str(server.tls.ca_dir)]
    outputs = []
    for workers in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-m", "olmcat", "render", *refs, "--opm-version", "1.26", *args],
            capture_output=True,
            text=True,
            env=clean_env(tmp_path / workers, OLMCAT_WORKERS=workers),
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert PASSWORD not in done.stderr
        outputs.append(done.stdout)
    # one name: the bundles keep the order of the references given
    expected = "".join(
        "".join(
            render_json(
                [bundle_json(render_bundle_dir(bundle, image=ref, release=opm_release("1.26")))]
            )
        )
        for ref in refs
    )
    assert outputs == [expected, expected]
