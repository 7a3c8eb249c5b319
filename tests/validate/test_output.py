"""``olmcat validate`` output and options: JSON objects per problem, SARIF valid against the
official 2.1.0 schema (vendored in tests/data/sarif), text lines, exit codes, --compat,
--disable / --enable, --list-rules; and the issue's cases end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.validate import RULES
from tests.support.fbc_catalogs import bnd, ch, entry, good_package, pkg, write_fbc

SARIF_SCHEMA = Path(__file__).parents[1] / "data" / "sarif" / "sarif-schema-2.1.0.json"
DOCS = Path(__file__).parents[2] / "docs" / "rules.md"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["validate", *args])
    return result.exit_code, result.stdout, result.stderr


def broken(tmp_path: Path) -> Path:
    """Line 5: an olm.bundle with relatedImages as an object and no package; line 2: the second
    entry replaces nothing, so the channel has two heads."""
    blobs = good_package()
    blobs[1]["entries"][1].pop("replaces")
    return write_fbc(
        tmp_path / "fbc", *blobs, {"schema": "olm.bundle", "name": "x", "relatedImages": {}}
    )


def test_json_has_one_object_per_problem_with_every_field(tmp_path: Path) -> None:
    root = broken(tmp_path)
    code, out, _ = invoke(str(root), "-o", "json")
    document = json.loads(out)
    assert code == 1 and document["valid"] is False and document["compat"] == "v1.72"
    # Every problem of the relatedImages case in one run: the missing package and the
    # type error, and the two heads.
    assert [(p["rule"], p["line"]) for p in document["problems"]] == [
        ("OLMCAT-BL004", 5),
        ("OLMCAT-BL003", 5),
        ("OLMCAT-CH005", 2),
    ]
    first = document["problems"][0]
    assert set(first) == {
        "rule",
        "name",
        "severity",
        "package",
        "channel",
        "bundle",
        "file",
        "line",
        "column",
        "message",
        "fix",
    }
    assert (first["file"], first["column"], first["severity"]) == (
        str(root / "catalog.json"),
        1,
        "error",
    )
    assert first["fix"]
    heads = document["problems"][2]
    assert (heads["package"], heads["channel"]) == ("foo", "stable")


def test_sarif_is_valid_sarif_2_1_0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    root = broken(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, _ = invoke("fbc", "-o", "sarif", "--enable", "all")
    log = json.loads(out)
    schema = json.loads(SARIF_SCHEMA.read_text())
    jsonschema.validate(log, schema, cls=jsonschema.Draft4Validator)
    run = log["runs"][0]
    assert code == 1 and log["version"] == "2.1.0"
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [r.id for r in RULES]
    result = run["results"][0]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "fbc/catalog.json", "uriBaseId": "SRCROOT"}
    assert location["region"] == {"startLine": 5, "startColumn": 1}
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"].endswith("/")
    assert root.is_dir()


def test_sarif_of_a_database_places_problems_on_the_database_file(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from tests.support.paths import corpus_path

    db = corpus_path("sqlite", "small.db")
    code, out, _ = invoke(str(db), "-o", "sarif", "--enable", "incomplete-icon")
    log = json.loads(out)
    jsonschema.validate(log, json.loads(SARIF_SCHEMA.read_text()), cls=jsonschema.Draft4Validator)
    assert code == 0


def test_text_lines_name_position_rule_and_fix(tmp_path: Path) -> None:
    root = broken(tmp_path)
    code, out, err = invoke(str(root))
    lines = out.splitlines()
    assert code == 1
    assert lines[0].startswith(f"{root / 'catalog.json'}:5:1: error: ")
    assert lines[0].endswith("[OLMCAT-BL004 required-field]")
    assert lines[1].startswith("    fix: ")
    assert "invalid for opm v1.72" in err and "3 errors" in err


def test_compat_v126_turns_newer_rules_into_warnings(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[3]["image"] = "quay.io/Example/foo:v1"  # refused by opm v1.64 and later
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert invoke(str(root))[0] == 1
    code, out, _ = invoke(str(root), "--compat", "v1.26")
    assert code == 0 and "warning:" in out and "OLMCAT-BU009" in out
    assert invoke(str(root), "--compat", "v1.26", "--strict")[0] == 1


def test_disable_and_enable(tmp_path: Path) -> None:
    blobs = good_package()
    blobs[3]["image"] = "quay.io/Example/foo:v1"
    blobs[3]["relatedImages"] = [{"name": "operand", "image": ""}]
    root = write_fbc(tmp_path / "fbc", *blobs)
    assert invoke(str(root), "--disable", "OLMCAT-BU009")[0] == 0
    assert invoke(str(root), "--disable", "invalid-image-reference")[0] == 0
    _, out, _ = invoke(str(root), "--disable", "BU009", "-o", "json")
    assert json.loads(out)["problems"] == []
    _, out, _ = invoke(
        str(root), "--disable", "all", "--enable", "related-image-without-image", "-o", "json"
    )
    assert [p["rule"] for p in json.loads(out)["problems"]] == ["OLMCAT-BU012"]
    code, _, err = invoke(str(root), "--disable", "no-such-rule")
    assert code == 2 and "unknown rule" in err


def test_list_rules_names_every_rule() -> None:
    code, out, _ = invoke("--list-rules", "--compat", "v1.26")
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines()}
    assert set(rows) == {r.id for r in RULES}
    assert rows["OLMCAT-CH007"][1:4] == ["chain-ends-at-skipped", "warning", "on"]
    assert rows["OLMCAT-CH003"][2] == "error"


def test_missing_catalog_is_a_usage_error() -> None:
    assert invoke()[0] == 2


# -- the cases ----------------------------------------------------------------------------


def test_version_range_of_a_required_package_is_a_warning_naming_versionrange(
    tmp_path: Path,
) -> None:
    blobs = good_package()
    blobs[3]["properties"].append(
        {"type": "olm.package.required", "value": {"packageName": "bar", "versionRange": "v0.1.0"}}
    )
    root = write_fbc(tmp_path / "fbc", *blobs)
    code, out, _ = invoke(str(root), "-o", "json")
    (problem,) = json.loads(out)["problems"]
    assert code == 0 and problem["severity"] == "warning" and problem["rule"] == "OLMCAT-PR005"
    assert "versionRange" in problem["message"] and "skipRange" not in problem["message"]


def test_an_empty_directory_is_valid_with_a_warning(tmp_path: Path) -> None:
    # opm v1.26.5 and v1.72 accept it (the differential test runs the oracle); olmcat agrees but
    # says so, since it is usually a wrong path.
    (tmp_path / "empty").mkdir()
    code, out, _ = invoke(str(tmp_path / "empty"), "-o", "json")
    document = json.loads(out)
    assert code == 0 and document["valid"] is True and document["packages"] == 0
    assert [p["rule"] for p in document["problems"]] == ["OLMCAT-FS005"]
    assert invoke(str(tmp_path / "empty"), "--strict")[0] == 1


def test_a_stray_file_fails_with_advice(tmp_path: Path) -> None:
    root = write_fbc(tmp_path / "fbc", *good_package())
    (root / "README.md").write_text("# My catalog\n\nBuilt by CI.\n")
    code, out, _ = invoke(str(root))
    assert code == 1 and "[OLMCAT-FS001 stray-file]" in out and ".indexignore" in out
    (root / ".indexignore").write_text("README.md\n")
    assert invoke(str(root))[0] == 0


def test_a_skipped_replaces_edge_ends_the_chain_and_the_message_says_how_to_fix(
    tmp_path: Path,
) -> None:
    # The shape opm itself writes for multicluster-operators-subscription: the head replaces
    # and skips the same bundle, below which the chain goes on.
    blobs: list[dict[str, Any]] = [
        pkg(),
        ch(
            "stable",
            entry("foo.v0.3.0", "foo.v0.2.0", skips=["foo.v0.2.0"]),
            entry("foo.v0.2.0", "foo.v0.1.0"),
            entry("foo.v0.1.0"),
        ),
        *[bnd(f"foo.v{v}", v) for v in ("0.3.0", "0.2.0", "0.1.0")],
    ]
    root = write_fbc(tmp_path / "fbc", *blobs)
    code, out, _ = invoke(str(root), "-o", "json")
    (problem,) = json.loads(out)["problems"]
    assert code == 1 and problem["rule"] == "OLMCAT-CH007"
    message = problem["message"]
    assert "foo.v0.1.0" in message and "v1.58" in message and "Fix: add foo.v0.1.0" in message
    assert invoke(str(root), "--compat", "v1.26")[0] == 0


def test_docs_list_every_rule_with_its_opm_releases() -> None:
    text = DOCS.read_text()
    for rule in RULES:
        assert f"| {rule.id} | {rule.name} | {rule.releases} |" in text, rule.id
