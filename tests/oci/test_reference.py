"""olmcat.oci.reference against library-go's own reference tests and rules."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from olmcat.errors import InputError
from olmcat.oci.reference import ImageReference, is_docker_hub, parse_reference

SHA = "sha256:3c87c572822935df60f0f5d3665bd376841a7fcfeb806b5f212de6a00e9a7b25"

# Values copied from openshift/library-go pkg/image/reference/reference_test.go, TestParse:
# (from, registry, namespace, name, tag, id).
PARSE_CASES = [
    ("foo", "", "", "foo", "", ""),
    ("foo:tag", "", "", "foo", "tag", ""),
    # A bare digest is a name "sha256" with a 64-character tag.
    (SHA, "", "", "sha256", SHA.split(":")[1], ""),
    (f"foo@{SHA}", "", "", "foo", "", SHA),
    ("bar/foo", "", "bar", "foo", "", ""),
    ("bar/foo:tag", "", "bar", "foo", "tag", ""),
    (f"bar/foo@{SHA}", "", "bar", "foo", "", SHA),
    ("bar/foo/baz", "", "bar", "foo/baz", "", ""),
    ("bar/library/baz", "", "bar", "library/baz", "", ""),
    ("bar/foo/baz:tag", "", "bar", "foo/baz", "tag", ""),
    (f"bar/foo/baz@{SHA}", "", "bar", "foo/baz", "", SHA),
    ("bar:5000/foo/baz", "bar:5000", "foo", "baz", "", ""),
    ("bar:5000/library/baz", "bar:5000", "library", "baz", "", ""),
    ("bar:5000/baz", "bar:5000", "", "baz", "", ""),
    ("bar:5000/foo/baz:tag", "bar:5000", "foo", "baz", "tag", ""),
    (f"bar:5000/foo/baz@{SHA}", "bar:5000", "foo", "baz", "", SHA),
    ("myregistry.io/foo", "myregistry.io", "", "foo", "", ""),
    ("localhost/bar", "localhost", "", "bar", "", ""),
    ("docker.io/library/myapp", "docker.io", "library", "myapp", "", ""),
    ("docker.io/myapp", "docker.io", "", "myapp", "", ""),
    ("docker.io/user/myapp", "docker.io", "user", "myapp", "", ""),
    ("docker.io/user/project/myapp", "docker.io", "user", "project/myapp", "", ""),
    ("index.docker.io/bar", "index.docker.io", "", "bar", "", ""),
    # registry/namespace/name == 255 chars
    (f"bar:5000/{'a' * 63}/{'b' * 182}:tag", "bar:5000", "a" * 63, "b" * 182, "tag", ""),
    (f"docker.io/library/{'b' * 231}:tag", "docker.io", "library", "b" * 231, "tag", ""),
    (f"docker.io/{'b' * 231}:tag", "docker.io", "", "b" * 231, "tag", ""),
    ("quay.io", "quay.io", "", "", "", ""),
    ("quay.io/org", "quay.io", "", "org", "", ""),
    ("localhost:5000", "localhost:5000", "", "", "", ""),
    ("localhost:5000/org", "localhost:5000", "", "org", "", ""),
    ("bar/foo/baz/biz", "", "bar", "foo/baz/biz", "", ""),
]

# library-go TestParse cases with Err: true.
INVALID_CASES = [
    f"bar:5000/{'a' * 63}/{'b' * 183}:tag",  # name longer than 255
    f"docker.io/{'b' * 246}:tag",
    "registry.io/foo/bar/:Tag",
    "https://bar:5000/foo/baz",
    f"http://bar:5000/foo/baz@{SHA}",
    "registry:3000/integration/imageStream:success",  # upper case in the path
    "registry:5000/integration/test-image-stream@sha256:00000000000000000000000000000001",
    "abc@badid",
    "index.docker.io/mysql@sha256:bad",
    f"@{SHA}",
    ":tag",
    "bar/foo/baz////biz",
    "//foo/baz/biz",
    "ftp://baz/baz/biz",
    "",
]


@pytest.mark.parametrize(("text", "registry", "namespace", "name", "tag", "digest"), PARSE_CASES)
def test_parse_matches_library_go(
    text: str, registry: str, namespace: str, name: str, tag: str, digest: str
) -> None:
    # library-go: TestParse
    assert parse_reference(text) == ImageReference(registry, namespace, name, tag, digest)
    assert ImageReference.parse(text) == parse_reference(text)


@pytest.mark.parametrize("text", INVALID_CASES)
def test_invalid_references_raise_input_error_quoting_them(text: str) -> None:
    # library-go: TestParse (Err: true cases)
    with pytest.raises(InputError) as excinfo:
        parse_reference(text)
    assert repr(text[:80])[1:-1] in str(excinfo.value) or text == ""


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("quay.io/Foo/bar", "lowercase"),
        (f"quay.io/foo@{SHA.upper().replace('SHA256', 'sha256')}", "lower case"),
        ("quay.io/foo@sha256:" + "a" * 63, "64 hex"),
        ("quay.io/foo@md5:" + "a" * 32, "unsupported digest algorithm"),
        (f"quay.io@{SHA}", "bare registry"),
    ],
)
def test_error_messages_say_what_is_wrong(text: str, reason: str) -> None:
    with pytest.raises(InputError, match=reason):
        parse_reference(text)


def test_overlong_input_is_refused_quickly() -> None:
    with pytest.raises(InputError, match="longer than"):
        parse_reference("a" * 10_000)


def test_tag_and_digest_both_kept_but_digest_printed() -> None:
    ref = parse_reference(f"quay.io/ns/app:v1@{SHA}")
    assert (ref.tag, ref.digest) == ("v1", SHA)
    # library-go NameString: the ID wins over the tag.
    assert ref.exact() == f"quay.io/ns/app@{SHA}"
    assert ref.name_string() == f"app@{SHA}"


def test_exact_and_str_differ_only_for_docker_hub_library() -> None:
    ref = parse_reference("docker.io/busybox:1")
    assert ref.exact() == "docker.io/busybox:1"
    assert str(ref) == "docker.io/library/busybox:1"
    # Without an explicit registry String() adds nothing either.
    assert str(parse_reference("busybox:1")) == "busybox:1"
    assert str(parse_reference("quay.io/busybox:1")) == "quay.io/busybox:1"


def test_bare_registry_prints_with_trailing_slash_like_library_go() -> None:
    assert parse_reference("quay.io").exact() == "quay.io/"
    assert ImageReference().exact() == ""


def test_docker_client_defaults() -> None:
    assert parse_reference("busybox").docker_client_defaults() == ImageReference(
        "docker.io", "library", "busybox", "latest", ""
    )
    assert parse_reference("quay.io/app").docker_client_defaults() == ImageReference(
        "quay.io", "", "app", "latest", ""
    )
    digested = parse_reference(f"busybox@{SHA}").docker_client_defaults()
    assert (digested.tag, digested.digest) == ("latest", SHA)


def test_daemon_minimal_undoes_defaults() -> None:
    ref = parse_reference("registry-1.docker.io/library/busybox:latest")
    assert ref.daemon_minimal() == ImageReference("docker.io", "", "busybox", "", "")
    assert parse_reference("quay.io/a/b:latest").daemon_minimal().exact() == "quay.io/a/b"


def test_as_repository_and_repository() -> None:
    ref = parse_reference(f"docker.io/strimzi/operator:1@{SHA}")
    assert ref.as_repository() == ImageReference("docker.io", "strimzi", "operator")
    assert ref.repository == "docker.io/strimzi/operator"
    assert parse_reference("docker.io/busybox:1").repository == "docker.io/library/busybox"


def test_non_digest_id_prints_as_tag() -> None:
    # library-go NameString: an ID that is not a digest is a v1 by-id tag.
    assert ImageReference("r.io", "", "app", "", "abc").exact() == "r.io/app:abc"


def test_is_docker_hub() -> None:
    assert all(is_docker_hub(r) for r in ("docker.io", "index.docker.io", "registry-1.docker.io"))
    assert not is_docker_hub("quay.io")
    assert not is_docker_hub("")


def test_frozen_with_slots() -> None:
    ref = parse_reference("quay.io/a/b:1")
    assert not hasattr(ref, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ref.tag = "2"  # type: ignore[misc]


# No "." here: library-go reads a dotted first component as a registry host.
_component = st.from_regex(r"[a-z0-9]{1,5}(?:(?:_|__|-+)[a-z0-9]{1,4}){0,2}", fullmatch=True)
_registry = st.sampled_from(["", "quay.io", "localhost", "localhost:5000", "r.example.com:443"])
_tag = st.from_regex(r"\w[\w.-]{0,10}", fullmatch=True).filter(lambda t: t.isascii())
_digest = st.sampled_from(["", SHA, "sha512:" + "ab" * 64])


@given(
    _registry, st.lists(_component, min_size=1, max_size=4), st.one_of(st.just(""), _tag), _digest
)
def test_printing_then_parsing_is_stable(
    registry: str, path: list[str], tag: str, digest: str
) -> None:
    text = "/".join(([registry] if registry else []) + path)
    text += (f":{tag}" if tag else "") + (f"@{digest}" if digest else "")
    ref = parse_reference(text)
    assert ref.registry == registry
    assert "/".join(p for p in (ref.namespace, ref.name) if p) == "/".join(path)
    assert parse_reference(ref.exact()).exact() == ref.exact()
    assert parse_reference(str(ref)).exact() == str(ref)
