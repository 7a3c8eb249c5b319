"""Image pull-spec validity as opm v1.72 checks it: ``reference.ParseNormalizedNamed`` of the
containers/image fork of docker/distribution's reference package.

Only the verdict and its reason matter here (``olmcat mirror`` parses references the way ``oc``
does, in :mod:`olmcat.oci.reference`); this follows the normalizing parser opm uses, whose
differences from ``oc``'s show up as verdicts: ``quay.io/Org/img`` is refused (upper case
repository), ``Quay.IO/org/img`` is fine (the domain may have capitals).
"""

from __future__ import annotations

import re

_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*(?::[0-9]+)?"
# distribution's separator is (?:[._]|__|[-]*); "-+" accepts the same names without the
# exponential backtracking Python's re could do on hostile input.
_PATH_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_NAME = rf"(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
_REFERENCE = re.compile(rf"({_NAME})(?::({_TAG}))?(?:@({_DIGEST}))?", re.ASCII)
_IDENTIFIER = re.compile(r"[a-f0-9]{64}", re.ASCII)
_NAME_TOTAL_LENGTH_MAX = 255
_DIGEST_LENGTHS = {"sha256": 64, "sha384": 96, "sha512": 128}
# Longer than any reference that can parse (name, tag, the longest digest): refuse before regexps.
_MAX_LENGTH = _NAME_TOTAL_LENGTH_MAX + 1 + 128 + 1 + len("sha512:") + 128
_DEFAULT_DOMAIN = "docker.io"


def _split_domain(name: str) -> tuple[str, str]:
    slash = name.find("/")
    first = name[:slash]
    if slash == -1 or (not any(c in first for c in ".:") and first != "localhost"):
        domain, remainder = _DEFAULT_DOMAIN, name
    else:
        domain, remainder = first, name[slash + 1 :]
    if domain == "index.docker.io":
        domain = _DEFAULT_DOMAIN
    if domain == _DEFAULT_DOMAIN and "/" not in remainder:
        remainder = "library/" + remainder
    return domain, remainder


def _digest_problem(digest: str) -> str | None:
    algorithm, _, encoded = digest.partition(":")
    expected = _DIGEST_LENGTHS.get(algorithm)
    if expected is None:
        return "unsupported digest algorithm"
    if len(encoded) != expected:
        return "invalid checksum digest length"
    if re.fullmatch(r"[a-f0-9]+", encoded) is None:
        return "invalid checksum digest format"
    return None


def pull_spec_problem(spec: str) -> str | None:
    """Why opm v1.72 refuses ``spec`` as an image pull spec, or ``None`` if it accepts it.
    (An empty spec is not checked by opm, and is not checked here.)"""
    if not spec:
        return None
    if len(spec) > _MAX_LENGTH:
        return "invalid reference format: longer than any valid reference"
    if _IDENTIFIER.fullmatch(spec):
        return "invalid repository name, cannot specify 64-byte hexadecimal strings"
    domain, remainder = _split_domain(spec)
    repository = remainder.split(":", 1)[0]
    if repository.lower() != repository:
        return "invalid reference format: repository name must be lowercase"
    full = f"{domain}/{remainder}"
    match = _REFERENCE.fullmatch(full)
    if match is None:
        if _REFERENCE.fullmatch(full.lower()) is not None:
            return "invalid reference format: repository name must be lowercase"
        return "invalid reference format"
    if len(match.group(1)) > _NAME_TOTAL_LENGTH_MAX:
        return f"repository name must not be more than {_NAME_TOTAL_LENGTH_MAX} characters"
    digest = match.group(3)
    if digest:
        return _digest_problem(digest)
    return None
