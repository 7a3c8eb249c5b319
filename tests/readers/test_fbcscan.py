"""The FBC scanner: which files opm loads, how their text splits into documents (as Kubernetes'
YAMLOrJSONDecoder splits it), where each blob starts, and strict vs collecting mode."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from olmcat.errors import InputError
from olmcat.readers.fbcscan import DocumentError, FbcScan, ScanProblem, catalog_files, documents


def docs(text: str) -> list[tuple[int, int, object]] | tuple[str, int, int]:
    try:
        return list(documents(io.StringIO(text)))
    except DocumentError as exc:
        return (str(exc), exc.line, exc.column)


def test_json_stream_positions_are_line_and_column_of_each_value() -> None:
    text = '{"a": 1}\n  {"b":\n2}\n\n\n   {"c": 3}'
    assert docs(text) == [(1, 1, {"a": 1}), (2, 3, {"b": 2}), (6, 4, {"c": 3})]


def test_json_positions_survive_chunked_reading() -> None:
    big = '{"x": "' + "y" * 3_000_000 + '"}'
    text = f'{{"a": 1}}\n{big}\n\n  {{"c": 3}}\n'
    found = list(documents(io.StringIO(text)))
    assert [(line, column) for line, column, _ in found] == [(1, 1), (2, 1), (4, 3)]


def test_a_json_error_is_located() -> None:
    message, line, column = docs('{"a": 1}\n{"b": }')  # type: ignore[misc]
    assert (message.startswith("not valid JSON"), line, column) == (True, 2, 7)


def test_first_non_blank_character_decides_json_or_yaml() -> None:
    # opm sniffs content, not the file name: "{" makes a JSON stream, anything else YAML.
    assert docs('  {"schema": "a"} {"schema": "b"}') == [
        (1, 3, {"schema": "a"}),
        (1, 19, {"schema": "b"}),
    ]
    assert docs('["not", "json stream"]') == [(1, 1, ["not", "json stream"])]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Verified against opm v1.26.5 (tests/differential/test_validate.py runs such files).
        ("---\nschema: a\n", [(2, 1, {"schema": "a"})]),
        ("schema: a\n---\n", [(1, 1, {"schema": "a"})]),
        ("schema: a\n---\n---\nschema: b\n", [(1, 1, {"schema": "a"}), (4, 1, {"schema": "b"})]),
        ("# comment\nschema: a\n", [(2, 1, {"schema": "a"})]),
        ("schema: a\n---\n# done\n", [(1, 1, {"schema": "a"}), (3, 1, None)]),
        ("---\n", [(1, 1, None)]),
        ("\n\n", [(1, 1, None)]),
        ("", []),
    ],
)
def test_yaml_documents_split_as_kubernetes_does(text: str, expected: object) -> None:
    assert docs(text) == expected


def test_yaml_separator_with_content_is_an_error() -> None:
    message, line, _ = docs("schema: a\n--- {schema: b}\n")  # type: ignore[misc]
    assert line == 2 and "separator" in message


def test_yaml_error_is_located() -> None:
    _, line, column = docs("schema: a\n---\nschema: b\nname: [x\n")  # type: ignore[misc]
    assert line == 5 and column >= 1


def test_every_file_but_indexignore_and_what_it_excludes_is_a_catalog_file(
    tmp_path: Path,
) -> None:
    (tmp_path / "pkg" / "objects").mkdir(parents=True)
    for name in ("a.json", "README.md", "Dockerfile", "pkg/index.yaml", "pkg/objects/x.yaml"):
        (tmp_path / name).write_text("{}")
    (tmp_path / ".indexignore").write_text("**/objects/\n")
    (tmp_path / "pkg" / ".indexignore").write_text("index.yaml\n")
    found = [p.relative_to(tmp_path).as_posix() for p in catalog_files(tmp_path)]
    assert found == ["Dockerfile", "README.md", "a.json"]


def test_strict_mode_raises_at_a_stray_file(tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text('{"schema": "olm.package", "name": "p"}\n')
    (tmp_path / "notes.txt").write_text("remember the channel\n")
    with pytest.raises(InputError) as info:
        FbcScan(tmp_path)
    assert str(info.value).startswith(f"{tmp_path / 'notes.txt'}:1:1: notes.txt is not a catalog")
    assert ".indexignore" in str(info.value)


def test_collecting_mode_reports_everything_and_goes_on(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(
        '{"schema": "olm.package", "name": "p"}\n'
        '{"schema": "olm.bundle", "name": "b", "relatedImages": {}}\n'
        '{"schema": "olm.package", "name": "p"}\n'
    )
    (tmp_path / "b.yaml").write_text("schema: olm.channel\nname: c\npackage: p\n---\n[1]\n")
    found: list[ScanProblem] = []
    with FbcScan(tmp_path, report=found.append) as scan:
        assert [(p.kind, p.position.line) for p in found] == [
            ("required-field", 2),
            ("duplicate", 3),
            ("blob", 5),
        ]
        assert found[1].first is not None and found[1].first.line == 1
        assert [r.schema for r in scan.by_package["p"]] == ["olm.package", "olm.channel"]
        (unowned,) = scan.unowned  # kept so that validate can report its other defects
        assert scan.load(unowned)["relatedImages"] == {}
