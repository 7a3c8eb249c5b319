"""The SQLite reader on small databases built in code: opm semantics and input safety."""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from olmcat.errors import InputError, ValidationError
from olmcat.notices import NoticeLog
from olmcat.readers.sqlite import SqliteCatalog
from tests.support.builders import BundleSpec, PackageSpec, make_index_db, simple_package


def read_all(db: Path) -> dict[str, object]:
    with SqliteCatalog(db) as catalog:
        return {pkg.name: pkg for pkg in catalog}


def test_linear_chain_becomes_channel_entries(tmp_path: Path) -> None:
    db = make_index_db(tmp_path / "a.db", [simple_package("demo", ("0.3.0", "0.2.0", "0.1.0"))])
    (pkg,) = read_all(db).values()
    channel = pkg.channel("stable")  # type: ignore[attr-defined]
    assert [(e.name, e.replaces) for e in channel.entries] == [
        ("demo.v0.1.0", ""),
        ("demo.v0.2.0", "demo.v0.1.0"),
        ("demo.v0.3.0", "demo.v0.2.0"),
    ]
    assert channel.head() == "demo.v0.3.0"


def test_skips_come_from_extra_channel_entry_rows(tmp_path: Path) -> None:
    head = BundleSpec(
        "demo.v2", "2.0.0", replaces="demo.v1", skips=["demo.v1.5"], skip_range="<1.0.0"
    )
    pkg = PackageSpec("demo", "stable", {"stable": [head, BundleSpec("demo.v1", "1.0.0")]})
    db = make_index_db(tmp_path / "a.db", [pkg])
    (read,) = read_all(db).values()
    entry = read.channel("stable").entry("demo.v2")  # type: ignore[attr-defined]
    assert entry.replaces == "demo.v1"
    assert entry.skips == ("demo.v1.5",)
    assert entry.skip_range == "<1.0.0"
    # The skipped bundle has entries but no operatorbundle row: it is not a bundle of the channel.
    assert read.channel("stable").entry("demo.v1.5") is None  # type: ignore[attr-defined]


def test_deprecated_bundles_are_left_out_but_edges_to_them_stay(tmp_path: Path) -> None:
    pkg = simple_package("demo", ("0.2.0", "0.1.0"))
    pkg.channels["stable"][1].properties.append(("olm.deprecated", "{}"))
    db = make_index_db(tmp_path / "a.db", [pkg])
    (read,) = read_all(db).values()
    assert [b.name for b in read.bundles] == ["demo.v0.2.0"]  # type: ignore[attr-defined]
    assert read.channel("stable").entries[0].replaces == "demo.v0.1.0"  # type: ignore[attr-defined]


def test_bundle_column_may_be_blob_text_or_null(tmp_path: Path) -> None:
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"}
    head = BundleSpec("demo.v2", "2.0.0", replaces="demo.v1", image="quay.io/demo:2")
    middle = BundleSpec("demo.v1", "1.0.0", replaces="demo.v0", image="quay.io/demo:1")
    tail = BundleSpec("demo.v0", "0.1.0", image="quay.io/demo:0", bundle_text=None)
    crd_text = json.dumps(crd, separators=(",", ":"))
    csv_text = json.dumps(middle.csv(), separators=(",", ":"), sort_keys=True)
    middle.bundle_text = (crd_text + "\n" + csv_text).encode()  # BLOB, CRD before the CSV
    tail.related_images = ["quay.io/demo:0"]
    db = make_index_db(
        tmp_path / "a.db", [PackageSpec("demo", "stable", {"stable": [head, middle, tail]})]
    )
    (read,) = read_all(db).values()
    by_name = {b.name: b for b in read.bundles}  # type: ignore[attr-defined]
    objects = [
        base64.b64decode(json.loads(p.value)["data"]).decode()
        for p in by_name["demo.v1"].properties_of("olm.bundle.object")
    ]
    assert objects == [crd_text, csv_text]
    assert by_name["demo.v0"].properties_of("olm.bundle.object") == []
    assert [ri.image for ri in by_name["demo.v0"].related_images] == ["quay.io/demo:0"]
    assert by_name["demo.v2"].image == "quay.io/demo:2"


def test_properties_are_deduplicated_sorted_and_objects_last(tmp_path: Path) -> None:
    head = BundleSpec(
        "demo.v1",
        "1.0.0",
        properties=[
            ("olm.label", '{"label":"b"}'),
            ("olm.label", '{"label":"a"}'),
            ("olm.label", '{"label":"a"}'),
            ("olm.gvk", '{"version":"v1","kind":"Demo","group":"demo.io","extra":1}'),
            ("custom", '{ "z": 1,  "a": [1, 2] }'),
        ],
    )
    db = make_index_db(tmp_path / "a.db", [PackageSpec("demo", "stable", {"stable": [head]})])
    (read,) = read_all(db).values()
    props = [(p.type, p.value) for p in read.bundles[0].properties]  # type: ignore[attr-defined]
    assert props[:-1] == [
        ("custom", '{"z":1,"a":[1,2]}'),  # unknown types: compacted, key order kept
        ("olm.gvk", '{"group":"demo.io","kind":"Demo","version":"v1"}'),  # rebuilt: struct order
        ("olm.label", '{"label":"a"}'),
        ("olm.label", '{"label":"b"}'),
        ("olm.package", '{"packageName": "demo", "version": "1.0.0"}'.replace(" ", "")),
    ]
    assert props[-1][0] == "olm.bundle.object"


def test_icon_with_spaces_in_base64_is_decoded_like_opm(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n-not-really-a-png-"
    data = base64.b64encode(png).decode()
    spaced = data[:8] + " " + data[8:]
    head = BundleSpec(
        "demo.v1", "1.0.0", csv_spec={"icon": [{"base64data": spaced, "mediatype": "image/png"}]}
    )
    db = make_index_db(tmp_path / "a.db", [PackageSpec("demo", "stable", {"stable": [head]})])
    (read,) = read_all(db).values()
    icon = read.package.icon  # type: ignore[attr-defined]
    assert icon is not None and base64.b64decode(icon.base64data) == png
    assert icon.mediatype == "image/png"


def test_packages_stream_in_name_order(tmp_path: Path) -> None:
    names = ["zeta", "alpha", "mid"]
    db = make_index_db(tmp_path / "a.db", [simple_package(n) for n in names])
    with SqliteCatalog(db) as catalog:
        assert [p.name for p in catalog] == sorted(names)


def test_database_is_opened_read_only_and_left_untouched(tmp_path: Path) -> None:
    folder = tmp_path / "input"
    folder.mkdir()
    db = make_index_db(folder / "index.db", [simple_package()])
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    before = sorted(p.name for p in folder.iterdir())
    folder.chmod(0o555)  # nothing may be created next to the database
    db.chmod(0o444)
    try:
        read_all(db)
    finally:
        folder.chmod(0o755)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in folder.iterdir()) == before


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda p: p.mkdir(), "not a file"),
        (lambda p: None, "no such file"),
        (lambda p: p.write_text("hello"), "not an SQLite database"),
    ],
    ids=["directory", "missing", "text-file"],
)
def test_unreadable_inputs_name_the_file(setup, message: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "thing.db"
    setup(path)
    with pytest.raises(InputError, match=message) as info:
        SqliteCatalog(path)
    assert str(path) in str(info.value)


def test_truncated_database_is_reported(tmp_path: Path) -> None:
    db = make_index_db(tmp_path / "a.db", [simple_package(f"p{i}") for i in range(30)])
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"corrupt|truncated"):
        read_all(db)


def test_unknown_schema_version_is_refused(tmp_path: Path) -> None:
    db = make_index_db(tmp_path / "a.db", [simple_package()], schema_version=99)
    with pytest.raises(InputError, match="unknown index schema version 99"):
        SqliteCatalog(db)


def test_not_an_index_database(tmp_path: Path) -> None:
    db = tmp_path / "other.db"
    sqlite3.connect(db).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(InputError, match="not an OLM index database"):
        SqliteCatalog(db)


def test_unparsable_bundle_json_names_the_bundle(tmp_path: Path) -> None:
    broken = BundleSpec("demo.v1", "1.0.0", bundle_text='{"kind": "ClusterServiceVersion", ')
    db = make_index_db(tmp_path / "a.db", [PackageSpec("demo", "stable", {"stable": [broken]})])
    with pytest.raises(InputError, match=r"bundle 'demo.v1': manifest 1 is not valid JSON"):
        read_all(db)


def test_hot_journal_beside_the_database_is_refused(tmp_path: Path) -> None:
    db = make_index_db(tmp_path / "a.db", [simple_package()])
    (tmp_path / "a.db-journal").write_bytes(b"\0" * 512)
    with pytest.raises(InputError, match="journal file lies beside the database"):
        SqliteCatalog(db)


def test_corrupted_pages_are_reported(tmp_path: Path) -> None:
    db = make_index_db(tmp_path / "a.db", [simple_package(f"p{i}") for i in range(30)])
    data = bytearray(db.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    for page in range(1, len(data) // page_size):  # scribble over every page but the first
        start = page * page_size + 8
        data[start : start + 64] = b"\xff" * 64
    db.write_bytes(bytes(data))
    with pytest.raises(InputError, match="corrupt"):
        read_all(db)


def test_inconsistent_channels_are_repaired_with_warnings(tmp_path: Path) -> None:
    # A channel row without entries and entries of a channel without a row: opm refuses such a
    # database ("channel must contain at least one bundle", "unknown channel"); olmcat leaves
    # the empty channel out, keeps the orphan entries, and says so (a named deviation).
    db = make_index_db(tmp_path / "a.db", [simple_package("demo", ("0.2.0", "0.1.0"))])
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO channel VALUES ('empty', 'demo', 'demo.v0.2.0')")
    conn.execute("INSERT INTO channel_entry VALUES (100, 'orphan', 'demo', 'demo.v0.1.0', NULL, 0)")
    conn.commit()
    conn.close()
    notices = NoticeLog()
    with SqliteCatalog(db, notify=notices) as catalog:
        (pkg,) = list(catalog)
    assert [c.name for c in pkg.channels] == ["orphan", "stable"]
    assert sorted(n.code for n in notices) == ["sqlite.channel-without-row", "sqlite.empty-channel"]


def test_empty_icon_and_dropped_dependencies_are_notices(tmp_path: Path) -> None:
    pkg = simple_package("demo", ("0.1.0",))
    head = pkg.channels["stable"][0]
    head.csv_spec = {"icon": [{"base64data": "", "mediatype": ""}]}
    db = make_index_db(tmp_path / "a.db", [pkg])
    conn = sqlite3.connect(db)
    conn.execute(
        "INSERT INTO dependencies VALUES ('olm.label', '{\"label\":\"x\"}', 'demo.v0.1.0', "
        "'0.1.0', '')"
    )
    conn.commit()
    conn.close()
    notices = NoticeLog()
    with SqliteCatalog(db, notify=notices) as catalog:
        (read,) = list(catalog)
    assert read.package.icon is None
    assert sorted(n.code for n in notices) == ["legacy.dependency-dropped", "legacy.icon-empty"]
    assert {n.severity for n in notices} == {"info"}


def test_default_head_csv_that_go_cannot_decode_is_refused(tmp_path: Path) -> None:
    # opm migrate decodes the default channel head's csv column into a ClusterServiceVersion
    # and fails the whole migration when it cannot.
    pkg = simple_package("demo", ("0.1.0",))
    pkg.channels["stable"][0].csv_spec = {
        "installModes": [{"type": "OwnNamespace", "supported": "yes"}]
    }
    db = make_index_db(tmp_path / "a.db", [pkg])
    with SqliteCatalog(db) as catalog, pytest.raises(ValidationError, match="does not decode"):
        list(catalog)
