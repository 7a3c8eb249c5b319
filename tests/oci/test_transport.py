"""Image locations in the containers-transports forms (no network)."""

from __future__ import annotations

from pathlib import Path

import pytest

from olmcat.errors import InputError
from olmcat.oci.transport import parse_location, registry_reference
from olmcat.readers.catalog import detect

DIGEST = "sha256:" + "ab" * 32


@pytest.mark.parametrize(
    ("text", "registry", "repository", "tag", "digest"),
    [
        ("docker://quay.io/org/index:v4.14", "quay.io", "org/index", "v4.14", ""),
        (f"docker://quay.io/org/index@{DIGEST}", "quay.io", "org/index", "", DIGEST),
        (f"docker://quay.io/org/index:v1@{DIGEST}", "quay.io", "org/index", "v1", DIGEST),
        ("docker://busybox", "docker.io", "library/busybox", "latest", ""),
        ("docker://127.0.0.1:5000/index", "127.0.0.1:5000", "index", "latest", ""),
        ("localhost/a/b/c:1", "localhost", "a/b/c", "1", ""),
        (
            "registry.example.com:5000/ns/index:v1",
            "registry.example.com:5000",
            "ns/index",
            "v1",
            "",
        ),
    ],
)
def test_registry_forms(
    text: str,
    registry: str,
    repository: str,
    tag: str,
    digest: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # no path of that name exists here
    location = parse_location(text)
    assert location is not None and location.transport == "docker"
    ref = location.reference
    assert ref is not None
    assert ref.registry == registry
    assert (f"{ref.namespace}/{ref.name}" if ref.namespace else ref.name) == repository
    assert (ref.tag, ref.digest) == (tag, digest)


def test_path_transports_split_at_the_first_colon() -> None:
    oci = parse_location("oci:/mnt/usb/mirror:quay.io/org/op@" + DIGEST)
    assert oci is not None and oci.transport == "oci"
    assert oci.path == Path("/mnt/usb/mirror") and oci.ref == "quay.io/org/op@" + DIGEST
    archive = parse_location("oci-archive:index.tar")
    assert archive is not None and archive.transport == "oci-archive"
    assert archive.path == Path("index.tar") and archive.ref is None
    docker = parse_location("docker-archive:saved.tar:quay.io/org/index:v1")
    assert docker is not None and docker.transport == "docker-archive"
    assert docker.ref == "quay.io/org/index:v1"


def test_existing_paths_win_over_plain_references(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "quay.io" / "org").mkdir(parents=True)
    (tmp_path / "quay.io" / "org" / "index").write_text("{}")
    assert parse_location("quay.io/org/index") is None
    assert parse_location("docker://quay.io/org/index") is not None  # the prefix wins
    # Relative paths without a registry-like first component are never images.
    assert parse_location("catalogs/v1") is None
    assert parse_location("-") is None


def test_explicit_prefix_wins_even_over_an_existing_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "oci:layout").mkdir()
    location = parse_location("oci:layout")
    assert location is not None and location.transport == "oci"
    assert location.path == Path("layout")


@pytest.mark.parametrize(
    "text", ["docker://", "oci:", "oci::name", "docker://quay.io/Org/Index", "oci-archive:file:"]
)
def test_malformed_locations_are_refused(text: str) -> None:
    with pytest.raises(InputError):
        parse_location(text)


def test_detect_reads_references_as_images(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert detect("docker://quay.io/org/index:v1") == "image"
    assert detect("quay.io/org/index:v1") == "image"
    assert detect("oci:somewhere") == "image"
    with pytest.raises(InputError, match="no such file"):
        detect("not/here")


def test_registry_reference_digest_only_gets_no_tag() -> None:
    assert registry_reference(f"quay.io/a/b@{DIGEST}").exact() == f"quay.io/a/b@{DIGEST}"
    assert registry_reference("busybox").exact() == "docker.io/library/busybox:latest"
    with pytest.raises(InputError, match="names a registry"):
        registry_reference("quay.io")
