"""``olmcat validate --compat v1.26`` against the real ``opm validate`` (v1.26.5) on strings of
every escape and encoding class, in every field opm decodes, in JSON and YAML catalog files.

Each case is a small valid catalog (package, channel, bundle with olm.package, olm.gvk and
olm.csv.metadata properties, a blob of another schema) with one string replaced by generated
text: JSON files get the text as written between the quotes of a JSON string (escapes
``\\uXXXX`` of each range, valid and lone surrogates, ``\\/``, short escapes, raw controls, DEL,
C1, U+2028, BOM, NUL, non-BMP characters, invalid UTF-8 bytes, and the ``\\\\u003c`` class opm
v1.26 breaks on); YAML files inside a double-quoted scalar (YAML escapes ``\\x \\u \\U \\0 \\a
\\e \\N \\_ \\L \\P \\/``, raw characters, the same bytes). Files may start with a BOM. The
verdicts must agree; the table of every class in every field is marked ``slow``.

Run alone: ``pytest tests/differential/test_validate_escapes.py``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from olmcat.validate import RuleSet, Summary, validate
from tests.support import oracle
from tests.support.validate_cases import DECODER_CASES

pytestmark = pytest.mark.differential

EXAMPLES = int(os.environ.get("OLMCAT_DIFFERENTIAL_EXAMPLES", "0")) or 40

# Text as written between the quotes of a JSON string.
JSON_PIECES = {
    "plain": "ab",
    "real-html": r"\u003c\u003e\u0026",
    "text-lt": r"\\u003c",
    "text-gt": r"\\u003e",
    "text-amp": r"\\u0026",
    "text-upper": r"\\u003C",
    "odd-run": r"\\\u003c",
    "even-run": r"\\\\u003e",
    "u005c": r"\u005cu003c",
    "nul": r"\u0000",
    "c0": r"\u001f",
    "del": r"\u007f",
    "c1": r"\u0085",
    "nbsp": r"\u00a0",
    "ls": r"\u2028",
    "bom": r"\ufeff",
    "fffe": r"\ufffe",
    "ffff": r"\uffff",
    "pair": r"\ud83d\ude00",
    "lone-high": r"\ud800",
    "lone-low": r"\udc00",
    "reversed": r"\ude00\ud83d",
    "slash": r"\/",
    "short": r"\b\f\n\r\t\"\\",
    "raw-tab": "\t",
    "raw-c0": "\x01",
    "raw-del": "\x7f",
    "raw-c1": "\u0085",
    "raw-ls": "\u2028",
    "raw-bom": "\ufeff",
    "raw-nonbmp": "\U0001f600",
    "raw-nul": "\x00",
}
# Text as written between the quotes of a YAML double-quoted scalar.
YAML_PIECES = {
    "plain": "ab",
    "text-lt": r"\\u003c",
    "text-amp": r"\\u0026",
    "lt": "<&>",
    "x": r"\x41",
    "nul": r"\0",
    "bell": r"\a",
    "esc": r"\e",
    "nel": r"\N",
    "nbsp": r"\_",
    "ls": r"\L",
    "ps": r"\P",
    "slash": r"\/",
    "tab": r"\t",
    "u-c0": r"\u0001",
    "u-del": r"\u007f",
    "u-c1": r"\u0085",
    "u-bom": r"\ufeff",
    "u-fffe": r"\ufffe",
    "U-nonbmp": r"\U0001F600",
    "u-lone": r"\ud800",
    "raw-del": "\x7f",
    "raw-c1": "\u0085",
    "raw-ls": "\u2028",
    "raw-nonbmp": "\U0001f600",
    "raw-c0": "\x01",
    "raw-bom": "\ufeff",
    "raw-fffe": "\ufffe",
}
BYTES = {"bad-byte": b"\xff", "overlong": b"\xc0\xaf", "truncated": b"\xe2\x82"}

FIELDS = (
    "package-description",
    "channel-skip-range",
    "bundle-image",
    "csv-metadata-description",
    "csv-metadata-annotation",
    "csv-metadata-annotation-key",
    "gvk-kind",
    "other-blob-value",
    "other-blob-key",
)
MARK = "@@TEXT@@"


def _blobs(field: str) -> list[dict[str, object]]:
    text = MARK
    annotations = {"alm-examples": "[]"}
    if field == "csv-metadata-annotation":
        annotations["alm-examples"] = text
    if field == "csv-metadata-annotation-key":
        annotations[text] = "x"
    other: dict[str, object] = {"schema": "example.com.note", "package": "p", "note": "n"}
    if field == "other-blob-value":
        other["note"] = text
    if field == "other-blob-key":
        other[text] = "n"
    return [
        {
            "schema": "olm.package",
            "name": "p",
            "defaultChannel": "s",
            "description": text if field == "package-description" else "d",
        },
        {
            "schema": "olm.channel",
            "package": "p",
            "name": "s",
            "entries": [
                {"name": "p.v1", **({"skipRange": text} if field == "channel-skip-range" else {})}
            ],
        },
        {
            "schema": "olm.bundle",
            "package": "p",
            "name": "p.v1",
            "image": "quay.io/p/b:1" + (text if field == "bundle-image" else ""),
            "properties": [
                {"type": "olm.package", "value": {"packageName": "p", "version": "1.0.0"}},
                {
                    "type": "olm.gvk",
                    "value": {
                        "group": "g.io",
                        "kind": text if field == "gvk-kind" else "K",
                        "version": "v1",
                    },
                },
                {
                    "type": "olm.csv.metadata",
                    "value": {
                        "annotations": annotations,
                        "description": text if field == "csv-metadata-description" else "d",
                    },
                },
            ],
        },
        other,
    ]


def catalog_bytes(field: str, body: bytes, form: str, bom: bool) -> bytes:
    """The catalog with the marked string's inner text replaced by ``body``."""
    blobs = _blobs(field)
    if form == "json":
        text = "".join(json.dumps(b, ensure_ascii=False) + "\n" for b in blobs).encode()
    else:
        import yaml

        text = "".join(
            "---\n" + yaml.safe_dump(b, default_style='"', allow_unicode=True, width=10**6)
            for b in blobs
        ).encode()
    assert text.count(MARK.encode()) == 1
    data = text.replace(MARK.encode(), body)
    return (b"\xef\xbb\xbf" if bom else b"") + data


def opm_accepts(directory: Path, scratch: Path) -> tuple[bool, str]:
    run = oracle.opm("validate", directory, cwd=scratch, timeout=120)
    assert run.returncode in (0, 1) or "panic:" in run.stderr, run.stderr[-2000:]
    return run.ok, run.fatal()[-300:]


def olmcat_verdict(directory: Path) -> tuple[bool, list[str]]:
    summary = Summary()
    problems = list(validate(directory, rules=RuleSet.build("v1.26"), summary=summary))
    return summary.valid(), [f"{p.rule}: {p.message[:100]}" for p in problems]


def check(tmp_path: Path, field: str, body: bytes, form: str, bom: bool) -> None:
    root = tmp_path / "catalog"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    (root / f"catalog.{form}").write_bytes(catalog_bytes(field, body, form, bom))
    opm_ok, opm_says = opm_accepts(root, tmp_path)
    ours, problems = olmcat_verdict(root)
    assert ours == opm_ok, (field, form, bom, body, opm_says, problems)


def _encode(pieces: list[str | bytes]) -> bytes:
    return b"".join(
        p if isinstance(p, bytes) else p.encode("utf-8", "surrogatepass") for p in pieces
    )


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, bytes, str, bool]:
    form = draw(st.sampled_from(["json", "yaml"]))
    table = JSON_PIECES if form == "json" else YAML_PIECES
    names = draw(st.lists(st.sampled_from(sorted(table) + sorted(BYTES)), min_size=1, max_size=4))
    pieces: list[str | bytes] = [table.get(n) or BYTES[n] for n in names]
    return draw(st.sampled_from(FIELDS)), _encode(pieces), form, draw(st.booleans())


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=cases())
def test_generated_strings_get_opms_verdict(
    case: tuple[str, bytes, str, bool], tmp_path: Path
) -> None:
    oracle.require_oracle()
    check(tmp_path, *case)


TABLE = [
    (field, form, name)
    for field in FIELDS
    for form, table in (("json", JSON_PIECES), ("yaml", YAML_PIECES))
    for name in [*table, *BYTES]
]


@pytest.mark.slow
@pytest.mark.parametrize(("field", "form", "name"), TABLE, ids=["-".join(t) for t in TABLE])
def test_every_class_in_every_field(tmp_path: Path, field: str, form: str, name: str) -> None:
    """The whole table (slow: one opm run per cell)."""
    oracle.require_oracle()
    table = JSON_PIECES if form == "json" else YAML_PIECES
    piece = table.get(name)
    body = _encode(["a", piece if piece is not None else BYTES[name], "b"])
    check(tmp_path, field, body, form, bom=False)


@pytest.mark.parametrize(
    ("form", "name"),
    [("json", "text-lt"), ("json", "odd-run"), ("json", "u005c"), ("yaml", "text-lt")],
)
def test_the_issue_class_in_csv_metadata(tmp_path: Path, form: str, name: str) -> None:
    """The issue's case (a CSV example with < and > inside olm.csv.metadata), always run."""
    oracle.require_oracle()
    table = JSON_PIECES if form == "json" else YAML_PIECES
    body = _encode(['[{"spec": {"path": "', table[name], 'full-s3-path"}}]'.replace('"', "'")])
    check(tmp_path, "csv-metadata-annotation", body, form, bom=False)


@pytest.mark.parametrize(
    ("name", "text", "decodes"), DECODER_CASES, ids=[c[0] for c in DECODER_CASES]
)
def test_json_then_yaml_and_huge_numbers_as_v1_26_reads_them(
    tmp_path: Path, name: str, text: str, decodes: bool
) -> None:
    """v1.26.5 has one decoder per file: every mixed file of apimachinery v0.33's table is
    refused; numbers beyond float64 pass (v1.26 decodes blobs into typed fields only)."""
    oracle.require_oracle()
    from tests.support.fbc_catalogs import good_package

    for variant, body in (("mixed", text), ("huge", '{"schema": "example.note", "n": 1e400}\n')):
        root = tmp_path / variant / "catalog"
        root.mkdir(parents=True)
        (root / "a.json").write_text(body)
        rest = good_package()[1:] if "olm.package" in body else good_package()
        (root / "b.json").write_text("".join(json.dumps(b) + "\n" for b in rest))
        opm_ok, opm_says = opm_accepts(root, tmp_path)
        ours, problems = olmcat_verdict(root)
        assert ours == opm_ok, (variant, opm_says, problems)
        assert opm_ok is (variant == "huge")
        if variant == "mixed" and decodes:  # the same blobs, all JSON: accepted
            (root / "a.json").write_text(_as_json(body))
            assert opm_accepts(root, tmp_path)[0] and olmcat_verdict(root)[0]


def _as_json(text: str) -> str:
    """The documents of a mixed case as one JSON stream (what v1.56 makes of them)."""
    import yaml

    docs = [d for d in yaml.safe_load_all(text.replace("\t", "  ")) if d is not None]
    return "".join(json.dumps(d) + "\n" for d in docs)
