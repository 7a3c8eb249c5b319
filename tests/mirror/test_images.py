"""``olmcat images``: every image a catalog references, in every input form."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.mirror.images import (
    CatalogImage,
    catalog_images,
    package_images,
    unique_images,
    write_images,
    write_unique_images,
)
from olmcat.model import Bundle, Package, PackageCatalog, RelatedImage
from tests.support.paths import catalog_blobs, corpus_path

# (catalog reference, golden FBC made by opm from the same data)
CORPUS_FORMS = [
    ("sqlite/index-upstream.db", "expected/index-upstream.json"),
    ("images/test-index-v1.oci.tar", "expected/index-upstream.json"),
    ("expected/index-upstream.json", "expected/index-upstream.json"),
    ("sqlite/index-upstream-old.db", "expected/index-upstream-old.json"),
    ("images/test-index-v0-old.oci.tar", "expected/index-upstream-old.json"),
    ("sqlite/index-upstream-synth.db", "expected/index-upstream-synth.json"),
    ("sqlite/upstream-subset.db", "expected/upstream-subset.json"),
    ("pkgman/upstream-subset", "expected/upstream-subset.json"),
    ("expected/upstream-subset.yaml", "expected/upstream-subset.json"),
    ("sqlite/small.db", "expected/small.json"),
    ("sqlite/deprecated.db", "expected/deprecated.json"),
    ("sqlite/deprecate-before.db", "expected/deprecate-before.json"),
    ("sqlite/schemas/v1.18.0-small.db", "expected/schemas/v1.18.0-small.json"),
    ("sqlite/schemas/v1.7.0-small.db", "expected/schemas/v1.7.0-small.json"),
]


def golden_rows(golden: Path) -> set[tuple[str, str, str, str, str]]:
    """(package, bundle, image, name, kind) straight from the golden JSON, no olmcat involved.

    Bundle ``image`` plus ``relatedImages[].image``; empty strings are no image.
    """
    rows = set()
    for blob in catalog_blobs(golden):
        if blob["schema"] != "olm.bundle":
            continue
        if blob.get("image"):
            rows.add((blob["package"], blob["name"], blob["image"], "", "bundle"))
        for related in blob.get("relatedImages") or []:
            if related.get("image"):
                rows.add(
                    (
                        blob["package"],
                        blob["name"],
                        related["image"],
                        related.get("name", ""),
                        "related",
                    )
                )
    return rows


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(("source", "golden"), CORPUS_FORMS, ids=[s for s, _ in CORPUS_FORMS])
def test_images_equal_the_golden_fbc(source: str, golden: str) -> None:
    reference = corpus_path(*source.split("/"))
    want = golden_rows(corpus_path(*golden.split("/")))
    code, out, err = invoke("images", "--unique", str(reference))
    assert code == 0, err
    assert out.splitlines() == sorted({row[2] for row in want})
    code, out, err = invoke("images", "--format", "csv", str(reference))
    assert code == 0, err
    got = [
        (r["package"], r["bundle"], r["image"], r["name"], r["kind"])
        for r in csv.DictReader(io.StringIO(out))
    ]
    assert len(got) == len(set(got)), "rows are de-duplicated"
    assert set(got) == want
    assert got == sorted(got), "package, bundle, image, name order"


def test_image_archive_and_its_database_agree() -> None:
    archive = corpus_path("images", "test-index-v1.oci.tar")
    database = corpus_path("sqlite", "index-upstream.db")
    outputs = [invoke("images", "--format", "json", str(ref))[1] for ref in (archive, database)]
    assert outputs[0] == outputs[1]
    assert len(json.loads(outputs[0])) == 221 + 666  # bundle images + related_image rows


def pkg(name: str, *bundles: Bundle) -> PackageCatalog:
    return PackageCatalog(Package(name, "stable"), bundles=bundles)


SAMPLE = [
    pkg(
        "b",
        Bundle(
            "b.v2",
            "b",
            "quay.io/b/bundle:v2",
            related_images=(
                RelatedImage("op", "quay.io/b/op@sha256:" + "1" * 64),
                RelatedImage("op", "quay.io/b/op@sha256:" + "1" * 64),  # listed twice
                RelatedImage("", "quay.io/b/bundle:v2"),
                RelatedImage("broken", ""),
            ),
        ),
        Bundle("b.v1", "b", "", related_images=(RelatedImage("op", "quay.io/b/op:v1"),)),
    ),
    pkg("a", Bundle("a.v1", "a", "quay.io/a/bundle,odd:1")),
]


def test_rows_are_deduplicated_sorted_and_skip_empty_images() -> None:
    rows = package_images(SAMPLE[0])
    assert rows == [
        CatalogImage("b", "b.v1", "quay.io/b/op:v1", "op", "related"),
        CatalogImage("b", "b.v2", "quay.io/b/bundle:v2", "", "bundle"),
        CatalogImage("b", "b.v2", "quay.io/b/bundle:v2", "", "related"),
        CatalogImage("b", "b.v2", "quay.io/b/op@sha256:" + "1" * 64, "op", "related"),
    ]
    assert unique_images(rows) == [
        "quay.io/b/bundle:v2",
        "quay.io/b/op:v1",
        "quay.io/b/op@sha256:" + "1" * 64,
    ]


def test_rows_stream_package_by_package() -> None:
    def packages() -> Iterator[PackageCatalog]:
        yield SAMPLE[0]
        raise RuntimeError("the second package is never needed for the first rows")

    rows = catalog_images(packages())
    assert next(rows).package == "b"


def test_formats() -> None:
    rows = list(catalog_images(SAMPLE))
    text = io.StringIO()
    assert write_images(rows, text) == 5
    assert text.getvalue().splitlines()[0] == "quay.io/b/op:v1\tb\tb.v1\trelated\top"
    assert text.getvalue().splitlines()[1] == "quay.io/b/bundle:v2\tb\tb.v2\tbundle\t-"
    as_json = io.StringIO()
    write_images(rows, as_json, "json")
    assert json.loads(as_json.getvalue()) == [row.as_dict() for row in rows]
    as_csv = io.StringIO()
    write_images(rows, as_csv, "csv")
    parsed = list(csv.DictReader(io.StringIO(as_csv.getvalue())))
    assert parsed[-1] == {
        "image": "quay.io/a/bundle,odd:1",
        "package": "a",
        "bundle": "a.v1",
        "name": "",
        "kind": "bundle",
    }
    empty = io.StringIO()
    assert write_images([], empty, "json") == 0
    assert json.loads(empty.getvalue()) == []
    unique = io.StringIO()
    write_unique_images(["x", "y"], unique, "json")
    assert json.loads(unique.getvalue()) == ["x", "y"]
    unique = io.StringIO()
    write_unique_images(["x"], unique, "csv")
    assert unique.getvalue() == "image\nx\n"
    with pytest.raises(ValueError, match="format"):
        write_images(rows, io.StringIO(), "xml")  # type: ignore[arg-type]


def test_cli_reads_fbc_from_stdin_and_reports_errors(tmp_path: Path) -> None:
    blobs = [
        {"schema": "olm.package", "name": "a", "defaultChannel": "s"},
        {"schema": "olm.channel", "name": "s", "package": "a", "entries": [{"name": "a.v1"}]},
        {
            "schema": "olm.bundle",
            "name": "a.v1",
            "package": "a",
            "image": "quay.io/a/b:1",
            "properties": [],
            "relatedImages": [{"name": "x", "image": "quay.io/a/x:1"}],
        },
    ]
    result = CliRunner().invoke(
        cli, ["images", "--unique", "-"], input="\n".join(json.dumps(b) for b in blobs)
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "quay.io/a/b:1\nquay.io/a/x:1\n"
    code, out, err = invoke("images", str(tmp_path / "missing"))
    assert code == 1
    assert err.startswith("olmcat: error: ")
    assert out == ""
