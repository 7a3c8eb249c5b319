"""operator-registry v1.72.0's own validation test cases get opm v1.72's verdict.

The cases (tests/support/opm_v172_cases.py) are the subtests of v1.72.0's Go tests that decide
whether a declarative config is valid, written as FBC directories. For each, ``olmcat validate``
under ``--compat v1.72`` (the default) must give the Go test's verdict, and where opm refuses, the
olmcat rule that names opm's defect must be among the errors. No local opm runs v1.72's rules, so
this table is the evidence for them; tests/differential/test_validate_opm_v172_cases.py runs the
same directories through the real opm v1.26.5 under ``--compat v1.26``.

Left out (``SKIPPED`` in the table module, with reasons): models FBC cannot express (map keys that
differ from names, parent pointers that do not point back), tests of functions ``opm validate``
never calls (property builders, VersionRelease serialization, olm.substitutesFor ordering,
TestNormalize, TestAddBundle), Go-API-only cases (a nil fs.FS) and repeats of another case's
catalog.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import olmcat
from olmcat.cli import cli
from olmcat.validate import Problem, RuleSet, Summary
from tests.support.opm_v172_cases import CASES, SKIPPED

BY_ID = {case.id: case for case in CASES}


def run(root: Path, compat: str) -> tuple[list[Problem], Summary]:
    summary = Summary()
    problems = list(
        olmcat.validate_catalog(root, rules=RuleSet.build(compat), summary=summary)  # type: ignore[arg-type]
    )
    return problems, summary


@pytest.mark.parametrize("case_id", sorted(BY_ID), ids=str)
def test_opm_v172_verdict(case_id: str, tmp_path: Path) -> None:
    case = BY_ID[case_id]
    problems, summary = run(case.write(tmp_path / "catalog"), "v1.72")
    errors = [p for p in problems if p.severity == "error"]
    shown = [f"{p.rule} {p.message}" for p in errors]
    assert summary.valid() == case.valid, (case.opm_says, shown)
    assert set(case.rules) <= {p.rule for p in errors}, (case.opm_says, shown)


@pytest.mark.parametrize("case_id", sorted(BY_ID), ids=str)
def test_opm_v126_verdict_under_compat_v126(case_id: str, tmp_path: Path) -> None:
    """The v1.26.5 verdict the table records (checked against the real binary by the
    differential test) is also what ``--compat v1.26`` gives."""
    case = BY_ID[case_id]
    _, summary = run(case.write(tmp_path / "catalog"), "v1.26")
    assert summary.valid() == case.v126


def test_the_table_covers_the_go_tests() -> None:
    # Every Go test function named in the module docstring has cases or a recorded skip, and
    # every refused case says which olmcat rule names opm's defect.
    sources = {case.source for case in CASES} | {s.source for s in SKIPPED}
    assert {
        "TestConvertToModel",
        "TestConvertToModelRoundtrip",
        "TestValidators",
        "TestChannelHead",
        "TestValidReplacesChain",
        "load_test",
        "TestNewRelease",
        "TestParse",
    } <= sources
    assert all(case.rules for case in CASES if not case.valid)
    assert not [case.id for case in CASES if case.valid and case.rules]


CLI_CASES = [
    "TestConvertToModel/Success/ValidModel",
    "TestConvertToModel/Error/BundleImageInvalidPullSpecUnsupportedDigestMd5",
    "TestValidReplacesChain/Error/SkippedReplacesStranded",
    "TestNewRelease/exceeds max length",
    "load_test/Success/ValidDir (validFS layout)",
]


@pytest.mark.parametrize("case_id", CLI_CASES, ids=str)
def test_cli_verdicts(case_id: str, tmp_path: Path) -> None:
    case = BY_ID[case_id]
    root = case.write(tmp_path / "catalog")
    result = CliRunner().invoke(cli, ["validate", str(root), "-o", "json"])
    assert result.exit_code == (0 if case.valid else 1), result.output
    report = json.loads(result.stdout)
    assert (report["compat"], report["valid"]) == ("v1.72", case.valid)
    assert set(case.rules) <= {p["rule"] for p in report["problems"] if p["severity"] == "error"}
    # opm v1.26.5's verdict with --compat v1.26
    result = CliRunner().invoke(cli, ["validate", "--compat", "v1.26", str(root), "-q"])
    assert result.exit_code == (0 if case.v126 else 1), result.output
