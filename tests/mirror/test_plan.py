"""``olmcat mirror plan``: oc's files for a whole catalog, deterministic and valid Kubernetes YAML.

The naming rules themselves are tested against openshift/oc's own test cases in
``tests/test_mirror.py``; here the same cases go through a catalog and the command.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import InputError
from olmcat.mirror.plan import (
    CATALOG_SOURCE_FILE,
    CLUSTER_CATALOG_FILE,
    ICSP_FILE,
    IDMS_FILE,
    ITMS_FILE,
    MAPPING_FILE,
    PlanOptions,
    default_name,
    render_plan,
)
from olmcat.model import Bundle, Channel, ChannelEntry, Package, PackageCatalog
from olmcat.writers import fbc
from tests.support.mirror_checks import TEST_DB_IMAGES, TEST_DB_INDEX, oc_key
from tests.support.paths import corpus_path

DEST = "mirror.example.com:5000/olm"
INDEX = "quay.io/example/test-index:v1"
DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def plan(tmp_path: Path, catalog: Path | str, out: str, *args: str) -> dict[str, str]:
    code, _, err = invoke("mirror", "plan", "-q", str(catalog), *args, str(tmp_path / out))
    assert code == 0, err
    return {p.name: p.read_text() for p in sorted((tmp_path / out).iterdir())}


def image_catalog(directory: Path, images: list[str]) -> Path:
    """An FBC with one bundle per image (the image as the bundle image)."""
    bundles = tuple(Bundle(f"b{n}", "pkg", image) for n, image in enumerate(images))
    entries = [ChannelEntry(bundles[0].name)]
    for previous, bundle in itertools.pairwise(bundles):
        entries.append(ChannelEntry(bundle.name, previous.name))
    channel = Channel("stable", "pkg", tuple(entries))
    fbc.write_directory([PackageCatalog(Package("pkg", "stable"), (channel,), bundles)], directory)
    return directory


def test_oc_test_db_images_through_a_catalog(tmp_path: Path) -> None:
    # oc: TestMirror/"sqlite maps into a single quay namespace" (wantSingleQuayNamespace): the
    # images of oc's testdata/test.db with the index quay.io/example/image:tag, to quay.io/org.
    images = [src for src in TEST_DB_IMAGES if src != TEST_DB_INDEX]
    catalog = image_catalog(tmp_path / "catalog", images)
    files = plan(tmp_path, catalog, "out", "quay.io/org", "--index-image", TEST_DB_INDEX)
    want = sorted(
        f"{src}=quay.io/org/{ns}-{name}:{tag}" for src, (ns, name, tag, _) in TEST_DB_IMAGES.items()
    )
    assert files[MAPPING_FILE].splitlines() == want
    # oc: TestMirror -- the CatalogSource points at the mirrored index, named after its repo.
    assert yaml.safe_load(files[CATALOG_SOURCE_FILE]) == {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "CatalogSource",
        "metadata": {"name": "image", "namespace": "openshift-marketplace"},
        "spec": {"image": "quay.io/org/example-image:tag", "sourceType": "grpc"},
    }
    icsp = yaml.safe_load(files[ICSP_FILE])
    assert icsp["metadata"]["name"] == "image-0"
    assert {e["source"] for e in icsp["spec"]["repositoryDigestMirrors"]} == {
        "quay.io/coreos/etcd-operator",
        "quay.io/coreos/prometheus-operator",
    }


def test_repeated_runs_and_input_forms_give_identical_files(tmp_path: Path) -> None:
    archive = corpus_path("images", "test-index-v1.oci.tar")
    first = plan(tmp_path, archive, "a", DEST, "--index-image", INDEX)
    assert plan(tmp_path, archive, "b", DEST, "--index-image", INDEX) == first
    # The same catalog as an SQLite DB and as opm's FBC plans to the same bytes.
    assert (
        plan(
            tmp_path, corpus_path("sqlite", "index-upstream.db"), "c", DEST, "--index-image", INDEX
        )
        == first
    )
    assert (
        plan(
            tmp_path,
            corpus_path("expected", "index-upstream.json"),
            "d",
            DEST,
            "--index-image",
            INDEX,
        )
        == first
    )
    assert list(first) == [
        CATALOG_SOURCE_FILE,
        CLUSTER_CATALOG_FILE,
        ICSP_FILE,
        IDMS_FILE,
        ITMS_FILE,
        MAPPING_FILE,
    ]
    for text in first.values():
        lines = text.splitlines()
        if text is first[MAPPING_FILE]:
            assert lines == sorted(lines)


def check_policy(document: dict[str, Any], api_version: str, kind: str, key: str) -> list[Any]:
    assert document["apiVersion"] == api_version
    assert document["kind"] == kind
    assert set(document) == {"apiVersion", "kind", "metadata", "spec"}
    name = document["metadata"]["name"]
    assert DNS_SUBDOMAIN.fullmatch(name) and len(name) <= 253
    assert document["metadata"]["labels"] == {"operators.openshift.org/catalog": "true"}
    entries: list[Any] = document["spec"][key]
    assert entries
    for entry in entries:
        assert set(entry) == {"mirrors", "source"}
        assert isinstance(entry["source"], str)
        assert all(
            isinstance(m, str) and m.startswith("mirror.example.com:5000") for m in entry["mirrors"]
        )
    return entries


def test_policies_are_valid_kubernetes_yaml(tmp_path: Path) -> None:
    files = plan(
        tmp_path,
        corpus_path("images", "test-index-v1.oci.tar"),
        "out",
        DEST,
        "--index-image",
        INDEX,
    )
    icsp = list(yaml.safe_load_all(files[ICSP_FILE]))
    idms = list(yaml.safe_load_all(files[IDMS_FILE]))
    itms = list(yaml.safe_load_all(files[ITMS_FILE]))
    assert len(icsp) == len(idms) == len(itms) == 1
    icsp_entries = check_policy(
        icsp[0],
        "operator.openshift.io/v1alpha1",
        "ImageContentSourcePolicy",
        "repositoryDigestMirrors",
    )
    idms_entries = check_policy(
        idms[0], "config.openshift.io/v1", "ImageDigestMirrorSet", "imageDigestMirrors"
    )
    itms_entries = check_policy(
        itms[0], "config.openshift.io/v1", "ImageTagMirrorSet", "imageTagMirrors"
    )
    assert icsp_entries == idms_entries
    # Digest sources go to ICSP/IDMS, tag sources to ITMS.
    mapping = files[MAPPING_FILE].splitlines()
    digest_repos = {
        line.split("=")[0].split("@")[0] for line in mapping if "@" in line.split("=")[0]
    }
    assert {e["source"] for e in icsp_entries} == digest_repos
    tag_repos = {
        line.split("=")[0].rsplit(":", 1)[0] for line in mapping if "@" not in line.split("=")[0]
    }
    assert {e["source"] for e in itms_entries} == tag_repos
    source = yaml.safe_load(files[CATALOG_SOURCE_FILE])
    assert source["kind"] == "CatalogSource"
    assert source["spec"]["image"] == "mirror.example.com:5000/olm/example-test-index:v1"


def test_mapping_lines_match_the_image_list(tmp_path: Path) -> None:
    archive = corpus_path("images", "test-index-v1.oci.tar")
    code, out, err = invoke("images", "--unique", str(archive))
    assert code == 0, err
    images = out.splitlines()
    files = plan(tmp_path, archive, "out", DEST, "--index-image", INDEX)
    mapping = dict(line.split("=", 1) for line in files[MAPPING_FILE].splitlines())
    assert set(mapping) == {oc_key(image) for image in images} | {INDEX}
    assert len(mapping) == len(images) + 1
    for source, target in mapping.items():
        assert target.startswith(DEST + "/")
        tail = source.rsplit("/", 1)[1]
        if "@" not in tail:  # by tag: the tag is kept
            assert target.rsplit(":", 1)[1] == source.rsplit(":", 1)[1]
        else:  # by digest: oc's invented tag (FNV-1a hex, at most 8 characters)
            assert re.fullmatch(r"[0-9a-f]{1,8}", target.rsplit(":", 1)[1])


def test_options_reach_the_renderers(tmp_path: Path) -> None:
    archive = corpus_path("images", "test-index-v1.oci.tar")
    options = ["--index-image", INDEX, "--name", "my-mirror"]
    files = plan(
        tmp_path,
        archive,
        "out",
        DEST,
        *options,
        "--icsp-scope",
        "registry",
        "--max-components",
        "0",
        "--display-name",
        "Mirrored",
        "--publisher",
        "me",
    )
    docs = list(yaml.safe_load_all(files[ICSP_FILE]))
    assert [d["metadata"]["name"] for d in docs] == ["my-mirror-0"]
    digest_registries = {
        line.split("/", 1)[0] for line in files[MAPPING_FILE].splitlines() if "@" in line
    }
    entries = docs[0]["spec"]["repositoryDigestMirrors"]
    assert {e["source"] for e in entries} == digest_registries
    assert {m for e in entries for m in e["mirrors"]} == {"mirror.example.com:5000"}
    # --max-components 0 keeps every path component.
    assert re.search(
        r"^docker\.io/ibmcom/couchdb-operator@sha256:[0-9a-f]{64}="
        r"mirror\.example\.com:5000/olm/ibmcom/couchdb-operator:[0-9a-f]+$",
        files[MAPPING_FILE],
        re.MULTILINE,
    )
    source = yaml.safe_load(files[CATALOG_SOURCE_FILE])
    assert source["metadata"]["name"] == "test-index"  # named after the index, not --name
    assert source["spec"]["displayName"] == "Mirrored"
    assert source["spec"]["publisher"] == "me"
    # --max-icsp-size splits the policies into my-mirror-0, -1, ... of at most that size.
    split = plan(tmp_path, archive, "split", DEST, *options, "--max-icsp-size", "2000")
    for filename in (ICSP_FILE, IDMS_FILE, ITMS_FILE):
        parts = [text for text in split[filename].split("---\n") if text]
        assert len(parts) > 1
        assert all(len(text) <= 2000 for text in parts)
        names = [yaml.safe_load(text)["metadata"]["name"] for text in parts]
        assert names == [f"my-mirror-{n}" for n in range(len(parts))]


def test_file_destination_writes_only_the_mapping(tmp_path: Path) -> None:
    archive = corpus_path("images", "test-index-v1.oci.tar")
    files = plan(tmp_path, archive, "out", "file://local/store", "--index-image", INDEX)
    assert list(files) == [MAPPING_FILE]
    for line in files[MAPPING_FILE].splitlines():
        assert line.split("=", 1)[1].startswith("file://local/store/example/test-index")
    code, _, err = invoke("mirror", "plan", str(archive), "file://x", str(tmp_path / "no"))
    assert code == 1
    assert "needs --index-image" in err
    assert not (tmp_path / "no").exists()


def test_without_index_image_no_catalog_source(tmp_path: Path) -> None:
    archive = corpus_path("images", "test-index-v1.oci.tar")
    code, _, err = invoke("mirror", "plan", str(archive), DEST, str(tmp_path / "out"))
    assert code == 0, err
    assert "catalogSource.yaml not written: it needs --index-image" in err
    assert "planned 580 images (580 mappings)" in err
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == [ICSP_FILE, IDMS_FILE, ITMS_FILE, MAPPING_FILE]
    icsp = yaml.safe_load((tmp_path / "out" / ICSP_FILE).read_text())
    assert icsp["metadata"]["name"] == "test-index-v1-0"  # from the archive's file name


def test_already_mirrored_leaves_out_the_old_images(tmp_path: Path) -> None:
    old = corpus_path("images", "test-index-v0-old.oci.tar")
    new = corpus_path("images", "test-index-v1.oci.tar")
    lists = {}
    for name, ref in (("old", old), ("new", new)):
        code, out, err = invoke("images", "--unique", str(ref))
        assert code == 0, err
        lists[name] = set(out.splitlines())
    files = plan(tmp_path, new, "out", DEST, "--already-mirrored", str(old))
    sources = {line.split("=", 1)[0] for line in files[MAPPING_FILE].splitlines()}
    assert sources == {oc_key(i) for i in lists["new"] - lists["old"]}
    assert len(sources) == 92


def test_errors(tmp_path: Path) -> None:
    archive = corpus_path("images", "test-index-v1.oci.tar")
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep").write_text("mine")
    code, _, err = invoke("mirror", "plan", str(archive), DEST, str(out))
    assert code == 1
    assert "is not empty" in err
    assert [p.name for p in out.iterdir()] == ["keep"]
    for dest, message in [
        ("registry:5000", "must start with a registry host"),
        ("quay.io/org:tag", "must not have a tag"),
    ]:
        code, _, err = invoke("mirror", "plan", str(archive), dest, str(tmp_path / "x"))
        assert code == 1
        assert message in err
    code, _, err = invoke(
        "mirror", "plan", str(archive), DEST, str(tmp_path / "x"), "--max-components", "1"
    )
    assert code == 2
    code, _, err = invoke(
        "mirror", "plan", str(archive), DEST, str(tmp_path / "x"), "--index-image", "Bad:Ref"
    )
    assert code == 1
    assert "invalid image reference" in err
    assert not (tmp_path / "x").exists()


def test_render_plan_library() -> None:
    files = render_plan(["quay.io/a/b:1"], DEST, PlanOptions(name="n"))
    assert list(files) == [ITMS_FILE, MAPPING_FILE]  # no digests: no ICSP / IDMS
    assert files[MAPPING_FILE] == "quay.io/a/b:1=mirror.example.com:5000/olm/a-b:1\n"
    with pytest.raises(InputError, match="need a name"):
        render_plan(["quay.io/a/b:1"], DEST, PlanOptions())
    for bad in ("My_Mirror", "-x", "x" * 241):
        with pytest.raises(InputError, match="cannot name Kubernetes objects"):
            render_plan([], DEST, PlanOptions(name=bad))
    assert render_plan([], DEST, PlanOptions(name="n")) == {}


@pytest.mark.parametrize(
    ("reference", "name"),
    [
        ("../shared/corpus/images/test-index-v1.oci.tar", "test-index-v1"),
        ("/data/Redhat_Operators.db", "redhat-operators"),
        ("catalog/", "catalog"),
        ("out.tar.gz", "out"),
        ("...", "catalog"),
        ("-", "catalog"),
    ],
)
def test_default_name(reference: str, name: str) -> None:
    assert default_name(reference) == name
