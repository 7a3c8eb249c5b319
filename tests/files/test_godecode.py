"""The first document of a file as Kubernetes' YAML-or-JSON decoder (and yaml.v2) sees it.

The rules are those of k8s.io/apimachinery's util/yaml (YAMLReader, GuessJSONStream), yaml.v2's
scalar resolution and sigs.k8s.io/yaml's conversion; tests/differential checks the same trees
against the real initializer.
"""

from __future__ import annotations

import pytest

from olmcat.files import godecode
from olmcat.files.godecode import NotDecodable, first_document, package_manifest, unstructured


def doc(text: str) -> object:
    return unstructured(first_document(text.encode()))


def test_first_document_is_the_text_before_the_first_separator() -> None:
    assert doc("kind: A\n---\nkind: B\n") == {"kind": "A"}
    assert doc("---\nkind: A\n---\nkind: B\n") == {"kind": "A"}  # a leading --- is skipped


def test_a_comment_or_blank_line_before_the_separator_is_the_first_document() -> None:
    for text in ("# licence\n---\nkind: A\n", "\n---\nkind: A\n"):
        with pytest.raises(NotDecodable, match="not a mapping"):
            doc(text)


def test_only_a_comment_may_follow_the_dashes() -> None:
    assert doc("--- # first\nkind: A\n") == {"kind": "A"}
    with pytest.raises(NotDecodable, match="invalid YAML document separator"):
        doc("kind: A\n--- !tag\nkind: B\n")


def test_crlf_lines_and_a_missing_final_newline() -> None:
    assert doc("kind: A\r\nmetadata:\r\n  name: x") == {"kind": "A", "metadata": {"name": "x"}}


def test_json_only_when_the_first_30_bytes_start_with_a_brace() -> None:
    assert first_document(b'  {"kind": "A"} trailing junk').fmt == "json"
    assert doc('  {"kind": "A"} trailing junk') == {"kind": "A"}
    late = " " * 40 + '{"kind": "A"}'
    assert first_document(late.encode()).fmt == "yaml"  # read as YAML, which it also is
    with pytest.raises(NotDecodable):
        doc('{"kind": NaN}')


def test_an_object_needs_a_string_kind_but_not_an_api_version() -> None:
    assert doc("kind: ConfigMap\n") == {"kind": "ConfigMap"}
    for text in ("apiVersion: v1\n", "kind: 5\n", "kind: ''\n", "- kind: A\n", "just text\n"):
        with pytest.raises(NotDecodable):
            doc(text)
    with pytest.raises(NotDecodable, match="empty"):
        unstructured(first_document(b""))


@pytest.mark.parametrize(
    ("scalar", "value"),
    [
        ("y", True),
        ("N", False),
        ("on", True),
        ("Off", False),
        ("yes", True),
        ("~", None),
        ("08", 8),  # not octal: a float to yaml.v2, whole, so an integer after JSON
        ("0o17", 15),
        ("017", 15),
        ("0x1A", 26),
        ("1_000", 1000),
        ("1e3", 1000),
        ("1.5", "1.5"),
        (".5", "0.5"),
        ("2021-01-01", "2021-01-01"),  # timestamps stay text in generic maps
        ("yEs", "yEs"),
        ("1e400", "1e400"),  # out of float64 range: text
        ("12345678901234567890", 12345678901234567000),  # float64, printed as Go prints it
    ],
)
def test_plain_scalars_resolve_as_yaml_v2_then_json_numbers(scalar: str, value: object) -> None:
    got = doc(f"kind: A\nv: {scalar}\n")
    assert isinstance(got, dict)
    assert str(got["v"]) == str(value) if isinstance(value, str) else got["v"] == value


def test_values_json_cannot_hold_fail_the_file() -> None:
    for text in ("kind: A\nv: .inf\n", "kind: A\n~: x\n"):
        with pytest.raises(NotDecodable):
            doc(text)


def test_map_keys_become_strings_floats_as_float32() -> None:
    assert doc("kind: A\n1: a\n2.50: b\ntrue: c\n0.1: d\n") == {
        "kind": "A",
        "1": "a",
        "2.5": "b",
        "true": "c",  # not the same key as 1, as in Go
        "0.1": "d",
    }


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (4.1, "4.1"),
        (4.10, "4.1"),
        (1e6, "1e+06"),
        (123456.0, "123456"),
        (1234567.0, "1.234567e+06"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (-2.5, "-2.5"),
        (0.1, "0.1"),
        (16777217.0, "1.6777216e+07"),  # not a float32: rounded first
        (float("inf"), "+Inf"),
        (float("-inf"), "-Inf"),
        (float("nan"), "NaN"),
        (1e300, "+Inf"),  # beyond float32
    ],
)
def test_format_float32_g_is_go_strconv(value: float, text: str) -> None:
    assert godecode.format_float32_g(value) == text


def test_package_manifest_fields_coerce_scalars_in_yaml_only() -> None:
    text = "packageName: 123\nchannels:\n- name: 4.10\n  currentCSV: x\ndefaultChannel: yes\n"
    manifest = package_manifest(first_document(text.encode()))
    assert manifest == godecode.PackageManifest("123", (("4.1", "x"),), "true")
    with pytest.raises(NotDecodable, match="a number where a string is expected"):
        package_manifest(first_document(b'{"packageName": 123}'))


def test_package_manifest_field_names_match_ignoring_case() -> None:
    text = b"PACKAGENAME: demo\nChannels: [{NAME: a, currentcsv: b}]\n"
    assert package_manifest(first_document(text)) == godecode.PackageManifest(
        "demo", (("a", "b"),), ""
    )


def test_most_files_are_package_manifests_without_a_name() -> None:
    assert package_manifest(first_document(b"kind: ClusterServiceVersion\n")).package_name == ""
    assert package_manifest(first_document(b"# only a comment\n")).package_name == ""
    for text in (b"FROM scratch\n", b"- a\n", b"channels: 5\n", b""):
        with pytest.raises(NotDecodable):
            package_manifest(first_document(text))


def test_json_deeper_than_c_code_may_recurse_is_scanned_in_python() -> None:
    """CPython 3.12 holds the C JSON scanner to about 1,000 levels whatever the recursion limit:
    the standard library's pure-Python scanner then reads the document (simulated here, so every
    Python checks the fallback)."""
    import json

    from olmcat.files.json import raw_decode_deep

    def c_limit(text: str, index: int) -> tuple[object, int]:
        raise RecursionError("maximum recursion depth exceeded while decoding a JSON array")

    decoder = json.JSONDecoder()
    decoder.scan_once = c_limit  # type: ignore[attr-defined]
    assert raw_decode_deep(decoder, ' [[1, {"a": [2]}]] x', 1) == ([[1, {"a": [2]}]], 18)
