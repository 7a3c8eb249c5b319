"""Checks and data the mirror tests share: an FBC checked with plain JSON, oc's image keys and
the images of oc's own test index (written from oc's tests, not from olmcat)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.model import Channel, ChannelEntry
from tests.support.filter_strategies import opm_channel_problems
from tests.support.paths import catalog_blobs

# oc: TestMirror -- the images of testdata/test.db / test-declcfg with the index
# quay.io/example/image:tag, as {source: (namespace, name, tag, digest) with --max-components 2}.
TEST_DB_IMAGES = {
    "quay.io/example/image:tag": ("example", "image", "tag", ""),
    "quay.io/test/prometheus.0.14.0:latest": ("test", "prometheus.0.14.0", "latest", ""),
    "quay.io/coreos/etcd-operator@sha256:db563baa8194fcfe39d1df744ed70024b0f1f9e9b55b5923c2f3a413c44dc6b8": (  # noqa: E501
        "coreos",
        "etcd-operator",
        "b56e2636",
        "sha256:db563baa8194fcfe39d1df744ed70024b0f1f9e9b55b5923c2f3a413c44dc6b8",
    ),
    "quay.io/test/etcd.0.9.0:latest": ("test", "etcd.0.9.0", "latest", ""),
    "quay.io/coreos/prometheus-operator@sha256:0e92dd9b5789c4b13d53e1319d0a6375bcca4caaf0d698af61198061222a576d": (  # noqa: E501
        "coreos",
        "prometheus-operator",
        "7f39d12d",
        "sha256:0e92dd9b5789c4b13d53e1319d0a6375bcca4caaf0d698af61198061222a576d",
    ),
    "quay.io/coreos/prometheus-operator@sha256:3daa69a8c6c2f1d35dcf1fe48a7cd8b230e55f5229a1ded438f687debade5bcf": (  # noqa: E501
        "coreos",
        "prometheus-operator",
        "1ebe036a",
        "sha256:3daa69a8c6c2f1d35dcf1fe48a7cd8b230e55f5229a1ded438f687debade5bcf",
    ),
    "quay.io/test/prometheus.0.22.2:latest": ("test", "prometheus.0.22.2", "latest", ""),
    "quay.io/coreos/etcd-operator@sha256:c0301e4686c3ed4206e370b42de5a3bd2229b9fb4906cf85f3f30650424abec2": (  # noqa: E501
        "coreos",
        "etcd-operator",
        # Go's %x does not zero-pad: this invented tag has 7 characters.
        "2f1eb95",
        "sha256:c0301e4686c3ed4206e370b42de5a3bd2229b9fb4906cf85f3f30650424abec2",
    ),
    "quay.io/coreos/prometheus-operator@sha256:5037b4e90dbb03ebdefaa547ddf6a1f748c8eeebeedf6b9d9f0913ad662b5731": (  # noqa: E501
        "coreos",
        "prometheus-operator",
        "76771fef",
        "sha256:5037b4e90dbb03ebdefaa547ddf6a1f748c8eeebeedf6b9d9f0913ad662b5731",
    ),
    "quay.io/test/etcd.0.9.2:latest": ("test", "etcd.0.9.2", "latest", ""),
    "quay.io/test/prometheus.0.15.0:latest": ("test", "prometheus.0.15.0", "latest", ""),
}
TEST_DB_INDEX = "quay.io/example/image:tag"


def oc_key(image: str) -> str:
    """How oc keys a source image, written out independently: docker.io and library/ for Docker
    Hub short names, ``:latest`` when there is neither tag nor digest."""
    first, _, rest = image.partition("/")
    if not rest or ("." not in first and ":" not in first and first != "localhost"):
        image = "docker.io/" + (image if rest else f"library/{image}")
    last = image.rsplit("/", 1)[1]
    if "@" not in last and ":" not in last:
        image += ":latest"
    return image


def check_fbc_directory(directory: Path) -> dict[str, dict[str, Any]]:
    """Validate a written FBC with plain json (independent of olmcat's readers).

    Returns {package: {"package": blob, "channels": {...}, "bundles": {...}}}.
    """
    packages: dict[str, dict[str, Any]] = {}
    for blob in catalog_blobs(directory):
        if blob["schema"] == "olm.package":
            packages[blob["name"]] = {"package": blob, "channels": {}, "bundles": {}}
        elif blob["schema"] == "olm.channel":
            packages[blob["package"]]["channels"][blob["name"]] = blob
        elif blob["schema"] == "olm.bundle":
            packages[blob["package"]]["bundles"][blob["name"]] = blob
    for name, pkg in packages.items():
        channels = {
            ch: Channel(
                ch,
                name,
                tuple(
                    ChannelEntry(e["name"], e.get("replaces", ""), tuple(e.get("skips", ())))
                    for e in blob["entries"]
                ),
            )
            for ch, blob in pkg["channels"].items()
        }
        assert pkg["package"]["defaultChannel"] in channels, name
        used = set()
        for channel in channels.values():
            assert opm_channel_problems(channel) == [], (name, channel)
            used |= {e.name for e in channel.entries}
        assert used == set(pkg["bundles"]), name
    validate_with_olmcat(directory)
    return packages


def validate_with_olmcat(directory: Path) -> None:
    """Also run ``olmcat validate`` once it exists (it is written in parallel)."""
    if importlib.util.find_spec("olmcat.validate.checks") is None:
        return
    result = CliRunner().invoke(cli, ["validate", str(directory)])
    assert result.exit_code == 0, result.output
