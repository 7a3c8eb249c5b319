"""olmcat.mirror.naming against the examples in openshift/oc's own ``catalog mirror`` tests.

Test values are copied from openshift/oc ``pkg/cli/admin/catalog/mirrorer_test.go`` and
``mirror_test.go``; each case names the Go test function and case it comes from.
"""

from __future__ import annotations

import random

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from olmcat.errors import InputError, OutputError
from olmcat.mirror.naming import (
    CATALOG_LABEL,
    MAX_POLICY_SIZE,
    Mapping,
    catalog_name,
    join_documents,
    parse_destination,
    plan_index_mapping,
    plan_mappings,
    render_catalog_source,
    render_icsp,
    render_idms,
    render_itms,
    render_mapping_txt,
)
from olmcat.oci.reference import ImageReference
from tests.support.mirror_checks import TEST_DB_IMAGES, TEST_DB_INDEX

D154 = "sha256:154d7e0295a94fb3d2a97309d711186a98a7308da37a5cd3d50360c6b2ba57de"
D134 = "sha256:d134a9865524c29fcf75bbc4469013bc38d8a15cb5f41acfddb6b9e492f556e4"
UBI = "sha256:9285da611437622492f9ef4229877efe302589f1401bbd4052e9bb261b3d4387"


def R(registry: str, namespace: str, name: str, tag: str, digest: str = "") -> ImageReference:
    """oc's ``reference.DockerImageReference{Registry, Namespace, Name, Tag, ID}``."""
    return ImageReference(registry, namespace, name, tag, digest)


def targets(mappings: list[Mapping]) -> dict[str, ImageReference]:
    return {m.source_text: m.target for m in mappings}


# oc: TestMappingForImages -- (case, images, dest, max components, {source key: target}).
MAPPING_FOR_IMAGES = [
    # oc: TestMappingForImages/"tagged image to registry"
    (
        "tagged image to registry",
        ["docker.io/my/image:tag"],
        "quay.io",
        2,
        {"docker.io/my/image:tag": R("quay.io", "my", "image", "tag")},
    ),
    # oc: TestMappingForImages/"namespaceless image to registry"
    (
        "namespaceless image to registry",
        [f"registry.access.redhat.com/ubi8-minimal@{UBI}"],
        "quay.io",
        2,
        {
            f"registry.access.redhat.com/ubi8-minimal@{UBI}": R(
                "quay.io", "", "ubi8-minimal", "51f124fa", UBI
            )
        },
    ),
    # oc: TestMappingForImages/"untagged image to registry"
    (
        "untagged image to registry",
        ["docker.io/my/image"],
        "quay.io",
        2,
        {"docker.io/my/image:latest": R("quay.io", "my", "image", "latest")},
    ),
    # oc: TestMappingForImages/"tagged and untagged images to registry"
    (
        "tagged and untagged images to registry",
        ["docker.io/my/image", "docker.io/my/second-image:preserved"],
        "quay.io",
        2,
        {
            "docker.io/my/image:latest": R("quay.io", "my", "image", "latest"),
            "docker.io/my/second-image:preserved": R("quay.io", "my", "second-image", "preserved"),
        },
    ),
    # oc: TestMappingForImages/"digest image to registry"
    (
        "digest image to registry",
        [f"docker.io/my/image@{D154}"],
        "quay.io",
        2,
        {f"docker.io/my/image@{D154}": R("quay.io", "my", "image", "a1d77056", D154)},
    ),
    # oc: TestMappingForImages/"tagged image to registry with port"
    (
        "tagged image to registry with port",
        ["docker.io/my/image:tag"],
        "localhost:5000",
        2,
        {"docker.io/my/image:tag": R("localhost:5000", "my", "image", "tag")},
    ),
    # oc: TestMappingForImages/"digest image to registry with port"
    (
        "digest image to registry with port",
        [f"docker.io/my/image@{D154}"],
        "localhost:5000",
        2,
        {f"docker.io/my/image@{D154}": R("localhost:5000", "my", "image", "a1d77056", D154)},
    ),
    # oc: TestMappingForImages/"tagged image to org"
    (
        "tagged image to org",
        ["docker.io/my/image:tag"],
        "quay.io/my-org",
        2,
        {"docker.io/my/image:tag": R("quay.io", "my-org", "my-image", "tag")},
    ),
    # oc: TestMappingForImages/"untagged image to org"
    (
        "untagged image to org",
        ["docker.io/my/image"],
        "quay.io/my-org",
        2,
        {"docker.io/my/image:latest": R("quay.io", "my-org", "my-image", "latest")},
    ),
    # oc: TestMappingForImages/"digest image to org"
    (
        "digest image to org",
        [f"docker.io/my/image@{D154}"],
        "quay.io/my-org",
        2,
        {f"docker.io/my/image@{D154}": R("quay.io", "my-org", "my-image", "a1d77056", D154)},
    ),
    # oc: TestMappingForImages/"tagged image to org, max 3 components"
    (
        "tagged image to org, max 3 components",
        ["docker.io/my/image:tag"],
        "quay.io/my-org",
        3,
        {"docker.io/my/image:tag": R("quay.io", "my-org", "my/image", "tag")},
    ),
    # oc: TestMappingForImages/"untagged image to org, max 3 components"
    (
        "untagged image to org, max 3 components",
        ["docker.io/my/image"],
        "quay.io/my-org",
        3,
        {"docker.io/my/image:latest": R("quay.io", "my-org", "my/image", "latest")},
    ),
    # oc: TestMappingForImages/"digest image to org, max 3 components"
    (
        "digest image to org, max 3 components",
        [f"docker.io/my/image@{D154}"],
        "quay.io/my-org",
        3,
        {f"docker.io/my/image@{D154}": R("quay.io", "my-org", "my/image", "a1d77056", D154)},
    ),
    # oc: TestMappingForImages/"digest image to nested org, max 3 components"
    (
        "digest image to nested org, max 3 components",
        [f"docker.io/my/image@{D154}"],
        "quay.io/my-org/sub-org",
        3,
        {
            f"docker.io/my/image@{D154}": R(
                "quay.io", "my-org", "sub-org/my-image", "a1d77056", D154
            )
        },
    ),
    # oc: TestMappingForImages/"digest image to nested org, max 4 components"
    (
        "digest image to nested org, max 4 components",
        [f"docker.io/my/image@{D154}"],
        "quay.io/my-org/sub-org",
        4,
        {
            f"docker.io/my/image@{D154}": R(
                "quay.io", "my-org", "sub-org/my/image", "a1d77056", D154
            )
        },
    ),
    # oc: TestMappingForImages/"digest image to nested org, no max"
    (
        "digest image to nested org, no max",
        [f"docker.io/my/image@{D154}"],
        "quay.io/my-org/sub-org",
        0,
        {
            f"docker.io/my/image@{D154}": R(
                "quay.io", "my-org", "sub-org/my/image", "a1d77056", D154
            )
        },
    ),
]


@pytest.mark.parametrize(
    ("case", "images", "dest", "max_components", "want"),
    MAPPING_FOR_IMAGES,
    ids=[case[0] for case in MAPPING_FOR_IMAGES],
)
def test_mapping_for_images(
    case: str, images: list[str], dest: str, max_components: int, want: dict[str, ImageReference]
) -> None:
    # oc: TestMappingForImages/<case>
    got = plan_mappings(images, dest, max_components=max_components)
    assert targets(got) == want
    assert not any(m.target_is_file for m in got)


def test_mapping_for_images_dest_is_local_file() -> None:
    # oc: TestMappingForImages/"dest is local file" (the index there is the bare registry quay.io)
    images = [
        "docker.io/my/image",
        "docker.io/my/second-image:preserved",
        f"docker.io/my/digest-image@{D154}",
    ]
    got = plan_mappings(images, "file://my-local-index/index", index="quay.io")
    assert {k: v for k, v in targets(got).items() if k != "quay.io/"} == {
        "docker.io/my/image:latest": R("", "my-local-index", "index/my/image", "latest"),
        "docker.io/my/second-image:preserved": R(
            "", "my-local-index", "index/my/second-image", "preserved"
        ),
        f"docker.io/my/digest-image@{D154}": R(
            "", "my-local-index", "index/my/digest-image", "dcbadf49", D154
        ),
    }
    assert all(m.target_is_file for m in got)
    assert "docker.io/my/image:latest=file://my-local-index/index/my/image:latest" in (
        render_mapping_txt(got).splitlines()
    )


def test_mirror_maps_related_images_and_bundle_images() -> None:
    # oc: TestMirror/"sqlite maps related images and bundle images" (wantRelatedAndBundleImages)
    got = plan_mappings(TEST_DB_IMAGES, "localhost:5000", index=TEST_DB_INDEX)
    assert targets(got) == {
        src: R("localhost:5000", ns, name, tag, digest)
        for src, (ns, name, tag, digest) in TEST_DB_IMAGES.items()
    }


@pytest.mark.parametrize(
    ("dest", "registry"),
    [
        # oc: TestMirror/"sqlite maps into a single registry namespace"
        ("localhost:5000/org", "localhost:5000"),
        # oc: TestMirror/"sqlite maps into a single quay namespace" (wantSingleQuayNamespace)
        ("quay.io/org", "quay.io"),
    ],
)
def test_mirror_maps_into_a_single_namespace(dest: str, registry: str) -> None:
    got = plan_mappings(TEST_DB_IMAGES, dest, index=TEST_DB_INDEX)
    assert targets(got) == {
        src: R(registry, "org", f"{ns}-{name}", tag, digest)
        for src, (ns, name, tag, digest) in TEST_DB_IMAGES.items()
    }


def test_air_gap_mirror_to_file() -> None:
    # oc: TestAirGapMirror/"sqlite maps to and from an intermediate file" (wantToFile)
    got = plan_mappings(TEST_DB_IMAGES, "file:///local/index", index=TEST_DB_INDEX)
    want = {
        src: R("", "local", f"index/example/image/{ns}/{name}", tag, digest)
        for src, (ns, name, tag, digest) in TEST_DB_IMAGES.items()
    }
    # The index itself is mounted directly under the destination, not under itself.
    want[TEST_DB_INDEX] = R("", "local", "index/example/image", "tag")
    assert targets(got) == want
    by_source = {m.source_text: m for m in got}
    assert by_source[TEST_DB_INDEX].target_text == "file://local/index/example/image:tag"
    assert (
        by_source["quay.io/test/prometheus.0.14.0:latest"].target_text
        == "file://local/index/example/image/test/prometheus.0.14.0:latest"
    )


def test_file_destination_ignores_max_components() -> None:
    # oc Complete(): MaxPathComponents = 0 for file:// destinations.
    got = plan_mappings(["quay.io/a/b/c/d:1"], "file://store", index="quay.io/x/idx:1")
    assert targets(got)["quay.io/a/b/c/d:1"] == R("", "store", "x/idx/a/b/c/d", "1")


def test_write_to_mapping() -> None:
    # oc: TestWriteToMapping/"src is tagged", /"src has digest" and /"multiple"
    got = plan_mappings(
        [f"docker.io/strimzi/operator@{D134}", "quay.io/halkyonio/operator:v0.1.8"],
        "quay.io/olmtest",
    )
    assert render_mapping_txt(got) == (
        f"docker.io/strimzi/operator@{D134}=quay.io/olmtest/strimzi-operator:2b13d275\n"
        "quay.io/halkyonio/operator:v0.1.8=quay.io/olmtest/halkyonio-operator:v0.1.8\n"
    )
    digested = next(m for m in got if m.by_digest)
    # oc: TestWriteToMapping/"src has digest" -- the target keeps the digest for the policies.
    assert digested.target == R("quay.io", "olmtest", "strimzi-operator", "2b13d275", D134)
    assert digested.target_pull_spec == f"quay.io/olmtest/strimzi-operator@{D134}"


def test_render_mapping_txt_empty() -> None:
    assert render_mapping_txt([]) == ""


def test_docker_hub_short_names_get_library() -> None:
    got = plan_mappings(["busybox:1.36", f"docker.io/alpine@{D154}"], "mirror.local:5000")
    lines = render_mapping_txt(got).splitlines()
    assert lines[0].startswith(f"docker.io/library/alpine@{D154}=mirror.local:5000/library/alpine:")
    assert lines[1] == "docker.io/library/busybox:1.36=mirror.local:5000/library/busybox:1.36"


def test_invented_tag_hashes_the_reference_as_written() -> None:
    # oc mount(): FNV-1a of out.Ref.String() before Docker client defaults, so the same image
    # spelt two ways gets two tags; oc keeps one at random, olmcat the one that sorts first.
    short = plan_mappings([f"busybox@{D154}"], "quay.io/m")
    full = plan_mappings([f"docker.io/library/busybox@{D154}"], "quay.io/m")
    assert short[0].target.tag != full[0].target.tag
    both = plan_mappings([f"busybox@{D154}", f"docker.io/library/busybox@{D154}"], "quay.io/m")
    assert len(both) == 1
    assert both[0].target_text == min(short[0].target_text, full[0].target_text)


def test_tag_and_digest_source_keeps_its_tag() -> None:
    got = plan_mappings([f"quay.io/ns/app:v1@{D154}"], "quay.io/m")
    assert str(got[0]) == f"quay.io/ns/app@{D154}=quay.io/m/ns-app:v1"
    assert got[0].by_digest


def test_single_component_without_limit_is_a_name() -> None:
    # oc with --max-components 0 would produce "quay.io/ubi8-minimal/" here; olmcat keeps the name.
    got = plan_mappings(
        [f"registry.access.redhat.com/ubi8-minimal@{UBI}"], "quay.io", max_components=0
    )
    assert got[0].target == R("quay.io", "", "ubi8-minimal", "51f124fa", UBI)


def test_long_paths_fold_into_the_last_component() -> None:
    srcs = ["quay.io/a/b/c/d:1"]
    assert targets(plan_mappings(srcs, "r.io/x"))["quay.io/a/b/c/d:1"] == R(
        "r.io", "x", "a-b-c-d", "1"
    )
    assert targets(plan_mappings(srcs, "r.io/x", max_components=3))["quay.io/a/b/c/d:1"] == R(
        "r.io", "x", "a/b-c-d", "1"
    )
    assert targets(plan_mappings(srcs, "r.io", max_components=5))["quay.io/a/b/c/d:1"] == R(
        "r.io", "a", "b/c/d", "1"
    )


def test_index_mapping_keeps_the_index_as_written() -> None:
    mapping = plan_index_mapping("quay.io/the/index:1", "quay.io/olmtest")
    assert str(mapping) == "quay.io/the/index:1=quay.io/olmtest/the-index:1"
    assert mapping in plan_mappings([], "quay.io/olmtest", index="quay.io/the/index:1")


def test_empty_sources_are_skipped() -> None:
    assert plan_mappings(["", ""], "quay.io") == []


@pytest.mark.parametrize(
    ("dest", "message"),
    [
        ("registry:5000", "must start with a registry host"),
        ("myorg", "must start with a registry host"),
        ("quay.io/org:tag", "must not have a tag"),
        ("file://store/x:1", "must not have a tag"),
        ("s3://bucket/x", "not supported"),
        ("quay.io/Org", "lowercase"),
    ],
)
def test_bad_destinations(dest: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        plan_mappings(["quay.io/a/b:1"], dest)


def test_destination_forms() -> None:
    assert str(parse_destination("file:///local/index")) == "file://local/index"
    assert parse_destination("localhost:5000").ref == R("localhost:5000", "", "", "")
    assert parse_destination("quay.io/a/b").ref == R("quay.io", "a", "b", "")


def test_bad_sources_and_arguments() -> None:
    with pytest.raises(InputError, match=r"'quay\.io/Bad:1'"):
        plan_mappings(["quay.io/Bad:1"], "quay.io")
    with pytest.raises(InputError, match="is a registry"):
        plan_mappings(["quay.io"], "mirror.io")
    with pytest.raises(InputError, match="only registry sources"):
        plan_mappings(["file://local/a/b:1"], "mirror.io")
    with pytest.raises(ValueError, match="max_components"):
        plan_mappings(["quay.io/a/b:1"], "mirror.io", max_components=1)
    with pytest.raises(ValueError, match="max_components"):
        plan_mappings(["quay.io/a/b:1"], "mirror.io", max_components=-1)
    with pytest.raises(ValueError, match="index"):
        plan_mappings(["quay.io/a/b:1"], "file://store")
    with pytest.raises(InputError, match="names no repository"):
        plan_mappings([], "mirror.io", index="quay.io")


def test_plan_is_deterministic_under_shuffling() -> None:
    images = list(TEST_DB_IMAGES)
    first = plan_mappings(images, "quay.io/org", index=TEST_DB_INDEX)
    rng = random.Random(7)
    for _ in range(20):
        rng.shuffle(images)
        again = plan_mappings(images + images[:3], "quay.io/org", index=TEST_DB_INDEX)
        assert again == first
        assert render_mapping_txt(again) == render_mapping_txt(first)
        assert render_icsp(again, name="image") == render_icsp(first, name="image")
    assert first == sorted(first, key=lambda m: (m.source_text, m.target_text))


# oc: TestGetRegistryMapping -- the ICSP entries for each case.
@pytest.mark.parametrize(
    ("case", "scope", "sources", "want"),
    [
        ("src is tagged - skip mirrors", "repository", ["quay.io/halkyonio/operator:v0.1.8"], []),
        (
            "src is tagged and icsp with registy scope - skip mirror",
            "registry",
            ["quay.io/halkyonio/operator:v0.1.8"],
            [],
        ),
        (
            "src has digest",
            "repository",
            [f"docker.io/strimzi/operator@{D134}"],
            [("docker.io/strimzi/operator", "quay.io/olmtest/strimzi-operator")],
        ),
        (
            "src has digest and icsp with registry scope",
            "registry",
            [f"docker.io/strimzi/operator@{D134}"],
            [("docker.io", "quay.io")],
        ),
        (
            "multiple",
            "repository",
            [f"docker.io/strimzi/operator@{D134}", "quay.io/halkyonio/operator:v0.1.8"],
            [("docker.io/strimzi/operator", "quay.io/olmtest/strimzi-operator")],
        ),
        (
            "multiple with icsp registry scope",
            "registry",
            [f"docker.io/strimzi/operator@{D134}", "quay.io/halkyonio/operator:v0.1.8"],
            [("docker.io", "quay.io")],
        ),
    ],
)
def test_get_registry_mapping(
    case: str, scope: str, sources: list[str], want: list[tuple[str, str]]
) -> None:
    mappings = plan_mappings(sources, "quay.io/olmtest")
    docs = render_icsp(mappings, name="catalog", scope=scope)  # type: ignore[arg-type]
    got = [
        (entry["source"], entry["mirrors"][0])
        for doc in docs
        for entry in yaml.safe_load(doc)["spec"]["repositoryDigestMirrors"]
    ]
    assert got == want, case


def _oc_icsp(name: str, source: str, mirror: str) -> str:
    # Expected bytes from oc: TestGenerateICSP ("src has digest" and the registry-scope cases).
    return (
        "apiVersion: operator.openshift.io/v1alpha1\n"
        "kind: ImageContentSourcePolicy\n"
        "metadata:\n"
        "  labels:\n"
        '    operators.openshift.org/catalog: "true"\n'
        f"  name: {name}\n"
        "spec:\n"
        "  repositoryDigestMirrors:\n"
        "  - mirrors:\n"
        f"    - {mirror}\n"
        f"    source: {source}\n"
    )


def test_generate_icsp_bytes() -> None:
    # oc: TestGenerateICSP/"src has digest" and /"src has digest and icsp with registry scope".
    # oc's generateICSPs names the objects <name>-0, <name>-1, ...; the Go test calls the inner
    # generateICSP with the final name "catalog" directly, so the name here is "catalog-0".
    mappings = plan_mappings([f"docker.io/strimzi/operator@{D134}"], "quay.io/olmtest")
    assert render_icsp(mappings, name="catalog") == [
        _oc_icsp("catalog-0", "docker.io/strimzi/operator", "quay.io/olmtest/strimzi-operator")
    ]
    assert render_icsp(mappings, name="catalog", scope="registry") == [
        _oc_icsp("catalog-0", "docker.io", "quay.io")
    ]


def test_generate_icsp_tagged_only_gives_no_documents() -> None:
    # oc: TestGenerateICSP/"src is tagged - skip mirror" -- generateICSPs loops while entries
    # remain, so with only tagged sources it returns no ICSP at all.
    mappings = plan_mappings(["quay.io/halkyonio/operator:v0.1.8"], "quay.io/olmtest")
    assert render_icsp(mappings, name="catalog") == []
    assert render_idms(mappings, name="catalog") == []
    assert join_documents([]) == ""


def test_generate_icsp_size_limits() -> None:
    mappings = plan_mappings([f"docker.io/strimzi/operator@{D134}"], "quay.io/olmtest")
    # oc: TestGenerateICSP/"icsp byte limit set to 0" -- oc's Validate() refuses <= 0 first.
    with pytest.raises(ValueError, match="max_size"):
        render_icsp(mappings, name="catalog", scope="registry", max_size=0)
    with pytest.raises(ValueError, match="max_size"):
        render_icsp(mappings, name="catalog", max_size=MAX_POLICY_SIZE + 1)
    # An entry that alone does not fit cannot be placed anywhere.
    with pytest.raises(OutputError, match=r"docker\.io/strimzi/operator"):
        render_icsp(mappings, name="catalog", max_size=100)


def test_generate_catalog_source_bytes() -> None:
    # oc: TestGenerateCatalogSource/"generates catalogsource"
    index = plan_index_mapping("quay.io/the/index:1", "quay.io")
    assert index.target_pull_spec == "quay.io/the/index:1"
    assert render_catalog_source(
        name=catalog_name("quay.io/the/index:1"), image=index.target_pull_spec
    ) == (
        "apiVersion: operators.coreos.com/v1alpha1\n"
        "kind: CatalogSource\n"
        "metadata:\n"
        "  name: index\n"
        "  namespace: openshift-marketplace\n"
        "spec:\n"
        "  image: quay.io/the/index:1\n"
        "  sourceType: grpc\n"
    )
    # oc: TestGenerateCatalogSource/"generates catalogsource with digest"
    assert render_catalog_source(name="index", image=f"quay.io/the/index@{D134}") == (
        "apiVersion: operators.coreos.com/v1alpha1\n"
        "kind: CatalogSource\n"
        "metadata:\n"
        "  name: index\n"
        "  namespace: openshift-marketplace\n"
        "spec:\n"
        f"  image: quay.io/the/index@{D134}\n"
        "  sourceType: grpc\n"
    )


def test_catalog_source_optional_fields_and_quoting() -> None:
    text = render_catalog_source(
        name="my/index", image="quay.io/a/b:1", display_name="Ops: mirrored", publisher="true"
    )
    doc = yaml.safe_load(text)
    assert doc == {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "CatalogSource",
        "metadata": {"name": "my-index", "namespace": "openshift-marketplace"},
        "spec": {
            "displayName": "Ops: mirrored",
            "image": "quay.io/a/b:1",
            "publisher": "true",
            "sourceType": "grpc",
        },
    }
    # go-yaml style: double quotes, never single ones.
    assert 'publisher: "true"' in text
    assert "'" not in text
    with pytest.raises(InputError):
        render_catalog_source(name="x", image="quay.io")


def test_catalog_name() -> None:
    assert catalog_name("registry.redhat.io/redhat/redhat-operator-index:v4.14") == (
        "redhat-operator-index"
    )
    assert catalog_name("quay.io/a/b/c:1") == "b-c"
    with pytest.raises(InputError):
        catalog_name("quay.io")


def _mixed_mappings() -> list[Mapping]:
    return plan_mappings(
        [
            f"docker.io/strimzi/operator@{D134}",
            "quay.io/halkyonio/operator:v0.1.8",
            f"registry.access.redhat.com/ubi8-minimal@{UBI}",
            "busybox",
        ],
        "mirror.example.com:5000/olm",
        index="quay.io/the/index:1",
    )


@pytest.mark.parametrize(
    ("render", "api_version", "kind", "list_key", "digests"),
    [
        (
            render_icsp,
            "operator.openshift.io/v1alpha1",
            "ImageContentSourcePolicy",
            "repositoryDigestMirrors",
            True,
        ),
        (render_idms, "config.openshift.io/v1", "ImageDigestMirrorSet", "imageDigestMirrors", True),
        (render_itms, "config.openshift.io/v1", "ImageTagMirrorSet", "imageTagMirrors", False),
    ],
)
def test_policies_are_valid_kubernetes_yaml(
    render: object, api_version: str, kind: str, list_key: str, digests: bool
) -> None:
    mappings = _mixed_mappings()
    docs = render(mappings, name="the/index")  # type: ignore[operator]
    assert len(docs) == 1
    parsed = list(yaml.safe_load_all(join_documents(docs)))
    assert len(parsed) == 1
    doc = parsed[0]
    assert doc["apiVersion"] == api_version
    assert doc["kind"] == kind
    assert doc["metadata"] == {"labels": {CATALOG_LABEL: "true"}, "name": "the-index-0"}
    assert set(doc) == {"apiVersion", "kind", "metadata", "spec"}
    sources = [entry["source"] for entry in doc["spec"][list_key]]
    assert sources == sorted(sources)
    want = sorted(m.source.repository for m in mappings if m.by_digest == digests)
    assert sources == want
    for entry in doc["spec"][list_key]:
        assert list(entry) == ["mirrors", "source"]
        assert len(entry["mirrors"]) == 1


def test_itms_takes_what_icsp_leaves_out() -> None:
    mappings = _mixed_mappings()
    itms = yaml.safe_load(render_itms(mappings, name="x")[0])["spec"]["imageTagMirrors"]
    assert itms == [
        {
            "mirrors": ["mirror.example.com:5000/olm/library-busybox"],
            "source": "docker.io/library/busybox",
        },
        {
            "mirrors": ["mirror.example.com:5000/olm/halkyonio-operator"],
            "source": "quay.io/halkyonio/operator",
        },
        {"mirrors": ["mirror.example.com:5000/olm/the-index"], "source": "quay.io/the/index"},
    ]
    registry = yaml.safe_load(render_itms(mappings, name="x", scope="registry")[0])
    assert registry["spec"]["imageTagMirrors"] == [
        {"mirrors": ["mirror.example.com:5000"], "source": "docker.io"},
        {"mirrors": ["mirror.example.com:5000"], "source": "quay.io"},
    ]


def test_policies_refuse_file_targets_and_bad_scope() -> None:
    got = plan_mappings([f"quay.io/a/b@{D134}"], "file://store", index="quay.io/x/idx:1")
    with pytest.raises(ValueError, match="file://"):
        render_icsp(got, name="idx")
    registry_mappings = plan_mappings([f"quay.io/a/b@{D134}"], "mirror.io")
    with pytest.raises(ValueError, match="scope"):
        render_icsp(registry_mappings, name="idx", scope="namespace")  # type: ignore[arg-type]


def test_generate_icsps_smaller_than_the_byte_limit() -> None:
    # oc: TestGenerateICSPs/"Generated ICSPs are smaller than the byte limit" -- registry scope,
    # limit 1000, mappings foo-i -> bar-i (ID bar-i) until their text reaches 100000 bytes.
    mappings = []
    byte_count = 0
    i = 0
    while byte_count < 100_000:
        key, value = f"foo-{i}", f"bar-{i}"
        mappings.append(Mapping(R(key, "", "", ""), R(value, "", "", "", value)))
        byte_count += len(key) + len(value)
        i += 1
    docs = render_icsp(mappings, name="catalog", scope="registry", max_size=1000)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # 600+ documents: the C parser if any
    parsed = [yaml.load(doc, Loader=loader) for doc in docs]
    seen: set[str] = set()
    for doc, obj in zip(docs, parsed, strict=True):
        assert len(doc) <= 1000
        for entry in obj["spec"]["repositoryDigestMirrors"]:
            seen.add(entry["source"])
    assert seen == {m.source.registry for m in mappings}
    names = [obj["metadata"]["name"] for obj in parsed]
    assert names == [f"catalog-{n}" for n in range(len(docs))]


_CREATION_TIMESTAMP = len("  creationTimestamp: null\n")
_STATUS = len("status: {}\n")

_repo = st.from_regex(r"[a-z][a-z0-9]{0,12}(?:/[a-z][a-z0-9]{0,12}){0,3}", fullmatch=True)
_hex = st.text("0123456789abcdef", min_size=64, max_size=64)
_digest_refs = st.lists(
    st.builds(
        lambda host, repo, hex_: f"{host}/{repo}@sha256:{hex_}",
        st.sampled_from(["quay.io", "registry.redhat.io", "docker.io", "r.example.com:5000"]),
        _repo,
        _hex,
    ),
    max_size=60,
)


@settings(max_examples=60, deadline=None)
@given(
    _digest_refs,
    st.integers(min_value=400, max_value=3000),
    st.sampled_from(
        [
            (render_icsp, "repositoryDigestMirrors", _CREATION_TIMESTAMP),
            (render_idms, "imageDigestMirrors", _CREATION_TIMESTAMP + _STATUS),
        ]
    ),
)
def test_split_puts_every_source_in_exactly_one_policy(
    refs: list[str], limit: int, kind: tuple[object, str, int]
) -> None:
    render, list_key, hidden = kind
    mappings = plan_mappings(refs, "mirror.example.com/olm", max_components=0)
    docs = render(mappings, name="idx", max_size=limit)  # type: ignore[operator]
    assert docs == render(list(reversed(mappings)), name="idx", max_size=limit)  # type: ignore[operator]
    placed: list[str] = []
    per_doc: list[list[dict[str, object]]] = []
    for n, doc in enumerate(docs):
        parsed = yaml.safe_load(doc)
        assert parsed["metadata"]["name"] == f"idx-{n}"
        entries = parsed["spec"][list_key]
        assert entries
        per_doc.append(entries)
        placed.extend(str(entry["source"]) for entry in entries)
        # oc measures the object with creationTimestamp (and status) still in it.
        assert len(doc) + hidden <= limit
    expected = sorted({m.source.repository for m in mappings})
    assert sorted(placed) == expected
    assert len(placed) == len(set(placed))
    # Greedy like oc: the next entry would not have fitted into the previous policy.
    for n in range(len(per_doc) - 1):
        extra = yaml.safe_dump(
            {"spec": {list_key: [*per_doc[n], per_doc[n + 1][0]]}}, default_flow_style=False
        )
        before = yaml.safe_dump({"spec": {list_key: per_doc[n]}}, default_flow_style=False)
        assert len(docs[n]) + hidden + len(extra) - len(before) > limit


def test_outputs_are_identical_on_repeated_calls() -> None:
    mappings = _mixed_mappings()
    for render in (render_icsp, render_idms, render_itms):
        assert render(mappings, name="i") == render(list(mappings), name="i")
    assert render_catalog_source(name="i", image="quay.io/a/b:1") == render_catalog_source(
        name="i", image="quay.io/a/b:1"
    )


_odd_scalars = st.sampled_from(
    ["y", "true", "null", "123", "1.5", "10.0.0.1:5000", "a:", "-x", "x y", "ü", "~", "#x", "it's"]
)


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(_repo, _odd_scalars),
    st.lists(st.tuples(st.one_of(_repo, _odd_scalars), st.one_of(_repo, _odd_scalars)), max_size=4),
)
def test_policy_formatting_matches_the_yaml_emitter(
    name: str, entries: list[tuple[str, str]]
) -> None:
    # The policies are formatted by hand for speed; they must be what the (go-yaml style)
    # emitter prints for the same object, byte for byte.
    from olmcat.mirror.naming import _ICSP, _dump, _policy_document

    document = {
        "apiVersion": _ICSP.api_version,
        "kind": _ICSP.kind,
        "metadata": {"labels": {CATALOG_LABEL: "true"}, "name": name},
        "spec": {_ICSP.list_key: [{"mirrors": [m], "source": s} for s, m in entries]},
    }
    text = _policy_document(_ICSP, name, entries)
    if entries:
        assert text == _dump(document)
    assert yaml.safe_load(text)["metadata"]["name"] == name
