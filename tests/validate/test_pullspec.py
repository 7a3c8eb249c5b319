"""Pull-spec validity as opm v1.72 decides it (docker reference ParseNormalizedNamed), and the
release versions of olm.package (model.NewRelease)."""

from __future__ import annotations

import pytest

from olmcat.validate.checks import release_problem
from olmcat.validate.pullspec import pull_spec_problem

DIGEST = "sha256:" + "a" * 64


@pytest.mark.parametrize(
    "spec",
    [
        "",  # opm does not check an empty image
        "busybox",
        "quay.io/org/op:v1.2.3",
        f"quay.io/org/op@{DIGEST}",
        f"quay.io/org/op:v1@{DIGEST}",
        "localhost:5000/op",
        "Quay.IO/org/op:v1",  # the domain may have capitals
        "registry.example.com:443/a/b/c_d.e--f:tag",
    ],
)
def test_valid_pull_specs(spec: str) -> None:
    assert pull_spec_problem(spec) is None


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("quay.io/Org/op:v1", "must be lowercase"),
        ("docker.io/strimzi/operator@@" + DIGEST, "invalid reference format"),
        ("quay.io/org/op:", "invalid reference format"),
        ("a" * 64, "64-byte hexadecimal"),
        ("quay.io/org/op@sha256:abc", "invalid reference format"),  # digest hex too short
        ("quay.io/org/op@md5:" + "a" * 32, "unsupported digest algorithm"),
        ("quay.io/org/op@sha256:" + "a" * 63 + "A", "invalid checksum digest format"),
        ("quay.io/" + "a" * 260, "not be more than 255 characters"),
        ("quay.io/org/op:" + "t" * 129, "invalid reference format"),
    ],
)
def test_invalid_pull_specs(spec: str, reason: str) -> None:
    problem = pull_spec_problem(spec)
    assert problem is not None and reason in problem


@pytest.mark.parametrize(
    ("release", "ok"),
    [
        ("1", True),
        ("alpha.1", True),
        ("a-b.2", True),
        ("01", False),
        ("a..b", False),
        ("a_b", False),
        ("x" * 21, False),
        ("x" * 20, True),
    ],
)
def test_release_versions(release: str, ok: bool) -> None:
    assert (release_problem(release) is None) == ok
