"""Container image references, parsed the way ``oc`` parses them.

``oc adm catalog mirror`` parses every pull spec with openshift/library-go
``pkg/image/reference`` (``Parse`` on top of a fork of docker/distribution's reference grammar,
digests checked by opencontainers/go-digest). The mirror names olmcat computes are only
byte-identical to oc's if the split into registry / namespace / name / tag / digest is the same, so
this module follows those rules exactly, including their oddities:

* no normalisation while parsing: ``busybox`` has no registry and ``docker.io/busybox`` has no
  namespace; :meth:`ImageReference.docker_client_defaults` fills in ``docker.io``, ``library/`` and
  ``latest`` when asked, and :meth:`ImageReference.__str__` adds ``library/`` for explicit Docker
  Hub references only;
* the first path component is a registry only if it contains ``.`` or ``:`` or is ``localhost``;
* a reference without ``/`` that contains ``.`` or starts with ``localhost`` is a bare registry
  (``quay.io``, ``localhost:5000``);
* the namespace is the first path component after the registry, the name is everything after it
  (``quay.io/a/b/c`` is namespace ``a``, name ``b/c``);
* with both a tag and a digest, the digest wins when the reference is printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from olmcat.errors import InputError

__all__ = ["DOCKER_DEFAULT_REGISTRY", "ImageReference", "is_docker_hub", "parse_reference"]

DOCKER_DEFAULT_REGISTRY = "docker.io"
_DOCKER_HUB_REGISTRIES = frozenset(
    {DOCKER_DEFAULT_REGISTRY, "index.docker.io", "registry-1.docker.io"}
)

# docker/distribution's grammar as forked into library-go. The separator there is
# ``(?:[._]|__|[-]*)``; ``-+`` accepts exactly the same names (an empty separator just lengthens
# the alphanumeric run) but cannot backtrack exponentially on hostile input, which Go's RE2 never
# does and Python's ``re`` would.
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_HOST_COMPONENT = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?"
_HOSTNAME = rf"{_HOST_COMPONENT}(?:\.{_HOST_COMPONENT})*(?::[0-9]+)?"
_NAME = rf"(?:{_HOSTNAME}/)?{_COMPONENT}(?:/{_COMPONENT})*"
_TAG = r"\w[\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
_REFERENCE_RE = re.compile(rf"({_NAME})(?::({_TAG}))?(?:@({_DIGEST}))?", re.ASCII)

# distribution's NameTotalLengthMax: registry and path together.
_NAME_TOTAL_LENGTH_MAX = 255
# go-digest knows these algorithms; hex must be lower case and of exactly this length.
_DIGEST_HEX_LENGTHS = {"sha256": 64, "sha384": 96, "sha512": 128}
_LOWER_HEX_RE = re.compile(r"[a-f0-9]+", re.ASCII)
# Longest string that can parse: name, ":" tag, "@sha512:" hex. Checked first so that absurdly long
# input is refused before any regular expression sees it.
_MAX_REFERENCE_LENGTH = _NAME_TOTAL_LENGTH_MAX + 1 + 128 + 1 + len("sha512:") + 128


def is_docker_hub(registry: str) -> bool:
    """Whether ``registry`` is one of the host names library-go treats as Docker Hub."""
    return registry in _DOCKER_HUB_REGISTRIES


def _digest_problem(digest: str) -> str | None:
    """go-digest's ``Parse``: why ``digest`` is unusable, or ``None``."""
    algorithm, _, encoded = digest.partition(":")
    expected = _DIGEST_HEX_LENGTHS.get(algorithm)
    if expected is None:
        return f"unsupported digest algorithm {algorithm!r}"
    if len(encoded) != expected:
        return f"{algorithm} digest must have {expected} hex characters, not {len(encoded)}"
    if _LOWER_HEX_RE.fullmatch(encoded) is None:
        return "digest hex must be lower case"
    return None


def _is_digest(value: str) -> bool:
    return ":" in value and _digest_problem(value) is None


@dataclass(frozen=True, slots=True)
class ImageReference:
    """A parsed pull spec: library-go's ``DockerImageReference``.

    ``digest`` is library-go's ``ID``. Every field is ``""`` when absent; parsing fills in nothing.
    """

    registry: str = ""
    namespace: str = ""
    name: str = ""
    tag: str = ""
    digest: str = ""

    @classmethod
    def parse(cls, text: str) -> ImageReference:
        """Parse like library-go ``reference.Parse``; :class:`InputError` if invalid."""
        return parse_reference(text)

    def name_string(self) -> str:
        """Name with tag or digest (the digest wins): library-go ``NameString``."""
        if not self.name:
            return ""
        if self.digest:
            # library-go prints a non-digest ID as a (v1) tag.
            return f"{self.name}{'@' if _is_digest(self.digest) else ':'}{self.digest}"
        if self.tag:
            return f"{self.name}:{self.tag}"
        return self.name

    def exact(self) -> str:
        """The set fields, without defaults: library-go ``Exact``."""
        prefix = f"{self.registry}/" if self.registry else ""
        if self.namespace:
            prefix += f"{self.namespace}/"
        name = self.name_string()
        if not name:
            return prefix if self.registry else ""
        return prefix + name

    def __str__(self) -> str:
        """Pull spec with ``library/`` added for Docker Hub: library-go ``String``."""
        if not self.namespace and is_docker_hub(self.registry):
            return replace(self, namespace="library").exact()
        return self.exact()

    def as_repository(self) -> ImageReference:
        """The same reference without tag and digest: library-go ``AsRepository``."""
        return replace(self, tag="", digest="")

    def docker_client_defaults(self) -> ImageReference:
        """Fill in what a Docker client assumes: ``docker.io``, ``library``, ``latest``."""
        registry = self.registry or DOCKER_DEFAULT_REGISTRY
        namespace = self.namespace
        if not namespace and is_docker_hub(registry):
            namespace = "library"
        return replace(self, registry=registry, namespace=namespace, tag=self.tag or "latest")

    def minimal(self) -> ImageReference:
        """Drop a ``latest`` tag: library-go ``Minimal``."""
        return replace(self, tag="") if self.tag == "latest" else self

    def daemon_minimal(self) -> ImageReference:
        """Undo the Docker client defaults: library-go ``DaemonMinimal``."""
        ref = self
        if ref.registry in ("index.docker.io", "registry-1.docker.io"):
            ref = replace(ref, registry=DOCKER_DEFAULT_REGISTRY)
        if is_docker_hub(ref.registry) and ref.namespace == "library":
            ref = replace(ref, namespace="")
        return ref.minimal()

    @property
    def repository(self) -> str:
        """``registry/namespace/name`` as printed by ``AsRepository().String()``."""
        return str(self.as_repository())


def parse_reference(text: str) -> ImageReference:
    """Parse a pull spec exactly as library-go ``reference.Parse`` does.

    Raises :class:`InputError` naming ``text`` when it is not a valid reference.
    """
    if not text:
        raise InputError('invalid image reference "": repository name must have a component')
    if len(text) > _MAX_REFERENCE_LENGTH:
        raise InputError(f"invalid image reference {text[:80]!r}...: longer than any valid one")
    match = _REFERENCE_RE.fullmatch(text)
    if match is None:
        reason = "invalid reference format"
        if _REFERENCE_RE.fullmatch(text.lower()) is not None:
            reason = "repository name must be lowercase"
        raise InputError(f"invalid image reference {text!r}: {reason}")
    full_name, tag, digest = match.group(1), match.group(2) or "", match.group(3) or ""
    if len(full_name) > _NAME_TOTAL_LENGTH_MAX:
        raise InputError(
            f"invalid image reference {text!r}: repository name must not be more than "
            f"{_NAME_TOTAL_LENGTH_MAX} characters"
        )
    if digest:
        problem = _digest_problem(digest)
        if problem is not None:
            raise InputError(f"invalid image reference {text!r}: {problem}")

    slash = full_name.find("/")
    if slash == -1 and ("." in full_name or full_name.startswith("localhost")):
        # library-go keeps the whole spec as the registry, so "localhost:5000" (parsed by the
        # grammar as name "localhost", tag "5000") comes back as registry "localhost:5000".
        if digest:
            # library-go would return registry "host@sha256:..." -- not a usable registry.
            raise InputError(f"invalid image reference {text!r}: a bare registry has no digest")
        registry = full_name + (f":{tag}" if tag else "")
        return ImageReference(registry=registry)

    first = full_name[:slash]
    if slash == -1 or (":" not in first and "." not in first and first != "localhost"):
        registry, path = "", full_name
    else:
        registry, path = first, full_name[slash + 1 :]
    namespace, sep, name = path.partition("/")
    if not sep:
        namespace, name = "", path
    return ImageReference(registry=registry, namespace=namespace, name=name, tag=tag, digest=digest)
