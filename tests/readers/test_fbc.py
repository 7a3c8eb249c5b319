"""The FBC reader: file discovery, .indexignore, streams, stdin, duplicates, pass-through."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from olmcat.errors import InputError
from olmcat.readers.fbc import FbcCatalog, catalog_files


def blob(schema: str, **fields: object) -> str:
    return json.dumps({"schema": schema, **fields})


PACKAGE = blob("olm.package", name="demo", defaultChannel="stable")
CHANNEL = blob("olm.channel", name="stable", package="demo", entries=[{"name": "demo.v1"}])
BUNDLE = blob(
    "olm.bundle",
    name="demo.v1",
    package="demo",
    image="quay.io/demo:1",
    properties=[{"type": "olm.package", "value": {"packageName": "demo", "version": "1.0.0"}}],
)


def test_concatenated_json_and_multi_document_yaml(tmp_path: Path) -> None:
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "a.json").write_text(PACKAGE + "\n" + CHANNEL)
    (tmp_path / "demo" / "b.yaml").write_text(
        "---\nschema: olm.bundle\nname: demo.v1\npackage: demo\nimage: quay.io/demo:1\n"
        "---\nschema: x.custom\npackage: demo\nname: extra\nvalue: 1.5\n"
    )
    with FbcCatalog(tmp_path) as catalog:
        (pkg,) = list(catalog)
    assert pkg.package.default_channel == "stable"
    assert [c.name for c in pkg.channels] == ["stable"]
    assert [b.image for b in pkg.bundles] == ["quay.io/demo:1"]
    (other,) = pkg.others
    assert json.loads(other.blob) == {
        "schema": "x.custom",
        "package": "demo",
        "name": "extra",
        "value": 1.5,
    }


def test_indexignore_follows_gitignore_rules_per_directory(tmp_path: Path) -> None:
    (tmp_path / "demo" / "objects").mkdir(parents=True)
    (tmp_path / "demo" / "index.json").write_text(PACKAGE)
    (tmp_path / "demo" / "notes.yaml").write_text("not: a blob\n")
    (tmp_path / "demo" / "objects" / "csv.yaml").write_text("kind: ClusterServiceVersion\n")
    (tmp_path / "other.json").write_text(CHANNEL)
    (tmp_path / ".indexignore").write_text("**/objects/*.yaml\n")
    (tmp_path / "demo" / ".indexignore").write_text("notes.yaml\n")
    names = [p.relative_to(tmp_path).as_posix() for p in catalog_files(tmp_path)]
    assert names == ["other.json", "demo/index.json"]


def test_negated_pattern_re_includes_a_file(tmp_path: Path) -> None:
    (tmp_path / "keep.json").write_text(PACKAGE)
    (tmp_path / "drop.json").write_text("{broken")
    (tmp_path / ".indexignore").write_text("*.json\n!keep.json\n")
    assert [p.name for p in catalog_files(tmp_path)] == ["keep.json"]


def test_single_file_and_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "\n".join([PACKAGE, CHANNEL, BUNDLE])
    (tmp_path / "catalog.json").write_text(text)
    with FbcCatalog(tmp_path / "catalog.json") as catalog:
        assert catalog.package_names() == ["demo"]
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    with FbcCatalog("-") as catalog:
        assert [b.name for p in catalog for b in p.bundles] == ["demo.v1"]


def test_duplicates_name_both_locations(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(PACKAGE + CHANNEL)
    (tmp_path / "b.json").write_text(CHANNEL)
    with pytest.raises(InputError) as info:
        FbcCatalog(tmp_path)
    message = str(info.value)
    # PACKAGE is one line of 64 characters, so CHANNEL starts at column 65 of a.json's line 1.
    assert message == (
        f'{tmp_path / "b.json"}:1:1: duplicate channel "stable" of package "demo": first '
        f"defined at {tmp_path / 'a.json'}:1:{len(PACKAGE) + 1}"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{broken", "c.json:1:2: not valid JSON"),
        ('{"name": "x"}', "blob has no schema"),
        ("[1, 2]", "a catalog blob must be an object"),
        (blob("olm.bundle", name="b"), 'olm.bundle blob "b" has no package'),
        (
            blob("olm.channel", name="c", package="p"),
            "package 'p' has blobs but no olm.package blob",
        ),
        # opm: "parse package: illegal base64 data at input byte 0"
        (
            blob("olm.package", name="p", icon={"base64data": "@@@", "mediatype": "image/png"}),
            "icon.base64data' is not valid base64",
        ),
    ],
)
def test_bad_blobs_are_named(content: str, message: str, tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text(content)
    with pytest.raises(InputError, match=message), FbcCatalog(tmp_path) as catalog:
        list(catalog)


def test_global_blobs_are_kept_apart(tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text(PACKAGE + blob("x.global", name="g"))
    with FbcCatalog(tmp_path) as catalog:
        assert catalog.package_names() == ["demo"]
        (meta,) = catalog.global_others()
    assert (meta.schema, meta.package, meta.name) == ("x.global", "", "g")


def test_property_values_keep_key_order_and_number_text(tmp_path: Path) -> None:
    bundle = BUNDLE.replace(
        '"properties": [', '"properties": [{"type": "x", "value": {"z": 1.50, "a": 1e5}}, '
    )
    (tmp_path / "c.json").write_text(PACKAGE + bundle)
    with FbcCatalog(tmp_path) as catalog:
        (pkg,) = list(catalog)
    assert pkg.bundles[0].properties[0].value == '{"z":1.50,"a":1e5}'


def test_large_json_stream_is_read_in_chunks(tmp_path: Path) -> None:
    big = blob("olm.bundle", name="big", package="demo", image="", description="x" * 3_000_000)
    (tmp_path / "c.json").write_text(PACKAGE + big)
    with FbcCatalog(tmp_path) as catalog:
        (pkg,) = list(catalog)
    assert pkg.bundles[0].name == "big"


def test_empty_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no catalog files"):
        FbcCatalog(tmp_path)
