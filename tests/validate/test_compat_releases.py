"""``--compat`` at every release: each rule is an error exactly at the releases that enforce it.

* Every rule that changed between releases is checked at the boundaries of its range (the
  release before ``since``, ``since``, the last release before ``until``, ``until``) on the
  rule's own broken catalog (tests/support/validate_cases.py), so the range written in the rules
  table, tied to a row of the behaviour table, is the one that decides.
* Strings and encodings: the escaped-HTML-escape class (v1.26.5 to v1.27.1), numbers beyond
  float64 (v1.28.0 on), and Kubernetes 1.33's JSON-then-YAML decoding (v1.56.0 on), the last
  from k8s.io/apimachinery v0.33.0's own test table (pkg/util/yaml/decoder_test.go,
  TestYAMLOrJSONDecoder, the cases that commit 9b3d085f added), each document of a case written
  as a catalog blob.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.go.opm import RELEASES, opm_release
from olmcat.validate import RuleSet, Summary, validate
from olmcat.validate.rules import RULES
from tests.support.fbc_catalogs import good_package, write_fbc
from tests.support.validate_cases import CASES, DECODER_CASES, REST


def severities(root: Path, compat: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for problem in validate(root, rules=RuleSet.build(compat), summary=Summary()):
        out.setdefault(problem.rule, set()).add(problem.severity)
    return out


def verdict(root: Path, compat: str) -> bool:
    summary = Summary()
    for _ in validate(root, rules=RuleSet.build(compat), summary=summary):
        pass
    return summary.valid()


def _before(tag: str) -> str:
    release = opm_release(tag)
    return max(r for r in RELEASES if r < release).tag


# Rules whose range is not the whole table and that have a crafted case (the three string and
# encoding rules are tested below, on catalogs of their own).
CHANGED = [r for r in RULES if (r.since or r.until) and r.name in CASES]


@pytest.mark.parametrize("rule", CHANGED, ids=lambda r: f"{r.id}-{r.name}")
def test_changed_rules_are_errors_exactly_within_their_releases(
    rule: object, tmp_path: Path
) -> None:
    from olmcat.validate.rules import Rule

    assert isinstance(rule, Rule)
    blobs, expected, _ = CASES[rule.name]
    assert any(found == rule.id for found, _ in expected)
    root = write_fbc(tmp_path / "fbc", *blobs)
    boundaries = {RELEASES[0].tag, RELEASES[-1].tag}
    for tag in (rule.since, rule.until):
        if tag:
            boundaries |= {tag, _before(tag)}
    for tag in sorted(boundaries, key=opm_release):
        found = severities(root, tag).get(rule.id, set())
        want = "error" if rule.enforced_by(opm_release(tag)) else "warning"
        assert found == {want}, (tag, found)


def test_any_release_is_a_compat_level_and_others_are_usage_errors(tmp_path: Path) -> None:
    root = write_fbc(tmp_path / "fbc", *good_package())
    runner = CliRunner()
    for compat in ("1.46", "v1.46.0", "1.71.0", "v1.73", "1.26.5"):
        result = runner.invoke(cli, ["validate", str(root), "--compat", compat])
        assert result.exit_code == 0, result.output
    assert (
        "valid for opm v1.46.0"
        in runner.invoke(cli, ["validate", str(root), "--compat", "v1.46.0"]).output
    )
    for bad in ("1.25", "v2.0", "latest"):
        result = runner.invoke(cli, ["validate", str(root), "--compat", bad])
        assert result.exit_code == 2 and "v1.26.5 to v1.73.0" in result.output, result.output
    listed = runner.invoke(cli, ["validate", "--list-rules", "--compat", "1.27"])
    assert listed.exit_code == 0
    line = next(x for x in listed.output.splitlines() if x.startswith("OLMCAT-FS006"))
    assert " error " in line and "v1.26.5 to v1.27.1" in line


# -- strings and encodings ----------------------------------------------------------------------


def _catalog_with(tmp_path: Path, text: str, name: str = "catalog.json") -> Path:
    root = tmp_path / "fbc"
    root.mkdir(parents=True)
    (root / name).write_text(text)
    return root


def _json_lines(blobs: list[dict[str, object]]) -> str:
    return "".join(json.dumps(b) + "\n" for b in blobs)


def test_escaped_html_escape_is_refused_by_v1_26_and_v1_27_only(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[0]["description"] = "see <b>" + "\\u003cexample\\u003e"  # the text, backslash and all
    root = _catalog_with(tmp_path, _json_lines(blobs))
    assert '"see <b>\\\\u003cexample\\\\u003e"' in (root / "catalog.json").read_text()
    assert not verdict(root, "1.26") and not verdict(root, "1.27.1")
    assert verdict(root, "1.28") and verdict(root, "1.72")
    assert severities(root, "1.26")["OLMCAT-FS006"] == {"error"}
    # A real escape of "<" (one backslash) is what opm writes itself: fine everywhere.
    blobs[0]["description"] = "see <b>"
    fine = _catalog_with(tmp_path / "fine", json.dumps(blobs[0], ensure_ascii=True) + "\n")
    assert "OLMCAT-FS006" not in severities(fine, "1.26")


def test_escaped_html_escape_in_yaml_strings(tmp_path: Path) -> None:
    root = _catalog_with(
        tmp_path,
        "---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n"
        'description: \'JSON: [{"a": "\\u0026"}]\'\n',
        "catalog.yaml",
    )
    assert severities(root, "1.27")["OLMCAT-FS006"] == {"error"}
    assert severities(root, "1.28")["OLMCAT-FS006"] == {"warning"}


@pytest.mark.parametrize("number", ["1e400", "-1E+309", "9" * 320])
def test_numbers_beyond_float64_are_refused_from_v1_28(tmp_path: Path, number: str) -> None:
    text = _json_lines(good_package()) + f'{{"schema": "example.note", "n": {number}}}\n'
    root = _catalog_with(tmp_path, text)
    assert verdict(root, "1.27") and not verdict(root, "1.28") and not verdict(root, "1.73")
    ok = _catalog_with(tmp_path / "ok", text.replace(number, "1.7976931348623157e308"))
    assert verdict(ok, "1.73")


def test_a_huge_number_in_the_only_document_is_read_as_yaml_from_v1_56(tmp_path: Path) -> None:
    # Meta.UnmarshalJSON fails on the first document; Kubernetes 1.33's decoder reads it again
    # as YAML, where 1e400 is a string.
    root = _catalog_with(tmp_path, '{"schema": "example.note", "n": 1e400}\n')
    assert not verdict(root, "1.55") and verdict(root, "1.56")


@pytest.mark.parametrize(
    ("text", "decodes"), [c[1:] for c in DECODER_CASES], ids=[c[0] for c in DECODER_CASES]
)
def test_json_then_yaml_from_v1_56(tmp_path: Path, text: str, decodes: bool) -> None:
    root = tmp_path / "fbc"
    root.mkdir()
    (root / "mixed.json").write_text(text)
    if "olm.package" not in text:
        (root / "package.json").write_text(json.dumps(good_package()[0]) + "\n")
    (root / "rest.json").write_text(REST)
    assert verdict(root, "1.56") is decodes
    assert verdict(root, "1.73") is decodes
    assert not verdict(root, "1.55")  # one decoder only: the file is refused
    if decodes:
        assert severities(root, "1.55")["OLMCAT-FS008"] == {"error"}
        assert severities(root, "1.56")["OLMCAT-FS008"] == {"warning"}


def test_the_reader_reads_json_then_yaml_as_the_newest_opm(tmp_path: Path) -> None:
    from olmcat.readers.fbc import FbcCatalog

    root = tmp_path / "fbc"
    root.mkdir()
    blobs = good_package()
    (root / "catalog.json").write_text(
        json.dumps(blobs[0]) + "\n---\n" + "---\n".join(f"{json.dumps(b)}\n" for b in blobs[1:])
    )
    with FbcCatalog(root) as catalog:
        [package] = list(catalog.packages())
    assert [b.name for b in package.bundles] == ["foo.v0.1.0", "foo.v0.2.0"]
