#!/usr/bin/env python3
"""Benchmark pulling and copying against loopback registries: olmcat next to ``skopeo copy``.

Starts two ``docker-registry`` servers on 127.0.0.1 (plain HTTP), pushes a catalog of N images
(bundle image + two-platform operand index per bundle, random incompressible layers) to the first,
then times, each in a child process with its own empty cache:

* pull -- every image to an OCI layout on disk: ``olmcat mirror copy CATALOG oci:DIR`` against
  ``skopeo copy --all docker://SRC oci:DIR:NAME`` for each image, one after the other;
* copy -- registry to registry: ``olmcat mirror copy CATALOG DEST`` against ``skopeo copy --all
  docker://SRC docker://DEST`` for each image (skopeo copies one image per call);

olmcat runs with ``--workers 1`` (the like-for-like figure) and ``--workers 4``. MB/s is the
blob bytes of the catalog's images (each counted once) divided by wall seconds.

    python scripts/bench_registry.py [--images 24] [--layer-mb 4] [--runs 3] [--json]

Needs docker-registry (Debian package); skopeo is optional (its rows are left out without it).
No address but 127.0.0.1 is used.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.registry import (  # noqa: E402 - the repo root must be on the path first
    build_mirror_catalog,
    start_registry,
)


def _blob_bytes(catalog_images: dict[str, str], server_url: str) -> int:
    """Bytes of every distinct blob the catalog's images hold (asked from the registry)."""
    import httpx

    accept = ", ".join(
        (
            "application/vnd.oci.image.index.v1+json",
            "application/vnd.docker.distribution.manifest.list.v2+json",
            "application/vnd.oci.image.manifest.v1+json",
            "application/vnd.docker.distribution.manifest.v2+json",
        )
    )
    sizes: dict[str, int] = {}
    with httpx.Client(base_url=server_url) as client:

        def walk(repository: str, reference: str) -> None:
            document = client.get(
                f"/v2/{repository}/manifests/{reference}", headers={"Accept": accept}
            ).json()
            for child in document.get("manifests", []):
                walk(repository, child["digest"])
            for blob in [document.get("config"), *document.get("layers", [])]:
                if blob:
                    sizes[blob["digest"]] = blob["size"]

        for image in catalog_images:
            _, _, rest = image.partition("/")
            repository, sep, reference = rest.partition("@")
            if not sep:
                repository, _, reference = rest.rpartition(":")
            walk(repository, reference)
    return sum(sizes.values())


def _timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{done.stderr[-2000:]}")
    return elapsed


def _skopeo_all(skopeo: str, images: list[str], target: str, env: dict[str, str]) -> float:
    """One skopeo copy per image; ``target`` is oci:DIR or docker://HOST/NS."""
    total = 0.0
    for number, image in enumerate(images):
        _, _, rest = image.partition("/")
        repository = rest.split("@")[0].rsplit(":", 1)[0] if "@" not in rest else rest.split("@")[0]
        if target.startswith("oci:"):
            dest = f"{target}:img{number}"
        else:
            dest = f"{target}/{repository}:img{number}"
        total += _timed(
            [
                skopeo,
                "copy",
                "--all",
                "--quiet",
                "--src-tls-verify=false",
                "--dest-tls-verify=false",
                f"docker://{image}",
                dest,
            ],
            env,
        )
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=24, help="about this many images")
    parser.add_argument("--layer-mb", type=float, default=4.0, help="size of each random layer")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (median is shown)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    if shutil.which("docker-registry") is None:
        raise SystemExit("docker-registry is not installed (apt-get install docker-registry)")
    skopeo = shutil.which("skopeo")

    with tempfile.TemporaryDirectory(prefix="olmcat-bench-") as tmp_name:
        tmp = Path(tmp_name)
        source = start_registry(tmp / "source")
        dest = start_registry(tmp / "dest")
        try:
            bundles = max(1, args.images // 2)
            catalog = build_mirror_catalog(
                source,
                tmp / "catalog",
                layer_size=int(args.layer_mb * (1 << 20)),
                bundles=bundles,
            )
            images = sorted(catalog.images)
            size = _blob_bytes(catalog.images, source.url)
            base_env = {
                "PATH": "/usr/bin:/bin",
                "HOME": str(tmp / "home"),
                "XDG_RUNTIME_DIR": str(tmp / "run"),
            }
            olmcat = [sys.executable, "-m", "olmcat", "mirror", "copy", "-q"]
            rows: list[dict[str, object]] = []

            def measure(name: str, run: object) -> None:
                seconds = []
                for number in range(args.runs):
                    work = tmp / f"run-{len(rows)}-{number}"
                    work.mkdir()
                    env = {**base_env, "OLMCAT_CACHE_DIR": str(work / "cache")}
                    seconds.append(run(work, env, f"r{len(rows)}x{number}"))  # type: ignore[operator]
                median = statistics.median(seconds)
                rows.append(
                    {
                        "what": name,
                        "images": len(images),
                        "mb": round(size / 1e6, 1),
                        "seconds": round(median, 2),
                        "mb_per_s": round(size / 1e6 / median, 1),
                    }
                )

            for workers in (1, 4):
                measure(
                    f"pull to oci:DIR  olmcat --workers {workers}",
                    lambda work, env, tag, w=workers: _timed(
                        [
                            *olmcat,
                            str(catalog.directory),
                            f"oci:{work / 'layout'}",
                            "--src-use-http",
                            "--workers",
                            str(w),
                        ],
                        env,
                    ),
                )
            if skopeo:
                measure(
                    "pull to oci:DIR  skopeo copy",
                    lambda work, env, tag: _skopeo_all(
                        skopeo, images, f"oci:{work / 'layout'}", env
                    ),
                )
            for workers in (1, 4):
                measure(
                    f"registry->registry  olmcat --workers {workers}",
                    lambda work, env, tag, w=workers: _timed(
                        [
                            *olmcat,
                            str(catalog.directory),
                            f"{dest.host}/{tag}",
                            "--src-use-http",
                            "--dest-use-http",
                            "--workers",
                            str(w),
                        ],
                        env,
                    ),
                )
            if skopeo:
                measure(
                    "registry->registry  skopeo copy",
                    lambda work, env, tag: _skopeo_all(
                        skopeo, images, f"docker://{dest.host}/{tag}", env
                    ),
                )
        finally:
            source.stop()
            dest.stop()

    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'what':<40} {'images':>6} {'MB':>8} {'s':>8} {'MB/s':>8}")
    for row in rows:
        print(
            f"{row['what']:<40} {row['images']:>6} {row['mb']:>8} {row['seconds']:>8} "
            f"{row['mb_per_s']:>8}"
        )
    if not skopeo:
        print("(skopeo is not installed: apt-get install skopeo for its rows)")


if __name__ == "__main__":
    main()
