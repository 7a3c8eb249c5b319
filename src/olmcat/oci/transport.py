"""Image locations in the containers-transports(5) forms that skopeo and podman users know.

* ``docker://HOST/REPO[:TAG|@DIGEST]`` -- an image in a registry (Docker Hub defaults apply:
  ``docker://busybox`` is ``docker.io/library/busybox:latest``);
* ``HOST/REPO[:TAG|@DIGEST]`` without a prefix -- the same, but only when no file or directory of
  that name exists and the first component names a registry (has a ``.`` or ``:`` or is
  ``localhost``), so a relative path like ``catalogs/v1`` is never mistaken for an image;
* ``oci:DIR[:REF]`` -- an OCI image layout directory, ``REF`` being the
  ``org.opencontainers.image.ref.name`` of one image in its ``index.json``;
* ``oci-archive:FILE[:REF]`` -- such a layout inside a tar file;
* ``docker-archive:FILE[:REF]`` -- a ``docker save`` tar (``REF`` one of its ``RepoTags``).

An explicit prefix always wins over detection. As in containers/image, the path ends at the first
``:`` after the prefix, so ``REF`` may itself contain ``:`` and ``@``
(``oci:mirror:quay.io/a/b:1``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from olmcat.errors import InputError
from olmcat.oci.reference import ImageReference, parse_reference

__all__ = [
    "DOCKER_PREFIX",
    "ImageLocation",
    "Transport",
    "parse_location",
    "registry_reference",
]

Transport = Literal["docker", "oci", "oci-archive", "docker-archive"]
DOCKER_PREFIX = "docker://"
_PATH_TRANSPORTS: tuple[Transport, ...] = ("oci", "oci-archive", "docker-archive")


@dataclass(frozen=True, slots=True)
class ImageLocation:
    """Where an image is: in a registry (``reference``) or on disk (``path`` and ``ref``)."""

    transport: Transport
    text: str  # as the user wrote it, for messages
    reference: ImageReference | None = None  # docker: with Docker client defaults applied
    path: Path | None = None  # oci, oci-archive, docker-archive
    ref: str | None = None  # the image's name inside the layout / archive

    @property
    def is_registry(self) -> bool:
        return self.transport == "docker"

    def __str__(self) -> str:
        return self.text


def registry_reference(text: str) -> ImageReference:
    """Parse ``HOST/REPO[:TAG|@DIGEST]`` and fill in what a Docker client assumes."""
    ref = parse_reference(text)
    if not ref.name:
        raise InputError(f"image reference {text!r} names a registry, not an image")
    full = ref.docker_client_defaults()
    # A digest alone pins the image; no "latest" tag is invented next to it.
    return replace(full, tag="") if ref.digest and not ref.tag else full


def _looks_like_registry_image(text: str) -> bool:
    first, slash, _ = text.partition("/")
    if not slash or not first:
        return False
    return "." in first or ":" in first or first == "localhost"


def parse_location(text: str, *, plain_paths_exist: bool = True) -> ImageLocation | None:
    """The image location ``text`` names, or ``None`` when it is a plain file system path.

    ``plain_paths_exist`` checks the file system before reading an unprefixed ``HOST/REPO`` as an
    image; pass ``False`` where the text can only be an image (a copy destination).
    """
    if text.startswith(DOCKER_PREFIX):
        rest = text[len(DOCKER_PREFIX) :]
        if not rest:
            raise InputError(f"{text!r}: docker:// needs an image reference")
        return ImageLocation("docker", text, reference=registry_reference(rest))
    for transport in _PATH_TRANSPORTS:
        prefix = f"{transport}:"
        if text.startswith(prefix):
            rest = text[len(prefix) :]
            path, sep, ref = rest.partition(":")
            if not path:
                raise InputError(f"{text!r}: {transport}: needs a path")
            if sep and not ref:
                raise InputError(f"{text!r}: empty image name after the path")
            return ImageLocation(transport, text, path=Path(path), ref=ref or None)
    if plain_paths_exist and (text == "-" or Path(text).exists()):
        return None
    if _looks_like_registry_image(text):
        try:
            return ImageLocation("docker", text, reference=registry_reference(text))
        except InputError:
            return None
    return None
